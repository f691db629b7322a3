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
mod registry;

pub use file::{FORMAT, INFO_KEY, TENSOR_PREFIX, kind_of, load_network, model_file};
pub use info::{ModelInfo, TargetRange, Task, label_number, label_text};
pub use inputs::{InputRows, load_inputs, read_csv_inputs};
pub use network::{DEFAULT_KIND, MODEL_KIND_KEY, Network, boxed};
pub use predictions::Predictions;
pub use registry::{extension, known_kinds, register, register_with};

use tensor_core::{Backend, Tensor};

use crate::error::{Error, Result};

/// Rows predicted at a time: the standardised copy of the features, the encoded rows of a raw
/// table and the layer activations are held for this many rows at most (a few MB for the
/// usual widths).
pub const PREDICT_ROWS: usize = 4096;

/// A trained network and its [`ModelInfo`]: predicts answers in user units from raw rows.
pub struct FittedModel<B: Backend> {
    network: Box<dyn Network<B>>,
    info: ModelInfo,
    inputs: Vec<String>,
}

impl<B: Backend> FittedModel<B> {
    /// Pairs a network of any [`nn::Model`] ([`Mlp`](nn::Mlp),
    /// [`HashGridMlp`](nn::HashGridMlp), ...) with its description, checking that they agree
    /// (input and output widths, standardisation sizes, class count).
    pub fn new<M: nn::Model<B>>(network: M, info: ModelInfo) -> Result<Self> {
        Self::from_network(network::boxed(network), info)
    }

    /// [`new`](Self::new) for a network already behind a [`Network`] object.
    pub fn from_network(network: Box<dyn Network<B>>, info: ModelInfo) -> Result<Self> {
        info.check(network.input_dim(), network.output_dim())?;
        let inputs = info.input_columns();
        Ok(FittedModel {
            network,
            info,
            inputs,
        })
    }

    /// The network.
    pub fn network(&self) -> &dyn Network<B> {
        self.network.as_ref()
    }

    /// The network, giving up the description.
    pub fn into_network(self) -> Box<dyn Network<B>> {
        self.network
    }

    /// The description: task, names, standardisation, classes.
    pub fn info(&self) -> &ModelInfo {
        &self.info
    }

    /// The input columns, in the order [`predict`](Self::predict) expects them: the raw
    /// table columns for a model with preprocessing, else the network's features.
    pub fn feature_names(&self) -> &[String] {
        &self.inputs
    }

    /// The raw network outputs for `rows` (row-major, one value per feature, user units):
    /// standardised targets for regression, logits for classification.
    pub fn raw_outputs(&self, rows: &[f32]) -> Result<Vec<f32>> {
        if let Some(p) = &self.info.preprocessing {
            let encoded = p.transform_values(rows)?;
            return self.network_outputs(&encoded);
        }
        self.network_outputs(rows)
    }

    /// The network's outputs for rows of its own features (after any preprocessing, before
    /// the standardisation of [`ModelInfo::features`]), computed [`PREDICT_ROWS`] rows at a
    /// time so that the standardised copy and the layer activations stay bounded whatever
    /// the number of rows.
    fn network_outputs(&self, rows: &[f32]) -> Result<Vec<f32>> {
        let n = self.info.feature_names.len();
        if !rows.len().is_multiple_of(n) {
            return Err(Error::invalid(format!(
                "{} input values are not a whole number of rows of {n} features ({})",
                rows.len(),
                self.info.feature_names.join(", ")
            )));
        }
        let mut out = Vec::with_capacity(rows.len() / n * self.network.output_dim());
        for chunk in rows.chunks(PREDICT_ROWS * n.max(1)) {
            out.extend(self.network_chunk(chunk, n)?);
        }
        Ok(out)
    }

    /// [`network_outputs`](Self::network_outputs) for one chunk of whole rows.
    fn network_chunk(&self, rows: &[f32], n: usize) -> Result<Vec<f32>> {
        let x = match &self.info.features {
            Some(s) => s.transform(rows)?,
            None => rows.to_vec(),
        };
        let backend = self.network.backend();
        let x = Tensor::from_slice(backend, &x, [rows.len() / n, n]).map_err(nn::Error::from)?;
        let out = self.network.predict(&x)?;
        Ok(out.to_vec().map_err(nn::Error::from)?)
    }

    /// Predictions for the rows of a raw table (columns matched by name, in any order;
    /// other columns, the ones ignored in training included, need not be there): the stored
    /// preprocessing encodes them first, reading each column as in training (its number
    /// format included). Cells that cannot be read as their column's type are read as
    /// missing and counted in [`Predictions::notes`]. A model without preprocessing reads its
    /// feature columns as numbers, a missing or unreadable cell as its column's training
    /// mean where the model stores the features' standardisation. Errors naming a missing
    /// column, a column none of whose cells can be read ([`Error::UnreadableColumn`]), or
    /// (without preprocessing nor standardisation) a cell that is not a number.
    pub fn predict_table(&self, table: &crate::table::Table) -> Result<Predictions> {
        let notes = self.table_notes(table)?;
        let mut predictions = Predictions::from_raw(&self.info, self.table_outputs(table)?)?;
        predictions.notes = notes;
        Ok(predictions)
    }

    /// [`predict_table`](Self::predict_table) from the model's raw outputs on the rows of
    /// `table` (`outputs`, as [`table_outputs`](Self::table_outputs) gives them, computed
    /// elsewhere: shared between processes, for instance). Refused where `outputs` are not
    /// one row of outputs for each of the table's rows.
    pub fn table_predictions(
        &self,
        table: &crate::table::Table,
        outputs: Vec<f32>,
    ) -> Result<Predictions> {
        if outputs.len() != table.rows() * self.info.output_width() {
            return Err(Error::invalid(format!(
                "{} network outputs for {} rows of {} outputs",
                outputs.len(),
                table.rows(),
                self.info.output_width()
            )));
        }
        let notes = self.table_notes(table)?;
        let mut predictions = Predictions::from_raw(&self.info, outputs)?;
        predictions.notes = notes;
        Ok(predictions)
    }

    /// The cells of `table` that its columns' types could not read, counted per column.
    fn table_notes(&self, table: &crate::table::Table) -> Result<Vec<crate::table::ReadNote>> {
        Ok(match (&self.info.preprocessing, &self.info.features) {
            (Some(p), _) => p.read_notes(table)?,
            (None, Some(_)) => crate::table::number_notes(table, &self.info.feature_names)?,
            (None, None) => Vec::new(),
        })
    }

    /// The raw network outputs for the rows of a raw table (see
    /// [`predict_table`](Self::predict_table) and [`raw_outputs`](Self::raw_outputs)).
    /// The rows are encoded and predicted [`PREDICT_ROWS`] at a time: the encoded features of
    /// the whole table are never held at once.
    pub fn table_outputs(&self, table: &crate::table::Table) -> Result<Vec<f32>> {
        let rows = table.rows();
        if rows <= PREDICT_ROWS {
            return self.network_outputs(&self.encode_table(table)?);
        }
        let mut out = Vec::with_capacity(rows * self.network.output_dim());
        let mut indices = Vec::with_capacity(PREDICT_ROWS);
        for start in (0..rows).step_by(PREDICT_ROWS) {
            indices.clear();
            indices.extend(start..(start + PREDICT_ROWS).min(rows));
            let part = table.select_rows(&indices)?;
            out.extend(self.network_outputs(&self.encode_table(&part)?)?);
        }
        Ok(out)
    }

    /// The rows of a raw table as the network's features (before the standardisation of
    /// [`ModelInfo::features`]): the stored preprocessing's output, or the feature columns
    /// read as numbers (a missing or unreadable cell as its column's training mean, where
    /// the standardisation is stored).
    pub fn encode_table(&self, table: &crate::table::Table) -> Result<Vec<f32>> {
        if let Some(p) = &self.info.preprocessing {
            for encoder in &p.columns {
                if let crate::table::ColumnEncoder::Number { column, .. } = encoder {
                    table.refuse_too_large(column)?;
                }
            }
            return p.transform(table);
        }
        let names = &self.info.feature_names;
        let columns: Vec<usize> = names
            .iter()
            .map(|n| table.require(n))
            .collect::<Result<_>>()?;
        let means = self.info.features.as_ref().map(|s| &s.mean);
        let mut x = Vec::with_capacity(table.rows() * names.len());
        let mut buf = String::new();
        for r in 0..table.rows() {
            for (k, &c) in columns.iter().enumerate() {
                let cell = table.column(c).cell(r);
                let v = match (cell.number_f32(), means) {
                    (Some(v), _) => v,
                    // Missing, or not a number: the training mean (0 once standardised).
                    (None, Some(m)) if !crate::table::too_large_for_f32(cell.text(&mut buf)) => {
                        m[k]
                    }
                    _ => return Err(table.not_a_number(r, c)),
                };
                x.push(v);
            }
        }
        Ok(x)
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
