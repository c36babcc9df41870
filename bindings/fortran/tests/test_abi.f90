! test_abi.f90 - the module's structs and constants against what the C compiler reports
! (bindings/abi_values.c): sizes, field offsets, every enum value, the version macros; and
! the version of the library actually loaded.
program test_abi
  use, intrinsic :: iso_c_binding
  use actq
  use check
  implicit none

  interface
    integer(c_int64_t) function actq_abi_value(name) bind(c, name='actq_abi_value')
      import :: c_int64_t, c_char
      character(kind=c_char), intent(in) :: name(*)
    end function
  end interface

  type(actq_layout), target :: layout
  type(fewbit_options), target :: options
  type(fewbit_table), target :: table

  call same('actq_layout.size', c_sizeof(layout))
  call same('actq_layout.rows', offset(c_loc(layout), c_loc(layout%rows)))
  call same('actq_layout.cols', offset(c_loc(layout), c_loc(layout%cols)))
  call same('actq_layout.group_size', offset(c_loc(layout), c_loc(layout%group_size)))
  call same('actq_layout.bits', offset(c_loc(layout), c_loc(layout%bits)))
  call same('actq_layout.row_bits', offset(c_loc(layout), c_loc(layout%row_bits)))
  call same('actq_layout.meta_dtype', offset(c_loc(layout), c_loc(layout%meta_dtype)))

  call same('fewbit_options.size', c_sizeof(options))
  call same('fewbit_options.weight', offset(c_loc(options), c_loc(options%weight)))
  call same('fewbit_options.mean', offset(c_loc(options), c_loc(options%mean)))
  call same('fewbit_options.std', offset(c_loc(options), c_loc(options%std)))
  call same('fewbit_options.lo', offset(c_loc(options), c_loc(options%lo)))
  call same('fewbit_options.hi', offset(c_loc(options), c_loc(options%hi)))
  call same('fewbit_options.grid', offset(c_loc(options), c_loc(options%grid)))

  call same('fewbit_table.size', c_sizeof(table))
  call same('fewbit_table.bits', offset(c_loc(table), c_loc(table%bits)))
  call same('fewbit_table.activation', offset(c_loc(table), c_loc(table%activation)))
  call same('fewbit_table.param', offset(c_loc(table), c_loc(table%param)))
  call same('fewbit_table.bounds', offset(c_loc(table), c_loc(table%bounds)))
  call same('fewbit_table.levels', offset(c_loc(table), c_loc(table%levels)))
  call same('fewbit_table.error', offset(c_loc(table), c_loc(table%error)))

  ! The enums are passed as c_int.
  call same('actq_status.size', c_sizeof(ACTQ_OK))
  call same('fewbit_activation.size', c_sizeof(FEWBIT_GELU))

  call same('ACTQ_VERSION_MAJOR', int(ACTQ_VERSION_MAJOR, c_size_t))
  call same('ACTQ_VERSION_MINOR', int(ACTQ_VERSION_MINOR, c_size_t))
  call same('ACTQ_VERSION_PATCH', int(ACTQ_VERSION_PATCH, c_size_t))
  call same('ACTQ_VERSION_NUMBER', int(ACTQ_VERSION_NUMBER, c_size_t))
  call same('ACTQ_FORMAT_VERSION', int(ACTQ_FORMAT_VERSION, c_size_t))
  call same('ACTQ_OK', int(ACTQ_OK, c_size_t))
  call same('ACTQ_ERR_INVALID_ARGUMENT', int(ACTQ_ERR_INVALID_ARGUMENT, c_size_t))
  call same('ACTQ_ERR_UNSUPPORTED', int(ACTQ_ERR_UNSUPPORTED, c_size_t))
  call same('ACTQ_ERR_OUT_OF_MEMORY', int(ACTQ_ERR_OUT_OF_MEMORY, c_size_t))
  call same('ACTQ_ERR_SIZE_OVERFLOW', int(ACTQ_ERR_SIZE_OVERFLOW, c_size_t))
  call same('ACTQ_ERR_NONFINITE', int(ACTQ_ERR_NONFINITE, c_size_t))
  call same('ACTQ_ERR_DEVICE', int(ACTQ_ERR_DEVICE, c_size_t))
  call same('ACTQ_ERR_INTERNAL', int(ACTQ_ERR_INTERNAL, c_size_t))
  call same('ACTQ_BACKEND_CPU_REFERENCE', int(ACTQ_BACKEND_CPU_REFERENCE, c_size_t))
  call same('ACTQ_BACKEND_CPU', int(ACTQ_BACKEND_CPU, c_size_t))
  call same('ACTQ_BACKEND_CUDA', int(ACTQ_BACKEND_CUDA, c_size_t))
  call same('ACTQ_F32', int(ACTQ_F32, c_size_t))
  call same('ACTQ_F16', int(ACTQ_F16, c_size_t))
  call same('ACTQ_BF16', int(ACTQ_BF16, c_size_t))
  call same('ACTQ_ROUND_STOCHASTIC', int(ACTQ_ROUND_STOCHASTIC, c_size_t))
  call same('ACTQ_ROUND_NEAREST', int(ACTQ_ROUND_NEAREST, c_size_t))
  call same('ACTQ_ALLOC_GREEDY', int(ACTQ_ALLOC_GREEDY, c_size_t))
  call same('ACTQ_ALLOC_EXACT', int(ACTQ_ALLOC_EXACT, c_size_t))
  call same('FEWBIT_GELU', int(FEWBIT_GELU, c_size_t))
  call same('FEWBIT_GELU_TANH', int(FEWBIT_GELU_TANH, c_size_t))
  call same('FEWBIT_SILU', int(FEWBIT_SILU, c_size_t))
  call same('FEWBIT_SIGMOID', int(FEWBIT_SIGMOID, c_size_t))
  call same('FEWBIT_TANH', int(FEWBIT_TANH, c_size_t))
  call same('FEWBIT_SOFTPLUS', int(FEWBIT_SOFTPLUS, c_size_t))
  call same('FEWBIT_ELU', int(FEWBIT_ELU, c_size_t))
  call same('FEWBIT_SELU', int(FEWBIT_SELU, c_size_t))
  call same('FEWBIT_CELU', int(FEWBIT_CELU, c_size_t))
  call same('FEWBIT_MISH', int(FEWBIT_MISH, c_size_t))
  call same('FEWBIT_HARDSWISH', int(FEWBIT_HARDSWISH, c_size_t))
  call same('FEWBIT_HARDSIGMOID', int(FEWBIT_HARDSIGMOID, c_size_t))
  call same('FEWBIT_HARDTANH', int(FEWBIT_HARDTANH, c_size_t))
  call same('FEWBIT_SOFTSIGN', int(FEWBIT_SOFTSIGN, c_size_t))
  call same('FEWBIT_LOGSIGMOID', int(FEWBIT_LOGSIGMOID, c_size_t))
  call same('FEWBIT_TANHSHRINK', int(FEWBIT_TANHSHRINK, c_size_t))
  call same('FEWBIT_RELU', int(FEWBIT_RELU, c_size_t))
  call same('FEWBIT_RELU6', int(FEWBIT_RELU6, c_size_t))
  call same('FEWBIT_LEAKY_RELU', int(FEWBIT_LEAKY_RELU, c_size_t))
  call same('FEWBIT_CUSTOM', int(FEWBIT_CUSTOM, c_size_t))
  call same('FEWBIT_WEIGHT_NORMAL', int(FEWBIT_WEIGHT_NORMAL, c_size_t))
  call same('FEWBIT_WEIGHT_UNIFORM', int(FEWBIT_WEIGHT_UNIFORM, c_size_t))

  ! The loaded library is the one these constants describe.
  call expect(actq_version() == ACTQ_VERSION_NUMBER, 'actq_version() equals ACTQ_VERSION_NUMBER')

  call finish('test_abi')

contains

  integer(c_size_t) function offset(base, field)
    type(c_ptr), intent(in) :: base, field
    offset = int(transfer(field, 0_c_intptr_t) - transfer(base, 0_c_intptr_t), c_size_t)
  end function offset

  subroutine same(name, fortran_value)
    character(len=*), intent(in) :: name
    integer(c_size_t), intent(in) :: fortran_value
    integer(c_int64_t) :: c_value
    character(len=96) :: message
    c_value = actq_abi_value(name // c_null_char)
    write(message, '(a, a, i0, a, i0)') name, ': Fortran ', fortran_value, ', C ', c_value
    call expect(c_value >= 0 .and. c_value == fortran_value, trim(message))
  end subroutine same
end program test_abi
