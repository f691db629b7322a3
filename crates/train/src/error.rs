//! The error type of the run layer.

use std::path::PathBuf;

/// Everything that can stop a training run before it starts or while it runs.
///
/// Each variant prints as one line that says what went wrong and, where the user can act,
/// what to do; causes are kept as [`std::error::Error::source`].
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The network, optimizer or trainer failed.
    #[error(transparent)]
    Nn(#[from] nn::Error),
    /// Reading or writing a file, a checkpoint or a table failed.
    #[error(transparent)]
    Io(#[from] io::Error),
    /// A tensor operation failed.
    #[error(transparent)]
    Tensor(#[from] tensor_core::Error),
    /// The training loss exploded or stopped being finite.
    #[error(transparent)]
    Diverged(#[from] crate::divergence::Diverged),
    /// A record or metadata entry could not be encoded or decoded as JSON.
    #[error("{what}: {source}")]
    Json {
        /// What was being encoded or decoded.
        what: String,
        /// The cause.
        #[source]
        source: serde_json::Error,
    },
    /// A file could not be read.
    #[error("cannot read {}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// A run folder could not be created.
    #[error("cannot create the output folder {}", path.display())]
    CreateDir {
        /// The folder.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// A run folder could not be cleared of the temporary files of killed runs.
    #[error("cannot clear {}", dir.display())]
    Clear {
        /// The folder.
        dir: PathBuf,
        /// The cause.
        #[source]
        source: Box<io::Error>,
    },
    /// A run folder that holds another run's checkpoint, which the run was not asked to
    /// continue or replace.
    #[error("{} already holds a run's checkpoint", dir.display())]
    FolderHoldsRun {
        /// The folder.
        dir: PathBuf,
    },
    /// A file could not be written.
    #[error("cannot write {}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: Box<io::Error>,
    },
    /// A checkpoint could not be saved.
    #[error("cannot save the checkpoint {}", path.display())]
    Save {
        /// The checkpoint file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: Box<io::Error>,
    },
    /// A run folder's checkpoint could not be resumed.
    #[error("cannot resume from {}", path.display())]
    Resume {
        /// The checkpoint.
        path: PathBuf,
        /// The cause.
        #[source]
        source: Box<Error>,
    },
    /// A checkpoint that this crate cannot use: not one of its files, another kind of model,
    /// non-finite weights.
    #[error("{}{reason}", path_prefix(path))]
    Checkpoint {
        /// The checkpoint file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// A malformed line of a run's `history.csv`.
    #[error("line {line}: {reason}")]
    History {
        /// The line (1: the header).
        line: usize,
        /// What is wrong with it.
        reason: String,
    },
    /// A request that the run refuses before training: a resume that would change the run,
    /// early stopping without validation rows, a request that cannot fit in memory.
    #[error("{0}")]
    Refused(String),
    /// A resume refused because it would change the run: the message says what differs,
    /// `advice` what the user can do (the `iron-learn` tool turns it into options).
    #[error("{message}")]
    ResumeRefused {
        /// What differs, in one line.
        message: String,
        /// What would let the run resume.
        advice: ResumeAdvice,
    },
    /// A job beyond the memory budget: what it would need against what is available, and
    /// what would fit.
    #[error("{message}; {advice}")]
    OverBudget {
        /// The job's need against the budget, in one sentence.
        message: String,
        /// What would bring it within the budget.
        advice: crate::budget::MemoryAdvice,
    },
    /// The run folder is held by another run (each folder has one writer at a time).
    #[error("{} is in use by {by}; wait for it to finish or choose another run folder", dir.display())]
    FolderInUse {
        /// The run folder.
        dir: PathBuf,
        /// Who holds it, in words ("another iron-learn run (process 42)").
        by: String,
    },
    /// A launch of several processes that this process cannot join: a build without MPI,
    /// or an MPI that sees fewer processes than the launcher started.
    #[error("{0}")]
    Launch(String),
    /// Early stopping was asked for, and the run has no validation rows to watch.
    #[error("early stopping needs validation rows, and this run has none")]
    NeedsValidationRows,
    /// A checkpoint whose model weights are not all finite: the run diverged before it was
    /// saved.
    #[error(
        "{} holds non-finite weights ({weight}[{index}] is {value}): the run diverged before \
         it was saved; train afresh with a lower learning rate",
        path.display()
    )]
    NonFiniteWeights {
        /// The checkpoint file.
        path: PathBuf,
        /// The weight tensor's name.
        weight: String,
        /// The first non-finite element.
        index: usize,
        /// Its value.
        value: f32,
    },
}

/// What lets a refused resume go on (see [`Error::ResumeRefused`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResumeAdvice {
    /// Resume on the same data, or force the resume onto this data; `split` is true when
    /// the seed and the test and validation fractions chose the training rows.
    SameDataOrForce {
        /// Whether the rows were chosen by a seeded split of the file.
        split: bool,
    },
    /// Resume with batches of this many rows (`None`: full batches).
    Batch(Option<usize>),
}

/// `path` followed by a space, or nothing for an empty path.
fn path_prefix(path: &std::path::Path) -> String {
    if path.as_os_str().is_empty() {
        String::new()
    } else {
        format!("{} ", path.display())
    }
}

impl Error {
    /// A JSON encoding or decoding failure while handling `what`.
    pub fn json(what: impl Into<String>, source: serde_json::Error) -> Self {
        Error::Json {
            what: what.into(),
            source,
        }
    }

    /// A problem with the checkpoint at `path`, described by `reason` (which follows the
    /// path in the message).
    pub fn checkpoint(path: &std::path::Path, reason: impl Into<String>) -> Self {
        Error::Checkpoint {
            path: path.to_path_buf(),
            reason: reason.into(),
        }
    }
}

/// Shorthand for results of this crate.
pub type Result<T> = std::result::Result<T, Error>;
