//! Renders the project's default drawing and saves it as a PNG.
//!
//! ```text
//! cargo run -p iron-learn-io --release --example render_drawing [-- SIZE [PATH]]
//! ```
//!
//! Defaults: 512 pixels a side, written to `data/drawing.png` (relative to the current folder).

use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let size = match args.next().map(|s| s.parse::<usize>()) {
        None => 512,
        Some(Ok(n)) => n,
        Some(Err(_)) => {
            eprintln!("error: SIZE must be a whole number of pixels");
            return ExitCode::FAILURE;
        }
    };
    let path = args
        .next()
        .unwrap_or_else(|| "data/drawing.png".to_string());
    let result = io::default_drawing().render(size).and_then(|picture| {
        io::image::save_png(&picture, &path)?;
        Ok(picture)
    });
    match result {
        Ok(picture) => {
            println!(
                "wrote {path}: {size}x{size}, {:.2}% ink",
                100.0 * picture.ink_fraction()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
