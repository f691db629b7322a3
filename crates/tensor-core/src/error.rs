//! The error type shared by every tensor operation.

use crate::Shape;

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
    /// The requested device cannot be used.
    #[error("device unavailable: {0}")]
    DeviceUnavailable(String),
    /// The device reported a failure while running an operation.
    #[error("device error in {op}: {message}")]
    Device {
        /// The operation that was attempted.
        op: &'static str,
        /// What the device or driver reported.
        message: String,
    },
}

/// Shorthand for results of tensor operations.
pub type Result<T> = std::result::Result<T, Error>;
