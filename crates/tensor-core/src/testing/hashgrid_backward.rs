//! `hashgrid_backward` is checked with the forward pass it is the adjoint of, in
//! [`hashgrid_forward`](super::hashgrid_forward); here is its probe for the wrapper test.

use super::forwarding::Probe;
use super::hashgrid_forward::{probe_grid, probe_inputs as forward_inputs};
use crate::{Backend, FeatureLayout, Result};

/// The inputs and outputs of one call (those of the forward probe), for
/// [`forwarding`](super::forwarding).
pub fn probe_inputs<X: Backend>(x: &X) -> Result<Probe<X>> {
    forward_inputs(x)
}

/// One backward call, accumulating, on what [`probe_inputs`] made.
pub fn probe_run<X: Backend>(probe: &mut Probe<X>) -> Result<()> {
    let i = &probe.inputs;
    let [_, grad_tables] = probe.outputs.as_mut_slice() else {
        unreachable!("the hash-grid probe has two outputs")
    };
    let layout = FeatureLayout::PointMajor;
    i[0].hashgrid_backward_into(&probe_grid()?, layout, &i[2], grad_tables, true)
}
