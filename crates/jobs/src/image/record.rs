//! What an image fit records: its entries of `config.json` (the picture read and the
//! options) and the job data of its checkpoint (what drawing it again needs).

use super::options::ImageFitOptions;
use super::plan::Plan;
use crate::Result;
use serde::Serialize;
use serde_json::{Map, Value};
use train::record::DataFile;

/// The fit's entries of `config.json`: the image read and the options, for a `w x h`
/// picture of `c` channels (line art or not).
pub fn image_record(
    options: &ImageFitOptions,
    (w, h, c, line_art): (usize, usize, usize, bool),
    plan: &Plan,
) -> Result<Map<String, Value>> {
    let data = ImageData {
        file: options.image.as_deref().map(DataFile::read).transpose()?,
        source: options.image.is_none().then_some("bundled drawing"),
        width: w,
        height: h,
        channels: c,
        line_art,
    };
    let options = RecordedOptions {
        size: options.size,
        arch: plan.arch.name(),
        hidden: plan.hidden.to_string(),
        color: c == 3,
        threshold: options.threshold,
        supersample: options.supersample,
        batch_pixels: plan.batch,
    };
    Ok(train::record::entries(&ImageRecord { data, options })?)
}

/// The entries of an image fit's `config.json`.
#[derive(Serialize)]
struct ImageRecord {
    data: ImageData,
    options: RecordedOptions,
}

/// The picture read: its file (or the bundled drawing's name) and its size.
#[derive(Serialize)]
struct ImageData {
    #[serde(flatten)]
    file: Option<DataFile>,
    #[serde(skip_serializing_if = "Option::is_none")]
    source: Option<&'static str>,
    width: usize,
    height: usize,
    channels: usize,
    line_art: bool,
}

/// An image fit's options as recorded.
#[derive(Serialize)]
struct RecordedOptions {
    size: Option<u32>,
    arch: &'static str,
    hidden: String,
    color: bool,
    threshold: Option<f32>,
    supersample: u32,
    batch_pixels: usize,
}

/// The checkpoint's job data of an image fit: its size, what the network learns without
/// (`offset`), its supersampling and where the picture came from.
#[derive(Serialize)]
pub struct ImageExtra<'a> {
    /// Width of the training picture.
    pub width: usize,
    /// Height of the training picture.
    pub height: usize,
    /// Channels.
    pub channels: usize,
    /// The black-and-white threshold, where one was asked.
    pub threshold: Option<f32>,
    /// The per-channel value the network learns without.
    pub offset: &'a [f32],
    /// Samples per pixel side (area supervision).
    pub supersample: usize,
    /// The image file, or `bundled drawing`.
    pub source: &'a str,
}

impl ImageExtra<'_> {
    /// As the checkpoint stores it.
    pub fn to_value(&self) -> Value {
        // Numbers and text only: cannot fail.
        serde_json::to_value(self).unwrap_or_default()
    }

    /// What the model predicts ([`image_info`]).
    pub fn info(&self) -> io::ModelInfo {
        image_info((self.width, self.height), self.offset)
    }
}

/// What an image model of a `width x height` picture predicts: its channels (`r, g, b` or
/// `value`), with the per-channel `offset` it learned without added back.
pub fn image_info((width, height): (usize, usize), offset: &[f32]) -> io::ModelInfo {
    let channels: &[&str] = if offset.len() == 3 {
        &["r", "g", "b"]
    } else {
        &["value"]
    };
    io::ModelInfo::image(width, height, channels).with_targets(io::Standardizer {
        mean: offset.to_vec(),
        std: vec![1.0; offset.len()],
    })
}
