//! `iron-learn image render`: redraw a fitted image at any size, with the library's renderer.
//! A PNG is drawn in bands written to the file as they are made (any size in the memory of
//! one band); another format, or scoring against `--reference`, holds the whole picture and
//! is checked against the memory budget first.

use crate::cli::ImageRenderArgs;
use crate::device::Job;
use crate::memory_budget;
use crate::report::output::write_picture;
use anyhow::{Result, bail};
use io::image::{
    ColorMode, ImageFileFormat, RenderSettings, load_picture_within, render_picture_with,
    render_png_with,
};
use io::{FittedModel, Picture};
use std::path::Path;
use std::time::Instant;
use tensor_core::Backend;
use train::image::DrawProgress;

/// Largest `--size`: a PNG side of 65536 pixels (4.3 gigapixels for a square).
pub const MAX_RENDER_SIZE: u32 = 65_536;

/// Bytes per value of a picture drawn whole and scored: the drawing, the reference, the
/// bicubic baseline (`f32` each) and the scores' working planes.
const WHOLE_PICTURE_BYTES_PER_VALUE: u64 = 24;

/// Renders a fitted image.
pub struct ImageRender(pub ImageRenderArgs);

impl Job for ImageRender {
    type Output = ();

    fn run<B: Backend>(self, backend: &B) -> Result<()> {
        let args = &self.0;
        check_args(args)?;
        let source = io::fitted::model_file(&args.model);
        let mut inputs = vec![source.as_path()];
        inputs.extend(args.reference.as_deref());
        io::output::refuse_own_input(&args.output, &inputs)?;
        let format = ImageFileFormat::from_path(&args.output)?;
        crate::signals::remove_unfinished_on_signal(&args.output);
        let started = Instant::now();
        let model = load_image_model(backend, &source)?;
        let mut settings = model
            .render_settings(args.size as usize)
            .map_err(|e| anyhow::anyhow!("cannot draw {}: {e}", source.display()))?;
        settings.threshold = args.threshold;
        let (w, h) = (settings.width, settings.height);
        let mut progress = DrawProgress::new("drawing", w, h, settings.offset.len());
        let mut on_band = |band: &[f32]| {
            progress.band(band).iter().for_each(|l| eprintln!("{l}"));
            Ok(())
        };
        let picture = if format != ImageFileFormat::Png || args.reference.is_some() {
            check_whole_picture(&settings, args)?;
            // The reference is read before anything is drawn or written: a reference that
            // cannot be read leaves the output as it was.
            let reference = read_reference(args, settings.offset.len())?;
            let picture = render_picture_with(backend, &model, &settings, &mut on_band)?;
            write_picture(&args.output, &picture)?;
            Some((picture, reference))
        } else {
            render_png_with(backend, &model, &settings, &args.output, &mut on_band)?;
            None
        };
        println!(
            "rendered {w}x{h} in {:.2} s to {}",
            started.elapsed().as_secs_f64(),
            args.output.display()
        );
        note_enlargement(&model, &settings)?;
        if let Some((picture, Some((path, reference)))) = picture {
            score_against(args, path, reference, &picture)?;
        }
        Ok(())
    }
}

/// Refuses a size or threshold out of range.
fn check_args(args: &ImageRenderArgs) -> Result<()> {
    if !(1..=MAX_RENDER_SIZE).contains(&args.size) {
        bail!(
            "--size must be between 1 and {MAX_RENDER_SIZE}, got {}",
            args.size
        );
    }
    if let Some(t) = args.threshold
        && !(0.0..=1.0).contains(&t)
    {
        bail!("--threshold must be between 0 and 1, got {t}");
    }
    Ok(())
}

/// The reference picture asked for, read in the model's channels (3: colour).
fn read_reference(args: &ImageRenderArgs, channels: usize) -> Result<Option<(&Path, Picture)>> {
    let mode = if channels == 3 {
        ColorMode::Rgb
    } else {
        ColorMode::Grayscale
    };
    Ok(match &args.reference {
        Some(path) => Some((path.as_path(), load_within_budget(path, mode)?)),
        None => None,
    })
}

/// Loads the image model of a checkpoint, refusing one with non-finite weights or one that
/// another job wrote, naming it.
fn load_image_model<B: Backend>(backend: &B, source: &Path) -> Result<FittedModel<B>> {
    let (model, job) = train::checkpoint::load_fitted(backend, source)?;
    if !job.is_empty() && job != "image-fit" {
        bail!(
            "{} was written by `{job}`, not by `image fit`",
            source.display()
        );
    }
    Ok(model)
}

/// Refuses, before drawing, a whole picture (another format than PNG, or a render to score)
/// that the memory budget cannot hold, saying what would fit.
fn check_whole_picture(settings: &RenderSettings, args: &ImageRenderArgs) -> Result<()> {
    let Some(budget) = memory_budget::budget()? else {
        return Ok(());
    };
    let per_pixel = settings.offset.len() as u64 * WHOLE_PICTURE_BYTES_PER_VALUE;
    let need = settings.width as u64 * settings.height as u64 * per_pixel;
    if need <= budget.bytes {
        return Ok(());
    }
    let longest = settings.width.max(settings.height) as f64;
    let side = (longest * (budget.bytes as f64 / need as f64).sqrt()) as u64;
    let why = if args.reference.is_some() {
        "scoring against --reference"
    } else {
        "this format"
    };
    bail!(
        "drawing {}x{} whole for {why} needs about {}, more than the memory budget of {budget}; \
         --size {side} or less fits, or write a .png without --reference (drawn in bands in a \
         few MB)",
        settings.width,
        settings.height,
        io::image::human_bytes(need as f64)
    )
}

/// Says that drawing larger than the fitted image interpolates: it adds no detail.
fn note_enlargement<B: Backend>(model: &FittedModel<B>, settings: &RenderSettings) -> Result<()> {
    let (w0, h0) = model.image_size()?;
    if settings.width > w0 || settings.height > h0 {
        eprintln!(
            "note: the model was fitted on {w0}x{h0} pixels; drawing it at {}x{} interpolates \
             between them and adds no detail (compare with bicubic upscaling: --reference)",
            settings.width, settings.height
        );
    }
    Ok(())
}

/// Scores the render (and bicubic upscaling of the training image) against the picture
/// `r` read from `reference`.
fn score_against(
    args: &ImageRenderArgs,
    reference: &Path,
    mut r: Picture,
    picture: &Picture,
) -> Result<()> {
    let (w, h) = (picture.width, picture.height);
    let mode = if picture.channels == 3 {
        ColorMode::Rgb
    } else {
        ColorMode::Grayscale
    };
    if (r.width, r.height) != (w, h) {
        r = r.resize_bicubic(w, h)?;
    }
    // Ink scores mean something for black-and-white line art only.
    let line_art = r.is_line_art();
    let score = |p: &Picture| -> Result<String> {
        Ok(train::metrics::PictureScores::new(p, &r, line_art)?.summary())
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
        let mut base = load_within_budget(&path, mode)?.resize_bicubic(w, h)?;
        if let Some(t) = args.threshold {
            base = base.threshold(t);
        }
        println!("bicubic upscaling of {}: {}", path.display(), score(&base)?);
    }
    Ok(())
}

/// Loads an image, refused from its header when the memory budget cannot hold it.
pub fn load_within_budget(path: &Path, mode: ColorMode) -> Result<Picture> {
    Ok(match memory_budget::budget()? {
        Some(budget) => load_picture_within(path, mode, &budget)?,
        None => io::image::load_picture(path, mode)?,
    })
}
