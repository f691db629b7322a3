//! Allocation, transfers, fill and the copies: slices, column blocks and transposes.

use super::compare::*;
use super::data::*;
use crate::Backend;
use crate::params::{BlockCopy, SliceCopy};

/// Values whose bits every copy must keep: signed zeros, a subnormal, infinities, NaN.
const KEEP_BITS: &[f32] = &[
    0.0,
    -0.0,
    1e-40,
    -3.5,
    f32::INFINITY,
    f32::NEG_INFINITY,
    f32::NAN,
];

/// `n` values with every one of [`KEEP_BITS`] among them.
fn payload(name: &str, n: usize) -> Vec<f32> {
    let mut v = uniform(&mut rng(name), n, -10.0, 10.0);
    for (slot, &s) in v.iter_mut().zip(KEEP_BITS) {
        *slot = s;
    }
    v
}

/// `alloc`, `upload` and `upload_indices` give buffers of the asked length, empty ones
/// included.
pub fn buffers_have_the_asked_length<B: Backend>(b: &B) {
    for &n in SIZES {
        let s = ok("alloc", b.alloc(n));
        assert_eq!(b.storage_len(&s), n, "alloc({n})");
        let s = up(b, &vec![1.5; n]);
        assert_eq!(b.storage_len(&s), n, "upload of {n}");
        let idx: Vec<u32> = (0..n as u32).collect();
        let i = ok("upload_indices", b.upload_indices(&idx));
        assert_eq!(b.index_len(&i), n, "upload_indices of {n}");
    }
}

/// Upload then download gives back the same bits, NaN, infinities and subnormals included.
pub fn upload_download_round_trip<B: Backend>(b: &B) {
    for &n in SIZES {
        let data = payload("round trip", n);
        let s = up(b, &data);
        assert_same_bits(&format!("round trip of {n}"), &down(b, &s), &data);
    }
}

/// `upload_into` overwrites a buffer of the same length and refuses any other length.
pub fn upload_into_needs_the_exact_length<B: Backend>(b: &B) {
    for &n in &SIZES[..6] {
        let data = payload("upload_into", n);
        let mut s = up(b, &vec![7.0; n]);
        ok("upload_into", b.upload_into(&data, &mut s));
        assert_same_bits(&format!("upload_into of {n}"), &down(b, &s), &data);
        let mut longer = up(b, &vec![7.0; n + 1]);
        assert_buffer_error(
            "upload_into a longer buffer",
            "upload_into",
            b.upload_into(&data, &mut longer),
        );
        if n > 0 {
            let mut shorter = up(b, &vec![7.0; n - 1]);
            assert_buffer_error(
                "upload_into a shorter buffer",
                "upload_into",
                b.upload_into(&data, &mut shorter),
            );
        }
    }
}

/// `fill` sets every element to exactly the value, NaN and signed zero included.
pub fn fill_sets_every_element<B: Backend>(b: &B) {
    for &n in SIZES {
        let mut s = up(b, &payload("fill", n));
        for &value in KEEP_BITS {
            ok("fill", b.fill(&mut s, value));
            assert_same_bits(
                &format!("fill({value}) of {n}"),
                &down(b, &s),
                &vec![value; n],
            );
        }
    }
}

/// The counters see every byte uploaded and downloaded and every allocation; `upload_into`
/// reuses its buffer.
pub fn counters_see_transfers<B: Backend>(b: &B) {
    let before = b.counters();
    let mut s = up(b, &[1.0; 10]);
    let uploaded = b.counters();
    ok("upload_into", b.upload_into(&[2.0; 10], &mut s));
    let _ = down(b, &s);
    let after = b.counters();
    assert_eq!(after.bytes_uploaded - before.bytes_uploaded, 80, "bytes up");
    assert_eq!(
        after.bytes_downloaded - before.bytes_downloaded,
        40,
        "bytes down"
    );
    assert!(
        uploaded.allocations > before.allocations,
        "upload allocates"
    );
    assert_eq!(
        after.allocations, uploaded.allocations,
        "upload_into allocates"
    );
}

/// `copy_slice` copies exactly its range, leaves the rest alone, and refuses ranges that
/// leave either buffer.
pub fn copy_slice_copies_its_range<B: Backend>(b: &B) {
    let src_data = payload("copy_slice", 5000);
    let src = up(b, &src_data);
    for &(src_offset, dst_offset, len, dst_len) in &[
        (0, 0, 5000, 5000),
        (0, 0, 0, 0),
        (5000, 3, 0, 3),
        (1, 0, 1, 1),
        (3, 7, 33, 40),
        (17, 1000, 4000, 5003),
        (4999, 0, 1, 7),
    ] {
        let mut dst = up(b, &vec![-1.0; dst_len]);
        ok(
            "copy_slice",
            b.copy_slice(
                SliceCopy {
                    src_offset,
                    dst_offset,
                    len,
                },
                &src,
                &mut dst,
            ),
        );
        let mut want = vec![-1.0; dst_len];
        want[dst_offset..dst_offset + len].copy_from_slice(&src_data[src_offset..src_offset + len]);
        let what = format!("copy_slice {src_offset}..+{len} to {dst_offset} of {dst_len}");
        assert_same_bits(&what, &down(b, &dst), &want);
    }
    let mut dst = up(b, &[0.0; 10]);
    for (src_offset, dst_offset, len) in [
        (4990, 0, 11),
        (0, 0, 11),
        (0, 5, 6),
        (5001, 0, 0),
        (0, 11, 0),
        (usize::MAX, 0, 2),
        (0, usize::MAX, 2),
    ] {
        let what = format!("copy_slice {src_offset}..+{len} to {dst_offset}");
        let result = b.copy_slice(
            SliceCopy {
                src_offset,
                dst_offset,
                len,
            },
            &src,
            &mut dst,
        );
        assert_bounds_error(&what, "copy_slice", result);
    }
}

/// `copy_block` writes its columns of every row, leaves the other columns alone, and refuses
/// columns past `dst_cols` and buffers of the wrong length.
pub fn copy_block_writes_its_columns<B: Backend>(b: &B) {
    let mut r = rng("copy_block");
    for &(rows, src_cols, dst_cols, offset) in &[
        (0, 3, 5, 1),
        (1, 1, 1, 0),
        (4, 0, 3, 3),
        (7, 3, 10, 7),
        (33, 2, 5, 0),
        (1000, 2, 5, 3),
        (3, 4, 4, 0),
        (40_000, 1, 2, 1),
    ] {
        let src_data = uniform(&mut r, rows * src_cols, -1.0, 1.0);
        let dst_data = uniform(&mut r, rows * dst_cols, 5.0, 6.0);
        let src = up(b, &src_data);
        let mut dst = up(b, &dst_data);
        ok(
            "copy_block",
            b.copy_block(
                BlockCopy {
                    rows,
                    src_cols,
                    dst_cols,
                    col_offset: offset,
                },
                &src,
                &mut dst,
            ),
        );
        let mut want = dst_data.clone();
        for row in 0..rows {
            for c in 0..src_cols {
                want[row * dst_cols + offset + c] = src_data[row * src_cols + c];
            }
        }
        let what = format!("copy_block {rows}x{src_cols} into {rows}x{dst_cols} at {offset}");
        assert_same_bits(&what, &down(b, &dst), &want);
    }
    let src = up(b, &[1.0; 6]);
    let mut dst = up(b, &[0.0; 8]);
    let r = b.copy_block(
        BlockCopy {
            rows: 2,
            src_cols: 3,
            dst_cols: 4,
            col_offset: 2,
        },
        &src,
        &mut dst,
    );
    assert_bounds_error("copy_block past the last column", "copy_block", r);
    let r = b.copy_block(
        BlockCopy {
            rows: 2,
            src_cols: 3,
            dst_cols: 4,
            col_offset: usize::MAX,
        },
        &src,
        &mut dst,
    );
    assert_bounds_error("copy_block at a huge offset", "copy_block", r);
    let r = b.copy_block(
        BlockCopy {
            rows: 2,
            src_cols: 2,
            dst_cols: 4,
            col_offset: 0,
        },
        &src,
        &mut dst,
    );
    assert_buffer_error("copy_block with a long src", "copy_block", r);
    let r = b.copy_block(
        BlockCopy {
            rows: 2,
            src_cols: 3,
            dst_cols: 3,
            col_offset: 0,
        },
        &src,
        &mut dst,
    );
    assert_buffer_error("copy_block with a long dst", "copy_block", r);
    let r = b.copy_block(
        BlockCopy {
            rows: 2,
            src_cols: 3,
            dst_cols: 5,
            col_offset: 0,
        },
        &src,
        &mut dst,
    );
    assert_buffer_error("copy_block with a short dst", "copy_block", r);
}

/// `transpose` moves every element to its mirrored place, bits unchanged.
pub fn transpose_moves_every_element<B: Backend>(b: &B) {
    for &(rows, cols) in &[
        (0, 5),
        (5, 0),
        (1, 1),
        (1, 33),
        (33, 1),
        (7, 33),
        (32, 32),
        (1000, 3),
        (129, 257),
    ] {
        let data = payload("transpose", rows * cols);
        let src = up(b, &data);
        let mut dst = nan_buffer(b, rows * cols);
        ok("transpose", b.transpose(&src, rows, cols, &mut dst));
        let want: Vec<f32> = (0..rows * cols)
            .map(|i| data[(i % rows) * cols + i / rows])
            .collect();
        assert_same_bits(
            &format!("transpose of {rows}x{cols}"),
            &down(b, &dst),
            &want,
        );
    }
    let src = up(b, &[1.0; 6]);
    let mut dst = up(b, &[0.0; 7]);
    assert_buffer_error(
        "transpose into 7",
        "transpose",
        b.transpose(&src, 2, 3, &mut dst),
    );
    let mut dst = up(b, &[0.0; 6]);
    assert_buffer_error(
        "transpose of 4x2",
        "transpose",
        b.transpose(&src, 4, 2, &mut dst),
    );
}
