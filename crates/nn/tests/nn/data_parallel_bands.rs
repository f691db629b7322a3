//! Data-parallel training of an image whose processes each hold a band of its rows: the
//! pixels each band makes of a batch are the batch's pixels in its rows, and the processes
//! train the model one process trains on the whole image.

use crate::common::*;
use crate::group::{Group, Member};
use nn::prelude::*;
use nn::{BatchSource, Holding, PixelSampler, PixelValues, Replicas};
use std::sync::Arc;
use tensor_cpu::CpuBackend;

/// A 13 x 11 image of 3 channels of 8-bit values.
const SIZE: (usize, usize, usize) = (13, 11, 3);

fn image() -> Vec<f32> {
    let (w, h, c) = SIZE;
    (0..w * h * c)
        .map(|i| ((i * 37 + 11) % 256) as f32 / 255.0)
        .collect()
}

/// The values of rows `rows` of the image.
fn band_values(rows: std::ops::Range<usize>) -> PixelValues {
    let (w, _, c) = SIZE;
    PixelValues::compact(&image()[rows.start * w * c..rows.end * w * c])
}

/// The inputs and targets a source makes for step `step`, with `rows` rows.
fn made(s: &mut PixelSampler, step: u64, rows: usize) -> (Vec<f32>, Vec<f32>) {
    let cpu = CpuBackend::new();
    let mut x = T::zeros(&cpu, [rows, 2]).unwrap();
    let mut y = T::zeros(&cpu, [rows, SIZE.2]).unwrap();
    s.fill(step, &mut x, &mut y).unwrap();
    (x.to_vec().unwrap(), y.to_vec().unwrap())
}

#[test]
fn bands_make_the_pixels_of_each_batch_in_their_rows() {
    let (w, h, c) = SIZE;
    let mut whole = PixelSampler::new(w, h, c, PixelValues::compact(&image()), 40, 9).unwrap();
    let cuts = [0, 4, 5, 11];
    let mut bands: Vec<PixelSampler> = cuts
        .windows(2)
        .map(|r| PixelSampler::band(SIZE, r[0]..r[1], band_values(r[0]..r[1]), 40, 9).unwrap())
        .collect();
    for step in [0, 7] {
        let (x, y) = made(&mut whole, step, 40);
        let (mut bx, mut by) = (Vec::new(), Vec::new());
        for (b, rows) in bands.iter_mut().zip(cuts.windows(2)) {
            let n = BatchSource::<CpuBackend>::part_rows(b, step).unwrap();
            let (px, py) = made(b, step, n);
            // Every pixel made lies in the band's rows.
            let (lo, hi) = (
                nn::train::pixel_coord(rows[0], h),
                nn::train::pixel_coord(rows[1] - 1, h),
            );
            assert!(px.chunks(2).all(|p| (lo..=hi).contains(&p[1])));
            bx.extend(px);
            by.extend(py);
        }
        // The bands' pixels are the batch's, each once.
        let key = |x: &[f32], y: &[f32]| {
            let mut k: Vec<_> = x
                .chunks(2)
                .zip(y.chunks(c))
                .map(|(p, v)| format!("{p:?}{v:?}"))
                .collect();
            k.sort();
            k
        };
        assert_eq!(key(&bx, &by), key(&x, &y), "step {step}");
    }
}

#[test]
fn a_band_outside_the_image_or_of_the_wrong_size_is_refused() {
    let e = PixelSampler::band(SIZE, 9..12, band_values(9..11), 8, 1)
        .err()
        .unwrap();
    assert!(
        e.to_string().contains("not a band of an image of 11 rows"),
        "{e}"
    );
    let e = PixelSampler::band(SIZE, 2..5, band_values(2..4), 8, 1)
        .err()
        .unwrap();
    assert!(e.to_string().contains("needs 117 values, got 78"), "{e}");
    let band = PixelSampler::band(SIZE, 2..5, band_values(2..5), 8, 1).unwrap();
    let e = band.making_part(1..4).err().unwrap();
    assert!(e.to_string().contains("not a band of the 2..5"), "{e}");
}

/// Trains a small network on the image for 30 steps of `batch` pixels: alone on the whole
/// image, or as process `member` holding the band `rows`.
fn fit(batch: usize, member: Option<(Arc<dyn Replicas>, std::ops::Range<usize>)>) -> Vec<f32> {
    let cpu = CpuBackend::new();
    let (w, h, c) = SIZE;
    let mut model = Mlp::builder()
        .input(2)
        .hidden(&[16], Activation::Tanh)
        .output(c, Activation::Identity)
        .build(&cpu, 4)
        .unwrap();
    let mut opt = Adam::new(AdamConfig::adamw(1e-2, 0.0)).unwrap();
    let mut trainer = Trainer::new(quiet(TrainerConfig {
        length: TrainLength::Steps(30),
        seed: 3,
        ..TrainerConfig::default()
    }))
    .unwrap();
    let whole = || PixelSampler::new(w, h, c, PixelValues::compact(&image()), batch, 5);
    // The first process holds the whole image and makes its band's part, as rank 0 of an
    // image fit does; the others hold their bands.
    let mut source = match &member {
        Some((_, rows)) if rows.start == 0 => whole().unwrap().making_part(rows.clone()),
        Some((_, rows)) => {
            PixelSampler::band(SIZE, rows.clone(), band_values(rows.clone()), batch, 5)
        }
        None => whole(),
    }
    .unwrap()
    .with_offset(&[0.5, 0.4, 0.3])
    .unwrap();
    if let Some((r, _)) = member {
        trainer.set_replicas(r, Holding::Part);
    }
    trainer
        .fit(&mut model, &mut opt, &mut source, None)
        .unwrap();
    flat_params(&model)
}

#[test]
fn processes_holding_bands_train_the_one_process_model() {
    // Random batches of 24 pixels (some steps miss the band of one row), and the whole
    // image at every step.
    for batch in [24, 13 * 11] {
        let one = fit(batch, None);
        let cuts = [0, 1, 6, 11];
        let group = Group::new(3, false);
        let threads: Vec<_> = (0..3)
            .map(|rank| {
                let member: Arc<dyn Replicas> = Arc::new(Member {
                    rank,
                    group: group.clone(),
                });
                let rows = cuts[rank]..cuts[rank + 1];
                std::thread::spawn(move || fit(batch, Some((member, rows))))
            })
            .collect();
        for (rank, t) in threads.into_iter().enumerate() {
            let params = t.join().unwrap();
            let worst = one
                .iter()
                .zip(&params)
                .map(|(a, b)| (a - b).abs() / a.abs().max(1e-2))
                .fold(0.0f32, f32::max);
            assert!(
                worst < 1e-4,
                "batch {batch}, rank {rank}: differs by {worst}"
            );
        }
        let again = fit(batch, None);
        assert_eq!(one, again, "training is deterministic");
    }
}

#[test]
fn a_band_sampler_needs_processes_holding_parts() {
    let group = Group::new(2, false);
    let member: Arc<dyn Replicas> = Arc::new(Member { rank: 0, group });
    let cpu = CpuBackend::new();
    let mut model = Mlp::builder()
        .input(2)
        .hidden(&[4], Activation::Tanh)
        .output(SIZE.2, Activation::Identity)
        .build(&cpu, 4)
        .unwrap();
    let mut opt = Adam::new(AdamConfig::adamw(1e-2, 0.0)).unwrap();
    let mut trainer = Trainer::new(quiet(TrainerConfig::default())).unwrap();
    trainer.set_replicas(member, Holding::Whole);
    let mut source = PixelSampler::band(SIZE, 0..5, band_values(0..5), 16, 1).unwrap();
    let e = trainer
        .fit(&mut model, &mut opt, &mut source, None)
        .unwrap_err()
        .to_string();
    assert!(e.contains("each process holds the whole data"), "{e}");
}
