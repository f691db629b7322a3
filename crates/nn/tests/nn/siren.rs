//! SIREN against a ReLU network of the same size on a small black-and-white drawing.

use crate::common::*;
use nn::prelude::*;
use tensor_cpu::CpuBackend;

fn fit(hidden: Activation, n: usize, width: usize, steps: u64, lr: f32) -> (f64, f64) {
    let cpu = CpuBackend::new();
    let target = rings(n);
    let x = tensor(&cpu, &grid(n), n * n, 2);
    let y = tensor(&cpu, &target, n * n, 1);
    let mut model = Mlp::builder()
        .input(2)
        .hidden(&[width; 3], hidden)
        .output(1, Activation::Identity)
        .build(&cpu, 1)
        .unwrap();
    let mut adam = Adam::new(AdamConfig::new(lr)).unwrap();
    let mut trainer = Trainer::new(quiet(TrainerConfig {
        length: TrainLength::Steps(steps),
        eval_every: steps,
        ..TrainerConfig::default()
    }))
    .unwrap();
    trainer
        .fit(&mut model, &mut adam, Data::new(&x, &y), None)
        .unwrap();
    let pred = model.predict(&x).unwrap().to_vec().unwrap();
    (psnr(&pred, &target), ink_iou(&pred, &target))
}

#[test]
fn siren_fits_a_drawing_far_better_than_relu() {
    // 64 x 64 pixels, 3 x 64 hidden, 300 steps in release mode (about 2 s); a smaller
    // problem in unoptimised builds, where the GEMMs are some 100 times slower.
    let (n, width, steps) = if cfg!(debug_assertions) {
        (40, 32, 200)
    } else {
        (64, 64, 300)
    };
    let ink = rings(n).iter().filter(|&&v| v > 0.5).count();
    assert!(ink > n * n / 10 && ink < n * n / 2, "ink pixels {ink}");
    let (siren_psnr, siren_iou) = fit(Activation::Sine { w0: 30.0 }, n, width, steps, 1e-3);
    let (relu_psnr, relu_iou) = fit(Activation::Relu, n, width, steps, 1e-3);
    eprintln!(
        "{n}x{n}, 3x{width}, {steps} steps: SIREN: PSNR {siren_psnr:.1} dB, ink IoU {siren_iou:.3}; \
         ReLU: PSNR {relu_psnr:.1} dB, ink IoU {relu_iou:.3}"
    );
    assert!(siren_iou > 0.9, "SIREN ink IoU {siren_iou}");
    assert!(siren_psnr > relu_psnr + 10.0, "{siren_psnr} vs {relu_psnr}");
    assert!(siren_iou > relu_iou + 0.3, "{siren_iou} vs {relu_iou}");
}

/// The builder's SIREN recipe: sine layers of frequency `SIREN_W0` with the SIREN
/// initialisation.
#[test]
fn the_siren_recipe_is_sine_layers_with_their_initialisation() {
    let config = Mlp::<CpuBackend>::builder()
        .input(2)
        .siren(&[16, 16])
        .output(1, Activation::Identity)
        .config(3)
        .unwrap();
    assert_eq!(config.hidden, vec![16, 16]);
    assert_eq!(
        config.hidden_activation,
        Activation::Sine { w0: nn::SIREN_W0 }
    );
    assert_eq!(config.init, nn::Init::Siren);
}
