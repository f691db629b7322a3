//! Reductions along the middle axis of `outer x len x inner`: choosing the kernel, the block
//! shape and the split of long axes, then running one or two passes.

use crate::backend::Inner;
use crate::codes;
use crate::error::{check_len, product};
use crate::kernels::{Arg, BLOCK, Cfg, K, MAX_GRID_YZ};
use crate::storage::CudaStorage;
use tensor_core::{Error, ReduceOp, Result};

/// Rows up to this length are reduced by one warp each (inner == 1).
const WARP_ROW_MAX: usize = 1024;
/// Aim for at least this many blocks per multiprocessor before splitting the axis.
const BLOCKS_PER_SM: usize = 4;
/// Elements one block should fold at least, per chunk, before the axis is split further.
const MIN_CHUNK_ROWS: usize = 4096;
/// The most pieces an axis is split into (the second pass reduces at most this many).
const MAX_CHUNKS: usize = 1024;
/// The largest grid x dimension used (the hardware allows 2^31 - 1).
const MAX_GRID_X: usize = 1 << 30;

/// One pass of a reduction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pass {
    /// inner == 1, one warp per row.
    RowsWarp { rows: usize, len: usize },
    /// inner == 1, one block per (row, chunk).
    RowsBlock {
        rows: usize,
        len: usize,
        chunk: usize,
        chunks: usize,
    },
    /// inner > 1, `bx x by` blocks per (outer, chunk, column tile).
    Cols {
        outer: usize,
        len: usize,
        inner: usize,
        chunk: usize,
        chunks: usize,
        bx: u32,
        by: u32,
    },
}

/// A reduction: one pass, or a first pass into partials and a second over them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ReducePlan {
    pub first: Pass,
    /// Reduces the `outer x chunks x inner` partials of `first`.
    pub second: Option<Pass>,
    /// Elements of scratch space the partials need.
    pub scratch: usize,
}

/// `(chunk, chunks)` covering `len` with `wanted` pieces at most and none empty.
fn split(len: usize, wanted: usize) -> (usize, usize) {
    let chunk = len.div_ceil(wanted.clamp(1, MAX_CHUNKS));
    (chunk, len.div_ceil(chunk))
}

/// Plans a reduction of a non-empty `outer x len x inner` tensor on `sm_count`
/// multiprocessors.
pub(crate) fn plan(outer: usize, len: usize, inner: usize, sm_count: usize) -> ReducePlan {
    let target = sm_count.max(1) * BLOCKS_PER_SM;
    if inner == 1 {
        if len <= WARP_ROW_MAX {
            return ReducePlan {
                first: Pass::RowsWarp { rows: outer, len },
                second: None,
                scratch: 0,
            };
        }
        let wanted = if outer >= target {
            1
        } else {
            target.div_ceil(outer).min(len.div_ceil(MIN_CHUNK_ROWS))
        };
        let (chunk, chunks) = split(len, wanted);
        let first = Pass::RowsBlock {
            rows: outer,
            len,
            chunk,
            chunks,
        };
        if chunks == 1 {
            return ReducePlan {
                first,
                second: None,
                scratch: 0,
            };
        }
        return ReducePlan {
            first,
            second: Some(Pass::RowsWarp {
                rows: outer,
                len: chunks,
            }),
            scratch: outer * chunks,
        };
    }
    let bx = inner.next_power_of_two().min(32) as u32;
    let by = BLOCK / bx;
    let units = outer * inner.div_ceil(bx as usize);
    let wanted = if units >= target {
        1
    } else {
        target.div_ceil(units).min(len.div_ceil(by as usize * 16))
    };
    let (chunk, chunks) = split(len, wanted);
    let first = Pass::Cols {
        outer,
        len,
        inner,
        chunk,
        chunks,
        bx,
        by,
    };
    if chunks == 1 {
        return ReducePlan {
            first,
            second: None,
            scratch: 0,
        };
    }
    ReducePlan {
        first,
        second: Some(Pass::Cols {
            outer,
            len: chunks,
            inner,
            chunk: chunks,
            chunks: 1,
            bx,
            by,
        }),
        scratch: outer * chunks * inner,
    }
}

/// Where a pass reads and writes: device addresses (0 for "none").
struct Io {
    xv: u64,
    xi: u64,
    outv: u64,
    outi: u64,
}

impl Inner {
    fn run_pass(&self, pass: Pass, io: Io, op: i32, divisor: f32) -> Result<()> {
        let sms = self.info.sm_count as usize;
        match pass {
            Pass::RowsWarp { rows, len } => {
                let warps_per_block = (BLOCK / 32) as usize;
                let blocks = rows.div_ceil(warps_per_block).clamp(1, sms * 8);
                self.launch(
                    "reduce",
                    K::ReduceRowsWarp,
                    Cfg {
                        grid: (blocks as u32, 1, 1),
                        block: (BLOCK, 1, 1),
                    },
                    &[
                        Arg::Ptr(io.xv),
                        Arg::Ptr(io.xi),
                        Arg::Ptr(io.outv),
                        Arg::U64(rows as u64),
                        Arg::U64(len as u64),
                        Arg::I32(op),
                        Arg::F32(divisor),
                    ],
                )
            }
            Pass::RowsBlock {
                rows,
                len,
                chunk,
                chunks,
            } => {
                let blocks = (rows * chunks).clamp(1, MAX_GRID_X);
                self.launch(
                    "reduce",
                    K::ReduceRowsBlock,
                    Cfg {
                        grid: (blocks as u32, 1, 1),
                        block: (BLOCK, 1, 1),
                    },
                    &[
                        Arg::Ptr(io.xv),
                        Arg::Ptr(io.xi),
                        Arg::Ptr(io.outv),
                        Arg::Ptr(io.outi),
                        Arg::U64(rows as u64),
                        Arg::U64(len as u64),
                        Arg::U64(chunk as u64),
                        Arg::U64(chunks as u64),
                        Arg::I32(op),
                        Arg::F32(divisor),
                    ],
                )
            }
            Pass::Cols {
                outer,
                len,
                inner,
                chunk,
                chunks,
                bx,
                by,
            } => {
                let tiles = inner.div_ceil(bx as usize).clamp(1, MAX_GRID_X);
                let units = ((outer * chunks) as u64).clamp(1, MAX_GRID_YZ);
                self.launch(
                    "reduce",
                    K::ReduceCols,
                    Cfg {
                        grid: (tiles as u32, units as u32, 1),
                        block: (bx, by, 1),
                    },
                    &[
                        Arg::Ptr(io.xv),
                        Arg::Ptr(io.xi),
                        Arg::Ptr(io.outv),
                        Arg::Ptr(io.outi),
                        Arg::U64(outer as u64),
                        Arg::U64(len as u64),
                        Arg::U64(inner as u64),
                        Arg::U64(chunk as u64),
                        Arg::U64(chunks as u64),
                        Arg::I32(op),
                        Arg::F32(divisor),
                    ],
                )
            }
        }
    }

    /// Reduces each of `rows` rows of `len` values at device address `x` into `out` with one
    /// warp per row, in a single pass that needs no workspace.
    pub(crate) fn reduce_rows_single_pass(
        &self,
        op: ReduceOp,
        x: u64,
        rows: usize,
        len: usize,
        out: u64,
        divisor: f32,
    ) -> Result<()> {
        let io = Io {
            xv: x,
            xi: 0,
            outv: out,
            outi: 0,
        };
        self.run_pass(Pass::RowsWarp { rows, len }, io, codes::reduce(op), divisor)
    }

    /// Reduces the `outer x len x inner` values at device address `x` into `out`
    /// (`outer x inner` floats), in one or two passes.
    #[allow(clippy::too_many_arguments)]
    fn reduce_ptrs(
        &self,
        op: ReduceOp,
        x: u64,
        outer: usize,
        len: usize,
        inner: usize,
        out: u64,
        divisor: f32,
    ) -> Result<()> {
        let code = codes::reduce(op);
        let arg = matches!(op, ReduceOp::ArgMax | ReduceOp::ArgMin);
        let plan = plan(outer, len, inner, self.info.sm_count as usize);
        let Some(second) = plan.second else {
            let io = Io {
                xv: x,
                xi: 0,
                outv: out,
                outi: 0,
            };
            return self.run_pass(plan.first, io, code, divisor);
        };
        // Both passes go out while the workspace is locked, so no other operation can
        // overwrite the partials in between.
        let mut ws = self.workspace();
        let scratch = ws.ensure(&self.stream, &self.counters, "reduce", plan.scratch)?;
        let partial_idx = if arg { scratch.idx } else { 0 };
        let first = Io {
            xv: x,
            xi: 0,
            outv: scratch.vals,
            outi: partial_idx,
        };
        self.run_pass(plan.first, first, code, divisor)?;
        let second_io = Io {
            xv: scratch.vals,
            xi: partial_idx,
            outv: out,
            outi: 0,
        };
        self.run_pass(second, second_io, code, divisor)
    }

    pub(crate) fn reduce(
        &self,
        op: ReduceOp,
        x: &CudaStorage,
        outer: usize,
        len: usize,
        inner: usize,
        out: &mut CudaStorage,
    ) -> Result<()> {
        let out_len = product("reduce", outer, inner)?;
        check_len("reduce", "x", x.len, product("reduce", out_len, len)?)?;
        check_len("reduce", "out", out.len, out_len)?;
        if out_len == 0 {
            return Ok(());
        }
        if len == 0 {
            return match op {
                ReduceOp::Sum => self.fill("reduce", out, 0.0),
                ReduceOp::Mean => self.fill("reduce", out, f32::NAN),
                _ => Err(Error::InvalidArgument {
                    op: "reduce",
                    reason: format!("{op:?} of an empty axis is undefined"),
                }),
            };
        }
        if len > u32::MAX as usize && matches!(op, ReduceOp::ArgMax | ReduceOp::ArgMin) {
            return Err(Error::InvalidArgument {
                op: "reduce",
                reason: format!("{op:?} over an axis of {len} elements: positions must fit in u32"),
            });
        }
        let divisor = if op == ReduceOp::Mean {
            len as f32
        } else {
            1.0
        };
        self.reduce_ptrs(op, x.ptr(), outer, len, inner, out.ptr(), divisor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Replays a plan on the host with the kernels' index arithmetic (sums only), so the
    /// chunking and partial layouts are checked without a GPU.
    fn replay(plan: &ReducePlan, x: &[f64], outer: usize, len: usize, inner: usize) -> Vec<f64> {
        fn pass(p: Pass, x: &[f64]) -> Vec<f64> {
            match p {
                Pass::RowsWarp { rows, len } => (0..rows)
                    .map(|r| x[r * len..(r + 1) * len].iter().sum())
                    .collect(),
                Pass::RowsBlock {
                    rows,
                    len,
                    chunk,
                    chunks,
                } => {
                    let mut out = vec![0.0; rows * chunks];
                    for (u, slot) in out.iter_mut().enumerate() {
                        let (row, ch) = (u / chunks, u % chunks);
                        let begin = ch * chunk;
                        let end = (begin + chunk).min(len);
                        *slot = x[row * len + begin..row * len + end].iter().sum();
                    }
                    out
                }
                Pass::Cols {
                    outer,
                    len,
                    inner,
                    chunk,
                    chunks,
                    ..
                } => {
                    let mut out = vec![0.0; outer * chunks * inner];
                    for o in 0..outer {
                        for ch in 0..chunks {
                            let begin = ch * chunk;
                            let end = (begin + chunk).min(len);
                            for i in 0..inner {
                                let s: f64 =
                                    (begin..end).map(|l| x[(o * len + l) * inner + i]).sum();
                                out[(o * chunks + ch) * inner + i] = s;
                            }
                        }
                    }
                    out
                }
            }
        }
        let first = pass(plan.first, x);
        let out = match plan.second {
            Some(s) => {
                assert!(first.len() <= plan.scratch.max(outer * inner));
                pass(s, &first)
            }
            None => first,
        };
        assert_eq!(out.len(), outer * inner);
        let _ = len;
        out
    }

    #[test]
    fn plans_cover_every_shape_exactly() {
        let shapes = [
            (1, 1, 1),
            (1, 7, 1),
            (33, 1, 1),
            (1, 1000, 1),
            (1, 1025, 1),
            (1, 100_000, 1),
            (3, 50_000, 1),
            (2000, 2000, 1),
            (1, 7, 3),
            (1, 100_000, 2),
            (5, 3000, 33),
            (4, 9, 1000),
            (1, 5000, 64),
            (100, 3, 100),
        ];
        for (outer, len, inner) in shapes {
            let plan = plan(outer, len, inner, 132);
            let x: Vec<f64> = (0..outer * len * inner).map(|i| (i % 97) as f64).collect();
            let mut expected = vec![0.0; outer * inner];
            for o in 0..outer {
                for l in 0..len {
                    for i in 0..inner {
                        expected[o * inner + i] += x[(o * len + l) * inner + i];
                    }
                }
            }
            assert_eq!(
                replay(&plan, &x, outer, len, inner),
                expected,
                "{outer}x{len}x{inner}: {plan:?}"
            );
        }
    }

    #[test]
    fn long_axes_are_split_and_short_ones_are_not() {
        let p = plan(1, 10_000_000, 1, 132);
        match p.first {
            Pass::RowsBlock { chunks, chunk, .. } => {
                assert!(chunks > 100 && chunks <= MAX_CHUNKS);
                assert!(chunk * chunks >= 10_000_000);
                assert!(chunk * (chunks - 1) < 10_000_000);
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(
            p.second,
            Some(Pass::RowsWarp {
                rows: 1,
                len: match p.first {
                    Pass::RowsBlock { chunks, .. } => chunks,
                    _ => 0,
                }
            })
        );
        assert_eq!(plan(60_000, 10, 1, 132).second, None);
        assert!(matches!(
            plan(60_000, 10, 1, 132).first,
            Pass::RowsWarp { .. }
        ));
        // Column sums of a tall matrix split the rows.
        let p = plan(1, 1_000_000, 4, 132);
        assert!(matches!(p.first, Pass::Cols { chunks, bx: 4, by: 64, .. } if chunks > 1));
        assert!(p.scratch <= 4 * MAX_CHUNKS);
        // Wide outputs need no split.
        assert_eq!(plan(512, 300, 512, 132).second, None);
    }

    #[test]
    fn column_blocks_have_256_threads_in_powers_of_two() {
        for inner in [2, 3, 5, 17, 32, 33, 1000] {
            match plan(3, 10, inner, 8).first {
                Pass::Cols { bx, by, .. } => {
                    assert_eq!(bx * by, 256);
                    assert!(by.is_power_of_two() && bx.is_power_of_two());
                }
                other => panic!("{other:?}"),
            }
        }
    }
}
