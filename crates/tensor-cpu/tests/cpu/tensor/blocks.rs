//! `Tensor`'s block copies, row-group reductions and repeats, and device-side dot
//! products: results against f64 references, and shape mistakes as errors.

use super::fused::{close, mismatch, nans, random, zeros};
use tensor_core::{Error, ReduceOp};

#[test]
fn row_and_column_blocks_land_where_asked() {
    let (src, sv) = random(16, &[2, 3], -1.0, 1.0);
    let mut dst = zeros(&[5, 3]);
    dst.copy_rows_from(2, &src).unwrap();
    let d = dst.to_vec().unwrap();
    assert_eq!(&d[6..12], &sv[..]);
    assert!(d[..6].iter().chain(&d[12..]).all(|&v| v == 0.0));

    let mut wide = zeros(&[2, 7]);
    wide.copy_columns_from(4, &src).unwrap();
    let w = wide.to_vec().unwrap();
    for r in 0..2 {
        assert_eq!(&w[r * 7 + 4..r * 7 + 7], &sv[r * 3..r * 3 + 3]);
        assert!(w[r * 7..r * 7 + 4].iter().all(|&v| v == 0.0));
    }
}

#[test]
fn flat_copies_lay_tensors_end_to_end_and_back() {
    let (a, av) = random(17, &[2, 3], -1.0, 1.0);
    let (b, bv) = random(18, &[4], -1.0, 1.0);
    let mut flat = zeros(&[11]);
    flat.copy_flat_from(1, &a).unwrap();
    flat.copy_flat_from(7, &b).unwrap();
    let f = flat.to_vec().unwrap();
    assert_eq!(f[0], 0.0);
    assert_eq!(&f[1..7], &av[..]);
    assert_eq!(&f[7..11], &bv[..]);
    let mut back = zeros(&[3, 2]);
    flat.copy_flat_into(1, &mut back).unwrap();
    assert_eq!(back.to_vec().unwrap(), av);
    assert_eq!(back.dims(), [3, 2]);
    let err = flat.copy_flat_from(8, &b).unwrap_err();
    assert!(
        matches!(
            err,
            Error::OutOfBounds {
                index: 12,
                len: 11,
                ..
            }
        ),
        "{err}"
    );
    let err = flat.copy_flat_into(usize::MAX, &mut back).unwrap_err();
    assert!(matches!(err, Error::OutOfBounds { len: 11, .. }), "{err}");
}

#[test]
fn row_and_column_blocks_reject_bad_shapes() {
    let err = zeros(&[5, 3])
        .copy_rows_from(0, &zeros(&[2, 4]))
        .unwrap_err();
    mismatch(err, "copy_rows_from", "[5, 3]", "[2, 4]");
    let err = zeros(&[5, 3])
        .copy_rows_from(4, &zeros(&[2, 3]))
        .unwrap_err();
    assert!(
        matches!(
            err,
            Error::OutOfBounds {
                index: 6,
                len: 5,
                ..
            }
        ),
        "{err}"
    );
    let err = zeros(&[2, 7])
        .copy_columns_from(0, &zeros(&[3, 3]))
        .unwrap_err();
    mismatch(err, "copy_columns_from", "[2, 7]", "[3, 3]");
    let err = zeros(&[2, 7])
        .copy_columns_from(5, &zeros(&[2, 3]))
        .unwrap_err();
    assert!(
        matches!(
            err,
            Error::OutOfBounds {
                index: 8,
                len: 7,
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn row_groups_reduce_and_repeat() {
    let (x, xv) = random(17, &[6, 2], -1.0, 1.0);
    let mut mean = nans(&[2, 2]);
    x.reduce_row_groups_into(ReduceOp::Mean, 3, &mut mean)
        .unwrap();
    let want: Vec<f64> = (0..4)
        .map(|i| {
            let (g, c) = (i / 2, i % 2);
            (0..3).map(|k| xv[(g * 3 + k) * 2 + c] as f64).sum::<f64>() / 3.0
        })
        .collect();
    close(&mean.to_vec().unwrap(), &want, 1e-6);

    let (g, gv) = random(18, &[2, 3], -1.0, 1.0);
    let mut spread = nans(&[8, 3]);
    g.repeat_rows_into(4, &mut spread).unwrap();
    let s = spread.to_vec().unwrap();
    for row in 0..8 {
        assert_eq!(
            &s[row * 3..row * 3 + 3],
            &gv[(row / 4) * 3..(row / 4) * 3 + 3]
        );
    }
}

#[test]
fn row_groups_reject_bad_shapes() {
    let err = zeros(&[7, 2])
        .reduce_row_groups_into(ReduceOp::Mean, 3, &mut zeros(&[2, 2]))
        .unwrap_err();
    assert!(matches!(err, Error::InvalidArgument { .. }), "{err}");
    let err = zeros(&[6, 2])
        .reduce_row_groups_into(ReduceOp::Mean, 0, &mut zeros(&[2, 2]))
        .unwrap_err();
    assert!(matches!(err, Error::InvalidArgument { .. }), "{err}");
    let err = zeros(&[6, 2])
        .reduce_row_groups_into(ReduceOp::Sum, 3, &mut zeros(&[3, 2]))
        .unwrap_err();
    mismatch(err, "reduce_row_groups", "[6, 2]", "[3, 2]");
    let err = zeros(&[2, 3])
        .repeat_rows_into(4, &mut zeros(&[6, 3]))
        .unwrap_err();
    mismatch(err, "repeat_rows", "[2, 3]", "[6, 3]");
    let err = zeros(&[2, 3])
        .repeat_rows_into(0, &mut zeros(&[0, 3]))
        .unwrap_err();
    assert!(matches!(err, Error::InvalidArgument { .. }), "{err}");
}

#[test]
fn dot_products_overwrite_or_accumulate() {
    let (a, av) = random(19, &[4, 5], -1.0, 1.0);
    let (b, bv) = random(20, &[20], -1.0, 1.0);
    let dot: f64 = av.iter().zip(&bv).map(|(&a, &b)| a as f64 * b as f64).sum();
    let mut out = nans(&[1]);
    a.dot_into(&b, &mut out, 0.0).unwrap();
    close(&out.to_vec().unwrap(), &[dot], 1e-5);
    a.dot_into(&a, &mut out, 1.0).unwrap();
    let sq: f64 = av.iter().map(|&a| a as f64 * a as f64).sum();
    close(&out.to_vec().unwrap(), &[dot + sq], 1e-5);
}

#[test]
fn dot_products_reject_bad_shapes() {
    let err = zeros(&[4, 5])
        .dot_into(&zeros(&[19]), &mut zeros(&[1]), 0.0)
        .unwrap_err();
    mismatch(err, "dot", "[4, 5]", "[19]");
    let err = zeros(&[3])
        .dot_into(&zeros(&[3]), &mut zeros(&[2]), 0.0)
        .unwrap_err();
    assert!(matches!(err, Error::ElementCount { .. }), "{err}");
}
