//! The table models `mlp --model` selects.

use clap::ValueEnum;

/// The table models `mlp` can train.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ModelArg {
    /// The networks (best epoch on held-out training rows; plain and periodic inputs, and
    /// their mean) and a linear model (ridge, or logistic regression of two or more classes)
    /// compared on those rows; the best is kept.
    Auto,
    /// The network alone, trained on every training row.
    Mlp,
}
