//! Does a wrapper backend hand every fused operation to the backend it wraps?
//!
//! A wrapper (a timer, a counter, a tracer) that implements
//! [`BackendWrapper`](crate::BackendWrapper) forwards every fused operation; one that
//! implements the operations' traits itself names, for each, either its inner backend's
//! method or a default composition from [`fused`](crate::fused). A composition compiles and
//! gives nearly the same numbers, but measures or runs something else. [`unforwarded_ops`]
//! runs each fused operation once through the wrapper and once on the inner backend, on the
//! same inputs (each operation's `probe_inputs` and `probe_run` in its checks module), and
//! lists the operations whose inner activity counters or results differ.
//!
//! ```ignore
//! let cpu = CpuBackend::new();
//! let timed = Timed::new(cpu.clone());
//! assert_eq!(unforwarded_ops(&timed, &cpu), Vec::<&str>::new());
//! ```

pub use crate::fused::FUSED_OPS;
use crate::{Backend, Counters, Result, Tensor};

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
    let mut probe = match probe_inputs(x, op) {
        Ok(probe) => probe,
        Err(e) => panic!("{what}: inputs: {e}"),
    };
    let before = inner.counters();
    if let Err(e) = probe_run(&mut probe, op) {
        panic!("{what}: {e}");
    }
    let after = inner.counters();
    let delta = Counters {
        allocations: after.allocations - before.allocations,
        bytes_uploaded: after.bytes_uploaded - before.bytes_uploaded,
        bytes_downloaded: after.bytes_downloaded - before.bytes_downloaded,
        launches: after.launches - before.launches,
    };
    let outputs = probe
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

/// The tensors one call of a fused operation reads (`inputs`) and writes (`outputs`), made
/// by the `probe_inputs` of the operation's checks module and passed to its `probe_run`.
pub struct Probe<X: Backend> {
    /// What the operation reads.
    pub inputs: Vec<Tensor<X>>,
    /// What it writes (and, for updates, reads first).
    pub outputs: Vec<Tensor<X>>,
}

/// Defines `probe_inputs` and `probe_run`, which call those of the named operation's checks
/// module.
macro_rules! probe_dispatch {
    ([ $($name:ident: $op:ident { $($check:ident),* $(,)? }),* $(,)? ]) => {
        /// The inputs and outputs of one call of the fused operation `op`.
        fn probe_inputs<X: Backend>(x: &X, op: &str) -> Result<Probe<X>> {
            match op {
                $( stringify!($name) => super::$name::probe_inputs(x), )*
                _ => unreachable!("{op} is not a fused operation"),
            }
        }

        /// One call of the fused operation `op` on what [`probe_inputs`] made.
        fn probe_run<X: Backend>(probe: &mut Probe<X>, op: &str) -> Result<()> {
            match op {
                $( stringify!($name) => super::$name::probe_run(probe), )*
                _ => unreachable!("{op} is not a fused operation"),
            }
        }
    };
}

crate::for_each_fused_op!(probe_dispatch);

/// A deterministic, non-trivial tensor of the shape `dims`, values in about `[-1, 1]`: the
/// inputs of the operations' probes.
pub fn values<X: Backend>(x: &X, dims: &[usize], seed: usize) -> Result<Tensor<X>> {
    let n = dims.iter().product::<usize>();
    let data: Vec<f32> = (0..n)
        .map(|i| (((i + 3 * seed) * 37 % 23) as f32 / 11.0) - 1.0)
        .collect();
    Tensor::from_slice(x, &data, dims)
}
