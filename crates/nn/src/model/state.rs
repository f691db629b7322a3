//! Host-side copies of named tensors, for checkpoints.
//!
//! `nn` does not write files: it exports [`NamedArray`]s (name, shape, values) that the `io`
//! crate stores in safetensors, and imports them back with every name and shape checked.

use crate::layer::Layer;
use crate::{Error, Result};
use serde::{Deserialize, Serialize};
use tensor_core::{Backend, Tensor};

/// A named tensor copied to the host: what a checkpoint stores.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NamedArray {
    /// The stable name ("layers.0.weight", "optimizer.m.layers.0.weight", ...).
    pub name: String,
    /// The dimensions, outermost first.
    pub shape: Vec<usize>,
    /// The values, row-major (`shape.iter().product()` of them).
    pub data: Vec<f32>,
}

impl NamedArray {
    /// A named array from host data; the length must match the shape.
    pub fn new(name: impl Into<String>, shape: Vec<usize>, data: Vec<f32>) -> Result<Self> {
        let a = NamedArray {
            name: name.into(),
            shape,
            data,
        };
        a.check_len()?;
        Ok(a)
    }

    /// Copies a device tensor to the host under `name`.
    pub fn from_tensor<B: Backend>(name: impl Into<String>, t: &Tensor<B>) -> Result<Self> {
        Ok(NamedArray {
            name: name.into(),
            shape: t.dims().to_vec(),
            data: t.to_vec()?,
        })
    }

    /// Uploads the array to a new device tensor.
    pub fn to_tensor<B: Backend>(&self, backend: &B) -> Result<Tensor<B>> {
        self.check_len()?;
        Ok(Tensor::from_slice(backend, &self.data, self.shape.clone())?)
    }

    fn check_len(&self) -> Result<()> {
        let expected: usize = self.shape.iter().product();
        if expected != self.data.len() {
            return Err(Error::StateMismatch(format!(
                "'{}' has shape {:?} ({} values) but holds {} values",
                self.name,
                self.shape,
                expected,
                self.data.len()
            )));
        }
        Ok(())
    }
}

/// Finds `name` in `arrays` and checks its shape against `expected`.
pub(crate) fn find<'a>(
    arrays: &'a [NamedArray],
    name: &str,
    expected: &[usize],
    owner: &str,
) -> Result<&'a NamedArray> {
    let a = arrays.iter().find(|a| a.name == name).ok_or_else(|| {
        Error::StateMismatch(format!(
            "{owner}: tensor '{name}' is missing from the saved state"
        ))
    })?;
    if a.shape != expected {
        return Err(Error::StateMismatch(format!(
            "{owner}: tensor '{name}' has shape {:?} in the saved state but {:?} in the {}",
            a.shape, expected, owner
        )));
    }
    a.check_len()?;
    Ok(a)
}

/// Copies every parameter of `layer` to the host, named as the layer names them
/// (`layers.0.weight`, ...): the default state of a [`Model`](crate::Model).
pub fn export_params<B: Backend>(layer: &dyn Layer<B>) -> Result<Vec<NamedArray>> {
    let mut out = Vec::new();
    layer.visit_params(&mut |p| {
        out.push(NamedArray::from_tensor(p.name, p.value)?);
        Ok(())
    })?;
    Ok(out)
}

/// Restores every parameter of `layer` from `state` by name. Every parameter is looked up
/// and its shape checked before anything is changed: a missing tensor or a shape mismatch
/// is an [`Error::StateMismatch`] naming the tensor (and both shapes), with `owner` ("model")
/// in front. Names that are not the layer's parameters are ignored.
pub fn import_params<B: Backend>(
    layer: &mut dyn Layer<B>,
    state: &[NamedArray],
    owner: &str,
) -> Result<()> {
    let plan = plan_params(layer, state, owner)?;
    upload_params(layer, plan, owner)
}

/// The saved array of every parameter of `layer`, in visit order, each found by name and
/// checked against the parameter's shape.
pub(crate) fn plan_params<'a, B: Backend>(
    layer: &dyn Layer<B>,
    state: &'a [NamedArray],
    owner: &str,
) -> Result<Vec<&'a NamedArray>> {
    let mut plan = Vec::new();
    layer.visit_params(&mut |p| {
        plan.push(find(state, p.name, p.value.dims(), owner)?);
        Ok(())
    })?;
    Ok(plan)
}

/// Uploads a plan made by [`plan_params`] for the same layer.
pub(crate) fn upload_params<B: Backend>(
    layer: &mut dyn Layer<B>,
    plan: Vec<&NamedArray>,
    owner: &str,
) -> Result<()> {
    let mut next = plan.into_iter();
    layer.visit_params_mut(&mut |p| match next.next() {
        Some(a) => Ok(p.value.upload(&a.data)?),
        None => Err(Error::StateMismatch(format!(
            "{owner}: parameter '{}' has no saved value",
            p.name
        ))),
    })
}
