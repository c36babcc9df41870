! check.f90 - the assertions of the Fortran binding tests: every failed check is printed
! with its message and counted; finish() fails the program (nonzero exit) when any failed.
module check
  use, intrinsic :: iso_c_binding
  implicit none
  integer, private :: failures = 0, checks = 0
contains
  subroutine expect(condition, message)
    logical, intent(in) :: condition
    character(len=*), intent(in) :: message
    checks = checks + 1
    if (.not. condition) then
      failures = failures + 1
      write(*, '(a, a)') 'FAIL: ', message
    end if
  end subroutine expect

  ! A status check that names both statuses when they differ.
  subroutine expect_status(got, want, message)
    integer(c_int), intent(in) :: got, want
    character(len=*), intent(in) :: message
    character(len=64) :: detail
    write(detail, '(a, i0, a, i0)') ' (status ', got, ', expected ', want
    call expect(got == want, message // trim(detail) // ')')
  end subroutine expect_status

  subroutine finish(name)
    character(len=*), intent(in) :: name
    write(*, '(a, a, i0, a, i0, a)') name, ': ', checks - failures, ' of ', checks, ' checks passed'
    if (failures > 0) error stop 1
  end subroutine finish
end module check
