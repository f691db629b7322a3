//! A band of an image's rows loaded alone holds the values of those rows of the whole
//! picture: streamed from 8-bit PNGs and strip TIFFs, cut from other files.

use crate::compact::{pattern, write_png, write_tiff};
use io::image::{ColorMode, load_compact_band, load_compact_within, save_picture};
use nn::PixelValues;

/// The values of a picture as `f32`, whatever their representation.
fn floats(values: &PixelValues) -> Vec<f32> {
    (0..values.len()).map(|i| values.get(i)).collect()
}

#[test]
fn a_band_holds_the_rows_of_the_whole_picture() {
    let dir = tempfile::tempdir().unwrap();
    let (w, h) = (29, 17);
    for c in [1, 3] {
        let bytes = pattern(w, h, c);
        let png = dir.path().join(format!("p{c}.png"));
        let tif = dir.path().join(format!("p{c}.tif"));
        write_png(&png, &bytes, w, h, c);
        write_tiff(&tif, &bytes, w, h, c, 3);
        // Decoded whole, then cut: a BMP is not streamed.
        let bmp = dir.path().join(format!("p{c}.bmp"));
        let whole = load_compact_within(&png, ColorMode::Rgb, None).unwrap();
        save_picture(&whole.to_picture().unwrap(), &bmp).unwrap();
        for mode in [ColorMode::Rgb, ColorMode::Grayscale] {
            let whole = load_compact_within(&png, mode, None).unwrap();
            for rows in [0..1, 4..11, 16..17, 0..17] {
                let want = whole.band(rows.clone()).unwrap();
                for path in [&png, &tif, &bmp] {
                    let band = load_compact_band(path, mode, rows.clone(), None).unwrap();
                    let what = format!("{} rows {rows:?} {mode:?}", path.display());
                    assert_eq!((band.width(), band.height()), (w, rows.len()), "{what}");
                    assert_eq!(band.channels(), want.channels(), "{what}");
                    assert_eq!(floats(band.values()), floats(want.values()), "{what}");
                }
            }
        }
    }
}

#[test]
fn a_band_outside_the_image_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("p.png");
    write_png(&png, &pattern(8, 5, 3), 8, 5, 3);
    for rows in [3..6, 2..2] {
        let e = load_compact_band(&png, ColorMode::Rgb, rows.clone(), None).unwrap_err();
        assert!(
            e.to_string().contains("not a band of an image of 5 rows"),
            "{rows:?}: {e}"
        );
    }
}
