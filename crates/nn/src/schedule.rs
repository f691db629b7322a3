//! Learning-rate schedules: pure functions of the step, so a resumed run gets exactly the
//! rates it would have had.
//!
//! `step` counts updates already applied (0 for the first update). Schedules compose:
//! [`LrSchedule::WarmUp`] wraps any other schedule.
//!
//! ```
//! use nn::LrSchedule;
//! // Linear warm-up over 100 steps, then cosine annealing from 1e-3 to 1e-5 over 900.
//! let s = LrSchedule::cosine(1e-3, 1e-5, 900).with_warmup(100, 0.0);
//! assert_eq!(s.lr(0), 0.0);
//! assert!((s.lr(100) - 1e-3).abs() < 1e-9);
//! assert!((s.lr(1000) - 1e-5).abs() < 1e-9);
//! ```

use crate::{Result, config_err};
use serde::{Deserialize, Serialize};

/// A learning rate as a function of the step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum LrSchedule {
    /// The same rate throughout.
    Constant {
        /// The rate.
        lr: f32,
    },
    /// `lr * gamma^floor(step / every)`.
    Step {
        /// The initial rate.
        lr: f32,
        /// Steps between decays.
        every: u64,
        /// Factor applied at each decay.
        gamma: f32,
    },
    /// Cosine annealing: `lr_min + (lr_max - lr_min) * 0.5 * (1 + cos(pi * t / T))`.
    ///
    /// Without restarts, `t` is the step and the rate stays at `lr_min` once `t >= T`. With
    /// warm restarts (SGDR), `t` is the step within the current cycle, and each cycle is
    /// `period_mult` times as long as the one before.
    Cosine {
        /// The rate at the start of a cycle.
        lr_max: f32,
        /// The rate at the end of a cycle.
        lr_min: f32,
        /// Steps in the first cycle, `T`.
        period: u64,
        /// Whether to restart at `lr_max` after each cycle.
        restarts: bool,
        /// Growth of the cycle length at each restart (1 keeps it fixed).
        period_mult: u64,
    },
    /// A linear ramp from `start_lr` to `then.lr(0)` over `steps` steps, followed by
    /// `then` (shifted so that its step 0 is the first step after the warm-up).
    WarmUp {
        /// Steps of warm-up.
        steps: u64,
        /// The rate at step 0.
        start_lr: f32,
        /// The schedule after the warm-up.
        then: Box<LrSchedule>,
    },
}

impl Default for LrSchedule {
    fn default() -> Self {
        LrSchedule::Constant { lr: 1e-3 }
    }
}

impl LrSchedule {
    /// A constant rate.
    pub fn constant(lr: f32) -> Self {
        LrSchedule::Constant { lr }
    }

    /// Step decay by `gamma` every `every` steps.
    pub fn step_decay(lr: f32, every: u64, gamma: f32) -> Self {
        LrSchedule::Step { lr, every, gamma }
    }

    /// Cosine annealing from `lr_max` to `lr_min` over `period` steps, no restarts.
    pub fn cosine(lr_max: f32, lr_min: f32, period: u64) -> Self {
        LrSchedule::Cosine {
            lr_max,
            lr_min,
            period,
            restarts: false,
            period_mult: 1,
        }
    }

    /// Cosine annealing with warm restarts (SGDR) every `period` steps, each cycle
    /// `period_mult` times longer than the previous.
    pub fn cosine_restarts(lr_max: f32, lr_min: f32, period: u64, period_mult: u64) -> Self {
        LrSchedule::Cosine {
            lr_max,
            lr_min,
            period,
            restarts: true,
            period_mult,
        }
    }

    /// This schedule preceded by a linear warm-up of `steps` steps from `start_lr`.
    pub fn with_warmup(self, steps: u64, start_lr: f32) -> Self {
        LrSchedule::WarmUp {
            steps,
            start_lr,
            then: Box::new(self),
        }
    }

    /// Checks the parameters (positive periods, finite non-negative rates).
    pub fn validate(&self) -> Result<()> {
        let rate = |name: &str, v: f32| {
            if v.is_finite() && v >= 0.0 {
                Ok(())
            } else {
                Err(config_err(format!(
                    "learning-rate schedule: {name} must be finite and non-negative, got {v}"
                )))
            }
        };
        match self {
            LrSchedule::Constant { lr } => rate("lr", *lr),
            LrSchedule::Step { lr, every, gamma } => {
                rate("lr", *lr)?;
                rate("gamma", *gamma)?;
                if *every == 0 {
                    return Err(config_err("step decay: `every` must be at least 1"));
                }
                Ok(())
            }
            LrSchedule::Cosine {
                lr_max,
                lr_min,
                period,
                period_mult,
                ..
            } => {
                rate("lr_max", *lr_max)?;
                rate("lr_min", *lr_min)?;
                if *period == 0 || *period_mult == 0 {
                    return Err(config_err(
                        "cosine schedule: period and period_mult must be at least 1",
                    ));
                }
                Ok(())
            }
            LrSchedule::WarmUp { start_lr, then, .. } => {
                rate("start_lr", *start_lr)?;
                then.validate()
            }
        }
    }

    /// The learning rate for the update after `step` updates (computed in f64).
    pub fn lr(&self, step: u64) -> f32 {
        self.lr_f64(step) as f32
    }

    fn lr_f64(&self, step: u64) -> f64 {
        match self {
            LrSchedule::Constant { lr } => *lr as f64,
            LrSchedule::Step { lr, every, gamma } => {
                let k = step / (*every).max(1);
                *lr as f64 * (*gamma as f64).powf(k as f64)
            }
            LrSchedule::Cosine {
                lr_max,
                lr_min,
                period,
                restarts,
                period_mult,
            } => {
                let (lo, hi) = (*lr_min as f64, *lr_max as f64);
                let mut period = (*period).max(1);
                let mut t = step;
                if *restarts {
                    if *period_mult <= 1 {
                        t %= period;
                    } else {
                        while t >= period {
                            t -= period;
                            period = period.saturating_mul(*period_mult);
                        }
                    }
                } else if t >= period {
                    return lo;
                }
                let x = t as f64 / period as f64;
                lo + (hi - lo) * 0.5 * (1.0 + (std::f64::consts::PI * x).cos())
            }
            LrSchedule::WarmUp {
                steps,
                start_lr,
                then,
            } => {
                if step < *steps {
                    let target = then.lr_f64(0);
                    let start = *start_lr as f64;
                    start + (target - start) * step as f64 / *steps as f64
                } else {
                    then.lr_f64(step - steps)
                }
            }
        }
    }
}
