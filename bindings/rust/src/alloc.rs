//! Mixed-precision bit allocation (`actq_allocate_bits`): ActNN's per-sample or per-layer
//! and GACT's per-tensor choice of widths under a bit budget.
use std::ptr;

use crate::error::{check, Result};
use crate::rules;
use crate::sys;
use crate::types::AllocMethod;

/// The widths chosen and the objective sum_i sensitivity[i] / (2^bits[i] - 1)^2 they reach.
#[derive(Clone, Debug, PartialEq)]
pub struct Allocation {
    pub bits: Vec<u8>,
    pub objective: f64,
}

/// The `allowed_bits` mask of a set of widths: bit b set = width b allowed (b in 1..=8).
/// A width outside 1..=8 still sets a bit (bit 0 for widths of 32 and more), so that the
/// library refuses the mask instead of the width being dropped silently.
/// `try_allowed_widths` names a bad width instead.
pub fn allowed_widths(widths: &[u32]) -> u32 {
    widths.iter().fold(0u32, |mask, &w| mask | if w < 32 { 1u32 << w } else { 1 })
}

/// The `allowed_bits` mask of a set of widths, or the error that names the first width
/// outside 1..=8 (`widths[i] must be 1..8, got 0`) or an empty set.
pub fn try_allowed_widths(widths: &[u32]) -> Result<u32> {
    rules::widths(widths)?;
    Ok(allowed_widths(widths))
}

/// Chooses a width per item, among `allowed_bits`, minimizing the objective subject to
/// sum numel[i] * bits[i] <= average_bits * sum numel[i]. `Exact` may return
/// `ErrorKind::Unsupported` on instances beyond its work limit (then use `Greedy`).
/// Refused before C runs: `numel` and `sensitivity` of different lengths, an
/// `allowed_bits` with no width or a bit outside 1..=8, `average_bits` NaN or negative, a
/// sensitivity NaN, negative or infinite, and an infeasible budget (`average_bits` below
/// the smallest allowed width while some numel is not 0).
pub fn allocate_bits(
    sensitivity: &[f64],
    numel: &[u64],
    average_bits: f64,
    allowed_bits: u32,
    method: AllocMethod,
) -> Result<Allocation> {
    rules::allocation(sensitivity, numel, average_bits, allowed_bits)?;
    let mut bits = vec![0u8; sensitivity.len()];
    let mut objective = 0.0f64;
    let m = sensitivity.len();
    let (s, n, b) = if m == 0 {
        (ptr::null(), ptr::null(), ptr::null_mut())
    } else {
        (sensitivity.as_ptr(), numel.as_ptr(), bits.as_mut_ptr())
    };
    // SAFETY: the three arrays hold m items, checked above.
    check(unsafe {
        sys::actq_allocate_bits(m, s, n, average_bits, allowed_bits, method.raw(), b, &mut objective)
    })?;
    Ok(Allocation { bits, objective })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks() {
        assert_eq!(allowed_widths(&[1, 2, 3, 4, 5, 6, 7, 8]), 0x1fe);
        assert_eq!(allowed_widths(&[1, 2, 4, 8]), 0x116);
        assert_eq!(allowed_widths(&[]), 0);
        assert_ne!(allowed_widths(&[40]), 0, "an impossible width stays visible");
        assert_eq!(try_allowed_widths(&[1, 2, 4, 8]), Ok(0x116));
        assert_eq!(try_allowed_widths(&[2, 40]).unwrap_err().detail(), Some("widths[1] must be 1..8, got 40"));
        assert_eq!(try_allowed_widths(&[]).unwrap_err().argument(), Some("widths"));
    }
}
