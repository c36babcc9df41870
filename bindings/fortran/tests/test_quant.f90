! test_quant.f90 - contexts, status strings, group quantization and packing through the
! Fortran module: golden bytes of the C library's format, round-trip error bounds for every
! width and rounding, per-column widths, 16-bit metadata, NaN handling, and the statuses of
! bad calls (including the wrappers' own size checks, which must not touch any buffer).
program test_quant
  use, intrinsic :: iso_c_binding
  use, intrinsic :: ieee_arithmetic, only: ieee_value, ieee_quiet_nan, ieee_is_nan
  use actq
  use check
  use golden
  implicit none

  integer(c_int), parameter :: backends(2) = [ACTQ_BACKEND_CPU_REFERENCE, ACTQ_BACKEND_CPU]
  type(c_ptr) :: ctx
  integer :: i

  call test_contexts()
  call test_status_strings()
  do i = 1, size(backends)
    call expect_status(actq_context_create(backends(i), ctx), ACTQ_OK, 'create')
    call test_golden(ctx)
    call test_round_trip(ctx)
    call test_row_bits(ctx)
    call test_half_metadata(ctx)
    call test_nonfinite(ctx)
    call test_bad_calls(ctx)
    call test_pack(ctx)
    call actq_context_destroy(ctx)
  end do
  call finish('test_quant')

contains

  subroutine test_contexts()
    type(c_ptr) :: c
    character(len=:), allocatable :: text
    integer(c_int) :: st
    integer, target :: marker
    call expect_status(actq_context_create(ACTQ_BACKEND_CPU, c), ACTQ_OK, 'create cpu')
    text = actq_context_description(c)
    call expect(len(text) > 3, 'describe is not empty: "' // text // '"')
    if (len(text) > 3) call expect(text(1:3) == 'cpu', 'a cpu context describes itself as cpu')
    call expect_status(actq_context_set_threads(c, 2), ACTQ_OK, 'set_threads(2)')
    call expect_status(actq_context_set_threads(c, -1), ACTQ_ERR_INVALID_ARGUMENT, 'set_threads(-1)')
    call expect_status(actq_context_set_stream(c, c_null_ptr), ACTQ_ERR_UNSUPPORTED, &
                       'set_stream on a cpu context')
    call expect_status(actq_context_synchronize(c), ACTQ_OK, 'synchronize a cpu context')
    call actq_context_destroy(c)
    call actq_context_destroy(c_null_ptr)

    c = c_loc(marker)   ! not NULL, so that the failing create is seen to clear it
    call expect_status(actq_context_create(99_c_int, c), ACTQ_ERR_INVALID_ARGUMENT, 'unknown backend')
    call expect(.not. c_associated(c), 'a failed create leaves a NULL context')
    ! CUDA: a usable device gives a context, anything else UNSUPPORTED.
    st = actq_context_create(ACTQ_BACKEND_CUDA, c)
    call expect(st == ACTQ_OK .or. st == ACTQ_ERR_UNSUPPORTED, 'cuda context: OK or UNSUPPORTED')
    if (st == ACTQ_OK) then
      call expect_status(actq_context_set_threads(c, 1), ACTQ_ERR_UNSUPPORTED, 'set_threads on cuda')
      call actq_context_destroy(c)
    else
      call expect(.not. c_associated(c), 'no cuda context on failure')
    end if
  end subroutine test_contexts

  subroutine test_status_strings()
    integer(c_int) :: s, t
    do s = ACTQ_OK, ACTQ_ERR_INTERNAL
      call expect(len(actq_status_message(s)) > 0, 'a status string for every status')
      do t = ACTQ_OK, s - 1
        call expect(actq_status_message(s) /= actq_status_message(t), 'status strings differ')
      end do
    end do
    call expect(actq_status_message(99_c_int) == 'unknown actq status', &
                'unknown status: "' // actq_status_message(99_c_int) // '"')
  end subroutine test_status_strings

  subroutine test_golden(c)
    type(c_ptr), intent(in) :: c
    type(actq_layout) :: layout
    real(c_float) :: x(golden_cols, golden_rows), y(golden_cols, golden_rows)
    real(c_float) :: gmin(6), gscale(6)
    integer(c_int8_t) :: packed(12)
    integer(c_size_t) :: packed_bytes, groups
    x = reshape(transfer(golden_x, 1.0_c_float, size(golden_x)), shape(x))
    layout = actq_layout_columns(golden_cols, golden_rows, golden_group, golden_bits)
    call expect_status(actq_layout_sizes(layout, packed_bytes, groups), ACTQ_OK, 'layout_sizes')
    call expect(packed_bytes == 12 .and. groups == 6, 'golden sizes: 12 bytes, 6 groups')
    call expect_status(actq_layout_sizes(layout, groups=groups), ACTQ_OK, &
                       'layout_sizes with packed_bytes absent (NULL)')
    call expect_status(actq_quantize_array(c, layout, x, ACTQ_ROUND_STOCHASTIC, golden_seed, &
                       golden_offset, packed, gmin, gscale), ACTQ_OK, 'golden quantize')
    call expect(all(packed == golden_packed), 'golden packed bytes')
    call expect(all(transfer(gmin, 0_c_int32_t, 6) == golden_min), 'golden group minima')
    call expect(all(transfer(gscale, 0_c_int32_t, 6) == golden_scale), 'golden group scales')
    call expect_status(actq_dequantize_array(c, layout, golden_packed, &
                       transfer(golden_min, 1.0_c_float, 6), transfer(golden_scale, 1.0_c_float, 6), &
                       y), ACTQ_OK, 'golden dequantize')
    call expect(all(transfer(y, 0_c_int32_t, size(y)) == golden_y), 'golden dequantized values')
  end subroutine test_golden

  ! Every width and both roundings on 5 columns of 1000 values (groups of 64, the last one
  ! partial): stored metadata bracket their group, and the error is at most half a step
  ! (nearest) or under one step (stochastic).
  subroutine test_round_trip(c)
    type(c_ptr), intent(in) :: c
    integer, parameter :: n = 1000, m = 5, group = 64, groups_per_col = 16 ! ceil(n / group)
    real(c_float) :: x(n, m), y(n, m)
    real(c_float) :: gmin(groups_per_col * m), gscale(groups_per_col * m)
    integer(c_int8_t), allocatable :: packed(:)
    type(actq_layout) :: layout
    integer(c_size_t) :: packed_bytes, groups
    integer(c_int) :: rounding
    integer :: bits, j, g, lo, hi
    real(c_double) :: levels, step, worst
    logical :: bracketed, bounded
    character(len=48) :: what
    call fill_random(x)
    do bits = 1, 8
      do rounding = ACTQ_ROUND_STOCHASTIC, ACTQ_ROUND_NEAREST
        write(what, '(a, i0, a, i0)') 'round trip, bits ', bits, ', rounding ', rounding
        layout = actq_layout_columns(n, m, group, bits)
        call expect_status(actq_layout_sizes(layout, packed_bytes, groups), ACTQ_OK, trim(what))
        call expect(packed_bytes == m * ((n * bits + 7) / 8) .and. groups == size(gmin), &
                    trim(what) // ': sizes')
        allocate(packed(packed_bytes))
        call expect_status(actq_quantize_array(c, layout, x, rounding, 7_c_int64_t, 0_c_int64_t, &
                           packed, gmin, gscale), ACTQ_OK, trim(what) // ': quantize')
        call expect_status(actq_dequantize_array(c, layout, packed, gmin, gscale, y), ACTQ_OK, &
                           trim(what) // ': dequantize')
        levels = 2.0d0**bits - 1
        bracketed = .true.
        bounded = .true.
        do j = 1, m
          do g = 1, groups_per_col
            lo = (g - 1) * group + 1
            hi = min(g * group, n)
            associate (mn => real(gmin((j - 1) * groups_per_col + g), c_double), &
                       sc => real(gscale((j - 1) * groups_per_col + g), c_double))
              bracketed = bracketed .and. all(x(lo:hi, j) >= mn) .and. &
                          all(x(lo:hi, j) <= mn + levels * sc)
              step = sc
            end associate
            worst = maxval(abs(real(y(lo:hi, j), c_double) - x(lo:hi, j)))
            ! a float32 fma result adds at most one rounding of the value's magnitude
            if (rounding == ACTQ_ROUND_NEAREST) then
              bounded = bounded .and. worst <= 0.5d0 * step + 1d-6
            else
              bounded = bounded .and. worst < step + 1d-6
            end if
          end do
        end do
        call expect(bracketed, trim(what) // ': min <= x <= min + L*scale')
        call expect(bounded, trim(what) // ': error within the rounding bound')
        deallocate(packed)
      end do
    end do
  end subroutine test_round_trip

  ! Per-column widths (row_bits): each Fortran column gets its own width.
  subroutine test_row_bits(c)
    type(c_ptr), intent(in) :: c
    integer, parameter :: n = 100, m = 5
    integer(c_int8_t), target :: widths(m) = [1_c_int8_t, 2_c_int8_t, 4_c_int8_t, 8_c_int8_t, 3_c_int8_t]
    real(c_float) :: x(n, m), y(n, m), gmin(2 * m), gscale(2 * m)
    integer(c_int8_t), allocatable :: packed(:)
    type(actq_layout) :: layout
    integer(c_size_t) :: packed_bytes, groups
    integer :: j
    logical :: bounded
    call fill_random(x)
    layout = actq_layout_columns(n, m, 64, 0)
    layout%row_bits = c_loc(widths)
    call expect_status(actq_layout_sizes(layout, packed_bytes, groups), ACTQ_OK, 'row_bits sizes')
    call expect(packed_bytes == sum((n * int(widths) + 7) / 8) .and. groups == 2 * m, &
                'row_bits: a packed row per column, of its own width')
    allocate(packed(packed_bytes))
    call expect_status(actq_quantize_array(c, layout, x, ACTQ_ROUND_NEAREST, 0_c_int64_t, &
                       0_c_int64_t, packed, gmin, gscale), ACTQ_OK, 'row_bits quantize')
    call expect_status(actq_dequantize_array(c, layout, packed, gmin, gscale, y), ACTQ_OK, &
                       'row_bits dequantize')
    bounded = .true.
    do j = 1, m
      bounded = bounded .and. all(abs(y(1:64, j) - x(1:64, j)) <= 0.5 * gscale(2 * j - 1) + 1e-6) &
                        .and. all(abs(y(65:n, j) - x(65:n, j)) <= 0.5 * gscale(2 * j) + 1e-6)
    end do
    call expect(bounded, 'row_bits: every column within half a step of its width')
    ! 8 bits are much finer than 1 bit on the same data
    call expect(maxval(abs(y(:, 4) - x(:, 4))) < 0.02 * maxval(abs(y(:, 1) - x(:, 1))), &
                'row_bits: the 8-bit column is finer than the 1-bit one')
  end subroutine test_row_bits

  ! f16 and bf16 metadata, held as their bits in integer(c_int16_t).
  subroutine test_half_metadata(c)
    type(c_ptr), intent(in) :: c
    integer, parameter :: n = 256, m = 3
    real(c_float) :: x(n, m), y(n, m), fmin(4 * m), fscale(4 * m)
    integer(c_int16_t) :: hmin(4 * m), hscale(4 * m)
    integer(c_int8_t) :: packed(m * n / 2)
    type(actq_layout) :: layout
    integer(c_int) :: meta
    real :: err_f32, err_half
    call fill_random(x)
    layout = actq_layout_columns(n, m, 64, 4)
    call expect_status(actq_quantize_array(c, layout, x, ACTQ_ROUND_NEAREST, 0_c_int64_t, &
                       0_c_int64_t, packed, fmin, fscale), ACTQ_OK, 'f32 metadata')
    call expect_status(actq_dequantize_array(c, layout, packed, fmin, fscale, y), ACTQ_OK, &
                       'f32 metadata dequantize')
    err_f32 = maxval(abs(y - x))
    do meta = ACTQ_F16, ACTQ_BF16
      layout%meta_dtype = meta
      call expect_status(actq_quantize_array(c, layout, x, ACTQ_ROUND_NEAREST, 0_c_int64_t, &
                         0_c_int64_t, packed, hmin, hscale), ACTQ_OK, '16-bit metadata')
      call expect_status(actq_dequantize_array(c, layout, packed, hmin, hscale, y), ACTQ_OK, &
                         '16-bit metadata dequantize')
      err_half = maxval(abs(y - x))
      ! the scale grows by at most a 16-bit rounding (bf16: 2^-8) and the minimum moves by
      ! one rounding below the data, so the worst error stays close to the f32 one
      call expect(err_half <= 1.05 * err_f32 + 0.02, '16-bit metadata: error near the f32 one')
      call expect(actq_quantize_array(c, layout, x, ACTQ_ROUND_NEAREST, 0_c_int64_t, 0_c_int64_t, &
                  packed, fmin, fscale) == ACTQ_ERR_INVALID_ARGUMENT, &
                  'real(c_float) metadata arrays with a 16-bit meta_dtype are refused')
    end do
  end subroutine test_half_metadata

  ! A NaN poisons its group only: NaN metadata, NaN values back, status NONFINITE.
  subroutine test_nonfinite(c)
    type(c_ptr), intent(in) :: c
    real(c_float) :: x(16, 2), y(16, 2), gmin(4), gscale(4)
    integer(c_int8_t) :: packed(8)
    type(actq_layout) :: layout
    call fill_random(x)
    x(11, 1) = ieee_value(x(1, 1), ieee_quiet_nan)
    layout = actq_layout_columns(16, 2, 8, 2)
    call expect_status(actq_quantize_array(c, layout, x, ACTQ_ROUND_STOCHASTIC, 1_c_int64_t, &
                       2_c_int64_t, packed, gmin, gscale), ACTQ_ERR_NONFINITE, 'NaN in a group')
    call expect(ieee_is_nan(gmin(2)) .and. ieee_is_nan(gscale(2)), 'NaN group stores NaN metadata')
    call expect(.not. any(ieee_is_nan(gmin([1, 3, 4]))), 'the other groups are processed')
    call expect_status(actq_dequantize_array(c, layout, packed, gmin, gscale, y), ACTQ_OK, &
                       'dequantize does not inspect values')
    call expect(all(ieee_is_nan(y(9:16, 1))) .and. .not. any(ieee_is_nan(y(1:8, 1))) .and. &
                .not. any(ieee_is_nan(y(:, 2))), 'only the NaN group dequantizes to NaN')
  end subroutine test_nonfinite

  subroutine test_bad_calls(c)
    type(c_ptr), intent(in) :: c
    real(c_float) :: x(16, 2), short_x(31)
    real(c_float), target :: gmin(4), gscale(4)
    integer(c_int8_t), target :: packed(8)
    integer(c_int8_t) :: short_packed(7)
    type(actq_layout) :: layout
    call fill_random(x)
    layout = actq_layout_columns(16, 2, 8, 2)
    short_packed = 77
    call expect_status(actq_quantize_array(c, layout, x, ACTQ_ROUND_NEAREST, 0_c_int64_t, &
                       0_c_int64_t, short_packed, gmin, gscale), ACTQ_ERR_INVALID_ARGUMENT, &
                       'a packed buffer one byte short')
    call expect(all(short_packed == 77), 'a refused call leaves the buffer untouched')
    call expect_status(actq_quantize_array(c, layout, short_x, ACTQ_ROUND_NEAREST, 0_c_int64_t, &
                       0_c_int64_t, packed, gmin, gscale), ACTQ_ERR_INVALID_ARGUMENT, &
                       'x with rows*cols - 1 elements')
    call expect_status(actq_quantize_array(c, layout, x, ACTQ_ROUND_NEAREST, 0_c_int64_t, &
                       0_c_int64_t, packed, gmin(1:3), gscale), ACTQ_ERR_INVALID_ARGUMENT, &
                       'metadata one entry short')
    call expect_status(actq_dequantize_array(c, layout, packed, gmin, gscale, short_x), &
                       ACTQ_ERR_INVALID_ARGUMENT, 'y with rows*cols - 1 elements')
    ! statuses from C itself
    layout%group_size = 12
    call expect_status(actq_quantize_array(c, layout, x, ACTQ_ROUND_NEAREST, 0_c_int64_t, &
                       0_c_int64_t, packed, gmin, gscale), ACTQ_ERR_INVALID_ARGUMENT, &
                       'group_size not a multiple of 8')
    layout = actq_layout_columns(16, 2, 8, 9)
    call expect_status(actq_layout_sizes(layout), ACTQ_ERR_INVALID_ARGUMENT, 'bits 9')
    layout = actq_layout_columns(16, 2, 8, 2)
    call expect_status(actq_quantize_array(c, layout, x, 5_c_int, 0_c_int64_t, 0_c_int64_t, &
                       packed, gmin, gscale), ACTQ_ERR_INVALID_ARGUMENT, 'unknown rounding')
    call expect_status(actq_quantize(c, layout, ACTQ_F32, c_null_ptr, ACTQ_ROUND_NEAREST, &
                       0_c_int64_t, 0_c_int64_t, c_loc(packed), c_loc(gmin), c_loc(gscale)), &
                       ACTQ_ERR_INVALID_ARGUMENT, 'raw call with NULL x')
    layout%rows = huge(0_c_size_t)
    layout%cols = huge(0_c_size_t)
    call expect_status(actq_layout_sizes(layout), ACTQ_ERR_SIZE_OVERFLOW, 'a layout past 2^64 elements')
    ! empty work is valid and touches nothing (NULL buffers allowed)
    layout = actq_layout_columns(0, 3, 8, 2)
    call expect_status(actq_quantize(c, layout, ACTQ_F32, c_null_ptr, ACTQ_ROUND_NEAREST, &
                       0_c_int64_t, 0_c_int64_t, c_null_ptr, c_null_ptr, c_null_ptr), ACTQ_OK, &
                       'empty work')
  end subroutine test_bad_calls

  subroutine test_pack(c)
    type(c_ptr), intent(in) :: c
    integer(c_int8_t), target :: codes(5), big(1001)
    integer(c_int8_t) :: packed(2), back(5), many(1001), many_back(1001), one(1)
    real :: r(1001)
    integer :: bits
    codes = [1_c_int8_t, 2_c_int8_t, 3_c_int8_t, 0_c_int8_t, 3_c_int8_t]
    ! LSB first: 1 | 2<<2 | 3<<4 | 0<<6 = 0x39, then 3 and zero high bits
    call expect_status(actq_pack_array(c, 2, codes, packed), ACTQ_OK, 'pack')
    call expect(packed(1) == int(z'39', c_int8_t) .and. packed(2) == 3, 'packed bytes 0x39 0x03')
    call expect_status(actq_unpack_array(c, 2, packed, back), ACTQ_OK, 'unpack')
    call expect(all(back == codes), 'unpack gives the codes back')
    call random_number(r)
    do bits = 1, 8
      many = int(floor(r * 2.0**bits), c_int8_t)
      many_back = -1
      call expect_status(actq_pack_array(c, bits, many, big), ACTQ_OK, 'pack 1001 codes')
      call expect_status(actq_unpack_array(c, bits, big, many_back), ACTQ_OK, 'unpack 1001 codes')
      call expect(all(many == many_back), 'pack/unpack round trip at every width')
    end do
    codes(3) = 4
    call expect_status(actq_pack_array(c, 2, codes, packed), ACTQ_ERR_INVALID_ARGUMENT, &
                       'a code >= 2^bits')
    call expect_status(actq_pack_array(c, 9, codes, big), ACTQ_ERR_INVALID_ARGUMENT, 'bits 9')
    call expect_status(actq_pack(c, 9_c_int32_t, 5_c_size_t, c_loc(codes), c_loc(big)), &
                       ACTQ_ERR_INVALID_ARGUMENT, 'raw pack with bits 9')
    one = 55
    call expect_status(actq_unpack_array(c, 2, one, back), ACTQ_ERR_INVALID_ARGUMENT, &
                       'unpack from a packed buffer one byte short')
  end subroutine test_pack

  ! Deterministic pseudo-random values in [-3, 5).
  subroutine fill_random(x)
    real(c_float), intent(out) :: x(:, :)
    integer :: seed_size
    integer, allocatable :: seed(:)
    call random_seed(size=seed_size)
    allocate(seed(seed_size))
    seed = 20261129
    call random_seed(put=seed)
    call random_number(x)
    x = 8 * x - 3
  end subroutine fill_random
end program test_quant
