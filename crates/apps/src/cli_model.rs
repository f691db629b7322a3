//! The table models `mlp --model` selects, and how their networks read numbers.

use clap::{Args, ValueEnum};

/// The table models `mlp` can train.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ModelArg {
    /// The networks (best epoch on held-out training rows; plain, periodic and
    /// piecewise-linear inputs; a learned factor per plain or piecewise input) and a linear
    /// model (ridge, or logistic regression of two or more classes) scored on rows they did
    /// not train on; their mix is kept.
    Auto,
    /// The network alone, trained on every training row.
    Mlp,
}

/// The candidates that `mlp`'s default model trains in each fold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PortfolioArg {
    /// The plain, periodic and piecewise-linear networks and the linear model.
    Small,
    /// Those, the plain network without weight decay and, on a table with a category of
    /// more than 16 levels, the plain network without those categories.
    Full,
}

/// How a table network reads the numbers of its encoded rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum NumericEncodingArg {
    /// Standardised, as they are.
    Plain,
    /// Beside sines and cosines of each number (`--periodic` bands).
    Periodic,
    /// Piecewise-linear in `--bins` bins at the training quantiles (in the model's
    /// encoding, which `predict` and `export` apply).
    Piecewise,
}

/// `mlp`'s options on how the network reads numbers.
#[derive(Debug, Clone, Args)]
pub struct NumberArgs {
    /// How the network reads numbers: `plain`, `periodic` or `piecewise`.
    #[arg(long, value_enum, value_name = "ENCODING")]
    pub numeric_encoding: Option<NumericEncodingArg>,
    /// Periodic encoding of each (standardised) input beside its value: sin and cos at
    /// BANDS frequencies pi, 2 pi, 4 pi, ... (0: the inputs alone).
    #[arg(long, value_name = "BANDS")]
    pub periodic: Option<usize>,
    /// Bins of each number's piecewise-linear encoding (`--numeric-encoding piecewise`).
    #[arg(long, value_name = "BINS", value_parser = crate::cli_values::positive_count)]
    pub bins: Option<usize>,
}
