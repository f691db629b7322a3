//! Learning-rate schedules against their closed forms.

use nn::LrSchedule;
use std::f64::consts::PI;

fn close(a: f32, b: f64) -> bool {
    (a as f64 - b).abs() <= 1e-7 * (1.0 + b.abs())
}

#[test]
fn constant() {
    let s = LrSchedule::constant(0.01);
    assert!([0, 1, 1000, u64::MAX].iter().all(|&t| s.lr(t) == 0.01));
}

#[test]
fn step_decay() {
    let s = LrSchedule::step_decay(0.1, 10, 0.5);
    for t in [0u64, 9, 10, 19, 20, 95] {
        assert!(
            close(s.lr(t), 0.1f32 as f64 * 0.5f64.powi((t / 10) as i32)),
            "{t}"
        );
    }
}

#[test]
fn cosine_annealing_matches_the_seed_formula() {
    let (lr_min, lr_max, period) = (1e-5f32, 1e-3f32, 100u64);
    let s = LrSchedule::cosine(lr_max, lr_min, period);
    for t in 0..=period {
        let want = lr_min as f64
            + (lr_max as f64 - lr_min as f64) * 0.5 * (1.0 + (PI * t as f64 / period as f64).cos());
        assert!(close(s.lr(t), want), "step {t}: {} vs {want}", s.lr(t));
    }
    assert!(close(s.lr(50), (lr_min as f64 + lr_max as f64) / 2.0));
    assert_eq!(
        s.lr(period + 500),
        lr_min,
        "stays at lr_min after the period"
    );
}

#[test]
fn cosine_warm_restarts() {
    let s = LrSchedule::cosine_restarts(1.0, 0.0, 10, 1);
    for t in 0..10 {
        assert_eq!(s.lr(t), s.lr(t + 10));
        assert_eq!(s.lr(t), s.lr(t + 30));
    }
    assert_eq!(s.lr(10), 1.0);
    // Growing cycles: 10, 20, 40 steps.
    let g = LrSchedule::cosine_restarts(1.0, 0.0, 10, 2);
    assert_eq!(g.lr(10), 1.0);
    assert_eq!(g.lr(30), 1.0);
    assert_eq!(g.lr(70), 1.0);
    assert!(
        close(g.lr(20), 0.5),
        "middle of the second cycle: {}",
        g.lr(20)
    );
    assert!(
        close(g.lr(50), 0.5),
        "middle of the third cycle: {}",
        g.lr(50)
    );
}

#[test]
fn linear_warm_up_then_cosine() {
    let s = LrSchedule::cosine(1e-3, 0.0, 100).with_warmup(10, 0.0);
    for t in 0..10u64 {
        assert!(close(s.lr(t), 1e-3f32 as f64 * t as f64 / 10.0), "{t}");
    }
    assert!(close(s.lr(10), 1e-3f32 as f64));
    assert!(close(s.lr(60), 0.5e-3f32 as f64));
    assert_eq!(s.lr(110), 0.0);
}

#[test]
fn schedules_serialise_and_validate() {
    let s = LrSchedule::cosine_restarts(1e-3, 1e-5, 50, 2).with_warmup(5, 1e-5);
    let json = serde_json::to_string(&s).unwrap();
    let back: LrSchedule = serde_json::from_str(&json).unwrap();
    assert_eq!(s, back);
    assert!(s.validate().is_ok());
    assert!(LrSchedule::cosine(1e-3, 0.0, 0).validate().is_err());
    assert!(LrSchedule::constant(f32::NAN).validate().is_err());
    assert!(LrSchedule::step_decay(0.1, 0, 0.5).validate().is_err());
}
