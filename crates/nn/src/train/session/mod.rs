//! One call of [`Trainer::fit`](super::Trainer::fit): its data, settings and device buffers;
//! the work of a step ([`step`]) and between steps ([`eval`]) in the submodules.

mod eval;
mod part;
mod step;

use super::batches::BatchPlan;
use super::part::{Holding, PartRows};
use super::pooling::Pooling;
use super::replicas::{Replicas, Shard};
use super::source::{BatchSource, TrainData};
use super::state::TrainerState;
use super::{Data, TrainLength, TrainerConfig};
use crate::layer::Layer;
use crate::model::Model;
use crate::optim::GradClipper;
use crate::{Result, config_err};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use step::encode_once;
use tensor_core::{Backend, Tensor};

/// The device buffers of one `fit` call, reused by every step.
struct Buffers<B: Backend> {
    /// Mini-batch inputs and targets (`None` for full-batch training).
    batch: Option<(Tensor<B>, Tensor<B>)>,
    /// The gradient of the loss with respect to the predictions.
    grad: Tensor<B>,
    /// The last step's loss (one element).
    loss: Tensor<B>,
    /// Sum of the losses of the current epoch.
    epoch_sum: Tensor<B>,
    /// Sum of the losses since the last read-back.
    window_sum: Tensor<B>,
    /// The current epoch's row order on the device, with its epoch.
    index: Option<(u64, B::Index)>,
}

/// What happens after a step.
#[derive(Debug, Clone, Copy)]
pub(super) struct Marks {
    /// The step ended an epoch.
    pub end_of_epoch: bool,
    /// The epoch's metrics are evaluated.
    pub eval: bool,
    /// The callback is told about the step.
    pub callback: bool,
    /// The loss is read back (and checked).
    pub read: bool,
}

/// The state of one `fit` call.
pub(super) struct Session<'d, B: Backend> {
    cfg: TrainerConfig,
    /// The training tensors, or `None` with a batch source.
    train: Option<Data<'d, B>>,
    /// The batch source, when batches are made per step.
    source: Option<&'d mut dyn BatchSource<B>>,
    /// Whether the batch buffers hold the source's batch (for fixed sources).
    filled: bool,
    val: Option<Data<'d, B>>,
    rows: usize,
    plan: BatchPlan,
    /// Steps to reach in total.
    pub total: u64,
    /// The training inputs after the model's parameter-free encoding, when cached.
    encoded: Option<Tensor<B>>,
    buf: Buffers<B>,
    pooled: Option<Pooling<B>>,
    /// This process's share of each batch, in a data-parallel run.
    shard: Option<Shard<B>>,
    /// The stop flag, read once a step into the group's sum in a data-parallel run.
    pub stop_flag: Option<Arc<AtomicBool>>,
    /// Whether any process of a data-parallel run was asked to stop, as of the last step.
    pub group_stop: bool,
    /// Gradient and loss buffers of the validation loss.
    val_bufs: Option<(Tensor<B>, Tensor<B>)>,
    clipper: Option<GradClipper<B>>,
    window_steps: u64,
    last_checked: u64,
    /// Steps run by this call.
    pub steps_run: u64,
    /// The learning rate of the last step.
    pub lr: f32,
}

impl<B: Backend> Session<'_, B> {
    /// Whether the steps are shared with other processes.
    pub fn is_shared(&self) -> bool {
        self.shard.is_some()
    }
}

impl<'d, B: Backend> Session<'d, B> {
    /// Checks the data against the model and sets up every buffer (and the cached encoding).
    pub fn new<M: Model<B>>(
        cfg: &TrainerConfig,
        state: &TrainerState,
        model: &mut M,
        lr: f32,
        train: TrainData<'d, B>,
        val: Option<Data<'d, B>>,
        replicas: Option<(Arc<dyn Replicas>, Holding)>,
    ) -> Result<Self> {
        cfg.validate()?;
        if let Some(v) = &val {
            v.check(model, "validation", 1)?;
        }
        let out_dim = model.output_dim();
        let replicas = replicas.filter(|(r, _)| r.size() > 1);
        let held_val = val.map_or(0, |v| v.x.dims()[0]);
        let (train, source, backend, rows, plan, part) = match train {
            TrainData::Tensors(t) => {
                let held = t.check(model, "training", cfg.pool)?;
                let part = part_rows(&replicas, (held, held_val))?;
                let rows = part.as_ref().map_or(held, |p| p.train_total);
                let plan = BatchPlan::new(rows, cfg.batch_size)?;
                (Some(t), None, t.x.backend().clone(), rows, plan, part)
            }
            TrainData::Sampled(s) => {
                check_source_holding(&*s, &replicas)?;
                let part = part_rows(&replicas, (0, held_val))?;
                let (rows, plan) = sampled_plan(&*s, model, cfg.pool)?;
                (None, Some(s), model_backend(model)?, rows, plan, part)
            }
        };
        let backend = &backend;
        let pooled = Pooling::new(backend, cfg, rows, out_dim, val.is_some(), source.is_some())?;
        let total = match cfg.length {
            TrainLength::Epochs(e) => e.saturating_mul(plan.steps_per_epoch),
            TrainLength::Steps(s) => s,
        };
        let encoded = match (cfg.cache_encoding, &train) {
            (true, Some(t)) => encode_once(model, t.x, t.x.dims()[0])?,
            _ => None,
        };
        let in_width = match (&encoded, &train) {
            (Some(e), _) => e.dims()[1],
            (None, Some(t)) => t.x.dims()[1],
            (None, None) => model.input_dim(),
        };
        let targets = rows / cfg.pool;
        let mut buf = Buffers::new(
            backend,
            &plan,
            in_width,
            out_dim,
            targets,
            state.epoch_loss_sum,
        )?;
        if part.is_some() {
            // A process holding its part gathers its rows of each batch itself.
            buf.batch = None;
        }
        // A set of more rows is evaluated in chunks, with buffers of their own.
        let val_bufs = match &val {
            Some(v) if v.x.dims()[0] <= crate::train::EVAL_ROWS => Some((
                Tensor::uninit(backend, v.y.shape().clone())?,
                Tensor::zeros(backend, [1])?,
            )),
            _ => None,
        };
        let shard = match (replicas, part) {
            (Some((r, _)), part) => {
                crate::train::check_shareable(plan.batch, pooled.is_some(), r.size())?;
                Some(match part {
                    Some(p) => Shard::of_part(backend, r, p, in_width, out_dim)?,
                    None => Shard::new(backend, r, plan.batch, in_width, out_dim)?,
                })
            }
            (None, _) => None,
        };
        let clipper = match cfg.clip_grad_norm {
            Some(c) => Some(GradClipper::new(backend, c)?),
            None => None,
        };
        Ok(Session {
            cfg: cfg.clone(),
            train,
            source,
            filled: false,
            val,
            rows,
            plan,
            total,
            encoded,
            buf,
            pooled,
            shard,
            stop_flag: None,
            group_stop: false,
            val_bufs,
            clipper,
            window_steps: 0,
            last_checked: state.step,
            steps_run: 0,
            lr,
        })
    }
}

/// Where this process's rows lie in the whole sets, for a process of several holding its
/// part of the data (`held`: its training and validation rows); `None` otherwise.
fn part_rows(
    replicas: &Option<(Arc<dyn Replicas>, Holding)>,
    held: (usize, usize),
) -> Result<Option<PartRows>> {
    match replicas {
        Some((r, Holding::Part)) => Ok(Some(PartRows::exchange(&**r, held)?)),
        _ => Ok(None),
    }
}

/// Refuses a batch source that makes whole batches for processes that each hold their part
/// of the data, or parts for processes that each hold the whole.
fn check_source_holding<B: Backend>(
    source: &dyn BatchSource<B>,
    replicas: &Option<(Arc<dyn Replicas>, Holding)>,
) -> Result<()> {
    let Some((_, holding)) = replicas else {
        return Ok(());
    };
    match (holding, source.makes_parts()) {
        (Holding::Part, false) => Err(config_err(
            "the batch source makes whole batches, but each process holds only its part of \
             the data",
        )),
        (Holding::Whole, true) => Err(config_err(
            "the batch source makes this process's part of each batch, but each process \
             holds the whole data",
        )),
        _ => Ok(()),
    }
}

/// Input rows per step and the batch plan of a batch source, checked against `model`.
fn sampled_plan<B: Backend>(
    source: &dyn BatchSource<B>,
    model: &dyn Layer<B>,
    pool: usize,
) -> Result<(usize, BatchPlan)> {
    let (i, o) = (source.input_dim(), source.output_dim());
    if (i, o) != (model.input_dim(), model.output_dim()) {
        return Err(config_err(format!(
            "the batch source makes {i} inputs and {o} targets per row, the model takes {} and gives {}",
            model.input_dim(),
            model.output_dim()
        )));
    }
    let rows = source.batch_rows().saturating_mul(pool);
    if rows == 0 {
        return Err(config_err("the batch source makes empty batches"));
    }
    let plan = BatchPlan {
        rows,
        batch: rows,
        steps_per_epoch: source.steps_per_epoch().max(1),
        full_batch: false,
    };
    Ok((rows, plan))
}

/// The backend of a model's parameters.
fn model_backend<B: Backend>(model: &dyn Layer<B>) -> Result<B> {
    let mut found = None;
    model.visit_params(&mut |p| {
        found.get_or_insert_with(|| p.value.backend().clone());
        Ok(())
    })?;
    found.ok_or_else(|| config_err("a model without parameters cannot be trained"))
}

impl<B: Backend> Buffers<B> {
    fn new(
        backend: &B,
        plan: &BatchPlan,
        in_width: usize,
        out_dim: usize,
        targets: usize,
        epoch_loss_sum: f32,
    ) -> Result<Self> {
        // Mini-batches are never pooled; a batch source's may be (`targets` rows then).
        let batch = match plan.full_batch {
            true => None,
            false => Some((
                Tensor::uninit(backend, [plan.batch, in_width])?,
                Tensor::uninit(backend, [targets.min(plan.batch), out_dim])?,
            )),
        };
        Ok(Buffers {
            batch,
            grad: Tensor::uninit(backend, [plan.batch, out_dim])?,
            loss: Tensor::zeros(backend, [1])?,
            epoch_sum: Tensor::from_slice(backend, &[epoch_loss_sum], [1])?,
            window_sum: Tensor::zeros(backend, [1])?,
            index: None,
        })
    }
}
