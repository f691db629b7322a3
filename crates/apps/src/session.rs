//! The training run every job shares: resume, checkpoints, Ctrl-C and SIGTERM, the run
//! record, the history and the loss chart.

use crate::checkpoint::{self, RunMeta, RunModel};
use crate::cli::{BatchArg, ScheduleArg, TrainArgs};
use crate::divergence::Diverged;
use crate::monitor::{LossUnits, Monitor, gcd, log_interval};
pub use crate::outcome::Outcome;
use crate::outcome::{draw_loss, length_text};
use crate::progress::Progress;
use crate::report::history;
use crate::report::run_record;
pub use crate::run_data::{DataSummary, RunData};
use anyhow::{Context, Result, bail};
use nn::{
    Control, Data, LrSchedule, Mlp, MlpConfig, Model, Optimizer, OptimizerConfig, TrainData,
    TrainEvent, TrainLength, Trainer, TrainerConfig,
};
use serde::Serialize;
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};
use tensor_core::Backend;

/// Per-job defaults for the common training options.
#[derive(Debug, Clone, Copy)]
pub struct Defaults {
    /// Learning rate.
    pub lr: f32,
    /// Length when neither --epochs nor --steps is given.
    pub length: TrainLength,
    /// Mini-batch size (`None`: full batch).
    pub batch: Option<usize>,
    /// Schedule.
    pub schedule: ScheduleArg,
}

/// A training run to perform, of a network with configuration `C` (an MLP's by default).
pub struct Run<'a, C = MlpConfig> {
    /// The job name, for metadata.
    pub job: &'static str,
    /// Output folder (created).
    pub dir: PathBuf,
    /// Command-line options.
    pub args: &'a TrainArgs,
    /// Defaults the options fall back to.
    pub defaults: Defaults,
    /// The network (ignored when resuming: the checkpoint's is used, and must match).
    pub architecture: C,
    /// The loss.
    pub loss: nn::Loss,
    /// Job-specific metadata stored in the checkpoint.
    pub extra: serde_json::Value,
    /// What the model predicts (names, standardisation, classes), stored in the checkpoint
    /// so that `predict` and `export` can use it.
    pub info: io::ModelInfo,
    /// Early stopping on the validation loss, its patience counted in epochs; the weights
    /// of the best evaluation are restored at the end.
    pub early_stopping: Option<nn::EarlyStopping>,
    /// Area supervision: targets matched by the mean of this many consecutive input rows.
    pub pool: usize,
    /// Initial output-layer bias of a fresh model (e.g. the logit of the mean target).
    pub output_bias: Option<Vec<f32>>,
    /// Job-specific entries of `config.json` (the data read, the job's own options).
    pub record: Map<String, Value>,
    /// How the loss is reported (progress, `history.csv`, `loss.png`, metrics).
    pub loss_units: LossUnits,
    /// AdamW's decoupled weight decay (0: Adam without decay).
    pub weight_decay: f32,
}

impl Run<'_, MlpConfig> {
    /// Trains an MLP (see [`Run::train_model`]).
    pub fn train<B: Backend>(
        self,
        backend: &B,
        train: Data<'_, B>,
        val: Option<Data<'_, B>>,
    ) -> Result<Outcome<Mlp<B>>> {
        self.train_model::<B, Mlp<B>>(backend, train, val)
    }
}

impl<C: Clone + PartialEq + Serialize> Run<'_, C> {
    /// The learning rate in use.
    pub fn lr(&self) -> f32 {
        self.args.lr.unwrap_or(self.defaults.lr)
    }

    fn length(&self) -> TrainLength {
        match (self.args.epochs, self.args.steps) {
            (Some(e), _) => TrainLength::Epochs(e as u64),
            (_, Some(s)) => TrainLength::Steps(s as u64),
            _ => self.defaults.length,
        }
    }

    fn schedule(&self, total_steps: u64) -> LrSchedule {
        let lr = self.lr();
        let total = total_steps.max(1);
        match self.args.schedule.unwrap_or(self.defaults.schedule) {
            ScheduleArg::Constant => LrSchedule::constant(lr),
            ScheduleArg::Step => LrSchedule::step_decay(lr, (total / 4).max(1), 0.5),
            ScheduleArg::Cosine => LrSchedule::cosine(lr, lr / 100.0, total),
        }
    }

    /// Trains on `train` (validating on `val`), resuming from the run folder's checkpoint
    /// with --resume, checkpointing every --checkpoint-every steps, at Ctrl-C and at the end,
    /// and writing `config.json`, `history.csv` and `loss.png`.
    ///
    /// `train` is tensors ([`Data`]) or a batch source with its data's summary
    /// ([`RunData::Sampled`]), which makes each step's batch itself (the batch options then
    /// belong to the job that built it).
    pub fn train_model<'d, B: Backend, M: RunModel<B, Config = C>>(
        self,
        backend: &B,
        train: impl Into<RunData<'d, B>>,
        val: Option<Data<'d, B>>,
    ) -> Result<Outcome<M>> {
        let (train, summary) = train.into().split(&self.extra)?;
        let (rows, batch, steps_per_epoch) = match &train {
            TrainData::Tensors(d) => {
                let rows = d.x.dims().first().copied().unwrap_or(0) / self.pool.max(1);
                let batch = match self.args.batch {
                    Some(BatchArg::Full) => None,
                    Some(BatchArg::Size(n)) => Some(n),
                    None => self.defaults.batch,
                }
                .filter(|&n| n < rows);
                (rows, batch, batch.map_or(1, |b| (rows / b).max(1)) as u64)
            }
            TrainData::Sampled(s) => {
                let b = s.batch_rows();
                (b, Some(b), s.steps_per_epoch().max(1))
            }
        };
        if rows == 0 {
            bail!("there are no training rows");
        }
        // Refuse what cannot fit before the model and its buffers are allocated (a batch
        // source bounds its own memory, and its job checks it).
        if let TrainData::Tensors(d) = &train {
            let targets_rows = d.y.dims().first().copied().unwrap_or(0);
            let eval_rows = val.map_or(0, |v| v.x.dims().first().copied().unwrap_or(0));
            if let Some(estimate) =
                M::training_estimate(&self.architecture, rows, targets_rows, batch, eval_rows)
            {
                estimate.check(self.job)?;
            }
        }
        let sampled = matches!(train, TrainData::Sampled(_));
        let length = self.length();
        let total_steps = match length {
            TrainLength::Epochs(e) => e * steps_per_epoch,
            TrainLength::Steps(s) => s,
        };
        let every = self.args.checkpoint_every as u64;
        let interval = log_interval(total_steps);
        let log_every = self.args.log_every.filter(|&n| n > 0);
        let callback_every = gcd(gcd(interval, every), log_every.unwrap_or(0));
        // Evaluations (validation loss, early stopping) at about the logging interval.
        let eval_every = (interval / steps_per_epoch).max(1);
        let early_stopping = self.early_stopping.map(|es| {
            nn::EarlyStopping::new(es.patience.div_ceil(eval_every).max(1), es.min_delta)
        });
        let schedule = self.schedule(total_steps);
        let config = TrainerConfig {
            loss: self.loss,
            schedule: Some(schedule.clone()),
            length,
            batch_size: if sampled { None } else { batch },
            shuffle: true,
            seed: self.args.seed,
            log_every: callback_every,
            eval_every,
            callback_every,
            early_stopping,
            clip_grad_norm: None,
            progress: false,
            cache_encoding: true,
            pool: self.pool,
        };
        let path = self.dir.join(checkpoint::FILE_NAME);
        // The data's fingerprint goes into the checkpoint (and is compared on --resume), its
        // targets set the divergence threshold.
        let watch = summary.watch(self.loss, self.lr());
        let meta = RunMeta {
            job: self.job.to_string(),
            architecture: self.architecture.clone(),
            extra: self.extra.clone(),
            data: Some(summary.fingerprint),
            info: Some(self.info.clone()),
        };
        let optimizer_config = OptimizerConfig::Adam(M::adam(self.lr(), self.weight_decay));
        let mut trainer = Trainer::new(config)?;
        let (mut model, mut optimizer) = if self.args.resume {
            resume(backend, &path, &meta, self.args.force, &mut trainer)?
        } else {
            let mut model = M::from_config(backend, &self.architecture, self.args.seed)?;
            if let Some(bias) = &self.output_bias {
                set_output_bias(&mut model, bias)?;
            }
            (model, optimizer_config.build::<B>()?)
        };
        let first_step = trainer.state().step;
        if first_step >= total_steps {
            eprintln!(
                "note: the checkpoint is already at step {first_step} of {total_steps}; nothing to train (raise --steps or --epochs)"
            );
        }

        // The run record, before any training, so that even a crashed run has one.
        let mut record = run_record::header();
        record.insert("job".into(), json!(self.job));
        record.insert("device".into(), json!(backend.name()));
        record.insert("seed".into(), json!(self.args.seed));
        let schedule_name = self.args.schedule.unwrap_or(self.defaults.schedule);
        let training = json!({
            "optimizer": optimizer.config(),
            "lr": self.lr(),
            "schedule": {
                "name": format!("{schedule_name:?}").to_lowercase(),
                "detail": schedule,
            },
            "length": length,
            "total_steps": total_steps,
            "steps_per_epoch": steps_per_epoch,
            "batch": batch.map_or(json!("full"), |b| json!(b)),
            "train_rows": rows,
            "validation_rows": val.map(|v| v.y.dims()[0]),
            "loss": self.loss,
            "loss_units": self.loss_units.label,
            "early_stopping": self.early_stopping.map(|es| json!({
                "patience_epochs": es.patience,
                "patience_evaluations": early_stopping.map(|e| e.patience),
                "restore_best_weights": true,
            })),
            "log_every_steps": interval,
            "eval_every_epochs": eval_every,
            "checkpoint_every_steps": every,
            "area_supervision": self.pool,
        });
        record.insert("training".into(), training.clone());
        record.insert(
            "architecture".into(),
            serde_json::to_value(&self.architecture)?,
        );
        record.extend(self.record.clone());
        if self.args.resume {
            let mut entry = run_record::header();
            entry.remove("tool");
            entry.insert("step".into(), json!(first_step));
            entry.insert("device".into(), json!(backend.name()));
            entry.insert("training".into(), training);
            run_record::append_resume(&self.dir, Value::Object(entry), &record)?;
        } else {
            run_record::write_new(&self.dir, &record)?;
        }

        let earlier = if self.args.resume {
            history::read_until(&self.dir, first_step)
        } else {
            Vec::new()
        };
        if !self.args.quiet && first_step < total_steps {
            eprintln!(
                "training {}: {}, lr {} ({} schedule), {}; loss: {}; record in {}",
                self.job,
                length_text(length, total_steps, steps_per_epoch, batch),
                self.lr(),
                format!("{schedule_name:?}").to_lowercase(),
                backend.name(),
                self.loss_units.label,
                self.dir.join(run_record::FILE_NAME).display()
            );
        }
        let progress = Progress::new(self.args.quiet, log_every, total_steps, first_step);
        let mut monitor = Monitor::new(
            earlier,
            self.loss_units.clone(),
            steps_per_epoch,
            schedule,
            progress,
            self.early_stopping.is_some(),
        );
        trainer.set_stop_flag(crate::signals::watch());
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
                        .map_err(|e| nn::Error::Callback(e.into()))?;
                }
                Ok(Control::Continue)
            },
        );
        monitor.finish();
        let report = match fitted {
            Ok(r) => r,
            // Divergence is the run's own finding, not a failing callback: say it plainly.
            Err(nn::Error::Callback(e)) if e.is::<Diverged>() => return Err(anyhow::anyhow!(e)),
            Err(e) => return Err(e.into()),
        };
        let restored = match monitor.take_best() {
            Some(best) if best.step != report.steps => {
                model.import_state(&best.state)?;
                checkpoint::save(&path, &meta, &model, optimizer.as_ref(), trainer.state())?;
                Some((best.step, f64::from(best.loss) * self.loss_units.scale))
            }
            _ => None,
        };
        let elapsed = monitor.elapsed();
        let rows = monitor.into_rows();
        history::write(&self.dir, &rows)?;
        draw_loss(&self.dir, &rows, &self.loss_units)?;
        if report.stop_reason == nn::StopReason::Interrupted {
            crate::signals::note_stopped_at(report.steps);
            eprintln!(
                "stopped at step {}; continue with --resume --out {}",
                report.steps,
                self.dir.display()
            );
        }
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
}

/// Overwrites the bias of the last layer (the last parameter named `*bias`).
fn set_output_bias<B: Backend, M: Model<B>>(model: &mut M, bias: &[f32]) -> Result<()> {
    let mut state = model.export_state()?;
    let Some(entry) = state.iter_mut().rev().find(|a| a.name.ends_with("bias")) else {
        bail!("the network has no output bias");
    };
    if entry.data.len() != bias.len() {
        bail!(
            "output bias of {} values for {} outputs",
            bias.len(),
            entry.data.len()
        );
    }
    entry.data.copy_from_slice(bias);
    model.import_state(&state)?;
    Ok(())
}

type Resumed<B, M> = (M, Box<dyn Optimizer<B>>);

fn resume<B: Backend, M: RunModel<B>>(
    backend: &B,
    path: &Path,
    meta: &RunMeta<M::Config>,
    force: bool,
    trainer: &mut Trainer,
) -> Result<Resumed<B, M>> {
    let loaded = checkpoint::load::<B, M>(backend, path)
        .with_context(|| format!("cannot resume from {}", path.display()))?;
    if loaded.meta.job != meta.job {
        bail!(
            "{} was written by `{}`, not `{}`",
            path.display(),
            loaded.meta.job,
            meta.job
        );
    }
    if loaded.meta.architecture != meta.architecture {
        let a = serde_json::to_value(&meta.architecture)?;
        let b = serde_json::to_value(&loaded.meta.architecture)?;
        let show = |v: Option<serde_json::Value>| v.map_or("absent".into(), |v| v.to_string());
        let (field, ours, theirs) = io::checkpoint::first_difference(&a, &b)
            .map(|d| (d.path, show(d.expected), show(d.found)))
            .unwrap_or_default();
        bail!(
            "{} holds a different network (first difference: architecture.{field} is {theirs} in the checkpoint, {ours} with these options); resume with the options it was trained with",
            path.display()
        );
    }
    if let (Some(now), Some(stored)) = (&meta.data, &loaded.meta.data)
        && let Some(difference) = now.difference(stored)
    {
        if !force {
            bail!(
                "{} was trained on other data: {difference} (--seed, --test-fraction and --val-fraction also choose the training rows); resume with the same data, or pass --force to continue on this data",
                path.display()
            );
        }
        eprintln!("note: resuming on other data than the checkpoint's (--force): {difference}");
    }
    let optimizer = loaded.optimizer()?;
    trainer.import_state(loaded.trainer_state()?);
    eprintln!(
        "resuming from {} at step {}",
        path.display(),
        trainer.state().step
    );
    Ok((loaded.model, optimizer))
}
