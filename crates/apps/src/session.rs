//! The command line's side of a training run: the options a job resolves against its
//! defaults, the stop flag its signal handlers raise, progress on stderr and the loss chart.
//! The run itself (resume, checkpoints, early stopping, divergence, record) is the `train`
//! crate's.

use crate::cli::{BatchArg, ScheduleArg, TrainArgs};
use anyhow::Result;
use nn::{Data, Mlp, MlpConfig, TrainLength};
use serde::Serialize;
use serde_json::{Map, Value};
use std::path::PathBuf;
use tensor_core::Backend;
use train::progress::StderrReporter;
pub use train::{LossUnits, Outcome, RunData, RunModel};

pub use train::defaults::Defaults;

/// A training run a job asks for, of a network with configuration `C` (an MLP's by default).
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
    pub extra: Value,
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
    /// Bytes the job holds beside the run for its whole length (a table as read, its
    /// validation and test rows), counted with the run's own memory when it is checked.
    pub held_beside: f64,
}

/// The library's schedule for the command line's.
pub fn schedule(arg: ScheduleArg) -> train::Schedule {
    match arg {
        ScheduleArg::Constant => train::Schedule::Constant,
        ScheduleArg::Step => train::Schedule::Step,
        ScheduleArg::Cosine => train::Schedule::Cosine,
    }
}

/// The library's training choices for the common training flags.
pub fn choices(t: &TrainArgs) -> train::TrainChoices {
    train::TrainChoices {
        lr: t.lr,
        length: match (t.epochs, t.steps) {
            (Some(e), _) => Some(TrainLength::Epochs(e as u64)),
            (_, Some(s)) => Some(TrainLength::Steps(s as u64)),
            _ => None,
        },
        batch: t.batch.map(|b| match b {
            BatchArg::Full => train::BatchChoice::Full,
            BatchArg::Size(n) => train::BatchChoice::Rows(n),
        }),
        schedule: t.schedule.map(schedule),
        seed: t.seed,
        checkpoint_every: t.checkpoint_every as u64,
        log_every: t.log_every,
        resume: t.resume,
        force: t.force,
        stop: None,
    }
}

/// The run's settings: the options given, the job's defaults for the others.
pub fn settings(args: &TrainArgs, defaults: &Defaults) -> train::Settings {
    choices(args).settings(defaults)
}

impl Run<'_, MlpConfig> {
    /// Trains an MLP on tensors, refusing first what cannot fit in the memory budget.
    pub fn train<B: Backend>(
        self,
        backend: &B,
        train: Data<'_, B>,
        val: Option<Data<'_, B>>,
    ) -> Result<Outcome<Mlp<B>>> {
        let check = train::budget::mlp_check(self.job, self.held_beside);
        self.run::<B, Mlp<B>>(backend, train.into(), val, Some(check))
    }
}

impl<C: Clone + PartialEq + Serialize> Run<'_, C> {
    fn run<'d, B: Backend, M: RunModel<B, Config = C>>(
        self,
        backend: &B,
        train: RunData<'d, B>,
        val: Option<Data<'d, B>>,
        check: Option<train::MemoryCheck<'_, C>>,
    ) -> Result<Outcome<M>> {
        let dir = self.dir.clone();
        let reporter = StderrReporter::new(self.args.quiet, self.args.log_every);
        let mut run = train::Run::new(
            self.job,
            self.dir,
            self.architecture,
            self.loss,
            settings(self.args, &self.defaults),
        )
        .extra(self.extra)
        .info(self.info)
        .early_stopping(self.early_stopping)
        .pool(self.pool)
        .output_bias(self.output_bias)
        .record(self.record)
        .loss_units(self.loss_units)
        .weight_decay(self.weight_decay)
        .stop_flag(crate::signals::watch())
        .reporter(reporter);
        if let Some(check) = check {
            run = run.memory_check(check);
        }
        let out = run.train::<B, M>(backend, train, val)?;
        train::plot::draw_loss(&dir, &out.history, &out.loss_units)?;
        if out.report.stop_reason == nn::StopReason::Interrupted {
            crate::signals::note_stopped_at(out.report.steps);
            eprintln!(
                "stopped at step {}; continue with --resume --out {}",
                out.report.steps,
                dir.display()
            );
        }
        Ok(out)
    }
}
