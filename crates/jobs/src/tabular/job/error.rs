//! Why a table job refuses its options or its table, in its own terms: the `iron-learn`
//! tool names the options that act on each ([`TableRefusal`]).

/// Two options on how the networks read numbers that contradict each other.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NumberConflict {
    /// Periodic bands with another encoding asked.
    PeriodicWithOtherEncoding,
    /// Bins with an encoding other than piecewise-linear.
    BinsWithoutPiecewise,
}

impl std::fmt::Display for NumberConflict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            NumberConflict::PeriodicWithOtherEncoding => {
                "periodic bands ask for periodic inputs, and another encoding is asked"
            }
            NumberConflict::BinsWithoutPiecewise => {
                "bins apply to the piecewise-linear encoding alone"
            }
        })
    }
}

/// A table job's refusal of its options or its table.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TableRefusal {
    /// The test share out of `[0, 1)`.
    #[error("the test fraction must be in [0, 1), got {0}")]
    TestFraction(f32),
    /// The validation share out of `[0, 1)`.
    #[error("the validation fraction must be in [0, 1), got {0}")]
    ValFraction(f32),
    /// A number of folds out of its range.
    #[error("a cross-validation takes 2 to {most} folds, got {0}", most = crate::table::MAX_FOLDS)]
    Folds(usize),
    /// A cross-validation beside a test file, or resumed.
    #[error(
        "a cross-validation tests on its own folds and trains from scratch: it takes no test file and does not resume"
    )]
    FoldsWithTestRows,
    /// A portfolio asked of a job that trains one network.
    #[error("a portfolio is the default model's candidates; a job of one network has none")]
    PortfolioOfOneNetwork,
    /// A negative or non-finite weight decay.
    #[error("the weight decay must be 0 or more, got {0}")]
    WeightDecay(f32),
    /// A resume, for one task, of a run whose record says it was trained for the other
    /// (checked before the table is read, whose classes or targets would be refused for a
    /// reason that hides this one).
    #[error(
        "{} was trained for {trained}, and the task is now {asked}, which needs another network output and other targets; resume it for {trained}, or train for {asked} in a new folder",
        dir.display()
    )]
    ResumedForOtherTask {
        /// The run folder.
        dir: std::path::PathBuf,
        /// The task its record names.
        trained: String,
        /// The task asked now.
        asked: &'static str,
    },
    /// A resume of an `auto` job whose comparison was made (its folder's checkpoint may
    /// hold the kept model rather than the first network).
    #[error(
        "the default model's job in {} is finished (its comparison is made and its model kept): train it again in a new folder",
        dir.display()
    )]
    AutoFinished {
        /// The job's run folder.
        dir: std::path::PathBuf,
    },
    /// A resume of a job bagged over folds (stopped or killed before its end): its fold
    /// runs are there, but the job does not resume.
    #[error(
        "{} holds a job bagged over folds, which does not resume: train it again",
        dir.display()
    )]
    BaggedDoesNotResume {
        /// The job's folder.
        dir: std::path::PathBuf,
    },
    /// A resume of an `auto` job in a folder that holds no run of it.
    #[error(
        "nothing to resume in {}: it holds no run of the default model's job (no record, no checkpoint)",
        dir.display()
    )]
    NothingToResume {
        /// The folder.
        dir: std::path::PathBuf,
    },
    /// Options on the numbers' encoding that contradict each other.
    #[error("{0}")]
    Numbers(NumberConflict),
    /// A logistic regression on a target without exactly two classes.
    #[error(
        "a logistic regression is binary but the column `{column}` has {classes} distinct values ({shown})"
    )]
    NotBinary {
        /// The target column.
        column: String,
        /// Its distinct values.
        classes: usize,
        /// The first few, comma-separated.
        shown: String,
    },
    /// Class weights asked of a regression.
    #[error("class weights apply to classes, but `{column}` is a regression target")]
    ClassWeightOfRegression {
        /// The target column.
        column: String,
    },
    /// The piecewise-linear rows would not fit in the memory budget.
    #[error(
        "the rows piecewise-linear in {bins} bins would take about {need} more, beyond the memory budget of {budget} ({budget_from})"
    )]
    PiecewiseOverBudget {
        /// The bins asked.
        bins: usize,
        /// What they would take, in words.
        need: String,
        /// The budget, in words.
        budget: String,
        /// Where the budget comes from.
        budget_from: String,
    },
}
