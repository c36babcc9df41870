//! `actq_context` and the calls that run on one: quantize, dequantize, pack, unpack,
//! few-bit encode and backward. Every slice is checked for length before C is called.
use std::ffi::CStr;
use std::os::raw::c_void;
use std::ptr::{self, NonNull};

use crate::error::{check, Error, Result};
use crate::fewbit::Table;
use crate::layout::{packed_row_bytes, Layout};
use crate::sys;
use crate::types::{Backend, Element, Rounding};

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

fn same_len(what: &str, got: usize, want: usize) -> Result<()> {
    if got == want {
        Ok(())
    } else {
        Err(Error::invalid(format!("{} has {} elements, expected {}", what, got, want)))
    }
}

fn at_least(what: &str, got: usize, want: usize) -> Result<()> {
    if got >= want {
        Ok(())
    } else {
        Err(Error::invalid(format!("{} has {} elements, needs {}", what, got, want)))
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

    /// CPU backends: 0 = all online CPUs (the default). Results do not depend on it.
    pub fn set_threads(&mut self, threads: u32) -> Result<()> {
        if threads > i32::MAX as u32 {
            return Err(Error::invalid(format!("{} threads", threads)));
        }
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

    /// The checks quantize and dequantize share: host memory, metadata slices of the
    /// layout's meta_dtype, the data slice (name, length) of exactly rows * cols elements,
    /// and packed and metadata slices of at least what the layout needs. Returns the C layout.
    fn quantized_buffers<M: Element>(
        &self,
        layout: &Layout,
        data: (&str, usize),
        packed_len: usize,
        min_len: usize,
        scale_len: usize,
    ) -> Result<sys::actq_layout> {
        self.host_memory()?;
        let sizes = layout.sizes()?;
        let raw = layout.to_raw()?;
        if M::DTYPE != layout.meta_dtype {
            return Err(Error::invalid(format!(
                "metadata slices of {:?} for a layout with meta_dtype {:?}",
                M::DTYPE,
                layout.meta_dtype
            )));
        }
        same_len(data.0, data.1, layout.elements()?)?;
        at_least("packed", packed_len, sizes.packed_bytes)?;
        at_least("group_min", min_len, sizes.groups)?;
        at_least("group_scale", scale_len, sizes.groups)?;
        Ok(raw)
    }

    fn host_memory(&self) -> Result<()> {
        if self.backend == Backend::Cuda {
            Err(Error::unsupported("a CUDA context takes device pointers: use actq::sys"))
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

    fn packed_len_for(what: &str, n: usize, bits: u32, have: usize) -> Result<()> {
        if !(1..=8).contains(&bits) {
            return Err(Error::invalid(format!("bits {} (1..=8)", bits)));
        }
        let need = packed_row_bytes(n, bits).ok_or_else(|| Error::from_status(sys::ACTQ_ERR_SIZE_OVERFLOW))?;
        at_least(what, have, need)
    }

    /// One packed row of `codes.len()` codes; `packed` needs ceil(len * bits / 8) bytes.
    /// A code >= 2^bits is `ErrorKind::InvalidArgument`.
    pub fn pack(&self, bits: u32, codes: &[u8], packed: &mut [u8]) -> Result<()> {
        self.host_memory()?;
        Self::packed_len_for("packed", codes.len(), bits, packed.len())?;
        // SAFETY: packed holds the row, checked above.
        check(unsafe {
            sys::actq_pack(self.raw.as_ptr(), bits, codes.len(), codes.as_ptr(),
                           packed.as_mut_ptr() as *mut c_void)
        })
    }

    pub fn unpack(&self, bits: u32, packed: &[u8], codes: &mut [u8]) -> Result<()> {
        self.host_memory()?;
        Self::packed_len_for("packed", codes.len(), bits, packed.len())?;
        // SAFETY: packed holds the row, checked above.
        check(unsafe {
            sys::actq_unpack(self.raw.as_ptr(), bits, codes.len(),
                             packed.as_ptr() as *const c_void, codes.as_mut_ptr())
        })
    }

    /// Few-bit forward: the packed codes of `x` (ceil(len * table.bits() / 8) bytes) and,
    /// when `y` is given (as long as `x`), y = f(x).
    pub fn fewbit_encode<T: Element>(
        &self,
        table: &Table,
        x: &[T],
        y: Option<&mut [T]>,
        codes: &mut [u8],
    ) -> Result<()> {
        self.host_memory()?;
        Self::packed_len_for("codes", x.len(), table.bits(), codes.len())?;
        let y_ptr = match y {
            Some(y) => {
                same_len("y", y.len(), x.len())?;
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
        same_len("grad_in", grad_in.len(), grad_out.len())?;
        Self::packed_len_for("codes", grad_out.len(), table.bits(), codes.len())?;
        // SAFETY: codes and grad_in hold grad_out.len() elements, checked above.
        check(unsafe {
            sys::fewbit_backward(self.raw.as_ptr(), table.as_raw(), grad_out.len(),
                                 codes.as_ptr() as *const c_void, T::DTYPE.raw(),
                                 grad_out.as_ptr() as *const c_void,
                                 grad_in.as_mut_ptr() as *mut c_void)
        })
    }
}
