//! `mlp --model auto` (the default): the library's choice among a network, a second
//! network on periodic inputs, their mean and a linear model ([`train::tabular::auto`]),
//! with the options it needs and the lines it prints.

use crate::cli::{ModelArg, NumberArgs, NumericEncodingArg, RegressionArgs};
use anyhow::{Result, bail};
use train::tabular::Kept;
use train::tabular::auto::{
    AUTO_PERIODIC, AUTO_PIECEWISE_BINS, AUTO_SECOND, MIN_VAL_ROWS, NumericEncoding, Selected,
    validation_fraction,
};

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

/// The inputs asked of the network (`--model mlp`, or `--periodic` with `auto`) and of
/// `auto`'s second network (`--numeric-encoding` with `auto`); `None` where not asked.
/// Refuses, in one line, options that contradict each other.
pub fn numeric_encodings(
    model: ModelArg,
    numbers: Option<&NumberArgs>,
) -> Result<(Option<NumericEncoding>, Option<NumericEncoding>)> {
    let Some(n) = numbers else {
        return Ok((None, None));
    };
    let auto_piecewise = matches!(AUTO_SECOND, NumericEncoding::Piecewise(_));
    let encoding = match (n.numeric_encoding, n.periodic, n.bins) {
        (Some(NumericEncodingArg::Plain | NumericEncodingArg::Piecewise), Some(_), _) => bail!(
            "--periodic sets periodic inputs; leave it out or use --numeric-encoding periodic"
        ),
        (Some(NumericEncodingArg::Plain | NumericEncodingArg::Periodic), _, Some(_)) => {
            bail!("--bins applies to --numeric-encoding piecewise")
        }
        (None, Some(_), Some(_)) => bail!("--bins applies to --numeric-encoding piecewise"),
        (None, None, Some(_)) if model == ModelArg::Mlp || !auto_piecewise => {
            bail!("--bins applies to --numeric-encoding piecewise")
        }
        (Some(NumericEncodingArg::Plain), None, None) => Some(NumericEncoding::Plain),
        (Some(NumericEncodingArg::Periodic), bands, None) => {
            Some(NumericEncoding::Periodic(bands.unwrap_or(AUTO_PERIODIC)))
        }
        (Some(NumericEncodingArg::Piecewise), None, bins) | (None, None, bins @ Some(_)) => Some(
            NumericEncoding::Piecewise(bins.unwrap_or(AUTO_PIECEWISE_BINS)),
        ),
        (None, bands, None) => bands.map(NumericEncoding::Periodic),
    };
    // With `auto`, --periodic is the network's inputs and --numeric-encoding the second's.
    Ok(match model == ModelArg::Auto && n.periodic.is_none() {
        true => (None, encoding),
        false => (encoding, None),
    })
}

/// Refuses, in one line, a network on the rows piecewise-linear in `bins` bins when they
/// would not fit in the memory budget.
pub fn refuse_piecewise_beyond_budget(p: &train::table::Prepared, bins: usize) -> Result<()> {
    let Some(io::image::MemoryBudget { bytes, source }) = train::budget::budget()? else {
        return Ok(());
    };
    let budget = bytes as f64;
    if p.piecewise_fits(bins, Some(budget)) {
        return Ok(());
    }
    let need = train::budget::bytes(p.piecewise_bytes(bins) as f64);
    let budget = train::budget::bytes(budget);
    bail!(
        "the rows piecewise-linear in {bins} bins would take about {need} more, beyond the memory budget of {budget} ({source}); use fewer --bins or --numeric-encoding plain"
    )
}
