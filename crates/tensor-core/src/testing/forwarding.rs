//! Does a wrapper backend hand every fused operation to the backend it wraps?
//!
//! A wrapper (a timer, a counter, a tracer) implements [`FusedOps`](crate::FusedOps) by
//! naming, for each operation, either its inner backend's method or a default composition
//! from [`fused`](crate::fused). The second compiles and gives nearly the same numbers, but
//! measures or runs something else. [`unforwarded_ops`] runs each fused operation once
//! through the wrapper and once on the inner backend, on the same inputs, and lists the
//! operations whose inner activity counters or results differ.
//!
//! ```ignore
//! let cpu = CpuBackend::new();
//! let timed = Timed::new(cpu.clone());
//! assert_eq!(unforwarded_ops(&timed, &cpu), Vec::<&str>::new());
//! ```

use crate::mlp_pass::{DenseGrad, DenseRef, relu_mlp_mse_pass};
use crate::{
    Activation, AdamStep, Backend, Counters, FeatureLayout, HashGridConfig, HashGridScale,
    LossKind, Result, SgdStep, Tensor,
};

/// The fused operations, in trait order, as [`unforwarded_ops`] names them.
pub const FUSED_OPS: [&str; 11] = [
    "bias_act",
    "gemm_bias_act",
    "relu_mlp_mse_pass",
    "gemm_act_grad",
    "act_backward",
    "loss_grad",
    "adam_step",
    "sgd_step",
    "fourier_features",
    "hashgrid_forward",
    "hashgrid_backward",
];

/// The fused operations that `wrapper` does not hand to `inner`: those whose call through
/// the wrapper changes `inner`'s counters differently from a direct call, or gives other
/// values. Empty for a wrapper that forwards everything. `wrapper` must read and write
/// `inner`'s buffers and report `inner`'s counters.
///
/// # Panics
///
/// When an operation fails on either backend (the inputs are valid).
pub fn unforwarded_ops<W, B>(wrapper: &W, inner: &B) -> Vec<&'static str>
where
    W: Backend<Storage = B::Storage, Index = B::Index>,
    B: Backend,
{
    FUSED_OPS
        .iter()
        .copied()
        .filter(|&op| {
            let via_wrapper = probe(wrapper, inner, op);
            let direct = probe(inner, inner, op);
            via_wrapper != direct
        })
        .collect()
}

/// Runs `op` on `x` and returns what it changed in `inner`'s counters and its outputs.
/// The values are compared as bits, so that a NaN (Adam's moments start anywhere here) equals
/// itself.
fn probe<X: Backend, B: Backend>(x: &X, inner: &B, op: &str) -> (Counters, Vec<Vec<u32>>) {
    let what = format!("{op} on {}", x.name());
    let mut setup = match inputs(x, op) {
        Ok(setup) => setup,
        Err(e) => panic!("{what}: inputs: {e}"),
    };
    let before = inner.counters();
    if let Err(e) = run(&mut setup, op) {
        panic!("{what}: {e}");
    }
    let after = inner.counters();
    let delta = Counters {
        allocations: after.allocations - before.allocations,
        bytes_uploaded: after.bytes_uploaded - before.bytes_uploaded,
        bytes_downloaded: after.bytes_downloaded - before.bytes_downloaded,
        launches: after.launches - before.launches,
    };
    let outputs = setup
        .outputs
        .iter()
        .map(|t| t.to_vec())
        .collect::<Result<Vec<_>>>();
    match outputs {
        Ok(values) => {
            let bits = values
                .iter()
                .map(|v| v.iter().map(|x| x.to_bits()).collect());
            (delta, bits.collect())
        }
        Err(e) => panic!("{what}: download: {e}"),
    }
}

/// The tensors one operation reads (`inputs`) and writes (`outputs`).
struct Setup<X: Backend> {
    inputs: Vec<Tensor<X>>,
    outputs: Vec<Tensor<X>>,
}

/// A deterministic, non-trivial tensor of the shape `dims`, values in about `[-1, 1]`.
fn values<X: Backend>(x: &X, dims: &[usize], seed: usize) -> Result<Tensor<X>> {
    let n = dims.iter().product::<usize>();
    let data: Vec<f32> = (0..n)
        .map(|i| (((i + 3 * seed) * 37 % 23) as f32 / 11.0) - 1.0)
        .collect();
    Tensor::from_slice(x, &data, dims)
}

fn inputs<X: Backend>(x: &X, op: &str) -> Result<Setup<X>> {
    let v = |dims: &[usize], seed| values(x, dims, seed);
    let (inputs, outputs) = match op {
        "bias_act" => (vec![v(&[4], 1)?], vec![v(&[3, 4], 2)?, v(&[3, 4], 3)?]),
        "gemm_bias_act" | "gemm_act_grad" => {
            let ins = vec![v(&[3, 5], 1)?, v(&[5, 4], 2)?, v(&[4], 3)?, v(&[3, 4], 4)?];
            (ins, vec![v(&[3, 4], 5)?])
        }
        "relu_mlp_mse_pass" => {
            let (x0, w0, b0) = (v(&[6, 2], 1)?, v(&[2, 4], 2)?, v(&[4], 3)?);
            let (w1, b1, target) = (v(&[4, 1], 4)?, v(&[1], 5)?, v(&[6, 1], 6)?);
            let outs = vec![
                v(&[2, 4], 7)?,
                v(&[4], 8)?,
                v(&[4, 1], 9)?,
                v(&[1], 1)?,
                v(&[1], 2)?,
            ];
            (vec![x0, w0, b0, w1, b1, target], outs)
        }
        "act_backward" => (vec![v(&[3, 4], 1)?, v(&[3, 4], 2)?], vec![v(&[3, 4], 3)?]),
        "loss_grad" => {
            let ins = vec![v(&[3, 4], 1)?, v(&[3, 4], 2)?];
            (ins, vec![v(&[3, 4], 3)?, v(&[1], 4)?])
        }
        "adam_step" | "sgd_step" => {
            let outs = vec![v(&[3, 4], 2)?, v(&[3, 4], 3)?, v(&[3, 4], 4)?];
            (vec![v(&[3, 4], 1)?], outs)
        }
        "fourier_features" => (vec![v(&[3, 2], 1)?, v(&[2, 4], 2)?], vec![v(&[3, 8], 3)?]),
        "hashgrid_forward" | "hashgrid_backward" => {
            let spec = grid()?;
            let (entries, features) = (spec.table_entries(), spec.features());
            let points = Tensor::from_slice(x, &[0.1, 0.7, 0.5, 0.25, 0.9, 0.0], [3, 2])?;
            let tables = v(&[entries, features], 1)?;
            let grad_features = v(&[3, spec.output_dim()], 2)?;
            let outs = vec![v(&[3, spec.output_dim()], 3)?, v(&[entries, features], 4)?];
            (vec![points, tables, grad_features], outs)
        }
        _ => unreachable!("{op} is not a fused operation"),
    };
    Ok(Setup { inputs, outputs })
}

/// A small grid with a dense level and a hashed one.
fn grid() -> Result<crate::HashGridSpec> {
    HashGridConfig {
        dims: 2,
        levels: 2,
        features: 2,
        log2_table_size: 4,
        base_resolution: 2,
        scale: HashGridScale::Finest(8),
    }
    .validate()
}

fn adam() -> AdamStep {
    AdamStep {
        lr: 0.1,
        beta1: 0.9,
        beta2: 0.99,
        eps: 1e-8,
        weight_decay: 0.01,
        decoupled: true,
        bias_correction1: 0.1,
        bias_correction2: 0.01,
    }
}

fn run<X: Backend>(s: &mut Setup<X>, op: &str) -> Result<()> {
    let (i, o) = (&s.inputs, s.outputs.as_mut_slice());
    let act = Activation::Tanh;
    let layout = FeatureLayout::PointMajor;
    match (op, o) {
        ("bias_act", [z, out]) => z.bias_act_into(&i[0], act, out),
        ("gemm_bias_act", [c]) => {
            Tensor::matmul_bias_act_into((&i[0], false), (&i[1], false), &i[2], act, c)
        }
        ("gemm_act_grad", [c]) => {
            Tensor::matmul_act_grad_into((&i[0], false), (&i[1], false), &i[3], act, c)
        }
        ("relu_mlp_mse_pass", [gw0, gb0, gw1, gb1, loss]) => {
            let layers = [
                DenseRef {
                    weight: &i[1],
                    bias: &i[2],
                },
                DenseRef {
                    weight: &i[3],
                    bias: &i[4],
                },
            ];
            let mut grads = [
                DenseGrad {
                    weight: gw0,
                    bias: gb0,
                },
                DenseGrad {
                    weight: gw1,
                    bias: gb1,
                },
            ];
            relu_mlp_mse_pass(&i[0], layout, &layers, &i[5], &mut grads, None, loss).map(|_| ())
        }
        ("act_backward", [grad_z]) => i[0].act_backward_into(&i[1], act, grad_z),
        ("loss_grad", [grad, loss]) => i[0].loss_grad_into(LossKind::Mse, &i[1], grad, loss),
        ("adam_step", [param, m, v]) => param.adam_step(adam(), &i[0], m, v),
        ("sgd_step", [param, velocity, _]) => {
            let step = SgdStep {
                lr: 0.1,
                momentum: 0.9,
                nesterov: true,
                weight_decay: 0.01,
            };
            param.sgd_step(step, &i[0], Some(velocity))
        }
        ("fourier_features", [out]) => i[0].fourier_features_into(&i[1], out),
        ("hashgrid_forward", [out, _]) => i[0].hashgrid_encode_into(&grid()?, &i[1], layout, out),
        ("hashgrid_backward", [_, grad_tables]) => {
            i[0].hashgrid_backward_into(&grid()?, layout, &i[2], grad_tables, true)
        }
        (op, _) => unreachable!("{op} is not a fused operation with these outputs"),
    }
}
