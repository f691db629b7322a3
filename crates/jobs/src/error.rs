//! The error type of the jobs: the run layer's errors, and what a job itself refuses.

/// Everything that can stop a job: a run-layer error ([`train::Error`]: the folder, the
/// checkpoint, the memory budget, divergence), or a reason of the job's own (an image
/// option out of range, a split that leaves no rows, a table refused).
///
/// Each variant prints as one line that says what went wrong and, where the user can act,
/// what to do; causes are kept as [`std::error::Error::source`].
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The run failed: its folder, checkpoint, record, memory budget or training.
    #[error(transparent)]
    Run(#[from] train::Error),
    /// An image fit's option out of its range.
    #[error("{option} must be {accepted}, got {value}")]
    ImageOptionOutOfRange {
        /// Which option.
        option: crate::image::ImageOption,
        /// What it accepts, in words ("between 2 and 16384").
        accepted: String,
        /// The value given.
        value: String,
    },
    /// A hash grid that cannot be built as asked (its levels, features, table size or
    /// resolutions).
    #[error("{0}")]
    BadGrid(String),
    /// A size budget's hash grid that cannot be built on the resolutions asked (the budget
    /// chooses the rest).
    #[error("{0}")]
    BadBudgetGrid(String),
    /// A size budget asked of a network other than the hash grid.
    #[error("a size budget chooses a hash grid, not a {0} network")]
    BudgetArch(&'static str),
    /// A size budget that holds no network.
    #[error(
        "a budget of {budget} parameter{} for {pixels} pixel{} holds no network: the smallest \
         takes {smallest}",
        plural(*budget),
        plural(*pixels)
    )]
    BudgetTooSmall {
        /// The most parameters the budget allows.
        budget: usize,
        /// The picture's pixels.
        pixels: usize,
        /// The parameters of the smallest network a budget chooses.
        smallest: usize,
    },
    /// A size budget whose grid would not grow from coarse to fine: its coarsest resolution
    /// is not below its finest, and its levels are hashed (tables smaller than a level's
    /// vertices), so that they would hold noise.
    #[error(
        "a size budget spreads the grid's levels from coarse to fine, and its coarsest level \
         ({coarsest} cells a side) is not below its finest ({finest})"
    )]
    BudgetGridFlat {
        /// Cells per axis of the coarsest level.
        coarsest: u32,
        /// Cells per axis of the finest level.
        finest: u32,
    },
    /// The test and validation fractions leave fewer than two training rows.
    #[error(
        "a test fraction of {test_fraction} and a validation fraction of {val_fraction} leave \
         {left} training row(s) of {total}; at least two are needed"
    )]
    TooFewTrainingRows {
        /// The share of rows held out for testing.
        test_fraction: f32,
        /// The share of the remaining rows held out for validation.
        val_fraction: f32,
        /// The training rows left.
        left: usize,
        /// The rows of the data.
        total: usize,
    },
    /// A function of `x` that cannot be read.
    #[error(transparent)]
    Function(#[from] io::expr::ParseError),
    /// A function fit asked for fewer sample points than it takes.
    #[error("a function fit needs at least {least} sample points, got {given}")]
    TooFewSamples {
        /// The samples asked for.
        given: usize,
        /// The fewest a fit takes.
        least: usize,
    },
    /// A render that must be drawn whole (to score it, or in a format not written in
    /// bands) beyond the memory budget.
    #[error(
        "drawing {width}x{height} whole for {} needs about {need}, more than the memory budget \
         of {budget}; a longest side of {side} or less fits, or a PNG unscored (drawn in bands \
         in a few MB)",
        if *scored { "scoring against a reference" } else { "this format" }
    )]
    WholeRenderOverBudget {
        /// The render's width.
        width: usize,
        /// Its height.
        height: usize,
        /// The memory it needs, in words ("1.2 GB").
        need: String,
        /// The budget, with where it comes from.
        budget: String,
        /// The longest side that fits.
        side: u64,
        /// Whether it is drawn whole to be scored (else for its format).
        scored: bool,
    },
    /// A table job's options or table refused ([`crate::tabular::job`]).
    #[error(transparent)]
    Table(#[from] crate::tabular::job::TableRefusal),
    /// A chart or picture could not be drawn.
    #[error("{0}")]
    Draw(String),
    /// Area supervision asked of a fit over several processes, which share point samples
    /// only.
    #[error(
        "a supersampling of {supersample} (area supervision) is not shared between \
         processes; fit it on one (this run has {processes})"
    )]
    AreaNotShared {
        /// The supersampling asked.
        supersample: u32,
        /// The processes of the run.
        processes: usize,
    },
    /// A process's picture is not rank 0's: the same command on every process must read
    /// the same picture.
    #[error("this process's picture is not rank 0's: {0}; every process must read the same file")]
    OtherPicture(String),
    /// What one process of a run over several handed the others could not be read.
    #[error("what rank 0 handed this process could not be read: {0}")]
    Shared(String),
}

impl From<nn::Error> for Error {
    fn from(e: nn::Error) -> Self {
        Error::Run(e.into())
    }
}

impl From<io::Error> for Error {
    fn from(e: io::Error) -> Self {
        Error::Run(e.into())
    }
}

impl From<tensor_core::Error> for Error {
    fn from(e: tensor_core::Error) -> Self {
        Error::Run(e.into())
    }
}

impl From<train::Diverged> for Error {
    fn from(e: train::Diverged) -> Self {
        Error::Run(e.into())
    }
}

impl Error {
    /// A request the job refuses before or after training, in one line.
    pub(crate) fn refused(message: impl Into<String>) -> Self {
        Error::Run(train::Error::Refused(message.into()))
    }

    /// A JSON encoding or decoding failure while handling `what`.
    pub(crate) fn json(what: impl Into<String>, source: serde_json::Error) -> Self {
        Error::Run(train::Error::json(what, source))
    }
}

/// Shorthand for results of this crate.
pub type Result<T> = std::result::Result<T, Error>;

/// `"s"` for a count other than one.
fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}
