//! Default training settings, measured per kind of job: what the `iron-learn` jobs train
//! with unless told otherwise (the mlp defaults were measured on 13 published tables,
//! docs/BENCHMARKS.md). A program can start from them and override what it knows better.
//! An image fit's defaults are [`crate::image::defaults`].

use nn::TrainLength;
use train::{Defaults, Schedule};

/// `xor`.
pub const XOR: Defaults = Defaults {
    lr: 0.05,
    length: TrainLength::Epochs(1000),
    batch: None,
    schedule: Schedule::Constant,
};

/// `linreg` and `logreg`.
pub const LINEAR: Defaults = Defaults {
    lr: 0.05,
    length: TrainLength::Epochs(2000),
    batch: None,
    schedule: Schedule::Cosine,
};

/// Hidden layers of `mlp`, as `--hidden` takes them: three ReLU layers of 128. With
/// [`MLP_STEP_BUDGET`], as good on the 13 tables of docs/BENCHMARKS.md as two layers of 256
/// trained three times as many steps on large tables, in well under half the time.
pub const MLP_HIDDEN: &str = "128x3";
/// How far beyond its training targets' range a regression of `mlp` may predict, as a
/// share of that range on each side: predictions are kept within it, so that a few extreme
/// rows cannot drive them far outside anything seen. Measured with 0 (the range itself, as
/// trees keep), 0.1 and no range, on the 13 development tables and the 6 held-out
/// regressions (docs/BENCHMARKS.md, "Predictions kept within the targets' range"): 0 raised
/// ncbirths by 0.004 R², carseats by 0.0002, and lowered none.
pub const MLP_TARGET_MARGIN: f32 = 0.0;
/// Folds of `mlp`'s cross-validation when no test rows are asked for (no test file, no
/// test fraction): 5 on the 13 development tables gave the mean score of a separate test
/// file (every training row trained on), 0.8081 against 0.7990 with a fifth held out, at
/// most 8.1 s a table (docs/BENCHMARKS.md, "Cross-validation").
pub const MLP_FOLDS: usize = 5;
/// The most rows `mlp` cross-validates by default; a larger table is trained once with a
/// fifth of its rows held out for testing (on the largest development table, 15,402 rows,
/// 5 folds took 8.1 s; the test share costs a large table little).
pub const MLP_FOLDS_MAX_ROWS: usize = 20_000;
/// Mini-batch size of `mlp` on training sets larger than [`MLP_FULL_BATCH_ROWS`].
pub const MLP_BATCH: usize = 64;
/// `mlp` trains on the full batch up to this many training rows: one batch's worth. Larger
/// sets take mini-batches; on the 13 development tables drawn down to 300 and 320 rows
/// (192 to 240 training rows), batches of 64 for 100 epochs scored a mean 0.001 and 0.003
/// above 400 full-batch epochs in 1.9 and 1.5 times less time (docs/BENCHMARKS.md, "Small
/// tables: mini-batches").
pub const MLP_FULL_BATCH_ROWS: usize = MLP_BATCH;
/// Epochs of `mlp` on the full batch (up to [`MLP_FULL_BATCH_ROWS`] rows).
pub const MLP_FULL_BATCH_EPOCHS: u64 = 400;
/// The optimizer steps `mlp` aims at on larger sets: the epochs are as many as make about
/// this many steps, within [`MLP_MIN_EPOCHS`] and [`MLP_MAX_EPOCHS`].
pub const MLP_STEP_BUDGET: u64 = 4_000;
/// The fewest default epochs of `mlp` on mini-batches (large tables).
pub const MLP_MIN_EPOCHS: u64 = 10;
/// The most default epochs of `mlp` on mini-batches (small tables).
pub const MLP_MAX_EPOCHS: u64 = 100;

/// `mlp` on `rows` training rows: learning rate 3e-3 with cosine decay; up to
/// [`MLP_FULL_BATCH_ROWS`] rows, [`MLP_FULL_BATCH_EPOCHS`] full-batch epochs; beyond, batches
/// of [`MLP_BATCH`] for about [`MLP_STEP_BUDGET`] steps (10 to 100 epochs), so that the
/// length follows the data's size.
pub fn mlp(rows: usize) -> Defaults {
    let batched = rows > MLP_FULL_BATCH_ROWS;
    let epochs = if batched {
        let per_epoch = rows.div_ceil(MLP_BATCH) as u64;
        (MLP_STEP_BUDGET as f64 / per_epoch as f64).round() as u64
    } else {
        MLP_FULL_BATCH_EPOCHS
    };
    Defaults {
        lr: 3e-3,
        length: TrainLength::Epochs(if batched {
            epochs.clamp(MLP_MIN_EPOCHS, MLP_MAX_EPOCHS)
        } else {
            epochs
        }),
        batch: batched.then_some(MLP_BATCH),
        schedule: Schedule::Cosine,
    }
}

/// `approx`.
pub const APPROX: Defaults = Defaults {
    lr: 3e-3,
    length: TrainLength::Epochs(3000),
    batch: None,
    schedule: Schedule::Cosine,
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mlp_batches_only_larger_sets() {
        assert_eq!(mlp(MLP_BATCH).batch, None);
        assert_eq!(mlp(MLP_BATCH + 1).batch, Some(MLP_BATCH));
        assert_eq!(mlp(1000).batch, Some(MLP_BATCH));
    }

    #[test]
    fn mlp_length_follows_the_rows() {
        let epochs = |rows| match mlp(rows).length {
            TrainLength::Epochs(e) => e,
            TrainLength::Steps(_) => unreachable!(),
        };
        assert_eq!(epochs(MLP_BATCH), MLP_FULL_BATCH_EPOCHS);
        assert_eq!(
            epochs(200),
            MLP_MAX_EPOCHS,
            "4 batches an epoch: capped at 100 epochs"
        );
        assert_eq!(
            epochs(300),
            MLP_MAX_EPOCHS,
            "5 batches an epoch: capped at 100 epochs"
        );
        assert_eq!(
            epochs(1_500),
            MLP_MAX_EPOCHS,
            "24 batches an epoch: 2,400 steps"
        );
        assert_eq!(epochs(3_000), 85, "47 batches an epoch: about 4,000 steps");
        assert_eq!(epochs(7_500), 34, "118 batches an epoch");
        assert_eq!(
            epochs(30_000),
            MLP_MIN_EPOCHS,
            "469 batches an epoch: 10 epochs"
        );
    }
}
