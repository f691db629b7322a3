//! The image fit within a size budget: the network it chooses stays within the budget on
//! pictures of every size, bad budgets are refused in their own terms, and the fit stores
//! its model in float16, scored from the stored values.

use jobs::image::budget::{
    BUDGET_LOG2_TABLES, BUDGET_MAX_PRODUCT, BUDGET_MIN_WIDE, MAX_BUDGET_LEVELS,
    MAX_PARAMS_PER_PIXEL,
};
use jobs::image::{GridOptions, ImageArch, ImageFitOptions, ImageOption, SizeBudget, fit_image};
use std::path::Path;
use tensor_cpu::CpuBackend;
use train::Silent;

/// A photo-like colour picture of `w x h`: smooth gradients and a few sharp edges.
fn write_photo(dir: &Path, w: usize, h: usize) -> std::path::PathBuf {
    let pixels: Vec<u8> = (0..w * h * 3)
        .map(|i| {
            let (p, ch) = (i / 3, i % 3);
            let (x, y) = (p % w, p / w);
            let edge = if (x / 7 + y / 5) % 3 == 0 { 40 } else { 0 };
            ((x * 150 / w + y * 50 / h + ch * 10 + edge) % 256) as u8
        })
        .collect();
    let path = dir.join("photo.png");
    std::fs::write(&path, io::image::encode_png(&pixels, w, h, 3).unwrap()).unwrap();
    path
}

/// On pictures small and large, wide and tall, the budget's network never takes more
/// parameters than the budget allows, and uses most of it (up to the largest grid a budget
/// gives: 16 levels of 2^22 entries).
#[test]
fn the_chosen_network_stays_within_the_budget() {
    let grid = GridOptions::DEFAULT;
    for (w, h) in [
        (640, 427),
        (256, 256),
        (200, 300),
        (1920, 1080),
        (4000, 3000),
    ] {
        for ppp in [0.5, 1.0, 2.0, 8.0] {
            let budget = SizeBudget::new(ppp).unwrap();
            let config = budget.network(&grid, (w, h, 3)).unwrap();
            let params = config.num_params().unwrap();
            let most = (ppp * (w * h) as f64) as usize;
            assert!(params <= most, "{w}x{h} at {ppp}: {params} > {most}");
            let largest = config.levels == MAX_BUDGET_LEVELS
                && config.log2_table_size == *BUDGET_LOG2_TABLES.end();
            assert!(
                params * 2 > most || largest,
                "{w}x{h} at {ppp}: only {params} of {most}"
            );
        }
    }
}

/// A budget beyond what the picture's largest grid takes is said to be: a 640x427 photo's
/// largest grid takes about 15.5 parameters a pixel, not 64.
#[test]
fn a_budget_beyond_the_largest_grid_is_noted() {
    let budget = SizeBudget::new(64.0).unwrap();
    let config = budget
        .network(&GridOptions::DEFAULT, (640, 427, 3))
        .unwrap();
    let ppp = config.num_params().unwrap() as f64 / (640.0 * 427.0);
    assert!(ppp < 20.0, "{ppp}");
    let note = budget.shortfall_note(ppp).expect("a shortfall");
    assert!(note.contains("less than the budget of 64"), "{note}");
    let one = SizeBudget::new(1.0).unwrap();
    let config = one.network(&GridOptions::DEFAULT, (640, 427, 3)).unwrap();
    let ppp = config.num_params().unwrap() as f64 / (640.0 * 427.0);
    assert_eq!(one.shortfall_note(ppp), None, "{ppp}");
}

/// Budgets that are not a positive number up to the most accepted are refused as out of
/// range, and one too small for any network says what the smallest takes.
#[test]
fn bad_budgets_are_refused_in_one_line() {
    for bad in [
        0.0,
        -1.0,
        f64::NAN,
        f64::INFINITY,
        MAX_PARAMS_PER_PIXEL * 2.0,
    ] {
        let e = SizeBudget::new(bad).unwrap_err();
        assert!(
            matches!(&e, jobs::Error::ImageOptionOutOfRange { option, .. } if *option == ImageOption::Budget),
            "{e}"
        );
        assert!(!e.to_string().contains('\n'), "{e}");
    }
    let tiny = SizeBudget::new(1.0).unwrap();
    let e = tiny
        .network(&GridOptions::DEFAULT, (16, 16, 3))
        .unwrap_err();
    match &e {
        jobs::Error::BudgetTooSmall {
            budget, smallest, ..
        } => assert!(budget < smallest && *budget == 256, "{e}"),
        other => panic!("{other}"),
    }
    let one = tiny.network(&GridOptions::DEFAULT, (1, 1, 3)).unwrap_err();
    assert!(
        one.to_string()
            .starts_with("a budget of 1 parameter for 1 pixel holds"),
        "{one}"
    );
    // A coarsest level at or above the finest leaves no levels to spread: refused, where
    // the fit would be hash noise.
    for (base, finest) in [(300, None), (201, None), (64, Some(64))] {
        let grid = GridOptions {
            base_resolution: base,
            finest_resolution: finest,
            ..GridOptions::DEFAULT
        };
        let e = tiny.network(&grid, (201, 201, 3)).unwrap_err();
        assert!(
            matches!(e, jobs::Error::BudgetGridFlat { coarsest, .. } if coarsest == base),
            "{e}"
        );
    }
    let grid = GridOptions {
        base_resolution: 100,
        ..GridOptions::DEFAULT
    };
    assert!(tiny.network(&grid, (201, 201, 3)).is_ok());
    let tmp = tempfile::tempdir().unwrap();
    let options = ImageFitOptions {
        arch: Some(ImageArch::Siren),
        budget: Some(SizeBudget::new(1.0).unwrap()),
        ..ImageFitOptions::new(Some(write_photo(tmp.path(), 64, 64)), tmp.path().join("r"))
    };
    let e = fit_image(&CpuBackend::new(), &options, &mut Silent)
        .err()
        .unwrap();
    assert!(matches!(e, jobs::Error::BudgetArch("siren")), "{e}");
}

/// A fit within a budget writes its model in float16, about half the bytes of float32 and
/// fewer than the raw pixels; the stored model, read back, draws within 0.1 dB of the
/// trained one, and its values are the trained ones rounded to float16.
#[test]
fn a_budget_fit_stores_its_model_in_float16() {
    let tmp = tempfile::tempdir().unwrap();
    let photo = write_photo(tmp.path(), 96, 80);
    let dir = tmp.path().join("run");
    let options = ImageFitOptions {
        budget: Some(SizeBudget::new(1.0).unwrap()),
        training: train::TrainChoices {
            length: Some(nn::TrainLength::Steps(60)),
            ..train::TrainChoices::default()
        },
        ..ImageFitOptions::new(Some(photo), &dir)
    };
    let cpu = CpuBackend::new();
    let fit = fit_image(&cpu, &options, &mut Silent).unwrap();
    let m = &fit.metrics;
    assert!(
        m.params_per_pixel <= 1.0 && m.params_per_pixel > 0.5,
        "{m:?}"
    );
    let stored = m.stored.as_ref().unwrap();
    assert!(stored.bytes_per_pixel < 3.0, "{stored:?}");
    assert!(
        (stored.psnr - m.scores.psnr).abs() < 0.1,
        "{stored:?} vs {m:?}"
    );
    let line = fit.line();
    assert!(
        line.contains("params/pixel") && line.contains("float16"),
        "{line}"
    );
    let file = dir.join("model-f16.safetensors");
    assert_eq!(std::fs::metadata(&file).unwrap().len(), stored.bytes);
    assert!(dir.join("reconstruction-f16.png").is_file());
    let full = dir.join("full.safetensors");
    fit.model.save(&full).unwrap();
    let ratio = stored.bytes as f64 / std::fs::metadata(&full).unwrap().len() as f64;
    assert!(ratio < 0.6, "{ratio}");
    let back = io::FittedModel::load(&file, &cpu).unwrap();
    let trained = fit.model.network().export_state().unwrap();
    for (a, b) in trained.iter().zip(back.network().export_state().unwrap()) {
        assert_eq!(a.name, b.name);
        let rounded: Vec<f32> = a
            .data
            .iter()
            .map(|&v| half::f16::from_f32(v).to_f32())
            .collect();
        assert_eq!(rounded, b.data, "{}", a.name);
    }
    let record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("metrics.json")).unwrap()).unwrap();
    assert_eq!(record["stored"]["bytes"], stored.bytes);
}

/// What the tables leave is spent on one wide hidden layer: at one parameter a pixel a
/// 640x427 photo gets 12 levels of 2^13 entries and one layer of 304 (the widest multiple
/// of 16 within the budget); at two, a larger grid and a layer whose first product takes no
/// more multiply-adds a pixel than the cap; at a quarter, where one layer could not be
/// [`BUDGET_MIN_WIDE`] wide, two layers of 64.
#[test]
fn the_tables_leave_one_wide_hidden_layer() {
    let grid = GridOptions::DEFAULT;
    let one = SizeBudget::new(1.0).unwrap();
    let config = one.network(&grid, (640, 427, 3)).unwrap();
    assert_eq!(
        (config.levels, config.log2_table_size, config.features),
        (12, 13, 4)
    );
    assert_eq!(config.hidden, vec![304]);
    let params = config.num_params().unwrap();
    let wider = nn::HashGridMlpConfig {
        hidden: vec![320],
        ..config.clone()
    };
    assert!(params <= 640 * 427 && wider.num_params().unwrap() > 640 * 427);
    let two = SizeBudget::new(2.0)
        .unwrap()
        .network(&grid, (640, 427, 3))
        .unwrap();
    let inputs = two.levels * two.features;
    assert!(two.levels > 12 && two.hidden.len() == 1, "{two:?}");
    assert!(inputs * two.hidden[0] <= BUDGET_MAX_PRODUCT, "{two:?}");
    assert!(
        inputs * (two.hidden[0] + 16) > BUDGET_MAX_PRODUCT,
        "{two:?}"
    );
    let quarter = SizeBudget::new(0.25)
        .unwrap()
        .network(&grid, (640, 427, 3))
        .unwrap();
    assert_eq!(quarter.hidden, vec![64, 64], "{quarter:?}");
    let one_wide = nn::HashGridMlpConfig {
        hidden: vec![BUDGET_MIN_WIDE],
        ..quarter.clone()
    };
    assert!(one_wide.num_params().unwrap() > 640 * 427 / 4);
}

/// A refused resume leaves the run folder as it was (its `original.png` the picture it was
/// trained on), a resume into a missing folder makes none, and a fit without a budget over
/// a budget fit's folder (forced) leaves no float16 model of the earlier run behind.
#[test]
fn refused_resumes_write_nothing_and_forced_fits_leave_no_earlier_files() {
    let tmp = tempfile::tempdir().unwrap();
    let photo = write_photo(tmp.path(), 48, 40);
    let dir = tmp.path().join("run");
    let steps = |n| train::TrainChoices {
        length: Some(nn::TrainLength::Steps(n)),
        ..train::TrainChoices::default()
    };
    let budget = ImageFitOptions {
        budget: Some(SizeBudget::new(4.0).unwrap()),
        training: steps(10),
        ..ImageFitOptions::new(Some(photo.clone()), &dir)
    };
    let cpu = CpuBackend::new();
    fit_image(&cpu, &budget, &mut Silent).unwrap();
    let original = std::fs::read(dir.join("original.png")).unwrap();
    let mut gray = budget.clone();
    gray.gray = true;
    gray.training.resume = true;
    assert!(fit_image(&cpu, &gray, &mut Silent).is_err());
    assert_eq!(std::fs::read(dir.join("original.png")).unwrap(), original);
    let mut missing = budget.clone();
    missing.out = tmp.path().join("missing");
    missing.training.resume = true;
    assert!(fit_image(&cpu, &missing, &mut Silent).is_err());
    assert!(!missing.out.exists());
    let mut plain = ImageFitOptions {
        training: steps(5),
        ..ImageFitOptions::new(Some(photo), &dir)
    };
    plain.training.force = true;
    fit_image(&cpu, &plain, &mut Silent).unwrap();
    assert!(dir.join("model.safetensors").is_file());
    assert!(!dir.join("model-f16.safetensors").exists());
    assert!(!dir.join("reconstruction-f16.png").exists());
}
