! actq.f90 - Fortran bindings of libactq (include/actq.h and include/fewbit.h).
!
! Two layers in one module:
!  * the C calls themselves, bind(c) with the C names, taking type(c_ptr) for void*
!    buffers (pass c_loc(array)); every call of the C ABI is here;
!  * array wrappers (names ending in _array) that take Fortran arrays, check their sizes
!    against the layout before calling C, and return ACTQ_ERR_INVALID_ARGUMENT without
!    calling C when a buffer is too small or a data array has the wrong number of elements.
!
! Layout and column-major order. C quantizes a tensor as rows x cols, row-major, and a group
! never spans two C rows. A Fortran array x(n, m) has the same memory order as C's m rows of
! n elements, so: layout%cols = n = size(x, 1), layout%rows = m = size(x, 2). Groups run down
! each Fortran column; row_bits(j) is the width of column j. actq_layout_columns(n, m, ...)
! builds that layout.
!
! Unsigned C types: Fortran has none. uint32_t maps to integer(c_int32_t), uint64_t (seeds,
! offsets, element counts) to integer(c_int64_t) and uint8_t to integer(c_int8_t), with the
! same bits: a seed of z'FEDCBA9876543212' is passed as int(z'FEDCBA9876543212', c_int64_t),
! and a packed byte of 0xB9 reads as -71.
!
! Threads: one context may be used by one thread at a time; different contexts are
! independent. Tables and row_bits are host memory on every backend.
module actq
  use, intrinsic :: iso_c_binding
  implicit none
  private :: quantize_meta_f32, quantize_meta_i16, dequantize_meta_f32, dequantize_meta_i16
  private :: quantize_core, dequantize_core, c_string, packed_row_bytes

  ! ---- versions (must equal the macros of actq.h; the test checks them) ----------------
  integer(c_int), parameter :: ACTQ_VERSION_MAJOR = 0
  integer(c_int), parameter :: ACTQ_VERSION_MINOR = 1
  integer(c_int), parameter :: ACTQ_VERSION_PATCH = 0
  integer(c_int), parameter :: ACTQ_VERSION_NUMBER = &
    ACTQ_VERSION_MAJOR * 10000 + ACTQ_VERSION_MINOR * 100 + ACTQ_VERSION_PATCH
  integer(c_int), parameter :: ACTQ_FORMAT_VERSION = 1

  ! ---- enum actq_status ------------------------------------------------------------------
  integer(c_int), parameter :: ACTQ_OK = 0
  integer(c_int), parameter :: ACTQ_ERR_INVALID_ARGUMENT = 1
  integer(c_int), parameter :: ACTQ_ERR_UNSUPPORTED = 2
  integer(c_int), parameter :: ACTQ_ERR_OUT_OF_MEMORY = 3
  integer(c_int), parameter :: ACTQ_ERR_SIZE_OVERFLOW = 4
  integer(c_int), parameter :: ACTQ_ERR_NONFINITE = 5
  integer(c_int), parameter :: ACTQ_ERR_DEVICE = 6
  integer(c_int), parameter :: ACTQ_ERR_INTERNAL = 7

  ! ---- enum actq_backend -----------------------------------------------------------------
  integer(c_int), parameter :: ACTQ_BACKEND_CPU_REFERENCE = 0
  integer(c_int), parameter :: ACTQ_BACKEND_CPU = 1
  integer(c_int), parameter :: ACTQ_BACKEND_CUDA = 2

  ! ---- enum actq_dtype, actq_rounding, actq_alloc_method ---------------------------------
  integer(c_int), parameter :: ACTQ_F32 = 0
  integer(c_int), parameter :: ACTQ_F16 = 1
  integer(c_int), parameter :: ACTQ_BF16 = 2
  integer(c_int), parameter :: ACTQ_ROUND_STOCHASTIC = 0
  integer(c_int), parameter :: ACTQ_ROUND_NEAREST = 1
  integer(c_int), parameter :: ACTQ_ALLOC_GREEDY = 0
  integer(c_int), parameter :: ACTQ_ALLOC_EXACT = 1

  ! ---- enum fewbit_activation, fewbit_weight ---------------------------------------------
  integer(c_int), parameter :: FEWBIT_GELU = 1
  integer(c_int), parameter :: FEWBIT_GELU_TANH = 2
  integer(c_int), parameter :: FEWBIT_SILU = 3
  integer(c_int), parameter :: FEWBIT_SIGMOID = 4
  integer(c_int), parameter :: FEWBIT_TANH = 5
  integer(c_int), parameter :: FEWBIT_SOFTPLUS = 6      ! param: beta > 0
  integer(c_int), parameter :: FEWBIT_ELU = 7           ! param: alpha > 0
  integer(c_int), parameter :: FEWBIT_SELU = 8
  integer(c_int), parameter :: FEWBIT_CELU = 9          ! param: alpha > 0
  integer(c_int), parameter :: FEWBIT_MISH = 10
  integer(c_int), parameter :: FEWBIT_HARDSWISH = 11
  integer(c_int), parameter :: FEWBIT_HARDSIGMOID = 12
  integer(c_int), parameter :: FEWBIT_HARDTANH = 13
  integer(c_int), parameter :: FEWBIT_SOFTSIGN = 14
  integer(c_int), parameter :: FEWBIT_LOGSIGMOID = 15
  integer(c_int), parameter :: FEWBIT_TANHSHRINK = 16
  integer(c_int), parameter :: FEWBIT_RELU = 17
  integer(c_int), parameter :: FEWBIT_RELU6 = 18
  integer(c_int), parameter :: FEWBIT_LEAKY_RELU = 19   ! param: negative slope
  integer(c_int), parameter :: FEWBIT_CUSTOM = 20
  integer(c_int), parameter :: FEWBIT_WEIGHT_NORMAL = 0
  integer(c_int), parameter :: FEWBIT_WEIGHT_UNIFORM = 1

  ! ---- structs, field for field as in the C headers --------------------------------------
  ! The defaults make an unfilled layout invalid (group_size 0) rather than silently valid,
  ! and row_bits NULL (one width for every row).
  type, bind(c) :: actq_layout
    integer(c_size_t) :: rows = 0
    integer(c_size_t) :: cols = 0
    integer(c_int32_t) :: group_size = 0       ! multiple of 8, 8..65536
    integer(c_int32_t) :: bits = 0             ! 1..8 when row_bits is NULL
    type(c_ptr) :: row_bits = c_null_ptr       ! c_loc of integer(c_int8_t) :: w(rows), or NULL
    integer(c_int) :: meta_dtype = ACTQ_F32
  end type actq_layout

  type, bind(c) :: fewbit_options
    integer(c_int) :: weight = FEWBIT_WEIGHT_NORMAL
    real(c_double) :: mean = 0, std = 1
    real(c_double) :: lo = 0, hi = 0
    integer(c_int32_t) :: grid = 0             ! 0 = the library's default
  end type fewbit_options

  ! Indices start at 0 as in C: code k has levels(k) and lies in (bounds(k-1), bounds(k)].
  type, bind(c) :: fewbit_table
    integer(c_int32_t) :: bits = 0
    integer(c_int32_t) :: activation = 0
    real(c_float) :: param = 0
    real(c_float) :: bounds(0:254) = 0
    real(c_float) :: levels(0:255) = 0
    real(c_double) :: error = 0
  end type fewbit_table

  ! ---- the C ABI -------------------------------------------------------------------------
  interface
    integer(c_int) function actq_version() bind(c, name='actq_version')
      import :: c_int
    end function

    type(c_ptr) function actq_status_string(s) bind(c, name='actq_status_string')
      import :: c_ptr, c_int
      integer(c_int), value :: s
    end function

    integer(c_int) function actq_context_create(backend, ctx) bind(c, name='actq_context_create')
      import :: c_int, c_ptr
      integer(c_int), value :: backend
      type(c_ptr), intent(out) :: ctx
    end function

    subroutine actq_context_destroy(ctx) bind(c, name='actq_context_destroy')
      import :: c_ptr
      type(c_ptr), value :: ctx
    end subroutine

    type(c_ptr) function actq_context_describe(ctx) bind(c, name='actq_context_describe')
      import :: c_ptr
      type(c_ptr), value :: ctx
    end function

    integer(c_int) function actq_context_set_threads(ctx, threads) &
        bind(c, name='actq_context_set_threads')
      import :: c_int, c_ptr
      type(c_ptr), value :: ctx
      integer(c_int), value :: threads
    end function

    integer(c_int) function actq_context_set_stream(ctx, cuda_stream) &
        bind(c, name='actq_context_set_stream')
      import :: c_int, c_ptr
      type(c_ptr), value :: ctx, cuda_stream
    end function

    integer(c_int) function actq_context_synchronize(ctx) bind(c, name='actq_context_synchronize')
      import :: c_int, c_ptr
      type(c_ptr), value :: ctx
    end function

    ! Absent optional arguments are passed as NULL, as the C call allows.
    integer(c_int) function actq_layout_sizes(layout, packed_bytes, groups) &
        bind(c, name='actq_layout_sizes')
      import :: c_int, c_size_t, actq_layout
      type(actq_layout), intent(in) :: layout
      integer(c_size_t), intent(out), optional :: packed_bytes, groups
    end function

    integer(c_int) function actq_quantize(ctx, layout, x_dtype, x, rounding, seed, offset, &
        packed, group_min, group_scale) bind(c, name='actq_quantize')
      import :: c_int, c_ptr, c_int64_t, actq_layout
      type(c_ptr), value :: ctx
      type(actq_layout), intent(in) :: layout
      integer(c_int), value :: x_dtype
      type(c_ptr), value :: x
      integer(c_int), value :: rounding
      integer(c_int64_t), value :: seed, offset
      type(c_ptr), value :: packed, group_min, group_scale
    end function

    integer(c_int) function actq_dequantize(ctx, layout, packed, group_min, group_scale, &
        y_dtype, y) bind(c, name='actq_dequantize')
      import :: c_int, c_ptr, actq_layout
      type(c_ptr), value :: ctx
      type(actq_layout), intent(in) :: layout
      type(c_ptr), value :: packed, group_min, group_scale
      integer(c_int), value :: y_dtype
      type(c_ptr), value :: y
    end function

    integer(c_int) function actq_pack(ctx, bits, n, codes, packed) bind(c, name='actq_pack')
      import :: c_int, c_ptr, c_int32_t, c_size_t
      type(c_ptr), value :: ctx
      integer(c_int32_t), value :: bits
      integer(c_size_t), value :: n
      type(c_ptr), value :: codes, packed
    end function

    integer(c_int) function actq_unpack(ctx, bits, n, packed, codes) bind(c, name='actq_unpack')
      import :: c_int, c_ptr, c_int32_t, c_size_t
      type(c_ptr), value :: ctx
      integer(c_int32_t), value :: bits
      integer(c_size_t), value :: n
      type(c_ptr), value :: packed, codes
    end function

    ! bits and objective are written only on ACTQ_OK, hence intent(inout).
    integer(c_int) function actq_allocate_bits(m, sensitivity, numel, average_bits, &
        allowed_bits, method, bits, objective) bind(c, name='actq_allocate_bits')
      import :: c_int, c_size_t, c_double, c_int64_t, c_int32_t, c_int8_t
      integer(c_size_t), value :: m
      real(c_double), intent(in) :: sensitivity(*)
      integer(c_int64_t), intent(in) :: numel(*)
      real(c_double), value :: average_bits
      integer(c_int32_t), value :: allowed_bits
      integer(c_int), value :: method
      integer(c_int8_t), intent(inout) :: bits(*)
      real(c_double), intent(inout), optional :: objective
    end function

    ! An absent opt is NULL: NORMAL weight with mean 0 and std 1.
    integer(c_int) function fewbit_table_build(act, param, bits, opt, table) &
        bind(c, name='fewbit_table_build')
      import :: c_int, c_float, c_int32_t, fewbit_options, fewbit_table
      integer(c_int), value :: act
      real(c_float), value :: param
      integer(c_int32_t), value :: bits
      type(fewbit_options), intent(in), optional :: opt
      type(fewbit_table), intent(inout) :: table
    end function

    ! An absent weight is NULL: weight 1 at every sample.
    integer(c_int) function fewbit_table_build_custom(n, x, dydx, weight, bits, table) &
        bind(c, name='fewbit_table_build_custom')
      import :: c_int, c_size_t, c_double, c_int32_t, fewbit_table
      integer(c_size_t), value :: n
      real(c_double), intent(in) :: x(*), dydx(*)
      real(c_double), intent(in), optional :: weight(*)
      integer(c_int32_t), value :: bits
      type(fewbit_table), intent(inout) :: table
    end function

    integer(c_int) function fewbit_encode(ctx, table, n, dtype, x, y, codes) &
        bind(c, name='fewbit_encode')
      import :: c_int, c_ptr, c_size_t, fewbit_table
      type(c_ptr), value :: ctx
      type(fewbit_table), intent(in) :: table
      integer(c_size_t), value :: n
      integer(c_int), value :: dtype
      type(c_ptr), value :: x, y, codes
    end function

    integer(c_int) function fewbit_backward(ctx, table, n, codes, dtype, grad_out, grad_in) &
        bind(c, name='fewbit_backward')
      import :: c_int, c_ptr, c_size_t, fewbit_table
      type(c_ptr), value :: ctx
      type(fewbit_table), intent(in) :: table
      integer(c_size_t), value :: n
      type(c_ptr), value :: codes
      integer(c_int), value :: dtype
      type(c_ptr), value :: grad_out, grad_in
    end function
  end interface

  ! ---- array wrappers --------------------------------------------------------------------
  ! float32 data of any rank (m columns of n values); metadata as real(c_float) for
  ! meta_dtype ACTQ_F32, or as integer(c_int16_t) holding the f16/bf16 bits otherwise.
  interface actq_quantize_array
    module procedure quantize_meta_f32, quantize_meta_i16
  end interface
  interface actq_dequantize_array
    module procedure dequantize_meta_f32, dequantize_meta_i16
  end interface

contains

  ! A copy of a NUL-terminated C string (the library's strings are static).
  function c_string(p) result(text)
    type(c_ptr), intent(in) :: p
    character(len=:), allocatable :: text
    character(kind=c_char), pointer :: chars(:)
    integer :: n
    if (.not. c_associated(p)) then
      text = ''
      return
    end if
    call c_f_pointer(p, chars, [huge(0)])
    n = 0
    do while (chars(n + 1) /= c_null_char)
      n = n + 1
    end do
    allocate(character(len=n) :: text)
    text = transfer(chars(1:n), text)
  end function c_string

  function actq_status_message(status) result(text)
    integer(c_int), intent(in) :: status
    character(len=:), allocatable :: text
    text = c_string(actq_status_string(status))
  end function actq_status_message

  function actq_context_description(ctx) result(text)
    type(c_ptr), intent(in) :: ctx
    character(len=:), allocatable :: text
    text = c_string(actq_context_describe(ctx))
  end function actq_context_description

  ! m Fortran columns of n values each: C's m rows of n columns (see the top of the file).
  function actq_layout_columns(n, m, group_size, bits, meta_dtype) result(layout)
    integer, intent(in) :: n, m, group_size, bits
    integer(c_int), intent(in), optional :: meta_dtype
    type(actq_layout) :: layout
    layout%rows = int(m, c_size_t)
    layout%cols = int(n, c_size_t)
    layout%group_size = int(group_size, c_int32_t)
    layout%bits = int(bits, c_int32_t)
    if (present(meta_dtype)) layout%meta_dtype = meta_dtype
  end function actq_layout_columns

  ! Bytes of one packed row of n codes of `bits` each; -1 when bits is out of 1..8, so that
  ! no buffer passes the size check and C is not called with it.
  pure integer(c_int64_t) function packed_row_bytes(n, bits)
    integer(c_int64_t), intent(in) :: n
    integer(c_int32_t), intent(in) :: bits
    if (bits < 1 .or. bits > 8) then
      packed_row_bytes = -1
    else
      packed_row_bytes = (n * bits + 7) / 8
    end if
  end function packed_row_bytes

  ! Checks every buffer against the layout, then quantizes. nmeta: entries of each metadata
  ! array; meta_ok: whether their element type fits layout%meta_dtype.
  integer(c_int) function quantize_core(ctx, layout, nx, x, rounding, seed, offset, npacked, &
      packed, nmeta, meta_ok, group_min, group_scale) result(status)
    type(c_ptr), intent(in) :: ctx, x, packed, group_min, group_scale
    type(actq_layout), intent(in) :: layout
    integer(c_int64_t), intent(in) :: nx, npacked, nmeta
    integer(c_int), intent(in) :: rounding
    integer(c_int64_t), intent(in) :: seed, offset
    logical, intent(in) :: meta_ok
    integer(c_size_t) :: packed_bytes, groups
    status = actq_layout_sizes(layout, packed_bytes, groups)
    if (status /= ACTQ_OK) return
    if (.not. meta_ok .or. nx /= layout%rows * layout%cols .or. npacked < packed_bytes &
        .or. nmeta < groups) then
      status = ACTQ_ERR_INVALID_ARGUMENT
      return
    end if
    status = actq_quantize(ctx, layout, ACTQ_F32, x, rounding, seed, offset, packed, &
                           group_min, group_scale)
  end function quantize_core

  integer(c_int) function dequantize_core(ctx, layout, npacked, packed, nmeta, meta_ok, &
      group_min, group_scale, ny, y) result(status)
    type(c_ptr), intent(in) :: ctx, packed, group_min, group_scale, y
    type(actq_layout), intent(in) :: layout
    integer(c_int64_t), intent(in) :: npacked, nmeta, ny
    logical, intent(in) :: meta_ok
    integer(c_size_t) :: packed_bytes, groups
    status = actq_layout_sizes(layout, packed_bytes, groups)
    if (status /= ACTQ_OK) return
    if (.not. meta_ok .or. ny /= layout%rows * layout%cols .or. npacked < packed_bytes &
        .or. nmeta < groups) then
      status = ACTQ_ERR_INVALID_ARGUMENT
      return
    end if
    status = actq_dequantize(ctx, layout, packed, group_min, group_scale, ACTQ_F32, y)
  end function dequantize_core

  ! x: float32, exactly rows*cols elements; packed: at least packed_bytes bytes; group_min,
  ! group_scale: at least `groups` entries (actq_layout_sizes).
  integer(c_int) function quantize_meta_f32(ctx, layout, x, rounding, seed, offset, packed, &
      group_min, group_scale) result(status)
    type(c_ptr), intent(in) :: ctx
    type(actq_layout), intent(in) :: layout
    real(c_float), intent(in), target, contiguous :: x(..)
    integer(c_int), intent(in) :: rounding
    integer(c_int64_t), intent(in) :: seed, offset
    integer(c_int8_t), intent(inout), target, contiguous :: packed(:)
    real(c_float), intent(inout), target, contiguous :: group_min(:), group_scale(:)
    status = quantize_core(ctx, layout, size(x, kind=c_int64_t), c_loc(x), rounding, seed, &
      offset, size(packed, kind=c_int64_t), c_loc(packed), &
      min(size(group_min, kind=c_int64_t), size(group_scale, kind=c_int64_t)), &
      layout%meta_dtype == ACTQ_F32, c_loc(group_min), c_loc(group_scale))
  end function quantize_meta_f32

  integer(c_int) function quantize_meta_i16(ctx, layout, x, rounding, seed, offset, packed, &
      group_min, group_scale) result(status)
    type(c_ptr), intent(in) :: ctx
    type(actq_layout), intent(in) :: layout
    real(c_float), intent(in), target, contiguous :: x(..)
    integer(c_int), intent(in) :: rounding
    integer(c_int64_t), intent(in) :: seed, offset
    integer(c_int8_t), intent(inout), target, contiguous :: packed(:)
    integer(c_int16_t), intent(inout), target, contiguous :: group_min(:), group_scale(:)
    status = quantize_core(ctx, layout, size(x, kind=c_int64_t), c_loc(x), rounding, seed, &
      offset, size(packed, kind=c_int64_t), c_loc(packed), &
      min(size(group_min, kind=c_int64_t), size(group_scale, kind=c_int64_t)), &
      layout%meta_dtype == ACTQ_F16 .or. layout%meta_dtype == ACTQ_BF16, &
      c_loc(group_min), c_loc(group_scale))
  end function quantize_meta_i16

  ! y: float32, exactly rows*cols elements.
  integer(c_int) function dequantize_meta_f32(ctx, layout, packed, group_min, group_scale, y) &
      result(status)
    type(c_ptr), intent(in) :: ctx
    type(actq_layout), intent(in) :: layout
    integer(c_int8_t), intent(in), target, contiguous :: packed(:)
    real(c_float), intent(in), target, contiguous :: group_min(:), group_scale(:)
    real(c_float), intent(inout), target, contiguous :: y(..)
    status = dequantize_core(ctx, layout, size(packed, kind=c_int64_t), c_loc(packed), &
      min(size(group_min, kind=c_int64_t), size(group_scale, kind=c_int64_t)), &
      layout%meta_dtype == ACTQ_F32, c_loc(group_min), c_loc(group_scale), &
      size(y, kind=c_int64_t), c_loc(y))
  end function dequantize_meta_f32

  integer(c_int) function dequantize_meta_i16(ctx, layout, packed, group_min, group_scale, y) &
      result(status)
    type(c_ptr), intent(in) :: ctx
    type(actq_layout), intent(in) :: layout
    integer(c_int8_t), intent(in), target, contiguous :: packed(:)
    integer(c_int16_t), intent(in), target, contiguous :: group_min(:), group_scale(:)
    real(c_float), intent(inout), target, contiguous :: y(..)
    status = dequantize_core(ctx, layout, size(packed, kind=c_int64_t), c_loc(packed), &
      min(size(group_min, kind=c_int64_t), size(group_scale, kind=c_int64_t)), &
      layout%meta_dtype == ACTQ_F16 .or. layout%meta_dtype == ACTQ_BF16, &
      c_loc(group_min), c_loc(group_scale), size(y, kind=c_int64_t), c_loc(y))
  end function dequantize_meta_i16

  ! One packed row of size(codes) codes; packed needs ceil(size(codes) * bits / 8) bytes.
  integer(c_int) function actq_pack_array(ctx, bits, codes, packed) result(status)
    type(c_ptr), intent(in) :: ctx
    integer, intent(in) :: bits
    integer(c_int8_t), intent(in), target, contiguous :: codes(:)
    integer(c_int8_t), intent(inout), target, contiguous :: packed(:)
    integer(c_int32_t) :: b
    b = int(bits, c_int32_t)
    if (size(packed, kind=c_int64_t) < packed_row_bytes(size(codes, kind=c_int64_t), b)) then
      status = ACTQ_ERR_INVALID_ARGUMENT
      return
    end if
    status = actq_pack(ctx, b, size(codes, kind=c_size_t), c_loc(codes), c_loc(packed))
  end function actq_pack_array

  integer(c_int) function actq_unpack_array(ctx, bits, packed, codes) result(status)
    type(c_ptr), intent(in) :: ctx
    integer, intent(in) :: bits
    integer(c_int8_t), intent(in), target, contiguous :: packed(:)
    integer(c_int8_t), intent(inout), target, contiguous :: codes(:)
    integer(c_int32_t) :: b
    b = int(bits, c_int32_t)
    if (size(packed, kind=c_int64_t) < packed_row_bytes(size(codes, kind=c_int64_t), b)) then
      status = ACTQ_ERR_INVALID_ARGUMENT
      return
    end if
    status = actq_unpack(ctx, b, size(codes, kind=c_size_t), c_loc(packed), c_loc(codes))
  end function actq_unpack_array

  ! Codes of float32 x (any rank) into packed `codes` (ceil(size(x) * table%bits / 8)
  ! bytes); y = f(x) when y is present (same number of elements as x).
  integer(c_int) function fewbit_encode_array(ctx, table, x, codes, y) result(status)
    type(c_ptr), intent(in) :: ctx
    type(fewbit_table), intent(in) :: table
    real(c_float), intent(in), target, contiguous :: x(..)
    integer(c_int8_t), intent(inout), target, contiguous :: codes(:)
    real(c_float), intent(inout), target, contiguous, optional :: y(..)
    type(c_ptr) :: py
    if (size(codes, kind=c_int64_t) < packed_row_bytes(size(x, kind=c_int64_t), table%bits)) then
      status = ACTQ_ERR_INVALID_ARGUMENT
      return
    end if
    py = c_null_ptr
    if (present(y)) then
      if (size(y) /= size(x)) then
        status = ACTQ_ERR_INVALID_ARGUMENT
        return
      end if
      py = c_loc(y)
    end if
    status = fewbit_encode(ctx, table, size(x, kind=c_size_t), ACTQ_F32, c_loc(x), py, &
                           c_loc(codes))
  end function fewbit_encode_array

  ! grad_in = grad_out * levels(code), float32; grad_in has as many elements as grad_out.
  integer(c_int) function fewbit_backward_array(ctx, table, codes, grad_out, grad_in) &
      result(status)
    type(c_ptr), intent(in) :: ctx
    type(fewbit_table), intent(in) :: table
    integer(c_int8_t), intent(in), target, contiguous :: codes(:)
    real(c_float), intent(in), target, contiguous :: grad_out(..)
    real(c_float), intent(inout), target, contiguous :: grad_in(..)
    if (size(grad_in) /= size(grad_out) .or. size(codes, kind=c_int64_t) < &
        packed_row_bytes(size(grad_out, kind=c_int64_t), table%bits)) then
      status = ACTQ_ERR_INVALID_ARGUMENT
      return
    end if
    status = fewbit_backward(ctx, table, size(grad_out, kind=c_size_t), c_loc(codes), ACTQ_F32, &
                             c_loc(grad_out), c_loc(grad_in))
  end function fewbit_backward_array

  ! x, dydx (and weight, when present) of equal length.
  integer(c_int) function fewbit_table_build_custom_array(x, dydx, bits, table, weight) &
      result(status)
    real(c_double), intent(in) :: x(:), dydx(:)
    integer, intent(in) :: bits
    type(fewbit_table), intent(inout) :: table
    real(c_double), intent(in), optional :: weight(:)
    if (size(dydx) /= size(x)) then
      status = ACTQ_ERR_INVALID_ARGUMENT
      return
    end if
    if (present(weight)) then
      if (size(weight) /= size(x)) then
        status = ACTQ_ERR_INVALID_ARGUMENT
        return
      end if
      status = fewbit_table_build_custom(size(x, kind=c_size_t), x, dydx, weight, &
                                         int(bits, c_int32_t), table)
    else
      status = fewbit_table_build_custom(size(x, kind=c_size_t), x, dydx, bits=int(bits, c_int32_t), &
                                         table=table)
    end if
  end function fewbit_table_build_custom_array

  ! sensitivity, numel and bits of equal length.
  integer(c_int) function actq_allocate_bits_array(sensitivity, numel, average_bits, &
      allowed_bits, method, bits, objective) result(status)
    real(c_double), intent(in) :: sensitivity(:)
    integer(c_int64_t), intent(in) :: numel(:)
    real(c_double), intent(in) :: average_bits
    integer(c_int32_t), intent(in) :: allowed_bits
    integer(c_int), intent(in) :: method
    integer(c_int8_t), intent(inout) :: bits(:)
    real(c_double), intent(inout), optional :: objective
    if (size(numel) /= size(sensitivity) .or. size(bits) /= size(sensitivity)) then
      status = ACTQ_ERR_INVALID_ARGUMENT
      return
    end if
    status = actq_allocate_bits(size(sensitivity, kind=c_size_t), sensitivity, numel, &
                                average_bits, allowed_bits, method, bits, objective)
  end function actq_allocate_bits_array

end module actq
