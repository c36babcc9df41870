//! `actq_layout`: how a tensor is cut into groups, and the sizes of its packed form.
use std::ptr;

use crate::error::{check, Error, Result};
use crate::rules;
use crate::sys;
use crate::types::Dtype;

/// A tensor of `rows` x `cols` (row-major; a group never spans two rows), groups of
/// `group_size` elements, `bits` per element or one width per row, metadata in `meta_dtype`.
#[derive(Clone, Copy, Debug)]
pub struct Layout<'a> {
    pub rows: usize,
    pub cols: usize,
    /// A multiple of 8 in 8..=65536.
    pub group_size: u32,
    /// 1..=8; ignored when `row_bits` is set.
    pub bits: u32,
    /// One width per row (per-sample mixed precision), each 1..=8.
    pub row_bits: Option<&'a [u8]>,
    pub meta_dtype: Dtype,
}

/// The buffer sizes of a layout: bytes of the packed stream, and entries of each of the
/// two metadata arrays (group minimum, group scale).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sizes {
    pub packed_bytes: usize,
    pub groups: usize,
}

impl<'a> Layout<'a> {
    /// One width for every row, f32 metadata.
    pub fn new(rows: usize, cols: usize, group_size: u32, bits: u32) -> Layout<'static> {
        Layout { rows, cols, group_size, bits, row_bits: None, meta_dtype: Dtype::F32 }
    }

    pub fn with_meta_dtype(self, meta_dtype: Dtype) -> Layout<'a> {
        Layout { meta_dtype, ..self }
    }

    /// One width per row; `row_bits.len()` must equal `rows` (checked at every call).
    pub fn with_row_bits<'b>(self, row_bits: &'b [u8]) -> Layout<'b> {
        Layout {
            rows: self.rows,
            cols: self.cols,
            group_size: self.group_size,
            bits: self.bits,
            row_bits: Some(row_bits),
            meta_dtype: self.meta_dtype,
        }
    }

    /// rows * cols; an error when it overflows.
    pub fn elements(&self) -> Result<usize> {
        self.rows.checked_mul(self.cols).ok_or_else(|| {
            Error::from_status(sys::ACTQ_ERR_SIZE_OVERFLOW)
        })
    }

    /// The C struct, after checking the layout's rules (`group_size`, `bits` or `row_bits`:
    /// its length and each width). It borrows `row_bits`, so it must not outlive `self`.
    pub fn to_raw(&self) -> Result<sys::actq_layout> {
        rules::layout(self)?;
        Ok(sys::actq_layout {
            rows: self.rows,
            cols: self.cols,
            group_size: self.group_size,
            bits: self.bits,
            row_bits: self.row_bits.map_or(ptr::null(), |w| w.as_ptr()),
            meta_dtype: self.meta_dtype.raw(),
        })
    }

    /// `actq_layout_sizes`, once the layout's rules hold (`to_raw`). A layout too large to
    /// address is `ErrorKind::SizeOverflow`.
    pub fn sizes(&self) -> Result<Sizes> {
        let raw = self.to_raw()?;
        let mut sizes = Sizes { packed_bytes: 0, groups: 0 };
        // SAFETY: raw is a valid layout whose row_bits (if any) has `rows` entries.
        check(unsafe { sys::actq_layout_sizes(&raw, &mut sizes.packed_bytes, &mut sizes.groups) })?;
        Ok(sizes)
    }
}

/// Bytes of one packed row of n codes of `bits` each (`actq_pack`), or None when that
/// overflows.
pub fn packed_row_bytes(n: usize, bits: u32) -> Option<usize> {
    n.checked_mul(bits as usize).and_then(|b| b.checked_add(7)).map(|b| b / 8)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;

    #[test]
    fn sizes_follow_the_format() {
        // 3 rows of 100 at 3 bits: ceil(300 / 8) = 38 bytes a row; ceil(100 / 32) = 4 groups
        let s = Layout::new(3, 100, 32, 3).sizes().unwrap();
        assert_eq!(s, Sizes { packed_bytes: 3 * 38, groups: 12 });
        let widths = [1u8, 8];
        let s = Layout::new(2, 10, 8, 0).with_row_bits(&widths).sizes().unwrap();
        assert_eq!(s, Sizes { packed_bytes: 2 + 10, groups: 4 });
    }

    #[test]
    fn invalid_layouts_are_refused() {
        assert_eq!(Layout::new(2, 10, 12, 2).sizes().unwrap_err().kind(), ErrorKind::InvalidArgument);
        assert_eq!(Layout::new(2, 10, 8, 9).sizes().unwrap_err().kind(), ErrorKind::InvalidArgument);
        let widths = [2u8];
        let e = Layout::new(2, 10, 8, 0).with_row_bits(&widths).sizes().unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidArgument);
        assert_eq!(e.detail(), Some("row_bits has 1 entries for 2 rows"));
        let e = Layout::new(usize::MAX, usize::MAX, 8, 8).sizes().unwrap_err();
        assert_eq!(e.kind(), ErrorKind::SizeOverflow);
    }

    #[test]
    fn packed_row_bytes_rounds_up() {
        assert_eq!(packed_row_bytes(5, 2), Some(2));
        assert_eq!(packed_row_bytes(8, 1), Some(1));
        assert_eq!(packed_row_bytes(usize::MAX, 2), None);
    }
}
