//! Every default of an image fit, in one place: the network, its hidden layers
//! and tables, the pixels per step, the steps and learning rate, the size of the bundled
//! drawing and the names of the files a fit writes.

use super::options::ImageArch;
use nn::TrainLength;
use train::Defaults;
use train::Schedule;

/// Pixels drawn at random per step (the whole picture when it is smaller).
pub const DEFAULT_BATCH: usize = 1 << 16;

/// Training size (longer side) of the bundled drawing.
pub const DEFAULT_SIZE: u32 = 200;

/// The largest training size (longer side), for user images as for the bundled drawing.
pub const MAX_SIZE: u32 = 16_384;

/// Steps of a fit other than the hash grid's up to [`IMAGE_BASE_PIXELS`] pixels.
pub const IMAGE_BASE_STEPS: u64 = 300;
/// The pixel count (200 x 200) that [`IMAGE_BASE_STEPS`] fits well.
pub const IMAGE_BASE_PIXELS: usize = 40_000;
/// The most default steps of any image fit.
pub const IMAGE_MAX_STEPS: u64 = 3000;

/// Steps of a hash-grid fit up to [`HASH_GRID_BASE_PIXELS`] pixels.
pub const HASH_GRID_BASE_STEPS: u64 = 100;
/// The pixel count (256 x 256, one default batch) that [`HASH_GRID_BASE_STEPS`] fits well
/// (about 40 dB on a photo).
pub const HASH_GRID_BASE_PIXELS: usize = 65_536;

/// Pixels drawn at random per step of a fit within a size budget: an eighth of
/// [`DEFAULT_BATCH`]. Measured on two 640x427 photos at one parameter a pixel (a detailed
/// landscape and a histology slide), the same pixels seen in steps of 65,536, 32,768,
/// 16,384, 8,192 and 4,096 pixels score 37.3, 38.2, 38.6, 38.7 and 38.9 dB on the first
/// and 45.3, 46.2, 46.7, 47.1 and 47.2 dB on the second (table entries shared by many
/// pixels gain from more, smaller updates); below 8,192 the optimizer's update of every
/// parameter at each step costs more time than it gains.
pub const BUDGET_BATCH: usize = DEFAULT_BATCH / 8;

/// Steps of a fit within a size budget up to [`HASH_GRID_BASE_PIXELS`] pixels (growing with
/// the side beyond, as the default's do): 9,400 of [`BUDGET_BATCH`] on a 640x427 photo,
/// 25 to 29 s on 2 cores with the budget's wide hidden layer. On such photos 15% more
/// steps gain 0.1 to 0.3 dB (`china` 39.64 to 39.91 dB from 8,150 to 9,372 steps).
pub const BUDGET_BASE_STEPS: u64 = 4600;

/// The most default steps of a fit within a size budget: as many pixels as the default's
/// most steps ([`IMAGE_MAX_STEPS`] of [`DEFAULT_BATCH`]).
pub const BUDGET_MAX_STEPS: u64 = IMAGE_MAX_STEPS * (DEFAULT_BATCH / BUDGET_BATCH) as u64;

/// Learning rate of the hash grid (its tables learn fast).
pub const HASH_GRID_LR: f32 = 1e-2;
/// Learning rate of the coordinate networks (SIREN, Fourier features, ReLU).
pub const COORDINATE_LR: f32 = 1e-3;

/// The default log2 of the hash grid's table size.
pub const DEFAULT_LOG2_TABLE_SIZE: u32 = 19;

/// Images of more pixels than this get tables twice as large by default (where the memory
/// budget holds them): on a 600-megapixel photo 2^20 entries a level gain 2.5 dB over 2^19 in
/// the same steps, while photos of a few megapixels lose nothing with 2^19. Larger images
/// made smaller are also shrunk by area means as they are decoded.
pub const LARGE_IMAGE_PIXELS: usize = 100_000_000;

/// Frequencies of the Fourier-feature network's encoding.
pub const FOURIER_FEATURES: usize = 256;
/// Scale (sigma) of the Fourier-feature network's frequencies.
pub const FOURIER_SIGMA: f32 = 8.0;

/// The picture as trained on, in the run folder.
pub const ORIGINAL_FILE: &str = "original.png";
/// The fitted picture drawn at the training size, in the run folder.
pub const RECONSTRUCTION_FILE: &str = "reconstruction.png";
/// The original and the reconstruction side by side, in the run folder.
pub const COMPARISON_FILE: &str = "comparison.png";
/// A fit within a size budget: its model stored in `float16` (no optimizer state), in the
/// run folder.
pub const STORED_FILE: &str = "model-f16.safetensors";
/// A fit within a size budget: the stored model drawn at the training size, in the run
/// folder.
pub const STORED_RECONSTRUCTION_FILE: &str = "reconstruction-f16.png";
/// The fit's figures, in the run folder.
pub const METRICS_FILE: &str = train::outcome::METRICS_FILE;

/// The network of a fit when none is asked for, photo or line art: the hash grid. Measured on
/// 2 shared cores (default steps, seed 42), it fits line art to 45-49 dB in a few seconds
/// without the speckle of an under-trained fit (the bundled drawing at 200x200: 49.1 dB in 4 s;
/// the lion cub at 200x200: 45.4 dB; a 256x256 drawing of circles and lines: 46.2 dB), where
/// the SIREN's 300 to 400 steps took 45 to 220 s for 28 to 32 dB with speckle in the
/// drawing's flat areas. Drawn 4x larger, neither network adds detail (bicubic upscaling of
/// the picture scores as well); the SIREN stays a choice (`ImageArch::Siren`).
pub const DEFAULT_ARCH: ImageArch = ImageArch::HashGrid;

/// The default hidden layers of an architecture: two of 64 for the hash grid (the tables
/// do most of the work), three of 128 for the coordinate networks.
pub fn default_hidden(arch: ImageArch) -> Vec<usize> {
    match arch {
        ImageArch::HashGrid => vec![64, 64],
        _ => vec![128, 128, 128],
    }
}

/// The training defaults of `arch` on a picture of `pixels` pixels: the hash grid at 1e-2
/// for 100 steps up to 256 x 256 pixels, the others at 1e-3 for 300 steps up to 200 x 200,
/// growing with the square root of the pixel count (the side) beyond, in multiples of 50,
/// at most [`IMAGE_MAX_STEPS`]; cosine decay.
pub fn training(arch: ImageArch, pixels: usize) -> Defaults {
    match arch {
        ImageArch::HashGrid => scaled(
            pixels,
            HASH_GRID_BASE_STEPS,
            HASH_GRID_BASE_PIXELS,
            HASH_GRID_LR,
        ),
        _ => scaled(pixels, IMAGE_BASE_STEPS, IMAGE_BASE_PIXELS, COORDINATE_LR),
    }
}

/// The training defaults of a hash-grid fit within a size budget on a picture of `pixels`
/// pixels: [`BUDGET_BASE_STEPS`] up to 256 x 256 pixels, growing with the side beyond as
/// [`training`]'s, at most [`BUDGET_MAX_STEPS`], at the hash grid's learning rate (the batch
/// is [`BUDGET_BATCH`]).
pub fn budget_training(pixels: usize) -> Defaults {
    let steps = side_steps(pixels, BUDGET_BASE_STEPS, HASH_GRID_BASE_PIXELS);
    cosine(
        steps.clamp(BUDGET_BASE_STEPS, BUDGET_MAX_STEPS),
        HASH_GRID_LR,
    )
}

/// `base_steps` up to `base_pixels`, growing with the side beyond, at most
/// [`IMAGE_MAX_STEPS`].
fn scaled(pixels: usize, base_steps: u64, base_pixels: usize, lr: f32) -> Defaults {
    let steps = side_steps(pixels, base_steps, base_pixels);
    cosine(steps.clamp(base_steps, IMAGE_MAX_STEPS), lr)
}

/// `steps` at `lr` on a cosine schedule, the batch the plan's.
fn cosine(steps: u64, lr: f32) -> Defaults {
    Defaults {
        lr,
        length: TrainLength::Steps(steps),
        batch: None,
        schedule: Schedule::Cosine,
    }
}

/// `base_steps` up to `base_pixels`, growing with the side beyond, in multiples of 50.
fn side_steps(pixels: usize, base_steps: u64, base_pixels: usize) -> u64 {
    let ratio = (pixels as f64 / base_pixels as f64).max(1.0).sqrt();
    (base_steps as f64 * ratio / 50.0).round() as u64 * 50
}

#[cfg(test)]
mod tests {
    use super::*;

    fn steps(arch: ImageArch, pixels: usize) -> u64 {
        match training(arch, pixels).length {
            TrainLength::Steps(s) => s,
            TrainLength::Epochs(_) => unreachable!(),
        }
    }

    #[test]
    fn image_steps_follow_the_size() {
        let siren = |px| steps(ImageArch::Siren, px);
        assert_eq!(siren(48 * 48), 300);
        assert_eq!(siren(200 * 200), 300);
        assert_eq!(siren(400 * 400), 600);
        assert_eq!(siren(512 * 512), 750);
        assert_eq!(siren(8000 * 8000), IMAGE_MAX_STEPS);
        let grid = |px| steps(ImageArch::HashGrid, px);
        assert_eq!(grid(200 * 200), 100);
        assert_eq!(grid(256 * 256), 100);
        assert_eq!(grid(512 * 512), 200);
        assert_eq!(grid(2048 * 2048), 800);
        assert_eq!(grid(8192 * 8192), IMAGE_MAX_STEPS);
        assert_eq!(training(ImageArch::HashGrid, 1).lr, 1e-2);
        let budget = |px| match budget_training(px).length {
            TrainLength::Steps(s) => s,
            TrainLength::Epochs(_) => unreachable!(),
        };
        assert_eq!(budget(200 * 200), BUDGET_BASE_STEPS);
        assert_eq!(budget(640 * 427), 9400);
        assert_eq!(budget(30_000 * 30_000), BUDGET_MAX_STEPS);
        assert_eq!(training(ImageArch::Fourier, 1).lr, 1e-3);
    }

    #[test]
    fn every_picture_gets_the_hash_grid_and_its_layers() {
        assert_eq!(DEFAULT_ARCH, ImageArch::HashGrid);
        assert_eq!(default_hidden(ImageArch::HashGrid), vec![64, 64]);
        assert_eq!(default_hidden(ImageArch::Siren), vec![128; 3]);
    }
}
