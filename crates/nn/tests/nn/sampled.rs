//! Training on batches made per step: the pixel sampler's batches, equivalence with
//! full-batch training on a small image, bit-identical resume with random batches, the same
//! result for any thread count, area supervision and bad input.

use crate::common::*;
use nn::prelude::*;
use nn::{BatchSource, HashGridMlp, HashGridMlpConfig, PixelSampler, PixelValues};
use tensor_cpu::CpuBackend;

/// A `w x h` image with `c` channels of 8-bit values.
fn image(w: usize, h: usize, c: usize) -> Vec<f32> {
    (0..w * h * c)
        .map(|i| ((i * 37 + 11) % 256) as f32 / 255.0)
        .collect()
}

fn batch(
    s: &mut PixelSampler,
    step: u64,
    rows: usize,
    pool: usize,
    c: usize,
) -> (Vec<f32>, Vec<f32>) {
    let cpu = CpuBackend::new();
    let mut x = T::zeros(&cpu, [rows * pool, 2]).unwrap();
    let mut y = T::zeros(&cpu, [rows, c]).unwrap();
    BatchSource::<CpuBackend>::fill(s, step, &mut x, &mut y).unwrap();
    (x.to_vec().unwrap(), y.to_vec().unwrap())
}

#[test]
fn a_small_image_is_used_whole_and_in_order() {
    let (w, h, c) = (4, 3, 3);
    let img = image(w, h, c);
    let values = PixelValues::compact(&img);
    assert!(matches!(values, PixelValues::U8(_)));
    let mut s = PixelSampler::new(w, h, c, values, 100, 1)
        .unwrap()
        .with_offset(&[0.5, 0.25, 0.0])
        .unwrap();
    assert!(s.whole_image() && BatchSource::<CpuBackend>::is_fixed(&s));
    let (x, y) = batch(&mut s, 5, w * h, 1, c);
    let expected_x: Vec<f32> = (0..h)
        .flat_map(|r| {
            // The exact coordinates, rounded once to f32.
            (0..w).flat_map(move |q| [(-1.0 + 2.0 * q as f64 / 3.0) as f32, -1.0 + r as f32])
        })
        .collect();
    assert_eq!(x, expected_x);
    for (i, v) in y.iter().enumerate() {
        let want = img[i] - [0.5, 0.25, 0.0][i % 3];
        assert!((v - want).abs() < 1e-6, "{v} vs {want}");
    }
}

#[test]
fn random_batches_depend_on_the_step_and_match_the_image() {
    let (w, h) = (13, 7);
    let img: Vec<f32> = (0..w * h).map(|i| i as f32 * 0.01 + 0.001).collect();
    let values = PixelValues::compact(&img);
    assert!(matches!(values, PixelValues::F32(_)), "not 8-bit values");
    let mut s = PixelSampler::new(w, h, 1, values, 32, 9).unwrap();
    assert_eq!(BatchSource::<CpuBackend>::steps_per_epoch(&s), 3);
    let (x0, y0) = batch(&mut s, 0, 32, 1, 1);
    let (x1, _) = batch(&mut s, 1, 32, 1, 1);
    assert_eq!(
        batch(&mut s, 0, 32, 1, 1).0,
        x0,
        "the same step, the same batch"
    );
    assert_ne!(x0, x1);
    for (p, v) in x0.chunks(2).zip(&y0) {
        let col = ((p[0] + 1.0) / 2.0 * (w - 1) as f32).round() as usize;
        let row = ((p[1] + 1.0) / 2.0 * (h - 1) as f32).round() as usize;
        assert_eq!(*v, img[row * w + col]);
    }
}

#[test]
fn supersampled_batches_spread_samples_inside_each_pixel() {
    let (w, h) = (5, 5);
    let mut s = PixelSampler::new(w, h, 1, PixelValues::compact(&image(w, h, 1)), 3, 2)
        .unwrap()
        .with_supersample(2)
        .unwrap();
    let (x, _) = batch(&mut s, 0, 3, 4, 1);
    let pitch = 2.0 / (w - 1) as f32;
    for group in x.chunks(8) {
        let (cx, cy) = (
            group.iter().step_by(2).sum::<f32>() / 4.0,
            group.iter().skip(1).step_by(2).sum::<f32>() / 4.0,
        );
        // The centre is a pixel centre, the samples a quarter pitch away from it.
        let k = (cx + 1.0) / pitch;
        assert!((k - k.round()).abs() < 1e-4, "centre {cx}");
        for p in group.chunks(2) {
            assert!(((p[0] - cx).abs() - pitch / 4.0).abs() < 1e-5);
            assert!(((p[1] - cy).abs() - pitch / 4.0).abs() < 1e-5);
        }
    }
}

fn small_grid() -> HashGridMlpConfig {
    HashGridMlpConfig {
        levels: 4,
        log2_table_size: 10,
        base_resolution: 4,
        hidden: vec![16],
        ..HashGridMlpConfig::new(3, 24)
    }
}

fn trainer(total: u64) -> Trainer {
    Trainer::new(quiet(TrainerConfig {
        length: TrainLength::Steps(total),
        log_every: 3,
        callback_every: 1,
        ..TrainerConfig::default()
    }))
    .unwrap()
}

#[test]
fn a_whole_image_trains_exactly_like_full_batch_tensors() {
    let cpu = CpuBackend::new();
    let (w, h, c) = (9, 8, 3);
    let img = image(w, h, c);
    let grid: Vec<f32> = (0..h)
        .flat_map(|r| {
            (0..w).flat_map(move |q| [nn::train::pixel_coord(q, w), nn::train::pixel_coord(r, h)])
        })
        .collect();
    let x = tensor(&cpu, &grid, w * h, 2);
    let y = tensor(&cpu, &img, w * h, c);
    let adam = || Adam::new(AdamConfig::hash_grid(1e-2)).unwrap();
    let mut a = HashGridMlp::from_config(&cpu, &small_grid(), 3).unwrap();
    trainer(6)
        .fit(&mut a, &mut adam(), Data::new(&x, &y), None)
        .unwrap();
    let mut b = HashGridMlp::from_config(&cpu, &small_grid(), 3).unwrap();
    let mut s = PixelSampler::new(w, h, c, PixelValues::compact(&img), 1 << 16, 0).unwrap();
    trainer(6).fit(&mut b, &mut adam(), &mut s, None).unwrap();
    assert_eq!(flat_params(&a), flat_params(&b));
}

/// Training does not depend on the thread count: the encoding's backward splits its work
/// by level (no float atomics) and every other operation by rows, so 1, 2 and 3 threads give
/// the same parameters, bit for bit.
#[test]
fn hash_grid_training_is_the_same_for_any_thread_count() {
    let (w, h, c) = (96, 80, 3);
    let img = image(w, h, c);
    let config = HashGridMlpConfig {
        levels: 6,
        log2_table_size: 12,
        base_resolution: 4,
        hidden: vec![32, 32],
        ..HashGridMlpConfig::new(c, 96)
    };
    let train = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let cpu = CpuBackend::new();
            let mut m = HashGridMlp::from_config(&cpu, &config, 5).unwrap();
            let mut adam = Adam::new(AdamConfig::hash_grid(1e-2)).unwrap();
            let mut s = PixelSampler::new(w, h, c, PixelValues::compact(&img), 4096, 9).unwrap();
            trainer(8).fit(&mut m, &mut adam, &mut s, None).unwrap();
            flat_params(&m)
        })
    };
    let one = train(1);
    assert!(one.iter().all(|v| v.is_finite()));
    assert_eq!(one, train(2), "2 threads");
    assert_eq!(one, train(3), "3 threads");
}

#[test]
fn sampled_training_resumes_bit_identically() {
    let cpu = CpuBackend::new();
    let (w, h, c) = (20, 15, 3);
    let img = image(w, h, c);
    let sampler = || PixelSampler::new(w, h, c, PixelValues::compact(&img), 64, 4).unwrap();
    let adam = || Adam::new(AdamConfig::hash_grid(1e-2)).unwrap();
    let mut a = HashGridMlp::from_config(&cpu, &small_grid(), 1).unwrap();
    let report = trainer(10)
        .fit(&mut a, &mut adam(), &mut sampler(), None)
        .unwrap();
    assert_eq!(
        report.epochs, 2,
        "5 steps of 64 pixels make an epoch of 300"
    );

    let mut m = HashGridMlp::from_config(&cpu, &small_grid(), 1).unwrap();
    let mut opt = adam();
    let mut t = trainer(10);
    let mut saved = None;
    t.fit_with(&mut m, &mut opt, &mut sampler(), None, |e, m, o, st| {
        if matches!(e, TrainEvent::Step { step: 4, .. }) {
            saved = Some((m.export_state()?, o.export_state()?, st.clone()));
            return Ok(Control::Stop);
        }
        Ok(Control::Continue)
    })
    .unwrap();
    let (ms, os, ts) = saved.expect("stopped at step 4");
    let mut m = HashGridMlp::from_config(&cpu, &small_grid(), 77).unwrap();
    m.import_state(&ms).unwrap();
    let mut opt = adam();
    opt.import_state(&m, &os).unwrap();
    let mut t = Trainer::new(t.config().clone()).unwrap();
    t.import_state(ts);
    t.fit(&mut m, &mut opt, &mut sampler(), None).unwrap();
    assert_eq!(flat_params(&a), flat_params(&m));
}

#[test]
fn sampled_training_with_area_supervision_learns() {
    let cpu = CpuBackend::new();
    let n = 24;
    let img = rings(n);
    let mut s = PixelSampler::new(n, n, 1, PixelValues::compact(&img), 256, 3)
        .unwrap()
        .with_supersample(2)
        .unwrap();
    let config = HashGridMlpConfig {
        output_activation: Activation::Sigmoid,
        ..HashGridMlpConfig::new(1, 48)
    };
    let mut m = HashGridMlp::from_config(&cpu, &config, 2).unwrap();
    let x = tensor(&cpu, &grid(n), n * n, 2);
    let y = tensor(&cpu, &img, n * n, 1);
    let before = Loss::Mse.value(&m.predict(&x).unwrap(), &y).unwrap();
    let mut t = Trainer::new(quiet(TrainerConfig {
        length: TrainLength::Steps(150),
        pool: 4,
        ..TrainerConfig::default()
    }))
    .unwrap();
    t.fit(
        &mut m,
        &mut Adam::new(AdamConfig::hash_grid(1e-2)).unwrap(),
        &mut s,
        None,
    )
    .unwrap();
    let after = Loss::Mse.value(&m.predict(&x).unwrap(), &y).unwrap();
    assert!(after < before / 10.0, "mse {before} -> {after}");
}

#[test]
fn bad_samplers_are_refused() {
    let cpu = CpuBackend::new();
    assert!(PixelSampler::new(3, 3, 1, PixelValues::F32(vec![0.0; 8]), 4, 0).is_err());
    assert!(PixelSampler::new(0, 3, 1, PixelValues::F32(vec![]), 4, 0).is_err());
    assert!(PixelSampler::new(3, 3, 1, PixelValues::F32(vec![0.0; 9]), 0, 0).is_err());
    let s = PixelSampler::new(3, 3, 1, PixelValues::F32(vec![0.0; 9]), 4, 0).unwrap();
    assert!(s.with_supersample(0).is_err());
    // A sampler of 1 channel for a model of 3 outputs.
    let mut s = PixelSampler::new(3, 3, 1, PixelValues::F32(vec![0.0; 9]), 4, 0).unwrap();
    let mut m = HashGridMlp::from_config(&cpu, &small_grid(), 0).unwrap();
    let err = trainer(2)
        .fit(
            &mut m,
            &mut Adam::new(AdamConfig::new(1e-3)).unwrap(),
            &mut s,
            None,
        )
        .unwrap_err();
    assert!(err.to_string().contains("targets"), "{err}");
}
