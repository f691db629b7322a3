//! [`render_image`]: a fitted image redrawn at any size. A PNG is drawn in bands written to
//! the file as they are made (any size in the memory of one band); another format, or
//! scoring against a reference picture, holds the whole picture and is checked against the
//! memory budget first.

use super::DrawProgress;
use super::options::ImageOption;
use crate::metrics::PictureScores;
use crate::{Error, Result};
use io::image::{ColorMode, ImageFileFormat, RenderSettings, render_picture_with};
use io::{FittedModel, Picture};
use std::path::{Path, PathBuf};
use std::time::Instant;
use tensor_core::Backend;
use train::Reporter;

/// The largest longest side of a render: a PNG side of 65536 pixels (4.3 gigapixels for a
/// square).
pub const MAX_RENDER_SIZE: u32 = 65_536;

/// Bytes per value of a picture drawn whole and scored: the drawing, the reference, the
/// bicubic baseline (`f32` each) and the scores' working planes.
const WHOLE_PICTURE_BYTES_PER_VALUE: u64 = 24;

/// What to draw.
#[derive(Debug, Clone, PartialEq)]
pub struct RenderOptions {
    /// A run folder of an image fit, or its `model.safetensors`.
    pub model: PathBuf,
    /// The picture to write (`.png`, `.jpg`, `.webp`, `.bmp`; no extension: PNG).
    pub output: PathBuf,
    /// The longest side in pixels (1 to [`MAX_RENDER_SIZE`]), keeping the aspect ratio.
    pub size: u32,
    /// Draw black and white: values darker than this gray level (0..1) become black.
    pub threshold: Option<f32>,
    /// A picture to score the drawing against (and bicubic upscaling of the image the fit
    /// was trained on, where its run folder keeps it).
    pub reference: Option<PathBuf>,
}

impl RenderOptions {
    /// `model` drawn at a longest side of `size` into `output`, in its own colours, unscored.
    pub fn new(model: impl Into<PathBuf>, size: u32, output: impl Into<PathBuf>) -> Self {
        RenderOptions {
            model: model.into(),
            output: output.into(),
            size,
            threshold: None,
            reference: None,
        }
    }
}

/// A finished render.
#[derive(Debug, Clone, PartialEq)]
pub struct RenderOutcome {
    /// The picture written.
    pub output: PathBuf,
    /// Its width.
    pub width: usize,
    /// Its height.
    pub height: usize,
    /// Seconds from loading the model to the written picture.
    pub seconds: f64,
    /// The size the model was fitted at.
    pub fitted: (usize, usize),
    /// The scores against the reference, when one was given.
    pub scores: Option<RenderScores>,
}

/// A render scored against a reference picture.
#[derive(Debug, Clone, PartialEq)]
pub struct RenderScores {
    /// The reference picture.
    pub reference: PathBuf,
    /// The render's scores.
    pub render: PictureScores,
    /// The fit's training image (`original.png` of its run folder) resized bicubically to
    /// the render's size, and its scores: the baseline a fitted network should beat.
    pub bicubic: Option<(PathBuf, PictureScores)>,
    /// The training image's size (`None`: no training image found).
    pub trained_size: Option<(usize, usize)>,
    /// The reference's own size, where its shape is not the render's (it was stretched).
    pub stretched_from: Option<(usize, usize)>,
}

impl RenderOutcome {
    /// `rendered 800x600 in 0.42 s to big.png`.
    pub fn line(&self) -> String {
        format!(
            "rendered {}x{} in {:.2} s to {}",
            self.width,
            self.height,
            self.seconds,
            self.output.display()
        )
    }

    /// Whether the render is larger than the fitted image (which it interpolates, adding no
    /// detail).
    pub fn enlarged(&self) -> bool {
        self.width > self.fitted.0 || self.height > self.fitted.1
    }

    /// `against ref.png at 800x600: PSNR ...`, then the bicubic baseline's line where there
    /// is one.
    pub fn score_lines(&self) -> Vec<String> {
        let Some(s) = &self.scores else {
            return Vec::new();
        };
        let mut lines = vec![format!(
            "against {} at {}x{}: {}",
            s.reference.display(),
            self.width,
            self.height,
            s.render.summary()
        )];
        if let Some((w, h)) = s.stretched_from {
            lines.push(format!(
                "note: the reference is {w}x{h}, of another shape than {}x{}: it was stretched to it",
                self.width, self.height
            ));
        }
        if let (Some((path, scores)), Some((w, h))) = (&s.bicubic, s.trained_size) {
            let how = match (self.width * self.height).cmp(&(w * h)) {
                std::cmp::Ordering::Greater => "bicubic upscaling of",
                std::cmp::Ordering::Less => "bicubic downscaling of",
                std::cmp::Ordering::Equal => "the picture trained on,",
            };
            lines.push(format!("{how} {}: {}", path.display(), scores.summary()));
        }
        lines
    }
}

/// Refuses, before anything is read or written, a size or threshold out of range, an
/// output over one of the inputs, or an output whose extension names no format.
pub fn check_render_options(options: &RenderOptions) -> Result<ImageFileFormat> {
    if !(1..=MAX_RENDER_SIZE).contains(&options.size) {
        return Err(out_of_range(
            ImageOption::Size,
            format!("between 1 and {MAX_RENDER_SIZE}"),
            options.size,
        ));
    }
    if let Some(t) = options.threshold
        && !(0.0..=1.0).contains(&t)
    {
        return Err(out_of_range(ImageOption::Threshold, "between 0 and 1", t));
    }
    let source = io::fitted::model_file(&options.model);
    let mut inputs = vec![source.as_path()];
    inputs.extend(options.reference.as_deref());
    io::output::refuse_own_input(&options.output, &inputs)?;
    Ok(ImageFileFormat::from_path(&options.output)?)
}

/// An option out of its range.
fn out_of_range(option: ImageOption, accepted: impl Into<String>, value: impl ToString) -> Error {
    Error::ImageOptionOutOfRange {
        option,
        accepted: accepted.into(),
        value: value.to_string(),
    }
}

/// Draws the image model of `options.model` as the options ask, writes it, and scores it
/// against the reference where one is given; `reporter` sees the drawing's progress (as
/// status lines). A reference that cannot be read is refused before anything is written.
pub fn render_image<B: Backend>(
    backend: &B,
    options: &RenderOptions,
    reporter: &mut dyn Reporter,
) -> Result<RenderOutcome> {
    let format = check_render_options(options)?;
    let started = Instant::now();
    let source = io::fitted::model_file(&options.model);
    let model = load_image_model(backend, &source)?;
    let mut settings = model
        .render_settings(options.size as usize)
        .map_err(|e| Error::Draw(format!("cannot draw {}: {e}", source.display())))?;
    settings.threshold = options.threshold;
    let (w, h) = (settings.width, settings.height);
    let mut progress = DrawProgress::new("drawing", w, h, settings.offset.len());
    let mut on_band = |band: &[f32]| {
        progress.band(band).iter().for_each(|l| reporter.status(l));
        Ok(())
    };
    let drawn = if format != ImageFileFormat::Png || options.reference.is_some() {
        check_whole_picture(&settings, options.reference.is_some())?;
        // The reference is read before anything is drawn or written.
        let reference = read_reference(options, settings.offset.len())?;
        let picture = render_picture_with(backend, &model, &settings, &mut on_band)?;
        io::image::save_picture(&picture, &options.output).map_err(|e| train::Error::Write {
            path: options.output.clone(),
            source: Box::new(e),
        })?;
        Some((picture, reference))
    } else {
        io::image::render_png_with(backend, &model, &settings, &options.output, &mut on_band)?;
        None
    };
    let seconds = started.elapsed().as_secs_f64();
    let scores = match drawn {
        Some((picture, Some((path, reference)))) => {
            Some(score_against(options, path, reference, &picture)?)
        }
        _ => None,
    };
    Ok(RenderOutcome {
        output: options.output.clone(),
        width: w,
        height: h,
        seconds,
        fitted: model.image_size()?,
        scores,
    })
}

/// The colour mode of a picture of `channels` channels (3: colour).
fn mode(channels: usize) -> ColorMode {
    if channels == 3 {
        ColorMode::Rgb
    } else {
        ColorMode::Grayscale
    }
}

/// The reference picture asked for, read in the model's channels.
fn read_reference(options: &RenderOptions, channels: usize) -> Result<Option<(&Path, Picture)>> {
    Ok(match &options.reference {
        Some(path) => Some((path.as_path(), load_within_budget(path, mode(channels))?)),
        None => None,
    })
}

/// Loads the image model of a checkpoint, refusing one with non-finite weights or one that
/// another job wrote, naming it.
fn load_image_model<B: Backend>(backend: &B, source: &Path) -> Result<FittedModel<B>> {
    let (model, job) = train::checkpoint::load_fitted(backend, source)?;
    if !job.is_empty() && job != super::JOB {
        return Err(train::Error::Checkpoint {
            path: source.to_path_buf(),
            reason: format!("was written by `{job}`, not by `image fit`"),
        }
        .into());
    }
    Ok(model)
}

/// Refuses, before drawing, a whole picture (another format than PNG, or a render to score)
/// that the memory budget cannot hold, saying what would fit.
fn check_whole_picture(settings: &RenderSettings, scored: bool) -> Result<()> {
    let Some(budget) = train::budget::budget()? else {
        return Ok(());
    };
    let per_pixel = settings.offset.len() as u64 * WHOLE_PICTURE_BYTES_PER_VALUE;
    let need = settings.width as u64 * settings.height as u64 * per_pixel;
    if need <= budget.bytes {
        return Ok(());
    }
    let longest = settings.width.max(settings.height) as f64;
    Err(Error::WholeRenderOverBudget {
        width: settings.width,
        height: settings.height,
        need: io::image::human_bytes(need as f64),
        budget: budget.to_string(),
        side: (longest * (budget.bytes as f64 / need as f64).sqrt()) as u64,
        scored,
    })
}

/// Scores the render (and the training image resized bicubically) against the picture `r`
/// read from `reference` (resized to the render's size, stretched where its shape differs).
fn score_against(
    options: &RenderOptions,
    reference: &Path,
    mut r: Picture,
    picture: &Picture,
) -> Result<RenderScores> {
    let (w, h) = (picture.width, picture.height);
    let (rw, rh) = (r.width, r.height);
    // Another shape: more than half a pixel off at the render's size.
    let stretched = (rw * h).abs_diff(rh * w) * 2 > rh.max(1) * w.max(h);
    if (rw, rh) != (w, h) {
        r = r.resize_bicubic(w, h)?;
    }
    // Ink scores mean something for black-and-white line art only.
    let line_art = r.is_line_art();
    let score = |p: &Picture| PictureScores::new(p, &r, line_art);
    let render = score(picture)?;
    // The run folder keeps the image it was trained on: upscaling it with bicubic
    // interpolation is the baseline a fitted network should beat.
    let folder = if options.model.is_dir() {
        Some(options.model.as_path())
    } else {
        options.model.parent()
    };
    let original = folder.map(|f| f.join(super::defaults::ORIGINAL_FILE));
    let mut trained_size = None;
    let bicubic = match original.filter(|p| p.is_file()) {
        Some(path) => {
            let trained = load_within_budget(&path, mode(picture.channels))?;
            trained_size = Some((trained.width, trained.height));
            let mut base = trained.resize_bicubic(w, h)?;
            if let Some(t) = options.threshold {
                base = base.threshold(t);
            }
            let scores = score(&base)?;
            Some((path, scores))
        }
        None => None,
    };
    Ok(RenderScores {
        reference: reference.to_path_buf(),
        render,
        bicubic,
        trained_size,
        stretched_from: stretched.then_some((rw, rh)),
    })
}

/// Loads an image, refused from its header when the memory budget cannot hold it.
pub fn load_within_budget(path: &Path, mode: ColorMode) -> Result<Picture> {
    Ok(match train::budget::budget()? {
        Some(budget) => io::image::load_picture_within(path, mode, &budget)?,
        None => io::image::load_picture(path, mode)?,
    })
}
