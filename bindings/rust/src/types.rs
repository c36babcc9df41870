//! The enums of the C ABI as Rust enums (converted to their C values at the call), and the
//! element types of data and metadata buffers.
use crate::sys;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// Portable scalar C: the oracle every other backend equals.
    CpuReference,
    /// The fastest instruction set found at run time, threaded.
    Cpu,
    /// Data pointers are device pointers: the slice-taking calls of this crate refuse a CUDA
    /// context; use the `sys` functions with device memory.
    Cuda,
}

impl Backend {
    pub fn raw(self) -> sys::actq_backend {
        match self {
            Backend::CpuReference => sys::ACTQ_BACKEND_CPU_REFERENCE,
            Backend::Cpu => sys::ACTQ_BACKEND_CPU,
            Backend::Cuda => sys::ACTQ_BACKEND_CUDA,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dtype {
    F32,
    F16,
    Bf16,
}

impl Dtype {
    pub fn raw(self) -> sys::actq_dtype {
        match self {
            Dtype::F32 => sys::ACTQ_F32,
            Dtype::F16 => sys::ACTQ_F16,
            Dtype::Bf16 => sys::ACTQ_BF16,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rounding {
    /// Unbiased: floor(t + u), u from Philox4x32-10 keyed by (seed, offset, element).
    Stochastic,
    /// To nearest, ties to even; seed and offset are ignored.
    Nearest,
}

impl Rounding {
    pub fn raw(self) -> sys::actq_rounding {
        match self {
            Rounding::Stochastic => sys::ACTQ_ROUND_STOCHASTIC,
            Rounding::Nearest => sys::ACTQ_ROUND_NEAREST,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AllocMethod {
    Greedy,
    Exact,
}

impl AllocMethod {
    pub fn raw(self) -> sys::actq_alloc_method {
        match self {
            AllocMethod::Greedy => sys::ACTQ_ALLOC_GREEDY,
            AllocMethod::Exact => sys::ACTQ_ALLOC_EXACT,
        }
    }
}

/// The pointwise activations of few-bit backward (`fewbit_activation`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Activation {
    Gelu,
    GeluTanh,
    Silu,
    Sigmoid,
    Tanh,
    /// param: beta > 0
    Softplus,
    /// param: alpha > 0
    Elu,
    Selu,
    /// param: alpha > 0
    Celu,
    Mish,
    Hardswish,
    Hardsigmoid,
    Hardtanh,
    Softsign,
    Logsigmoid,
    Tanhshrink,
    Relu,
    Relu6,
    /// param: negative slope
    LeakyRelu,
    /// A table fitted to samples (`Table::build_custom`); not accepted by `Table::build`.
    Custom,
}

const ACTIVATIONS: [(Activation, sys::fewbit_activation); 20] = [
    (Activation::Gelu, sys::FEWBIT_GELU),
    (Activation::GeluTanh, sys::FEWBIT_GELU_TANH),
    (Activation::Silu, sys::FEWBIT_SILU),
    (Activation::Sigmoid, sys::FEWBIT_SIGMOID),
    (Activation::Tanh, sys::FEWBIT_TANH),
    (Activation::Softplus, sys::FEWBIT_SOFTPLUS),
    (Activation::Elu, sys::FEWBIT_ELU),
    (Activation::Selu, sys::FEWBIT_SELU),
    (Activation::Celu, sys::FEWBIT_CELU),
    (Activation::Mish, sys::FEWBIT_MISH),
    (Activation::Hardswish, sys::FEWBIT_HARDSWISH),
    (Activation::Hardsigmoid, sys::FEWBIT_HARDSIGMOID),
    (Activation::Hardtanh, sys::FEWBIT_HARDTANH),
    (Activation::Softsign, sys::FEWBIT_SOFTSIGN),
    (Activation::Logsigmoid, sys::FEWBIT_LOGSIGMOID),
    (Activation::Tanhshrink, sys::FEWBIT_TANHSHRINK),
    (Activation::Relu, sys::FEWBIT_RELU),
    (Activation::Relu6, sys::FEWBIT_RELU6),
    (Activation::LeakyRelu, sys::FEWBIT_LEAKY_RELU),
    (Activation::Custom, sys::FEWBIT_CUSTOM),
];

impl Activation {
    pub fn raw(self) -> sys::fewbit_activation {
        ACTIVATIONS.iter().find(|(a, _)| *a == self).map(|(_, v)| *v).unwrap()
    }

    /// The activation of a C value, None for a value this binding does not know.
    pub fn from_raw(value: sys::fewbit_activation) -> Option<Activation> {
        ACTIVATIONS.iter().find(|(_, v)| *v == value).map(|(a, _)| *a)
    }

    /// Every activation, in the order of the C enum.
    pub fn all() -> impl Iterator<Item = Activation> {
        ACTIVATIONS.iter().map(|(a, _)| *a)
    }
}

/// An IEEE half-precision value, as its bits (Rust has no f16 type).
#[repr(transparent)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct F16(pub u16);

/// A bfloat16 value, as its bits: the high half of an f32.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Bf16(pub u16);

impl Bf16 {
    /// Truncation is exact for values with at most 8 significant bits; general code
    /// should round, which the library does for its outputs.
    pub fn to_f32(self) -> f32 {
        f32::from_bits((self.0 as u32) << 16)
    }
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for super::F16 {}
    impl Sealed for super::Bf16 {}
}

/// A type the library reads and writes: `f32`, `F16` or `Bf16`.
pub trait Element: sealed::Sealed + Copy {
    const DTYPE: Dtype;
}
impl Element for f32 {
    const DTYPE: Dtype = Dtype::F32;
}
impl Element for F16 {
    const DTYPE: Dtype = Dtype::F16;
}
impl Element for Bf16 {
    const DTYPE: Dtype = Dtype::Bf16;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn activations_round_trip_through_their_c_values() {
        let mut n = 0;
        for (i, a) in Activation::all().enumerate() {
            assert_eq!(a.raw(), i as i32 + 1, "{:?}", a);
            assert_eq!(Activation::from_raw(a.raw()), Some(a));
            n += 1;
        }
        assert_eq!(n, 20);
        assert_eq!(Activation::from_raw(0), None);
        assert_eq!(Activation::from_raw(21), None);
    }

    #[test]
    fn element_sizes_match_their_dtypes() {
        assert_eq!(std::mem::size_of::<F16>(), 2);
        assert_eq!(std::mem::size_of::<Bf16>(), 2);
        assert_eq!(<F16 as Element>::DTYPE.raw(), sys::ACTQ_F16);
        assert_eq!(<Bf16 as Element>::DTYPE.raw(), sys::ACTQ_BF16);
        assert_eq!(Bf16(0x3fc0).to_f32(), 1.5);
    }
}
