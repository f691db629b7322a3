//! Neural networks for Iron Learn: layers, activations, coordinate encodings, losses,
//! optimizers, learning-rate schedules and a trainer, generic over the
//! [`Backend`] (CPU or GPU).
//!
//! - [`Layer`]: forward (keeping what backward needs in reused buffers), backward (input
//!   gradient returned, parameter gradients overwritten — or accumulated when asked),
//!   parameters visited by stable name (`layers.0.weight`). [`Linear`] fuses its
//!   activation; [`ActivationLayer`], [`Scale`] (a learned factor per input, which moves
//!   with its own learning rate and no weight decay: [`Tuning`]), [`Sequential`] and the
//!   [`Encoding`]s complete the set.
//! - [`Model`]: the extension point for architectures. A model is a [`Layer`] with a stable
//!   name ([`Model::KIND`]), a serialisable configuration it can be rebuilt from, host-side
//!   state for checkpoints, chunked prediction and the Adam settings it trains best with;
//!   the [`Trainer`], the optimizers, checkpoints and model files work with any model, so a
//!   new architecture needs no change to them (see the trait's example).
//! - [`Mlp`]: the everyday model, built with [`Mlp::builder`] or rebuilt from an
//!   [`MlpConfig`] (serialisable), with host-side [`Mlp::export_state`] /
//!   [`Mlp::import_state`] for checkpoints and chunked [`Mlp::predict`]; learned input
//!   factors ([`MlpConfig::input_scale`]) fold into the weights that read the inputs
//!   ([`Mlp::fold_input_scale`]); a positional encoding's frequencies can be trained too
//!   ([`MlpConfig::learned_frequencies`]).
//! - [`MlpEnsemble`]: trained [`Mlp`]s on the same inputs, predicting the weighted sum of
//!   their outputs (a bagged model); saved and loaded like any model, not trained as one.
//! - [`Loss`], optimizers ([`Sgd`], [`Adam`], AdamW) behind the [`Optimizer`] trait,
//!   [`GradClipper`], [`LrSchedule`].
//! - [`Trainer`]: trains any [`Model`] on full batches or shuffled mini-batches, with
//!   validation, early stopping, a NaN guard, callbacks (which report progress), exact resume through
//!   [`TrainerState`].
//!
//! `nn` reaches the backend only through [`Tensor`]'s checked methods, so every shape is
//! verified before a buffer reaches a device.
//!
//! Learning XOR:
//!
//! ```
//! use nn::prelude::*;
//! use tensor_cpu::CpuBackend;
//!
//! let cpu = CpuBackend::new();
//! let x = Tensor::from_slice(&cpu, &[0., 0., 0., 1., 1., 0., 1., 1.], [4, 2])?;
//! let y = Tensor::from_slice(&cpu, &[0., 1., 1., 0.], [4, 1])?;
//! let mut model = Mlp::builder()
//!     .input(2)
//!     .hidden(&[8], Activation::Tanh)
//!     .output(1, Activation::Identity) // logits: the loss applies the sigmoid
//!     .build(&cpu, 42)?;
//! let mut adam = Adam::new(AdamConfig::new(0.05))?;
//! let mut trainer = Trainer::new(TrainerConfig {
//!     loss: Loss::BceWithLogits,
//!     length: TrainLength::Steps(500),
//!     ..TrainerConfig::default()
//! })?;
//! let report = trainer.fit(&mut model, &mut adam, Data::new(&x, &y), None)?;
//! assert_eq!(report.steps, 500);
//! let p = model.predict(&x)?.sigmoid()?.to_vec()?;
//! for (p, t) in p.iter().zip([0., 1., 1., 0.]) {
//!     assert!((p - t).abs() < 0.1, "{p} vs {t}");
//! }
//! # Ok::<(), nn::Error>(())
//! ```

#![warn(missing_docs)]

pub mod encoding;
mod error;
pub mod init;
pub mod layer;
pub mod loss;
pub mod model;
pub mod optim;
pub mod schedule;
pub mod train;

pub use encoding::Encoding;
pub(crate) use error::config_err;
pub use error::{Error, Result};
pub use init::Init;
pub use layer::{
    ActivationLayer, DenseParts, Layer, Linear, ParamMut, ParamRef, SCALE_LR_FACTOR, Scale,
    Sequential, Tuning,
};
pub use loss::{Loss, LossOutput};
pub use model::builder::{MlpBuilder, SIREN_W0};
pub use model::config::{EncodingConfig, MlpConfig};
pub use model::dense::DenseLayer;
pub use model::ensemble::{MlpEnsemble, MlpEnsembleConfig};
pub use model::hashgrid::HashGridMlp;
pub use model::hashgrid_config::{GridScale, HashGridMlpConfig};
pub use model::hidden::HiddenLayers;
pub use model::mlp::Mlp;
pub use model::state::NamedArray;
pub use model::{InputSplit, Model};
pub use optim::{
    Adam, AdamConfig, GradClipper, Optimizer, OptimizerConfig, OptimizerState, Sgd, SgdConfig,
};
pub use schedule::LrSchedule;
pub use tensor_core::{Activation, Backend, Tensor};
pub use train::{
    BatchSource, Control, Data, EVAL_ROWS, EarlyStopping, EpochMetrics, Holding, PixelSampler,
    PixelValues, Replicas, StopReason, TrainData, TrainEvent, TrainLength, TrainReport, Trainer,
    TrainerConfig, TrainerState, share,
};

/// The names most programs need, traits included (`use nn::prelude::*`).
pub mod prelude {
    pub use crate::{
        Activation, Adam, AdamConfig, Backend, Control, Data, EarlyStopping, EncodingConfig,
        GridScale, HashGridMlp, HashGridMlpConfig, Init, Layer, Loss, LrSchedule, Mlp, MlpConfig,
        Model, NamedArray, Optimizer, PixelSampler, PixelValues, Sgd, SgdConfig, StopReason,
        Tensor, TrainEvent, TrainLength, Trainer, TrainerConfig, TrainerState,
    };
    /// The parts of [`Backend`], whose methods a concrete backend's callers need in scope
    /// (`cpu.counters()`, `cpu.synchronize()`, `cpu.adam_step(..)`).
    pub use tensor_core::fused::traits::*;
    /// The parts of [`Backend`]: the primitives and every fused operation together.
    pub use tensor_core::{FusedOps, Primitives};
}
