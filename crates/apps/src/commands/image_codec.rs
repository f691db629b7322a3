//! `iron-learn image encode` and `image decode`: images to CSV rows and back. The work is
//! the library's ([`jobs::image::encode_pixels`], [`jobs::image::decode_pixels`]); this
//! converts the flags and prints what was written.

use crate::cli::{ImageDecodeArgs, ImageEncodeArgs};
use anyhow::{Result, bail};
use io::image::ColorMode;
use jobs::image::{EncodeOptions, decode_pixels, encode_pixels};

/// Writes an image's pixels as CSV rows.
pub fn encode(args: &ImageEncodeArgs) -> Result<()> {
    let mode = match (args.threshold, args.color) {
        (Some(_), true) => {
            bail!("--threshold makes a black-and-white image; it cannot be combined with --color")
        }
        (Some(t), false) => ColorMode::BlackAndWhite(t),
        (None, _) if args.gray => ColorMode::Grayscale,
        (None, _) => ColorMode::Rgb,
    };
    let options = EncodeOptions {
        image: args.image.clone(),
        output: args.output.clone(),
        mode,
        keep_rgb: args.color,
    };
    let pixels = encode_pixels(&options, &mut train::Lines { every: 0 })?;
    println!(
        "wrote {} row{} ({}x{}, {}) to {}",
        pixels.rows,
        if pixels.rows == 1 { "" } else { "s" },
        pixels.width,
        pixels.height,
        if pixels.channels == 3 {
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
    let (width, height) = decode_pixels(&args.csv, &args.output)?;
    println!(
        "wrote a {width}x{height} image to {}",
        args.output.display()
    );
    Ok(())
}
