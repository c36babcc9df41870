! golden.f90 - the golden case "f32_b2_stochastic", copied from tests/golden/golden_vectors.h
! (computed there from docs/format.md with exact rational arithmetic, independently of the
! library): 2 rows of 21 float32 values, groups of 8, 2 bits, float32 metadata, stochastic
! rounding with seed 0x0123456789ABCDEF and offset 0xFEDCBA9876543212. Values are the bit
! patterns of the floats; in Fortran order x(21, 2).
module golden
  use, intrinsic :: iso_c_binding
  implicit none
  integer, parameter :: golden_cols = 21, golden_rows = 2, golden_group = 8, golden_bits = 2
  integer(c_int64_t), parameter :: golden_seed = int(z'0123456789ABCDEF', c_int64_t)
  integer(c_int64_t), parameter :: golden_offset = int(z'FEDCBA9876543212', c_int64_t)
  integer(c_int32_t), parameter :: golden_x(42) = [ &
    int(z'3FA00000', c_int32_t), int(z'40584DA1', c_int32_t), int(z'40C30A2C', c_int32_t), &
    int(z'40820142', c_int32_t), int(z'C06E51F3', c_int32_t), int(z'3FBB610A', c_int32_t), &
    int(z'C00C4456', c_int32_t), int(z'BFB48F03', c_int32_t), int(z'3F3EF2A4', c_int32_t), &
    int(z'4140F86A', c_int32_t), int(z'BF1DEC9D', c_int32_t), int(z'3FA00000', c_int32_t), &
    int(z'406174B5', c_int32_t), int(z'3F913078', c_int32_t), int(z'41154802', c_int32_t), &
    int(z'3F09F7E9', c_int32_t), int(z'BDBC4681', c_int32_t), int(z'401493C8', c_int32_t), &
    int(z'3FD568F2', c_int32_t), int(z'BF09C986', c_int32_t), int(z'400DC36F', c_int32_t), &
    int(z'3E4744AE', c_int32_t), int(z'3FA00000', c_int32_t), int(z'3F0C5ED9', c_int32_t), &
    int(z'410D935E', c_int32_t), int(z'3E5242FD', c_int32_t), int(z'BE7E5C47', c_int32_t), &
    int(z'C0546211', c_int32_t), int(z'C08A2F12', c_int32_t), int(z'BF4F9564', c_int32_t), &
    int(z'3EB6A097', c_int32_t), int(z'40037FC5', c_int32_t), int(z'4096734D', c_int32_t), &
    int(z'3FA00000', c_int32_t), int(z'40AC78E0', c_int32_t), int(z'3E8D17A5', c_int32_t), &
    int(z'3F7D09C3', c_int32_t), int(z'4013AE6B', c_int32_t), int(z'3FEEEA83', c_int32_t), &
    int(z'3FA730EE', c_int32_t), int(z'3FAEF8A8', c_int32_t), int(z'BFF08B78', c_int32_t)]
  integer(c_int8_t), parameter :: golden_packed(12) = [ &
    int(z'B9', c_int8_t), int(z'58', c_int8_t), int(z'0C', c_int8_t), int(z'61', c_int8_t), &
    int(z'2D', c_int8_t), int(z'03', c_int8_t), int(z'D5', c_int8_t), int(z'05', c_int8_t), int(z'E0', c_int8_t), &
    int(z'4D', c_int8_t), int(z'AF', c_int8_t), int(z'00', c_int8_t)]
  integer(c_int32_t), parameter :: golden_min(6) = [ &
    int(z'C06E51F3', c_int32_t), int(z'BF1DEC9D', c_int32_t), int(z'BF09C986', c_int32_t), &
    int(z'C08A2F12', c_int32_t), int(z'BF4F9564', c_int32_t), int(z'BFF08B78', c_int32_t)]
  integer(c_int32_t), parameter :: golden_scale(6) = [ &
    int(z'4051776F', c_int32_t), int(z'40873A23', c_int32_t), int(z'3F740838', c_int32_t), &
    int(z'408C71F0', c_int32_t), int(z'400447B3', c_int32_t), int(z'3FB2A2C5', c_int32_t)]
  integer(c_int32_t), parameter :: golden_y(42) = [ &
    int(z'BEE6D420', c_int32_t), int(z'40349CEB', c_int32_t), int(z'40C30A2D', c_int32_t), &
    int(z'40349CEB', c_int32_t), int(z'C06E51F3', c_int32_t), int(z'40349CEB', c_int32_t), &
    int(z'BEE6D420', c_int32_t), int(z'BEE6D420', c_int32_t), int(z'BF1DEC9D', c_int32_t), &
    int(z'4140F86B', c_int32_t), int(z'BF1DEC9D', c_int32_t), int(z'BF1DEC9D', c_int32_t), &
    int(z'4066F91F', c_int32_t), int(z'BF1DEC9D', c_int32_t), int(z'40FAB6B2', c_int32_t), &
    int(z'4066F91F', c_int32_t), int(z'3ED47D64', c_int32_t), int(z'401493C8', c_int32_t), &
    int(z'3FAF2375', c_int32_t), int(z'BF09C986', c_int32_t), int(z'401493C8', c_int32_t), &
    int(z'3D90B780', c_int32_t), int(z'3D90B780', c_int32_t), int(z'3D90B780', c_int32_t), &
    int(z'410D935F', c_int32_t), int(z'3D90B780', c_int32_t), int(z'3D90B780', c_int32_t), &
    int(z'C08A2F12', c_int32_t), int(z'C08A2F12', c_int32_t), int(z'BF4F9564', c_int32_t), &
    int(z'BF4F9564', c_int32_t), int(z'4054AA0D', c_int32_t), int(z'40AC78E0', c_int32_t), &
    int(z'3FA0C4B4', c_int32_t), int(z'40AC78E0', c_int32_t), int(z'BF4F9564', c_int32_t), &
    int(z'3FA0C4B4', c_int32_t), int(z'4013AE6C', c_int32_t), int(z'4013AE6C', c_int32_t), &
    int(z'3F697424', c_int32_t), int(z'3F697424', c_int32_t), int(z'BFF08B78', c_int32_t)]
end module golden
