//! The error type of the `nn` crate.

/// Everything that can go wrong while building, training or restoring a model.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A tensor operation failed (shape mismatch, device error, ...).
    #[error(transparent)]
    Tensor(#[from] tensor_core::Error),
    /// The training loss became NaN or infinite.
    #[error(
        "training loss became non-finite ({value}) at step {step} (first non-finite loss after \
         step {last_finite_step}); lower the learning rate or clip gradients"
    )]
    NonFiniteLoss {
        /// The step (1-based count of updates) at which the non-finite loss was seen.
        step: u64,
        /// The last step known to have had a finite loss (0 when none was checked yet).
        last_finite_step: u64,
        /// The value read back (a mean over the steps since the last check).
        value: f32,
    },
    /// A configuration value is invalid.
    #[error("invalid configuration: {0}")]
    Config(String),
    /// Saved state does not fit the model or optimizer it is loaded into.
    #[error("state mismatch: {0}")]
    StateMismatch(String),
    /// A training callback reported an error.
    #[error("training callback failed: {0}")]
    Callback(#[source] Box<dyn std::error::Error + Send + Sync>),
}

/// Shorthand for results of this crate.
pub type Result<T> = std::result::Result<T, Error>;

/// A configuration error with a formatted message.
pub(crate) fn config_err(msg: impl Into<String>) -> Error {
    Error::Config(msg.into())
}
