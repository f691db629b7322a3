//! The error type shared by every tensor operation.

use crate::Shape;
use std::sync::Arc;

/// Everything that can go wrong in a tensor operation or a backend.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Error {
    /// Two shapes that an operation needs to agree do not.
    #[error("shape mismatch in {op}: {lhs} and {rhs}")]
    ShapeMismatch {
        /// The operation that was attempted.
        op: &'static str,
        /// The left-hand (or first) shape.
        lhs: Shape,
        /// The right-hand (or second) shape.
        rhs: Shape,
    },
    /// Two shapes cannot be broadcast against each other.
    #[error("cannot broadcast {lhs} with {rhs} in {op}")]
    Broadcast {
        /// The operation that was attempted.
        op: &'static str,
        /// The left-hand shape.
        lhs: Shape,
        /// The right-hand shape.
        rhs: Shape,
    },
    /// An axis does not exist for a tensor of the given rank.
    #[error("axis {axis} is out of range for {op} on a tensor of rank {rank}")]
    BadAxis {
        /// The operation that was attempted.
        op: &'static str,
        /// The axis asked for.
        axis: usize,
        /// The rank of the tensor.
        rank: usize,
    },
    /// The number of elements supplied does not match the shape.
    #[error("{op}: shape {shape} holds {expected} elements but {got} were given")]
    ElementCount {
        /// The operation that was attempted.
        op: &'static str,
        /// The shape asked for.
        shape: Shape,
        /// The element count of the shape.
        expected: usize,
        /// The element count supplied.
        got: usize,
    },
    /// A buffer passed to a backend operation does not hold exactly the number of elements
    /// the operation's dimensions call for (see the contract in [`Backend`](crate::Backend)).
    #[error("{op}: buffer `{buffer}` holds {got} elements but {expected} are required")]
    BufferLength {
        /// The operation that was attempted.
        op: &'static str,
        /// Which of the operation's buffers (`"x"`, `"out"`, `"bias"`, ...).
        buffer: &'static str,
        /// The element count the dimensions call for.
        expected: usize,
        /// The element count of the buffer.
        got: usize,
    },
    /// An operation needs a tensor of a particular rank.
    #[error("{op} needs a tensor of rank {expected}, got shape {shape}")]
    Rank {
        /// The operation that was attempted.
        op: &'static str,
        /// The rank needed.
        expected: usize,
        /// The shape supplied.
        shape: Shape,
    },
    /// An index (row, position) is out of bounds.
    #[error("{op}: index {index} is out of bounds for length {len}")]
    OutOfBounds {
        /// The operation that was attempted.
        op: &'static str,
        /// The offending index.
        index: usize,
        /// The length indexed into.
        len: usize,
    },
    /// An argument has a value the operation cannot use.
    #[error("{op}: {reason}")]
    InvalidArgument {
        /// The operation that was attempted.
        op: &'static str,
        /// What is wrong with the argument.
        reason: String,
    },
    /// The requested device cannot be used: no driver, no such device, a missing library, a
    /// driver too old for the backend. Opening the device failed; nothing ran on it.
    #[error("device unavailable: {reason}")]
    DeviceUnavailable {
        /// What kind of problem it is, for callers that react to it (a program may fall back
        /// to the CPU, or say what to install).
        kind: UnavailableKind,
        /// One line saying what was looked for and what failed.
        reason: String,
        /// The driver's or library's own error, when one caused it.
        #[source]
        source: Option<BackendError>,
    },
    /// The device reported a failure while running an operation.
    #[error("device error in {op}: {message}")]
    Device {
        /// The operation that was attempted.
        op: &'static str,
        /// What the backend was doing when it failed.
        message: String,
        /// The driver's or library's own error, when one caused it.
        #[source]
        source: Option<BackendError>,
    },
}

impl Error {
    /// A [`Error::DeviceUnavailable`] of `kind` with no underlying error.
    pub fn unavailable(kind: UnavailableKind, reason: impl Into<String>) -> Self {
        Error::DeviceUnavailable {
            kind,
            reason: reason.into(),
            source: None,
        }
    }

    /// A [`Error::Device`] failure in `op` with no underlying error.
    pub fn device(op: &'static str, message: impl Into<String>) -> Self {
        Error::Device {
            op,
            message: message.into(),
            source: None,
        }
    }

    /// The same error with `cause` as its underlying error (only device errors keep one;
    /// other variants are returned unchanged).
    pub fn with_source(mut self, cause: impl std::error::Error + Send + Sync + 'static) -> Self {
        if let Error::DeviceUnavailable { source, .. } | Error::Device { source, .. } = &mut self {
            *source = Some(BackendError::new(cause));
        }
        self
    }
}

/// Why a device cannot be used, by kind. The words of [`Error::DeviceUnavailable`]'s `reason`
/// are for people; this is for code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum UnavailableKind {
    /// No usable driver: none installed, one lacking entry points, or a stand-in library
    /// (such as a toolkit's link-time stub) found where the driver should be.
    NoDriver,
    /// The driver works but has no device with the requested ordinal.
    NoDevice,
    /// A library the backend needs (such as cuBLAS) could not be loaded or initialised.
    MissingLibrary,
    /// The driver is too old for the backend (it rejected the backend's kernels).
    DriverTooOld,
    /// The driver failed while the device was being opened.
    DriverFailed,
}

impl std::fmt::Display for UnavailableKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            UnavailableKind::NoDriver => "no usable driver",
            UnavailableKind::NoDevice => "no such device",
            UnavailableKind::MissingLibrary => "a required library is missing",
            UnavailableKind::DriverTooOld => "the driver is too old",
            UnavailableKind::DriverFailed => "the driver failed",
        })
    }
}

/// A backend's own error (a driver or library failure), kept as the typed source of an
/// [`Error`]. It displays as the error it holds, reports that error's cause as its own, and
/// can be downcast back to the backend's type with [`BackendError::downcast_ref`]. Cloning
/// shares the error; two are equal when they display the same text.
#[derive(Clone)]
pub struct BackendError(Arc<dyn std::error::Error + Send + Sync + 'static>);

impl BackendError {
    /// Wraps a backend's error.
    pub fn new(error: impl std::error::Error + Send + Sync + 'static) -> Self {
        BackendError(Arc::new(error))
    }

    /// The wrapped error as `T`, when it is one.
    pub fn downcast_ref<T: std::error::Error + 'static>(&self) -> Option<&T> {
        self.0.downcast_ref::<T>()
    }

    /// The wrapped error.
    pub fn get(&self) -> &(dyn std::error::Error + Send + Sync + 'static) {
        &*self.0
    }
}

impl std::fmt::Debug for BackendError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&*self.0, f)
    }
}

impl std::fmt::Display for BackendError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(&*self.0, f)
    }
}

impl std::error::Error for BackendError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0.source()
    }
}

impl PartialEq for BackendError {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.0.to_string() == other.0.to_string()
    }
}

/// Shorthand for results of tensor operations.
pub type Result<T> = std::result::Result<T, Error>;

#[cfg(test)]
mod tests {
    use super::*;
    use std::error::Error as _;

    #[derive(Debug, PartialEq, thiserror::Error)]
    #[error("driver call failed with code {0}")]
    struct Fault(i32);

    #[derive(Debug, thiserror::Error)]
    #[error("library failed")]
    struct Wrapping(#[source] Fault);

    #[test]
    fn device_errors_keep_their_typed_source() {
        let e = Error::device("gemm", "launching the product").with_source(Fault(7));
        assert_eq!(e.to_string(), "device error in gemm: launching the product");
        let source = e.source().expect("a source");
        assert_eq!(source.to_string(), "driver call failed with code 7");
        let Error::Device {
            source: Some(b), ..
        } = &e
        else {
            panic!("{e:?}")
        };
        assert_eq!(b.downcast_ref::<Fault>(), Some(&Fault(7)));
        assert!(b.downcast_ref::<Wrapping>().is_none());
    }

    #[test]
    fn the_chain_goes_through_the_backend_error() {
        let e = Error::unavailable(UnavailableKind::MissingLibrary, "no cuBLAS")
            .with_source(Wrapping(Fault(3)));
        let mut chain = vec![e.to_string()];
        let mut cause = e.source();
        while let Some(c) = cause {
            chain.push(c.to_string());
            cause = c.source();
        }
        assert_eq!(
            chain,
            [
                "device unavailable: no cuBLAS",
                "library failed",
                "driver call failed with code 3"
            ]
        );
    }

    #[test]
    fn only_device_errors_take_a_source() {
        let e = Error::InvalidArgument {
            op: "x",
            reason: "bad".into(),
        };
        assert_eq!(e.clone().with_source(Fault(1)), e);
        assert!(e.source().is_none());
    }

    #[test]
    fn equality_compares_the_text_of_sources() {
        let a = Error::device("alloc", "allocating").with_source(Fault(2));
        assert_eq!(a, a.clone());
        assert_eq!(
            a,
            Error::device("alloc", "allocating").with_source(Fault(2))
        );
        assert_ne!(
            a,
            Error::device("alloc", "allocating").with_source(Fault(3))
        );
        assert_ne!(a, Error::device("alloc", "allocating"));
    }

    #[test]
    fn kinds_read_as_short_phrases() {
        let e = Error::unavailable(UnavailableKind::NoDevice, "device 3 does not exist");
        assert_eq!(e.to_string(), "device unavailable: device 3 does not exist");
        let Error::DeviceUnavailable { kind, .. } = e else {
            unreachable!()
        };
        assert_eq!(kind.to_string(), "no such device");
    }
}
