//! Timing training steps of SIRENs or of hash-grid models on a device, as a library call:
//! what `iron-learn bench train` runs ([`bench_training`]), one network after another on
//! the same random points.

use crate::Result;
use crate::timing::{StepTimes, time_steps};
use nn::{
    Activation, AdamConfig, GridScale, HashGridMlp, HashGridMlpConfig, HiddenLayers, Mlp, Model,
};
use tensor_core::rand::SeedableRng;
use tensor_core::rand_chacha::ChaCha8Rng;
use tensor_core::{Backend, Tensor};
use train::budget::Estimate;

/// The job name of a benchmark, in its memory refusals.
pub const JOB: &str = "bench train";

/// What to time.
#[derive(Debug, Clone, PartialEq)]
pub struct BenchOptions {
    /// The hidden layers of each network timed.
    pub networks: Vec<HiddenLayers>,
    /// Random points of every step (at least 1).
    pub points: usize,
    /// Timed steps of each network (at least 1).
    pub reps: usize,
    /// Time hash-grid models with tables of 2^this entries (colour outputs, coordinates in
    /// [0, 1]) instead of SIRENs (gray outputs, coordinates in [-1, 1]).
    pub hashgrid: Option<u32>,
}

/// Refuses, before anything is allocated, a network that cannot train on the points within
/// the memory budget.
pub fn check_bench<B: Backend>(options: &BenchOptions) -> Result<()> {
    let n = options.points.max(1);
    for hidden in &options.networks {
        let config = Mlp::<B>::builder()
            .input(2)
            .siren(hidden.widths())
            .output(1, Activation::Identity)
            .config(0)?;
        Estimate::training(&config, n, n, None, 0).check(JOB)?;
    }
    Ok(())
}

/// Times the training steps of each network in turn on the same random points, handing
/// each one's times to `timed` with its index as soon as they are known.
pub fn bench_training<B: Backend>(
    backend: &B,
    options: &BenchOptions,
    timed: &mut dyn FnMut(usize, &StepTimes),
) -> Result<()> {
    check_bench::<B>(options)?;
    let n = options.points.max(1);
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    // Hash grids take coordinates in [0, 1] and fit colour; SIRENs [-1, 1] and gray.
    let (lo, outputs) = if options.hashgrid.is_some() {
        (0.0, 3)
    } else {
        (-1.0, 1)
    };
    let x = Tensor::rand_uniform(backend, [n, 2], lo, 1.0, &mut rng)?;
    let y = Tensor::rand_uniform(backend, [n, outputs], 0.0, 1.0, &mut rng)?;
    for (i, hidden) in options.networks.iter().enumerate() {
        let t = time_network(backend, options, hidden.widths(), (&x, &y))?;
        timed(i, &t);
    }
    Ok(())
}

/// Times the training steps of the network of `hidden` layers the options ask for: a
/// hash-grid model or a SIREN.
fn time_network<B: Backend>(
    backend: &B,
    options: &BenchOptions,
    hidden: &[usize],
    (x, y): (&Tensor<B>, &Tensor<B>),
) -> Result<StepTimes> {
    match options.hashgrid {
        Some(log2) => {
            let config = HashGridMlpConfig {
                log2_table_size: log2,
                scale: GridScale::Finest(512),
                hidden: hidden.to_vec(),
                input_range: [0.0, 1.0],
                ..HashGridMlpConfig::new(y.dims()[1], 512)
            };
            let model = HashGridMlp::from_config(backend, &config, 0)?;
            let adam = AdamConfig::hash_grid(1e-2);
            time_steps(backend, model, adam, (x, y), options.reps, false)
        }
        None => {
            let model = Mlp::builder()
                .input(2)
                .siren(hidden)
                .output(1, Activation::Identity)
                .build(backend, 0)?;
            let adam = AdamConfig::new(1e-4);
            time_steps(backend, model, adam, (x, y), options.reps, true)
        }
    }
}
