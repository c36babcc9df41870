! actq.f90 - Fortran bindings of libactq (include/actq.h and include/fewbit.h).
!
! Two layers in one module:
!  * the C calls themselves, bind(c) with the C names, taking type(c_ptr) for void*
!    buffers (pass c_loc(array)); every call of the C ABI is here;
!  * wrappers (names ending in _array, plus actq_layout_columns and
!    fewbit_table_build_checked) that take Fortran arrays and check every argument against
!    the contract before C is called: a bad one returns ACTQ_ERR_INVALID_ARGUMENT (or
!    ACTQ_ERR_SIZE_OVERFLOW / ACTQ_ERR_UNSUPPORTED where C would) and writes nothing. Each
!    takes a last optional argument `message` (character(len=:), allocatable, intent(out))
!    that names the argument, its value and what is allowed ("bits must be 1..8, got 9");
!    on a C status other than ACTQ_OK it is "<C call>: <actq_status_string>", on success ''.
!    The rules are written once, in "The argument rules" near the end of the file.
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
  ! the argument rules test NaN and Inf without ordered comparisons on them (which raise
  ! IEEE invalid, a trap where the user enabled it)
  use, intrinsic :: ieee_arithmetic, only: ieee_is_finite, ieee_is_nan
  implicit none
  private :: quantize_meta_f32, quantize_meta_i16, dequantize_meta_f32, dequantize_meta_i16
  private :: quantize_core, dequantize_core, c_string, packed_row_bytes
  ! the argument rules (see "The argument rules" below) and their text helpers
  private :: refuse, c_message, check_ctx, check_width, check_group_size
  private :: check_meta_dtype, check_layout, check_meta_kind, check_rounding, check_exact
  private :: check_enough, check_at_least, check_codes, check_activation, check_table
  private :: check_options, check_finite, check_finite_nonnegative, check_increasing
  private :: check_numel, check_average_bits, check_allowed_bits, check_method, check_budget
  private :: nonnegative, nonnegative_finite, positive_finite, positive_param
  private :: str, str_i32, str_i64, str_f32, str_f64, shortest, tidy

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

  ! Values as text for the messages (integers in decimal, reals as the shortest decimal
  ! that reads back to the same value, NaN and Inf by name).
  interface str
    module procedure str_i32, str_i64, str_f32, str_f64
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
  ! The layout is built from the arguments as given (so that bits 0 followed by setting
  ! row_bits keeps working); status and message, when present, say whether it is a valid
  ! layout without row_bits: n and m >= 0, group_size and bits and meta_dtype as the
  ! contract allows.
  function actq_layout_columns(n, m, group_size, bits, meta_dtype, status, message) &
      result(layout)
    integer, intent(in) :: n, m, group_size, bits
    integer(c_int), intent(in), optional :: meta_dtype
    integer(c_int), intent(out), optional :: status
    character(len=:), allocatable, intent(out), optional :: message
    type(actq_layout) :: layout
    integer(c_int) :: st
    character(len=:), allocatable :: why
    layout%rows = int(m, c_size_t)
    layout%cols = int(n, c_size_t)
    layout%group_size = int(group_size, c_int32_t)
    layout%bits = int(bits, c_int32_t)
    if (present(meta_dtype)) layout%meta_dtype = meta_dtype
    st = ACTQ_OK
    call check_at_least('n', int(n, c_int64_t), 0_c_int64_t, st, why)
    call check_at_least('m', int(m, c_int64_t), 0_c_int64_t, st, why)
    call check_group_size('group_size', int(group_size, c_int64_t), st, why)
    call check_width('bits', int(bits, c_int64_t), st, why)
    call check_meta_dtype('meta_dtype', layout%meta_dtype, st, why)
    if (present(status)) status = st
    if (present(message)) then
      message = ''
      if (st /= ACTQ_OK) message = why
    end if
  end function actq_layout_columns

  ! Bytes of one packed row of n codes of `bits` each (bits already checked to be 1..8;
  ! -1 otherwise, so that no buffer is ever large enough). No intermediate overflows.
  pure integer(c_int64_t) function packed_row_bytes(n, bits)
    integer(c_int64_t), intent(in) :: n
    integer(c_int64_t), intent(in) :: bits
    if (bits < 1 .or. bits > 8 .or. n < 0) then
      packed_row_bytes = -1
    else
      packed_row_bytes = (n / 8) * bits + (mod(n, 8_c_int64_t) * bits + 7) / 8
    end if
  end function packed_row_bytes

  ! ---- quantize / dequantize -------------------------------------------------------------
  ! Checked in the order of the arguments (ctx, layout, the metadata's element type, x,
  ! rounding, packed, group_min, group_scale); the first broken rule is reported and C is
  ! not called, so nothing is written. nmin, nscale: entries of the metadata arrays;
  ! meta_f32: whether they are real(c_float).
  integer(c_int) function quantize_core(ctx, layout, nx, x, rounding, seed, offset, npacked, &
      packed, meta_f32, nmin, group_min, nscale, group_scale, why) result(status)
    type(c_ptr), intent(in) :: ctx, x, packed, group_min, group_scale
    type(actq_layout), intent(in) :: layout
    integer(c_int64_t), intent(in) :: nx, npacked, nmin, nscale
    integer(c_int), intent(in) :: rounding
    integer(c_int64_t), intent(in) :: seed, offset
    logical, intent(in) :: meta_f32
    integer(c_int64_t) :: elements, packed_bytes, groups
    character(len=:), allocatable, intent(out) :: why
    status = ACTQ_OK
    call check_ctx(ctx, status, why)
    call check_layout(layout, elements, packed_bytes, groups, status, why)
    call check_meta_kind(meta_f32, layout%meta_dtype, status, why)
    call check_exact('x', nx, 'elements', elements, 'the layout needs', status, why)
    call check_rounding('rounding', rounding, status, why)
    call check_enough('packed', npacked, 'bytes', packed_bytes, 'needs', status, why)
    call check_enough('group_min', nmin, 'entries', groups, 'the layout needs', status, why)
    call check_enough('group_scale', nscale, 'entries', groups, 'the layout needs', status, why)
    if (status /= ACTQ_OK) return
    status = actq_quantize(ctx, layout, ACTQ_F32, x, rounding, seed, offset, packed, &
                           group_min, group_scale)
    why = c_message('actq_quantize', status)
  end function quantize_core

  integer(c_int) function dequantize_core(ctx, layout, npacked, packed, meta_f32, nmin, &
      group_min, nscale, group_scale, ny, y, why) result(status)
    type(c_ptr), intent(in) :: ctx, packed, group_min, group_scale, y
    type(actq_layout), intent(in) :: layout
    integer(c_int64_t), intent(in) :: npacked, nmin, nscale, ny
    logical, intent(in) :: meta_f32
    integer(c_int64_t) :: elements, packed_bytes, groups
    character(len=:), allocatable, intent(out) :: why
    status = ACTQ_OK
    call check_ctx(ctx, status, why)
    call check_layout(layout, elements, packed_bytes, groups, status, why)
    call check_meta_kind(meta_f32, layout%meta_dtype, status, why)
    call check_enough('packed', npacked, 'bytes', packed_bytes, 'needs', status, why)
    call check_enough('group_min', nmin, 'entries', groups, 'the layout needs', status, why)
    call check_enough('group_scale', nscale, 'entries', groups, 'the layout needs', status, why)
    call check_exact('y', ny, 'elements', elements, 'the layout needs', status, why)
    if (status /= ACTQ_OK) return
    status = actq_dequantize(ctx, layout, packed, group_min, group_scale, ACTQ_F32, y)
    why = c_message('actq_dequantize', status)
  end function dequantize_core

  ! x: float32, exactly rows*cols elements; packed: at least packed_bytes bytes; group_min,
  ! group_scale: at least `groups` entries (actq_layout_sizes).
  integer(c_int) function quantize_meta_f32(ctx, layout, x, rounding, seed, offset, packed, &
      group_min, group_scale, message) result(status)
    type(c_ptr), intent(in) :: ctx
    type(actq_layout), intent(in) :: layout
    real(c_float), intent(in), target, contiguous :: x(..)
    integer(c_int), intent(in) :: rounding
    integer(c_int64_t), intent(in) :: seed, offset
    integer(c_int8_t), intent(inout), target, contiguous :: packed(:)
    real(c_float), intent(inout), target, contiguous :: group_min(:), group_scale(:)
    character(len=:), allocatable, intent(out), optional :: message
    character(len=:), allocatable :: why
    status = quantize_core(ctx, layout, size(x, kind=c_int64_t), c_loc(x), rounding, seed, &
      offset, size(packed, kind=c_int64_t), c_loc(packed), .true., &
      size(group_min, kind=c_int64_t), c_loc(group_min), &
      size(group_scale, kind=c_int64_t), c_loc(group_scale), why)
    if (present(message)) message = why
  end function quantize_meta_f32

  integer(c_int) function quantize_meta_i16(ctx, layout, x, rounding, seed, offset, packed, &
      group_min, group_scale, message) result(status)
    type(c_ptr), intent(in) :: ctx
    type(actq_layout), intent(in) :: layout
    real(c_float), intent(in), target, contiguous :: x(..)
    integer(c_int), intent(in) :: rounding
    integer(c_int64_t), intent(in) :: seed, offset
    integer(c_int8_t), intent(inout), target, contiguous :: packed(:)
    integer(c_int16_t), intent(inout), target, contiguous :: group_min(:), group_scale(:)
    character(len=:), allocatable, intent(out), optional :: message
    character(len=:), allocatable :: why
    status = quantize_core(ctx, layout, size(x, kind=c_int64_t), c_loc(x), rounding, seed, &
      offset, size(packed, kind=c_int64_t), c_loc(packed), .false., &
      size(group_min, kind=c_int64_t), c_loc(group_min), &
      size(group_scale, kind=c_int64_t), c_loc(group_scale), why)
    if (present(message)) message = why
  end function quantize_meta_i16

  ! y: float32, exactly rows*cols elements.
  integer(c_int) function dequantize_meta_f32(ctx, layout, packed, group_min, group_scale, y, &
      message) result(status)
    type(c_ptr), intent(in) :: ctx
    type(actq_layout), intent(in) :: layout
    integer(c_int8_t), intent(in), target, contiguous :: packed(:)
    real(c_float), intent(in), target, contiguous :: group_min(:), group_scale(:)
    real(c_float), intent(inout), target, contiguous :: y(..)
    character(len=:), allocatable, intent(out), optional :: message
    character(len=:), allocatable :: why
    status = dequantize_core(ctx, layout, size(packed, kind=c_int64_t), c_loc(packed), .true., &
      size(group_min, kind=c_int64_t), c_loc(group_min), &
      size(group_scale, kind=c_int64_t), c_loc(group_scale), &
      size(y, kind=c_int64_t), c_loc(y), why)
    if (present(message)) message = why
  end function dequantize_meta_f32

  integer(c_int) function dequantize_meta_i16(ctx, layout, packed, group_min, group_scale, y, &
      message) result(status)
    type(c_ptr), intent(in) :: ctx
    type(actq_layout), intent(in) :: layout
    integer(c_int8_t), intent(in), target, contiguous :: packed(:)
    integer(c_int16_t), intent(in), target, contiguous :: group_min(:), group_scale(:)
    real(c_float), intent(inout), target, contiguous :: y(..)
    character(len=:), allocatable, intent(out), optional :: message
    character(len=:), allocatable :: why
    status = dequantize_core(ctx, layout, size(packed, kind=c_int64_t), c_loc(packed), .false., &
      size(group_min, kind=c_int64_t), c_loc(group_min), &
      size(group_scale, kind=c_int64_t), c_loc(group_scale), &
      size(y, kind=c_int64_t), c_loc(y), why)
    if (present(message)) message = why
  end function dequantize_meta_i16

  ! ---- pack / unpack ---------------------------------------------------------------------
  ! One packed row of size(codes) codes; packed needs ceil(size(codes) * bits / 8) bytes,
  ! and every code must be below 2^bits.
  integer(c_int) function actq_pack_array(ctx, bits, codes, packed, message) result(status)
    type(c_ptr), intent(in) :: ctx
    integer, intent(in) :: bits
    integer(c_int8_t), intent(in), target, contiguous :: codes(:)
    integer(c_int8_t), intent(inout), target, contiguous :: packed(:)
    character(len=:), allocatable, intent(out), optional :: message
    character(len=:), allocatable :: why
    status = ACTQ_OK
    call check_ctx(ctx, status, why)
    call check_width('bits', int(bits, c_int64_t), status, why)
    call check_codes('codes', codes, int(bits, c_int64_t), status, why)
    call check_enough('packed', size(packed, kind=c_int64_t), 'bytes', &
      packed_row_bytes(size(codes, kind=c_int64_t), int(bits, c_int64_t)), 'needs', status, why, &
      str(size(codes, kind=c_int64_t)) // ' codes of ' // str(int(bits, c_int64_t)) // ' bits')
    if (status /= ACTQ_OK) then
      if (present(message)) message = why
      return
    end if
    status = actq_pack(ctx, int(bits, c_int32_t), size(codes, kind=c_size_t), c_loc(codes), &
                       c_loc(packed))
    if (present(message)) message = c_message('actq_pack', status)
  end function actq_pack_array

  ! size(codes) codes from packed, which needs ceil(size(codes) * bits / 8) bytes.
  integer(c_int) function actq_unpack_array(ctx, bits, packed, codes, message) result(status)
    type(c_ptr), intent(in) :: ctx
    integer, intent(in) :: bits
    integer(c_int8_t), intent(in), target, contiguous :: packed(:)
    integer(c_int8_t), intent(inout), target, contiguous :: codes(:)
    character(len=:), allocatable, intent(out), optional :: message
    character(len=:), allocatable :: why
    status = ACTQ_OK
    call check_ctx(ctx, status, why)
    call check_width('bits', int(bits, c_int64_t), status, why)
    call check_enough('packed', size(packed, kind=c_int64_t), 'bytes', &
      packed_row_bytes(size(codes, kind=c_int64_t), int(bits, c_int64_t)), 'needs', status, why, &
      str(size(codes, kind=c_int64_t)) // ' codes of ' // str(int(bits, c_int64_t)) // ' bits')
    if (status /= ACTQ_OK) then
      if (present(message)) message = why
      return
    end if
    status = actq_unpack(ctx, int(bits, c_int32_t), size(codes, kind=c_size_t), c_loc(packed), &
                         c_loc(codes))
    if (present(message)) message = c_message('actq_unpack', status)
  end function actq_unpack_array

  ! ---- few-bit activations ---------------------------------------------------------------
  ! Codes of float32 x (any rank) into packed `codes` (ceil(size(x) * table%bits / 8)
  ! bytes); y = f(x) when y is present (same number of elements as x; not with a
  ! FEWBIT_CUSTOM table, whose f is unknown: ACTQ_ERR_UNSUPPORTED, as from C).
  integer(c_int) function fewbit_encode_array(ctx, table, x, codes, y, message) result(status)
    type(c_ptr), intent(in) :: ctx
    type(fewbit_table), intent(in) :: table
    real(c_float), intent(in), target, contiguous :: x(..)
    integer(c_int8_t), intent(inout), target, contiguous :: codes(:)
    real(c_float), intent(inout), target, contiguous, optional :: y(..)
    character(len=:), allocatable, intent(out), optional :: message
    character(len=:), allocatable :: why
    type(c_ptr) :: py
    status = ACTQ_OK
    call check_ctx(ctx, status, why)
    call check_table('table', table, status, why)
    call check_enough('codes', size(codes, kind=c_int64_t), 'bytes', &
      packed_row_bytes(size(x, kind=c_int64_t), int(table%bits, c_int64_t)), 'needs', status, why, &
      str(size(x, kind=c_int64_t)) // ' values of x at table%bits ' // str(table%bits))
    py = c_null_ptr
    if (present(y)) then
      call check_exact('y', size(y, kind=c_int64_t), 'elements', size(x, kind=c_int64_t), &
                       'x has', status, why)
      if (status == ACTQ_OK .and. table%activation == FEWBIT_CUSTOM) &
        call refuse(status, why, ACTQ_ERR_UNSUPPORTED, 'y must be absent with a FEWBIT_CUSTOM ' // &
                    'table (table%activation 20): its f is not known, only samples of f''')
      py = c_loc(y)
    end if
    if (status /= ACTQ_OK) then
      if (present(message)) message = why
      return
    end if
    status = fewbit_encode(ctx, table, size(x, kind=c_size_t), ACTQ_F32, c_loc(x), py, &
                           c_loc(codes))
    if (present(message)) message = c_message('fewbit_encode', status)
  end function fewbit_encode_array

  ! grad_in = grad_out * levels(code), float32; grad_in has as many elements as grad_out.
  integer(c_int) function fewbit_backward_array(ctx, table, codes, grad_out, grad_in, message) &
      result(status)
    type(c_ptr), intent(in) :: ctx
    type(fewbit_table), intent(in) :: table
    integer(c_int8_t), intent(in), target, contiguous :: codes(:)
    real(c_float), intent(in), target, contiguous :: grad_out(..)
    real(c_float), intent(inout), target, contiguous :: grad_in(..)
    character(len=:), allocatable, intent(out), optional :: message
    character(len=:), allocatable :: why
    status = ACTQ_OK
    call check_ctx(ctx, status, why)
    call check_table('table', table, status, why)
    call check_enough('codes', size(codes, kind=c_int64_t), 'bytes', &
      packed_row_bytes(size(grad_out, kind=c_int64_t), int(table%bits, c_int64_t)), 'needs', &
      status, why, str(size(grad_out, kind=c_int64_t)) // ' values of grad_out at table%bits ' // &
      str(table%bits))
    call check_exact('grad_in', size(grad_in, kind=c_int64_t), 'elements', &
                     size(grad_out, kind=c_int64_t), 'grad_out has', status, why)
    if (status /= ACTQ_OK) then
      if (present(message)) message = why
      return
    end if
    status = fewbit_backward(ctx, table, size(grad_out, kind=c_size_t), c_loc(codes), ACTQ_F32, &
                             c_loc(grad_out), c_loc(grad_in))
    if (present(message)) message = c_message('fewbit_backward', status)
  end function fewbit_backward_array

  ! fewbit_table_build with the arguments checked first (the bind(c) call above stays as
  ! the C ABI). An absent opt is NORMAL with mean 0 and std 1.
  integer(c_int) function fewbit_table_build_checked(act, param, bits, opt, table, message) &
      result(status)
    integer(c_int), intent(in) :: act
    real(c_float), intent(in) :: param
    integer, intent(in) :: bits
    type(fewbit_options), intent(in), optional :: opt
    type(fewbit_table), intent(inout) :: table
    character(len=:), allocatable, intent(out), optional :: message
    character(len=:), allocatable :: why
    status = ACTQ_OK
    if (act == FEWBIT_CUSTOM) call refuse(status, why, ACTQ_ERR_INVALID_ARGUMENT, &
      'act must not be FEWBIT_CUSTOM (20) here: build custom tables with ' // &
      'fewbit_table_build_custom_array')
    call check_activation('act', act, 'param', param, status, why)
    call check_width('bits', int(bits, c_int64_t), status, why)
    if (present(opt)) call check_options('opt', opt, int(bits, c_int64_t), status, why)
    if (status /= ACTQ_OK) then
      if (present(message)) message = why
      return
    end if
    status = fewbit_table_build(act, param, int(bits, c_int32_t), opt, table)
    if (present(message)) message = c_message('fewbit_table_build', status)
  end function fewbit_table_build_checked

  ! x (n >= 2 samples, finite, strictly increasing), dydx (finite) and weight (finite,
  ! >= 0; when present) of equal length.
  integer(c_int) function fewbit_table_build_custom_array(x, dydx, bits, table, weight, &
      message) result(status)
    real(c_double), intent(in) :: x(:), dydx(:)
    integer, intent(in) :: bits
    type(fewbit_table), intent(inout) :: table
    real(c_double), intent(in), optional :: weight(:)
    character(len=:), allocatable, intent(out), optional :: message
    character(len=:), allocatable :: why
    status = ACTQ_OK
    call check_enough('x', size(x, kind=c_int64_t), 'samples', 2_c_int64_t, 'needs at least', &
                      status, why)
    call check_increasing('x', x, status, why)
    call check_exact('dydx', size(dydx, kind=c_int64_t), 'elements', size(x, kind=c_int64_t), &
                     'x has', status, why)
    call check_finite('dydx', dydx, status, why)
    call check_width('bits', int(bits, c_int64_t), status, why)
    if (present(weight)) then
      call check_exact('weight', size(weight, kind=c_int64_t), 'elements', &
                       size(x, kind=c_int64_t), 'x has', status, why)
      call check_finite_nonnegative('weight', weight, status, why)
    end if
    if (status /= ACTQ_OK) then
      if (present(message)) message = why
      return
    end if
    if (present(weight)) then
      status = fewbit_table_build_custom(size(x, kind=c_size_t), x, dydx, weight, &
                                         int(bits, c_int32_t), table)
    else
      status = fewbit_table_build_custom(size(x, kind=c_size_t), x, dydx, bits=int(bits, c_int32_t), &
                                         table=table)
    end if
    if (present(message)) message = c_message('fewbit_table_build_custom', status)
  end function fewbit_table_build_custom_array

  ! ---- bit allocation --------------------------------------------------------------------
  ! sensitivity, numel and bits of equal length; bits and objective are written only on
  ! ACTQ_OK.
  integer(c_int) function actq_allocate_bits_array(sensitivity, numel, average_bits, &
      allowed_bits, method, bits, objective, message) result(status)
    real(c_double), intent(in) :: sensitivity(:)
    integer(c_int64_t), intent(in) :: numel(:)
    real(c_double), intent(in) :: average_bits
    integer(c_int32_t), intent(in) :: allowed_bits
    integer(c_int), intent(in) :: method
    integer(c_int8_t), intent(inout) :: bits(:)
    real(c_double), intent(inout), optional :: objective
    character(len=:), allocatable, intent(out), optional :: message
    character(len=:), allocatable :: why
    integer(c_int64_t) :: total
    status = ACTQ_OK
    call check_finite_nonnegative('sensitivity', sensitivity, status, why)
    call check_exact('numel', size(numel, kind=c_int64_t), 'entries', &
                     size(sensitivity, kind=c_int64_t), 'sensitivity has', status, why)
    call check_numel('numel', numel, total, status, why)
    call check_average_bits('average_bits', average_bits, status, why)
    call check_allowed_bits('allowed_bits', allowed_bits, status, why)
    call check_method('method', method, status, why)
    call check_exact('bits', size(bits, kind=c_int64_t), 'entries', &
                     size(sensitivity, kind=c_int64_t), 'sensitivity has', status, why)
    call check_budget('average_bits', average_bits, allowed_bits, total, status, why)
    if (status /= ACTQ_OK) then
      if (present(message)) message = why
      return
    end if
    status = actq_allocate_bits(size(sensitivity, kind=c_size_t), sensitivity, numel, &
                                average_bits, allowed_bits, method, bits, objective)
    if (present(message)) message = c_message('actq_allocate_bits', status)
  end function actq_allocate_bits_array

  ! ======================================================================================
  ! The argument rules: the contract's rules (shared/spec/ABI.md and the headers) for every
  ! argument a wrapper takes, each written once, here, and used by every wrapper.
  !
  ! Why the binding checks at all: C checks the same rules, but it can only return a
  ! status; a Fortran user then has to guess which argument was wrong. Here each rule knows
  ! the argument's name, so the optional `message` of every wrapper says which argument,
  ! its value and what is allowed, and the check runs before any C call, so a refused
  ! call writes nothing (C never sees the buffers). C's own checks stay behind these as the
  ! last word: a rule missing here still gives C's status (and message "<call>: <status
  ! string>").
  !
  ! How they chain: every check takes (status, why) and does nothing once status is not
  ! ACTQ_OK, so a wrapper lists its arguments' rules in argument order without nested ifs
  ! and the first broken rule is the one reported; the wrapper then copies `why` to
  ! `message` itself. (`message` is never passed on as an optional argument: gfortran 12
  ! loses the length of an optional deferred-length character passed to another optional
  ! dummy, and the caller would get an empty or garbage message.)
  ! Indices in messages are Fortran's (from 1).
  !
  !   rule (contract)                                   check
  !   context not NULL                                  check_ctx
  !   a width: 1..8                                     check_width
  !   group_size: a multiple of 8 in 8..65536           check_group_size
  !   meta_dtype: ACTQ_F32, ACTQ_F16 or ACTQ_BF16       check_meta_dtype
  !   layout: the above, row_bits(r) 1..8, rows*cols    check_layout
  !     4-byte addressable (else SIZE_OVERFLOW)
  !   metadata arrays' type fits meta_dtype             check_meta_kind
  !   rounding: STOCHASTIC or NEAREST                   check_rounding
  !   an array of exactly / at least N entries          check_exact / check_enough
  !   a count >= a minimum                              check_at_least
  !   codes below 2^bits                                check_codes
  !   fewbit table: bits 1..8, activation and param,    check_table
  !     bounds strictly increasing, no NaN
  !   activation 1..20 and its param                    check_activation
  !   fewbit options: weight, mean/std, lo/hi, grid     check_options
  !   samples finite / finite and >= 0 / increasing     check_finite / check_finite_nonnegative
  !                                                     / check_increasing
  !   numel sum within 2^61 (else SIZE_OVERFLOW)        check_numel
  !   average_bits a number >= 0                        check_average_bits
  !   allowed_bits: some width, only widths 1..8        check_allowed_bits
  !   method: GREEDY or EXACT                           check_method
  !   budget: average_bits >= the smallest width        check_budget
  ! ======================================================================================

  ! The one place that marks a call as refused.
  subroutine refuse(status, why, code, text)
    integer(c_int), intent(inout) :: status
    character(len=:), allocatable, intent(inout) :: why
    integer(c_int), intent(in) :: code
    character(len=*), intent(in) :: text
    status = code
    why = text
  end subroutine refuse

  ! After the C call: '' on ACTQ_OK, else the call's name and the library's status string
  ! (C's statuses carry no argument name: NaN data, out of memory, a rule checked only in C).
  function c_message(call_name, status) result(text)
    character(len=*), intent(in) :: call_name
    integer(c_int), intent(in) :: status
    character(len=:), allocatable :: text
    if (status == ACTQ_OK) then
      text = ''
    else
      text = call_name // ': ' // actq_status_message(status)
    end if
  end function c_message

  subroutine check_ctx(ctx, status, why)
    type(c_ptr), intent(in) :: ctx
    integer(c_int), intent(inout) :: status
    character(len=:), allocatable, intent(inout) :: why
    if (status /= ACTQ_OK) return
    if (.not. c_associated(ctx)) call refuse(status, why, ACTQ_ERR_INVALID_ARGUMENT, &
      'ctx is NULL; create a context with actq_context_create')
  end subroutine check_ctx

  ! Every width of the format (layout%bits, row_bits, pack bits, table bits): 1..8.
  subroutine check_width(name, value, status, why)
    character(len=*), intent(in) :: name
    integer(c_int64_t), intent(in) :: value
    integer(c_int), intent(inout) :: status
    character(len=:), allocatable, intent(inout) :: why
    if (status /= ACTQ_OK) return
    if (value < 1 .or. value > 8) call refuse(status, why, ACTQ_ERR_INVALID_ARGUMENT, &
      name // ' must be 1..8, got ' // str(value))
  end subroutine check_width

  subroutine check_group_size(name, value, status, why)
    character(len=*), intent(in) :: name
    integer(c_int64_t), intent(in) :: value
    integer(c_int), intent(inout) :: status
    character(len=:), allocatable, intent(inout) :: why
    if (status /= ACTQ_OK) return
    if (value < 8 .or. value > 65536 .or. mod(value, 8_c_int64_t) /= 0) &
      call refuse(status, why, ACTQ_ERR_INVALID_ARGUMENT, &
                  name // ' must be a multiple of 8 in 8..65536, got ' // str(value))
  end subroutine check_group_size

  subroutine check_meta_dtype(name, value, status, why)
    character(len=*), intent(in) :: name
    integer(c_int), intent(in) :: value
    integer(c_int), intent(inout) :: status
    character(len=:), allocatable, intent(inout) :: why
    if (status /= ACTQ_OK) return
    if (value /= ACTQ_F32 .and. value /= ACTQ_F16 .and. value /= ACTQ_BF16) &
      call refuse(status, why, ACTQ_ERR_INVALID_ARGUMENT, name // &
                  ' must be ACTQ_F32 (0), ACTQ_F16 (1) or ACTQ_BF16 (2), got ' // str(value))
  end subroutine check_meta_dtype

  ! A layout's fields, then the sizes it implies (computed here, the format's arithmetic of
  ! docs/format.md, so that no C call runs before the checks): elements = rows*cols,
  ! packed_bytes = sum over rows of ceil(cols*b/8), groups = rows*ceil(cols/group_size).
  ! rows or cols at 2^63 or more (negative here), or rows*cols past what 4-byte elements
  ! can address, is ACTQ_ERR_SIZE_OVERFLOW, as from C.
  subroutine check_layout(layout, elements, packed_bytes, groups, status, why)
    type(actq_layout), intent(in) :: layout
    integer(c_int64_t), intent(out) :: elements, packed_bytes, groups
    integer(c_int), intent(inout) :: status
    character(len=:), allocatable, intent(inout) :: why
    integer(c_int8_t), pointer :: widths(:)
    integer(c_int64_t) :: rows, cols, r
    integer(c_int64_t), parameter :: most = 2_c_int64_t**62 - 1   ! SIZE_MAX / 4, as C
    elements = -1
    packed_bytes = -1
    groups = -1
    rows = int(layout%rows, c_int64_t)
    cols = int(layout%cols, c_int64_t)
    call check_group_size('layout%group_size', int(layout%group_size, c_int64_t), status, why)
    if (.not. c_associated(layout%row_bits)) &
      call check_width('layout%bits', int(layout%bits, c_int64_t), status, why)
    call check_meta_dtype('layout%meta_dtype', layout%meta_dtype, status, why)
    if (status /= ACTQ_OK) return
    if (rows < 0 .or. cols < 0 .or. (cols > 0 .and. rows > most / max(cols, 1_c_int64_t))) then
      call refuse(status, why, ACTQ_ERR_SIZE_OVERFLOW, 'layout%rows x layout%cols = ' // &
                  str(rows) // ' x ' // str(cols) // ' (as unsigned) is past 2^62 elements')
      return
    end if
    elements = rows * cols
    groups = rows * (cols / layout%group_size + merge(1, 0, mod(cols, int(layout%group_size, &
             c_int64_t)) /= 0))
    if (c_associated(layout%row_bits)) then
      ! row_bits holds `rows` widths (the contract); it is only read, never written
      call c_f_pointer(layout%row_bits, widths, [rows])
      packed_bytes = 0
      do r = 1, rows
        call check_width('layout%row_bits(' // str(r) // ')', &
                         int(iand(int(widths(r)), 255), c_int64_t), status, why)
        if (status /= ACTQ_OK) return
        packed_bytes = packed_bytes + packed_row_bytes(cols, int(iand(int(widths(r)), 255), &
                                                       c_int64_t))
      end do
    else
      packed_bytes = rows * packed_row_bytes(cols, int(layout%bits, c_int64_t))
    end if
  end subroutine check_layout

  ! real(c_float) metadata arrays go with meta_dtype ACTQ_F32, integer(c_int16_t) ones
  ! (f16/bf16 bits) with ACTQ_F16 and ACTQ_BF16: C reads them by meta_dtype alone.
  subroutine check_meta_kind(meta_f32, meta_dtype, status, why)
    logical, intent(in) :: meta_f32
    integer(c_int), intent(in) :: meta_dtype
    integer(c_int), intent(inout) :: status
    character(len=:), allocatable, intent(inout) :: why
    if (status /= ACTQ_OK) return
    if (meta_f32 .and. meta_dtype /= ACTQ_F32) then
      call refuse(status, why, ACTQ_ERR_INVALID_ARGUMENT, 'group_min and group_scale are ' // &
        'real(c_float), which needs layout%meta_dtype ACTQ_F32 (0), got ' // str(meta_dtype) // &
        '; pass integer(c_int16_t) arrays for f16/bf16 metadata')
    else if (.not. meta_f32 .and. meta_dtype == ACTQ_F32) then
      call refuse(status, why, ACTQ_ERR_INVALID_ARGUMENT, 'group_min and group_scale are ' // &
        'integer(c_int16_t), which needs layout%meta_dtype ACTQ_F16 (1) or ACTQ_BF16 (2), ' // &
        'got ' // str(meta_dtype) // '; pass real(c_float) arrays for f32 metadata')
    end if
  end subroutine check_meta_kind

  subroutine check_rounding(name, value, status, why)
    character(len=*), intent(in) :: name
    integer(c_int), intent(in) :: value
    integer(c_int), intent(inout) :: status
    character(len=:), allocatable, intent(inout) :: why
    if (status /= ACTQ_OK) return
    if (value /= ACTQ_ROUND_STOCHASTIC .and. value /= ACTQ_ROUND_NEAREST) &
      call refuse(status, why, ACTQ_ERR_INVALID_ARGUMENT, name // ' must be ' // &
        'ACTQ_ROUND_STOCHASTIC (0) or ACTQ_ROUND_NEAREST (1), got ' // str(value))
  end subroutine check_rounding

  ! An array whose length the call fixes exactly: "x has 5 elements, the layout needs 6".
  subroutine check_exact(name, got, unit, need, basis, status, why)
    character(len=*), intent(in) :: name, unit, basis
    integer(c_int64_t), intent(in) :: got, need
    integer(c_int), intent(inout) :: status
    character(len=:), allocatable, intent(inout) :: why
    if (status /= ACTQ_OK) return
    if (got /= need) call refuse(status, why, ACTQ_ERR_INVALID_ARGUMENT, &
      name // ' has ' // str(got) // ' ' // unit // ', ' // basis // ' ' // str(need))
  end subroutine check_exact

  ! An output or input buffer that may be longer than needed: "packed has 3 bytes, needs 4",
  ! with what the need comes from in parentheses when given.
  subroutine check_enough(name, got, unit, need, basis, status, why, detail)
    character(len=*), intent(in) :: name, unit, basis
    integer(c_int64_t), intent(in) :: got, need
    integer(c_int), intent(inout) :: status
    character(len=:), allocatable, intent(inout) :: why
    character(len=*), intent(in), optional :: detail
    if (status /= ACTQ_OK) return
    if (got < need) then
      call refuse(status, why, ACTQ_ERR_INVALID_ARGUMENT, &
        name // ' has ' // str(got) // ' ' // unit // ', ' // basis // ' ' // str(need))
      if (present(detail)) why = why // ' (' // detail // ')'
    end if
  end subroutine check_enough

  ! A count passed as a default integer that C takes as size_t: not negative.
  subroutine check_at_least(name, value, least, status, why)
    character(len=*), intent(in) :: name
    integer(c_int64_t), intent(in) :: value, least
    integer(c_int), intent(inout) :: status
    character(len=:), allocatable, intent(inout) :: why
    if (status /= ACTQ_OK) return
    if (value < least) call refuse(status, why, ACTQ_ERR_INVALID_ARGUMENT, &
      name // ' must be >= ' // str(least) // ', got ' // str(value))
  end subroutine check_at_least

  ! Codes to pack: each below 2^bits (bits already checked); uint8 read from int8.
  subroutine check_codes(name, codes, bits, status, why)
    character(len=*), intent(in) :: name
    integer(c_int8_t), intent(in) :: codes(:)
    integer(c_int64_t), intent(in) :: bits
    integer(c_int), intent(inout) :: status
    character(len=:), allocatable, intent(inout) :: why
    integer :: i, code
    if (status /= ACTQ_OK) return
    do i = 1, size(codes)
      code = iand(int(codes(i)), 255)
      if (code >= 2**bits) then
        call refuse(status, why, ACTQ_ERR_INVALID_ARGUMENT, name // '(' // str(int(i, c_int64_t)) // &
          ') = ' // str(int(code, c_int64_t)) // ' is not below 2^bits = ' // str(2_c_int64_t**bits))
        return
      end if
    end do
  end subroutine check_codes

  ! The activation's enum value and its parameter (fewbit.h): SOFTPLUS beta, ELU and CELU
  ! alpha finite and > 0, LEAKY_RELU's slope finite; the others ignore param.
  ! FEWBIT_CUSTOM (20) passes here: it is valid in a table, not in fewbit_table_build.
  subroutine check_activation(name, act, param_name, param, status, why)
    character(len=*), intent(in) :: name, param_name
    integer(c_int), intent(in) :: act
    real(c_float), intent(in) :: param
    integer(c_int), intent(inout) :: status
    character(len=:), allocatable, intent(inout) :: why
    if (status /= ACTQ_OK) return
    if (act < FEWBIT_GELU .or. act > FEWBIT_CUSTOM) then
      call refuse(status, why, ACTQ_ERR_INVALID_ARGUMENT, name // ' must be a fewbit ' // &
                  'activation, FEWBIT_GELU (1)..FEWBIT_CUSTOM (20), got ' // str(act))
    else if (act == FEWBIT_SOFTPLUS .or. act == FEWBIT_ELU .or. act == FEWBIT_CELU) then
      if (.not. positive_finite(real(param, c_double))) &
        call refuse(status, why, ACTQ_ERR_INVALID_ARGUMENT, param_name // ' (' // &
          positive_param(act) // ') must be finite and > 0, got ' // str(param))
    else if (act == FEWBIT_LEAKY_RELU) then
      if (.not. ieee_is_finite(param)) &
        call refuse(status, why, ACTQ_ERR_INVALID_ARGUMENT, param_name // ' (negative ' // &
          'slope of FEWBIT_LEAKY_RELU) must be finite, got ' // str(param))
    end if
  end subroutine check_activation

  function positive_param(act) result(text)
    integer(c_int), intent(in) :: act
    character(len=:), allocatable :: text
    select case (act)
    case (FEWBIT_SOFTPLUS)
      text = 'beta of FEWBIT_SOFTPLUS'
    case (FEWBIT_ELU)
      text = 'alpha of FEWBIT_ELU'
    case default
      text = 'alpha of FEWBIT_CELU'
    end select
  end function positive_param

  ! A table from anywhere (built here, read from a file, another build): what encode and
  ! backward rely on. bounds(0:2^bits-2) strictly increasing without NaN.
  subroutine check_table(name, table, status, why)
    character(len=*), intent(in) :: name
    type(fewbit_table), intent(in) :: table
    integer(c_int), intent(inout) :: status
    character(len=:), allocatable, intent(inout) :: why
    integer :: i
    call check_width(name // '%bits', int(table%bits, c_int64_t), status, why)
    call check_activation(name // '%activation', int(table%activation, c_int), &
                          name // '%param', table%param, status, why)
    if (status /= ACTQ_OK) return
    do i = 0, 2**table%bits - 2
      if (ieee_is_nan(table%bounds(i))) then
        call refuse(status, why, ACTQ_ERR_INVALID_ARGUMENT, name // '%bounds(' // &
                    str(int(i, c_int64_t)) // ') is NaN; bounds must increase strictly')
        return
      end if
      if (i > 0) then
        if (.not. (table%bounds(i) > table%bounds(i - 1))) then
          call refuse(status, why, ACTQ_ERR_INVALID_ARGUMENT, name // '%bounds(' // &
            str(int(i, c_int64_t)) // ') = ' // str(table%bounds(i)) // ' is not above ' // &
            name // '%bounds(' // str(int(i - 1, c_int64_t)) // ') = ' // &
            str(table%bounds(i - 1)) // '; bounds must increase strictly')
          return
        end if
      end if
    end do
  end subroutine check_table

  ! fewbit_options: NORMAL needs finite mean and std > 0 (and mean + 10 std finite),
  ! UNIFORM finite lo < hi (and hi - lo finite); grid 0 or 16..2^20 and at least 2^bits.
  subroutine check_options(name, opt, bits, status, why)
    character(len=*), intent(in) :: name
    type(fewbit_options), intent(in) :: opt
    integer(c_int64_t), intent(in) :: bits
    integer(c_int), intent(inout) :: status
    character(len=:), allocatable, intent(inout) :: why
    if (status /= ACTQ_OK) return
    if (opt%weight == FEWBIT_WEIGHT_NORMAL) then
      if (.not. ieee_is_finite(opt%mean)) then
        call refuse(status, why, ACTQ_ERR_INVALID_ARGUMENT, name // '%mean must be finite, got ' &
                    // str(opt%mean))
      else if (.not. positive_finite(opt%std)) then
        call refuse(status, why, ACTQ_ERR_INVALID_ARGUMENT, name // '%std must be finite ' // &
                    'and > 0, got ' // str(opt%std))
      else if (.not. ieee_is_finite(opt%mean + 10 * opt%std)) then
        call refuse(status, why, ACTQ_ERR_INVALID_ARGUMENT, name // '%mean + 10 ' // name // &
                    '%std must be finite, got ' // str(opt%mean) // ' + 10 * ' // str(opt%std))
      end if
    else if (opt%weight == FEWBIT_WEIGHT_UNIFORM) then
      if (.not. (ieee_is_finite(opt%lo) .and. ieee_is_finite(opt%hi))) then
        call refuse(status, why, ACTQ_ERR_INVALID_ARGUMENT, name // '%lo and ' // name // &
          '%hi must be finite, got ' // str(opt%lo) // ' and ' // str(opt%hi))
      else if (.not. (opt%lo < opt%hi .and. ieee_is_finite(opt%hi - opt%lo))) then
        call refuse(status, why, ACTQ_ERR_INVALID_ARGUMENT, name // '%lo must be below ' // &
          name // '%hi (and hi - lo finite), got ' // str(opt%lo) // ' and ' // str(opt%hi))
      end if
    else
      call refuse(status, why, ACTQ_ERR_INVALID_ARGUMENT, name // '%weight must be ' // &
        'FEWBIT_WEIGHT_NORMAL (0) or FEWBIT_WEIGHT_UNIFORM (1), got ' // str(opt%weight))
    end if
    if (status /= ACTQ_OK) return
    ! grid is a uint32_t: a negative value here is 2^31 or more, past 2^20
    if (opt%grid /= 0 .and. (opt%grid < 16 .or. opt%grid > 2**20)) then
      call refuse(status, why, ACTQ_ERR_INVALID_ARGUMENT, name // '%grid must be 0 (the ' // &
                  'default) or 16..1048576, got ' // str(opt%grid))
    else if (opt%grid /= 0 .and. opt%grid < 2**bits) then
      call refuse(status, why, ACTQ_ERR_INVALID_ARGUMENT, name // '%grid must be at least ' // &
        '2^bits = ' // str(2_c_int64_t**bits) // ' cells, got ' // str(opt%grid))
    end if
  end subroutine check_options

  subroutine check_finite(name, v, status, why)
    character(len=*), intent(in) :: name
    real(c_double), intent(in) :: v(:)
    integer(c_int), intent(inout) :: status
    character(len=:), allocatable, intent(inout) :: why
    integer :: i
    if (status /= ACTQ_OK) return
    do i = 1, size(v)
      if (.not. ieee_is_finite(v(i))) then
        call refuse(status, why, ACTQ_ERR_INVALID_ARGUMENT, name // '(' // str(int(i, c_int64_t)) &
                    // ') = ' // str(v(i)) // ' must be finite')
        return
      end if
    end do
  end subroutine check_finite

  ! Weights (a density) and sensitivities: finite and >= 0 (NaN, negative, Inf refused).
  subroutine check_finite_nonnegative(name, v, status, why)
    character(len=*), intent(in) :: name
    real(c_double), intent(in) :: v(:)
    integer(c_int), intent(inout) :: status
    character(len=:), allocatable, intent(inout) :: why
    integer :: i
    if (status /= ACTQ_OK) return
    do i = 1, size(v)
      if (.not. nonnegative_finite(v(i))) then
        call refuse(status, why, ACTQ_ERR_INVALID_ARGUMENT, name // '(' // str(int(i, c_int64_t)) &
                    // ') = ' // str(v(i)) // ' must be finite and >= 0')
        return
      end if
    end do
  end subroutine check_finite_nonnegative

  ! Sample positions: finite and strictly increasing; the first bad index is named.
  subroutine check_increasing(name, v, status, why)
    character(len=*), intent(in) :: name
    real(c_double), intent(in) :: v(:)
    integer(c_int), intent(inout) :: status
    character(len=:), allocatable, intent(inout) :: why
    integer :: i
    call check_finite(name, v, status, why)
    if (status /= ACTQ_OK) return
    do i = 2, size(v)
      if (.not. (v(i) > v(i - 1))) then
        call refuse(status, why, ACTQ_ERR_INVALID_ARGUMENT, name // '(' // str(int(i, c_int64_t)) &
          // ') = ' // str(v(i)) // ' is not above ' // name // '(' // str(int(i - 1, c_int64_t)) &
          // ') = ' // str(v(i - 1)) // '; ' // name // ' must increase strictly')
        return
      end if
    end do
  end subroutine check_increasing

  ! numel is uint64_t: a negative entry here is 2^63 or more. C refuses a sum past
  ! 2^64/8 (the budget is sum(numel) * 8 bits) with ACTQ_ERR_SIZE_OVERFLOW; so does this.
  subroutine check_numel(name, numel, total, status, why)
    character(len=*), intent(in) :: name
    integer(c_int64_t), intent(in) :: numel(:)
    integer(c_int64_t), intent(out) :: total
    integer(c_int), intent(inout) :: status
    character(len=:), allocatable, intent(inout) :: why
    integer(c_int64_t), parameter :: limit = 2_c_int64_t**61 - 1   ! UINT64_MAX / 8
    integer :: i
    total = 0
    if (status /= ACTQ_OK) return
    do i = 1, size(numel)
      if (numel(i) < 0 .or. numel(i) > limit - total) then
        call refuse(status, why, ACTQ_ERR_SIZE_OVERFLOW, 'the sum of ' // name // ' passes ' // &
          '2^61 at ' // name // '(' // str(int(i, c_int64_t)) // ') = ' // str(numel(i)) // &
          ' (negative: 2^63 or more as uint64)')
        return
      end if
      total = total + numel(i)
    end do
  end subroutine check_numel

  subroutine check_average_bits(name, value, status, why)
    character(len=*), intent(in) :: name
    real(c_double), intent(in) :: value
    integer(c_int), intent(inout) :: status
    character(len=:), allocatable, intent(inout) :: why
    if (status /= ACTQ_OK) return
    if (.not. nonnegative(value)) call refuse(status, why, ACTQ_ERR_INVALID_ARGUMENT, &
      name // ' must be a number >= 0, got ' // str(value))
  end subroutine check_average_bits

  ! Bit b set = width b allowed, b in 1..8: the mask is nonzero within z'1FE'.
  subroutine check_allowed_bits(name, value, status, why)
    character(len=*), intent(in) :: name
    integer(c_int32_t), intent(in) :: value
    integer(c_int), intent(inout) :: status
    character(len=:), allocatable, intent(inout) :: why
    if (status /= ACTQ_OK) return
    if (value == 0) then
      call refuse(status, why, ACTQ_ERR_INVALID_ARGUMENT, name // ' allows no width, got 0; ' // &
                  'set bit b for each allowed width b in 1..8')
    else if (iand(value, not(int(z'1FE', c_int32_t))) /= 0) then
      call refuse(status, why, ACTQ_ERR_INVALID_ARGUMENT, name // ' may set only bits 1..8 ' // &
                  '(widths 1..8), got ' // str(value))
    end if
  end subroutine check_allowed_bits

  subroutine check_method(name, value, status, why)
    character(len=*), intent(in) :: name
    integer(c_int), intent(in) :: value
    integer(c_int), intent(inout) :: status
    character(len=:), allocatable, intent(inout) :: why
    if (status /= ACTQ_OK) return
    if (value /= ACTQ_ALLOC_GREEDY .and. value /= ACTQ_ALLOC_EXACT) &
      call refuse(status, why, ACTQ_ERR_INVALID_ARGUMENT, name // ' must be ' // &
                  'ACTQ_ALLOC_GREEDY (0) or ACTQ_ALLOC_EXACT (1), got ' // str(value))
  end subroutine check_method

  ! Feasible: every item at the smallest allowed width fits, sum(numel) * a0 <=
  ! floor(average_bits * sum(numel)); for an integer a0 and sum(numel) > 0 that is exactly
  ! average_bits >= a0. (allowed_bits already checked.)
  subroutine check_budget(name, average_bits, allowed_bits, total, status, why)
    character(len=*), intent(in) :: name
    real(c_double), intent(in) :: average_bits
    integer(c_int32_t), intent(in) :: allowed_bits
    integer(c_int64_t), intent(in) :: total
    integer(c_int), intent(inout) :: status
    character(len=:), allocatable, intent(inout) :: why
    integer :: smallest
    if (status /= ACTQ_OK .or. total == 0) return
    smallest = trailz(allowed_bits)
    if (average_bits < smallest) call refuse(status, why, ACTQ_ERR_INVALID_ARGUMENT, &
      name // ' = ' // str(average_bits) // ' is below the smallest allowed width ' // &
      str(int(smallest, c_int64_t)) // ': no allocation fits the budget')
  end subroutine check_budget

  ! Tests without an ordered comparison on a NaN.
  pure logical function nonnegative(v)
    real(c_double), intent(in) :: v
    nonnegative = .false.
    if (.not. ieee_is_nan(v)) nonnegative = v >= 0
  end function nonnegative

  pure logical function nonnegative_finite(v)
    real(c_double), intent(in) :: v
    nonnegative_finite = .false.
    if (ieee_is_finite(v)) nonnegative_finite = v >= 0
  end function nonnegative_finite

  pure logical function positive_finite(v)
    real(c_double), intent(in) :: v
    positive_finite = .false.
    if (ieee_is_finite(v)) positive_finite = v > 0
  end function positive_finite

  ! ---- values as text ----
  function str_i64(v) result(text)
    integer(c_int64_t), intent(in) :: v
    character(len=:), allocatable :: text
    character(len=24) :: buf
    write(buf, '(i0)') v
    text = trim(buf)
  end function str_i64

  function str_i32(v) result(text)
    integer(c_int32_t), intent(in) :: v
    character(len=:), allocatable :: text
    text = str_i64(int(v, c_int64_t))
  end function str_i32

  ! The fewest significant digits that read back to v, trailing zeros cut: fixed notation
  ! from 0.001 to 10^7, else scientific ("1.5E-12").
  function str_f64(v) result(text)
    real(c_double), intent(in) :: v
    character(len=:), allocatable :: text
    text = shortest(v, .false.)
  end function str_f64

  function str_f32(v) result(text)
    real(c_float), intent(in) :: v
    character(len=:), allocatable :: text
    text = shortest(real(v, c_double), .true.)
  end function str_f32

  function shortest(v, single) result(text)
    real(c_double), intent(in) :: v
    logical, intent(in) :: single
    character(len=:), allocatable :: text
    real(c_double) :: back
    character(len=48) :: buf
    character(len=16) :: fmt
    integer :: digits
    logical :: fixed
    if (ieee_is_nan(v)) then
      text = 'NaN'
      return
    else if (.not. ieee_is_finite(v)) then
      text = 'Inf'
      if (v < 0) text = '-Inf'
      return
    end if
    fixed = v == 0 .or. (abs(v) >= 1d-3 .and. abs(v) < 1d7)
    do digits = 1, merge(9, 17, single)
      if (fixed) then
        write(fmt, '(a, i0, a)') '(g0.', digits, ')'
      else
        ! es0.0 would print every digit (gfortran): from 2 significant digits
        write(fmt, '(a, i0, a)') '(es0.', max(digits - 1, 1), 'e0)'
      end if
      write(buf, fmt) v
      read(buf, *) back
      if (single) then
        if (real(back, c_float) == real(v, c_float)) exit
      else
        if (back == v) exit
      end if
    end do
    text = tidy(trim(adjustl(buf)))
  end function shortest

  ! "0.500" -> "0.5", "3." -> "3.0", "0.100E+301" -> "0.1E+301".
  function tidy(s) result(text)
    character(len=*), intent(in) :: s
    character(len=:), allocatable :: text, mantissa, exponent
    integer :: e, n
    e = scan(s, 'Ee')
    if (e > 0) then
      mantissa = s(1:e - 1)
      exponent = s(e:)
    else
      mantissa = s
      exponent = ''
    end if
    if (index(mantissa, '.') > 0) then
      n = len(mantissa)
      do while (n > 1 .and. mantissa(n:n) == '0')
        n = n - 1
      end do
      mantissa = mantissa(1:n)
      if (mantissa(n:n) == '.') mantissa = mantissa // '0'
    end if
    text = mantissa // exponent
  end function tidy

end module actq
