//! The default table model (`auto`): a network trained on most training rows with the
//! weights of its best epoch on the rest, a second network on other inputs (periodic or
//! piecewise-linear: [`AUTO_SECOND`]), a third network on piecewise-linear inputs beside a
//! periodic second ([`AUTO_THIRD_BINS`]) and a linear model fitted on the same rows; their
//! mix picked by ensemble selection on the rows they did not train on is kept, with the
//! reason (the table job's folds, or one split). The plain and piecewise networks learn a
//! factor per input ([`learns_input_scale`]).

use io::Standardizer;
use nn::EarlyStopping;

use super::Choice;
use crate::error::Result;
use crate::table::Prepared;

/// The share of training rows `auto` holds out for validation when none is given.
pub const AUTO_VAL_FRACTION: f32 = 0.2;
/// Fewer validation rows than this make no comparison: the network is kept.
pub const MIN_VAL_ROWS: usize = 30;
/// Patience of the best-epoch selection, in epochs: a network whose validation loss has not
/// improved for this many stops, keeping its best weights (on the 13 tables of
/// docs/BENCHMARKS.md, 20 cost panel_wages and wage 0.01 R²; 30 moved no score by more than
/// 0.0003 and saved a tenth of the time).
pub const BEST_EPOCH_PATIENCE: u64 = 30;
/// Encoding bands of `auto`'s second network.
pub const AUTO_PERIODIC: usize = 3;
/// The second network's run folder, inside the job's.
pub const PERIODIC_DIR: &str = "periodic";
/// Tables of more encoded columns train no periodic network (a periodic encoding is 7 times
/// wider); their second network reads piecewise-linear inputs instead, when those are at
/// most [`MAX_PIECEWISE_INPUTS`] columns.
pub const MAX_PERIODIC_INPUTS: usize = 100;
/// The most columns of piecewise-linear rows that `auto` trains a network on, on a table
/// too wide for a periodic network, when none was asked for: four times the hidden width,
/// so that the network costs at most about three times the plain one. On hotel_rates (188
/// encoded columns, 302 piecewise) that network's mean with the plain one raised the test
/// R² from 0.9452 to 0.9518 (three splits); loans (235 columns, 921 piecewise) kept the
/// plain network or the linear model with or without it, in four times the time
/// (docs/BENCHMARKS.md, "Wide tables").
pub const MAX_PIECEWISE_INPUTS: usize = 512;
/// Bins of each number's piecewise-linear encoding when none are asked (measured on the
/// 13 development tables with 8, 16 and 32: docs/BENCHMARKS.md, "Piecewise-linear inputs").
pub const AUTO_PIECEWISE_BINS: usize = 32;
/// The second network's run folder when it reads piecewise-linear inputs.
pub const PIECEWISE_DIR: &str = "piecewise";
/// The run folder, inside a fold's, of the default model's network on plain inputs trained
/// without weight decay (plain Adam), a candidate when bagged over folds. On the 13
/// development tables run as a user runs it, the bagged model's mean rose from 0.8117 to
/// 0.8150 (panel_wages 0.5653 to 0.6091; no table lower by more than 0.0025), on the 12
/// held-out tables from 0.7516 to 0.7519; the same network 256x3 wide, or with a learning
/// rate of 0.001, did not help (docs/BENCHMARKS.md, "A portfolio").
pub const UNDECAYED_DIR: &str = "plain-no-decay";
/// The run folder, inside a fold's, of the default model's network on plain inputs that
/// leaves out the categories of more than [`MANY_LEVELS`] levels, a candidate when bagged
/// over folds on a table that has such a category (docs/BENCHMARKS.md, "Categories of many
/// levels").
pub const FEW_LEVELS_DIR: &str = "plain-few-levels";
/// A category of more than this many levels is one that the network of
/// [`FEW_LEVELS_DIR`] leaves out.
pub const MANY_LEVELS: usize = 16;
/// What `auto`'s second network reads when nothing is asked.
pub const AUTO_SECOND: NumericEncoding = NumericEncoding::Periodic(AUTO_PERIODIC);

/// Bins of a third network, on piecewise-linear inputs, that `auto` trains beside a
/// periodic second one when nothing is asked (`None`: no third network). Measured on the 13
/// development tables against a piecewise second network instead of the periodic one, with
/// 8, 16 and 32 bins: docs/BENCHMARKS.md, "Piecewise-linear inputs".
pub const AUTO_THIRD_BINS: Option<usize> = Some(AUTO_PIECEWISE_BINS);

/// Whether `auto`'s network on `inputs` learns a factor per input column before its first
/// layer ([`nn::Scale`], folded into the first layer once trained): the networks on plain
/// and piecewise-linear inputs do, the periodic one not. Over the three splits of the 13
/// development tables the mean rose from 0.8059 to 0.8081 (churn +0.013, college +0.008,
/// panel_wages +0.004, hotel_rates +0.003; no table lower by more than 0.0011); with the
/// periodic network scaled too it fell to 0.8007 (panel_wages -0.06, car_prices -0.013):
/// docs/BENCHMARKS.md, "A learned scale per input".
pub fn learns_input_scale(inputs: NumericEncoding) -> bool {
    !matches!(inputs, NumericEncoding::Periodic(_))
}

/// `auto`'s third network, on piecewise-linear inputs: with [`AUTO_THIRD_BINS`] when the
/// second network is periodic and its inputs were not asked for.
pub fn third_network(
    second: NumericEncoding,
    asked: Option<NumericEncoding>,
) -> Option<NumericEncoding> {
    let periodic = matches!(second, NumericEncoding::Periodic(_));
    AUTO_THIRD_BINS
        .filter(|_| periodic && asked.is_none())
        .map(NumericEncoding::Piecewise)
}

/// How a table network reads the numbers of its encoded rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NumericEncoding {
    /// As they are (standardised).
    Plain,
    /// Beside the sines and cosines of this many frequency bands (the network's own
    /// positional encoding).
    Periodic(usize),
    /// Each number piecewise-linear in at most this many bins fitted on the training rows
    /// (the table encoding's, [`io::table::Piecewise`]).
    Piecewise(usize),
}

impl NumericEncoding {
    /// The inputs' name in a report line: `plain`, `periodic`, `piecewise`.
    pub fn name(self) -> &'static str {
        match self {
            NumericEncoding::Plain => "plain",
            NumericEncoding::Periodic(_) => "periodic",
            NumericEncoding::Piecewise(_) => "piecewise",
        }
    }

    /// The second network's run folder, inside the job's.
    pub fn dir(self) -> &'static str {
        match self {
            NumericEncoding::Piecewise(_) => PIECEWISE_DIR,
            _ => PERIODIC_DIR,
        }
    }
}

/// The validation share `auto` trains with: the one asked for, else [`AUTO_VAL_FRACTION`]
/// (a table too small for [`MIN_VAL_ROWS`] of them keeps its network without comparison).
pub fn validation_fraction(asked: Option<f32>) -> f32 {
    asked.unwrap_or(AUTO_VAL_FRACTION)
}

/// Early stopping as asked (`patience` epochs); for `auto` with validation rows and no
/// patience given, the best epoch's weights kept, stopping after [`BEST_EPOCH_PATIENCE`]
/// epochs without a better validation loss.
pub fn early_stopping(auto: bool, patience: Option<u64>, p: &Prepared) -> Option<EarlyStopping> {
    match patience {
        Some(n) => Some(EarlyStopping::new(n, 0.0)),
        None if auto && p.val.is_some() => Some(EarlyStopping::new(BEST_EPOCH_PATIENCE, 0.0)),
        None => None,
    }
}

/// What `auto`'s second network reads, if it trains one: `asked` (the second network's
/// inputs asked for), else [`AUTO_SECOND`], or piecewise-linear inputs in
/// [`AUTO_PIECEWISE_BINS`] bins on tables of more than [`MAX_PERIODIC_INPUTS`] encoded
/// columns; none when the first network's inputs were asked for (`first`), plain inputs
/// are asked for the second, there are fewer than [`MIN_VAL_ROWS`] validation rows, or
/// periodic inputs are asked on a table of more than [`MAX_PERIODIC_INPUTS`] columns.
pub fn second_network(
    first: Option<NumericEncoding>,
    asked: Option<NumericEncoding>,
    p: &Prepared,
) -> Option<NumericEncoding> {
    let val_rows = p.val.as_ref().map_or(0, |v| v.rows);
    let narrow = p.train.n_features <= MAX_PERIODIC_INPUTS;
    let second = match asked {
        Some(asked) => asked,
        None if narrow => AUTO_SECOND,
        None => NumericEncoding::Piecewise(AUTO_PIECEWISE_BINS),
    };
    let fits =
        val_rows >= MIN_VAL_ROWS && (narrow || matches!(second, NumericEncoding::Piecewise(_)));
    (first.is_none() && second != NumericEncoding::Plain && fits).then_some(second)
}

/// The most columns of the piecewise-linear rows `auto` trains a network on: none when
/// their network was `asked` for or the table has at most [`MAX_PERIODIC_INPUTS`] encoded
/// columns (beside a periodic network), [`MAX_PIECEWISE_INPUTS`] on a wider table, where
/// the piecewise network stands in for the periodic one.
pub fn piecewise_cap(asked: Option<NumericEncoding>, p: &Prepared) -> Option<usize> {
    (asked.is_none() && p.train.n_features > MAX_PERIODIC_INPUTS).then_some(MAX_PIECEWISE_INPUTS)
}

/// The kept model and whether it differs from the network in the run's checkpoint.
#[derive(Debug, Clone)]
pub struct Selected {
    /// The choice and its figures.
    pub choice: Choice,
    /// The checkpoint holds another candidate: the kept model must replace it.
    pub resave: bool,
}

/// Targets in the units the networks and the linear candidates take and output:
/// standardised values (a regression with `targets`), or class indices.
pub(crate) fn in_network_units(y: &[f32], targets: Option<&Standardizer>) -> Result<Vec<f32>> {
    Ok(match targets {
        Some(t) => t.transform(y)?,
        None => y.to_vec(),
    })
}
