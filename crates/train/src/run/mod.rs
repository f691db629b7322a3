//! [`Run`]: one training run in a folder: fresh or resumed from its checkpoint, with periodic
//! atomic checkpoints, early stopping that keeps the best weights, a divergence guard, a stop
//! request, and its record (`config.json`), history (`history.csv`) and progress.

mod recorded;

use crate::checkpoint::{self, RunMeta};
use crate::data::{RunData, WholeRows};
use crate::history;
use crate::monitor::{LossUnits, Monitor};
use crate::outcome::{Outcome, length_text};
use crate::plan::{Plan, TrainingSize};
use crate::record;
use crate::report::{Reporter, StopAt};
use crate::{Error, Result, Settings};
use nn::{
    Control, Data, EarlyStopping, Loss, Mlp, MlpConfig, Model, Optimizer, OptimizerConfig,
    TrainData, TrainEvent, Trainer,
};
use serde::Serialize;
use serde_json::{Map, Value};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use tensor_core::Backend;

/// A check of the memory a run on tensors will need, before its model is built; an error
/// refuses the run.
pub type MemoryCheck<'a, C> = Box<dyn Fn(&C, &TrainingSize) -> Result<()> + 'a>;

/// A training run of a network with configuration `C` (an MLP's by default), in a folder.
///
/// ```no_run
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use nn::{Activation, Data, Loss, Mlp, Tensor};
/// use tensor_cpu::CpuBackend;
/// use train::{Run, Settings};
///
/// let cpu = CpuBackend::new();
/// let x = Tensor::from_slice(&cpu, &[0., 0., 0., 1., 1., 0., 1., 1.], [4, 2])?;
/// let y = Tensor::from_slice(&cpu, &[0., 1., 1., 0.], [4, 1])?;
/// let config = Mlp::<CpuBackend>::builder()
///     .input(2)
///     .hidden(&[8], Activation::Tanh)
///     .output(1, Activation::Identity)
///     .config(42)?;
/// let settings = Settings { lr: 0.05, ..Settings::default() };
/// let outcome = Run::new("xor", "runs/xor", config, Loss::BceWithLogits, settings)
///     .train::<CpuBackend, Mlp<CpuBackend>>(&cpu, Data::new(&x, &y), None)?;
/// println!("{}", outcome.summary());
/// # Ok(()) }
/// ```
pub struct Run<'a, C = MlpConfig> {
    pub(crate) job: String,
    pub(crate) dir: PathBuf,
    pub(crate) settings: Settings,
    pub(crate) architecture: C,
    pub(crate) loss: Loss,
    pub(crate) extra: Value,
    pub(crate) info: Option<io::ModelInfo>,
    pub(crate) early_stopping: Option<EarlyStopping>,
    pub(crate) pool: usize,
    pub(crate) output_bias: Option<Vec<f32>>,
    pub(crate) record: Map<String, Value>,
    pub(crate) loss_units: LossUnits,
    pub(crate) weight_decay: f32,
    pub(crate) stop: Option<Arc<AtomicBool>>,
    pub(crate) stop_at: Option<u64>,
    /// Trained on this process alone ([`Run::alone`]).
    pub(crate) alone: bool,
    /// A finished run loaded, its record left as it is ([`Run::reloading`]).
    pub(crate) reloading: bool,
    pub(crate) reporter: Box<dyn Reporter + 'a>,
    pub(crate) memory_check: Option<MemoryCheck<'a, C>>,
}

impl<C: Clone + PartialEq + Serialize> Run<'_, C> {
    /// Trains on `train` (validating on `val`), resuming from the folder's checkpoint when
    /// the settings ask, checkpointing every `checkpoint_every` steps, at a stop request and
    /// at the end, and writing `config.json` and `history.csv`.
    ///
    /// `train` is tensors ([`Data`]) or a batch source with its data's summary
    /// ([`RunData::Sampled`]), which makes each step's batch itself.
    pub fn train<'d, B: Backend, M: Model<B, Config = C>>(
        mut self,
        backend: &B,
        train: impl Into<RunData<'d, B>>,
        val: Option<Data<'d, B>>,
    ) -> Result<Outcome<M>> {
        let split = train.into().split(&self.extra)?;
        let (train, summary) = (split.train, split.summary);
        let replicas = crate::ranks::replicas().filter(|_| !self.alone);
        if replicas.is_none() {
            refuse_part_alone(&train, split.whole)?;
        }
        let processes = replicas.as_ref().map(|r| r.size());
        let plan = self.plan(&train, val, split.whole, processes)?;
        let meta = self.meta(&summary);
        let mut trainer = Trainer::new(plan.trainer_config(self.loss, self.settings.seed))?;
        let (mut model, mut optimizer) = self.start::<B, M>(backend, &meta, &plan, &mut trainer)?;
        let first_step = trainer.state().step;
        let holding = match split.holds_part {
            true => nn::Holding::Part,
            false => nn::Holding::Whole,
        };
        self.write_record(backend, &plan, optimizer.config(), first_step, holding)?;
        let earlier = self.announce(backend, &plan, first_step);
        if let Some(flag) = self.armed_stop_flag() {
            trainer.set_stop_flag(flag);
        }
        if let Some(replicas) = replicas {
            // Tensors of the whole sets, or of this process's part (with the whole's
            // summary); a batch source may make its process's part of each batch (an
            // image's band of rows), its summary the whole's.
            trainer.set_replicas(replicas, holding);
        }
        let watch = summary.watch(self.loss, self.settings.lr);
        let path = self.dir.join(checkpoint::FILE_NAME);
        let keep_best = self.early_stopping.is_some();
        let every = self.settings.checkpoint_every;
        let mut monitor = Monitor::new(
            earlier,
            self.loss_units.clone(),
            plan.steps_per_epoch,
            plan.schedule.clone(),
            &mut *self.reporter,
            keep_best,
        );
        // The trainer ends every run, interrupted or not, with an `End` event: the final
        // checkpoint is written there.
        let fitted = trainer.fit_with(
            &mut model,
            optimizer.as_mut(),
            train,
            val,
            |event, model, opt, state| {
                let seen = match *event {
                    TrainEvent::Step { step, loss, .. } => Some((step, loss)),
                    TrainEvent::Epoch(m) => Some((m.step, m.train_loss)),
                    TrainEvent::End { .. } => None,
                };
                if let Some((step, loss)) = seen {
                    // Checked before saving: a diverged model is never checkpointed.
                    watch
                        .check(step, loss)
                        .map_err(|e| nn::Error::Callback(Box::new(e)))?;
                }
                monitor.observe(event, model, state)?;
                let save = match event {
                    TrainEvent::Step { step, .. } => every > 0 && step % every == 0,
                    TrainEvent::End { .. } => true,
                    TrainEvent::Epoch(_) => false,
                };
                if save {
                    checkpoint::save(&path, &meta, model, opt, state)
                        .map_err(|e| nn::Error::Callback(Box::new(e)))?;
                    // The history so far beside it: a run killed after this checkpoint
                    // resumes with its rows up to here.
                    history::write(&self.dir, monitor.rows())
                        .map_err(|e| nn::Error::Callback(Box::new(e)))?;
                }
                Ok(Control::Continue)
            },
        );
        monitor.finish();
        let watched = Watched {
            report: fitted.map_err(unwrap_callback_error)?,
            best: monitor.take_best(),
            elapsed: monitor.elapsed(),
            rows: monitor.into_rows(),
        };
        self.conclude(
            model,
            optimizer.as_ref(),
            &trainer,
            &meta,
            watched,
            first_step,
        )
    }

    /// Restores the best weights (saving them), writes `history.csv` and makes the outcome.
    fn conclude<B: Backend, M: Model<B, Config = C>>(
        self,
        mut model: M,
        optimizer: &dyn Optimizer<B>,
        trainer: &Trainer,
        meta: &RunMeta<C>,
        watched: Watched,
        first_step: u64,
    ) -> Result<Outcome<M>> {
        let Watched {
            report,
            best,
            elapsed,
            rows,
        } = watched;
        let restored = match best {
            Some(best) if best.step != report.steps => {
                model.import_state(&best.state)?;
                let path = self.dir.join(checkpoint::FILE_NAME);
                checkpoint::save(&path, meta, &model, optimizer, trainer.state())?;
                Some((best.step, f64::from(best.loss) * self.loss_units.scale))
            }
            // A finished run loaded: its checkpoint holds the best weights already.
            _ if self.reloading && self.early_stopping.is_some() => {
                restored_before(trainer.state(), report.steps)
                    .map(|(step, loss)| (step, f64::from(loss) * self.loss_units.scale))
            }
            _ => None,
        };
        history::write(&self.dir, &rows)?;
        // A finished run loaded reads as the run its owner trained, from its start.
        let first_step = if self.reloading { 0 } else { first_step };
        Ok(Outcome {
            model,
            report,
            history: rows,
            loss_units: self.loss_units,
            elapsed,
            first_step,
            restored,
        })
    }

    /// What the checkpoint holds besides the tensors.
    fn meta(&self, summary: &crate::DataSummary) -> RunMeta<C> {
        RunMeta {
            job: self.job.clone(),
            architecture: self.architecture.clone(),
            extra: self.extra.clone(),
            data: Some(summary.fingerprint.clone()),
            info: self.info.clone(),
        }
    }

    /// Refuses what cannot run (on `processes` sharing each step, where several do),
    /// creates the run folder (of a run not resumed), and resolves lengths, intervals and the
    /// schedule.
    fn plan<B: Backend>(
        &self,
        train: &TrainData<'_, B>,
        val: Option<Data<'_, B>>,
        whole: Option<WholeRows>,
        processes: Option<usize>,
    ) -> Result<Plan> {
        if self.early_stopping.is_some() && val.is_none() {
            return Err(Error::NeedsValidationRows);
        }
        let plan = Plan::new(&self.settings, train, self.pool, self.early_stopping, whole)?
            .with_validation(val, whole);
        if let (Some(check), TrainData::Tensors(d)) = (&self.memory_check, train) {
            // This process's memory: the rows it holds.
            let held = |t: &tensor_core::Tensor<B>| t.dims().first().copied().unwrap_or(0);
            let size = TrainingSize {
                rows: held(d.x) / self.pool.max(1),
                target_rows: held(d.y),
                batch: plan.batch,
                eval_rows: val.map_or(0, |v| held(v.x)),
                data_in_host_memory: d.x.host_slice().is_some(),
            };
            check(&self.architecture, &size)?;
        }
        if let Some(n) = processes {
            // Refused before the folder is made: nothing is left of a run that cannot run.
            let batch = plan.batch.unwrap_or(plan.rows);
            nn::train::check_shareable(batch, plan.pool > 1, n)?;
        }
        if !self.settings.resume {
            // A resumed run's folder holds its checkpoint: where it is missing, the resume is
            // refused without making it.
            std::fs::create_dir_all(&self.dir).map_err(|source| Error::CreateDir {
                path: self.dir.clone(),
                source,
            })?;
        }
        Ok(plan)
    }

    /// A fresh model and optimizer, or the checkpoint's when resuming.
    fn start<B: Backend, M: Model<B, Config = C>>(
        &mut self,
        backend: &B,
        meta: &RunMeta<C>,
        plan: &Plan,
        trainer: &mut Trainer,
    ) -> Result<(M, Box<dyn Optimizer<B>>)> {
        if self.settings.resume {
            return crate::resume::resume(self, backend, meta, plan, trainer);
        }
        let mut model = M::from_config(backend, &self.architecture, self.settings.seed)?;
        if let Some(bias) = &self.output_bias {
            set_output_bias(&mut model, bias)?;
        }
        let adam = M::adam(self.settings.lr, self.weight_decay);
        Ok((model, OptimizerConfig::Adam(adam).build::<B>()?))
    }

    /// Tells the reporter what the run will do; returns the history of its earlier parts.
    fn announce<B: Backend>(
        &mut self,
        backend: &B,
        plan: &Plan,
        first_step: u64,
    ) -> Vec<history::Row> {
        let earlier = if self.settings.resume {
            history::read_until(&self.dir, first_step, &mut *self.reporter)
        } else {
            Vec::new()
        };
        if first_step >= plan.total_steps {
            self.reporter.note(&format!(
                "note: the checkpoint is already at step {first_step} of {}; nothing to train (raise its length in steps or epochs)",
                plan.total_steps
            ));
        }
        let line = format!(
            "training {}: {}, lr {} ({} schedule), {}; loss: {}; record in {}",
            self.job,
            length_text(
                self.settings.length,
                plan.total_steps,
                plan.steps_per_epoch,
                plan.batch
            ),
            self.settings.lr,
            self.settings.schedule.name(),
            backend.name(),
            self.loss_units.label,
            self.dir.join(record::FILE_NAME).display()
        );
        self.reporter.start(&line, plan.total_steps, first_step);
        earlier
    }
}

impl Run<'_, MlpConfig> {
    /// Trains an MLP (see [`Run::train`]).
    pub fn train_mlp<B: Backend>(
        self,
        backend: &B,
        train: Data<'_, B>,
        val: Option<Data<'_, B>>,
    ) -> Result<Outcome<Mlp<B>>> {
        self.train::<B, Mlp<B>>(backend, train, val)
    }
}

/// Refuses tensors that are a part of the rows (`whole`: the whole sets' sizes) on a process
/// training alone, which would train on that part as if it were the whole.
fn refuse_part_alone<B: Backend>(train: &TrainData<'_, B>, whole: Option<WholeRows>) -> Result<()> {
    match (train, whole) {
        (TrainData::Tensors(d), Some(w)) if d.x.dims().first() != Some(&w.train) => {
            Err(Error::Refused(format!(
                "this process holds {} of the {} training rows but trains alone",
                d.x.dims().first().copied().unwrap_or(0),
                w.train
            )))
        }
        _ => Ok(()),
    }
}

/// What the monitor saw of a finished `fit`.
struct Watched {
    report: nn::TrainReport,
    best: Option<crate::monitor::Best>,
    elapsed: f64,
    rows: Vec<history::Row>,
}

/// The run's own error where a callback failed with it (divergence, a checkpoint that
/// could not be written), the trainer's otherwise.
fn unwrap_callback_error(e: nn::Error) -> Error {
    match e {
        nn::Error::Callback(inner) => match inner.downcast::<crate::divergence::Diverged>() {
            Ok(d) => Error::Diverged(*d),
            Err(inner) => match inner.downcast::<Error>() {
                Ok(e) => *e,
                Err(inner) => Error::Nn(nn::Error::Callback(inner)),
            },
        },
        e => Error::Nn(e),
    }
}

/// Overwrites the bias of the last layer (the last parameter named `*bias`).
fn set_output_bias<B: Backend, M: Model<B>>(model: &mut M, bias: &[f32]) -> Result<()> {
    let mut state = model.export_state()?;
    let Some(entry) = state.iter_mut().rev().find(|a| a.name.ends_with("bias")) else {
        return Err(Error::Refused("the network has no output bias".into()));
    };
    if entry.data.len() != bias.len() {
        return Err(Error::Refused(format!(
            "output bias of {} values for {} outputs",
            bias.len(),
            entry.data.len()
        )));
    }
    entry.data.copy_from_slice(bias);
    model.import_state(&state)?;
    Ok(())
}

impl<C> Run<'_, C> {
    /// The run's stop flag, with a stop at [`stop_at_step`](Run::stop_at_step) wired in: a
    /// reporter around the program's that raises the flag at that step.
    fn armed_stop_flag(&mut self) -> Option<Arc<AtomicBool>> {
        if let Some(step) = self.stop_at {
            let flag = Arc::clone(self.stop.get_or_insert_with(Default::default));
            let inner = std::mem::replace(&mut self.reporter, Box::new(crate::Silent));
            self.reporter = Box::new(StopAt { inner, step, flag });
        }
        self.stop.clone()
    }
}

/// The evaluation whose weights a finished run with early stopping kept, from its state:
/// the first of the best loss, where it came before the last step.
fn restored_before(state: &nn::TrainerState, last_step: u64) -> Option<(u64, f32)> {
    let best = state.best_loss?;
    let at = state.history.iter().find(|m| m.val_loss == Some(best))?;
    (at.step != last_step).then_some((at.step, best))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::record::{RunRecord, ScheduleRecord, Tool, TrainingRecord};
    use nn::{AdamConfig, TrainLength};

    /// A training record of an xor run with `batch`.
    pub(crate) fn training_record(batch: Option<usize>) -> TrainingRecord {
        let settings = Settings::default();
        TrainingRecord {
            optimizer: OptimizerConfig::Adam(AdamConfig::new(0.05)),
            lr: 0.05,
            schedule: ScheduleRecord {
                name: "cosine".into(),
                detail: settings.schedule.build(0.05, 100),
            },
            length: TrainLength::Epochs(100),
            total_steps: 100,
            steps_per_epoch: 1,
            batch,
            train_rows: 4,
            validation_rows: None,
            loss: Loss::BceWithLogits,
            loss_units: "binary cross-entropy".into(),
            early_stopping: None,
            log_every_steps: 1,
            eval_every_epochs: 1,
            checkpoint_every_steps: 500,
            area_supervision: 1,
        }
    }

    /// The record of an xor run.
    pub(crate) fn run_record() -> RunRecord {
        RunRecord {
            tool: Tool::default(),
            command: vec!["iron-learn".into(), "xor".into()],
            started: record::utc_now(),
            job: "xor".into(),
            device: "cpu".into(),
            seed: 42,
            training: training_record(None),
            architecture: Value::Null,
            job_entries: Map::from_iter([(
                "options".to_string(),
                serde_json::json!({ "hidden": "4" }),
            )]),
            resumes: Vec::new(),
        }
    }
}
