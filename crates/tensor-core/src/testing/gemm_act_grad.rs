//! `gemm_act_grad` is checked with `gemm_bias_act`, the other matrix product with a fused
//! epilogue, in [`gemm_bias_act`](super::gemm_bias_act); here is its probe for the wrapper
//! test.

use super::forwarding::{Probe, values};
use crate::Backend;

/// The inputs and outputs of one call, for [`forwarding`](super::forwarding).
pub fn probe_inputs<X: Backend>(x: &X) -> crate::Result<Probe<X>> {
    let v = |dims: &[usize], seed| values(x, dims, seed);
    Ok(Probe {
        inputs: vec![v(&[3, 5], 1)?, v(&[5, 4], 2)?, v(&[3, 4], 4)?],
        outputs: vec![v(&[3, 4], 5)?],
    })
}

/// One call on what [`probe_inputs`] made, through the tensor method.
pub fn probe_run<X: Backend>(probe: &mut Probe<X>) -> crate::Result<()> {
    let i = &probe.inputs;
    let [c] = probe.outputs.as_mut_slice() else {
        unreachable!("gemm_act_grad writes 1 tensors")
    };
    let (a, b) = ((&i[0], false), (&i[1], false));
    crate::Tensor::matmul_act_grad_into(a, b, &i[2], crate::Activation::Tanh, c)
}
