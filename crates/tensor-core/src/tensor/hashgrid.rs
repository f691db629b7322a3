//! The hash-grid encoding and its backward pass, with their shapes checked.

use super::Tensor;
use crate::params::{HashGridLookup, HashGridScatter};
use crate::{Backend, Error, FeatureLayout, HashGridSpec, Result, Shape};

impl<B: Backend> Tensor<B> {
    /// Encodes the points `self` (`n x d`, coordinates in `[0, 1]`, clamped) with `tables`
    /// (`table_entries x F`) into a new tensor of features in `layout`: `n x (L * F)` or
    /// `(L * F) x n`. See [`hashgrid`](crate::hashgrid) for the definition.
    pub fn hashgrid_encode(
        &self,
        spec: &HashGridSpec,
        tables: &Tensor<B>,
        layout: FeatureLayout,
    ) -> Result<Tensor<B>> {
        let n = self.hashgrid_points(spec, "hashgrid_encode")?;
        let mut out = Tensor::uninit(&self.backend, layout.shape(n, spec.output_dim()))?;
        self.hashgrid_encode_into(spec, tables, layout, &mut out)?;
        Ok(out)
    }

    /// [`hashgrid_encode`](Self::hashgrid_encode) into an existing tensor of the layout's
    /// shape.
    pub fn hashgrid_encode_into(
        &self,
        spec: &HashGridSpec,
        tables: &Tensor<B>,
        layout: FeatureLayout,
        out: &mut Tensor<B>,
    ) -> Result<()> {
        let op = "hashgrid_encode";
        let n = self.hashgrid_points(spec, op)?;
        tables.check_shape(&table_shape(spec), op)?;
        out.check_shape(&layout.shape(n, spec.output_dim()).into(), op)?;
        let p = HashGridLookup {
            spec,
            layout,
            points: &self.storage,
            n,
            tables: &tables.storage,
        };
        self.backend.hashgrid_forward(p, &mut out.storage)
    }

    /// The backward pass of [`hashgrid_encode`](Self::hashgrid_encode) at the points `self`:
    /// scatters `grad_features` (in `layout`) into `grad_tables` (`table_entries x F`),
    /// adding to its contents when `accumulate` is set, overwriting them otherwise.
    pub fn hashgrid_backward_into(
        &self,
        spec: &HashGridSpec,
        layout: FeatureLayout,
        grad_features: &Tensor<B>,
        grad_tables: &mut Tensor<B>,
        accumulate: bool,
    ) -> Result<()> {
        let op = "hashgrid_backward";
        let n = self.hashgrid_points(spec, op)?;
        grad_features.check_shape(&layout.shape(n, spec.output_dim()).into(), op)?;
        grad_tables.check_shape(&table_shape(spec), op)?;
        let p = HashGridScatter {
            spec,
            layout,
            points: &self.storage,
            n,
            grad_features: &grad_features.storage,
            accumulate,
        };
        self.backend.hashgrid_backward(p, &mut grad_tables.storage)
    }

    /// The number of points of a `n x d` point tensor for `spec`.
    fn hashgrid_points(&self, spec: &HashGridSpec, op: &'static str) -> Result<usize> {
        let (n, d) = self.shape.as_matrix(op)?;
        if d != spec.dims() {
            return Err(Error::InvalidArgument {
                op,
                reason: format!(
                    "points of shape {} have {d} coordinates, the encoding takes {}",
                    self.shape,
                    spec.dims()
                ),
            });
        }
        Ok(n)
    }
}

/// The shape of the table matrix of `spec`.
fn table_shape(spec: &HashGridSpec) -> Shape {
    Shape::new([spec.table_entries(), spec.features()])
}
