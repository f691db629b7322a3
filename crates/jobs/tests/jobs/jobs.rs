//! The jobs of the `iron-learn` tool as library calls: a function fit, XOR, predictions
//! from a fitted model, a render of a fitted image, and the run folder they write into.

use jobs::Error;
use jobs::approx::{ApproxOptions, FunctionFit, check_options, fit_function};
use jobs::image::{ImageFitOptions, RenderOptions, fit_image, render_image};
use jobs::predict::{PredictError, PredictOptions, Rows, predict};
use jobs::xor::{XorOptions, train_xor};
use nn::{HiddenLayers, TrainLength};
use std::path::Path;
use tensor_cpu::CpuBackend;
use train::run_dir::{RunFolder, fresh_folder};
use train::{Settings, Silent};

/// A function fit of `steps` full-batch steps, small network.
fn approx(function: &str, samples: usize, dir: &Path) -> ApproxOptions {
    ApproxOptions {
        samples,
        hidden: HiddenLayers(vec![16, 16]),
        settings: Settings {
            length: TrainLength::Steps(30),
            ..ApproxOptions::new(function, (-3.0, 3.0), dir).settings
        },
        ..ApproxOptions::new(function, (-3.0, 3.0), dir)
    }
}

/// Near a pole the values are left out and counted; every sample is used or counted; the
/// fit writes its table, chart and figures.
#[test]
fn a_function_with_a_pole_is_fitted_without_it() {
    let dir = tempfile::tempdir().unwrap();
    let options = approx("(x^2+x^3+x^4+x^6)/x^5", 600, dir.path());
    let fit = fit_function(&CpuBackend::new(), &options, &mut Silent).unwrap();
    let m = &fit.metrics;
    assert!(m.points_left_out > 0, "{m:?}");
    assert_eq!(m.points_used + m.points_left_out, 600);
    assert!(matches!(m.fit, FunctionFit::Values { .. }));
    for name in ["points.csv", "fit.png", "metrics.json", "loss.png"] {
        assert!(dir.path().join(name).is_file(), "{name}");
    }
    let csv = std::fs::read_to_string(dir.path().join("points.csv")).unwrap();
    assert_eq!(csv.lines().count(), 601, "a row per sample point");
    assert!(
        fit.fit_line()
            .starts_with("(x^2+x^3+x^4+x^6)/x^5 on [-3, 3]: MSE")
    );
}

/// The sign is learned as a classifier: with 601 samples the one at x = 0 (0/0) is the only
/// point left out.
#[test]
fn the_sign_of_a_function_is_classified() {
    let dir = tempfile::tempdir().unwrap();
    let options = ApproxOptions {
        classify: true,
        ..approx("(x^2+x^3+x^4+x^6)/x^5", 601, dir.path())
    };
    let fit = fit_function(&CpuBackend::new(), &options, &mut Silent).unwrap();
    assert_eq!(
        (fit.metrics.points_used, fit.metrics.points_left_out),
        (600, 1)
    );
    assert!(matches!(fit.metrics.fit, FunctionFit::Sign { .. }));
    assert!(fit.fit_line().starts_with("sign of"), "{}", fit.fit_line());
}

/// Unreadable functions, too few samples and empty ranges are refused before anything is
/// written.
#[test]
fn function_fits_refuse_what_they_cannot_do() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let check = |o: &ApproxOptions| check_options::<CpuBackend>(o).unwrap_err();
    assert!(matches!(
        check(&approx("sin(", 100, &out)),
        Error::Function(_)
    ));
    let few = check(&approx("x", 5, &out));
    assert!(
        matches!(
            few,
            Error::TooFewSamples {
                given: 5,
                least: 10
            }
        ),
        "{few}"
    );
    let empty = ApproxOptions {
        range: (1.0, 1.0),
        ..approx("x", 100, &out)
    };
    assert!(matches!(
        check(&empty),
        Error::Run(train::Error::Refused(_))
    ));
    assert!(!out.exists());
}

/// XOR is learned, and the model predicts its table; a model of two inputs takes no
/// points, and a one-input model no non-finite point.
#[test]
fn xor_is_learned_and_predicted() {
    let dir = tempfile::tempdir().unwrap();
    let cpu = CpuBackend::new();
    let xor = train_xor(&cpu, &XorOptions::new(dir.path()), &mut Silent).unwrap();
    assert!(xor.metrics.max_error < 0.3, "{:?}", xor.metrics);
    let targets: Vec<f32> = xor.rows().iter().map(|r| r.2).collect();
    assert_eq!(targets, [0.0, 1.0, 1.0, 0.0]);
    let points = PredictOptions::new(dir.path(), Rows::Points(vec![0.5]));
    let e = predict(&cpu, &points, &mut Silent).unwrap_err();
    assert!(
        matches!(e, PredictError::PointsNeedOneInput { count: 2, .. }),
        "{e}"
    );
}

/// Points of a fitted function are predicted in its units, into a file where asked; a NaN
/// and an output over the model are refused.
#[test]
fn points_of_a_fitted_function_are_predicted() {
    let dir = tempfile::tempdir().unwrap();
    let cpu = CpuBackend::new();
    fit_function(&cpu, &approx("x", 100, dir.path()), &mut Silent).unwrap();
    let points = PredictOptions::new(dir.path(), Rows::Points(vec![-1.0, 0.0, 2.0]));
    let answers = predict(&cpu, &points, &mut Silent).unwrap();
    assert_eq!(answers.rows, 3);
    let csv = String::from_utf8(answers.csv).unwrap();
    assert_eq!(csv.lines().count(), 4, "{csv}");
    assert!(csv.starts_with("x,"), "{csv}");
    let nan = PredictOptions::new(dir.path(), Rows::Points(vec![f32::NAN]));
    let e = predict(&cpu, &nan, &mut Silent).unwrap_err();
    assert!(matches!(e, PredictError::NotFinite(_)), "{e}");
    // An output file gets the answers; the model itself is refused as one.
    let file = dir.path().join("answers.csv");
    let written = PredictOptions {
        output: Some(file.clone()),
        ..points.clone()
    };
    predict(&cpu, &written, &mut Silent).unwrap();
    assert_eq!(std::fs::read_to_string(&file).unwrap(), csv);
    let model = dir.path().join("model.safetensors");
    let before = std::fs::read(&model).unwrap();
    let over_model = PredictOptions {
        output: Some(model.clone()),
        ..points
    };
    let e = predict(&cpu, &over_model, &mut Silent).unwrap_err();
    assert!(matches!(e, PredictError::Io(_)), "{e}");
    assert_eq!(
        std::fs::read(&model).unwrap(),
        before,
        "the model is untouched"
    );
}

/// A fitted image is drawn larger than it was fitted (an enlargement); a size out of range
/// and a checkpoint of another job are refused.
#[test]
fn a_fitted_image_is_rendered_at_another_size() {
    let dir = tempfile::tempdir().unwrap();
    let cpu = CpuBackend::new();
    let run = dir.path().join("fit");
    let fit = ImageFitOptions {
        size: Some(16),
        hidden: Some(HiddenLayers(vec![8])),
        training: train::TrainChoices {
            length: Some(TrainLength::Steps(3)),
            ..train::TrainChoices::default()
        },
        ..ImageFitOptions::new(None, &run)
    };
    fit_image(&cpu, &fit, &mut Silent).unwrap();
    let png = dir.path().join("big.png");
    let render = render_image(&cpu, &RenderOptions::new(&run, 40, &png), &mut Silent).unwrap();
    assert_eq!(render.width.max(render.height), 40);
    assert!(render.enlarged() && png.is_file());
    assert!(render.score_lines().is_empty());
    let zero = render_image(&cpu, &RenderOptions::new(&run, 0, &png), &mut Silent);
    assert!(matches!(zero, Err(Error::ImageOptionOutOfRange { .. })));
    let xor = dir.path().join("xor");
    train_xor(&cpu, &XorOptions::new(&xor), &mut Silent).unwrap();
    let other = render_image(&cpu, &RenderOptions::new(&xor, 8, &png), &mut Silent);
    let e = other.err().map(|e| e.to_string()).unwrap_or_default();
    assert!(e.contains("written by `xor`"), "{e}");
}

/// Fresh folders of runs started together never collide.
#[test]
fn default_folders_never_collide() {
    let parent = tempfile::tempdir().unwrap();
    let dirs: Vec<_> = (0..5)
        .map(|_| fresh_folder(parent.path(), "xor").unwrap())
        .collect();
    let mut names: Vec<_> = dirs.iter().map(|d| d.file_name().unwrap()).collect();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), 5, "{dirs:?}");
    assert!(dirs.iter().all(|d| d.is_dir()));
}

/// A folder holding a checkpoint is refused unless it is to be reused, and the refusal
/// leaves it unlocked; a failed run's folder that holds only its record is removed.
#[test]
fn run_folders_guard_their_checkpoints() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let folder = RunFolder::prepare(Some(&run), "xor", false).unwrap();
    std::fs::write(run.join(train::checkpoint::FILE_NAME), b"x").unwrap();
    folder.release(true);
    let e = RunFolder::prepare(Some(&run), "xor", false).unwrap_err();
    assert!(matches!(e, train::Error::FolderHoldsRun { .. }), "{e}");
    assert!(!run.join(train::lock::LOCK_FILE).exists());
    RunFolder::prepare(Some(&run), "xor", true)
        .unwrap()
        .release(true);
    let failed = dir.path().join("failed");
    let folder = RunFolder::prepare(Some(&failed), "xor", false).unwrap();
    std::fs::write(failed.join(train::record::FILE_NAME), b"{}").unwrap();
    folder.release(false);
    assert!(!failed.exists());
}
