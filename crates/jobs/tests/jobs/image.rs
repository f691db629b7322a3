//! The library's image fit: the files it writes and the figures it returns, the defaults it
//! picks for a picture, its refusals and its capped reconstructions.

use jobs::image::ImageOption;
use jobs::image::{ImageArch, ImageFitOptions, fit_image};
use std::path::{Path, PathBuf};
use tensor_cpu::CpuBackend;
use train::{Reporter, Silent};

/// A smooth colour picture of `w x h` (a photo for the defaults: not line art), as a PNG.
fn write_photo(dir: &Path, w: usize, h: usize) -> PathBuf {
    let pixels: Vec<u8> = (0..w * h * 3)
        .map(|i| {
            let (p, ch) = (i / 3, i % 3);
            ((p % w) * 200 / w + (p / w) * 50 / h + ch * 2) as u8
        })
        .collect();
    let path = dir.join("photo.png");
    std::fs::write(&path, io::image::encode_png(&pixels, w, h, 3).unwrap()).unwrap();
    path
}

/// Training of `n` steps, every other choice the job's.
fn steps(n: u64) -> train::TrainChoices {
    train::TrainChoices {
        length: Some(nn::TrainLength::Steps(n)),
        ..train::TrainChoices::default()
    }
}

fn record(dir: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(dir.join("config.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// The notes a fit gives.
#[derive(Default)]
struct Notes(Vec<String>);

impl Reporter for Notes {
    fn note(&mut self, line: &str) {
        self.0.push(line.to_string());
    }
}

/// A fit of the bundled drawing writes every file it lists, scores the reconstruction (100
/// steps of the default hash grid reach an ink IoU of 1.0 at 48x48 on the reference machine;
/// 0.9 leaves margin) and returns a model that draws itself larger.
#[test]
fn a_fit_writes_its_files_and_scores_its_reconstruction() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("run");
    let options = ImageFitOptions {
        size: Some(48),
        training: steps(100),
        ..ImageFitOptions::new(None, &dir)
    };
    let fit = fit_image(&CpuBackend::new(), &options, &mut Silent).unwrap();
    for file in &fit.files {
        assert!(file.is_file(), "{}", file.display());
    }
    let names: Vec<_> = fit.files.iter().filter_map(|f| f.file_name()).collect();
    for name in [
        "original.png",
        "reconstruction.png",
        "comparison.png",
        "metrics.json",
    ] {
        assert!(names.contains(&name.as_ref()), "{names:?}");
    }
    let m = &fit.metrics;
    assert_eq!((m.width, m.height, m.run.steps), (48, 48, 100));
    assert!(m.scores.psnr > 20.0, "{m:?}");
    assert!(m.scores.pixel_accuracy.unwrap() > 0.95, "{m:?}");
    assert!(m.scores.ink_iou.unwrap() > 0.9, "{m:?}");
    assert!(fit.line().contains("ink IoU"), "{}", fit.line());
    assert_eq!(record(&dir)["options"]["arch"], "hashgrid");
    let big = tmp.path().join("big.png");
    assert_eq!(fit.model.render_png(96, &big).unwrap(), (96, 96));
}

/// A photo gets the hash grid's defaults: 100 steps at learning rate 1e-2 up to 256x256
/// pixels (the growth with the size is unit-tested in `defaults`), and fits well in them.
#[test]
fn a_photo_gets_the_hash_grid_defaults() {
    let tmp = tempfile::tempdir().unwrap();
    let photo = write_photo(tmp.path(), 40, 30);
    let dir = tmp.path().join("run");
    let options = ImageFitOptions::new(Some(photo), &dir);
    let fit = fit_image(&CpuBackend::new(), &options, &mut Silent).unwrap();
    let r = record(&dir);
    assert_eq!(r["options"]["arch"], "hashgrid");
    let t = &r["training"];
    assert_eq!(t["total_steps"], 100, "{t}");
    assert!((t["lr"].as_f64().unwrap() - 1e-2).abs() < 1e-9, "{t}");
    assert!(fit.metrics.scores.psnr > 30.0, "{:?}", fit.metrics);
}

/// A change to a fit's options.
type Change = fn(&mut ImageFitOptions);

/// Each bad encoding parameter is refused in one line that names it, before anything is
/// written.
#[test]
fn every_bad_encoding_parameter_is_one_line() {
    let tmp = tempfile::tempdir().unwrap();
    let photo = write_photo(tmp.path(), 20, 20);
    let dir = tmp.path().join("bad");
    let base = ImageFitOptions {
        arch: Some(ImageArch::HashGrid),
        training: steps(1),
        ..ImageFitOptions::new(Some(photo), &dir)
    };
    let cases: [(Change, &str); 4] = [
        (|o| o.grid.levels = 0, "levels"),
        (|o| o.grid.features = 9, "features"),
        (|o| o.grid.log2_table_size = Some(25), "2^24"),
        (
            |o| {
                o.grid.base_resolution = 64;
                o.grid.finest_resolution = Some(32);
            },
            "finest",
        ),
    ];
    for (change, needle) in cases {
        let mut options = base.clone();
        change(&mut options);
        let e = fit_image(&CpuBackend::new(), &options, &mut Silent)
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains(needle) && !e.contains('\n'), "{e}");
        assert!(!dir.exists(), "{e}");
    }
}

/// Sizes, thresholds and supersampling out of range are refused before anything is read.
#[test]
fn options_out_of_range_are_refused() {
    let base = ImageFitOptions::new(None, "unused");
    let cases = [
        (
            ImageFitOptions {
                size: Some(1),
                ..base.clone()
            },
            ImageOption::Size,
        ),
        (
            ImageFitOptions {
                threshold: Some(1.5),
                ..base.clone()
            },
            ImageOption::Threshold,
        ),
        (
            ImageFitOptions {
                supersample: 5,
                ..base.clone()
            },
            ImageOption::Supersample,
        ),
    ];
    for (options, which) in cases {
        let e = jobs::image::check_options(&options).unwrap_err();
        assert!(
            matches!(&e, jobs::Error::ImageOptionOutOfRange { option, .. } if *option == which),
            "{e}"
        );
        assert!(e.to_string().contains(&which.to_string()), "{e}");
        assert!(!e.to_string().contains("--"), "{e}");
    }
}

/// A fit of far more pixels than it trained on, SIREN or hash grid, draws its
/// reconstruction at a capped size, saying so in one note with the size that draws it whole.
#[test]
fn a_huge_reconstruction_is_capped_and_said() {
    for (arch, hidden) in [
        (ImageArch::Siren, vec![16, 16]),
        (ImageArch::HashGrid, vec![8]),
    ] {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("fit");
        let options = ImageFitOptions {
            size: Some(1500),
            arch: Some(arch),
            training: train::TrainChoices {
                batch: Some(train::BatchChoice::Rows(1024)),
                ..steps(2)
            },
            hidden: Some(nn::HiddenLayers(hidden)),
            grid: jobs::image::GridOptions {
                levels: 4,
                log2_table_size: Some(10),
                ..Default::default()
            },
            ..ImageFitOptions::new(None, &dir)
        };
        let mut notes = Notes::default();
        let fit = fit_image(&CpuBackend::new(), &options, &mut notes).unwrap();
        let capped: Vec<_> = notes
            .0
            .iter()
            .filter(|l| l.contains("reconstruction would take"))
            .collect();
        assert_eq!(capped.len(), 1, "{arch:?}: {:?}", notes.0);
        assert!(
            capped[0].contains("1500x1500") && capped[0].contains("at size 1500"),
            "{}",
            capped[0]
        );
        let (w, h) = (fit.metrics.width, fit.metrics.height);
        assert!(w < 1500 && w == h && w >= 512, "{arch:?}: {w}x{h}");
        let recon = io::image::read_image_header(dir.join("reconstruction.png")).unwrap();
        assert_eq!((recon.width, recon.height), (w, h));
    }
}
