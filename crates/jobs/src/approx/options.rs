//! What a function fit is asked to do: [`ApproxOptions`].

use nn::HiddenLayers;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use train::Settings;

/// The fewest sample points a fit takes.
pub const MIN_SAMPLES: usize = 10;
/// Sample points of a fit by default.
pub const DEFAULT_SAMPLES: usize = 2000;
/// Hidden layers of a fit by default: three tanh layers of 64.
pub const DEFAULT_HIDDEN: [usize; 3] = [64, 64, 64];

/// How to fit a function; [`ApproxOptions::new`] gives the defaults of every choice.
#[derive(Debug, Clone)]
pub struct ApproxOptions {
    /// The function of `x`, as text (`(x^2+x^3)/x^5`, `sin(2*x)`).
    pub function: String,
    /// The interval sampled, `(a, b)` with `a < b`.
    pub range: (f64, f64),
    /// Evenly spaced sample points of the interval, at least [`MIN_SAMPLES`].
    pub samples: usize,
    /// Learn the sign of the function (a classifier) instead of its value.
    pub classify: bool,
    /// The network's hidden layers (tanh).
    pub hidden: HiddenLayers,
    /// The run folder; the caller creates it and keeps other runs out of it.
    pub out: PathBuf,
    /// The run's settings (learning rate, length, batch, schedule, seed, resume...).
    pub settings: Settings,
    /// A flag that, once set (by a signal handler), stops training at the next step; the
    /// run checkpoints and still scores and draws what it has.
    pub stop: Option<Arc<AtomicBool>>,
}

impl ApproxOptions {
    /// A fresh fit of `function` on `range` into `out`: [`DEFAULT_SAMPLES`] points,
    /// [`DEFAULT_HIDDEN`] layers, the settings of [`defaults::APPROX`](crate::defaults::APPROX).
    pub fn new(function: impl Into<String>, range: (f64, f64), out: impl Into<PathBuf>) -> Self {
        ApproxOptions {
            function: function.into(),
            range,
            samples: DEFAULT_SAMPLES,
            classify: false,
            hidden: HiddenLayers(DEFAULT_HIDDEN.to_vec()),
            out: out.into(),
            settings: Settings::from_defaults(&crate::defaults::APPROX),
            stop: None,
        }
    }
}
