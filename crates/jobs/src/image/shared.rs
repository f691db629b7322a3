//! An image fit over several processes ([`train::ranks`]): rank 0 loads the whole picture
//! and tells the others what they must know of it ([`PictureFacts`]); every process loads
//! and trains on its own band of rows (the global batches' pixels that fall in it); rank 0
//! then draws and scores the fit alone and hands its figures to the others.

use super::defaults::DEFAULT_ARCH;
use super::fit::{FitRun, PictureFacts, plan_fit, train_fit};
use super::memory::PictureBytes;
use super::options::ImageFitOptions;
use super::outcome::{ImageFitMetrics, ImageFitOutcome};
use super::plan::Plan;
use super::record::image_info;
use crate::{Error, Result};
use io::FittedModel;
use io::image::{ColorMode, CompactPicture, fit_longest_side};
use nn::PixelValues;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::ops::Range;
use tensor_core::Backend;
use train::Reporter;
use train::ranks::World;

/// The rows of a `height`-row picture this process of `world` trains on.
pub(super) fn band_rows(height: usize, world: &World) -> Range<usize> {
    nn::share(height, world.rank(), world.size())
}

/// Rank 0's `value` on every process (`None` on the others).
fn from_rank0<T: Serialize + DeserializeOwned>(world: &World, value: Option<T>) -> Result<T> {
    let mut bytes = match &value {
        Some(v) => serde_json::to_vec(v).map_err(|e| Error::Shared(e.to_string()))?,
        None => Vec::new(),
    };
    world.broadcast(0, &mut bytes)?;
    match value {
        Some(v) => Ok(v),
        None => serde_json::from_slice(&bytes).map_err(|e| Error::Shared(e.to_string())),
    }
}

/// Rank 0's facts of the picture on every process.
pub(super) fn share_facts(world: &World, facts: Option<PictureFacts>) -> Result<PictureFacts> {
    from_rank0(world, facts)
}

/// What rank 0 hands the other processes once it has drawn and scored the fit.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct FitEnd {
    metrics: ImageFitMetrics,
    summary: String,
    under_trained: Option<String>,
}

impl FitEnd {
    /// The figures of rank 0's outcome.
    pub fn of<B: Backend>(outcome: &ImageFitOutcome<B>) -> Self {
        FitEnd {
            metrics: outcome.metrics.clone(),
            summary: outcome.summary.clone(),
            under_trained: outcome.under_trained.clone(),
        }
    }
}

/// Rank 0's figures on every process.
pub(super) fn share_end(world: &World, end: Option<FitEnd>) -> Result<FitEnd> {
    from_rank0(world, end)
}

/// The fit of a process other than rank 0: its band of the picture loaded and trained on
/// beside the others, in its scratch folder; the outcome holds the trained model (the same
/// on every process) and rank 0's figures.
pub(super) fn fit_band<B: Backend>(
    backend: &B,
    options: &ImageFitOptions,
    reporter: &mut dyn Reporter,
) -> Result<ImageFitOutcome<B>> {
    let world = train::ranks::world();
    let facts = share_facts(world, None)?;
    let (w, h, c) = (facts.width, facts.height, facts.channels);
    let arch = options.arch.unwrap_or(DEFAULT_ARCH);
    let plan = match facts.log2_table_size {
        Some(log2) => Plan::with_tables::<B>(options, arch, (w, h, c), log2)?,
        None => Plan::new::<B>(options, arch, (w, h, c), PictureBytes::compact(w * h, c))?,
    };
    let rows = band_rows(h, world);
    // A picture of fewer rows than processes leaves the last ones none.
    let band = match rows.is_empty() {
        true => PixelValues::U8(Vec::new()),
        false => {
            let band = load_band::<B>(options, &facts, rows.clone())?;
            check_band(&band, &facts, &rows)?;
            band.into_values()
        }
    };
    let mut sampler = facts.sampler(options, &plan, band, Some(rows))?;
    let trained = train_fit(backend, (options, &facts, &plan), &mut sampler, reporter)?;
    let info = image_info((w, h), &facts.offset);
    let (stop_reason, model) = match trained {
        FitRun::Grid(out) => (out.report.stop_reason, FittedModel::new(out.model, info)?),
        FitRun::Mlp(out) => (out.report.stop_reason, FittedModel::new(out.model, info)?),
    };
    let end = share_end(world, None)?;
    Ok(ImageFitOutcome {
        model,
        metrics: end.metrics,
        summary: end.summary,
        stop_reason,
        under_trained: end.under_trained,
        dir: options.out.clone(),
        files: Vec::new(),
    })
}

/// Exact sums of a band's values at 8-bit precision (`q = round(255 v)`): of `q`, of `q^2`
/// and of `q` times its row's number (from 1 at the band's first row, of `width` pixels of
/// `channels` values): whichever way a band's values are held (bytes, or `f32` within 1e-6
/// of them), the same picture gives the same sums, and another file, other rows or rows in
/// another order give others.
pub(super) fn band_sums(values: &PixelValues, width: usize, channels: usize) -> [u64; 3] {
    sums_of(values, 0..values.len(), width * channels)
}

/// [`band_sums`] of the values `range` of `values`, rows of `row` values.
fn sums_of(values: &PixelValues, range: Range<usize>, row: usize) -> [u64; 3] {
    let (first, row) = (range.start, row.max(1));
    let mut sums = [0u64; 3];
    for i in range {
        let q = (values.get(i) * 255.0).round() as u64;
        sums[0] += q;
        sums[1] += q * q;
        sums[2] += ((i - first) / row + 1) as u64 * q;
    }
    sums
}

/// The [`band_sums`] of every process's band of a whole picture, for rank 0 to hand out.
pub(super) fn bands_sums(picture: &CompactPicture, world: &World) -> Vec<[u64; 3]> {
    let row = picture.width() * picture.channels();
    (0..world.size())
        .map(|r| {
            let rows = nn::share(picture.height(), r, world.size());
            sums_of(picture.values(), rows.start * row..rows.end * row, row)
        })
        .collect()
}

/// Refuses a band that is not rank 0's rows `rows` of its picture (another file on this
/// process's machine): its width and channels, then its sums against rank 0's.
fn check_band(band: &CompactPicture, facts: &PictureFacts, rows: &Range<usize>) -> Result<()> {
    let (w, c) = (band.width(), band.channels());
    if (w, c) != (facts.width, facts.channels) {
        return Err(Error::OtherPicture(format!(
            "{w} pixels wide with {c} channels, rank 0's {} with {}",
            facts.width, facts.channels
        )));
    }
    let rank = train::ranks::world().rank();
    let expected = facts.bands.get(rank).copied().unwrap_or_default();
    if band_sums(band.values(), w, c) != expected {
        return Err(Error::OtherPicture(format!(
            "its rows {}..{} hold other values",
            rows.start, rows.end
        )));
    }
    Ok(())
}

/// The rows `rows` of the picture rank 0 described in `facts`: decoded alone where the
/// file is fitted at its own size (row by row for 8-bit PNGs and strip TIFFs), else cut
/// from the whole picture made as rank 0 made it (resized, or the bundled drawing).
fn load_band<B: Backend>(
    options: &ImageFitOptions,
    facts: &PictureFacts,
    rows: Range<usize>,
) -> Result<CompactPicture> {
    if let Some(path) = &options.image {
        let header = io::image::read_image_header(path)?;
        let own = (header.width, header.height);
        let size = options
            .size
            .map_or(own, |n| fit_longest_side(own.0, own.1, n as usize));
        if size == own && own != (facts.width, facts.height) {
            return Err(Error::OtherPicture(format!(
                "{}x{} pixels, rank 0's {}x{}",
                own.0, own.1, facts.width, facts.height
            )));
        }
        if size == own {
            let mode = match facts.channels {
                1 => ColorMode::Grayscale,
                _ => ColorMode::Rgb,
            };
            let budget = train::budget::budget()?;
            let band = io::image::load_compact_band(path, mode, rows, budget.as_ref())?;
            return Ok(match options.threshold {
                Some(t) => band.threshold(t)?,
                None => band,
            });
        }
    }
    let (picture, _, _) = plan_fit::<B>(options)?;
    let made = (picture.width(), picture.height());
    if made != (facts.width, facts.height) {
        return Err(Error::OtherPicture(format!(
            "{}x{} pixels, rank 0's {}x{}",
            made.0, made.1, facts.width, facts.height
        )));
    }
    Ok(picture.band(rows)?)
}
