! example.f90 - libactq from Fortran: save a batch of activations in 2 bits per value, read
! it back, and run a few-bit GELU backward.
!   gfortran actq.f90 example.f90 $(pkg-config --cflags --libs actq)
program example
  use, intrinsic :: iso_c_binding
  use actq
  implicit none

  integer, parameter :: features = 1024, batch = 16
  ! x(features, batch): each Fortran column (one sample) is one C row of `features` values.
  real(c_float) :: x(features, batch), y(features, batch)
  real(c_float), allocatable :: group_min(:), group_scale(:)
  integer(c_int8_t), allocatable :: packed(:), codes(:)
  real(c_float) :: grad_out(features, batch), grad_in(features, batch)
  type(actq_layout) :: layout
  type(fewbit_table) :: table
  integer(c_size_t) :: packed_bytes, groups
  type(c_ptr) :: ctx

  call random_number(x)
  x = 6 * x - 3
  call ok(actq_context_create(ACTQ_BACKEND_CPU, ctx), 'create')
  print '(a, a)', 'context: ', actq_context_description(ctx)

  ! Forward: groups of 256 values down each column, 2 bits each, float32 metadata.
  layout = actq_layout_columns(features, batch, 256, 2)
  call ok(actq_layout_sizes(layout, packed_bytes, groups), 'layout_sizes')
  allocate(packed(packed_bytes), group_min(groups), group_scale(groups))
  call ok(actq_quantize_array(ctx, layout, x, ACTQ_ROUND_STOCHASTIC, 42_c_int64_t, 0_c_int64_t, &
                              packed, group_min, group_scale), 'quantize')
  ! Backward: an unbiased reconstruction.
  call ok(actq_dequantize_array(ctx, layout, packed, group_min, group_scale, y), 'dequantize')
  print '(a, i0, a, i0, a, f6.3)', 'saved ', packed_bytes + 8 * groups, ' bytes for ', &
    size(x), ' values, relative error ', norm2(y - x) / norm2(x)

  ! Few-bit GELU: 2-bit codes in the forward pass, grad_out * level in the backward pass.
  call ok(fewbit_table_build(FEWBIT_GELU, 0.0_c_float, 2_c_int32_t, table=table), 'table')
  allocate(codes(size(x) / 4))   ! 2 bits per value
  call ok(fewbit_encode_array(ctx, table, x, codes), 'encode')
  grad_out = 1
  call ok(fewbit_backward_array(ctx, table, codes, grad_out, grad_in), 'backward')
  print '(a, 4f8.4, a, es9.2)', 'GELU 2-bit derivative levels', table%levels(0:3), &
    ', error ', table%error
  call actq_context_destroy(ctx)

contains

  subroutine ok(status, what)
    integer(c_int), intent(in) :: status
    character(len=*), intent(in) :: what
    if (status /= ACTQ_OK) then
      print '(a, a, a)', what, ': ', actq_status_message(status)
      error stop 1
    end if
  end subroutine ok
end program example
