//! Stochastic gradient descent, with optional (Nesterov) momentum.

use super::{
    Optimizer, OptimizerConfig, OptimizerState, Slot, check_count, check_lr, export_slots,
    import_slots, slot_for,
};
use crate::layer::Layer;
use crate::{Result, config_err};
use serde::{Deserialize, Serialize};
use tensor_core::{Backend, SgdStep};

/// SGD's hyper-parameters (PyTorch's conventions: `v = mu v + g`, `p -= lr v`, or
/// `p -= lr (g + mu v)` with Nesterov).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct SgdConfig {
    /// Learning rate.
    pub lr: f32,
    /// Momentum factor in `[0, 1)`; 0 for plain SGD.
    pub momentum: f32,
    /// Nesterov momentum (needs `momentum > 0`).
    pub nesterov: bool,
    /// L2 weight decay added to the gradient.
    pub weight_decay: f32,
}

impl SgdConfig {
    /// Plain SGD with learning rate `lr`.
    pub fn new(lr: f32) -> Self {
        SgdConfig {
            lr,
            ..Self::default()
        }
    }

    /// SGD with momentum.
    pub fn momentum(lr: f32, momentum: f32) -> Self {
        SgdConfig {
            lr,
            momentum,
            ..Self::default()
        }
    }

    fn validate(&self) -> Result<()> {
        check_lr(self.lr)?;
        if !(0.0..1.0).contains(&self.momentum) {
            return Err(config_err(format!(
                "SGD momentum must lie in [0, 1), got {}",
                self.momentum
            )));
        }
        if self.nesterov && self.momentum == 0.0 {
            return Err(config_err("Nesterov momentum needs a momentum above 0"));
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

/// SGD via the backend's fused `sgd_step`; one velocity buffer per parameter when
/// momentum is on.
pub struct Sgd<B: Backend> {
    config: SgdConfig,
    step: u64,
    slots: Vec<Slot<B>>,
}

impl<B: Backend> Sgd<B> {
    /// An optimizer with these hyper-parameters.
    pub fn new(config: SgdConfig) -> Result<Self> {
        config.validate()?;
        Ok(Sgd {
            config,
            step: 0,
            slots: Vec::new(),
        })
    }

    fn buffer_names(&self) -> &'static [&'static str] {
        if self.config.momentum != 0.0 {
            &["velocity"]
        } else {
            &[]
        }
    }
}

impl<B: Backend> Optimizer<B> for Sgd<B> {
    fn kind(&self) -> &'static str {
        "sgd"
    }

    fn config(&self) -> OptimizerConfig {
        OptimizerConfig::Sgd(self.config)
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
        let c = self.config;
        let spec = SgdStep {
            lr: c.lr,
            momentum: c.momentum,
            nesterov: c.nesterov,
            weight_decay: c.weight_decay,
        };
        let count = self.buffer_names().len();
        let slots = &mut self.slots;
        let mut i = 0;
        model.visit_params_mut(&mut |p| {
            let slot = slot_for(slots, i, &p, count)?;
            let (lr, weight_decay) = p.tuning.apply(spec.lr, spec.weight_decay);
            let spec = SgdStep {
                lr,
                weight_decay,
                ..spec
            };
            p.value.sgd_step(spec, p.grad, slot.buffers.first_mut())?;
            i += 1;
            Ok(())
        })?;
        check_count(slots, i)?;
        self.step += 1;
        Ok(())
    }

    fn export_state(&self) -> Result<OptimizerState> {
        Ok(OptimizerState {
            kind: "sgd".into(),
            step: self.step,
            tensors: export_slots(&self.slots, self.buffer_names())?,
        })
    }

    fn import_state(&mut self, model: &dyn Layer<B>, state: &OptimizerState) -> Result<()> {
        let names = self.buffer_names();
        self.slots = if names.is_empty() {
            Vec::new()
        } else {
            import_slots(model, state, "sgd", names)?
        };
        if names.is_empty() && state.kind != "sgd" {
            return Err(crate::Error::StateMismatch(format!(
                "optimizer: the saved state is for '{}' but this optimizer is 'sgd'",
                state.kind
            )));
        }
        self.step = state.step;
        Ok(())
    }
}
