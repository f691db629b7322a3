//! What a training job will need in memory, estimated before anything large is allocated, so
//! that an impossible request (`--hidden 100000,100000`, `--samples 100000000`) is refused in
//! one line instead of aborting the process when an allocation fails.
//!
//! The budget is the memory the system reports as available (`MemAvailable` on Linux), or
//! `IRON_LEARN_MEMORY_LIMIT` (bytes, or with a K/M/G/T suffix) when set. Where neither is
//! known, nothing is refused.

use crate::{Error, Result};
use io::image::MemoryBudget;
use nn::{EncodingConfig, MlpConfig};

/// The environment variable that caps the memory a run may plan to use.
pub const LIMIT_VAR: &str = "IRON_LEARN_MEMORY_LIMIT";

/// Memory of the program itself, whatever the job: its code, the allocator's and the worker
/// threads' own memory (a 3-step `approx` run peaks at 19 MB; table runs of 300,000 and
/// 1,000,000 rows peak 36 and 38 MB over the sum of their parts), added to every plan.
pub const PROGRAM_BYTES: f64 = 48.0 * 1024.0 * 1024.0;

/// Copies of the training data a run holds where it trains on a device: on the device, on the
/// host, and read back once for the data fingerprint. On the host it is read in place: one.
const DATA_COPIES: f64 = 3.0;

/// The parts of a training job's memory, in bytes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    /// Trainable parameters (their count).
    pub params: f64,
    /// Weights, gradients and the two Adam moments.
    pub model: f64,
    /// Layer outputs and gradients kept for one batch, plus evaluation of the other rows (for
    /// an image fit, the larger of drawing its reconstruction in bands and a checkpoint's
    /// copy of the weights and moments).
    pub activations: f64,
    /// The data on the device and its host copies.
    pub data: f64,
    /// The peak while the data is made (an image decoded and resized before its compact
    /// copy exists), when that exceeds the run's own parts; 0 where nothing is made first.
    pub loading: f64,
    /// What the job holds beside the run (a table as read, its validation and test rows):
    /// see [`beside`](Self::beside).
    pub held: f64,
}

impl Estimate {
    /// A network of `config` trained on `rows` input rows (`targets` target rows of
    /// `config.output` values), `batch` rows per step (`None`: all), evaluated on `eval_rows`
    /// more rows (evaluated [`nn::EVAL_ROWS`] at a time).
    pub fn training(
        config: &MlpConfig,
        rows: usize,
        targets: usize,
        batch: Option<usize>,
        eval_rows: usize,
    ) -> Self {
        let f = |v: usize| v as f64;
        let encoded = f(config.encoding.output_dim(config.input));
        let mut widths = vec![encoded];
        widths.extend(config.hidden.iter().map(|&h| f(h)));
        widths.push(f(config.output));
        let params = f(config.num_params());
        // Each layer keeps its output and pre-activation and has a gradient buffer.
        // Learned input factors keep the scaled input, a product and an input gradient.
        let scale = if config.input_scale { 3.0 } else { 0.0 } * f(config.input);
        let per_row: f64 = widths[1..].iter().map(|w| 3.0 * w).sum::<f64>() + encoded + scale;
        let step_rows = batch.map_or(f(rows), |b| f(b.min(rows)));
        let cached_encoding = match config.encoding {
            EncodingConfig::None => 0.0,
            _ => f(rows) * encoded,
        };
        let values = f(rows) * f(config.input) + f(targets) * f(config.output);
        const BYTES: f64 = 4.0;
        Estimate {
            params,
            model: 4.0 * params * BYTES,
            activations: ((step_rows + f(eval_rows.min(nn::EVAL_ROWS))) * per_row
                + cached_encoding)
                * BYTES,
            data: DATA_COPIES * values * BYTES,
            held: 0.0,
            loading: 0.0,
        }
    }

    /// The same where the data lives in host memory and is read in place: one copy of it
    /// instead of three (host, device, read back).
    pub fn data_in_host_memory(self) -> Self {
        Estimate {
            data: self.data / DATA_COPIES,
            ..self
        }
    }

    /// The same with `bytes` more that the job holds beside the run for its whole length
    /// (a table as read, validation and test rows), so that the check counts them too.
    pub fn beside(self, bytes: f64) -> Self {
        Estimate {
            held: bytes,
            ..self
        }
    }

    /// Everything, the program itself ([`PROGRAM_BYTES`]) included: the run's parts, or the
    /// making of its data where that peaks higher.
    pub fn total(&self) -> f64 {
        let running = self.model + self.activations + self.data + self.held;
        running.max(self.loading) + PROGRAM_BYTES
    }

    /// Refuses the job in one line when it cannot fit in `budget` bytes.
    pub fn check_against(&self, job: &str, budget: f64, source: &str) -> Result<()> {
        if self.total() <= budget {
            return Ok(());
        }
        let (part, hint) = [
            (
                format!(
                    "{} for the weights and Adam state of {} parameters",
                    bytes(self.model),
                    count(self.params)
                ),
                MemoryAdvice::SmallerNetwork,
            ),
            (
                format!("{} for layer activations", bytes(self.activations)),
                MemoryAdvice::SmallerBatches(None),
            ),
            (
                format!("{} for the data", bytes(self.data)),
                MemoryAdvice::FewerRows,
            ),
            (
                format!(
                    "{} for the table as read and the rows held beside the training rows",
                    bytes(self.held)
                ),
                MemoryAdvice::FewerRowsOrColumns,
            ),
        ]
        .into_iter()
        .zip([self.model, self.activations, self.data, self.held])
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(p, _)| p)
        .unwrap_or((String::new(), MemoryAdvice::FewerRows));
        Err(self.refusal(job, &part, (budget, source), hint))
    }

    /// The one sentence that refuses a job beyond the memory budget (`budget` bytes, from
    /// `source`): its total, what makes it so large (`part`) and what would fit (`advice`).
    pub fn refusal(
        &self,
        job: &str,
        part: &str,
        (budget, source): (f64, &str),
        advice: MemoryAdvice,
    ) -> Error {
        Error::OverBudget {
            message: format!(
                "{job} would need about {} of memory ({part}) but {} is available ({source})",
                bytes(self.total()),
                bytes(budget)
            ),
            advice,
        }
    }

    /// Refuses the job in one line when it cannot fit in the memory available now.
    pub fn check(&self, job: &str) -> Result<()> {
        match budget()? {
            Some(b) => self.check_against(job, b.bytes as f64, &b.source),
            None => Ok(()),
        }
    }
}

/// The memory check of a run that trains an MLP ([`Run::memory_check`](crate::Run)): the
/// run's estimate ([`Estimate::training`]), with `held` bytes the job keeps beside it,
/// against the budget; `job` names it in the refusal.
pub fn mlp_check<'a>(job: &'a str, held: f64) -> crate::MemoryCheck<'a, MlpConfig> {
    Box::new(move |config, size| {
        let (rows, targets, batch) = (size.rows, size.target_rows, size.batch);
        let estimate = Estimate::training(config, rows, targets, batch, size.eval_rows);
        let estimate = if size.data_in_host_memory {
            estimate.data_in_host_memory()
        } else {
            estimate
        };
        estimate.beside(held).check(job)
    })
}

/// What would bring a job within the memory budget (see [`Error::OverBudget`]); the
/// `iron-learn` tool names the options that do it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemoryAdvice {
    /// Smaller hidden layers.
    SmallerNetwork,
    /// The network alone is beyond the budget: this many bytes for this many parameters.
    NetworkAlone {
        /// Its bytes (weights and Adam state).
        bytes: u64,
        /// Its parameters.
        params: usize,
    },
    /// Smaller batches: of at most this many rows or pixels when known.
    SmallerBatches(Option<usize>),
    /// Fewer rows, points or pixels.
    FewerRows,
    /// Fewer rows or columns of a table.
    FewerRowsOrColumns,
    /// A smaller picture: a longest side of at most this many pixels.
    SmallerImage(u32),
}

impl std::fmt::Display for MemoryAdvice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MemoryAdvice::SmallerNetwork => f.write_str("use smaller hidden layers"),
            MemoryAdvice::NetworkAlone { bytes: b, params } => write!(
                f,
                "the network alone needs about {} ({params} parameters): use a smaller one",
                bytes(*b as f64)
            ),
            MemoryAdvice::SmallerBatches(Some(n)) => write!(f, "batches of {n} or fewer would fit"),
            MemoryAdvice::SmallerBatches(None) => {
                f.write_str("use fewer rows, points or pixels, or smaller batches")
            }
            MemoryAdvice::FewerRows => f.write_str("use fewer rows, points or pixels"),
            MemoryAdvice::FewerRowsOrColumns => f.write_str("use fewer rows or columns"),
            MemoryAdvice::SmallerImage(side) => write!(
                f,
                "the image is too large beside the network: a longest side of {side} pixels or \
                 less would fit"
            ),
        }
    }
}

/// The memory a run may use, and where that figure comes from, in the one form every job
/// and `io`'s image functions take; `None` where it is unknown.
pub fn budget() -> Result<Option<MemoryBudget>> {
    if let Ok(text) = std::env::var(LIMIT_VAR) {
        return match parse_size(&text) {
            Some(v) => Ok(Some(MemoryBudget::new(v as u64, LIMIT_VAR))),
            None => Err(Error::Refused(format!(
                "{LIMIT_VAR}={text:?} is not a size such as 512M or 4G"
            ))),
        };
    }
    Ok(available_memory().map(|v| {
        MemoryBudget::new(
            v as u64,
            "available memory; set IRON_LEARN_MEMORY_LIMIT to change it",
        )
    }))
}

/// `123`, `512K`, `64M`, `4G`, `1.5T` (powers of 1024; a trailing `B` or `iB` is allowed).
pub fn parse_size(text: &str) -> Option<f64> {
    let t = text
        .trim()
        .trim_end_matches(['B', 'b'])
        .trim_end_matches('i');
    let (number, unit) = match t.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => (&t[..i], c.to_ascii_uppercase()),
        _ => (t, ' '),
    };
    let scale = match unit {
        ' ' => 1.0,
        'K' => 1024.0,
        'M' => 1024f64.powi(2),
        'G' => 1024f64.powi(3),
        'T' => 1024f64.powi(4),
        _ => return None,
    };
    let v: f64 = number.trim().parse().ok()?;
    (v.is_finite() && v >= 0.0).then_some(v * scale)
}

/// `MemAvailable` from `/proc/meminfo`, in bytes.
fn available_memory() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024.0)
}

/// Bytes for people: `1.5 GB` (the library's formatting).
pub use io::image::human_bytes as bytes;

/// Counts for people: `10.0 billion`.
fn count(v: f64) -> String {
    match v {
        v if v >= 1e9 => format!("{:.1} billion", v / 1e9),
        v if v >= 1e6 => format!("{:.1} million", v / 1e6),
        v => format!("{v:.0}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nn::{Activation, Init};

    fn mlp(input: usize, hidden: &[usize], output: usize) -> MlpConfig {
        MlpConfig {
            input,
            input_scale: false,
            learned_frequencies: false,
            encoding: EncodingConfig::None,
            hidden: hidden.to_vec(),
            hidden_activation: Activation::Relu,
            output,
            output_activation: Activation::Identity,
            init: Init::default(),
        }
    }

    #[test]
    fn parameters_and_bytes_follow_the_shapes() {
        let e = Estimate::training(&mlp(3, &[5], 2), 10, 10, None, 0);
        assert_eq!(e.params, (3 * 5 + 5 + 5 * 2 + 2) as f64);
        assert_eq!(e.model, 16.0 * e.params);
        assert_eq!(e.activations, 10.0 * (3.0 * 7.0 + 3.0) * 4.0);
        assert_eq!(e.data, 3.0 * (10.0 * 3.0 + 10.0 * 2.0) * 4.0);
        let batched = Estimate::training(&mlp(3, &[5], 2), 10, 10, Some(4), 0);
        assert!(batched.activations < e.activations);
        // Read in place on the host: the data once, the rest unchanged.
        let host = e.data_in_host_memory();
        assert_eq!(host.data, (10.0 * 3.0 + 10.0 * 2.0) * 4.0);
        assert_eq!((host.model, host.activations), (e.model, e.activations));
    }

    #[test]
    fn impossible_networks_are_refused_in_one_line() {
        // The `mlp --hidden 100000,100000` of a 4-column table: 1e10 parameters.
        let e = Estimate::training(&mlp(3, &[100_000, 100_000], 1), 800, 800, Some(64), 200);
        let msg = e
            .check_against("mlp", 64.0 * 1024f64.powi(3), "test")
            .unwrap_err()
            .to_string();
        assert!(
            msg.contains("10.0 billion parameters") && msg.contains("hidden"),
            "{msg}"
        );
        assert!(!msg.contains('\n'));
        let small = Estimate::training(&mlp(2, &[4], 1), 4, 4, None, 0);
        small
            .check_against("xor", PROGRAM_BYTES + 1e6, "test")
            .unwrap();
    }

    /// What a job holds beside the run (a table as read, its other rows) is counted with the
    /// run, and named when it is the largest part.
    #[test]
    fn memory_held_beside_the_run_counts() {
        let e = Estimate::training(&mlp(3, &[5], 2), 10, 10, None, 0).data_in_host_memory();
        let budget = e.total() + 100.0;
        e.check_against("mlp", budget, "test").unwrap();
        let with_table = e.beside(1e6);
        assert_eq!(with_table.total(), e.total() + 1e6);
        assert_eq!(e.total(), e.model + e.activations + e.data + PROGRAM_BYTES);
        let msg = with_table
            .check_against("mlp", budget, "test")
            .unwrap_err()
            .to_string();
        assert!(msg.contains("for the table as read"), "{msg}");
    }

    /// Validation rows beyond the trainer's evaluation chunk add no activations: they are
    /// evaluated `nn::EVAL_ROWS` at a time.
    #[test]
    fn validation_activations_are_those_of_one_chunk() {
        let config = mlp(3, &[5], 2);
        let chunk = Estimate::training(&config, 10, 10, Some(4), nn::EVAL_ROWS);
        let more = Estimate::training(&config, 10, 10, Some(4), 50 * nn::EVAL_ROWS);
        assert_eq!(chunk.activations, more.activations);
        let fewer = Estimate::training(&config, 10, 10, Some(4), 100);
        assert!(fewer.activations < chunk.activations);
    }

    #[test]
    fn sizes_parse() {
        assert_eq!(parse_size("512"), Some(512.0));
        assert_eq!(parse_size("2K"), Some(2048.0));
        assert_eq!(parse_size("1.5G"), Some(1.5 * 1024f64.powi(3)));
        assert_eq!(parse_size("64MiB"), Some(64.0 * 1024f64.powi(2)));
        assert_eq!(parse_size("lots"), None);
        assert_eq!(parse_size("-1G"), None);
    }
}
