//! The memory an image fit needs, as the one memory plan of every job
//! ([`Estimate`]), checked before the picture or the network exist.

use super::defaults::MAX_SIZE;
use crate::Result;
use crate::plot::comparison::COMPARISON_SIDE;
use train::budget::{self, Estimate, MemoryAdvice};

/// The memory of the training picture: at its peak while it is made (decoded, converted,
/// resized), and while it is held (the compact copy the fit trains on and is scored against).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PictureBytes {
    /// Peak bytes while the picture is made.
    pub load: u64,
    /// Bytes held during training and scoring.
    pub held: u64,
}

impl PictureBytes {
    /// A picture of `pixels` pixels and `channels` made in `f32`, then compacted: at worst
    /// held in `f32` (values that are not 8-bit), at its peak beside its byte copy.
    pub fn values(pixels: usize, channels: usize) -> Self {
        let values = pixels as u64 * channels as u64;
        PictureBytes {
            load: 5 * values,
            held: 4 * values,
        }
    }

    /// An 8-bit picture of `pixels` pixels and `channels`, made in place.
    pub fn compact(pixels: usize, channels: usize) -> Self {
        let bytes = pixels as u64 * channels as u64;
        PictureBytes {
            load: bytes,
            held: bytes,
        }
    }
}

/// The sizes that set an image fit's memory.
#[derive(Debug, Clone, Copy)]
pub struct ImageFitSize {
    /// Pixels of the training image.
    pub pixels: usize,
    /// Pixels per row of the training image.
    pub width: usize,
    /// The training picture's memory.
    pub picture: PictureBytes,
    /// Channels.
    pub channels: usize,
    /// Pixels per step.
    pub batch: usize,
    /// Input rows per pixel (area supervision).
    pub samples: usize,
    /// Sum of the widths of the network's layers (encoding included).
    pub widths: usize,
    /// Trainable parameters.
    pub params: usize,
}

impl ImageFitSize {
    /// The fit's memory plan. The fit holds the picture's compact copy (`data`), the
    /// parameters four times (values, gradients, Adam's two moments: `model`), each batch
    /// row's activations three times (values, pre-activations, gradients); while it trains it
    /// writes checkpoints (a copy of the values and both moments, 12 bytes a parameter,
    /// streamed to the file from there); after training it draws the reconstruction in bands
    /// (a band's coordinates and activations), scoring each band as it comes
    /// ([`io::image::scoring_bytes`]) and shrinking both pictures for `comparison.png`.
    /// Checkpoints and drawing never overlap, so the larger of the two counts with the
    /// batch's `activations`. Making the picture peaks at `loading`.
    pub fn estimate(&self) -> Estimate {
        // In f64: absurd requests saturate instead of overflowing.
        let f = |v: usize| v as f64;
        let rows = f(self.batch) * f(self.samples);
        let batch = rows * (2.0 + 3.0 * f(self.widths) + 3.0 * f(self.channels)) * 4.0;
        let band = f(io::image::BAND_PIXELS) * (2.0 + 2.0 * f(self.widths) + f(self.channels));
        let shown = f(self.pixels).min(f(COMPARISON_SIDE).powi(2));
        let display = 2.0 * shown * f(self.channels) * 4.0;
        let scoring = io::image::scoring_bytes(self.width, self.channels) as f64;
        let checkpoint = f(self.params) * 12.0;
        let drawing = band * 4.0 + scoring + display;
        Estimate {
            params: f(self.params),
            model: f(self.params) * 16.0,
            activations: batch + checkpoint.max(drawing),
            data: self.picture.held as f64,
            held: 0.0,
            loading: self.picture.load as f64,
        }
    }

    /// Peak bytes, the program itself included.
    pub fn bytes(&self) -> u64 {
        self.estimate().total() as u64
    }

    /// The same fit on a picture scaled to `k` times the pixels, with no batch.
    fn scaled(&self, k: f64) -> Self {
        ImageFitSize {
            batch: 0,
            pixels: (self.pixels as f64 * k) as usize,
            width: ((self.width as f64 * k.sqrt()) as usize).max(1),
            picture: PictureBytes {
                load: (self.picture.load as f64 * k) as u64,
                held: (self.picture.held as f64 * k) as u64,
            },
            ..*self
        }
    }
}

/// Refuses, in one line and before the network exists, a fit that would not fit in the
/// memory available, saying what would.
pub fn check_memory(size: &ImageFitSize) -> Result<()> {
    let Some(budget) = budget::budget()? else {
        return Ok(());
    };
    check_against(size, budget.bytes, &budget.source)
}

/// [`check_memory`] against `budget` bytes from `source`.
pub fn check_against(size: &ImageFitSize, budget: u64, source: &str) -> Result<()> {
    if size.bytes() <= budget {
        return Ok(());
    }
    let fixed = ImageFitSize { batch: 0, ..*size }.bytes();
    let advice = if fixed < budget {
        let per_pixel = ImageFitSize { batch: 1, ..*size }.bytes() - fixed;
        let batch = ((budget - fixed) / per_pixel.max(1)).max(1);
        MemoryAdvice::SmallerBatches(Some(batch as usize))
    } else {
        size_advice(size, budget)
    };
    let part = format!("{} pixels, batches of {} pixels", size.pixels, size.batch);
    Err(size
        .estimate()
        .refusal("image fit", &part, (budget as f64, source), advice)
        .into())
}

/// The advice when not even one pixel a step fits: the network alone is too large, or the
/// largest longest side (at most [`MAX_SIZE`]) whose picture fits beside the network.
fn size_advice(size: &ImageFitSize, budget: u64) -> MemoryAdvice {
    let network = size.scaled(0.0).bytes();
    let longest = size.width.max(size.pixels / size.width.max(1)) as f64;
    let (mut lo, mut hi) = (0.0, 1.0);
    for _ in 0..60 {
        let mid = (lo + hi) / 2.0;
        if size.scaled(mid).bytes() <= budget {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let side = ((longest * lo.sqrt()) as u32).min(MAX_SIZE);
    if network >= budget || side < 2 {
        return MemoryAdvice::NetworkAlone {
            bytes: network,
            params: size.params,
        };
    }
    MemoryAdvice::SmallerImage(side)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Error;

    fn size(width: usize, height: usize, params: usize) -> ImageFitSize {
        ImageFitSize {
            pixels: width * height,
            width,
            picture: PictureBytes::values(width * height, 3),
            channels: 3,
            batch: 65_536,
            samples: 1,
            widths: 64 * 3,
            params,
        }
    }

    /// A network too large for the budget on its own is named, with no `--size` advice.
    #[test]
    fn a_network_too_large_alone_gets_no_size_advice() {
        let f = size(512, 512, 400_000_000);
        let advice = size_advice(&f, 4 << 30);
        assert!(
            matches!(
                advice,
                MemoryAdvice::NetworkAlone {
                    params: 400_000_000,
                    ..
                }
            ),
            "{advice}"
        );
        assert!(advice.to_string().contains("network alone"), "{advice}");
    }

    /// The suggested size fits the budget and is one an image fit accepts.
    #[test]
    fn the_suggested_size_fits_and_is_accepted() {
        let f = size(30_000, 20_000, 100_000);
        for budget in [2u64 << 30, 6 << 30, 40 << 30] {
            let advice = size_advice(&f, budget);
            let MemoryAdvice::SmallerImage(side) = advice else {
                panic!("{advice}");
            };
            let side = side as usize;
            assert!(side <= MAX_SIZE as usize, "{advice}");
            let (w, h) = (side, side * 2 / 3);
            let smaller = ImageFitSize {
                batch: 0,
                ..size(w, h, f.params)
            };
            assert!(smaller.bytes() <= budget, "{advice}: {}", smaller.bytes());
        }
    }

    /// The refusal is the one sentence of every job, with a batch that fits when the network
    /// and picture do; that batch fits.
    #[test]
    fn a_batch_too_large_is_refused_with_one_that_fits() {
        let f = size(2000, 1000, 100_000);
        let budget = ImageFitSize { batch: 1000, ..f }.bytes() + 10;
        let e = check_against(&f, budget, "test").unwrap_err();
        let message = e.to_string();
        assert!(
            message.starts_with("image fit would need about"),
            "{message}"
        );
        assert!(message.contains("2000000 pixels, batches of 65536 pixels"));
        let Error::Run(train::Error::OverBudget {
            advice: MemoryAdvice::SmallerBatches(Some(batch)),
            ..
        }) = e
        else {
            panic!("{message}");
        };
        assert!(batch >= 1000, "{message}");
        check_against(&ImageFitSize { batch, ..f }, budget, "test").unwrap();
    }

    /// The program's own memory is counted once, as for every job.
    #[test]
    fn the_program_is_counted_as_for_every_job() {
        let f = size(10, 10, 10);
        let e = f.estimate();
        let parts = e.model + e.activations + e.data;
        assert_eq!(f.bytes(), (parts + budget::PROGRAM_BYTES) as u64);
    }
}
