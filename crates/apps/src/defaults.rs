//! Each job's default training settings (the library's, [`jobs::defaults`]) as `--help`
//! shows them, subcommand by subcommand.

use crate::commands::tabular::{activation, choice, portfolio};
use clap::{Command, ValueEnum};
pub use jobs::defaults::*;
use jobs::image::ImageArch;
use jobs::image::defaults::{
    DEFAULT_ARCH, DEFAULT_BATCH, DEFAULT_LOG2_TABLE_SIZE, DEFAULT_SIZE, HASH_GRID_BASE_PIXELS,
    HASH_GRID_BASE_STEPS, IMAGE_BASE_PIXELS, IMAGE_BASE_STEPS, IMAGE_MAX_STEPS, LARGE_IMAGE_PIXELS,
    default_hidden,
};
use jobs::tabular::auto::{
    AUTO_PERIODIC, AUTO_PIECEWISE_BINS, AUTO_VAL_FRACTION, BEST_EPOCH_PATIENCE,
    MAX_PERIODIC_INPUTS, MAX_PIECEWISE_INPUTS,
};
use jobs::tabular::job::{NetworkOptions, PATIENCE_VAL_FRACTION};
use nn::TrainLength;
use std::fmt::Display;
use train::Defaults;

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
    let image = jobs::image::defaults::training(ImageArch::Siren, IMAGE_BASE_PIXELS);
    let grid = jobs::image::defaults::training(ImageArch::HashGrid, HASH_GRID_BASE_PIXELS);
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
    let xor_hidden = jobs::xor::XorOptions::new("").hidden;
    let approx_hidden = nn::HiddenLayers(jobs::approx::DEFAULT_HIDDEN.to_vec());
    cmd.mut_subcommand("xor", |c| {
        shown(Help::epochs(&XOR, full).apply(c), "hidden", xor_hidden)
    })
    .mut_subcommand("linreg", |c| table(Help::epochs(&LINEAR, full).apply(c)))
    .mut_subcommand("logreg", |c| table(Help::epochs(&LINEAR, full).apply(c)))
    .mut_subcommand("mlp", |c| network(table(mlp_help.apply(c))))
    .mut_subcommand("approx", |c| {
        shown(
            Help::epochs(&APPROX, full).apply(c),
            "hidden",
            approx_hidden,
        )
    })
    .mut_subcommand("image", |c| {
        c.mut_subcommand("fit", |f| image_fit(image_help.apply(f)))
    })
}

/// `arg`'s help with ` [default: {value}]` after it.
fn shown(cmd: Command, arg: &str, value: impl Display) -> Command {
    cmd.mut_arg(arg, |a| {
        let help = a.get_help().map(ToString::to_string).unwrap_or_default();
        a.help(format!("{help} [default: {value}]"))
    })
}

/// The defaults of `image fit`'s picture and network.
fn image_fit(cmd: Command) -> Command {
    let layers = |arch| nn::HiddenLayers(default_hidden(arch));
    let (grid, other) = (layers(ImageArch::HashGrid), layers(ImageArch::Siren));
    let large = LARGE_IMAGE_PIXELS / 1_000_000;
    let log2 = DEFAULT_LOG2_TABLE_SIZE;
    let table = format!(
        "{log2}; {} for images over {large} megapixels where the memory budget holds it",
        log2 + 1
    );
    let size = format!("{DEFAULT_SIZE} for the bundled drawing, else the image's own size");
    let cmd = shown(cmd, "size", size);
    let cmd = shown(cmd, "arch", DEFAULT_ARCH.name());
    let cmd = shown(
        cmd,
        "hidden",
        format!("{grid} for hashgrid, {other} otherwise"),
    );
    shown(cmd, "log2_table_size", table)
}

/// The defaults of the table jobs' split options.
fn table(cmd: Command) -> Command {
    let val = format!(
        "{PATIENCE_VAL_FRACTION} with --patience, else 0: every training row is trained on"
    );
    let patience = format!("no early stopping; `mlp --model auto`: {BEST_EPOCH_PATIENCE}");
    shown(shown(cmd, "val_fraction", val), "patience", patience)
}

/// The defaults of `mlp`'s network, from [`NetworkOptions::default`].
fn network(cmd: Command) -> Command {
    let d = NetworkOptions::default();
    let share = AUTO_VAL_FRACTION * 100.0;
    let model = format!(
        "The model: `auto` trains networks (plain, periodic and piecewise-linear inputs; see --portfolio) and a linear model; over folds (see --folds) it keeps their mix, weighted by their scores on the rows each did not train on; on one split, their mix weighted by their scores on {share}% held-out training rows (the linear model, kept alone, refitted on all rows); `mlp` trains the network alone"
    );
    let cmd = cmd.mut_arg("model", |a| a.help(model));
    let cmd = shown(cmd, "model", name_of(choice, d.choice));
    let cmd = shown(cmd, "portfolio", name_of(portfolio, d.portfolio));
    numbers(shown(cmd, "activation", name_of(activation, d.activation)))
}

/// The defaults of how `mlp`'s networks read numbers, from [`jobs::tabular::auto`].
fn numbers(cmd: Command) -> Command {
    let bins = AUTO_PIECEWISE_BINS;
    let encoding = format!(
        "plain; with `--model auto`, the second network's inputs (plain: none, and no third network when given); by default periodic, then a third network on piecewise inputs in {bins} bins, on tables of at most {MAX_PERIODIC_INPUTS} encoded columns (wider ones: the piecewise network alone, on at most {MAX_PIECEWISE_INPUTS} columns)"
    );
    let bands = format!(
        "0, or {AUTO_PERIODIC} with `--numeric-encoding periodic`; with `--model auto`, the network's inputs: no second network"
    );
    let cmd = shown(cmd, "numeric_encoding", encoding);
    shown(shown(cmd, "periodic", bands), "bins", bins)
}

/// The command-line name of the value of `A` that converts to the library's `default`.
fn name_of<A: ValueEnum, L: PartialEq>(convert: fn(A) -> L, default: L) -> String {
    A::value_variants()
        .iter()
        .find(|v| convert((*v).clone()) == default)
        .and_then(ValueEnum::to_possible_value)
        .map_or_else(String::new, |v| v.get_name().to_string())
}
