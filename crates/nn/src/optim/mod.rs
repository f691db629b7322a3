//! Optimizers: objects separate from the layers that read each parameter's gradient and
//! update the parameter with a fused backend kernel.
//!
//! Optimizers keep their own state (moments, velocities, step count) per parameter, keyed
//! by the parameter's name and created on the first step; [`Optimizer::export_state`] and
//! [`Optimizer::import_state`] move that state to and from the host for checkpoints.

mod adam;
mod clip;
mod sgd;

pub use adam::{Adam, AdamConfig};
pub use clip::GradClipper;
pub use sgd::{Sgd, SgdConfig};

use crate::layer::{Layer, ParamMut};
use crate::model::state::{NamedArray, find};
use crate::{Error, Result, config_err};
use serde::{Deserialize, Serialize};
use tensor_core::{Backend, Tensor};

/// An optimizer's state on the host: its kind, step count and per-parameter buffers
/// (named `optimizer.{buffer}.{parameter}`, e.g. `optimizer.m.layers.0.weight`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OptimizerState {
    /// "sgd", "adam" or "adamw".
    pub kind: String,
    /// Updates applied so far.
    pub step: u64,
    /// Per-parameter buffers.
    pub tensors: Vec<NamedArray>,
}

/// Updates parameters from their gradients.
pub trait Optimizer<B: Backend>: Send {
    /// "sgd", "adam" or "adamw".
    fn kind(&self) -> &'static str;
    /// The hyper-parameters.
    fn config(&self) -> OptimizerConfig;
    /// The learning rate of the next step.
    fn lr(&self) -> f32;
    /// Sets the learning rate (schedules call this before every step).
    fn set_lr(&mut self, lr: f32);
    /// Updates applied so far.
    fn steps(&self) -> u64;
    /// Applies one update to every parameter of `model` from its current gradient.
    fn step(&mut self, model: &mut dyn Layer<B>) -> Result<()>;
    /// Copies the state to the host.
    fn export_state(&self) -> Result<OptimizerState>;
    /// Restores state saved by [`export_state`](Optimizer::export_state) for the
    /// parameters of `model`, checking kind, names and shapes.
    fn import_state(&mut self, model: &dyn Layer<B>, state: &OptimizerState) -> Result<()>;
}

/// The hyper-parameters of any optimizer (serialisable, for checkpoints and the CLI).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum OptimizerConfig {
    /// Stochastic gradient descent, optionally with (Nesterov) momentum.
    Sgd(SgdConfig),
    /// Adam, or AdamW when `decoupled` is set.
    Adam(AdamConfig),
}

impl OptimizerConfig {
    /// Builds the optimizer.
    pub fn build<B: Backend>(&self) -> Result<Box<dyn Optimizer<B>>> {
        Ok(match *self {
            OptimizerConfig::Sgd(c) => Box::new(Sgd::new(c)?),
            OptimizerConfig::Adam(c) => Box::new(Adam::new(c)?),
        })
    }
}

/// One parameter's optimizer buffers.
pub(crate) struct Slot<B: Backend> {
    pub name: String,
    pub buffers: Vec<Tensor<B>>,
}

/// The slot for the `i`-th visited parameter: created with `count` zero buffers on the
/// first step, checked against the parameter's name and shape afterwards.
pub(crate) fn slot_for<'a, B: Backend>(
    slots: &'a mut Vec<Slot<B>>,
    i: usize,
    p: &ParamMut<'_, B>,
    count: usize,
) -> Result<&'a mut Slot<B>> {
    if i == slots.len() {
        let buffers = (0..count)
            .map(|_| Tensor::zeros(p.value.backend(), p.value.shape().clone()))
            .collect::<std::result::Result<Vec<_>, _>>()?;
        slots.push(Slot {
            name: p.name.to_string(),
            buffers,
        });
    }
    let slot = &mut slots[i];
    if slot.name != p.name || slot.buffers.iter().any(|b| b.shape() != p.value.shape()) {
        return Err(Error::StateMismatch(format!(
            "optimizer: parameter {i} is '{}' {} but the optimizer state was made for '{}'",
            p.name,
            p.value.shape(),
            slot.name
        )));
    }
    Ok(slot)
}

/// Checks after a step that the model had as many parameters as the state.
pub(crate) fn check_count<B: Backend>(slots: &[Slot<B>], visited: usize) -> Result<()> {
    if visited != slots.len() {
        return Err(Error::StateMismatch(format!(
            "optimizer: the model has {visited} parameters but the optimizer state has {}",
            slots.len()
        )));
    }
    Ok(())
}

/// Exports slots as `optimizer.{buffer_names[k]}.{param}`.
pub(crate) fn export_slots<B: Backend>(
    slots: &[Slot<B>],
    buffer_names: &[&str],
) -> Result<Vec<NamedArray>> {
    let mut out = Vec::new();
    for s in slots {
        for (b, label) in s.buffers.iter().zip(buffer_names) {
            out.push(NamedArray::from_tensor(
                format!("optimizer.{label}.{}", s.name),
                b,
            )?);
        }
    }
    Ok(out)
}

/// Rebuilds slots for every parameter of `model` from `state` (all checked before any is
/// kept). A state with step 0 and no tensors gives empty slots (created on the next step).
pub(crate) fn import_slots<B: Backend>(
    model: &dyn Layer<B>,
    state: &OptimizerState,
    kind: &str,
    buffer_names: &[&str],
) -> Result<Vec<Slot<B>>> {
    if state.kind != kind {
        return Err(Error::StateMismatch(format!(
            "optimizer: the saved state is for '{}' but this optimizer is '{kind}'",
            state.kind
        )));
    }
    let mut slots = Vec::new();
    if state.tensors.is_empty() {
        return Ok(slots);
    }
    model.visit_params(&mut |p| {
        let mut buffers = Vec::new();
        for label in buffer_names {
            let name = format!("optimizer.{label}.{}", p.name);
            let a = find(&state.tensors, &name, p.value.dims(), "optimizer")?;
            buffers.push(a.to_tensor(p.value.backend())?);
        }
        slots.push(Slot {
            name: p.name.to_string(),
            buffers,
        });
        Ok(())
    })?;
    Ok(slots)
}

/// Checks a learning rate.
pub(crate) fn check_lr(lr: f32) -> Result<()> {
    if !(lr.is_finite() && lr >= 0.0) {
        return Err(config_err(format!(
            "the learning rate must be finite and non-negative, got {lr}"
        )));
    }
    Ok(())
}
