//! The crate's single error type: every message names what was wrong.

use alloc::string::String;
use core::fmt;

/// What went wrong, with a message meant for the person who can fix it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// The model or word-vector file is malformed, inconsistent or hostile.
    Format(String),
    /// The input to a run is unusable: bad ids, empty text, a non-divisor head count, ...
    Input(String),
    /// A run overflowed `f32` (weights or edits too large) and produced NaN or infinity.
    Numeric(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Format(m) => write!(f, "invalid file: {m}"),
            Error::Input(m) => write!(f, "invalid input: {m}"),
            Error::Numeric(m) => write!(f, "numeric overflow: {m}"),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for Error {}

/// `Err(Error::Format(format!(...)))`.
macro_rules! format_err {
    ($($arg:tt)*) => { $crate::Error::Format(alloc::format!($($arg)*)) };
}
/// `Err(Error::Input(format!(...)))`.
macro_rules! input_err {
    ($($arg:tt)*) => { $crate::Error::Input(alloc::format!($($arg)*)) };
}
pub(crate) use {format_err, input_err};
