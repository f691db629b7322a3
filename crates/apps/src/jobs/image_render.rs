//! `iron-learn image render`: redraw a fitted image at any size.

use super::image_fit::predict_picture;
use crate::cli::ImageRenderArgs;
use crate::device::Job;
use crate::report::output::write_picture;
use anyhow::{Result, bail};
use io::Picture;
use io::image::{ColorMode, fit_longest_side, ink_iou, load_picture, pixel_accuracy, psnr, ssim};
use nn::{HashGridMlp, Mlp};
use std::path::Path;
use std::time::Instant;
use tensor_core::Backend;
use train::checkpoint::{self, RunModel};

/// Renders a fitted image.
pub struct ImageRender(pub ImageRenderArgs);

impl Job for ImageRender {
    type Output = ();

    fn run<B: Backend>(self, backend: &B) -> Result<()> {
        let args = &self.0;
        if args.size < 1 || args.size > 16_384 {
            bail!("--size must be between 1 and 16384, got {}", args.size);
        }
        if let Some(t) = args.threshold
            && !(0.0..=1.0).contains(&t)
        {
            bail!("--threshold must be between 0 and 1, got {t}");
        }
        io::image::ImageFileFormat::from_path(&args.output)?;
        let started = Instant::now();
        let (path, ck) = checkpoint::read(&args.model)?;
        let mut picture = match checkpoint::kind(&ck) {
            k if k == <HashGridMlp<B> as RunModel<B>>::KIND => {
                draw::<B, HashGridMlp<B>>(backend, args, &path, ck)?
            }
            _ => draw::<B, Mlp<B>>(backend, args, &path, ck)?,
        };
        let (w, h) = (picture.width, picture.height);
        if let Some(t) = args.threshold {
            picture = picture.threshold(t);
        }
        write_picture(&args.output, &picture)?;
        println!(
            "rendered {w}x{h} in {:.2} s to {}",
            started.elapsed().as_secs_f64(),
            args.output.display()
        );
        if let Some(reference) = &args.reference {
            score_against(args, reference, &picture)?;
        }
        Ok(())
    }
}

/// Rebuilds the model of checkpoint `ck` and draws it at the requested size.
fn draw<B: Backend, M: RunModel<B>>(
    backend: &B,
    args: &ImageRenderArgs,
    path: &Path,
    ck: io::Checkpoint,
) -> Result<Picture> {
    let loaded = checkpoint::rebuild::<B, M>(backend, path, ck)?;
    {
        if loaded.meta.job != "image-fit" {
            bail!(
                "{} was written by `{}`, not by `image fit`",
                args.model.display(),
                loaded.meta.job
            );
        }
        let extra = &loaded.meta.extra;
        let get = |k: &str| extra.get(k).and_then(|v| v.as_u64()).unwrap_or(0) as usize;
        let (w0, h0, c) = (
            get("width").max(1),
            get("height").max(1),
            get("channels").max(1),
        );
        let (w, h) = fit_longest_side(w0, h0, args.size as usize);
        let offset: Vec<f32> = match extra.get("offset").and_then(|v| v.as_array()) {
            Some(values) => values
                .iter()
                .map(|v| v.as_f64().unwrap_or(0.0) as f32)
                .collect(),
            None => vec![0.0; c],
        };
        if offset.len() != c {
            bail!(
                "{}: the stored pixel offset has {} channels, the model {c}",
                args.model.display(),
                offset.len()
            );
        }
        predict_picture(backend, &loaded.model, w, h, &offset)
    }
}

/// Scores the render (and bicubic upscaling of the training image) against `reference`.
fn score_against(args: &ImageRenderArgs, reference: &Path, picture: &Picture) -> Result<()> {
    let (w, h) = (picture.width, picture.height);
    {
        {
            let mode = if picture.channels == 3 {
                ColorMode::Rgb
            } else {
                ColorMode::Grayscale
            };
            let mut r = load_picture(reference, mode)?;
            if (r.width, r.height) != (w, h) {
                r = r.resize_bicubic(w, h)?;
            }
            // Ink scores mean something for black-and-white line art only.
            let line_art = r.is_line_art();
            let score = |p: &Picture| -> Result<String> {
                let mut s = format!("PSNR {:.2} dB, SSIM {:.4}", psnr(p, &r)?, ssim(p, &r)?);
                if line_art {
                    s += &format!(
                        ", pixel accuracy {:.2}%, ink IoU {:.4}",
                        pixel_accuracy(p, &r)? * 100.0,
                        ink_iou(p, &r)?
                    );
                }
                Ok(s)
            };
            println!(
                "against {} at {w}x{h}: {}",
                reference.display(),
                score(picture)?
            );
            // The run folder keeps the image it was trained on: upscaling it with bicubic
            // interpolation is the baseline a fitted network should beat.
            let folder = if args.model.is_dir() {
                Some(args.model.as_path())
            } else {
                args.model.parent()
            };
            let original = folder.map(|f| f.join("original.png"));
            if let Some(path) = original.filter(|p| p.is_file()) {
                let mut base = load_picture(&path, mode)?.resize_bicubic(w, h)?;
                if let Some(t) = args.threshold {
                    base = base.threshold(t);
                }
                println!("bicubic upscaling of {}: {}", path.display(), score(&base)?);
            }
        }
        Ok(())
    }
}
