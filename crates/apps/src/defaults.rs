//! Each job's default training settings in one place: the jobs train with them and
//! `--help` shows them, subcommand by subcommand.

use crate::cli::ScheduleArg;
use crate::session::Defaults;
use clap::Command;
use nn::TrainLength;

/// `xor`.
pub const XOR: Defaults = Defaults {
    lr: 0.05,
    length: TrainLength::Epochs(1000),
    batch: None,
    schedule: ScheduleArg::Constant,
};

/// `linreg` and `logreg`.
pub const LINEAR: Defaults = Defaults {
    lr: 0.05,
    length: TrainLength::Epochs(2000),
    batch: None,
    schedule: ScheduleArg::Cosine,
};

/// Mini-batch size of `mlp` on training sets larger than [`MLP_FULL_BATCH_ROWS`].
pub const MLP_BATCH: usize = 64;
/// `mlp` trains on the full batch up to this many training rows.
pub const MLP_FULL_BATCH_ROWS: usize = 256;
/// Epochs of `mlp` on the full batch (up to [`MLP_FULL_BATCH_ROWS`] rows).
pub const MLP_FULL_BATCH_EPOCHS: u64 = 400;
/// The optimizer steps `mlp` aims at on larger sets: the epochs are as many as make about
/// this many steps, within [`MLP_MIN_EPOCHS`] and [`MLP_MAX_EPOCHS`].
pub const MLP_STEP_BUDGET: u64 = 12_000;
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
        schedule: ScheduleArg::Cosine,
    }
}

/// `approx`.
pub const APPROX: Defaults = Defaults {
    lr: 3e-3,
    length: TrainLength::Epochs(3000),
    batch: None,
    schedule: ScheduleArg::Cosine,
};

/// Steps of `image fit` up to [`IMAGE_BASE_PIXELS`] pixels.
pub const IMAGE_BASE_STEPS: u64 = 300;
/// The pixel count (200 x 200) that [`IMAGE_BASE_STEPS`] fits well.
pub const IMAGE_BASE_PIXELS: usize = 40_000;
/// The most default steps of `image fit`.
pub const IMAGE_MAX_STEPS: u64 = 3000;

/// Steps of `image fit --arch hashgrid` up to [`HASH_GRID_BASE_PIXELS`] pixels.
pub const HASH_GRID_BASE_STEPS: u64 = 100;
/// The pixel count (256 x 256, one default batch) that [`HASH_GRID_BASE_STEPS`] fits well
/// (about 40 dB on a photo).
pub const HASH_GRID_BASE_PIXELS: usize = 65_536;

/// `image fit` of a picture of `pixels` pixels: 300 steps up to 200 x 200 pixels, growing
/// with the square root of the pixel count (the side) beyond, in multiples of 50.
pub fn image_fit(pixels: usize) -> Defaults {
    image_defaults(pixels, IMAGE_BASE_STEPS, IMAGE_BASE_PIXELS, 1e-3)
}

/// `image fit --arch hashgrid` of a picture of `pixels` pixels: learning rate 1e-2, 100 steps
/// up to 256 x 256 pixels, growing with the side beyond, in multiples of 50.
pub fn image_fit_hash_grid(pixels: usize) -> Defaults {
    image_defaults(pixels, HASH_GRID_BASE_STEPS, HASH_GRID_BASE_PIXELS, 1e-2)
}

fn image_defaults(pixels: usize, base_steps: u64, base_pixels: usize, lr: f32) -> Defaults {
    let ratio = (pixels as f64 / base_pixels as f64).max(1.0).sqrt();
    let steps = (base_steps as f64 * ratio / 50.0).round() as u64 * 50;
    Defaults {
        lr,
        length: TrainLength::Steps(steps.clamp(base_steps, IMAGE_MAX_STEPS)),
        batch: None,
        schedule: ScheduleArg::Cosine,
    }
}

/// The help of the common training options as one subcommand resolves them.
struct Help {
    lr: String,
    epochs: String,
    steps: String,
    batch: String,
    schedule: String,
}

fn schedule_name(s: ScheduleArg) -> &'static str {
    match s {
        ScheduleArg::Constant => "constant",
        ScheduleArg::Step => "step",
        ScheduleArg::Cosine => "cosine",
    }
}

impl Help {
    /// Help for a job trained for a number of epochs with these defaults; `batch` describes
    /// the default batch.
    fn epochs(d: &Defaults, batch: &str) -> Self {
        let epochs = match d.length {
            TrainLength::Epochs(e) => e,
            TrainLength::Steps(s) => s,
        };
        Help {
            lr: format!("Learning rate [default: {}]", d.lr),
            epochs: format!("Passes over the training data [default: {epochs}]"),
            steps: "Optimizer steps, instead of --epochs".into(),
            batch: format!("Rows per step, or \"full\" [default: {batch}]"),
            schedule: format!(
                "Learning-rate schedule [default: {}]",
                schedule_name(d.schedule)
            ),
        }
    }

    fn apply(self, cmd: Command) -> Command {
        cmd.mut_arg("lr", |a| a.help(self.lr))
            .mut_arg("epochs", |a| a.help(self.epochs))
            .mut_arg("steps", |a| a.help(self.steps))
            .mut_arg("batch", |a| a.help(self.batch))
            .mut_arg("schedule", |a| a.help(self.schedule))
    }
}

/// The command line with each subcommand's own defaults in its `--help`.
pub fn describe(cmd: Command) -> Command {
    let full = "full";
    let mlp = mlp(MLP_FULL_BATCH_ROWS + 1);
    let mlp_batch = format!("{MLP_BATCH}, or full up to {MLP_FULL_BATCH_ROWS} training rows");
    let mlp_help = Help {
        epochs: format!(
            "Passes over the training data [default: {MLP_FULL_BATCH_EPOCHS} up to {MLP_FULL_BATCH_ROWS} rows; beyond, as many as make about {MLP_STEP_BUDGET} steps, {MLP_MIN_EPOCHS} to {MLP_MAX_EPOCHS}]"
        ),
        ..Help::epochs(&mlp, &mlp_batch)
    };
    let image = image_fit(IMAGE_BASE_PIXELS);
    let grid = image_fit_hash_grid(HASH_GRID_BASE_PIXELS);
    let image_help = Help {
        lr: format!(
            "Learning rate [default: {} for hashgrid, {} for the others]",
            grid.lr, image.lr
        ),
        epochs: "Passes over the pixels, instead of --steps (an epoch is as many steps as batches fit in the image)".into(),
        steps: format!(
            "Optimizer steps [default: {HASH_GRID_BASE_STEPS} up to 256x256 pixels for hashgrid, {IMAGE_BASE_STEPS} up to 200x200 for the others; more for larger images (in proportion to the side), at most {IMAGE_MAX_STEPS}]"
        ),
        batch: format!(
            "Random pixels per step, or \"full\" [default: {}, the whole image when smaller]",
            crate::jobs::image_arch::DEFAULT_BATCH
        ),
        schedule: format!(
            "Learning-rate schedule [default: {}]",
            schedule_name(image.schedule)
        ),
    };
    cmd.mut_subcommand("xor", |c| Help::epochs(&XOR, full).apply(c))
        .mut_subcommand("linreg", |c| Help::epochs(&LINEAR, full).apply(c))
        .mut_subcommand("logreg", |c| Help::epochs(&LINEAR, full).apply(c))
        .mut_subcommand("mlp", |c| mlp_help.apply(c))
        .mut_subcommand("approx", |c| Help::epochs(&APPROX, full).apply(c))
        .mut_subcommand("image", |c| {
            c.mut_subcommand("fit", |f| image_help.apply(f))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn image_steps_follow_the_size() {
        let steps = |px| match image_fit(px).length {
            TrainLength::Steps(s) => s,
            TrainLength::Epochs(_) => unreachable!(),
        };
        assert_eq!(steps(48 * 48), 300);
        assert_eq!(steps(200 * 200), 300);
        assert_eq!(steps(400 * 400), 600);
        assert_eq!(steps(512 * 512), 750);
        assert_eq!(steps(8000 * 8000), IMAGE_MAX_STEPS);
        let grid = |px| match image_fit_hash_grid(px).length {
            TrainLength::Steps(s) => s,
            TrainLength::Epochs(_) => unreachable!(),
        };
        assert_eq!(grid(200 * 200), 100);
        assert_eq!(grid(256 * 256), 100);
        assert_eq!(grid(512 * 512), 200);
        assert_eq!(grid(2048 * 2048), 800);
        assert_eq!(grid(8192 * 8192), IMAGE_MAX_STEPS);
        assert_eq!(image_fit_hash_grid(1).lr, 1e-2);
    }

    #[test]
    fn mlp_batches_only_larger_sets() {
        assert_eq!(mlp(100).batch, None);
        assert_eq!(mlp(1000).batch, Some(MLP_BATCH));
    }

    #[test]
    fn mlp_length_follows_the_rows() {
        let epochs = |rows| match mlp(rows).length {
            TrainLength::Epochs(e) => e,
            TrainLength::Steps(_) => unreachable!(),
        };
        assert_eq!(epochs(200), MLP_FULL_BATCH_EPOCHS);
        assert_eq!(
            epochs(300),
            MLP_MAX_EPOCHS,
            "5 batches an epoch: capped at 100 epochs"
        );
        assert_eq!(epochs(7_500), 100, "118 batches an epoch: 12,000 steps");
        assert_eq!(epochs(30_000), 26, "469 batches an epoch");
        assert_eq!(epochs(200_000), MLP_MIN_EPOCHS);
    }
}
