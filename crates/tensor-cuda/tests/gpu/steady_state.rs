//! After warm-up, a training step on preallocated buffers moves nothing between host and
//! device and allocates nothing.

use crate::common::*;
use tensor_core::fused::traits::*;
use tensor_core::{Activation, AdamStep, Counters, Gemm, LossKind, Primitives, ReduceOp};
use tensor_core::{AdamMoments, BiasAct, LossGrad, ReduceSpec};
use tensor_cuda::{CudaBackend, CudaStorage};

/// One dense layer `y = act(x W + b)` with an MSE loss and Adam, on device buffers.
struct Step {
    rows: usize,
    inputs: usize,
    outputs: usize,
    x: CudaStorage,
    target: CudaStorage,
    w: CudaStorage,
    b: CudaStorage,
    z: CudaStorage,
    y: CudaStorage,
    grad_y: CudaStorage,
    grad_z: CudaStorage,
    grad_w: CudaStorage,
    grad_b: CudaStorage,
    loss: CudaStorage,
    m: [CudaStorage; 2],
    v: [CudaStorage; 2],
    t: i32,
}

impl Step {
    fn new(g: &CudaBackend, rows: usize, inputs: usize, outputs: usize) -> Step {
        let mut rng = rng("steady state");
        let zeros = |n| {
            let mut s = g.alloc(n).unwrap();
            g.fill(&mut s, 0.0).unwrap();
            s
        };
        Step {
            rows,
            inputs,
            outputs,
            x: g.upload(&uniform(&mut rng, rows * inputs, -1.0, 1.0))
                .unwrap(),
            target: g
                .upload(&uniform(&mut rng, rows * outputs, -0.5, 0.5))
                .unwrap(),
            w: g.upload(&uniform(&mut rng, inputs * outputs, -0.3, 0.3))
                .unwrap(),
            b: zeros(outputs),
            z: zeros(rows * outputs),
            y: zeros(rows * outputs),
            grad_y: zeros(rows * outputs),
            grad_z: zeros(rows * outputs),
            grad_w: zeros(inputs * outputs),
            grad_b: zeros(outputs),
            loss: zeros(1),
            m: [zeros(inputs * outputs), zeros(outputs)],
            v: [zeros(inputs * outputs), zeros(outputs)],
            t: 0,
        }
    }

    fn run(&mut self, g: &CudaBackend) {
        let (r, i, o) = (self.rows, self.inputs, self.outputs);
        let mm = |m, n, k, trans_a| Gemm {
            m,
            n,
            k,
            trans_a,
            trans_b: false,
            alpha: 1.0,
            beta: 0.0,
        };
        g.gemm(mm(r, o, i, false), &self.x, &self.w, &mut self.z)
            .unwrap();
        g.bias_act(
            BiasAct {
                bias: &self.b,
                rows: r,
                cols: o,
                act: Activation::Tanh,
            },
            &mut self.z,
            &mut self.y,
        )
        .unwrap();
        g.loss_grad(
            LossGrad {
                kind: LossKind::Mse,
                pred: &self.y,
                target: &self.target,
                rows: r,
                cols: o,
            },
            &mut self.grad_y,
            &mut self.loss,
        )
        .unwrap();
        g.act_backward(&self.grad_y, &self.z, Activation::Tanh, &mut self.grad_z)
            .unwrap();
        g.gemm(mm(i, o, r, true), &self.x, &self.grad_z, &mut self.grad_w)
            .unwrap();
        // Column sums over a tall matrix: a two-pass reduction through the workspace.
        g.reduce(
            ReduceSpec {
                op: ReduceOp::Sum,
                outer: 1,
                len: r,
                inner: o,
            },
            &self.grad_z,
            &mut self.grad_b,
        )
        .unwrap();
        self.t += 1;
        let step = AdamStep {
            lr: 1e-2,
            beta1: 0.9,
            beta2: 0.999,
            eps: 1e-8,
            weight_decay: 0.0,
            decoupled: true,
            bias_correction1: 1.0 - 0.9f32.powi(self.t),
            bias_correction2: 1.0 - 0.999f32.powi(self.t),
        };
        let [m_w, m_b] = &mut self.m;
        let [v_w, v_b] = &mut self.v;
        g.adam_step(
            step,
            &mut self.w,
            &self.grad_w,
            AdamMoments { m: m_w, v: v_w },
        )
        .unwrap();
        g.adam_step(
            step,
            &mut self.b,
            &self.grad_b,
            AdamMoments { m: m_b, v: v_b },
        )
        .unwrap();
    }
}

fn delta(a: Counters, b: Counters) -> Counters {
    Counters {
        allocations: b.allocations - a.allocations,
        bytes_uploaded: b.bytes_uploaded - a.bytes_uploaded,
        bytes_downloaded: b.bytes_downloaded - a.bytes_downloaded,
        launches: b.launches - a.launches,
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn steady_state_steps_transfer_and_allocate_nothing() {
    let g = gpu();
    let mut step = Step::new(&g, 8192, 2, 4);
    for _ in 0..3 {
        step.run(&g);
    }
    let first_loss = g.download(&step.loss).unwrap()[0];
    let c0 = g.counters();
    for _ in 0..20 {
        step.run(&g);
    }
    let c1 = g.counters();
    for _ in 0..20 {
        step.run(&g);
    }
    let c2 = g.counters();
    let (d1, d2) = (delta(c0, c1), delta(c1, c2));
    assert_eq!(d1.bytes_uploaded, 0, "{d1:?}");
    assert_eq!(d1.bytes_downloaded, 0, "{d1:?}");
    assert_eq!(d1.allocations, 0, "{d1:?}");
    assert!(d1.launches >= 20 * 9, "{d1:?}");
    assert_eq!(d1, d2, "every step launches the same work");
    let last_loss = g.download(&step.loss).unwrap()[0];
    assert!(
        last_loss.is_finite() && last_loss < first_loss,
        "loss {first_loss} -> {last_loss}"
    );
    assert_eq!(
        delta(c2, g.counters()).bytes_downloaded,
        4,
        "one loss value read back"
    );
}
