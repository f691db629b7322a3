//! The image fit and its redrawing: what `iron-learn image fit` and `image render` run.

use crate::background::{self, JobContext, Running};
use crate::device::{OnDevice, run_on};
use crate::failure::{Failure, Result};
use crate::table::load;
use crate::table_options::TrainingSpec;
use io::Picture;
use io::checkpoint::Storage;
use io::image::RenderSettings;
use jobs::image::{GridOptions, ImageArch, ImageFitOptions, SizeBudget, fit_image as fit};
use pyo3::FromPyObject;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use std::path::PathBuf;
use tensor_core::Backend;
use train::progress::StderrReporter;

/// An image fit's options, read from a dict of the same names (every key present; `None`:
/// the command line's default).
#[derive(Debug, Clone, FromPyObject)]
#[pyo3(from_item_all)]
pub struct ImageSpec {
    /// The training size: the longer side in pixels.
    pub size: Option<u32>,
    /// `hashgrid`, `siren`, `fourier` or `relu`.
    pub arch: Option<String>,
    /// Hidden widths.
    pub hidden: Option<String>,
    /// The hash grid's levels.
    pub levels: Option<usize>,
    /// Features per level.
    pub features: Option<usize>,
    /// log2 of the most table entries a level.
    pub log2_table_size: Option<u32>,
    /// Cells per axis of the coarsest level.
    pub base_resolution: Option<u32>,
    /// Cells per axis of the finest level.
    pub finest_resolution: Option<u32>,
    /// Fit gray levels.
    pub gray: bool,
    /// Fit colours even of a gray picture.
    pub color: bool,
    /// Fit black and white at this gray level.
    pub threshold: Option<f32>,
    /// Samples per pixel side.
    pub supersample: Option<u32>,
    /// A size budget, in parameters per pixel.
    pub params_per_pixel: Option<f64>,
}

impl ImageSpec {
    /// The library's options for a fit of the picture in `image` into `out`, trained as
    /// `training` says.
    fn options(
        &self,
        image: PathBuf,
        out: PathBuf,
        training: &TrainingSpec,
    ) -> Result<ImageFitOptions> {
        let d = ImageFitOptions::new(Some(image), out);
        let g = GridOptions::DEFAULT;
        let hidden = self.hidden.as_deref().map(str::parse).transpose();
        Ok(ImageFitOptions {
            size: self.size,
            arch: self.arch.as_deref().map(arch).transpose()?,
            hidden: hidden.map_err(|e| Failure::value(format!("hidden: {e}")))?,
            grid: GridOptions {
                levels: self.levels.unwrap_or(g.levels),
                features: self.features.unwrap_or(g.features),
                log2_table_size: self.log2_table_size,
                base_resolution: self.base_resolution.unwrap_or(g.base_resolution),
                finest_resolution: self.finest_resolution,
            },
            gray: self.gray,
            color: self.color,
            threshold: self.threshold,
            supersample: self.supersample.unwrap_or(d.supersample),
            budget: self.params_per_pixel.map(SizeBudget::new).transpose()?,
            training: training.choices()?,
            ..d
        })
    }
}

/// The network family named `name`.
fn arch(name: &str) -> Result<ImageArch> {
    Ok(match name {
        "hashgrid" => ImageArch::HashGrid,
        "siren" => ImageArch::Siren,
        "fourier" => ImageArch::Fourier,
        "relu" => ImageArch::Relu,
        other => {
            return Err(Failure::value(format!(
                "arch must be 'hashgrid', 'siren', 'fourier' or 'relu', not {other:?}"
            )));
        }
    })
}

/// A finished image fit, for the Python side.
#[derive(IntoPyObject)]
pub struct ImageFitted<'py> {
    /// The model file's bytes: stored in float16 for a fit within a size budget.
    model: Bound<'py, PyBytes>,
    /// PSNR of the fit at its training size, in dB.
    psnr: f64,
    /// Its structural similarity.
    ssim: f64,
    /// Trainable parameters per pixel.
    params_per_pixel: f64,
    /// PSNR of the model as stored in float16 (fits within a size budget).
    stored_psnr: Option<f64>,
    /// The command line's summary line.
    line: String,
}

/// [`ImageFitted`] but the model's bytes, made on the worker thread.
struct Fitted {
    bytes: Vec<u8>,
    psnr: f64,
    ssim: f64,
    params_per_pixel: f64,
    stored_psnr: Option<f64>,
    line: String,
}

/// Fits the picture in `image` in the run folder `run_dir`.
#[pyfunction]
#[pyo3(signature = (image, run_dir, spec, device="cpu", verbose=false, threads=None))]
pub fn fit_image<'py>(
    py: Python<'py>,
    image: PathBuf,
    run_dir: PathBuf,
    spec: &Bound<'py, PyDict>,
    device: &str,
    verbose: bool,
    threads: Option<usize>,
) -> PyResult<ImageFitted<'py>> {
    let (image_spec, training): (ImageSpec, TrainingSpec) = (spec.extract()?, spec.extract()?);
    let options = image_spec.options(image, run_dir, &training);
    let options = options.map_err(Failure::into_py)?;
    jobs::image::check_options(&options).map_err(|e| Failure::of(&e).into_py())?;
    let rename = vec![crate::table::run_folder_name(&options.out)];
    let device = device.to_string();
    let running = Running {
        verbose,
        threads,
        rename,
    };
    let f = background::run(py, running, move |context| {
        run_on(&device, FitImage { options, context })
    })?;
    Ok(ImageFitted {
        model: PyBytes::new(py, &f.bytes),
        psnr: f.psnr,
        ssim: f.ssim,
        params_per_pixel: f.params_per_pixel,
        stored_psnr: f.stored_psnr,
        line: f.line,
    })
}

/// An image fit on some device.
struct FitImage {
    options: ImageFitOptions,
    context: JobContext,
}

impl OnDevice for FitImage {
    type Output = Fitted;

    fn run<B: Backend>(mut self, backend: &B) -> Result<Self::Output> {
        self.options.training.stop = Some(self.context.stop.clone());
        let quiet = !self.context.verbose;
        let mut reporter = StderrReporter::with_sink(quiet, None, self.context.sink.clone());
        let out = fit(backend, &self.options, &mut reporter)?;
        let m = &out.metrics;
        let storage = match m.stored {
            Some(_) => Storage::Float16,
            None => Storage::Float32,
        };
        Ok(Fitted {
            bytes: out.model.to_checkpoint()?.to_bytes_as(storage)?,
            psnr: m.scores.psnr,
            ssim: m.scores.ssim,
            params_per_pixel: m.params_per_pixel,
            stored_psnr: m.stored.as_ref().map(|s| s.psnr),
            line: out.line(),
        })
    }
}

/// The picture drawn by the image model in the bytes `model` at `width x height`: its
/// 8-bit values, row by row, and its channels.
#[pyfunction]
#[pyo3(signature = (model, width, height, threads=None))]
pub fn render_image<'py>(
    py: Python<'py>,
    model: &[u8],
    width: usize,
    height: usize,
    threads: Option<usize>,
) -> PyResult<(Bound<'py, PyBytes>, usize)> {
    let model = model.to_vec();
    let running = Running {
        threads,
        ..Running::default()
    };
    let picture = background::run(py, running, move |_| draw(&model, width, height))?;
    Ok((PyBytes::new(py, &picture.to_bytes()), picture.channels))
}

/// Bytes held per value of a picture drawn whole: the `f32` values and their bytes.
const BYTES_PER_VALUE: u64 = 5;

/// [`render_image`] on the worker thread.
fn draw(model: &[u8], width: usize, height: usize) -> Result<Picture> {
    let model = load(model)?;
    let mut settings = model.render_settings(1)?;
    (settings.width, settings.height) = (width, height);
    check_memory(&settings)?;
    Ok(io::image::render_picture(
        model.network().backend(),
        &model,
        &settings,
    )?)
}

/// Refuses a picture that the memory budget cannot hold drawn whole.
fn check_memory(settings: &RenderSettings) -> Result<()> {
    let values = settings.width as u64 * settings.height as u64 * settings.offset.len() as u64;
    let need = values * BYTES_PER_VALUE;
    match train::budget::budget()? {
        Some(budget) if need > budget.bytes => Err(Failure::value(format!(
            "drawing {}x{} in memory needs about {}, more than the memory budget of {budget}; \
             draw it smaller, or into a PNG with save_png (drawn in bands)",
            settings.width,
            settings.height,
            io::image::human_bytes(need as f64)
        ))),
        _ => Ok(()),
    }
}

/// Draws the image model in the bytes `model` into a PNG at `path` with its longer side
/// `longest_side` pixels (the fitted aspect ratio kept), band by band in the memory of one
/// band, as `iron-learn image render` does; returns the picture's width and height.
#[pyfunction]
pub fn render_png(
    py: Python<'_>,
    model: &[u8],
    path: PathBuf,
    longest_side: usize,
) -> PyResult<(usize, usize)> {
    let draw = || -> Result<(usize, usize)> { Ok(load(model)?.render_png(longest_side, &path)?) };
    py.detach(draw).map_err(Failure::into_py)
}

/// Writes 8-bit pixel values (`width x height x channels`, row by row) as a PNG at `path`.
#[pyfunction]
pub fn write_png(
    py: Python<'_>,
    path: PathBuf,
    pixels: &[u8],
    width: usize,
    height: usize,
    channels: usize,
) -> PyResult<()> {
    let write = || -> Result<()> {
        let picture = Picture::from_bytes(width, height, channels, pixels)?;
        Ok(io::image::save_png(&picture, &path)?)
    };
    py.detach(write).map_err(Failure::into_py)
}
