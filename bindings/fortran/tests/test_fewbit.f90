! test_fewbit.f90 - few-bit backward tables, encode and backward, and bit allocation through
! the Fortran module: codes are the interval of each value, y is the activation, the
! gradient is grad_out * level exactly, exact 1-bit cases have zero error, and bad
! arguments give their statuses without writing outputs.
program test_fewbit
  use, intrinsic :: iso_c_binding
  use, intrinsic :: ieee_arithmetic, only: ieee_value, ieee_quiet_nan, ieee_positive_inf, &
    ieee_negative_inf, ieee_is_nan
  use actq
  use check
  implicit none

  type(c_ptr) :: ctx
  call expect_status(actq_context_create(ACTQ_BACKEND_CPU, ctx), ACTQ_OK, 'create')
  call test_gelu(ctx)
  call test_table_options()
  call test_custom(ctx)
  call test_allocate_bits()
  call actq_context_destroy(ctx)
  call finish('test_fewbit')

contains

  subroutine test_gelu(c)
    type(c_ptr), intent(in) :: c
    integer, parameter :: n = 1003
    type(fewbit_table) :: t
    real(c_float) :: x(n), y(n), grad_out(n), grad_in(n)
    integer(c_int8_t) :: codes(251), unpacked(n)   ! codes: ceil(n * 2 / 8) bytes
    real(c_double) :: exact
    logical :: codes_ok, y_ok, grad_ok
    integer :: i

    call expect_status(fewbit_table_build(FEWBIT_GELU, 0.0_c_float, 2_c_int32_t, table=t), &
                       ACTQ_OK, 'GELU 2-bit table, default options (NULL)')
    call expect(t%bits == 2 .and. t%activation == FEWBIT_GELU, 'table header')
    call expect(t%bounds(0) < t%bounds(1) .and. t%bounds(1) < t%bounds(2), 'increasing bounds')
    call expect(t%error > 0 .and. t%error < 0.05, 'a small positive error')
    call expect(all(t%levels(0:3) > -0.2) .and. all(t%levels(0:3) < 1.2), &
                'levels within the range of GELU''s derivative')

    call random_number(x)
    x = 8 * x - 4
    x(1) = ieee_value(x(1), ieee_positive_inf)
    x(2) = ieee_value(x(1), ieee_negative_inf)
    x(3) = t%bounds(1)          ! on a border: the lower code (bounds strictly below)
    call random_number(grad_out)
    call expect_status(fewbit_encode_array(c, t, x, codes, y), ACTQ_OK, 'encode with y')
    call expect_status(actq_unpack_array(c, 2, codes, unpacked), ACTQ_OK, 'unpack the codes')
    codes_ok = .true.
    y_ok = .true.
    do i = 1, n
      codes_ok = codes_ok .and. unpacked(i) == count(t%bounds(0:2) < x(i))
      if (i > 2) then
        exact = x(i) * 0.5d0 * erfc(-x(i) / sqrt(2.0d0))
        y_ok = y_ok .and. abs(y(i) - exact) <= 4 * spacing(real(exact, c_float))
      end if
    end do
    call expect(codes_ok, 'code = number of bounds strictly below x (infinities included)')
    call expect(unpacked(3) == 1, 'a value on bounds(1) gets code 1')
    call expect(y_ok, 'y within 4 ulp of GELU')
    call expect(y(1) == x(1) .and. y(2) == 0, 'GELU(+Inf) = +Inf, GELU(-Inf) = 0')

    call expect_status(fewbit_backward_array(c, t, codes, grad_out, grad_in), ACTQ_OK, 'backward')
    grad_ok = .true.
    do i = 1, n
      grad_ok = grad_ok .and. grad_in(i) == grad_out(i) * t%levels(unpacked(i))
    end do
    call expect(grad_ok, 'grad_in = grad_out * levels(code), one float32 rounding')

    x(7) = ieee_value(x(1), ieee_quiet_nan)
    call expect_status(fewbit_encode_array(c, t, x, codes, y), ACTQ_ERR_NONFINITE, 'NaN input')
    call expect_status(actq_unpack_array(c, 2, codes, unpacked), ACTQ_OK, 'unpack')
    call expect(unpacked(7) == 0 .and. ieee_is_nan(y(7)), 'NaN: code 0 and y NaN')
    call expect(unpacked(8) == count(t%bounds(0:2) < x(8)), 'values after the NaN are encoded')

    call expect_status(fewbit_encode_array(c, t, x, codes(1:10)), ACTQ_ERR_INVALID_ARGUMENT, &
                       'codes buffer too short')
    call expect_status(fewbit_backward_array(c, t, codes, grad_out, grad_in(1:n - 1)), &
                       ACTQ_ERR_INVALID_ARGUMENT, 'grad_in shorter than grad_out')
  end subroutine test_gelu

  subroutine test_table_options()
    type(fewbit_table) :: t, shifted
    type(fewbit_options) :: opt
    call expect_status(fewbit_table_build(FEWBIT_RELU, 0.0_c_float, 1_c_int32_t, table=t), &
                       ACTQ_OK, 'ReLU 1-bit')
    call expect(t%error == 0 .and. t%levels(0) == 0 .and. t%levels(1) == 1, &
                'ReLU at 1 bit is exact: levels 0 and 1, zero error')
    call expect_status(fewbit_table_build(FEWBIT_LEAKY_RELU, 0.1_c_float, 1_c_int32_t, table=t), &
                       ACTQ_OK, 'LeakyReLU 1-bit')
    call expect(t%error == 0 .and. abs(t%levels(0) - 0.1) < 1e-7, 'LeakyReLU: exact, slope level')

    opt%weight = FEWBIT_WEIGHT_NORMAL
    opt%mean = 2
    opt%std = 1
    call expect_status(fewbit_table_build(FEWBIT_GELU, 0.0_c_float, 2_c_int32_t, opt, shifted), &
                       ACTQ_OK, 'GELU with inputs N(2, 1)')
    call expect_status(fewbit_table_build(FEWBIT_GELU, 0.0_c_float, 2_c_int32_t, table=t), &
                       ACTQ_OK, 'GELU with inputs N(0, 1)')
    call expect(abs(t%bounds(1)) < 1e-3 .and. abs(t%bounds(0) + t%bounds(2)) < 1e-3, &
                'N(0, 1): bounds symmetric about 0')
    call expect(shifted%bounds(1) > 0.5, 'N(2, 1): the middle bound moves right')
    opt%weight = FEWBIT_WEIGHT_UNIFORM
    opt%lo = -4
    opt%hi = 4
    call expect_status(fewbit_table_build(FEWBIT_SILU, 0.0_c_float, 3_c_int32_t, opt, t), &
                       ACTQ_OK, 'SiLU uniform on [-4, 4]')
    call expect(t%bounds(0) > -4 .and. t%bounds(6) < 4, 'uniform bounds inside the domain')

    t%bits = 77
    opt%weight = FEWBIT_WEIGHT_NORMAL
    opt%std = -1
    call expect_status(fewbit_table_build(FEWBIT_GELU, 0.0_c_float, 2_c_int32_t, opt, t), &
                       ACTQ_ERR_INVALID_ARGUMENT, 'std <= 0')
    call expect(t%bits == 77, 'a failed build leaves the table alone')
    call expect_status(fewbit_table_build(FEWBIT_CUSTOM, 0.0_c_float, 2_c_int32_t, table=t), &
                       ACTQ_ERR_INVALID_ARGUMENT, 'FEWBIT_CUSTOM in table_build')
    call expect_status(fewbit_table_build(99_c_int, 0.0_c_float, 2_c_int32_t, table=t), &
                       ACTQ_ERR_INVALID_ARGUMENT, 'unknown activation')
    call expect_status(fewbit_table_build(FEWBIT_GELU, 0.0_c_float, 9_c_int32_t, table=t), &
                       ACTQ_ERR_INVALID_ARGUMENT, 'bits 9')
    call expect_status(fewbit_table_build(FEWBIT_ELU, -1.0_c_float, 2_c_int32_t, table=t), &
                       ACTQ_ERR_INVALID_ARGUMENT, 'ELU with alpha < 0')
  end subroutine test_table_options

  ! A step derivative sampled on a grid: one border between the samples around 0.
  subroutine test_custom(c)
    type(c_ptr), intent(in) :: c
    integer, parameter :: n = 601
    real(c_double) :: x(n), dydx(n), w(n)
    real(c_float) :: xs(4), ys(4)
    integer(c_int8_t) :: codes(1), unpacked(4)
    type(fewbit_table) :: t
    integer :: i
    do i = 1, n
      x(i) = -3 + 6 * real(i - 1, c_double) / (n - 1)
    end do
    dydx = merge(1.0d0, 0.1d0, x > 0)
    w = exp(-x**2 / 2)
    call expect_status(fewbit_table_build_custom_array(x, dydx, 1, t, w), ACTQ_OK, 'custom table')
    call expect(t%activation == FEWBIT_CUSTOM .and. t%bits == 1, 'custom header')
    call expect(t%bounds(0) > 0 .and. t%bounds(0) < 0.01, 'the border lies between 0 and 0.01')
    call expect(abs(t%levels(0) - 0.1) < 1e-6 .and. abs(t%levels(1) - 1) < 1e-6 .and. &
                t%error < 1e-12, 'a step is fitted exactly')
    call expect_status(fewbit_table_build_custom_array(x, dydx, 1, t), ACTQ_OK, &
                       'custom table without weights (NULL)')
    xs = [-1.0, -0.001, 0.5, 2.0]
    call expect_status(fewbit_encode_array(c, t, xs, codes), ACTQ_OK, 'encode, custom, no y')
    call expect_status(actq_unpack_array(c, 1, codes, unpacked), ACTQ_OK, 'unpack')
    call expect(all(unpacked == [0, 0, 1, 1]), 'custom codes')
    call expect_status(fewbit_encode_array(c, t, xs, codes, ys), ACTQ_ERR_UNSUPPORTED, &
                       'y with a custom table')
    call expect_status(fewbit_table_build_custom_array(x, dydx(1:n - 1), 1, t), &
                       ACTQ_ERR_INVALID_ARGUMENT, 'dydx of another length')
    x(10) = x(9)
    call expect_status(fewbit_table_build_custom_array(x, dydx, 1, t), &
                       ACTQ_ERR_INVALID_ARGUMENT, 'x not strictly increasing')
  end subroutine test_custom

  subroutine test_allocate_bits()
    real(c_double) :: sens(4) = [1.0d0, 10.0d0, 100.0d0, 1000.0d0], objective, greedy_objective
    integer(c_int64_t) :: numel(4) = 100
    integer(c_int8_t) :: bits(4), greedy_bits(4)
    real(c_double) :: nan
    call expect_status(actq_allocate_bits_array(sens, numel, 3.0d0, int(z'1FE', c_int32_t), &
                       ACTQ_ALLOC_EXACT, bits, objective), ACTQ_OK, 'exact allocation')
    call expect(sum(numel * bits) <= 3 * sum(numel), 'the budget holds')
    call expect(all(bits(2:4) >= bits(1:3)), 'more sensitive items get at least as many bits')
    call expect(abs(objective - sum(sens / (2.0d0**bits - 1)**2)) <= 1d-12 * objective, &
                'objective of the returned widths')
    call expect_status(actq_allocate_bits_array(sens, numel, 3.0d0, int(z'1FE', c_int32_t), &
                       ACTQ_ALLOC_GREEDY, greedy_bits, greedy_objective), ACTQ_OK, 'greedy')
    call expect(abs(greedy_objective - objective) <= 1d-12 * objective, &
                'greedy is optimal with equal sizes and consecutive widths')

    bits = 9
    call expect_status(actq_allocate_bits_array(sens, numel, 0.5d0, int(z'1FE', c_int32_t), &
                       ACTQ_ALLOC_GREEDY, bits), ACTQ_ERR_INVALID_ARGUMENT, 'infeasible budget')
    call expect(all(bits == 9), 'outputs written only on success')
    call expect_status(actq_allocate_bits_array(sens, numel, 3.0d0, 0_c_int32_t, &
                       ACTQ_ALLOC_GREEDY, bits), ACTQ_ERR_INVALID_ARGUMENT, 'no allowed width')
    call expect_status(actq_allocate_bits_array(sens, numel, 3.0d0, 1_c_int32_t, &
                       ACTQ_ALLOC_GREEDY, bits), ACTQ_ERR_INVALID_ARGUMENT, 'width 0 allowed')
    nan = ieee_value(nan, ieee_quiet_nan)
    sens(2) = nan
    call expect_status(actq_allocate_bits_array(sens, numel, 3.0d0, int(z'1FE', c_int32_t), &
                       ACTQ_ALLOC_GREEDY, bits), ACTQ_ERR_INVALID_ARGUMENT, 'NaN sensitivity')
    call expect_status(actq_allocate_bits_array(sens(1:3), numel, 3.0d0, int(z'1FE', c_int32_t), &
                       ACTQ_ALLOC_GREEDY, bits), ACTQ_ERR_INVALID_ARGUMENT, 'lengths differ')
    objective = -1
    call expect_status(actq_allocate_bits_array(sens(1:0), numel(1:0), 3.0d0, &
                       int(z'1FE', c_int32_t), ACTQ_ALLOC_EXACT, bits(1:0), objective), ACTQ_OK, &
                       'm = 0')
    call expect(objective == 0, 'm = 0: objective 0')
  end subroutine test_allocate_bits
end program test_fewbit
