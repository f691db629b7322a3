//! Adam and AdamW.

use super::{
    Optimizer, OptimizerConfig, OptimizerState, Slot, check_count, check_lr, export_slots,
    import_slots, slot_for,
};
use crate::layer::Layer;
use crate::{Result, config_err};
use serde::{Deserialize, Serialize};
use tensor_core::{AdamStep, Backend};

/// Adam's hyper-parameters (Kingma & Ba); `decoupled` turns weight decay into AdamW's
/// (Loshchilov & Hutter).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct AdamConfig {
    /// Learning rate.
    pub lr: f32,
    /// Decay of the first moment (0.9).
    pub beta1: f32,
    /// Decay of the second moment (0.999).
    pub beta2: f32,
    /// Added to the root of the second moment (1e-8).
    pub eps: f32,
    /// Weight decay: an L2 term in the gradient (Adam) or a decoupled shrink (AdamW).
    pub weight_decay: f32,
    /// AdamW's decoupled weight decay.
    pub decoupled: bool,
}

impl Default for AdamConfig {
    fn default() -> Self {
        AdamConfig {
            lr: 1e-3,
            beta1: 0.9,
            beta2: 0.999,
            eps: 1e-8,
            weight_decay: 0.0,
            decoupled: false,
        }
    }
}

impl AdamConfig {
    /// Adam with learning rate `lr` and the usual defaults.
    pub fn new(lr: f32) -> Self {
        AdamConfig {
            lr,
            ..Self::default()
        }
    }

    /// The settings of the Instant-NGP recipe for hash-grid models (Müller et al. 2022):
    /// `beta2 = 0.99` and `eps = 1e-15`, so that rarely touched table entries still move
    /// by about the learning rate when they get a gradient.
    pub fn hash_grid(lr: f32) -> Self {
        AdamConfig {
            lr,
            beta2: 0.99,
            eps: 1e-15,
            ..Self::default()
        }
    }

    /// AdamW with learning rate `lr` and decoupled weight decay (PyTorch's default 0.01).
    pub fn adamw(lr: f32, weight_decay: f32) -> Self {
        AdamConfig {
            lr,
            weight_decay,
            decoupled: true,
            ..Self::default()
        }
    }

    fn validate(&self) -> Result<()> {
        check_lr(self.lr)?;
        let beta_ok = |b: f32| (0.0..1.0).contains(&b);
        if !beta_ok(self.beta1) || !beta_ok(self.beta2) {
            return Err(config_err(format!(
                "Adam betas must lie in [0, 1), got {} and {}",
                self.beta1, self.beta2
            )));
        }
        if !(self.eps.is_finite() && self.eps > 0.0) {
            return Err(config_err(format!(
                "Adam eps must be positive, got {}",
                self.eps
            )));
        }
        if !(self.weight_decay.is_finite() && self.weight_decay >= 0.0) {
            return Err(config_err(format!(
                "weight decay must be non-negative, got {}",
                self.weight_decay
            )));
        }
        Ok(())
    }
}

/// Adam / AdamW with per-parameter first and second moments, via the backend's fused
/// `adam_step`.
pub struct Adam<B: Backend> {
    config: AdamConfig,
    step: u64,
    slots: Vec<Slot<B>>,
}

const BUFFERS: [&str; 2] = ["m", "v"];

impl<B: Backend> Adam<B> {
    /// An optimizer with these hyper-parameters.
    pub fn new(config: AdamConfig) -> Result<Self> {
        config.validate()?;
        Ok(Adam {
            config,
            step: 0,
            slots: Vec::new(),
        })
    }
}

impl<B: Backend> Optimizer<B> for Adam<B> {
    fn kind(&self) -> &'static str {
        if self.config.decoupled {
            "adamw"
        } else {
            "adam"
        }
    }

    fn config(&self) -> OptimizerConfig {
        OptimizerConfig::Adam(self.config)
    }

    fn lr(&self) -> f32 {
        self.config.lr
    }

    fn set_lr(&mut self, lr: f32) {
        self.config.lr = lr;
    }

    fn steps(&self) -> u64 {
        self.step
    }

    fn step(&mut self, model: &mut dyn Layer<B>) -> Result<()> {
        check_lr(self.config.lr)?;
        let t = self.step + 1;
        let c = self.config;
        // Bias corrections in f64: exact for any step count.
        let bc = |beta: f32| (1.0 - (beta as f64).powf(t as f64)) as f32;
        let spec = AdamStep {
            lr: c.lr,
            beta1: c.beta1,
            beta2: c.beta2,
            eps: c.eps,
            weight_decay: c.weight_decay,
            decoupled: c.decoupled,
            bias_correction1: bc(c.beta1),
            bias_correction2: bc(c.beta2),
        };
        let slots = &mut self.slots;
        let mut i = 0;
        model.visit_params_mut(&mut |p| {
            let slot = slot_for(slots, i, &p, 2)?;
            let (m, v) = slot.buffers.split_at_mut(1);
            let (lr, weight_decay) = p.tuning.apply(spec.lr, spec.weight_decay);
            let spec = AdamStep {
                lr,
                weight_decay,
                ..spec
            };
            p.value.adam_step(spec, p.grad, &mut m[0], &mut v[0])?;
            i += 1;
            Ok(())
        })?;
        check_count(slots, i)?;
        self.step = t;
        Ok(())
    }

    fn export_state(&self) -> Result<OptimizerState> {
        Ok(OptimizerState {
            kind: self.kind().to_string(),
            step: self.step,
            tensors: export_slots(&self.slots, &BUFFERS)?,
        })
    }

    fn import_state(&mut self, model: &dyn Layer<B>, state: &OptimizerState) -> Result<()> {
        self.slots = import_slots(model, state, self.kind(), &BUFFERS)?;
        self.step = state.step;
        Ok(())
    }
}
