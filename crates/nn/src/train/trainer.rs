//! [`Trainer`]: full-batch or mini-batch training with validation, early stopping, a NaN
//! guard, callbacks and a progress bar.

use super::batches::{BatchPlan, epoch_permutation};
use super::early_stop::EarlyStopping;
use super::progress::Progress;
use super::state::{Control, EpochMetrics, StopReason, TrainEvent, TrainReport, TrainerState};
use crate::layer::{Layer, check_matrix};
use crate::loss::Loss;
use crate::model::mlp::Mlp;
use crate::optim::{GradClipper, Optimizer};
use crate::schedule::LrSchedule;
use crate::{Error, Result, config_err};
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;
use tensor_core::{Backend, BinaryOp, Tensor};

/// Encoded training inputs are cached only up to this many elements (1 GiB of f32).
const MAX_CACHED_ELEMENTS: usize = 1 << 28;

/// How long to train: a total, counted from the very first step (a resumed run stops at the
/// same point as an uninterrupted one).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TrainLength {
    /// Whole epochs (with full-batch training, one epoch is one step).
    Epochs(u64),
    /// Updates.
    Steps(u64),
}

/// The settings of a training run (serialisable, for checkpoint metadata).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TrainerConfig {
    /// The loss minimised.
    pub loss: Loss,
    /// The learning rate per step; `None` keeps the optimizer's own rate.
    pub schedule: Option<LrSchedule>,
    /// How long to train.
    pub length: TrainLength,
    /// Rows per batch; `None` (or at least the number of rows) trains on the full batch.
    /// With mini-batches the last `rows % batch_size` rows of each epoch's order are
    /// dropped, so every batch has the same size and buffers are reused.
    pub batch_size: Option<usize>,
    /// Whether mini-batches follow a fresh permutation each epoch (derived from
    /// `(seed, epoch)`); otherwise they are consecutive rows.
    pub shuffle: bool,
    /// Seed of the batch order.
    pub seed: u64,
    /// Read the training loss back (for the progress bar and the NaN guard) every this
    /// many steps (at least 1).
    pub log_every: u64,
    /// Evaluate (epoch training loss, validation loss, early stopping, history) every
    /// this many epochs (at least 1). With full-batch training every step is an epoch;
    /// raise this to avoid a read-back per step on a GPU.
    pub eval_every: u64,
    /// Call the callback with [`TrainEvent::Step`] every this many steps (0: never).
    pub callback_every: u64,
    /// Early stopping on the validation loss (or the training loss without a
    /// validation set).
    pub early_stopping: Option<EarlyStopping>,
    /// Clip gradients to this global L2 norm before each update.
    pub clip_grad_norm: Option<f32>,
    /// Show a progress bar on stderr (never when stderr is not a terminal).
    pub progress: bool,
    /// Encode the training inputs once when the model has an input encoding (it has no
    /// trainable parameters), instead of at every step; skipped above 2^28 elements.
    pub cache_encoding: bool,
    /// Area supervision: each target row is matched by the mean of this many consecutive
    /// prediction rows (e.g. the sub-samples of one pixel), so the inputs have `pool` times
    /// as many rows as the targets. 1 (the default) is ordinary supervision. Needs full-batch
    /// training and no validation set.
    pub pool: usize,
}

impl Default for TrainerConfig {
    fn default() -> Self {
        TrainerConfig {
            loss: Loss::Mse,
            schedule: None,
            length: TrainLength::Epochs(100),
            batch_size: None,
            shuffle: true,
            seed: 0,
            log_every: 100,
            eval_every: 1,
            callback_every: 0,
            early_stopping: None,
            clip_grad_norm: None,
            progress: true,
            cache_encoding: true,
            pool: 1,
        }
    }
}

impl TrainerConfig {
    /// Checks every setting.
    pub fn validate(&self) -> Result<()> {
        if self.log_every == 0 || self.eval_every == 0 {
            return Err(config_err("log_every and eval_every must be at least 1"));
        }
        if self.pool == 0 {
            return Err(config_err("pool must be at least 1"));
        }
        if self.batch_size == Some(0) {
            return Err(config_err("the batch size must be at least 1"));
        }
        if let Some(c) = self.clip_grad_norm
            && !(c.is_finite() && c > 0.0)
        {
            return Err(config_err(format!(
                "the gradient clipping norm must be positive and finite, got {c}"
            )));
        }
        if let Some(s) = &self.schedule {
            s.validate()?;
        }
        Ok(())
    }
}

/// Inputs and targets of a training or validation set, on the device.
#[derive(Debug)]
pub struct Data<'a, B: Backend> {
    /// Inputs, `[rows, input]`.
    pub x: &'a Tensor<B>,
    /// Targets, `[rows, output]`.
    pub y: &'a Tensor<B>,
}

impl<B: Backend> Clone for Data<'_, B> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<B: Backend> Copy for Data<'_, B> {}

impl<'a, B: Backend> Data<'a, B> {
    /// A data set from inputs and targets.
    pub fn new(x: &'a Tensor<B>, y: &'a Tensor<B>) -> Self {
        Data { x, y }
    }

    fn check(&self, model: &Mlp<B>, what: &str, pool: usize) -> Result<usize> {
        let rows = crate::layer::check_input(self.x, model.input_dim(), "training data (x)")
            .map_err(|e| config_err(format!("{what} inputs: {e}")))?;
        if !rows.is_multiple_of(pool) {
            return Err(config_err(format!(
                "{what} inputs: {rows} rows are not a whole number of groups of {pool}"
            )));
        }
        check_matrix(self.y, rows / pool, model.output_dim(), "training data (y)")
            .map_err(|e| config_err(format!("{what} targets: {e}")))?;
        Ok(rows)
    }
}

/// Trains an [`Mlp`] with an [`Optimizer`], keeping a resumable [`TrainerState`].
///
/// Each step: gather the batch (mini-batches: `gather_rows_into` from an index buffer
/// uploaded once per epoch), forward, fused loss and gradient, backward, optional gradient
/// clipping, optimizer update. The loss stays on the device, summed into one-element
/// accumulators; it is read back only every `log_every` steps, at callbacks and at
/// evaluations, where the NaN/Inf guard checks it.
///
/// A stop flag ([`Trainer::set_stop_flag`], e.g. set by a Ctrl-C handler) is checked after
/// every step and ends training cleanly with [`StopReason::Interrupted`].
#[derive(Debug, Clone)]
pub struct Trainer {
    config: TrainerConfig,
    state: TrainerState,
    stop_flag: Option<Arc<AtomicBool>>,
}

/// The device buffers of one `fit` call.
struct Buffers<B: Backend> {
    batch: Option<(Tensor<B>, Tensor<B>)>,
    grad: Tensor<B>,
    loss: Tensor<B>,
    epoch_sum: Tensor<B>,
    window_sum: Tensor<B>,
    index: Option<(u64, B::Index)>,
}

impl Trainer {
    /// A trainer at step 0.
    pub fn new(config: TrainerConfig) -> Result<Self> {
        config.validate()?;
        Ok(Trainer {
            config,
            state: TrainerState::default(),
            stop_flag: None,
        })
    }

    /// A flag checked after every step: once it is `true`, training stops cleanly (the
    /// state stays resumable) with [`StopReason::Interrupted`]. The flag is not cleared.
    pub fn set_stop_flag(&mut self, flag: Arc<AtomicBool>) {
        self.stop_flag = Some(flag);
    }

    /// The settings.
    pub fn config(&self) -> &TrainerConfig {
        &self.config
    }

    /// The current state.
    pub fn state(&self) -> &TrainerState {
        &self.state
    }

    /// A copy of the state, for a checkpoint.
    pub fn export_state(&self) -> TrainerState {
        self.state.clone()
    }

    /// Continues from a saved state (with the same data, batch size and seed, training
    /// continues bit for bit as if it had not stopped).
    pub fn import_state(&mut self, state: TrainerState) {
        self.state = state;
    }

    /// Trains without a callback.
    pub fn fit<B: Backend>(
        &mut self,
        model: &mut Mlp<B>,
        optimizer: &mut dyn Optimizer<B>,
        train: Data<'_, B>,
        val: Option<Data<'_, B>>,
    ) -> Result<TrainReport> {
        self.fit_with(model, optimizer, train, val, |_, _, _, _| {
            Ok(Control::Continue)
        })
    }

    /// Trains, calling `callback` every `callback_every` steps, after each evaluation and
    /// at the end.
    ///
    /// The callback gets the event, the model, the optimizer and the trainer state
    /// (everything a checkpoint needs); [`Control::Stop`] ends training cleanly after the
    /// current step, and an error ends it with that error.
    pub fn fit_with<B: Backend, F>(
        &mut self,
        model: &mut Mlp<B>,
        optimizer: &mut dyn Optimizer<B>,
        train: Data<'_, B>,
        val: Option<Data<'_, B>>,
        mut callback: F,
    ) -> Result<TrainReport>
    where
        F: FnMut(&TrainEvent, &Mlp<B>, &dyn Optimizer<B>, &TrainerState) -> Result<Control>,
    {
        let started = Instant::now();
        let cfg = self.config.clone();
        cfg.validate()?;
        let rows = train.check(model, "training", cfg.pool)?;
        if let Some(v) = &val {
            v.check(model, "validation", 1)?;
        }
        let mut pooled = Pooling::new(
            &model.backend().clone(),
            &cfg,
            rows,
            model.output_dim(),
            val.is_some(),
        )?;
        let plan = BatchPlan::new(rows, cfg.batch_size)?;
        let spe = plan.steps_per_epoch;
        let total = match cfg.length {
            TrainLength::Epochs(e) => e.saturating_mul(spe),
            TrainLength::Steps(s) => s,
        };
        let backend = model.backend().clone();

        // Inputs encoded once: the encoding has no parameters and the inputs do not change.
        let encoded = match model.encoding() {
            Some(e) if cfg.cache_encoding && rows * e.output_dim() <= MAX_CACHED_ELEMENTS => {
                model.encode(train.x)?
            }
            _ => None,
        };
        let src_x = encoded.as_ref().unwrap_or(train.x);
        let use_body = encoded.is_some();
        let out_dim = model.output_dim();

        let mut buf = Buffers {
            batch: if plan.full_batch {
                None
            } else {
                Some((
                    Tensor::uninit(&backend, [plan.batch, src_x.dims()[1]])?,
                    Tensor::uninit(&backend, [plan.batch, out_dim])?,
                ))
            },
            grad: Tensor::uninit(&backend, [plan.batch, out_dim])?,
            loss: Tensor::zeros(&backend, [1])?,
            epoch_sum: Tensor::from_slice(&backend, &[self.state.epoch_loss_sum], [1])?,
            window_sum: Tensor::zeros(&backend, [1])?,
            index: None,
        };
        let mut val_bufs = match &val {
            Some(v) => Some((
                Tensor::uninit(&backend, v.y.shape().clone())?,
                Tensor::zeros(&backend, [1])?,
            )),
            None => None,
        };
        let mut clipper = match cfg.clip_grad_norm {
            Some(c) => Some(GradClipper::new(&backend, c)?),
            None => None,
        };
        let progress = Progress::new(cfg.progress, total, self.state.step.min(total));

        let mut window_steps = 0u64;
        let mut last_checked = self.state.step;
        let mut steps_run = 0u64;
        let mut lr = optimizer.lr();
        let mut reason = StopReason::Completed;

        while self.state.step < total {
            let step = self.state.step;
            let epoch_index = step / spe;
            let pos = (step % spe) as usize;
            if let Some(s) = &cfg.schedule {
                lr = s.lr(step);
                optimizer.set_lr(lr);
            }

            // The batch.
            if let Some((bx, by)) = buf.batch.as_mut() {
                let start = pos * plan.batch;
                if cfg.shuffle {
                    if !matches!(&buf.index, Some((e, _)) if *e == epoch_index) {
                        let order = epoch_permutation(cfg.seed, epoch_index, rows);
                        buf.index = Some((epoch_index, backend.upload_indices(&order)?));
                    }
                    let (_, idx) = buf.index.as_ref().expect("uploaded above");
                    src_x.gather_rows_into(idx, start, bx)?;
                    train.y.gather_rows_into(idx, start, by)?;
                } else {
                    src_x.slice_rows_into(start, bx)?;
                    train.y.slice_rows_into(start, by)?;
                }
            }
            let (bx, by) = match &buf.batch {
                Some((bx, by)) => (bx, by),
                None => (src_x, train.y),
            };

            // Forward, loss, backward, update.
            let pred = if use_body {
                model.body_mut().forward(bx)?
            } else {
                model.forward(bx)?
            };
            match &mut pooled {
                None => cfg
                    .loss
                    .compute_into(pred, by, &mut buf.grad, &mut buf.loss)?,
                Some(p) => p.loss_grad(cfg.loss, pred, by, &mut buf.grad, &mut buf.loss)?,
            }
            if use_body {
                model.body_mut().backward_params(bx, &buf.grad)?;
            } else {
                model.backward_params(bx, &buf.grad)?;
            }
            if let Some(c) = clipper.as_mut() {
                c.clip(model)?;
            }
            optimizer.step(model)?;
            buf.epoch_sum.binary_assign(BinaryOp::Add, &buf.loss)?;
            buf.window_sum.binary_assign(BinaryOp::Add, &buf.loss)?;
            window_steps += 1;
            self.state.step += 1;
            steps_run += 1;
            let now = self.state.step;
            progress.set_position(now);

            let end_of_epoch = pos as u64 + 1 == spe;
            let is_last = now == total;
            let eval_now =
                end_of_epoch && ((self.state.epoch + 1).is_multiple_of(cfg.eval_every) || is_last);
            let callback_now = cfg.callback_every > 0 && now.is_multiple_of(cfg.callback_every);
            if now.is_multiple_of(cfg.log_every) || callback_now || eval_now || is_last {
                let mean = buf.window_sum.to_scalar()? / window_steps as f32;
                if !mean.is_finite() {
                    progress.finish();
                    return Err(Error::NonFiniteLoss {
                        step: now,
                        last_finite_step: last_checked,
                        value: mean,
                    });
                }
                last_checked = now;
                buf.window_sum.fill(0.0)?;
                window_steps = 0;
                self.state.last_loss = Some(mean);
                progress.set_loss(mean, self.state.history.last().and_then(|m| m.val_loss), lr);
            }

            let mut stop = false;
            if end_of_epoch {
                self.state.epoch += 1;
                if eval_now {
                    let train_loss = buf.epoch_sum.to_scalar()? / spe as f32;
                    if !train_loss.is_finite() {
                        progress.finish();
                        return Err(Error::NonFiniteLoss {
                            step: now,
                            last_finite_step: last_checked,
                            value: train_loss,
                        });
                    }
                    let val_loss = match (&val, val_bufs.as_mut()) {
                        (Some(v), Some((g, l))) => Some(evaluate(model, cfg.loss, *v, g, l)?),
                        _ => None,
                    };
                    let metrics = EpochMetrics {
                        epoch: self.state.epoch,
                        step: now,
                        train_loss,
                        val_loss,
                        lr,
                    };
                    self.state.history.push(metrics);
                    if let Some(es) = &cfg.early_stopping {
                        let monitored = val_loss.unwrap_or(train_loss);
                        if es.update(
                            &mut self.state.best_loss,
                            &mut self.state.stale_evals,
                            monitored,
                        ) {
                            stop = true;
                            reason = StopReason::EarlyStopping;
                        }
                    }
                    buf.epoch_sum.fill(0.0)?;
                    self.state.epoch_loss_sum = 0.0;
                    let event = TrainEvent::Epoch(metrics);
                    if callback(&event, model, &*optimizer, &self.state)? == Control::Stop && !stop
                    {
                        stop = true;
                        reason = StopReason::Callback;
                    }
                } else {
                    buf.epoch_sum.fill(0.0)?;
                    self.state.epoch_loss_sum = 0.0;
                }
            }
            if callback_now {
                if !end_of_epoch {
                    self.state.epoch_loss_sum = buf.epoch_sum.to_scalar()?;
                }
                let event = TrainEvent::Step {
                    step: now,
                    epoch: self.state.epoch,
                    loss: self.state.last_loss.unwrap_or(f32::NAN),
                    lr,
                };
                if callback(&event, model, &*optimizer, &self.state)? == Control::Stop && !stop {
                    stop = true;
                    reason = StopReason::Callback;
                }
            }
            if !stop
                && let Some(flag) = &self.stop_flag
                && flag.load(Ordering::Relaxed)
            {
                stop = true;
                reason = StopReason::Interrupted;
            }
            if stop {
                break;
            }
        }

        // Keep the partial epoch's loss sum so that a resumed run reports the same metrics.
        self.state.epoch_loss_sum = buf.epoch_sum.to_scalar()?;
        let mut final_val = self.state.history.last().and_then(|m| m.val_loss);
        if let (Some(v), Some((g, l))) = (&val, val_bufs.as_mut())
            && self.state.history.last().map(|m| m.step) != Some(self.state.step)
        {
            final_val = Some(evaluate(model, cfg.loss, *v, g, l)?);
        }
        progress.finish();
        let end = TrainEvent::End {
            step: self.state.step,
            reason,
        };
        callback(&end, model, &*optimizer, &self.state)?;
        Ok(TrainReport {
            steps: self.state.step,
            steps_run,
            epochs: self.state.epoch,
            seconds: started.elapsed().as_secs_f64(),
            final_train_loss: self.state.last_loss,
            final_val_loss: final_val,
            history: self.state.history.clone(),
            stopped_early: reason == StopReason::EarlyStopping,
            stop_reason: reason,
        })
    }
}

/// The loss of `model` on `data` (chunked inference; the training buffers are untouched).
/// Buffers of area supervision: predictions averaged over groups of `pool` rows, and the
/// gradient spread back evenly.
struct Pooling<B: Backend> {
    pool: usize,
    groups: usize,
    out_dim: usize,
    mean: Tensor<B>,
    grad: Tensor<B>,
    spread: Tensor<B>,
}

impl<B: Backend> Pooling<B> {
    fn new(
        backend: &B,
        cfg: &TrainerConfig,
        rows: usize,
        out_dim: usize,
        has_val: bool,
    ) -> Result<Option<Self>> {
        if cfg.pool == 1 {
            return Ok(None);
        }
        if cfg.batch_size.is_some_and(|b| b < rows) {
            return Err(config_err("pooled supervision needs full-batch training"));
        }
        if has_val {
            return Err(config_err(
                "pooled supervision does not take a validation set",
            ));
        }
        let groups = rows / cfg.pool;
        Ok(Some(Pooling {
            pool: cfg.pool,
            groups,
            out_dim,
            mean: Tensor::uninit(backend, [groups, out_dim])?,
            grad: Tensor::uninit(backend, [groups, out_dim])?,
            spread: Tensor::full(backend, [1, cfg.pool, 1], 1.0 / cfg.pool as f32)?,
        }))
    }

    /// The loss of the group means against `target`, and its gradient with respect to every
    /// prediction row in `grad`.
    fn loss_grad(
        &mut self,
        loss: Loss,
        pred: &Tensor<B>,
        target: &Tensor<B>,
        grad: &mut Tensor<B>,
        out: &mut Tensor<B>,
    ) -> Result<()> {
        let b = pred.backend();
        let (g, p, o) = (self.groups, self.pool, self.out_dim);
        b.reduce(
            tensor_core::ReduceOp::Mean,
            pred.storage(),
            g,
            p,
            o,
            self.mean.storage_mut(),
        )?;
        loss.compute_into(&self.mean, target, &mut self.grad, out)?;
        b.binary(
            BinaryOp::Mul,
            self.grad.storage(),
            &[g, 1, o].into(),
            self.spread.storage(),
            self.spread.shape(),
            grad.storage_mut(),
            &[g, p, o].into(),
        )?;
        Ok(())
    }
}

fn evaluate<B: Backend>(
    model: &Mlp<B>,
    loss: Loss,
    data: Data<'_, B>,
    grad: &mut Tensor<B>,
    out: &mut Tensor<B>,
) -> Result<f32> {
    let pred = model.predict(data.x)?;
    loss.compute_into(&pred, data.y, grad, out)?;
    Ok(out.to_scalar()?)
}
