//! Few-bit backward tables (`fewbit_table`): the optimal piecewise-constant approximation
//! of an activation's derivative. Encode and backward run on a `Context`.
use std::mem::MaybeUninit;
use std::ptr;

use crate::error::{check, Result};
use crate::rules;
use crate::sys;
use crate::types::Activation;

/// The weight of the objective: a normal density of the inputs, or 1 on an interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Weight {
    Normal { mean: f64, std: f64 },
    Uniform { lo: f64, hi: f64 },
}

/// `fewbit_options`. The default is what NULL options mean: inputs N(0, 1), default grid.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Options {
    pub weight: Weight,
    /// Solver cells, 16..=2^20 and >= 2^bits; 0 = the library's default.
    pub grid: u32,
}

impl Default for Options {
    fn default() -> Options {
        Options { weight: Weight::Normal { mean: 0.0, std: 1.0 }, grid: 0 }
    }
}

impl Options {
    pub fn to_raw(&self) -> sys::fewbit_options {
        let mut raw = sys::fewbit_options {
            weight: sys::FEWBIT_WEIGHT_NORMAL,
            mean: 0.0,
            std: 1.0,
            lo: 0.0,
            hi: 0.0,
            grid: self.grid,
        };
        match self.weight {
            Weight::Normal { mean, std } => {
                raw.mean = mean;
                raw.std = std;
            }
            Weight::Uniform { lo, hi } => {
                raw.weight = sys::FEWBIT_WEIGHT_UNIFORM;
                raw.lo = lo;
                raw.hi = hi;
            }
        }
        raw
    }
}

/// A built table (2 KiB, boxed). Host memory on every backend.
#[derive(Clone)]
pub struct Table {
    raw: Box<sys::fewbit_table>,
}

impl std::fmt::Debug for Table {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Table")
            .field("bits", &self.bits())
            .field("activation", &self.activation())
            .field("param", &self.param())
            .field("bounds", &self.bounds())
            .field("levels", &self.levels())
            .field("error", &self.error())
            .finish()
    }
}

fn built(fill: impl FnOnce(*mut sys::fewbit_table) -> sys::actq_status) -> Result<Table> {
    let mut raw: Box<MaybeUninit<sys::fewbit_table>> = Box::new(MaybeUninit::uninit());
    check(fill(raw.as_mut_ptr()))?;
    // SAFETY: the library wrote the whole table on success.
    let raw = unsafe { Box::from_raw(Box::into_raw(raw) as *mut sys::fewbit_table) };
    Ok(Table { raw })
}

impl Table {
    /// `fewbit_table_build`: the globally optimal table of `bits` (1..=8) for `act`
    /// (`param`: Softplus beta, ELU/CELU alpha, LeakyReLU slope; ignored otherwise).
    /// `options` None = inputs N(0, 1).
    pub fn build(act: Activation, param: f32, bits: u32, options: Option<&Options>) -> Result<Table> {
        rules::activation(act)?;
        rules::param(act, param)?;
        rules::bits("bits", bits)?;
        if let Some(options) = options {
            rules::options(options, bits)?;
        }
        let raw_options = options.map(Options::to_raw);
        let opt_ptr = match &raw_options {
            Some(o) => o as *const sys::fewbit_options,
            None => ptr::null(),
        };
        // SAFETY: opt_ptr is null or points at options alive for the call.
        built(|t| unsafe { sys::fewbit_table_build(act.raw(), param, bits, opt_ptr, t) })
    }

    /// `fewbit_table_build_custom`: a table for sampled data; `x` strictly increasing (at
    /// least 2 samples, finite), `dydx` (finite) and `weight` (a density: finite, >= 0;
    /// None = 1) of the same length.
    pub fn build_custom(x: &[f64], dydx: &[f64], weight: Option<&[f64]>, bits: u32) -> Result<Table> {
        rules::bits("bits", bits)?;
        rules::custom_samples(x, dydx, weight)?;
        let w_ptr = weight.map_or(ptr::null(), |w| w.as_ptr());
        // SAFETY: x, dydx and weight (or null) hold x.len() samples, checked above.
        built(|t| unsafe {
            sys::fewbit_table_build_custom(x.len(), x.as_ptr(), dydx.as_ptr(), w_ptr, bits, t)
        })
    }

    pub fn bits(&self) -> u32 {
        self.raw.bits
    }

    /// None for a value this binding does not know.
    pub fn activation(&self) -> Option<Activation> {
        Activation::from_raw(self.raw.activation as i32)
    }

    pub fn param(&self) -> f32 {
        self.raw.param
    }

    /// The 2^bits - 1 increasing inner borders: code k means bounds[k-1] < x <= bounds[k].
    pub fn bounds(&self) -> &[f32] {
        &self.raw.bounds[..(1usize << self.raw.bits) - 1]
    }

    /// The 2^bits derivative levels, one per code.
    pub fn levels(&self) -> &[f32] {
        &self.raw.levels[..1usize << self.raw.bits]
    }

    /// The objective the table reaches: integral of (f' - q)^2 w.
    pub fn error(&self) -> f64 {
        self.raw.error
    }

    /// The code of one value: the number of bounds strictly below it (NaN: 0).
    pub fn code_of(&self, x: f32) -> u8 {
        self.bounds().iter().filter(|b| **b < x).count() as u8
    }

    pub fn as_raw(&self) -> &sys::fewbit_table {
        &self.raw
    }
}
