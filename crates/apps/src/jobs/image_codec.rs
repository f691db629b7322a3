//! `iron-learn image encode` and `image decode`: images to CSV rows and back.

use crate::cli::{ImageDecodeArgs, ImageEncodeArgs};
use crate::report::output::write_picture;
use anyhow::{Result, bail};
use io::image::{ColorMode, PixelValues, read_pixel_csv, write_pixel_csv};

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
    let mut picture = super::image_render::load_within_budget(&args.image, mode)?;
    // The image's own channels: gray images (even stored as RGB) stay gray, unless --color.
    if mode == ColorMode::Rgb && !args.color && !picture.has_color() {
        picture = picture.to_grayscale();
    }
    write_pixel_csv(&picture, &args.output, PixelValues::Bytes)?;
    println!(
        "wrote {} rows ({}x{}, {}) to {}",
        picture.pixels(),
        picture.width,
        picture.height,
        if picture.channels == 3 {
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
