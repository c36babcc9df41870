//! The argument rules of the C contract (include/actq.h, include/fewbit.h, ABI.md), in one
//! place. Every public entry point of the crate runs the rules of its arguments here before
//! it calls C, so that a bad argument is refused with its name, its value and what is
//! allowed, and no output buffer is touched. The C library validates again: it stays the
//! last line of defence (and the only one for callers of `sys`).
//!
//! Each rule returns `Error::bad_argument(name, message)`, and every message starts with
//! the argument's name, so `argument()` and `detail()` always agree.
use std::fmt::Display;

use crate::error::{Error, Result};
use crate::fewbit::{Options, Weight};
use crate::layout::Layout;
use crate::types::{Activation, Dtype};

/// Code widths: `bits`, `row_bits[r]`, table bits, allowed widths.
pub(crate) const BITS_MIN: u32 = 1;
pub(crate) const BITS_MAX: u32 = 8;
/// `group_size`: a multiple of 8 in 8..=65536 (a group's codes fill whole bytes).
pub(crate) const GROUP_SIZE_STEP: u32 = 8;
pub(crate) const GROUP_SIZE_MAX: u32 = 65536;
/// `threads` is a C `int`: 0 = all online CPUs, negative is invalid.
pub(crate) const THREADS_MAX: u32 = i32::MAX as u32;
/// `Options::grid`: 0 (the library's default) or 16..=2^20 solver cells.
pub(crate) const GRID_MIN: u32 = 16;
pub(crate) const GRID_MAX: u32 = 1 << 20;
/// `allowed_bits`: bit b allows width b, so only bits 1..=8 may be set.
pub(crate) const ALLOWED_BITS_MASK: u32 = 0x1fe;

fn fail<T>(name: &'static str, message: String) -> Result<T> {
    Err(Error::bad_argument(name, message))
}

/// A code width (`bits`, a table's bits, ...).
pub(crate) fn bits(name: &'static str, value: u32) -> Result<()> {
    if (BITS_MIN..=BITS_MAX).contains(&value) {
        Ok(())
    } else {
        fail(name, format!("{} must be {}..{}, got {}", name, BITS_MIN, BITS_MAX, value))
    }
}

pub(crate) fn group_size(value: u32) -> Result<()> {
    if (GROUP_SIZE_STEP..=GROUP_SIZE_MAX).contains(&value) && value % GROUP_SIZE_STEP == 0 {
        Ok(())
    } else {
        fail(
            "group_size",
            format!(
                "group_size must be a multiple of {} in {}..{}, got {}",
                GROUP_SIZE_STEP, GROUP_SIZE_STEP, GROUP_SIZE_MAX, value
            ),
        )
    }
}

/// Per-row widths: one entry per row (C reads `rows` entries, so this is also what keeps
/// the call in bounds), each a valid width.
pub(crate) fn row_bits(rows: usize, widths: &[u8]) -> Result<()> {
    if widths.len() != rows {
        return fail("row_bits", format!("row_bits has {} entries for {} rows", widths.len(), rows));
    }
    match widths.iter().position(|&b| !(BITS_MIN..=BITS_MAX).contains(&(b as u32))) {
        Some(r) => fail(
            "row_bits",
            format!("row_bits[{}] must be {}..{}, got {}", r, BITS_MIN, BITS_MAX, widths[r]),
        ),
        None => Ok(()),
    }
}

/// The element type of the metadata slices must be the layout's `meta_dtype`: C reads and
/// writes them as `meta_dtype`.
pub(crate) fn meta_dtype(layout: Dtype, slices: Dtype) -> Result<()> {
    if layout == slices {
        Ok(())
    } else {
        fail(
            "meta_dtype",
            format!(
                "meta_dtype is {:?}, so group_min and group_scale must hold {:?}, got {:?}",
                layout, layout, slices
            ),
        )
    }
}

pub(crate) fn threads(value: u32) -> Result<()> {
    if value <= THREADS_MAX {
        Ok(())
    } else {
        fail(
            "threads",
            format!("threads must be >= 0 and <= {} (0 = all CPUs), got {}", THREADS_MAX, value),
        )
    }
}

/// A slice that must hold exactly `need` items: "x has 5 elements, the layout needs 6".
/// `by` names what sets the length; a `Display`, so that callers can pass `format_args!`
/// and nothing is formatted unless the rule fails.
pub(crate) fn len(name: &'static str, got: usize, unit: &str, need: usize, by: &dyn Display) -> Result<()> {
    if got == need {
        Ok(())
    } else {
        fail(name, format!("{} has {} {}, {} needs {}", name, got, unit, by, need))
    }
}

/// An output or packed buffer that must hold at least `need` items (longer is fine: only
/// the first `need` are read or written).
pub(crate) fn len_at_least(name: &'static str, got: usize, unit: &str, need: usize, by: &dyn Display) -> Result<()> {
    if got >= need {
        Ok(())
    } else {
        fail(name, format!("{} has {} {}, {} needs at least {}", name, got, unit, by, need))
    }
}

/// A slice sampled at the same points as another one.
pub(crate) fn same_len(name: &'static str, got: usize, other: &str, need: usize) -> Result<()> {
    if got == need {
        Ok(())
    } else {
        fail(name, format!("{} has {} elements, it must have as many as {} ({})", name, got, other, need))
    }
}

/// Codes to pack: each below 2^bits (`bits` already checked). C would refuse them too, but
/// only after writing part of `packed`; checking first keeps the output untouched.
pub(crate) fn codes(bits: u32, codes: &[u8]) -> Result<()> {
    let limit = 1u32 << bits;
    match codes.iter().position(|&c| c as u32 >= limit) {
        Some(i) => fail(
            "codes",
            format!("codes[{}] must be < {} (2^bits, bits = {}), got {}", i, limit, bits, codes[i]),
        ),
        None => Ok(()),
    }
}

/// The activation of `Table::build`: Custom tables come from samples only.
pub(crate) fn activation(act: Activation) -> Result<()> {
    if act == Activation::Custom {
        fail("act", "act must be a built-in activation, got Custom (use Table::build_custom)".to_string())
    } else {
        Ok(())
    }
}

/// The activation's parameter: Softplus beta, ELU/CELU alpha > 0 (finite), LeakyReLU
/// slope finite; the other activations ignore it.
pub(crate) fn param(act: Activation, value: f32) -> Result<()> {
    let (what, ok, allowed) = match act {
        Activation::Softplus => ("beta", value.is_finite() && value > 0.0, "finite and > 0"),
        Activation::Elu | Activation::Celu => ("alpha", value.is_finite() && value > 0.0, "finite and > 0"),
        Activation::LeakyRelu => ("negative slope", value.is_finite(), "finite"),
        _ => return Ok(()),
    };
    if ok {
        Ok(())
    } else {
        fail("param", format!("param ({:?} {}) must be {}, got {}", act, what, allowed, value))
    }
}

/// `fewbit_options` for a table of `bits`: the weight's parameters and the grid.
pub(crate) fn options(opt: &Options, bits: u32) -> Result<()> {
    match opt.weight {
        Weight::Normal { mean, std } => {
            if !mean.is_finite() {
                return fail("mean", format!("mean must be finite, got {}", mean));
            }
            if !(std.is_finite() && std > 0.0) {
                return fail("std", format!("std must be finite and > 0, got {}", std));
            }
            // The solver's domain reaches mean + 10 std; C refuses a domain that overflows.
            if !(mean + 10.0 * std).is_finite() {
                return fail(
                    "std",
                    format!("std must keep mean + 10 std finite (mean = {}), got {}", mean, std),
                );
            }
        }
        Weight::Uniform { lo, hi } => {
            if !lo.is_finite() {
                return fail("lo", format!("lo must be finite, got {}", lo));
            }
            if !hi.is_finite() {
                return fail("hi", format!("hi must be finite, got {}", hi));
            }
            if lo >= hi {
                return fail("hi", format!("hi must be > lo ({}), got {}", lo, hi));
            }
            if !(hi - lo).is_finite() {
                return fail("hi", format!("hi - lo must be finite (lo = {}), got hi = {}", lo, hi));
            }
        }
    }
    let levels = 1u32 << bits.min(BITS_MAX);
    let grid = opt.grid;
    if grid != 0 && (!(GRID_MIN..=GRID_MAX).contains(&grid) || grid < levels) {
        return fail(
            "grid",
            format!(
                "grid must be 0 (the default) or {}..{} and >= 2^bits ({}), got {}",
                GRID_MIN, GRID_MAX, levels, grid
            ),
        );
    }
    Ok(())
}

/// The samples of `Table::build_custom`: x (>= 2 samples, finite, strictly increasing),
/// dydx (finite) and weight (a density: finite, >= 0) at the same points. The first bad
/// index is named.
pub(crate) fn custom_samples(x: &[f64], dydx: &[f64], weight: Option<&[f64]>) -> Result<()> {
    if x.len() < 2 {
        return fail("x", format!("x must have at least 2 samples, got {}", x.len()));
    }
    for i in 0..x.len() {
        if !x[i].is_finite() {
            return fail("x", format!("x[{}] must be finite, got {}", i, x[i]));
        }
        // both finite here, so <= is "not above"
        if i > 0 && x[i] <= x[i - 1] {
            return fail(
                "x",
                format!("x must be strictly increasing: x[{}] = {} is not above x[{}] = {}", i, x[i], i - 1, x[i - 1]),
            );
        }
    }
    same_len("dydx", dydx.len(), "x", x.len())?;
    if let Some(i) = dydx.iter().position(|v| !v.is_finite()) {
        return fail("dydx", format!("dydx[{}] must be finite, got {}", i, dydx[i]));
    }
    if let Some(w) = weight {
        same_len("weight", w.len(), "x", x.len())?;
        if let Some(i) = w.iter().position(|v| !(v.is_finite() && *v >= 0.0)) {
            return fail("weight", format!("weight[{}] must be finite and >= 0, got {}", i, w[i]));
        }
    }
    Ok(())
}

/// A list of widths for `try_allowed_widths`.
pub(crate) fn widths(widths: &[u32]) -> Result<()> {
    if widths.is_empty() {
        return fail("widths", format!("widths must name at least one width in {}..{}, got none", BITS_MIN, BITS_MAX));
    }
    match widths.iter().position(|w| !(BITS_MIN..=BITS_MAX).contains(w)) {
        Some(i) => fail("widths", format!("widths[{}] must be {}..{}, got {}", i, BITS_MIN, BITS_MAX, widths[i])),
        None => Ok(()),
    }
}

/// The widths of an `allowed_bits` mask, smallest first.
fn mask_widths(mask: u32) -> impl Iterator<Item = u32> {
    (BITS_MIN..=BITS_MAX).filter(move |b| mask & (1u32 << b) != 0)
}

/// `actq_allocate_bits`, in the order C checks: lengths, the mask, the budget, each
/// sensitivity, and last the feasibility of the budget.
pub(crate) fn allocation(sensitivity: &[f64], numel: &[u64], average_bits: f64, allowed_bits: u32) -> Result<()> {
    same_len("numel", numel.len(), "sensitivity", sensitivity.len())?;
    if allowed_bits == 0 || allowed_bits & !ALLOWED_BITS_MASK != 0 {
        return fail(
            "allowed_bits",
            format!(
                "allowed_bits must set at least one of bits {}..{} and no other (bit b allows width b, \
                 e.g. 0x{:x} = all), got 0x{:x}",
                BITS_MIN, BITS_MAX, ALLOWED_BITS_MASK, allowed_bits
            ),
        );
    }
    if average_bits.is_nan() || average_bits < 0.0 {
        return fail("average_bits", format!("average_bits must be >= 0 and not NaN, got {}", average_bits));
    }
    if let Some(i) = sensitivity.iter().position(|s| !(s.is_finite() && *s >= 0.0)) {
        return fail("sensitivity", format!("sensitivity[{}] must be finite and >= 0, got {}", i, sensitivity[i]));
    }
    // The budget floor(average_bits * N) fits the smallest width everywhere (min * N, N =
    // sum numel) exactly when average_bits >= min, for N > 0; N = 0 costs nothing.
    let smallest = mask_widths(allowed_bits).next().unwrap_or(BITS_MIN);
    if numel.iter().any(|&n| n != 0) && average_bits < smallest as f64 {
        return fail(
            "average_bits",
            format!(
                "average_bits must be >= the smallest allowed width ({}) for a feasible budget, got {}",
                smallest, average_bits
            ),
        );
    }
    Ok(())
}

/// A layout: its group size, and its one width or its per-row widths (`bits` is ignored
/// when `row_bits` is set, as in C).
pub(crate) fn layout(l: &Layout) -> Result<()> {
    group_size(l.group_size)?;
    match l.row_bits {
        Some(widths) => row_bits(l.rows, widths),
        None => bits("bits", l.bits),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;

    fn refused(r: Result<()>, name: &str, text: &str) {
        let e = r.unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidArgument);
        assert_eq!(e.argument(), Some(name));
        assert_eq!(e.detail(), Some(text));
    }

    #[test]
    fn messages_name_the_argument_its_value_and_the_rule() {
        refused(bits("bits", 9), "bits", "bits must be 1..8, got 9");
        refused(group_size(7), "group_size", "group_size must be a multiple of 8 in 8..65536, got 7");
        refused(row_bits(4, &[1, 2, 3]), "row_bits", "row_bits has 3 entries for 4 rows");
        refused(row_bits(3, &[1, 2, 0]), "row_bits", "row_bits[2] must be 1..8, got 0");
        refused(len("x", 5, "elements", 6, &"the layout"), "x", "x has 5 elements, the layout needs 6");
        refused(codes(2, &[0, 3, 4]), "codes", "codes[2] must be < 4 (2^bits, bits = 2), got 4");
        refused(
            custom_samples(&[0.0, 1.0, 1.0], &[0.0; 3], None),
            "x",
            "x must be strictly increasing: x[2] = 1 is not above x[1] = 1",
        );
    }

    #[test]
    fn the_edges_of_every_range_are_accepted() {
        for b in 1..=8 {
            bits("bits", b).unwrap();
        }
        bits("bits", 0).unwrap_err();
        group_size(8).unwrap();
        group_size(65536).unwrap();
        group_size(65544).unwrap_err();
        group_size(0).unwrap_err();
        threads(0).unwrap();
        threads(i32::MAX as u32).unwrap();
        threads(i32::MAX as u32 + 1).unwrap_err();
        let normal = Options::default();
        options(&Options { grid: 16, ..normal }, 4).unwrap();
        options(&Options { grid: 16, ..normal }, 5).unwrap_err();
        options(&Options { grid: GRID_MAX, ..normal }, 8).unwrap();
        options(&Options { grid: GRID_MAX + 1, ..normal }, 8).unwrap_err();
        allocation(&[1.0], &[10], 2.0, 0x4).unwrap();
        allocation(&[1.0], &[10], 1.99, 0x4).unwrap_err();
        allocation(&[1.0], &[0], 0.0, 0x4).unwrap();
        allocation(&[], &[], 0.0, 0x1fe).unwrap();
    }
}
