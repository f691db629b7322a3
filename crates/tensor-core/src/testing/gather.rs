//! Row gathers through an index buffer.

use super::compare::*;
use super::data::*;
use crate::Backend;
use crate::params::GatherSpec;
use rand::Rng;

/// `gather_rows` copies the indexed rows (repeats and any order), from any start in the
/// index buffer, for empty and 1000+ row counts.
pub fn gather_rows_picks_the_indexed_rows<B: Backend>(b: &B) {
    let mut r = rng("gather_rows");
    for &(src_rows, cols, index_len, start, count) in &[
        (1, 1, 1, 0, 1),
        (5, 3, 4, 1, 3),
        (7, 33, 10, 0, 10),
        (33, 0, 5, 2, 3),
        (4, 7, 6, 6, 0),
        (1000, 7, 3000, 1000, 1500),
        (60_000, 1, 50_003, 3, 50_000),
    ] {
        let src_data = uniform(&mut r, src_rows * cols, -1.0, 1.0);
        let index: Vec<u32> = (0..index_len)
            .map(|_| r.random_range(0..src_rows as u32))
            .collect();
        let src = up(b, &src_data);
        let idx = ok("upload_indices", b.upload_indices(&index));
        let mut dst = nan_buffer(b, count * cols);
        ok(
            "gather_rows",
            b.gather_rows(
                GatherSpec {
                    src_rows,
                    cols,
                    start,
                    count,
                },
                &src,
                &idx,
                &mut dst,
            ),
        );
        let want: Vec<f32> = index[start..start + count]
            .iter()
            .flat_map(|&i| src_data[i as usize * cols..(i as usize + 1) * cols].to_vec())
            .collect();
        let what = format!("gather of {count} of {src_rows}x{cols} from {start}");
        assert_same_bits(&what, &down(b, &dst), &want);
    }
}

/// Rows past the source, index ranges past the index buffer and buffers of the wrong
/// length are refused.
pub fn gather_rows_refuses_bad_rows_and_ranges<B: Backend>(b: &B) {
    let src = up(b, &[1.0; 21]);
    let idx = ok("upload_indices", b.upload_indices(&[0, 7, 2, 6]));
    let mut dst = up(b, &[0.0; 6]);
    let op = "gather_rows";
    let r = b.gather_rows(
        GatherSpec {
            src_rows: 7,
            cols: 3,
            start: 0,
            count: 2,
        },
        &src,
        &idx,
        &mut dst,
    );
    assert_bounds_error("row 7 of 7", op, r);
    let r = b.gather_rows(
        GatherSpec {
            src_rows: 7,
            cols: 3,
            start: 3,
            count: 2,
        },
        &src,
        &idx,
        &mut dst,
    );
    assert_bounds_error("indices 3..5 of 4", op, r);
    let r = b.gather_rows(
        GatherSpec {
            src_rows: 7,
            cols: 3,
            start: usize::MAX,
            count: 2,
        },
        &src,
        &idx,
        &mut dst,
    );
    assert_bounds_error("indices from usize::MAX", op, r);
    let mut empty = up(b, &[]);
    let r = b.gather_rows(
        GatherSpec {
            src_rows: 7,
            cols: 3,
            start: 5,
            count: 0,
        },
        &src,
        &idx,
        &mut empty,
    );
    assert_bounds_error("an empty range past the end", op, r);
    let r = b.gather_rows(
        GatherSpec {
            src_rows: 6,
            cols: 3,
            start: 2,
            count: 2,
        },
        &src,
        &idx,
        &mut dst,
    );
    assert_buffer_error("a source of 21 for 6x3", op, r);
    let mut long = up(b, &[0.0; 7]);
    let r = b.gather_rows(
        GatherSpec {
            src_rows: 7,
            cols: 3,
            start: 2,
            count: 2,
        },
        &src,
        &idx,
        &mut long,
    );
    assert_buffer_error("a destination of 7 for 2x3", op, r);
    ok(
        "gather of rows 2 and 6",
        b.gather_rows(
            GatherSpec {
                src_rows: 7,
                cols: 3,
                start: 2,
                count: 2,
            },
            &src,
            &idx,
            &mut dst,
        ),
    );
}
