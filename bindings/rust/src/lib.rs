//! Safe Rust bindings of libactq: packed low-bit quantization primitives for
//! activation-compressed training (ActNN / GACT group quantization, Few-Bit Backward).
//!
//! ```
//! use actq::{Backend, Context, Layout, Rounding};
//!
//! # fn main() -> Result<(), actq::Error> {
//! let ctx = Context::new(Backend::Cpu)?;
//! let x: Vec<f32> = (0..4096).map(|i| (i as f32).sin()).collect();
//! let layout = Layout::new(16, 256, 64, 2); // 16 rows of 256, groups of 64, 2 bits
//! let sizes = layout.sizes()?;
//! let (mut packed, mut min, mut scale) =
//!     (vec![0u8; sizes.packed_bytes], vec![0f32; sizes.groups], vec![0f32; sizes.groups]);
//! ctx.quantize(&layout, &x, Rounding::Stochastic, 42, 0, &mut packed, &mut min, &mut scale)?;
//! let mut y = vec![0f32; x.len()];
//! ctx.dequantize(&layout, &packed, &min, &scale, &mut y)?;
//! # Ok(())
//! # }
//! ```
//!
//! Build: `build.rs` runs `pkg-config --libs --cflags actq`, so set `PKG_CONFIG_PATH` to
//! `<prefix>/lib/pkgconfig` (and `LD_LIBRARY_PATH` to `<prefix>/lib` to run) for an install
//! outside the system paths. A static libactq.a links with the feature `static` or
//! `ACTQ_STATIC=1` (then `pkg-config --static`). The raw C calls are in [`sys`].
//!
//! Errors: every fallible call returns [`Result`]. The safe calls check their arguments
//! against the contract before C runs and write nothing when one is bad: the [`Error`] is
//! then [`ErrorKind::InvalidArgument`], [`Error::argument`] names the argument and
//! [`Error::detail`] says its value and what is allowed (`bits must be 1..8, got 9`).
//! Errors that C reports (NaN data, a backend not built in, ...) carry no argument.

pub mod sys;

mod alloc;
mod context;
mod error;
mod fewbit;
mod layout;
mod rules;
mod types;

pub use alloc::{allocate_bits, allowed_widths, try_allowed_widths, Allocation};
pub use context::Context;
pub use error::{status_string, Error, ErrorKind, Result};
pub use fewbit::{Options, Table, Weight};
pub use layout::{packed_row_bytes, Layout, Sizes};
pub use types::{Activation, AllocMethod, Backend, Bf16, Dtype, Element, Rounding, F16};

/// The version of the headers this crate mirrors.
pub const VERSION_MAJOR: u32 = sys::ACTQ_VERSION_MAJOR as u32;
pub const VERSION_MINOR: u32 = sys::ACTQ_VERSION_MINOR as u32;
pub const VERSION_PATCH: u32 = sys::ACTQ_VERSION_PATCH as u32;
/// Bumped whenever a byte of the packed format changes.
pub const FORMAT_VERSION: u32 = sys::ACTQ_FORMAT_VERSION as u32;

/// MAJOR * 10000 + MINOR * 100 + PATCH of the library actually loaded.
pub fn version() -> u32 {
    // SAFETY: no arguments, no state.
    unsafe { sys::actq_version() as u32 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{align_of, size_of};

    // The sizes on LP64 targets (x86-64, aarch64 Linux); tests/abi.rs checks every field
    // offset against the C compiler itself.
    #[test]
    #[cfg(target_pointer_width = "64")]
    fn struct_sizes() {
        assert_eq!(size_of::<sys::actq_layout>(), 40);
        assert_eq!(size_of::<sys::fewbit_options>(), 48);
        assert_eq!(size_of::<sys::fewbit_table>(), 2064);
        assert_eq!(align_of::<sys::fewbit_table>(), 8);
        assert_eq!(size_of::<sys::actq_status>(), 4);
    }

    #[test]
    fn the_loaded_library_is_the_mirrored_version() {
        assert_eq!(version(), VERSION_MAJOR * 10000 + VERSION_MINOR * 100 + VERSION_PATCH);
        assert_eq!(sys::ACTQ_VERSION_NUMBER as u32, version());
    }
}
