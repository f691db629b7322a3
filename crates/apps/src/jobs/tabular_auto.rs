//! `mlp --model auto` (the default): the library's choice among a network, a second
//! network on periodic inputs, their mean and a linear model ([`train::tabular::auto`]),
//! with the options it needs and the lines it prints.

use crate::cli::{ModelArg, RegressionArgs};
use train::tabular::Kept;
use train::tabular::auto::{MIN_VAL_ROWS, Selected, validation_fraction};

/// The data options `auto` trains with: its validation share when none is given.
pub fn data_options(model: ModelArg, a: &RegressionArgs) -> RegressionArgs {
    let mut a = a.clone();
    if model == ModelArg::Auto {
        a.val_fraction = Some(validation_fraction(a.val_fraction));
    }
    a
}

/// Prints the model kept and why, or that there were too few rows to compare.
pub fn print_selection(selected: Option<&Selected>) {
    let Some(s) = selected else {
        println!(
            "note: model auto: too few training rows to hold out {MIN_VAL_ROWS} for validation; the network is kept without comparison"
        );
        return;
    };
    let kept = match s.choice.kept {
        Kept::Network => "the network",
        Kept::Linear => "the linear model",
    };
    println!("model kept: {kept} ({})", s.choice.reason);
}
