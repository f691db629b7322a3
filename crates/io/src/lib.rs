//! Input and output for Iron Learn: datasets, pictures and checkpoints, all on the host.
//!
//! - [`dataset`]: CSV (header, target columns by name) and the seed system's JSON format into a
//!   row-major [`Dataset`]; seeded train/test split; a [`Standardizer`] fitted on the training
//!   part and saved with the model.
//! - [`image`]: [`Picture`]s from PNG/JPEG/WebP/BMP files, to and from `x,y,value` (or
//!   `x,y,r,g,b`) CSV, PNG output, PSNR / pixel accuracy / ink IoU, bicubic resizing, and the one
//!   coordinate convention ([`image::coords`]): pixel `i` of `n` sits at `-1 + 2 i / (n - 1)`.
//! - [`drawing`]: the project's own default line drawing, defined by vector strokes and rendered
//!   at any size (the ground truth for super-resolution).
//! - [`output`]: [`write_file`], the one way output files are written (atomically, every
//!   failure an error), and the clean-up of temporaries that killed writers leave behind.
//! - [`checkpoint`]: named f32 tensors and JSON metadata in one `safetensors` file, written
//!   atomically, with clear errors when loading a bad or mismatched file.
//! - [`expr`]: functions of `x` as a person types them (`sin(5*x)*exp(-x^2)`), parsed once
//!   and evaluated without recursion, and `A:B` ranges.
//! - [`fitted`]: a [`FittedModel`] — network, configuration, standardisation, class labels
//!   and feature names — with `save`, `load` and `predict` on raw rows.
//!
//! This crate depends on `tensor-core` and `nn` (for the fitted model's network) and never
//! on a concrete backend.
//!
//! ```
//! use io::dataset::{read_csv, CsvOptions, train_test_split, Standardizer};
//! use io::image::{encode_pixel_csv, decode_pixel_csv, Picture, PixelValues};
//!
//! // A CSV dataset with the target chosen by name.
//! let text = "size,rooms,price\n50,2,100\n80,3,160\n120,4,250\n65,2,130\n";
//! let data = read_csv(text.as_bytes(), "houses.csv", &CsvOptions::new().target("price"))?;
//! assert_eq!((data.rows, data.n_features, data.n_targets), (4, 2, 1));
//! assert_eq!(data.row_x(1), &[80.0, 3.0]);
//!
//! // Seeded split, statistics from the training part only.
//! let split = train_test_split(&data, 0.25, 7)?;
//! let scaler = Standardizer::fit(&split.train.x, split.train.n_features)?;
//! let scaled = scaler.transform(&split.train.x)?;
//! assert_eq!(scaler.inverse_transform(&scaled)?.len(), split.train.x.len());
//!
//! // A 3x2 gray picture to pixel CSV and back, exactly.
//! let picture = Picture::from_bytes(3, 2, 1, &[0, 64, 128, 192, 255, 7])?;
//! let mut csv = Vec::new();
//! encode_pixel_csv(&picture, &mut csv, PixelValues::Bytes)?;
//! assert!(csv.starts_with(b"x,y,value\n0,0,0\n1,0,64\n"));
//! let back = decode_pixel_csv(csv.as_slice(), "picture.csv", PixelValues::Bytes)?;
//! assert_eq!(back, picture);
//! # Ok::<(), io::Error>(())
//! ```

#![warn(missing_docs)]

pub mod checkpoint;
pub mod dataset;
pub mod drawing;
mod error;
pub mod expr;
pub mod fitted;
pub mod image;
pub mod output;
pub mod table;

pub use checkpoint::{Checkpoint, NamedTensor};
pub use dataset::{DataSplit, Dataset, Standardization, Standardizer};
pub use drawing::{Drawing, default_drawing};
pub use error::{Error, Result};
pub use fitted::{FittedModel, ModelInfo, Predictions, Task};
pub use image::{ColorMode, Picture};
pub use output::{write_atomic, write_file};
