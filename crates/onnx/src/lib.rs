//! ONNX export of fitted Iron Learn models.
//!
//! [`export`] turns an [`io::FittedModel`] into an ONNX graph (operator set 13) that takes raw
//! inputs and gives answers in user units. A model of rows (regression or classifier) takes
//! one input `[N, 1]` per raw column, named as the column; an image model takes the pixel
//! coordinates, `coordinates` `[N, 2]`. The input standardisation is inside the graph, and
//! the outputs are `prediction` (de-standardised values), `label` (the class as `predict`
//! writes it) with `probabilities` (one column per class), or `pixels` (clamped to
//! `[0, 1]`). The feature names, class labels and the coordinate convention are in the
//! file's metadata (`metadata_props`).
//!
//! Every model type exports: MLPs with any activation, SIREN (sine) networks, Gaussian
//! Fourier-feature and positional encodings (operator set 13), and hash-grid networks, whose
//! table lookups become `Gather`s and whose spatial hash is computed in `int64` with
//! `BitwiseXor` and `BitwiseAnd` (operator set 18, see [`hashgrid`]). [`export_with`] can
//! store the weights and tables as `float16` ([`Precision`]), halving the file.
//!
//! A model trained on a table with text, yes/no, date or missing cells exports its whole
//! preprocessing too: one input per raw column, named as the column (numbers as `float32`,
//! yes/no and categories as `string`, dates as `float64` seconds; see [`table`]), the
//! median fill, indicators, standardisation and one-hot encoding inside the graph
//! (`CategoryMapper` of `ai.onnx.ml` for the text); a table of numbers without gaps is read
//! as one `float32` input per column.
//!
//! A model type of its own exports too once it implements [`OnnxModel`] (its network as
//! nodes of a [`Graph`]) and is registered with [`register`] (see [`model`]); a network of
//! a kind with no ONNX form is refused, naming its kind.
//!
//! The protobuf messages are declared with `prost`'s derive ([`proto`]), so exporting needs
//! neither `protoc` nor an inference runtime; the tests run every exported graph in `tract`.
//!
//! ```
//! use io::fitted::{FittedModel, ModelInfo};
//! use nn::{Activation, Mlp};
//! use tensor_cpu::CpuBackend;
//!
//! let cpu = CpuBackend::new();
//! let net = Mlp::builder().input(3).hidden(&[8], Activation::Relu)
//!     .output(1, Activation::Identity).build(&cpu, 0)?;
//! let model = FittedModel::new(net, ModelInfo::regression(&["a", "b", "c"], &["y"]))?;
//! let bytes = onnx::export(&model)?;
//! assert!(bytes.len() > 4 * (3 * 8 + 8 + 8 + 1));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![warn(missing_docs)]

mod ensemble;
mod export;
pub mod graph;
pub mod hashgrid;
pub mod model;
pub mod precision;
pub mod proto;
pub mod table;

pub use export::{COORDINATES, IR_VERSION, ML_OPSET, OPSET, export, save, to_model_proto};
pub use graph::{Attr, Graph};
pub use model::{OnnxModel, exported_kinds, register};
pub use precision::{Precision, export_with, save_with};

/// What can go wrong while exporting.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The model uses something ONNX operators cannot express here.
    #[error("cannot export to ONNX: {0}")]
    Unsupported(String),
    /// Reading the network's parameters failed.
    #[error(transparent)]
    Network(#[from] nn::Error),
    /// Writing the file failed.
    #[error(transparent)]
    File(#[from] io::Error),
}

/// Result type of this crate.
pub type Result<T> = std::result::Result<T, Error>;
