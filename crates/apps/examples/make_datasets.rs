//! Writes the bundled tabular datasets under `data/` (run from the project root):
//! `cargo run -p iron-learn --example make_datasets`.
//!
//! - `regression.csv`: y = 3 x1 - 2 x2 + 0.5 x3 + 4 + noise (sd 0.1); x4 is irrelevant.
//! - `classification.csv`: label 1 when 1.5 x1 - x2 + 0.5 x3 + 0.2 > noise (sd 0.3):
//!   nearly linearly separable, for logistic regression.
//! - `circles.csv`: label 1 inside a ring 0.5 < r < 1 of the plane: not linearly separable,
//!   for `mlp --task classification`.

use std::fmt::Write as _;
use tensor_core::rand::{Rng, SeedableRng};
use tensor_core::rand_chacha::ChaCha8Rng;

fn normal(rng: &mut ChaCha8Rng) -> f64 {
    // Box-Muller from two uniforms in (0, 1].
    let u1: f64 = 1.0 - rng.random::<f64>();
    let u2: f64 = rng.random::<f64>();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

fn write(path: &str, text: &str) {
    std::fs::write(path, text).unwrap_or_else(|e| panic!("cannot write {path}: {e}"));
    println!("wrote {path}");
}

fn main() {
    let mut rng = ChaCha8Rng::seed_from_u64(2026);
    let mut csv = String::from("x1,x2,x3,x4,y\n");
    for _ in 0..500 {
        let x: Vec<f64> = (0..4).map(|_| rng.random_range(-2.0..2.0)).collect();
        let y = 3.0 * x[0] - 2.0 * x[1] + 0.5 * x[2] + 4.0 + 0.1 * normal(&mut rng);
        writeln!(
            csv,
            "{:.5},{:.5},{:.5},{:.5},{:.5}",
            x[0], x[1], x[2], x[3], y
        )
        .unwrap();
    }
    write("data/regression.csv", &csv);

    let mut csv = String::from("x1,x2,x3,label\n");
    for _ in 0..600 {
        let x: Vec<f64> = (0..3).map(|_| rng.random_range(-2.0..2.0)).collect();
        let score = 1.5 * x[0] - x[1] + 0.5 * x[2] + 0.2 + 0.3 * normal(&mut rng);
        let label = u8::from(score > 0.0);
        writeln!(csv, "{:.5},{:.5},{:.5},{label}", x[0], x[1], x[2]).unwrap();
    }
    write("data/classification.csv", &csv);

    let mut csv = String::from("x,y,label\n");
    for _ in 0..800 {
        let (a, b): (f64, f64) = (rng.random_range(-1.5..1.5), rng.random_range(-1.5..1.5));
        let r = (a * a + b * b).sqrt();
        let label = u8::from(r > 0.5 && r < 1.0);
        writeln!(csv, "{a:.5},{b:.5},{label}").unwrap();
    }
    write("data/circles.csv", &csv);
}
