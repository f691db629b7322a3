//! Each job's default training settings (the library's, [`train::defaults`]) as `--help`
//! shows them, subcommand by subcommand.

use clap::Command;
use nn::TrainLength;
pub use train::defaults::*;
use train::image::ImageArch;
use train::image::defaults::{
    DEFAULT_BATCH, HASH_GRID_BASE_PIXELS, HASH_GRID_BASE_STEPS, IMAGE_BASE_PIXELS,
    IMAGE_BASE_STEPS, IMAGE_MAX_STEPS,
};

/// The help of the common training options as one subcommand resolves them.
struct Help {
    lr: String,
    epochs: String,
    steps: String,
    batch: String,
    schedule: String,
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
            schedule: format!("Learning-rate schedule [default: {}]", d.schedule.name()),
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
    let image = train::image::defaults::training(ImageArch::Siren, IMAGE_BASE_PIXELS);
    let grid = train::image::defaults::training(ImageArch::HashGrid, HASH_GRID_BASE_PIXELS);
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
            "Random pixels per step, or \"full\" [default: {DEFAULT_BATCH}, the whole image when smaller]"
        ),
        schedule: format!(
            "Learning-rate schedule [default: {}]",
            image.schedule.name()
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
