//! Fits a photo with the multiresolution hash grid on sampled pixels and writes a render four
//! times larger, drawn in bands straight into the PNG.
//!
//! Run: `cargo run --release -p examples --example fit_photo [PHOTO] [OUT.png] [STEPS]`
//! (defaults: `data/drawing.png`, `fit-4x.png`, the command line's default steps).

use io::image::{ColorMode, ImageFitSettings, fit_picture, load_picture};

fn main() -> Result<(), io::Error> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let photo = args.first().map_or("data/drawing.png", String::as_str);
    let out = args.get(1).map_or("fit-4x.png", String::as_str);
    let picture = load_picture(photo, ColorMode::Rgb)?;
    let mut settings = ImageFitSettings::hash_grid(&picture);
    if let Some(steps) = args.get(2).and_then(|s| s.parse().ok()) {
        settings.steps = steps;
    }
    let cpu = tensor_cpu::CpuBackend::new();
    let model = fit_picture(&cpu, &picture, &settings)?;
    let (w, h) = model.render_png(4 * picture.width.max(picture.height), out)?;
    println!(
        "fitted {photo} in {} steps; wrote {w}x{h} to {out}",
        settings.steps
    );
    Ok(())
}
