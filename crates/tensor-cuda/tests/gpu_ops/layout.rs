//! Fill, copies, transposes and row gathers.

use crate::common::*;
use tensor_core::{Backend, Error};

#[test]
#[ignore = "needs a CUDA GPU"]
fn fill_sets_every_element() {
    let g = gpu();
    for n in SIZES {
        let mut x = g.alloc(n).unwrap();
        g.fill(&mut x, -3.25).unwrap();
        assert!(
            g.download(&x).unwrap().iter().all(|&v| v == -3.25),
            "n = {n}"
        );
    }
    let mut empty = g.alloc(0).unwrap();
    g.fill(&mut empty, 1.0).unwrap();
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn copy_slice_moves_ranges_and_checks_bounds() {
    let g = gpu();
    let src: Vec<f32> = (0..1000).map(|i| i as f32).collect();
    let s = g.upload(&src).unwrap();
    let mut d = g.upload(&vec![-1.0; 500]).unwrap();
    g.copy_slice(&s, 123, &mut d, 7, 400).unwrap();
    let got = g.download(&d).unwrap();
    assert_eq!(&got[..7], &[-1.0; 7]);
    assert_eq!(&got[7..407], &src[123..523]);
    assert_eq!(&got[407..], &[-1.0; 93]);
    let err = g.copy_slice(&s, 900, &mut d, 0, 101);
    assert!(matches!(err, Err(Error::OutOfBounds { .. })), "{err:?}");
    let err = g.copy_slice(&s, 0, &mut d, 450, 51);
    assert!(matches!(err, Err(Error::OutOfBounds { .. })), "{err:?}");
    g.copy_slice(&s, 1000, &mut d, 500, 0).unwrap();
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn copy_block_places_columns_like_the_cpu() {
    let (g, c) = (gpu(), cpu());
    let mut rng = rng("copy_block");
    for (rows, src_cols, dst_cols, offset) in [
        (1, 1, 1, 0),
        (7, 3, 10, 7),
        (1000, 33, 66, 33),
        (4099, 1, 2, 1),
        (33, 1000, 1001, 0),
    ] {
        let src = uniform(&mut rng, rows * src_cols, -1.0, 1.0);
        let dst = uniform(&mut rng, rows * dst_cols, -1.0, 1.0);
        let (gs, mut gd) = (g.upload(&src).unwrap(), g.upload(&dst).unwrap());
        g.copy_block(&gs, src_cols, &mut gd, dst_cols, offset, rows)
            .unwrap();
        let (cs, mut cd) = (c.upload(&src).unwrap(), c.upload(&dst).unwrap());
        c.copy_block(&cs, src_cols, &mut cd, dst_cols, offset, rows)
            .unwrap();
        assert_eq!(
            g.download(&gd).unwrap(),
            c.download(&cd).unwrap(),
            "{rows}x{src_cols} into {dst_cols} at {offset}"
        );
    }
    let s = g.alloc(6).unwrap();
    let mut d = g.alloc(8).unwrap();
    let err = g.copy_block(&s, 3, &mut d, 4, 2, 2);
    assert!(matches!(err, Err(Error::OutOfBounds { .. })), "{err:?}");
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn transpose_matches_the_cpu() {
    let (g, c) = (gpu(), cpu());
    let mut rng = rng("transpose");
    for (rows, cols) in [
        (1, 1),
        (7, 33),
        (33, 7),
        (1000, 3),
        (1025, 1031),
        (1, 5000),
        (5000, 1),
        (70_000, 2),
    ] {
        let x = uniform(&mut rng, rows * cols, -1.0, 1.0);
        let gx = g.upload(&x).unwrap();
        let mut gt = g.alloc(rows * cols).unwrap();
        g.transpose(&gx, rows, cols, &mut gt).unwrap();
        let cx = c.upload(&x).unwrap();
        let mut ct = c.alloc(rows * cols).unwrap();
        c.transpose(&cx, rows, cols, &mut ct).unwrap();
        assert_eq!(
            g.download(&gt).unwrap(),
            c.download(&ct).unwrap(),
            "{rows}x{cols}"
        );
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gather_rows_picks_rows_and_rejects_bad_indices() {
    let (g, c) = (gpu(), cpu());
    let mut rng = rng("gather");
    for (src_rows, cols, count) in [
        (1, 1, 1),
        (10, 3, 7),
        (1000, 33, 500),
        (4099, 2, 4099),
        (50, 1000, 33),
    ] {
        let src = uniform(&mut rng, src_rows * cols, -1.0, 1.0);
        let idx: Vec<u32> = (0..count + 5)
            .map(|_| rand::Rng::random_range(&mut rng, 0..src_rows as u32))
            .collect();
        let start = 3.min(idx.len() - count);
        let gi = g.upload_indices(&idx).unwrap();
        assert_eq!(g.index_len(&gi), idx.len());
        let gs = g.upload(&src).unwrap();
        let mut gd = g.alloc(count * cols).unwrap();
        g.gather_rows(&gs, src_rows, cols, &gi, start, count, &mut gd)
            .unwrap();
        let ci = c.upload_indices(&idx).unwrap();
        let cs = c.upload(&src).unwrap();
        let mut cd = c.alloc(count * cols).unwrap();
        c.gather_rows(&cs, src_rows, cols, &ci, start, count, &mut cd)
            .unwrap();
        assert_eq!(
            g.download(&gd).unwrap(),
            c.download(&cd).unwrap(),
            "{src_rows}x{cols}, {count} rows"
        );
    }
    let src = g.upload(&[0.0; 12]).unwrap();
    let idx = g.upload_indices(&[0, 1, 5, 2]).unwrap();
    let mut dst = g.alloc(6).unwrap();
    // Rows 0 and 1 are fine; row 5 of a 4-row source is not.
    g.gather_rows(&src, 4, 3, &idx, 0, 2, &mut dst).unwrap();
    let err = g.gather_rows(&src, 4, 3, &idx, 1, 2, &mut dst);
    assert!(
        matches!(
            err,
            Err(Error::OutOfBounds {
                index: 5,
                len: 4,
                ..
            })
        ),
        "{err:?}"
    );
    let err = g.gather_rows(&src, 4, 3, &idx, 3, 2, &mut dst);
    assert!(matches!(err, Err(Error::OutOfBounds { .. })), "{err:?}");
}
