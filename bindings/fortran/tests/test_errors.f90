! test_errors.f90 - bad arguments to the Fortran module's wrappers (issue 28): for every
! argument of every wrapper one bad value gives the contract's status and, in the optional
! `message`, the argument's name and its value; outputs prefilled with a sentinel are left
! untouched (the checks run before C is called). Also: a C status without a binding-side
! message is "<C call>: <status string>", success gives an empty message, and the
! wrappers work as before without `message`.
program test_errors
  use, intrinsic :: iso_c_binding
  use, intrinsic :: ieee_arithmetic, only: ieee_value, ieee_quiet_nan, ieee_positive_inf
  use actq
  use check
  implicit none

  integer(c_int8_t), parameter :: byte_sentinel = 77_c_int8_t
  real(c_float), parameter :: sentinel = -12345.0_c_float
  type(c_ptr) :: ctx

  call expect_status(actq_context_create(ACTQ_BACKEND_CPU, ctx), ACTQ_OK, 'create')
  call test_layout_columns()
  call test_quantize(ctx)
  call test_dequantize(ctx)
  call test_pack_unpack(ctx)
  call test_encode_backward(ctx)
  call test_table_build()
  call test_custom()
  call test_allocate_bits()
  call test_c_statuses(ctx)
  call actq_context_destroy(ctx)
  call finish('test_errors')

contains

  ! The refusal of one bad argument: its status, and a message naming it and its value.
  subroutine expect_refused(got, want, message, name, value, what)
    integer(c_int), intent(in) :: got, want
    character(len=:), allocatable, intent(in) :: message
    character(len=*), intent(in) :: name, value, what
    call expect_status(got, want, what)
    if (.not. allocated(message)) then
      call expect(.false., what // ': no message')
      return
    end if
    call expect(index(message, name) > 0, what // ': the message names ' // name // ': "' // &
                message // '"')
    call expect(index(message, value) > 0, what // ': the message gives the value ' // value // &
                ': "' // message // '"')
  end subroutine expect_refused

  subroutine test_layout_columns()
    type(actq_layout) :: layout
    integer(c_int) :: st
    character(len=:), allocatable :: msg
    layout = actq_layout_columns(16, 2, 8, 2, status=st, message=msg)
    call expect_status(st, ACTQ_OK, 'layout_columns: a valid layout')
    call expect(msg == '', 'layout_columns: no message when valid')
    layout = actq_layout_columns(-1, 2, 8, 2, status=st, message=msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'n', '-1', 'layout_columns n')
    layout = actq_layout_columns(16, -2, 8, 2, status=st, message=msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'm', '-2', 'layout_columns m')
    layout = actq_layout_columns(16, 2, 7, 2, status=st, message=msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'group_size must be a multiple of 8 ' &
                        // 'in 8..65536', 'got 7', 'layout_columns group_size')
    layout = actq_layout_columns(16, 2, 8, 9, status=st, message=msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'bits must be 1..8', 'got 9', &
                        'layout_columns bits')
    layout = actq_layout_columns(16, 2, 8, 2, 5_c_int, st, msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'meta_dtype', '5', &
                        'layout_columns meta_dtype')
    ! without status the layout is built as given, as before (bits 0, then row_bits)
    layout = actq_layout_columns(16, 2, 8, 0)
    call expect(layout%rows == 2 .and. layout%cols == 16 .and. layout%bits == 0, &
                'layout_columns without status: fields as given')
  end subroutine test_layout_columns

  subroutine test_quantize(c)
    type(c_ptr), intent(in) :: c
    real(c_float) :: x(16, 2), short_x(31)
    real(c_float) :: gmin(4), gscale(4)
    integer(c_int16_t) :: hmin(4), hscale(4)
    integer(c_int8_t) :: packed(8)
    integer(c_int8_t), target :: widths(2)
    type(actq_layout) :: good, layout
    integer(c_int) :: st
    character(len=:), allocatable :: msg
    call random_number(x)
    good = actq_layout_columns(16, 2, 8, 2)

    packed = byte_sentinel
    gmin = sentinel
    gscale = sentinel
    st = actq_quantize_array(c_null_ptr, good, x, ACTQ_ROUND_NEAREST, 0_c_int64_t, 0_c_int64_t, &
                             packed, gmin, gscale, msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'ctx', 'NULL', 'quantize ctx')
    call expect_untouched(packed, gmin, gscale, 'quantize ctx')

    layout = good
    layout%group_size = 7
    st = actq_quantize_array(c, layout, x, ACTQ_ROUND_NEAREST, 0_c_int64_t, 0_c_int64_t, &
                             packed, gmin, gscale, msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, &
                        'layout%group_size must be a multiple of 8 in 8..65536', 'got 7', &
                        'quantize layout%group_size')
    call expect_untouched(packed, gmin, gscale, 'quantize layout%group_size')
    layout%group_size = 12   ! in range, not a multiple of 8
    st = actq_quantize_array(c, layout, x, ACTQ_ROUND_NEAREST, 0_c_int64_t, 0_c_int64_t, &
                             packed, gmin, gscale, msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'layout%group_size', 'got 12', &
                        'quantize layout%group_size 12')
    call expect_untouched(packed, gmin, gscale, 'quantize layout%group_size 12')

    layout = good
    layout%bits = 9
    st = actq_quantize_array(c, layout, x, ACTQ_ROUND_NEAREST, 0_c_int64_t, 0_c_int64_t, &
                             packed, gmin, gscale, msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'layout%bits must be 1..8', &
                        'got 9', 'quantize layout%bits')
    call expect_untouched(packed, gmin, gscale, 'quantize layout%bits')

    layout = good
    widths = [2_c_int8_t, 9_c_int8_t]
    layout%row_bits = c_loc(widths)
    st = actq_quantize_array(c, layout, x, ACTQ_ROUND_NEAREST, 0_c_int64_t, 0_c_int64_t, &
                             packed, gmin, gscale, msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'layout%row_bits(2)', 'got 9', &
                        'quantize layout%row_bits')
    call expect_untouched(packed, gmin, gscale, 'quantize layout%row_bits')

    layout = good
    layout%meta_dtype = 5
    st = actq_quantize_array(c, layout, x, ACTQ_ROUND_NEAREST, 0_c_int64_t, 0_c_int64_t, &
                             packed, gmin, gscale, msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'layout%meta_dtype', 'got 5', &
                        'quantize layout%meta_dtype')
    call expect_untouched(packed, gmin, gscale, 'quantize layout%meta_dtype')

    layout = good
    layout%rows = huge(0_c_size_t)
    layout%cols = huge(0_c_size_t)
    st = actq_quantize_array(c, layout, x, ACTQ_ROUND_NEAREST, 0_c_int64_t, 0_c_int64_t, &
                             packed, gmin, gscale, msg)
    call expect_refused(st, ACTQ_ERR_SIZE_OVERFLOW, msg, 'layout%rows x layout%cols', &
                        '9223372036854775807', 'quantize layout past 2^62 elements')
    call expect_untouched(packed, gmin, gscale, 'quantize layout size overflow')

    layout = good
    layout%meta_dtype = ACTQ_F16
    st = actq_quantize_array(c, layout, x, ACTQ_ROUND_NEAREST, 0_c_int64_t, 0_c_int64_t, &
                             packed, gmin, gscale, msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'real(c_float)', &
                        'layout%meta_dtype ACTQ_F32 (0), got 1', 'quantize f32 arrays, f16 meta')
    call expect_untouched(packed, gmin, gscale, 'quantize f32 arrays, f16 meta')
    hmin = 99
    hscale = 99
    st = actq_quantize_array(c, good, x, ACTQ_ROUND_NEAREST, 0_c_int64_t, 0_c_int64_t, &
                             packed, hmin, hscale, msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'integer(c_int16_t)', 'got 0', &
                        'quantize i16 arrays, f32 meta')
    call expect(all(hmin == 99) .and. all(hscale == 99) .and. all(packed == byte_sentinel), &
                'quantize i16 arrays, f32 meta: untouched')

    st = actq_quantize_array(c, good, short_x, ACTQ_ROUND_NEAREST, 0_c_int64_t, 0_c_int64_t, &
                             packed, gmin, gscale, msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'x has 31 elements', &
                        'the layout needs 32', 'quantize x')
    call expect_untouched(packed, gmin, gscale, 'quantize x')

    st = actq_quantize_array(c, good, x, 5_c_int, 0_c_int64_t, 0_c_int64_t, packed, gmin, &
                             gscale, msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'rounding', 'got 5', &
                        'quantize rounding')
    call expect_untouched(packed, gmin, gscale, 'quantize rounding')

    ! seed and offset: every uint64 value is valid, no bad value exists

    st = actq_quantize_array(c, good, x, ACTQ_ROUND_NEAREST, 0_c_int64_t, 0_c_int64_t, &
                             packed(1:7), gmin, gscale, msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'packed has 7 bytes', 'needs 8', &
                        'quantize packed')
    call expect_untouched(packed, gmin, gscale, 'quantize packed')

    st = actq_quantize_array(c, good, x, ACTQ_ROUND_NEAREST, 0_c_int64_t, 0_c_int64_t, &
                             packed, gmin(1:3), gscale, msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'group_min has 3 entries', &
                        'needs 4', 'quantize group_min')
    call expect_untouched(packed, gmin, gscale, 'quantize group_min')

    st = actq_quantize_array(c, good, x, ACTQ_ROUND_NEAREST, 0_c_int64_t, 0_c_int64_t, &
                             packed, gmin, gscale(1:3), msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'group_scale has 3 entries', &
                        'needs 4', 'quantize group_scale')
    call expect_untouched(packed, gmin, gscale, 'quantize group_scale')

    ! the same call with good arguments works and clears the message
    st = actq_quantize_array(c, good, x, ACTQ_ROUND_NEAREST, 0_c_int64_t, 0_c_int64_t, &
                             packed, gmin, gscale, msg)
    call expect_status(st, ACTQ_OK, 'quantize with good arguments')
    call expect(msg == '', 'quantize: an empty message on success')
  end subroutine test_quantize

  ! quantize's outputs, prefilled once with the sentinels, after a refused call.
  subroutine expect_untouched(packed, gmin, gscale, what)
    integer(c_int8_t), intent(in) :: packed(:)
    real(c_float), intent(in) :: gmin(:), gscale(:)
    character(len=*), intent(in) :: what
    call expect(all(packed == byte_sentinel) .and. all(gmin == sentinel) .and. &
                all(gscale == sentinel), what // ': outputs untouched')
  end subroutine expect_untouched

  subroutine test_dequantize(c)
    type(c_ptr), intent(in) :: c
    real(c_float) :: y(16, 2), gmin(4), gscale(4)
    integer(c_int16_t) :: hmin(4), hscale(4)
    integer(c_int8_t) :: packed(8)
    type(actq_layout) :: good, layout
    integer(c_int) :: st
    character(len=:), allocatable :: msg
    good = actq_layout_columns(16, 2, 8, 2)
    packed = 0
    gmin = 0
    gscale = 1
    hmin = 0
    hscale = 0
    y = sentinel

    st = actq_dequantize_array(c_null_ptr, good, packed, gmin, gscale, y, msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'ctx', 'NULL', 'dequantize ctx')
    layout = good
    layout%group_size = 65544
    st = actq_dequantize_array(c, layout, packed, gmin, gscale, y, msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'layout%group_size', 'got 65544', &
                        'dequantize layout%group_size')
    st = actq_dequantize_array(c, good, packed, hmin, hscale, y, msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'group_min and group_scale', &
                        'got 0', 'dequantize i16 arrays, f32 meta')
    st = actq_dequantize_array(c, good, packed(1:3), gmin, gscale, y, msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'packed has 3 bytes', 'needs 8', &
                        'dequantize packed')
    st = actq_dequantize_array(c, good, packed, gmin(1:1), gscale, y, msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'group_min has 1 entries', &
                        'needs 4', 'dequantize group_min')
    st = actq_dequantize_array(c, good, packed, gmin, gscale(1:2), y, msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'group_scale has 2 entries', &
                        'needs 4', 'dequantize group_scale')
    st = actq_dequantize_array(c, good, packed, gmin, gscale, y(1:15, :), msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'y has 30 elements', &
                        'the layout needs 32', 'dequantize y')
    call expect(all(y == sentinel), 'dequantize: y untouched by every refused call')
  end subroutine test_dequantize

  subroutine test_pack_unpack(c)
    type(c_ptr), intent(in) :: c
    integer(c_int8_t) :: codes(5), packed(2), back(5), wide(6)
    integer(c_int) :: st
    character(len=:), allocatable :: msg
    codes = [1_c_int8_t, 2_c_int8_t, 3_c_int8_t, 0_c_int8_t, 3_c_int8_t]
    packed = byte_sentinel

    st = actq_pack_array(c_null_ptr, 2, codes, packed, msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'ctx', 'NULL', 'pack ctx')
    st = actq_pack_array(c, 9, codes, packed, msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'bits must be 1..8', 'got 9', &
                        'pack bits')
    st = actq_pack_array(c, 0, codes, packed, msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'bits must be 1..8', 'got 0', &
                        'pack bits 0')
    codes(3) = 4
    st = actq_pack_array(c, 2, codes, packed, msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'codes(3)', '= 4 is not below ' // &
                        '2^bits = 4', 'pack codes')
    codes(3) = -1    ! the byte 255, as uint8
    st = actq_pack_array(c, 8, codes, packed, msg)
    call expect_status(st, ACTQ_ERR_INVALID_ARGUMENT, 'pack codes: 5 codes of 8 bits need 5 bytes')
    wide = byte_sentinel
    st = actq_pack_array(c, 7, codes, wide, msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'codes(3)', '= 255', &
                        'pack codes, uint8 255 at 7 bits')
    codes(3) = 3
    st = actq_pack_array(c, 2, codes, packed(1:1), msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'packed has 1 bytes', 'needs 2', &
                        'pack packed')
    call expect(all(packed == byte_sentinel) .and. all(wide == byte_sentinel), &
                'pack: packed untouched by every refused call')

    back = byte_sentinel
    packed = 0
    st = actq_unpack_array(c_null_ptr, 2, packed, back, msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'ctx', 'NULL', 'unpack ctx')
    st = actq_unpack_array(c, 9, packed, back, msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'bits must be 1..8', 'got 9', &
                        'unpack bits')
    st = actq_unpack_array(c, 2, packed(1:1), back, msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'packed has 1 bytes', 'needs', &
                        'unpack packed')
    call expect(index(msg, '5 codes') > 0, 'unpack packed: the message says for how many codes')
    call expect(all(back == byte_sentinel), 'unpack: codes untouched by every refused call')
  end subroutine test_pack_unpack

  subroutine test_encode_backward(c)
    type(c_ptr), intent(in) :: c
    type(fewbit_table) :: good, t
    real(c_float) :: x(10), y(10), grad_out(10), grad_in(10), long_out(20), long_in(20)
    integer(c_int8_t) :: codes(3)
    integer(c_int) :: st
    character(len=:), allocatable :: msg
    call expect_status(fewbit_table_build(FEWBIT_GELU, 0.0_c_float, 2_c_int32_t, table=good), &
                       ACTQ_OK, 'GELU table')
    call random_number(x)
    codes = byte_sentinel
    y = sentinel

    st = fewbit_encode_array(c_null_ptr, good, x, codes, y, msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'ctx', 'NULL', 'encode ctx')
    t = good
    t%bits = 9
    st = fewbit_encode_array(c, t, x, codes, y, msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'table%bits must be 1..8', 'got 9', &
                        'encode table%bits')
    t = good
    t%activation = 99
    st = fewbit_encode_array(c, t, x, codes, y, msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'table%activation', 'got 99', &
                        'encode table%activation')
    t = good
    t%activation = FEWBIT_ELU
    t%param = -1
    st = fewbit_encode_array(c, t, x, codes, y, msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'table%param', 'got -1.0', &
                        'encode table%param')
    t = good
    t%bounds(2) = t%bounds(0)
    st = fewbit_encode_array(c, t, x, codes, y, msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'table%bounds(2)', &
                        'is not above table%bounds(1)', 'encode table%bounds')
    t%bounds(2) = ieee_value(t%bounds(2), ieee_quiet_nan)
    st = fewbit_encode_array(c, t, x, codes, y, msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'table%bounds(2)', 'NaN', &
                        'encode table%bounds NaN')
    st = fewbit_encode_array(c, good, x, codes(1:2), y, msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'codes has 2 bytes', 'needs 3', &
                        'encode codes')
    call expect(index(msg, '10 values of x') > 0, 'encode codes: says for how many values')
    st = fewbit_encode_array(c, good, x, codes, y(1:9), msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'y has 9 elements', 'x has 10', &
                        'encode y')
    t = good
    t%activation = FEWBIT_CUSTOM
    st = fewbit_encode_array(c, t, x, codes, y, msg)
    call expect_refused(st, ACTQ_ERR_UNSUPPORTED, msg, 'y must be absent', 'FEWBIT_CUSTOM', &
                        'encode y with a custom table')
    call expect(all(codes == byte_sentinel) .and. all(y == sentinel), &
                'encode: codes and y untouched by every refused call')

    codes = 0
    grad_out = 1
    grad_in = sentinel
    st = fewbit_backward_array(c_null_ptr, good, codes, grad_out, grad_in, msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'ctx', 'NULL', 'backward ctx')
    t = good
    t%bits = 0
    st = fewbit_backward_array(c, t, codes, grad_out, grad_in, msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'table%bits must be 1..8', 'got 0', &
                        'backward table%bits')
    st = fewbit_backward_array(c, good, codes(1:1), grad_out, grad_in, msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'codes has 1 bytes', 'needs 3', &
                        'backward codes')
    ! grad_out sets n: a longer one needs more codes
    long_out = 1
    long_in = sentinel
    st = fewbit_backward_array(c, good, codes, long_out, long_in, msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, '20 values of grad_out', 'needs 5', &
                        'backward grad_out')
    st = fewbit_backward_array(c, good, codes, grad_out, grad_in(1:9), msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'grad_in has 9 elements', &
                        'grad_out has 10', 'backward grad_in')
    call expect(all(grad_in == sentinel) .and. all(long_in == sentinel), &
                'backward: grad_in untouched by every refused call')
  end subroutine test_encode_backward

  subroutine test_table_build()
    type(fewbit_table) :: t
    type(fewbit_options) :: opt, good
    integer(c_int) :: st
    character(len=:), allocatable :: msg
    t%bits = 77
    st = fewbit_table_build_checked(99_c_int, 0.0_c_float, 2, table=t, message=msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'act', 'got 99', 'table_build act')
    st = fewbit_table_build_checked(FEWBIT_CUSTOM, 0.0_c_float, 2, table=t, message=msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'act must not be FEWBIT_CUSTOM', &
                        '20', 'table_build act CUSTOM')
    st = fewbit_table_build_checked(FEWBIT_SOFTPLUS, 0.0_c_float, 2, table=t, message=msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'param (beta', 'got 0.0', &
                        'table_build param')
    st = fewbit_table_build_checked(FEWBIT_LEAKY_RELU, ieee_value(0.0_c_float, ieee_quiet_nan), &
                                    2, table=t, message=msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'param (negative slope', 'got NaN', &
                        'table_build param NaN')
    st = fewbit_table_build_checked(FEWBIT_GELU, 0.0_c_float, 0, table=t, message=msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'bits must be 1..8', 'got 0', &
                        'table_build bits')
    good%weight = FEWBIT_WEIGHT_NORMAL
    opt = good
    opt%weight = 7
    st = fewbit_table_build_checked(FEWBIT_GELU, 0.0_c_float, 2, opt, t, msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'opt%weight', 'got 7', &
                        'table_build opt%weight')
    opt = good
    opt%std = -1
    st = fewbit_table_build_checked(FEWBIT_GELU, 0.0_c_float, 2, opt, t, msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'opt%std', 'got -1.0', &
                        'table_build opt%std')
    opt = good
    opt%mean = ieee_value(opt%mean, ieee_quiet_nan)
    st = fewbit_table_build_checked(FEWBIT_GELU, 0.0_c_float, 2, opt, t, msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'opt%mean', 'got NaN', &
                        'table_build opt%mean')
    opt = good
    opt%weight = FEWBIT_WEIGHT_UNIFORM
    opt%lo = 3
    opt%hi = 3
    st = fewbit_table_build_checked(FEWBIT_GELU, 0.0_c_float, 2, opt, t, msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'opt%lo must be below opt%hi', &
                        'got 3.0 and 3.0', 'table_build opt%lo/hi')
    opt%hi = ieee_value(opt%hi, ieee_positive_inf)
    st = fewbit_table_build_checked(FEWBIT_GELU, 0.0_c_float, 2, opt, t, msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'opt%hi must be finite', 'Inf', &
                        'table_build opt%hi Inf')
    opt = good
    opt%grid = 8
    st = fewbit_table_build_checked(FEWBIT_GELU, 0.0_c_float, 2, opt, t, msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'opt%grid', 'got 8', &
                        'table_build opt%grid')
    opt%grid = 16
    st = fewbit_table_build_checked(FEWBIT_GELU, 0.0_c_float, 5, opt, t, msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'opt%grid must be at least 2^bits', &
                        'got 16', 'table_build opt%grid below 2^bits')
    call expect(t%bits == 77, 'table_build: the table untouched by every refused call')
    st = fewbit_table_build_checked(FEWBIT_GELU, 0.0_c_float, 2, table=t, message=msg)
    call expect_status(st, ACTQ_OK, 'table_build with good arguments')
    call expect(msg == '' .and. t%bits == 2, 'table_build: built, empty message')
  end subroutine test_table_build

  subroutine test_custom()
    integer, parameter :: n = 8
    real(c_double) :: x(n), dydx(n), w(n)
    type(fewbit_table) :: t
    integer(c_int) :: st
    integer :: i
    character(len=:), allocatable :: msg
    x = [(real(i, c_double), i = 1, n)]
    dydx = 1
    w = 1
    t%bits = 77
    st = fewbit_table_build_custom_array(x(1:1), dydx(1:1), 1, t, message=msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'x has 1 samples', &
                        'needs at least 2', 'custom x too short')
    x(4) = x(3)
    st = fewbit_table_build_custom_array(x, dydx, 1, t, message=msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'x(4) = 3.0 is not above x(3)', &
                        'increase strictly', 'custom x not increasing')
    x(4) = 4
    x(6) = ieee_value(x(6), ieee_quiet_nan)
    st = fewbit_table_build_custom_array(x, dydx, 1, t, message=msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'x(6)', 'NaN', 'custom x NaN')
    x(6) = 6
    st = fewbit_table_build_custom_array(x, dydx(1:n - 1), 1, t, message=msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'dydx has 7 elements', 'x has 8', &
                        'custom dydx length')
    dydx(5) = ieee_value(dydx(5), ieee_positive_inf)
    st = fewbit_table_build_custom_array(x, dydx, 1, t, message=msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'dydx(5)', 'Inf', 'custom dydx Inf')
    dydx(5) = 1
    st = fewbit_table_build_custom_array(x, dydx, 9, t, message=msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'bits must be 1..8', 'got 9', &
                        'custom bits')
    st = fewbit_table_build_custom_array(x, dydx, 1, t, w(1:3), msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'weight has 3 elements', 'x has 8', &
                        'custom weight length')
    w(2) = -0.5d0
    st = fewbit_table_build_custom_array(x, dydx, 1, t, w, msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'weight(2)', '-0.5', &
                        'custom weight negative')
    call expect(t%bits == 77, 'custom: the table untouched by every refused call')
  end subroutine test_custom

  subroutine test_allocate_bits()
    real(c_double) :: sens(4), objective
    integer(c_int64_t) :: numel(4)
    integer(c_int8_t) :: bits(4)
    integer(c_int32_t), parameter :: widths_1_8 = int(z'1FE', c_int32_t)
    integer(c_int) :: st
    character(len=:), allocatable :: msg
    sens = [1.0d0, 10.0d0, 100.0d0, 1000.0d0]
    numel = 100
    bits = byte_sentinel
    objective = -7

    sens(2) = ieee_value(sens(2), ieee_quiet_nan)
    st = actq_allocate_bits_array(sens, numel, 3.0d0, widths_1_8, ACTQ_ALLOC_GREEDY, bits, &
                                  objective, msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'sensitivity(2)', 'NaN', &
                        'allocate sensitivity NaN')
    sens(2) = 10
    sens(3) = -1
    st = actq_allocate_bits_array(sens, numel, 3.0d0, widths_1_8, ACTQ_ALLOC_GREEDY, bits, &
                                  objective, msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'sensitivity(3)', '-1.0', &
                        'allocate sensitivity negative')
    sens(3) = 100
    st = actq_allocate_bits_array(sens, numel(1:3), 3.0d0, widths_1_8, ACTQ_ALLOC_GREEDY, bits, &
                                  objective, msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'numel has 3 entries', &
                        'sensitivity has 4', 'allocate numel length')
    numel(2) = -1
    st = actq_allocate_bits_array(sens, numel, 3.0d0, widths_1_8, ACTQ_ALLOC_GREEDY, bits, &
                                  objective, msg)
    call expect_refused(st, ACTQ_ERR_SIZE_OVERFLOW, msg, 'numel(2)', '-1', &
                        'allocate numel past 2^63')
    numel(2) = 100
    st = actq_allocate_bits_array(sens, numel, ieee_value(0.0d0, ieee_quiet_nan), widths_1_8, &
                                  ACTQ_ALLOC_GREEDY, bits, objective, msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'average_bits', 'got NaN', &
                        'allocate average_bits NaN')
    st = actq_allocate_bits_array(sens, numel, 3.0d0, 0_c_int32_t, ACTQ_ALLOC_GREEDY, bits, &
                                  objective, msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'allowed_bits allows no width', &
                        'got 0', 'allocate allowed_bits empty')
    st = actq_allocate_bits_array(sens, numel, 3.0d0, 513_c_int32_t, ACTQ_ALLOC_GREEDY, bits, &
                                  objective, msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'allowed_bits may set only bits ' &
                        // '1..8', 'got 513', 'allocate allowed_bits outside 1..8')
    st = actq_allocate_bits_array(sens, numel, 3.0d0, widths_1_8, 5_c_int, bits, objective, msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'method', 'got 5', 'allocate method')
    st = actq_allocate_bits_array(sens, numel, 3.0d0, widths_1_8, ACTQ_ALLOC_GREEDY, bits(1:2), &
                                  objective, msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'bits has 2 entries', &
                        'sensitivity has 4', 'allocate bits length')
    st = actq_allocate_bits_array(sens, numel, 1.5d0, int(z'0C', c_int32_t), ACTQ_ALLOC_GREEDY, &
                                  bits, objective, msg)
    call expect_refused(st, ACTQ_ERR_INVALID_ARGUMENT, msg, 'average_bits = 1.5 is below the ' &
                        // 'smallest allowed width 2', 'no allocation fits', 'allocate infeasible')
    call expect(all(bits == byte_sentinel) .and. objective == -7, &
                'allocate: bits and objective untouched by every refused call')
    ! at exactly the smallest width the budget is feasible
    st = actq_allocate_bits_array(sens, numel, 2.0d0, int(z'0C', c_int32_t), ACTQ_ALLOC_GREEDY, &
                                  bits, objective, msg)
    call expect_status(st, ACTQ_OK, 'allocate at the smallest width')
    call expect(all(bits == 2) .and. msg == '', 'allocate: every item at 2 bits, empty message')
  end subroutine test_allocate_bits

  ! A C status with no binding-side rule behind it: "<C call>: <status string>".
  subroutine test_c_statuses(c)
    type(c_ptr), intent(in) :: c
    real(c_float) :: x(16, 2), gmin(4), gscale(4)
    integer(c_int8_t) :: packed(8)
    integer(c_int) :: st
    character(len=:), allocatable :: msg
    call random_number(x)
    x(3, 1) = ieee_value(x(3, 1), ieee_quiet_nan)
    st = actq_quantize_array(c, actq_layout_columns(16, 2, 8, 2), x, ACTQ_ROUND_NEAREST, &
                             0_c_int64_t, 0_c_int64_t, packed, gmin, gscale, msg)
    call expect_status(st, ACTQ_ERR_NONFINITE, 'quantize NaN data')
    call expect(msg == 'actq_quantize: ' // actq_status_message(ACTQ_ERR_NONFINITE), &
                'a C status: the call name and the status string: "' // msg // '"')
    ! and without message the wrappers behave as before
    call expect_status(actq_quantize_array(c, actq_layout_columns(16, 2, 8, 2), x(:, 2:2), &
                       ACTQ_ROUND_NEAREST, 0_c_int64_t, 0_c_int64_t, packed, gmin, gscale), &
                       ACTQ_ERR_INVALID_ARGUMENT, 'no message argument: the status alone')
  end subroutine test_c_statuses
end program test_errors
