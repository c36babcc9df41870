//! `actq_context` and the calls that run on one: quantize, dequantize, pack, unpack,
//! few-bit encode and backward. Every slice is checked for length before C is called.
use std::ffi::CStr;
use std::os::raw::c_void;
use std::ptr::{self, NonNull};

use crate::error::{check, Error, Result};
use crate::fewbit::Table;
use crate::layout::{packed_row_bytes, Layout};
use crate::rules;
use crate::sys;
use crate::types::{Activation, Backend, Element, Rounding};

/// A backend instance. It owns its threads (CPU) or stream (CUDA) and is destroyed on drop.
///
/// The contract allows one thread at a time per context, and independent contexts on
/// different threads: so a `Context` is `Send` (it may move to another thread) but not
/// `Sync` (it cannot be shared between threads). For several threads, make one each.
///
/// ```
/// fn needs_send<T: Send>() {}
/// needs_send::<actq::Context>();
/// ```
/// ```compile_fail
/// fn needs_sync<T: Sync>() {}
/// needs_sync::<actq::Context>();
/// ```
///
/// The slice-taking calls work on host memory, so they refuse a CUDA context
/// (`ErrorKind::Unsupported`); with CUDA, call the `sys` functions on device pointers,
/// from the thread whose current device created the context.
pub struct Context {
    raw: NonNull<sys::actq_context>,
    backend: Backend,
}

// SAFETY: a context may be used from any thread, one thread at a time (ABI.md section 2);
// `Context` is not Sync (NonNull is not), so two threads never use it at once.
unsafe impl Send for Context {}

impl Drop for Context {
    fn drop(&mut self) {
        // SAFETY: raw came from actq_context_create and is destroyed once.
        unsafe { sys::actq_context_destroy(self.raw.as_ptr()) }
    }
}

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context").field("backend", &self.backend).finish()
    }
}

impl Context {
    /// `actq_context_create`. A backend that is not built in, or CUDA without a usable
    /// device, is `ErrorKind::Unsupported`.
    pub fn new(backend: Backend) -> Result<Context> {
        let mut raw = ptr::null_mut();
        // SAFETY: raw is a valid out pointer.
        check(unsafe { sys::actq_context_create(backend.raw(), &mut raw) })?;
        match NonNull::new(raw) {
            Some(raw) => Ok(Context { raw, backend }),
            None => Err(Error::from_status(sys::ACTQ_ERR_INTERNAL)),
        }
    }

    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// The raw pointer, for the `sys` functions. It stays owned by this context.
    pub fn as_ptr(&self) -> *mut sys::actq_context {
        self.raw.as_ptr()
    }

    /// What the context runs on, e.g. "cpu avx2, 2 threads".
    pub fn describe(&self) -> String {
        // SAFETY: the string is valid until the next call on the context; it is copied
        // before any other call can happen (the context is not Sync).
        unsafe { CStr::from_ptr(sys::actq_context_describe(self.raw.as_ptr())) }
            .to_string_lossy()
            .into_owned()
    }

    /// CPU backends: 0 = all online CPUs (the default), at most `i32::MAX` (C takes an
    /// `int`). Results do not depend on it.
    pub fn set_threads(&mut self, threads: u32) -> Result<()> {
        rules::threads(threads)?;
        // SAFETY: a valid context.
        check(unsafe { sys::actq_context_set_threads(self.raw.as_ptr(), threads as i32) })
    }

    /// CUDA: the stream to queue work on (a `cudaStream_t`; null = the legacy default
    /// stream). CPU: `ErrorKind::Unsupported`.
    ///
    /// # Safety
    /// `stream` must be null or a live CUDA stream of the context's device, alive for as
    /// long as the context uses it.
    pub unsafe fn set_stream(&mut self, stream: *mut c_void) -> Result<()> {
        check(sys::actq_context_set_stream(self.raw.as_ptr(), stream))
    }

    /// Waits for the context's work; returns (and clears) the first deferred error.
    pub fn synchronize(&mut self) -> Result<()> {
        // SAFETY: a valid context.
        check(unsafe { sys::actq_context_synchronize(self.raw.as_ptr()) })
    }

    /// The checks quantize and dequantize share: host memory, the layout's rules, metadata
    /// slices of the layout's meta_dtype, the data slice (name, length) of exactly rows * cols
    /// elements, and packed and metadata slices of at least what the layout needs. The
    /// buffer sizes come from `actq_layout_sizes`, a query that writes nothing, so that the
    /// format's size formula lives in one place. Returns the C layout.
    fn quantized_buffers<M: Element>(
        &self,
        layout: &Layout,
        data: (&'static str, usize),
        packed_len: usize,
        min_len: usize,
        scale_len: usize,
    ) -> Result<sys::actq_layout> {
        self.host_memory()?;
        let raw = layout.to_raw()?;
        rules::meta_dtype(layout.meta_dtype, M::DTYPE)?;
        let sizes = layout.sizes()?;
        rules::len(data.0, data.1, "elements", layout.elements()?, &"the layout")?;
        rules::len_at_least("packed", packed_len, "bytes", sizes.packed_bytes, &"the layout")?;
        rules::len_at_least("group_min", min_len, "elements", sizes.groups, &"the layout")?;
        rules::len_at_least("group_scale", scale_len, "elements", sizes.groups, &"the layout")?;
        Ok(raw)
    }

    fn host_memory(&self) -> Result<()> {
        if self.backend == Backend::Cuda {
            Err(Error::unsupported(None, "a CUDA context takes device pointers: use actq::sys".to_string()))
        } else {
            Ok(())
        }
    }

    /// Quantizes `x` (exactly rows * cols elements, row-major) group by group: codes into
    /// `packed` (at least `layout.sizes()?.packed_bytes` bytes), each group's minimum and
    /// scale into `group_min` and `group_scale` (at least `groups` entries of the element
    /// type matching `layout.meta_dtype`). `ErrorKind::NonFinite` means the groups holding
    /// NaN or Inf stored NaN metadata and every other group was quantized.
    #[allow(clippy::too_many_arguments)]
    pub fn quantize<T: Element, M: Element>(
        &self,
        layout: &Layout,
        x: &[T],
        rounding: Rounding,
        seed: u64,
        offset: u64,
        packed: &mut [u8],
        group_min: &mut [M],
        group_scale: &mut [M],
    ) -> Result<()> {
        let raw = self.quantized_buffers::<M>(
            layout,
            ("x", x.len()),
            packed.len(),
            group_min.len(),
            group_scale.len(),
        )?;
        // SAFETY: every buffer holds what the layout needs, checked above.
        check(unsafe {
            sys::actq_quantize(
                self.raw.as_ptr(),
                &raw,
                T::DTYPE.raw(),
                x.as_ptr() as *const c_void,
                rounding.raw(),
                seed,
                offset,
                packed.as_mut_ptr() as *mut c_void,
                group_min.as_mut_ptr() as *mut c_void,
                group_scale.as_mut_ptr() as *mut c_void,
            )
        })
    }

    /// y = fma(code, scale, min) in f32, rounded to `T`; `y` has exactly rows * cols
    /// elements.
    pub fn dequantize<T: Element, M: Element>(
        &self,
        layout: &Layout,
        packed: &[u8],
        group_min: &[M],
        group_scale: &[M],
        y: &mut [T],
    ) -> Result<()> {
        let raw = self.quantized_buffers::<M>(
            layout,
            ("y", y.len()),
            packed.len(),
            group_min.len(),
            group_scale.len(),
        )?;
        // SAFETY: every buffer holds what the layout needs, checked above.
        check(unsafe {
            sys::actq_dequantize(
                self.raw.as_ptr(),
                &raw,
                packed.as_ptr() as *const c_void,
                group_min.as_ptr() as *const c_void,
                group_scale.as_ptr() as *const c_void,
                T::DTYPE.raw(),
                y.as_mut_ptr() as *mut c_void,
            )
        })
    }

    /// A packed row of `n` codes of `bits` each: the width, then the buffer `name` of at
    /// least ceil(n * bits / 8) bytes.
    fn packed_row(name: &'static str, n: usize, bits: u32, have: usize) -> Result<()> {
        rules::bits("bits", bits)?;
        let need = packed_row_bytes(n, bits).ok_or_else(|| Error::from_status(sys::ACTQ_ERR_SIZE_OVERFLOW))?;
        rules::len_at_least(name, have, "bytes", need, &format_args!("a row of {} codes of {} bits", n, bits))
    }

    /// One packed row of `codes.len()` codes; `packed` needs ceil(len * bits / 8) bytes.
    /// A code >= 2^bits is `ErrorKind::InvalidArgument` (refused before anything is written).
    pub fn pack(&self, bits: u32, codes: &[u8], packed: &mut [u8]) -> Result<()> {
        self.host_memory()?;
        Self::packed_row("packed", codes.len(), bits, packed.len())?;
        rules::codes(bits, codes)?;
        // SAFETY: packed holds the row, checked above.
        check(unsafe {
            sys::actq_pack(self.raw.as_ptr(), bits, codes.len(), codes.as_ptr(),
                           packed.as_mut_ptr() as *mut c_void)
        })
    }

    /// The `codes.len()` codes of one packed row of ceil(len * bits / 8) bytes or more.
    pub fn unpack(&self, bits: u32, packed: &[u8], codes: &mut [u8]) -> Result<()> {
        self.host_memory()?;
        Self::packed_row("packed", codes.len(), bits, packed.len())?;
        // SAFETY: packed holds the row, checked above.
        check(unsafe {
            sys::actq_unpack(self.raw.as_ptr(), bits, codes.len(),
                             packed.as_ptr() as *const c_void, codes.as_mut_ptr())
        })
    }

    /// Few-bit forward: the packed codes of `x` (ceil(len * table.bits() / 8) bytes) and,
    /// when `y` is given (as long as `x`), y = f(x). `y` with a Custom table is
    /// `ErrorKind::Unsupported`: f itself is not known.
    pub fn fewbit_encode<T: Element>(
        &self,
        table: &Table,
        x: &[T],
        y: Option<&mut [T]>,
        codes: &mut [u8],
    ) -> Result<()> {
        self.host_memory()?;
        Self::packed_row("codes", x.len(), table.bits(), codes.len())?;
        let y_ptr = match y {
            Some(y) => {
                rules::same_len("y", y.len(), "x", x.len())?;
                if table.activation() == Some(Activation::Custom) {
                    return Err(Error::unsupported(
                        Some("y"),
                        "y must be None with a Custom table (only its derivative is known), got Some".to_string(),
                    ));
                }
                y.as_mut_ptr() as *mut c_void
            }
            None => ptr::null_mut(),
        };
        // SAFETY: codes and y hold x.len() elements, checked above.
        check(unsafe {
            sys::fewbit_encode(self.raw.as_ptr(), table.as_raw(), x.len(), T::DTYPE.raw(),
                               x.as_ptr() as *const c_void, y_ptr,
                               codes.as_mut_ptr() as *mut c_void)
        })
    }

    /// Few-bit backward: grad_in = grad_out * levels[code], rounded once to `T`.
    pub fn fewbit_backward<T: Element>(
        &self,
        table: &Table,
        codes: &[u8],
        grad_out: &[T],
        grad_in: &mut [T],
    ) -> Result<()> {
        self.host_memory()?;
        rules::same_len("grad_in", grad_in.len(), "grad_out", grad_out.len())?;
        Self::packed_row("codes", grad_out.len(), table.bits(), codes.len())?;
        // SAFETY: codes and grad_in hold grad_out.len() elements, checked above.
        check(unsafe {
            sys::fewbit_backward(self.raw.as_ptr(), table.as_raw(), grad_out.len(),
                                 codes.as_ptr() as *const c_void, T::DTYPE.raw(),
                                 grad_out.as_ptr() as *const c_void,
                                 grad_in.as_mut_ptr() as *mut c_void)
        })
    }
}
