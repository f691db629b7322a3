//! `hashgrid_forward`: the multiresolution hash-grid encoding of points (see
//! [`hashgrid`](crate::hashgrid)).

use crate::hashgrid::{FeatureLayout, HashGridSpec, host_forward};
use crate::{Backend, Primitives, Result};

/// What [`hashgrid_forward`](crate::HashGridForwardOp::hashgrid_forward) reads.
pub struct HashGridLookup<'a, S> {
    /// The grid's levels and table sizes.
    pub spec: &'a HashGridSpec,
    /// How the output features are laid out.
    pub layout: FeatureLayout,
    /// The points, `n x d`, coordinates in `[0, 1]` (clamped).
    pub points: &'a S,
    /// Points.
    pub n: usize,
    /// The tables, [`HashGridSpec::param_count`] values.
    pub tables: &'a S,
}

/// The fused operation `hashgrid_forward`; see [the fused operations](crate::fused).
pub trait HashGridForwardOp: Primitives {
    /// Hash-grid encoding (see [`hashgrid`](crate::hashgrid) for the definition and the
    /// layouts): `n` points (`n x d`, coordinates in `[0, 1]`, clamped) looked up in the
    /// tables ([`HashGridSpec::param_count`](crate::HashGridSpec::param_count) values) into
    /// `out`, `n` points of [`HashGridSpec::output_dim`](crate::HashGridSpec::output_dim)
    /// features in `p.layout`. Default (on the host):
    /// [`composed`].
    fn hashgrid_forward(
        &self,
        p: HashGridLookup<'_, Self::Storage>,
        out: &mut Self::Storage,
    ) -> Result<()>;
}

/// The default [`HashGridForwardOp::hashgrid_forward`], on the host:
/// [`host_forward`].
pub fn composed<B: Backend>(
    b: &B,
    p: HashGridLookup<'_, B::Storage>,
    out: &mut B::Storage,
) -> Result<()> {
    host_forward(b, p, out)
}

#[cfg(feature = "testing")]
impl<B: Backend> HashGridForwardOp for crate::testing::Composed<B> {
    fn hashgrid_forward(
        &self,
        p: HashGridLookup<'_, Self::Storage>,
        out: &mut Self::Storage,
    ) -> Result<()> {
        composed(self, p, out)
    }
}
