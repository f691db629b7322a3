//! The one place where a run writes its files (records, tables, plots, pictures).

use anyhow::{Context, Result};
use std::path::Path;

/// Writes `bytes` to `path`, replacing any previous file; a failure names the file.
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<()> {
    std::fs::write(path, bytes).with_context(|| format!("cannot write {}", path.display()))
}

/// Encodes 8-bit pixels (1 channel: gray, 3: RGB) as a PNG in memory and writes it.
pub fn write_png(path: &Path, pixels: &[u8], width: u32, height: u32, channels: u8) -> Result<()> {
    let color = if channels == 1 {
        image::ExtendedColorType::L8
    } else {
        image::ExtendedColorType::Rgb8
    };
    let mut bytes = Vec::new();
    image::ImageEncoder::write_image(
        image::codecs::png::PngEncoder::new(&mut bytes),
        pixels,
        width,
        height,
        color,
    )
    .with_context(|| format!("cannot encode {}", path.display()))?;
    write_file(path, &bytes)
}
