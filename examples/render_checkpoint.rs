//! Redraws an image fitted by `iron-learn image fit` at any size, from its checkpoint, with
//! the library alone: `io::Checkpoint` reads the safetensors file, its metadata gives the
//! network (`architecture`) and the picture (`extra`: width, height, channels and the
//! per-channel `offset` the network was trained without), and the tensors named `model.*`
//! are the network's parameters.
//!
//! Run: `cargo run --release -p examples --example render_checkpoint [CHECKPOINT] [SIZE] [OUT.png]`
//! CHECKPOINT is a `model.safetensors` or its run folder (default: the newest
//! `runs/image-fit-*` folder); SIZE defaults to 256, OUT.png to `render.png`.

use io::Checkpoint;
use io::image::{Picture, coords::coordinate_grid, save_png};
use nn::{Mlp, MlpConfig, NamedArray};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use tensor_core::Tensor;
use tensor_cpu::CpuBackend;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// The newest `runs/image-fit-*` folder (the CLI's default output), if any.
fn newest_run() -> Option<PathBuf> {
    std::fs::read_dir("runs")
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("image-fit-"))
        })
        .max() // the names end with a sortable timestamp
}

/// Reads the checkpoint and renders a `size`-wide picture (height kept in proportion).
fn render(path: &Path, size: usize) -> Result<Picture> {
    let ck = Checkpoint::load(path)?;
    let md = &ck.metadata;
    if md["job"] != "image-fit" {
        return Err(format!(
            "{} was not written by `image fit` (job {})",
            path.display(),
            md["job"]
        )
        .into());
    }
    let config: MlpConfig = serde_json::from_value(md["architecture"].clone())?;
    let cpu = CpuBackend::new();
    let mut model = Mlp::from_config(&cpu, &config, 0)?;
    let state = ck
        .tensors
        .iter()
        .filter_map(|(name, t)| {
            let name = name.strip_prefix("model.")?;
            Some(NamedArray::new(name, t.shape.clone(), t.data.clone()))
        })
        .collect::<std::result::Result<Vec<_>, _>>()?;
    model.import_state(&state)?;

    let extra = &md["extra"];
    let dim = |k: &str| extra[k].as_u64().unwrap_or(1).max(1) as usize;
    let (w0, h0, channels) = (dim("width"), dim("height"), dim("channels"));
    let offset: Vec<f32> = match extra["offset"].as_array() {
        Some(v) => v.iter().map(|o| o.as_f64().unwrap_or(0.0) as f32).collect(),
        None => vec![0.0; channels], // checkpoints from before the offset existed
    };
    let (w, h) = (size, (size * h0 + w0 / 2) / w0);
    // One (x, y) in [-1, 1]^2 per pixel; predict chunks the rows itself.
    let grid = Tensor::from_slice(&cpu, &coordinate_grid(w, h), [w * h, 2])?;
    let mut values = model.predict(&grid)?.to_vec()?;
    for px in values.chunks_exact_mut(channels) {
        px.iter_mut().zip(&offset).for_each(|(v, o)| *v += o);
    }
    Ok(Picture::from_predictions(w, h, channels, &values)?)
}

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let Some(mut path) = args.next().map(PathBuf::from).or_else(newest_run) else {
        eprintln!(
            "no checkpoint given and no runs/image-fit-* folder here; first run e.g.\n  \
             cargo run --release -p iron-learn -- image fit --size 64 --steps 300 --out runs/image-fit-demo\n\
             then pass runs/image-fit-demo (or its model.safetensors)"
        );
        return ExitCode::FAILURE;
    };
    if path.is_dir() {
        path = path.join("model.safetensors");
    }
    let size = args.next().and_then(|s| s.parse().ok()).unwrap_or(256);
    let out = PathBuf::from(args.next().unwrap_or_else(|| "render.png".into()));
    let result = render(&path, size).and_then(|p| {
        save_png(&p, &out)?;
        Ok(p)
    });
    match result {
        Ok(p) => {
            let ink = p.data.iter().filter(|&&v| v < 0.5).count() as f64 / p.data.len() as f64;
            println!(
                "rendered {} at {}x{} to {} ({:.1}% dark values)",
                path.display(),
                p.width,
                p.height,
                out.display(),
                ink * 100.0
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
