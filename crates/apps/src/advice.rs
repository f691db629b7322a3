//! The one place where the libraries' typed refusals become command-line advice: the
//! libraries say what went wrong in their own terms ("choose another run folder"); this
//! module names the options that act on it.

use io::table::ColumnOverride;

/// What to append to the error line of `e`: the options that would get past it, for the
/// first typed reason in its chain that has any.
pub fn flag_advice(e: &anyhow::Error) -> Option<String> {
    e.chain().find_map(|cause| {
        if let Some(e) = cause.downcast_ref::<jobs::Error>() {
            jobs_advice(e)
        } else if let Some(e) = cause.downcast_ref::<train::Error>() {
            train_advice(e)
        } else if let Some(e) = cause.downcast_ref::<io::Error>() {
            io_advice(e)
        } else if let Some(e) = cause.downcast_ref::<jobs::predict::PredictError>() {
            predict_advice(e)
        } else {
            cause.downcast_ref::<train::Diverged>().map(lr_advice)
        }
    })
}

/// Advice for a refusal of the run layer.
fn train_advice(e: &train::Error) -> Option<String> {
    use train::{Error, ResumeAdvice};
    Some(match e {
        Error::ResumeRefused { advice, .. } => match advice {
            ResumeAdvice::SameDataOrForce { split: true } => "; resume with the same data \
                and the same --seed, --test-fraction, --val-fraction and --patience (they \
                choose the training rows), or pass --force to continue on this data"
                .into(),
            ResumeAdvice::SameDataOrForce { split: false } => {
                "; resume with the same data, or pass --force to continue on this data".into()
            }
            ResumeAdvice::Batch(Some(rows)) => format!("; resume with --batch {rows}"),
            ResumeAdvice::Batch(None) => "; resume with --batch full".into(),
        },
        Error::Diverged(d) => lr_advice(d),
        Error::FolderInUse { .. } => " (--out DIR)".into(),
        Error::FolderHoldsRun { .. } => "; continue it with --resume, start afresh over it \
            with --force, or choose another --out"
            .into(),
        Error::NeedsValidationRows => {
            "; hold some out with --val-fraction, or leave --patience out".into()
        }
        Error::NonFiniteWeights { .. } => " (--lr)".into(),
        Error::OverBudget { advice, .. } => memory_advice(advice),
        Error::Io(e) => return io_advice(e),
        _ => return None,
    })
}

/// Advice for a refusal of a job: the run layer's, or the job's own.
fn jobs_advice(e: &jobs::Error) -> Option<String> {
    use jobs::Error;
    Some(match e {
        Error::Run(e) => return train_advice(e),
        Error::TooFewTrainingRows { .. } => {
            "; use a smaller --test-fraction or --val-fraction, or more rows".into()
        }
        Error::TooFewSamples { .. } => " (--samples)".into(),
        Error::WholeRenderOverBudget { side, .. } => {
            format!(" (--size {side}, or write a .png without --reference)")
        }
        Error::ImageOptionOutOfRange { option, .. } => format!(" ({})", image_flag(*option)),
        Error::BudgetTooSmall {
            pixels, smallest, ..
        } => budget_advice(*smallest, *pixels),
        Error::BudgetGridFlat { .. } => {
            " (a --base-resolution below the picture's longer side or the --finest-resolution)"
                .into()
        }
        Error::BudgetArch(_) => " (--params-per-pixel applies to --arch hashgrid)".into(),
        Error::AreaNotShared { .. } => " (--supersample)".into(),
        Error::BadGrid(_) => " (--levels, --features, --log2-table-size, --base-resolution, \
            --finest-resolution)"
            .into(),
        Error::BadBudgetGrid(_) => " (--base-resolution, --finest-resolution)".into(),
        Error::Table(refusal) => table_advice(refusal),
        _ => return None,
    })
}

/// The budget that holds the smallest network of `smallest` parameters on `pixels` pixels,
/// where one is accepted, else a larger picture.
fn budget_advice(smallest: usize, pixels: usize) -> String {
    let needed = smallest as f64 / pixels.max(1) as f64;
    if needed <= jobs::image::budget::MAX_PARAMS_PER_PIXEL {
        let at_least = (needed * 100.0).ceil() / 100.0;
        format!(" (--params-per-pixel {at_least} at least, or a larger --size)")
    } else {
        " (the picture is too small for any budget: a larger --size)".into()
    }
}

/// The learning rate of a diverged run, and a tenth of it to try.
fn lr_advice(d: &train::Diverged) -> String {
    format!(" (--lr {}); try --lr {}", d.lr(), d.lr() / 10.0)
}

/// Advice for a refusal of `predict`.
fn predict_advice(e: &jobs::predict::PredictError) -> Option<String> {
    use jobs::predict::PredictError;
    Some(match e {
        PredictError::ImageModel { .. } => "; draw it with `iron-learn image render` or \
            export it with `iron-learn export`"
            .into(),
        PredictError::KeepFromJson
        | PredictError::KeepUnknown { .. }
        | PredictError::KeptTwice(_)
        | PredictError::KeepClashes { .. } => " (--keep)".into(),
        PredictError::PointsNeedOneInput { .. } => " (--x); use --data".into(),
        PredictError::NotFinite(_) => " (--x)".into(),
        PredictError::OutputNotCsv { .. } => " (--output)".into(),
        PredictError::Train(e) => return jobs_advice(e),
        PredictError::Io(e) => return io_advice(e),
    })
}

/// The options that act on a memory refusal's advice.
fn memory_advice(advice: &train::budget::MemoryAdvice) -> String {
    use train::budget::MemoryAdvice;
    match advice {
        MemoryAdvice::SmallerNetwork => " (--hidden)".into(),
        MemoryAdvice::NetworkAlone { .. } => {
            " (--hidden; for a hash grid, fewer --levels or a smaller --log2-table-size)".into()
        }
        MemoryAdvice::SmallerBatches(Some(n)) => format!(": --batch {n}"),
        MemoryAdvice::SmallerBatches(None) => " (--batch)".into(),
        MemoryAdvice::FewerRows | MemoryAdvice::FewerRowsOrColumns => String::new(),
        MemoryAdvice::SmallerImage(side) => format!(": --size {side}"),
    }
}

/// The options that act on a table job's refusal.
fn table_advice(refusal: &jobs::tabular::job::TableRefusal) -> String {
    use jobs::tabular::job::{NumberConflict, TableRefusal};
    match refusal {
        TableRefusal::TestFraction(_) => " (--test-fraction)",
        TableRefusal::ValFraction(_) => " (--val-fraction)",
        TableRefusal::WeightDecay(_) => " (--weight-decay)",
        TableRefusal::PortfolioOfOneNetwork => " (--portfolio, --model mlp)",
        TableRefusal::Folds(_) => " (--folds)",
        TableRefusal::FoldsWithTestRows => " (--folds, --test-data, --resume)",
        TableRefusal::ResumedForOtherTask { .. } => " (drop --task, or pass another --out)",
        TableRefusal::AutoFinished { .. } => {
            " (--resume); leave it out and pass --force, or another --out; --model mlp \
            trains a network alone, whose run resumes"
        }
        TableRefusal::BaggedDoesNotResume { .. } => {
            " (--resume); leave it out and pass --force, or another --out; --model mlp \
            trains a network alone, whose run resumes"
        }
        TableRefusal::NothingToResume { .. } => {
            "; leave out --resume to train from the start, or give the run's --out"
        }
        TableRefusal::Numbers(NumberConflict::PeriodicWithOtherEncoding) => {
            " (--periodic); leave it out or use --numeric-encoding periodic"
        }
        TableRefusal::Numbers(NumberConflict::BinsWithoutPiecewise) => {
            " (--bins applies to --numeric-encoding piecewise)"
        }
        TableRefusal::NotBinary { .. } => "; use `mlp --task classification` for more classes",
        TableRefusal::ClassWeightOfRegression { .. } => " (--class-weight)",
        TableRefusal::PiecewiseOverBudget { .. } => {
            "; use fewer --bins or --numeric-encoding plain"
        }
    }
    .into()
}

/// The flag of an image fit's option.
fn image_flag(option: jobs::image::ImageOption) -> &'static str {
    use jobs::image::ImageOption;
    match option {
        ImageOption::Size => "--size",
        ImageOption::Threshold => "--threshold",
        ImageOption::Supersample => "--supersample",
        ImageOption::Budget => "--params-per-pixel",
    }
}

/// Advice for a refusal of the `io` crate.
fn io_advice(e: &io::Error) -> Option<String> {
    let flag = |how: &ColumnOverride| match how {
        ColumnOverride::Categorical => "--categorical",
        ColumnOverride::Numeric => "--numeric",
        ColumnOverride::Ignore => "--ignore",
    };
    match e {
        io::Error::OverrideUnknownColumn { how, .. } => Some(format!(" ({})", flag(how))),
        io::Error::OverriddenTwice { first, second, .. } => {
            Some(format!(" ({} and {})", flag(first), flag(second)))
        }
        _ => None,
    }
}
