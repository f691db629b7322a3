//! `hashgrid_backward`: the gradient of the hash-grid encoding with respect to its tables,
//! scattered from the features' gradient.

use crate::hashgrid::{FeatureLayout, HashGridSpec, host_backward};
use crate::{Backend, Primitives, Result};

/// What [`hashgrid_backward`](crate::HashGridBackwardOp::hashgrid_backward) reads.
pub struct HashGridScatter<'a, S> {
    /// The grid's levels and table sizes.
    pub spec: &'a HashGridSpec,
    /// How `grad_features` is laid out.
    pub layout: FeatureLayout,
    /// The points of the forward pass, `n x d`.
    pub points: &'a S,
    /// Points.
    pub n: usize,
    /// The gradient with respect to the features, in `layout`.
    pub grad_features: &'a S,
    /// Add to the table gradient's contents (`true`) or overwrite them (`false`).
    pub accumulate: bool,
}

/// The fused operation `hashgrid_backward`; see [the fused operations](crate::fused).
pub trait HashGridBackwardOp: Primitives {
    /// The backward pass of
    /// [`hashgrid_forward`](crate::fused::HashGridForwardOp::hashgrid_forward): scatters
    /// `p.grad_features` (in `p.layout`) into `grad_tables` (the tables' layout), adding to
    /// its contents when `p.accumulate` is set and overwriting them otherwise. The sums may
    /// be added in any order (the CUDA backend uses atomics); the CPU backend adds each
    /// entry's terms in point order, whatever the thread count. Default (on the host):
    /// [`composed`].
    fn hashgrid_backward(
        &self,
        p: HashGridScatter<'_, Self::Storage>,
        grad_tables: &mut Self::Storage,
    ) -> Result<()>;
}

/// The default [`HashGridBackwardOp::hashgrid_backward`], on the host:
/// [`host_backward`].
pub fn composed<B: Backend>(
    b: &B,
    p: HashGridScatter<'_, B::Storage>,
    grad_tables: &mut B::Storage,
) -> Result<()> {
    host_backward(b, p, grad_tables)
}

#[cfg(feature = "testing")]
impl<B: Backend> HashGridBackwardOp for crate::testing::Composed<B> {
    fn hashgrid_backward(
        &self,
        p: HashGridScatter<'_, Self::Storage>,
        grad_tables: &mut Self::Storage,
    ) -> Result<()> {
        composed(self, p, grad_tables)
    }
}
