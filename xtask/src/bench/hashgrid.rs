//! `cargo xtask bench hashgrid`: the hash-grid encoding's forward and backward passes at the
//! size of an image-fitting training step: 2^16 points, 16 levels of 2 features, tables of
//! 2^18 entries, resolutions 16 to 2048 (a 3-D row for comparison).
//!
//! Points are uniform in the unit square (as sampled pixels are), tables uniform in
//! `[-1e-4, 1e-4]` as the recipe initialises them. The backward pass overwrites the table
//! gradient, so its time includes clearing it.

use super::options::Options;
use super::{BenchResult, median_secs};
use tensor_core::rand::SeedableRng;
use tensor_core::rand_chacha::ChaCha8Rng;
use tensor_core::{FeatureLayout, HashGridConfig, HashGridScale, Primitives, Tensor};
use tensor_cpu::CpuBackend;

const POINTS: usize = 1 << 16;

/// Times one encoding and prints its row.
fn case(cpu: &CpuBackend, dims: usize, layout: FeatureLayout, reps: usize) -> BenchResult {
    let spec = HashGridConfig {
        dims,
        levels: 16,
        features: 2,
        log2_table_size: 18,
        base_resolution: 16,
        scale: HashGridScale::Finest(2048),
    }
    .validate()?;
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let points = Tensor::rand_uniform(cpu, [POINTS, dims], 0.0, 1.0, &mut rng)?;
    let table_dims = [spec.table_entries(), spec.features()];
    let tables = Tensor::rand_uniform(cpu, table_dims, -1e-4, 1e-4, &mut rng)?;
    let shape = layout.shape(POINTS, spec.output_dim());
    let mut features = Tensor::zeros(cpu, shape)?;
    let grad = Tensor::rand_uniform(cpu, shape, -1.0, 1.0, &mut rng)?;
    let mut grad_tables = Tensor::zeros(cpu, table_dims)?;
    let forward = median_secs(3, reps, || {
        Ok(points.hashgrid_encode_into(&spec, &tables, layout, &mut features)?)
    })?;
    let backward = median_secs(3, reps, || {
        Ok(points.hashgrid_backward_into(&spec, layout, &grad, &mut grad_tables, false)?)
    })?;
    let both = median_secs(3, reps, || {
        points.hashgrid_encode_into(&spec, &tables, layout, &mut features)?;
        Ok(points.hashgrid_backward_into(&spec, layout, &grad, &mut grad_tables, false)?)
    })?;
    let hashed = spec.levels().iter().filter(|l| l.hashed).count();
    println!(
        "| {dims}-D, {:>2} hashed | {:<13} | {:>7.2}M | {:>8.2} | {:>8.2} | {:>8.2} | {:>9.1} |",
        hashed,
        format!("{layout:?}"),
        spec.param_count() as f64 / 1e6,
        forward * 1e3,
        backward * 1e3,
        both * 1e3,
        (POINTS * spec.levels().len()) as f64 / both / 1e6,
    );
    Ok(())
}

/// Prints the table.
pub fn run(opts: &Options) -> BenchResult {
    let cpu = CpuBackend::new();
    let reps = opts.reps.unwrap_or(15);
    println!(
        "hash-grid encoding, {POINTS} points, 16 levels x 2 features, T = 2^18, resolutions \
         16..2048, {}, median of {reps}",
        cpu.name()
    );
    println!();
    println!(
        "| {:<14} | {:<13} | {:>8} | {:>8} | {:>8} | {:>8} | {:>9} |",
        "input", "layout", "params", "fwd ms", "bwd ms", "both ms", "Mlookup/s"
    );
    println!(
        "|{:-<16}|{:-<15}|{:->10}|{:->10}|{:->10}|{:->10}|{:->11}|",
        "", "", "", "", "", "", ""
    );
    for (dims, layout) in [
        (2, FeatureLayout::FeatureMajor),
        (2, FeatureLayout::PointMajor),
        (3, FeatureLayout::FeatureMajor),
    ] {
        case(&cpu, dims, layout, reps)?;
    }
    Ok(())
}
