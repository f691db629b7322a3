//! What a [`Run`] writes in its record (`config.json`): the training settings, the device
//! and, resumed, an entry for each resume.

use super::Run;
use crate::plan::Plan;
use crate::record::{self, EarlyStoppingRecord, ResumeRecord, RunRecord, ScheduleRecord};
use crate::record::{Tool, TrainingRecord};
use crate::{Error, Result};
use nn::OptimizerConfig;
use serde::Serialize;
use tensor_core::Backend;

impl<C: Clone + PartialEq + Serialize> Run<'_, C> {
    /// The training settings as recorded.
    pub(super) fn training_record(
        &self,
        plan: &Plan,
        optimizer: OptimizerConfig,
    ) -> TrainingRecord {
        TrainingRecord {
            optimizer,
            lr: self.settings.lr,
            schedule: ScheduleRecord {
                name: self.settings.schedule.name().into(),
                detail: plan.schedule.clone(),
            },
            length: self.settings.length,
            total_steps: plan.total_steps,
            steps_per_epoch: plan.steps_per_epoch,
            batch: plan.batch,
            train_rows: plan.rows,
            validation_rows: plan.validation_rows,
            loss: self.loss,
            loss_units: self.loss_units.label.clone(),
            early_stopping: self.early_stopping.map(|es| EarlyStoppingRecord {
                patience_epochs: es.patience,
                patience_evaluations: plan.early_stopping.map(|e| e.patience),
                restore_best_weights: true,
            }),
            log_every_steps: plan.log_interval,
            eval_every_epochs: plan.eval_every,
            checkpoint_every_steps: self.settings.checkpoint_every,
            area_supervision: self.pool,
        }
    }

    /// The device as the record names it: the backend's name and, in a run over several
    /// processes ([`crate::ranks`]), how they shared this run and what each `holding` held.
    fn device_text<B: Backend>(&self, backend: &B, holding: nn::Holding) -> String {
        let world = crate::ranks::world();
        match (world.size(), self.alone) {
            (1, _) => backend.name(),
            (n, false) => {
                let on_gpus = crate::ranks::replicas().is_some_and(|r| r.sums_on_device());
                let how = if on_gpus { " (summed with NCCL)" } else { "" };
                let held = match holding {
                    nn::Holding::Part => ", each process holding its part of the data",
                    nn::Holding::Whole => "",
                };
                format!(
                    "{}; {n} processes, each step shared{held}{how}",
                    backend.name()
                )
            }
            (n, true) => format!(
                "{}; trained by process {} of {n}",
                backend.name(),
                world.rank()
            ),
        }
    }

    /// Writes `config.json` (a fresh run) or appends to its `resumes` (a resumed one),
    /// before any training, so that even a crashed run has a record; `holding` is what each
    /// process holds of the data.
    pub(super) fn write_record<B: Backend>(
        &self,
        backend: &B,
        plan: &Plan,
        optimizer: OptimizerConfig,
        first_step: u64,
        holding: nn::Holding,
    ) -> Result<()> {
        if self.reloading {
            return Ok(());
        }
        let training = self.training_record(plan, optimizer);
        let architecture = serde_json::to_value(&self.architecture)
            .map_err(|e| Error::json("cannot encode the architecture", e))?;
        let record = RunRecord {
            tool: Tool::default(),
            command: record::command_line(),
            started: record::utc_now(),
            job: self.job.clone(),
            device: self.device_text(backend, holding),
            seed: self.settings.seed,
            training: training.clone(),
            architecture,
            job_entries: self.record.clone(),
            resumes: Vec::new(),
        };
        if !self.settings.resume {
            return record.write_new(&self.dir);
        }
        let entry = ResumeRecord {
            command: record.command.clone(),
            started: record.started.clone(),
            step: first_step,
            device: record.device.clone(),
            training,
        };
        record.append_resume(&self.dir, entry)
    }
}
