//! The same inputs give bit-identical outputs with one thread and with two: GEMM splits
//! fall on block boundaries, sums use fixed chunks added in order, and element-wise results
//! do not depend on how the work is cut.

use crate::common::*;
use tensor_core::fused::traits::*;
use tensor_core::{Activation, AdamStep, LossKind, ReduceOp, Tensor, UnaryOp};
use tensor_core::{AdamMoments, BiasAct, LossGrad, Primitives};

/// Every output of a workload that exercises each parallel path, concatenated.
fn workload() -> Vec<Vec<f32>> {
    let cpu = cpu();
    let mut r = rng(60);
    let mut outs = Vec::new();
    // GEMM split by rows (m >= n), by columns and along k (small results of long products),
    // with partial tiles, and transposed reads; products with one long dimension.
    for &(m, k, n, ta, tb) in &[
        (300, 100, 200, false, false),
        (70, 300, 400, true, false),
        (513, 129, 67, false, true),
        (256, 4000, 256, true, false),
        (40, 20000, 24, true, false),
        (64, 17001, 3, false, true),
        // One long dimension and two short ones, each kernel and operand order.
        (5000, 64, 64, false, false),
        (4001, 32, 64, true, false),
        (3001, 64, 3, false, true),
        (32, 64, 5003, false, true),
        (19, 40, 3000, false, false),
    ] {
        let a = rand_tensor(&mut r, &if ta { [k, m] } else { [m, k] }, -1.0, 1.0);
        let b = rand_tensor(&mut r, &if tb { [n, k] } else { [k, n] }, -1.0, 1.0);
        let mut c = rand_tensor(&mut r, &[m, n], -1.0, 1.0);
        Tensor::matmul_into(&a, &b, &mut c, ta, tb, 0.7, 0.3).unwrap();
        outs.push(host(&c));
    }
    // Reductions along each axis and over everything, large enough to split.
    let x = rand_tensor(&mut r, &[30, 5000, 3], -1.0, 1.0);
    for axis in [Some(0), Some(1), Some(2), None] {
        for op in [ReduceOp::Sum, ReduceOp::Mean, ReduceOp::ArgMax] {
            outs.push(host(&x.reduce(op, axis, false).unwrap()));
        }
    }
    // Element-wise, with some sine arguments out of the fast range.
    let mut v = uniform(&mut r, 200_003, -40.0, 40.0);
    v[77_777] = 1e6;
    v[150_000] = f32::NAN;
    let y = Tensor::from_slice(&cpu, &v, [v.len()]).unwrap();
    for op in [
        UnaryOp::Sin,
        UnaryOp::Cos,
        UnaryOp::Exp,
        UnaryOp::Act(Activation::Tanh),
    ] {
        outs.push(host(&y.unary(op).unwrap()));
    }
    let row = rand_tensor(&mut r, &[1000], -1.0, 1.0);
    let m = rand_tensor(&mut r, &[200, 1000], -1.0, 1.0);
    outs.push(host(&(&m * &row).unwrap()));
    // Fused operations.
    let (rows, cols) = (500, 300);
    let mut z = uniform(&mut r, rows * cols, -1.0, 1.0);
    let bias = uniform(&mut r, cols, -1.0, 1.0);
    let mut out = vec![0.0; rows * cols];
    let sine = Activation::Sine { w0: 30.0 };
    cpu.bias_act(
        BiasAct {
            bias: &bias,
            rows,
            cols,
            act: sine,
        },
        &mut z,
        &mut out,
    )
    .unwrap();
    outs.push(out.clone());
    let mut gz = vec![0.0; rows * cols];
    cpu.act_backward(&out, &z, sine, &mut gz).unwrap();
    outs.push(gz);
    for kind in [
        LossKind::Mse,
        LossKind::BceWithLogits,
        LossKind::SoftmaxCrossEntropy,
    ] {
        let t = uniform(&mut r, rows * cols, 0.0, 1.0);
        let (mut grad, mut loss) = (vec![0.0; rows * cols], vec![0.0]);
        cpu.loss_grad(
            LossGrad {
                kind,
                pred: &out,
                target: &t,
                rows,
                cols,
            },
            &mut grad,
            &mut loss,
        )
        .unwrap();
        outs.push(grad);
        outs.push(loss);
    }
    let s = AdamStep {
        lr: 1e-3,
        beta1: 0.9,
        beta2: 0.999,
        eps: 1e-8,
        weight_decay: 0.01,
        decoupled: true,
        bias_correction1: 0.1,
        bias_correction2: 0.001,
    };
    let (mut p, mut mo, mut ve) = (z.clone(), vec![0.0; z.len()], vec![0.0; z.len()]);
    cpu.adam_step(
        s,
        &mut p,
        &out,
        AdamMoments {
            m: &mut mo,
            v: &mut ve,
        },
    )
    .unwrap();
    outs.extend([p, mo, ve]);
    outs
}

#[test]
fn one_thread_and_two_threads_give_the_same_bits() {
    let one = with_threads(1, workload);
    let two = with_threads(2, workload);
    assert_eq!(one.len(), two.len());
    for (i, (a, b)) in one.iter().zip(&two).enumerate() {
        assert_bits_eq(a, b, &format!("output {i}"));
    }
}

/// The backend says independent work runs side by side only where its pool has more than
/// one thread (what lets a caller train independent models at once, with these same bits).
#[test]
fn independent_work_runs_side_by_side_only_with_more_than_one_thread() {
    assert!(!with_threads(1, || cpu().runs_side_by_side()));
    assert!(with_threads(2, || cpu().runs_side_by_side()));
}

/// Work run beside other work runs on one thread of its own, with the bits it has on two.
#[test]
fn work_run_beside_other_work_has_one_thread_and_the_same_bits() {
    let cpu = cpu();
    let beside = with_threads(2, || {
        cpu.run_beside(|| (rayon::current_num_threads(), workload()))
    });
    assert_eq!(beside.0, 1);
    let two = with_threads(2, workload);
    for (i, (a, b)) in beside.1.iter().zip(&two).enumerate() {
        assert_bits_eq(a, b, &format!("output {i}"));
    }
}
