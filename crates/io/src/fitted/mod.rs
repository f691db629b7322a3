//! [`FittedModel`]: a trained network with everything needed to use it on raw data — the
//! configuration, the input and output standardisation, the class labels and the feature
//! names — saved to and loaded from one safetensors file.
//!
//! The file layout (tensor names, shapes, metadata keys and the forward formula of every
//! architecture) is described in `docs/FORMAT.md`. A run checkpoint written by the
//! `iron-learn` training jobs is a model file with optimizer and trainer state added, so
//! [`FittedModel::load`] reads both; [`FittedModel::save`] leaves that state out.
//!
//! ```
//! use io::fitted::{FittedModel, ModelInfo};
//! use io::Standardizer;
//! use nn::{Activation, Mlp};
//! use tensor_cpu::CpuBackend;
//!
//! let cpu = CpuBackend::new();
//! let network = Mlp::builder()
//!     .input(2)
//!     .hidden(&[8], Activation::Tanh)
//!     .output(1, Activation::Identity)
//!     .build(&cpu, 1)?;
//! let scaler = Standardizer { mean: vec![10.0, 0.0], std: vec![2.0, 1.0] };
//! let info = ModelInfo::regression(&["size", "age"], &["price"]).with_features(scaler);
//! let model = FittedModel::new(network, info)?;
//!
//! let dir = tempfile::tempdir().unwrap();
//! let path = dir.path().join("model.safetensors");
//! model.save(&path)?;
//! let back = FittedModel::load(&path, &cpu)?;
//! let rows = [12.0, 3.0, 8.0, 1.0]; // two rows of (size, age), in user units
//! assert_eq!(back.predict(&rows)?.values, model.predict(&rows)?.values);
//! # Ok::<(), io::Error>(())
//! ```

mod file;
mod image;
mod info;
mod inputs;
mod network;
mod predictions;

pub use file::{FORMAT, INFO_KEY, TENSOR_PREFIX, model_file};
pub use info::{ModelInfo, Task, label_text};
pub use inputs::{InputRows, load_inputs, read_csv_inputs};
pub use network::{MODEL_KIND_KEY, Network};
pub use predictions::Predictions;

use tensor_core::{Backend, Tensor};

use crate::error::{Error, Result};

/// A trained network and its [`ModelInfo`]: predicts answers in user units from raw rows.
pub struct FittedModel<B: Backend> {
    network: Network<B>,
    info: ModelInfo,
}

impl<B: Backend> FittedModel<B> {
    /// Pairs a network with its description, checking that they agree (input and output
    /// widths, standardisation sizes, class count).
    /// `network` is an [`Mlp`](nn::Mlp), a [`HashGridMlp`](nn::HashGridMlp) or a
    /// [`Network`].
    pub fn new(network: impl Into<Network<B>>, info: ModelInfo) -> Result<Self> {
        let network = network.into();
        info.check(network.input_dim(), network.output_dim())?;
        Ok(FittedModel { network, info })
    }

    /// The network.
    pub fn network(&self) -> &Network<B> {
        &self.network
    }

    /// The network, giving up the description.
    pub fn into_network(self) -> Network<B> {
        self.network
    }

    /// The description: task, names, standardisation, classes.
    pub fn info(&self) -> &ModelInfo {
        &self.info
    }

    /// The input columns, in the order [`predict`](Self::predict) expects them.
    pub fn feature_names(&self) -> &[String] {
        &self.info.feature_names
    }

    /// The raw network outputs for `rows` (row-major, one value per feature, user units):
    /// standardised targets for regression, logits for classification.
    pub fn raw_outputs(&self, rows: &[f32]) -> Result<Vec<f32>> {
        let n = self.info.feature_names.len();
        if !rows.len().is_multiple_of(n) {
            return Err(Error::invalid(format!(
                "{} input values are not a whole number of rows of {n} features ({})",
                rows.len(),
                self.info.feature_names.join(", ")
            )));
        }
        let count = rows.len() / n;
        if count == 0 {
            return Ok(Vec::new());
        }
        let x = match &self.info.features {
            Some(s) => s.transform(rows)?,
            None => rows.to_vec(),
        };
        let backend = self.network.backend();
        let x = Tensor::from_slice(backend, &x, [count, n]).map_err(nn::Error::from)?;
        let out = self.network.predict(&x)?;
        Ok(out.to_vec().map_err(nn::Error::from)?)
    }

    /// Predictions for `rows` (row-major, the features in [`feature_names`]
    /// order, in user units): values for regression, probabilities and labels for
    /// classification, pixel values in `[0, 1]` for images.
    ///
    /// [`feature_names`]: Self::feature_names
    pub fn predict(&self, rows: &[f32]) -> Result<Predictions> {
        let raw = self.raw_outputs(rows)?;
        Predictions::from_raw(&self.info, raw)
    }
}

impl<B: Backend> std::fmt::Debug for FittedModel<B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FittedModel")
            .field("network", &self.network)
            .field("info", &self.info)
            .finish()
    }
}
