//! Fits a photo with the multiresolution hash grid on sampled pixels, through the library's
//! image fit (what `iron-learn image fit PHOTO --arch hashgrid` runs, with the same defaults
//! and seed, so both reach the same PSNR), and writes a render four times larger, drawn in
//! bands straight into the PNG.
//!
//! Run: `cargo run --release -p examples --example fit_photo [PHOTO] [OUT.png] [STEPS]`
//! (defaults: `data/drawing.png`, `fit-4x.png`, the command line's default steps); the run
//! folder (checkpoint, reconstruction, comparison, metrics) is `runs/fit_photo`.

use jobs::image::{ImageArch, ImageFitOptions, fit_image};
use nn::TrainLength;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let photo = args.first().map_or("data/drawing.png", String::as_str);
    let out = args.get(1).map_or("fit-4x.png", String::as_str);
    let mut options = ImageFitOptions::new(Some(photo.into()), "runs/fit_photo");
    options.arch = Some(ImageArch::HashGrid);
    if let Some(steps) = args.get(2).and_then(|s| s.parse().ok()) {
        options.training.length = Some(TrainLength::Steps(steps));
    }
    let cpu = tensor_cpu::CpuBackend::new();
    let fit = fit_image(&cpu, &options, &mut train::Silent)?;
    let (width, height) = fit.model.image_size()?;
    let (w, h) = fit.model.render_png(4 * width.max(height), out)?;
    println!("fitted {photo}: {}", fit.line());
    println!("wrote {w}x{h} to {out}");
    Ok(())
}
