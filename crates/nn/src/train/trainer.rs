//! [`Trainer`]: full-batch or mini-batch training of any [`Model`] with validation, early
//! stopping, a NaN guard and callbacks (progress is the callback's to show).

use super::session::{Marks, Session};
use super::source::TrainData;
use super::state::{Control, StopReason, TrainEvent, TrainReport, TrainerState};
use super::{Data, Holding, Replicas, TrainerConfig};
use crate::Result;
use crate::model::Model;
use crate::optim::Optimizer;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;
use tensor_core::Backend;

/// Trains a [`Model`] (an [`Mlp`](crate::Mlp) or any other) with an [`Optimizer`], keeping
/// a resumable [`TrainerState`].
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
    replicas: Option<(Arc<dyn Replicas>, Holding)>,
}

impl Trainer {
    /// A trainer at step 0.
    pub fn new(config: TrainerConfig) -> Result<Self> {
        config.validate()?;
        Ok(Trainer {
            config,
            state: TrainerState::default(),
            stop_flag: None,
            replicas: None,
        })
    }

    /// A flag checked after every step: once it is `true`, training stops cleanly (the
    /// state stays resumable) with [`StopReason::Interrupted`]. The flag is not cleared.
    pub fn set_stop_flag(&mut self, flag: Arc<AtomicBool>) {
        self.stop_flag = Some(flag);
    }

    /// Trains data-parallel with the other processes of `replicas`: each computes the
    /// gradient of its rows of every global batch and the gradients are summed before every
    /// optimizer step, so that every process takes the same step, the one a single process
    /// would take on the whole batch (up to the order of summation). Every process has the
    /// same model and settings, and `holding` says what it holds of the data: the whole
    /// sets (each computing its [`share`](super::share) of a batch), or only its part of
    /// the rows ([`Holding::Part`]).
    pub fn set_replicas(&mut self, replicas: Arc<dyn Replicas>, holding: Holding) {
        self.replicas = Some((replicas, holding));
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

    /// Trains without a callback, on tensors ([`Data`]) or on batches made per step (a
    /// [`BatchSource`](super::BatchSource), passed as `&mut source`).
    pub fn fit<'d, B: Backend, M: Model<B>>(
        &mut self,
        model: &mut M,
        optimizer: &mut dyn Optimizer<B>,
        train: impl Into<TrainData<'d, B>>,
        val: Option<Data<'d, B>>,
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
    pub fn fit_with<'d, B: Backend, M: Model<B>, F>(
        &mut self,
        model: &mut M,
        optimizer: &mut dyn Optimizer<B>,
        train: impl Into<TrainData<'d, B>>,
        val: Option<Data<'d, B>>,
        mut callback: F,
    ) -> Result<TrainReport>
    where
        F: FnMut(&TrainEvent, &M, &dyn Optimizer<B>, &TrainerState) -> Result<Control>,
    {
        let started = Instant::now();
        let lr = optimizer.lr();
        let train = train.into();
        let replicas = self.replicas.clone();
        let mut session = Session::new(&self.config, &self.state, model, lr, train, val, replicas)?;
        session.stop_flag = self.stop_flag.clone();
        let reason = self.run_steps(&mut session, model, optimizer, &mut callback)?;
        let report = self.finish(&mut session, model, &*optimizer, &mut callback, reason)?;
        Ok(TrainReport {
            seconds: started.elapsed().as_secs_f64(),
            ..report
        })
    }

    /// Steps until the configured length or a stop; returns why training ended.
    fn run_steps<B: Backend, M: Model<B>, F>(
        &mut self,
        session: &mut Session<'_, B>,
        model: &mut M,
        optimizer: &mut dyn Optimizer<B>,
        callback: &mut F,
    ) -> Result<StopReason>
    where
        F: FnMut(&TrainEvent, &M, &dyn Optimizer<B>, &TrainerState) -> Result<Control>,
    {
        if self.patience_spent() {
            // A resumed run that had stopped early stays stopped: no step is taken.
            return Ok(StopReason::EarlyStopping);
        }
        while self.state.step < session.total {
            session.step(model, optimizer, self.state.step)?;
            self.state.step += 1;
            if let Some(reason) = self.after_step(session, model, &*optimizer, callback)? {
                return Ok(reason);
            }
        }
        Ok(StopReason::Completed)
    }

    /// Loss read-back, end of epoch (evaluation, early stopping), callbacks and the stop
    /// flag; returns a reason when training must stop.
    fn after_step<B: Backend, M: Model<B>, F>(
        &mut self,
        session: &mut Session<'_, B>,
        model: &M,
        optimizer: &dyn Optimizer<B>,
        callback: &mut F,
    ) -> Result<Option<StopReason>>
    where
        F: FnMut(&TrainEvent, &M, &dyn Optimizer<B>, &TrainerState) -> Result<Control>,
    {
        let marks: Marks = session.marks(self.state.step, self.state.epoch);
        if marks.read {
            session.read_loss(&mut self.state)?;
        }
        let mut stop = None;
        if marks.end_of_epoch {
            self.state.epoch += 1;
            if marks.eval {
                let (metrics, early) = session.evaluate(model, &mut self.state)?;
                if early {
                    stop = Some(StopReason::EarlyStopping);
                }
                let event = TrainEvent::Epoch(metrics);
                if callback(&event, model, optimizer, &self.state)? == Control::Stop {
                    stop = stop.or(Some(StopReason::Callback));
                }
            } else {
                session.reset_epoch_sum(&mut self.state)?;
            }
        }
        if marks.callback {
            if !marks.end_of_epoch {
                self.state.epoch_loss_sum = session.epoch_sum(self.state.step)?;
            }
            let event = TrainEvent::Step {
                step: self.state.step,
                epoch: self.state.epoch,
                loss: self.state.last_loss.unwrap_or(f32::NAN),
                lr: session.lr,
            };
            if callback(&event, model, optimizer, &self.state)? == Control::Stop {
                stop = stop.or(Some(StopReason::Callback));
            }
        }
        if stop.is_none() && self.interrupted(session) {
            stop = Some(StopReason::Interrupted);
        }
        Ok(stop)
    }

    /// Whether early stopping has run out of patience already (a state imported from a run
    /// that stopped early).
    fn patience_spent(&self) -> bool {
        let stale = self.state.stale_evals;
        self.config
            .early_stopping
            .is_some_and(|e| stale >= e.patience.max(1))
    }

    /// Whether the stop flag is raised; with other processes, whether any of theirs was as
    /// of the last step (all stop after the same step).
    fn interrupted<B: Backend>(&self, session: &Session<'_, B>) -> bool {
        if session.is_shared() {
            return session.group_stop;
        }
        self.stop_flag
            .as_ref()
            .is_some_and(|f| f.load(Ordering::Relaxed))
    }

    /// Saves the partial epoch's loss sum, takes the final validation loss, tells the
    /// callback about the end and makes the report (its `seconds` left at 0).
    fn finish<B: Backend, M: Model<B>, F>(
        &mut self,
        session: &mut Session<'_, B>,
        model: &M,
        optimizer: &dyn Optimizer<B>,
        callback: &mut F,
        reason: StopReason,
    ) -> Result<TrainReport>
    where
        F: FnMut(&TrainEvent, &M, &dyn Optimizer<B>, &TrainerState) -> Result<Control>,
    {
        // Kept so that a resumed run reports the same metrics.
        self.state.epoch_loss_sum = session.epoch_sum(self.state.step)?;
        let final_val_loss = session.final_val_loss(model, &self.state)?;
        let end = TrainEvent::End {
            step: self.state.step,
            reason,
        };
        callback(&end, model, optimizer, &self.state)?;
        Ok(TrainReport {
            steps: self.state.step,
            steps_run: session.steps_run,
            epochs: self.state.epoch,
            seconds: 0.0,
            final_train_loss: self.state.last_loss,
            final_val_loss,
            history: self.state.history.clone(),
            stopped_early: reason == StopReason::EarlyStopping,
            stop_reason: reason,
        })
    }
}
