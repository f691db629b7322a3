//! `iron-learn image encode` and `image decode`: images to CSV rows and back.

use crate::cli::{ImageDecodeArgs, ImageEncodeArgs};
use crate::memory_budget::bytes;
use crate::report::output::write_picture;
use anyhow::{Result, bail};
use io::image::{
    ColorMode, PixelValues, load_compact_within, read_pixel_csv, write_compact_pixel_csv,
};
use train::image::DrawProgress;

/// Writes an image's pixels as CSV rows.
pub fn encode(args: &ImageEncodeArgs) -> Result<()> {
    let mode = match (args.threshold, args.color) {
        (Some(_), true) => {
            bail!("--threshold makes a black-and-white image; it cannot be combined with --color")
        }
        (Some(t), false) if !(0.0..=1.0).contains(&t) => {
            bail!("--threshold must be between 0 and 1, got {t}")
        }
        (Some(t), false) => ColorMode::BlackAndWhite(t),
        (None, _) if args.gray => ColorMode::Grayscale,
        (None, _) => ColorMode::Rgb,
    };
    io::output::refuse_own_input(&args.output, &[&args.image])?;
    // The compact copy (a byte a value for 8-bit images, PNGs decoded row by row): the rows
    // are written as they are made, so the memory is that of the compact picture.
    let budget = crate::memory_budget::budget()?;
    let mut picture = load_compact_within(&args.image, mode, budget.as_ref())?;
    // The image's own channels: gray images (even stored as RGB) stay gray, unless --color.
    if mode == ColorMode::Rgb && !args.color && !picture.has_color() {
        picture = picture.to_grayscale()?;
    }
    let (w, h) = (picture.width(), picture.height());
    let mut progress = DrawProgress::new("encoding", w, h, picture.channels());
    let mut done = 0;
    let mut on_rows = |rows: usize| {
        if let Some(line) = progress.rows_done(rows - done) {
            eprintln!("{line}");
        }
        done = rows;
    };
    write_compact_pixel_csv(&picture, &args.output, PixelValues::Bytes, &mut on_rows)?;
    println!(
        "wrote {} rows ({}x{}, {}) to {}",
        picture.pixels(),
        picture.width(),
        picture.height(),
        if picture.channels() == 3 {
            "x,y,r,g,b"
        } else {
            "x,y,value"
        },
        args.output.display()
    );
    Ok(())
}

/// Turns CSV rows back into an image.
pub fn decode(args: &ImageDecodeArgs) -> Result<()> {
    // Refuse an extension that names no format before reading a large CSV.
    io::output::refuse_own_input(&args.output, &[&args.csv])?;
    io::image::ImageFileFormat::from_path(&args.output)?;
    check_decode_budget(&args.csv)?;
    let picture = read_pixel_csv(&args.csv, PixelValues::Bytes)?;
    write_picture(&args.output, &picture)?;
    println!(
        "wrote a {}x{} image to {}",
        picture.width,
        picture.height,
        args.output.display()
    );
    Ok(())
}

/// Refuses, before anything is allocated, a pixel CSV whose decoding cannot fit in the memory
/// budget (one pass over its coordinates tells its size).
fn check_decode_budget(csv: &std::path::Path) -> Result<()> {
    let Some(io::image::MemoryBudget {
        bytes: budget,
        source,
    }) = crate::memory_budget::budget()?
    else {
        return Ok(());
    };
    let budget = budget as f64;
    let Some(extent) = io::image::pixel_csv_extent(csv)? else {
        return Ok(());
    };
    let need = extent.decode_bytes() as f64;
    if need > budget {
        let (w, h) = (extent.width, extent.height);
        let per_pixel = need / (w as f64 * h as f64).max(1.0);
        bail!(
            "image decode would need about {} of memory for the {w}x{h} picture of {} rows in {} but {} is available ({source}); a CSV of up to about {:.2} megapixels fits",
            bytes(need),
            extent.rows,
            csv.display(),
            bytes(budget),
            budget / per_pixel / 1e6
        );
    }
    Ok(())
}
