//! The error of every fallible call: the C status and its string, plus, when the binding
//! itself refused the call before reaching C, the argument at fault and a detail that names
//! it, its value and what is allowed (the rules are in `rules.rs`).
use std::ffi::CStr;
use std::fmt;

use crate::sys;

/// What went wrong, one variant per `actq_status` other than `ACTQ_OK`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    InvalidArgument,
    Unsupported,
    OutOfMemory,
    SizeOverflow,
    /// NaN or Inf met in the data. The call still processed everything and wrote its
    /// outputs as documented (NaN metadata or NaN values where the non-finite data was).
    NonFinite,
    Device,
    Internal,
    /// A status this binding does not know (a newer library).
    Unknown(i32),
}

/// `Display` gives `actq: <status string>` and, when the binding refused the call,
/// `: <detail>`, e.g. `actq: invalid argument: bits must be 1..8, got 9`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    status: i32,
    detail: Option<String>,
    argument: Option<&'static str>,
}

impl Error {
    /// The error of a nonzero status returned by the library.
    pub fn from_status(status: i32) -> Error {
        Error { status, detail: None, argument: None }
    }

    /// An argument refused by this binding before reaching C (`ACTQ_ERR_INVALID_ARGUMENT`);
    /// `detail` starts with `name`.
    pub(crate) fn bad_argument(name: &'static str, detail: String) -> Error {
        Error { status: sys::ACTQ_ERR_INVALID_ARGUMENT, detail: Some(detail), argument: Some(name) }
    }

    /// A call this binding cannot make (`ACTQ_ERR_UNSUPPORTED`), naming the argument that
    /// asks for it when there is one.
    pub(crate) fn unsupported(argument: Option<&'static str>, detail: String) -> Error {
        Error { status: sys::ACTQ_ERR_UNSUPPORTED, detail: Some(detail), argument }
    }

    /// The raw `actq_status` value.
    pub fn status(&self) -> i32 {
        self.status
    }

    pub fn kind(&self) -> ErrorKind {
        match self.status {
            sys::ACTQ_ERR_INVALID_ARGUMENT => ErrorKind::InvalidArgument,
            sys::ACTQ_ERR_UNSUPPORTED => ErrorKind::Unsupported,
            sys::ACTQ_ERR_OUT_OF_MEMORY => ErrorKind::OutOfMemory,
            sys::ACTQ_ERR_SIZE_OVERFLOW => ErrorKind::SizeOverflow,
            sys::ACTQ_ERR_NONFINITE => ErrorKind::NonFinite,
            sys::ACTQ_ERR_DEVICE => ErrorKind::Device,
            sys::ACTQ_ERR_INTERNAL => ErrorKind::Internal,
            other => ErrorKind::Unknown(other),
        }
    }

    /// The library's string for the status (`actq_status_string`).
    pub fn message(&self) -> &'static str {
        status_string(self.status)
    }

    /// What the binding found wrong, when it refused the call itself: the argument, its
    /// value and what is allowed, e.g. `bits must be 1..8, got 9`. None when C refused it.
    pub fn detail(&self) -> Option<&str> {
        self.detail.as_deref()
    }

    /// The name of the argument the binding refused (`"bits"`, `"group_size"`, `"x"`, ...,
    /// as in the C headers; an element of a slice is named by the slice). None when the
    /// error came from C, whose status does not say which argument was wrong.
    pub fn argument(&self) -> Option<&str> {
        self.argument
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.detail {
            Some(detail) => write!(f, "actq: {}: {}", self.message(), detail),
            None => write!(f, "actq: {}", self.message()),
        }
    }
}

impl std::error::Error for Error {}

pub type Result<T> = std::result::Result<T, Error>;

/// `actq_status_string`: a static string for every status, also for unknown values.
pub fn status_string(status: i32) -> &'static str {
    // SAFETY: the library returns a static NUL-terminated string, never NULL.
    let text = unsafe { CStr::from_ptr(sys::actq_status_string(status)) };
    text.to_str().unwrap_or("actq status string is not UTF-8")
}

/// Ok for `ACTQ_OK`, the error otherwise.
pub(crate) fn check(status: sys::actq_status) -> Result<()> {
    if status == sys::ACTQ_OK {
        Ok(())
    } else {
        Err(Error::from_status(status))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_status_has_its_kind_and_a_distinct_string() {
        let kinds = [
            ErrorKind::InvalidArgument,
            ErrorKind::Unsupported,
            ErrorKind::OutOfMemory,
            ErrorKind::SizeOverflow,
            ErrorKind::NonFinite,
            ErrorKind::Device,
            ErrorKind::Internal,
        ];
        for (i, kind) in kinds.iter().enumerate() {
            let e = Error::from_status(i as i32 + 1);
            assert_eq!(e.kind(), *kind);
            assert!(!e.message().is_empty());
            for j in 0..i {
                assert_ne!(e.message(), Error::from_status(j as i32 + 1).message());
            }
        }
        assert_eq!(Error::from_status(99).kind(), ErrorKind::Unknown(99));
        assert_eq!(status_string(99), "unknown actq status");
        assert_ne!(status_string(0), status_string(1));
    }

    #[test]
    fn display_names_the_status_and_the_detail() {
        let e = Error::bad_argument("bits", "bits must be 1..8, got 9".to_string());
        assert_eq!(e.to_string(), "actq: invalid argument: bits must be 1..8, got 9");
        assert_eq!((e.kind(), e.argument()), (ErrorKind::InvalidArgument, Some("bits")));
        assert_eq!(Error::from_status(sys::ACTQ_ERR_INVALID_ARGUMENT).argument(), None);
        let boxed: Box<dyn std::error::Error> = Box::new(Error::from_status(sys::ACTQ_ERR_NONFINITE));
        assert_eq!(boxed.to_string(), format!("actq: {}", status_string(5)));
    }
}
