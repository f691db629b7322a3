//! One call of [`Trainer::fit`](super::Trainer::fit): its data, settings and device buffers;
//! the work of a step ([`step`]) and between steps ([`eval`]) in the submodules.

mod eval;
mod step;

use super::batches::BatchPlan;
use super::pooling::Pooling;
use super::progress::Progress;
use super::state::TrainerState;
use super::{Data, TrainLength, TrainerConfig};
use crate::Result;
use crate::model::Model;
use crate::optim::GradClipper;
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
    train: Data<'d, B>,
    val: Option<Data<'d, B>>,
    rows: usize,
    plan: BatchPlan,
    /// Steps to reach in total.
    pub total: u64,
    /// The training inputs after the model's parameter-free encoding, when cached.
    encoded: Option<Tensor<B>>,
    buf: Buffers<B>,
    pooled: Option<Pooling<B>>,
    /// Gradient and loss buffers of the validation loss.
    val_bufs: Option<(Tensor<B>, Tensor<B>)>,
    clipper: Option<GradClipper<B>>,
    /// The progress bar.
    pub progress: Progress,
    window_steps: u64,
    last_checked: u64,
    /// Steps run by this call.
    pub steps_run: u64,
    /// The learning rate of the last step.
    pub lr: f32,
}

impl<'d, B: Backend> Session<'d, B> {
    /// Checks the data against the model and sets up every buffer (and the cached encoding).
    pub fn new<M: Model<B>>(
        cfg: &TrainerConfig,
        state: &TrainerState,
        model: &mut M,
        lr: f32,
        train: Data<'d, B>,
        val: Option<Data<'d, B>>,
    ) -> Result<Self> {
        cfg.validate()?;
        let rows = train.check(model, "training", cfg.pool)?;
        if let Some(v) = &val {
            v.check(model, "validation", 1)?;
        }
        let backend = train.x.backend();
        let out_dim = model.output_dim();
        let pooled = Pooling::new(backend, cfg, rows, out_dim, val.is_some())?;
        let plan = BatchPlan::new(rows, cfg.batch_size)?;
        let total = match cfg.length {
            TrainLength::Epochs(e) => e.saturating_mul(plan.steps_per_epoch),
            TrainLength::Steps(s) => s,
        };
        let encoded = match cfg.cache_encoding {
            true => encode_once(model, train.x, rows)?,
            false => None,
        };
        let in_width = encoded.as_ref().unwrap_or(train.x).dims()[1];
        let buf = Buffers::new(backend, &plan, in_width, out_dim, state.epoch_loss_sum)?;
        let val_bufs = match &val {
            Some(v) => Some((
                Tensor::uninit(backend, v.y.shape().clone())?,
                Tensor::zeros(backend, [1])?,
            )),
            None => None,
        };
        let clipper = match cfg.clip_grad_norm {
            Some(c) => Some(GradClipper::new(backend, c)?),
            None => None,
        };
        Ok(Session {
            progress: Progress::new(cfg.progress, total, state.step.min(total)),
            cfg: cfg.clone(),
            train,
            val,
            rows,
            plan,
            total,
            encoded,
            buf,
            pooled,
            val_bufs,
            clipper,
            window_steps: 0,
            last_checked: state.step,
            steps_run: 0,
            lr,
        })
    }
}

impl<B: Backend> Buffers<B> {
    fn new(
        backend: &B,
        plan: &BatchPlan,
        in_width: usize,
        out_dim: usize,
        epoch_loss_sum: f32,
    ) -> Result<Self> {
        let batch = match plan.full_batch {
            true => None,
            false => Some((
                Tensor::uninit(backend, [plan.batch, in_width])?,
                Tensor::uninit(backend, [plan.batch, out_dim])?,
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
