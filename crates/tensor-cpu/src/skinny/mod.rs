//! Matrix products with one long dimension and two short ones: the layers of a small MLP
//! over a large batch (`X W`, `dZ W^T`, `W dZ^T`) and their weight gradients (`X^T dZ`),
//! where every short dimension is at most [`SHORT`].
//!
//! A general GEMM packs both operands into blocks before its micro-kernel runs; with a short
//! shared dimension (32 or 64), or a result of a few columns, the packing costs about half
//! as much as the arithmetic. These products need no packing: the short operand fits in L1,
//! and vector kernels read the long one in place, either as outer products (a tile of `C`
//! in registers updated with one row of `op(B)` per step, [`outer`]) or, when `op(B)` is
//! only contiguous along its columns, as dot products ([`dot`]). Each kernel is written
//! once and instantiated for the AVX2, AVX-512 and NEON paths ([`crate::simd`]); every
//! path gives the same bits. On the scalar path nothing here runs (the general GEMM does).
//!
//! Cuts between threads depend on the shape alone, and each element of `C` is computed by
//! the same operations wherever it falls, so results do not depend on the thread count. A
//! long shared dimension is cut into chunks of [`K_CHUNK`] whose partial products are added
//! in order, as the general path does.

#![cfg_attr(
    not(any(target_arch = "x86_64", target_arch = "aarch64")),
    allow(dead_code, unused_imports)
)]

use crate::kernel::{relu, relu_grad};
use crate::simd::SimdPath;

mod dot;
mod outer;

/// The longest short dimension served here: `op(B)` (at most `SHORT x SHORT` when it is
/// the short operand) is copied to the stack when its rows are not contiguous.
pub(crate) const SHORT: usize = 64;
/// The shortest long dimension served here.
const LONG: usize = 512;
/// Rows (or columns) of the long dimension per parallel task: a multiple of every tile size.
const TASK_LONG: usize = 768;
/// The chunks a long shared dimension is cut into; each chunk's partial product is computed
/// on its own, then the partials are added in chunk order.
const K_CHUNK: usize = 8192;
/// Steps of the shared dimension per pass over `C` inside a chunk: both operands' slices
/// (at most 2 x 128 KB) stay in L2.
const K_BLOCK: usize = 512;
/// Products of fewer multiply-adds stay on the calling thread.
const PAR_FLOPS: usize = 1 << 21;

/// What happens to each element of the product before it is written, after `alpha` and
/// `beta`: nothing, a bias added along the rows (then a ReLU), or the product multiplied by
/// ReLU's derivative at a matrix of `C`'s shape (1 where it is above 0, else 0).
#[derive(Clone, Copy)]
pub(crate) enum Epilogue<'a> {
    /// `C` as computed.
    None,
    /// `C + bias`, then ReLU when `relu`.
    Bias { bias: &'a [f32], relu: bool },
    /// `C * relu'(at)`.
    ReluGrad { at: &'a [f32] },
}

/// The epilogue as the kernels see it: raw pointers moved along with the tile.
#[derive(Clone, Copy, PartialEq, Eq)]
enum EpiKind {
    None,
    Bias,
    BiasRelu,
    ReluGrad,
}

/// The scalar epilogue of one element: `v` is the scaled product, `bias` the column's bias
/// and `at` the element's ReLU input (each read only where the kind needs it).
///
/// # Safety
/// The pointers must be valid where `kind` reads them.
#[inline(always)]
unsafe fn epilogue_scalar(kind: EpiKind, v: f32, bias: *const f32, at: *const f32) -> f32 {
    // SAFETY: forwarded from the caller.
    unsafe {
        match kind {
            EpiKind::None => v,
            EpiKind::Bias => v + *bias,
            EpiKind::BiasRelu => relu(v + *bias),
            EpiKind::ReluGrad => v * relu_grad(*at),
        }
    }
}

/// How a tile of `C` is written.
#[derive(Clone, Copy)]
enum Write {
    /// `C = alpha * sum + beta * C` (`C` is not read when `beta` is 0).
    Scaled { alpha: f32, beta: f32 },
    /// `C += sum`, continuing a sum begun by an earlier pass.
    Continue,
}

/// The operands and result of a block of a product, as raw pointers and strides: element
/// `(i, p)` of `op(A)` is at `a + i * ars + p * acs`, element `(p, j)` of `op(B)` at
/// `b + p * brs + j * bcs`, element `(i, j)` of `C` at `c + i * ldc + j`.
#[derive(Clone, Copy)]
struct Region {
    a: *const f32,
    ars: usize,
    acs: usize,
    b: *const f32,
    brs: usize,
    bcs: usize,
    c: *mut f32,
    ldc: usize,
    k: usize,
    /// The epilogue, its bias (moved along the columns) and its matrix (laid out as `C`).
    epi: EpiKind,
    bias: *const f32,
    at: *const f32,
}

impl Region {
    /// The block whose top-left element of `C` is `(i, j)`.
    fn at(&self, i: usize, j: usize) -> Region {
        Region {
            a: self.a.wrapping_add(i * self.ars),
            b: self.b.wrapping_add(j * self.bcs),
            c: self.c.wrapping_add(i * self.ldc + j),
            bias: self.bias.wrapping_add(j),
            at: self.at.wrapping_add(i * self.ldc + j),
            ..*self
        }
    }

    /// The same block over steps `p0..p0 + k` of the shared dimension.
    fn steps(&self, p0: usize, k: usize) -> Region {
        Region {
            a: self.a.wrapping_add(p0 * self.acs),
            b: self.b.wrapping_add(p0 * self.brs),
            k,
            ..*self
        }
    }
}

// SAFETY: a region is only handed to another thread together with exclusive ownership of
// its block of `C`; its operands are read-only.
unsafe impl Send for Region {}
// SAFETY: as above; shared references only ever read the operands.
unsafe impl Sync for Region {}

/// Which kernel computes a product.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kernel {
    Outer,
    Dot,
}

/// `C = epi(alpha * op(A) op(B) + beta * C)` when the shape is one this module serves and
/// a vector path runs ([`available`]); returns `false` (nothing done) otherwise. The epilogue's
/// buffers must have `n` (bias) or `m n` (ReLU input) elements. `a` and `b` are read with
/// (row, column) strides `va` and `vb`; lengths are checked by the caller; `alpha != 0`
/// and `k > 0`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn gemm(
    (m, n, k): (usize, usize, usize),
    alpha: f32,
    a: &[f32],
    va: (usize, usize),
    b: &[f32],
    vb: (usize, usize),
    beta: f32,
    c: &mut [f32],
    epi: Epilogue<'_>,
) -> bool {
    {
        if !available() {
            return false;
        }
        let short = |d: usize| d <= SHORT;
        let tall = m >= LONG && short(k) && short(n);
        let wide = n >= LONG && short(m) && short(k);
        let reduce = k >= LONG && short(m) && short(n);
        if !(tall || wide || reduce) {
            return false;
        }
        let mut packed = [0f32; SHORT * SHORT];
        let (b_ptr, vb, kernel) = if vb.1 == 1 {
            (b.as_ptr(), vb, Kernel::Outer)
        } else if tall {
            // op(B) is short and read across its rows: copy it row-major.
            for p in 0..k {
                for j in 0..n {
                    packed[p * n + j] = b[p * vb.0 + j * vb.1];
                }
            }
            (packed.as_ptr(), (n, 1), Kernel::Outer)
        } else if va.1 == 1 && vb.0 == 1 {
            (b.as_ptr(), vb, Kernel::Dot)
        } else {
            return false;
        };
        let (kind, bias, at) = match epi {
            Epilogue::None => (EpiKind::None, std::ptr::null(), std::ptr::null()),
            Epilogue::Bias { bias, relu } => {
                let kind = if relu {
                    EpiKind::BiasRelu
                } else {
                    EpiKind::Bias
                };
                (kind, bias.as_ptr(), std::ptr::null())
            }
            Epilogue::ReluGrad { at } => (EpiKind::ReluGrad, std::ptr::null(), at.as_ptr()),
        };
        let r = Region {
            epi: kind,
            bias,
            at,
            a: a.as_ptr(),
            ars: va.0,
            acs: va.1,
            b: b_ptr,
            brs: vb.0,
            bcs: vb.1,
            c: c.as_mut_ptr(),
            ldc: n,
            k,
        };
        let w = Write::Scaled { alpha, beta };
        let parallel = m * n * k >= PAR_FLOPS && rayon::current_num_threads() > 1;
        // SAFETY: the caller checked that the strides stay inside `a`, `b` (or `packed`)
        // and `c`; each task owns its block of `c`.
        unsafe {
            if reduce {
                along_k(m, n, &r, kernel, alpha, beta, c);
            } else if tall {
                cut(m, parallel, |i0, rows| {
                    run(kernel, rows, n, &r.at(i0, 0), w)
                });
            } else {
                cut(n, parallel, |j0, cols| {
                    run(kernel, m, cols, &r.at(0, j0), w)
                });
            }
        }
        true
    }
}

/// Runs `kernel` over a `rows x cols` block, compiled for the path that runs.
///
/// # Safety
/// As for [`outer::region`] or [`dot::region`]; [`available`] must be true.
unsafe fn run(kernel: Kernel, rows: usize, cols: usize, r: &Region, w: Write) {
    // SAFETY: forwarded.
    unsafe { run_on(crate::simd::active(), kernel, rows, cols, r, w) }
}

crate::simd::multiversion! {
    /// The outer-product kernel ([`outer::region`]) on `path`, a vector path.
    unsafe fn outer_on(rows: usize, cols: usize, r: &Region, w: Write);
    avx512 uses avx512, V => outer::region::<V>(rows, cols, r, w);
    otherwise => unreachable!("the skinny kernels run only on a vector path");
}

crate::simd::multiversion! {
    /// The dot-product kernel ([`dot::region`]) on `path`, a vector path.
    unsafe fn dot_on(rows: usize, cols: usize, r: &Region, w: Write);
    avx512 uses avx2, V => dot::region::<V>(rows, cols, r, w);
    otherwise => unreachable!("the skinny kernels run only on a vector path");
}

/// [`run`] compiled for `path`.
///
/// # Safety
/// As for [`run`]; the CPU must have `path`, a vector path.
unsafe fn run_on(path: SimdPath, kernel: Kernel, rows: usize, cols: usize, r: &Region, w: Write) {
    // SAFETY: forwarded.
    unsafe {
        match kernel {
            Kernel::Outer => outer_on(path, rows, cols, r, w),
            Kernel::Dot => dot_on(path, rows, cols, r, w),
        }
    }
}

/// Calls `f(start, len)` for consecutive pieces of `0..long`, [`TASK_LONG`] long, in
/// parallel when `parallel`.
fn cut(long: usize, parallel: bool, f: impl Fn(usize, usize) + Sync) {
    use rayon::prelude::*;
    let piece = |t: usize| f(t * TASK_LONG, TASK_LONG.min(long - t * TASK_LONG));
    let pieces = long.div_ceil(TASK_LONG);
    if parallel {
        (0..pieces).into_par_iter().for_each(piece);
    } else {
        (0..pieces).for_each(piece);
    }
}

/// A product with a long shared dimension: the partial products of its [`K_CHUNK`]s in
/// parallel, each in passes of [`K_BLOCK`] steps, then their sum in order into `c`.
///
/// # Safety
/// As for [`run`], over the whole `m x n` result.
unsafe fn along_k(
    m: usize,
    n: usize,
    r: &Region,
    kernel: Kernel,
    alpha: f32,
    beta: f32,
    c: &mut [f32],
) {
    use rayon::prelude::*;
    let k = r.k;
    let chunks = k.div_ceil(K_CHUNK);
    let mut partials = vec![0f32; chunks * m * n];
    let chunk = |(t, part): (usize, &mut [f32])| {
        let k0 = t * K_CHUNK;
        let kc = K_CHUNK.min(k - k0);
        let out = Region {
            c: part.as_mut_ptr(),
            epi: EpiKind::None,
            ..*r
        };
        for p0 in (0..kc).step_by(K_BLOCK) {
            let w = if p0 == 0 {
                Write::Scaled {
                    alpha: 1.0,
                    beta: 0.0,
                }
            } else {
                Write::Continue
            };
            let steps = K_BLOCK.min(kc - p0);
            // SAFETY: steps k0 + p0.. of the operands lie inside them; `part` is this
            // chunk's own m x n block.
            unsafe { run(kernel, m, n, &out.steps(k0 + p0, steps), w) };
        }
    };
    if chunks > 1 && rayon::current_num_threads() > 1 {
        partials.par_chunks_mut(m * n).enumerate().for_each(chunk);
    } else {
        partials.chunks_mut(m * n).enumerate().for_each(chunk);
    }
    for (idx, out) in c.iter_mut().enumerate() {
        let mut sum = partials[idx];
        for t in 1..chunks {
            sum += partials[t * m * n + idx];
        }
        let v = if beta == 0.0 {
            alpha * sum
        } else {
            alpha * sum + beta * *out
        };
        let (bias, at) = (r.bias.wrapping_add(idx % n), r.at.wrapping_add(idx));
        // SAFETY: the bias has n values and the ReLU input m n, where the kind reads them.
        *out = unsafe { epilogue_scalar(r.epi, v, bias, at) };
    }
}

/// Whether the kernels of this module run: on every vector path of [`crate::simd`] (AVX2,
/// AVX-512, NEON), not on the scalar one.
pub(crate) fn available() -> bool {
    crate::simd::active() != SimdPath::Scalar
}

/// One operand of a [`Block`]: element `(i, p)` at `ptr + i * rs + p * cs`.
#[derive(Clone, Copy)]
pub(crate) struct Operand {
    pub(crate) ptr: *const f32,
    pub(crate) rs: usize,
    pub(crate) cs: usize,
}

impl Operand {
    /// The transpose, read in place.
    pub(crate) fn t(self) -> Operand {
        Operand {
            rs: self.cs,
            cs: self.rs,
            ..self
        }
    }
}

/// How a [`Block`] writes its result.
#[derive(Clone, Copy)]
pub(crate) enum BlockWrite {
    /// `C = sum`.
    Set,
    /// `C += sum`, continuing the sum of an earlier block over earlier steps.
    Add,
    /// `C = sum + bias` along the rows, then ReLU when `relu`.
    Bias { bias: *const f32, relu: bool },
    /// `C = sum * relu'(at)`, `at` laid out as `C` (it may be `C` itself).
    ReluGrad { at: *const f32 },
}

/// A product `C (m x n) = op(A) (m x k) op(B) (k x n)` that its caller has already cut to a
/// size for one thread: computed on the calling thread by the outer-product kernel when the
/// rows of `op(B)` are contiguous, else by the dot-product kernel (which needs the rows of
/// `op(A)` and the columns of `op(B)` contiguous). `m`, `n` and `k` may take any size.
#[derive(Clone, Copy)]
pub(crate) struct Block {
    pub(crate) m: usize,
    pub(crate) n: usize,
    pub(crate) k: usize,
    pub(crate) a: Operand,
    pub(crate) b: Operand,
    pub(crate) c: *mut f32,
    pub(crate) ldc: usize,
}

/// Computes `block` on the calling thread, written as `write` says.
///
/// # Safety
/// [`available`] must be true; the operands must be readable and `C` (with `at`, the bias)
/// valid for the block's extent; `op(B)` must have contiguous rows (`b.cs == 1`) or else
/// `a.cs == 1` and `b.rs == 1`; no other thread may touch the block of `C`.
pub(crate) unsafe fn block(block: &Block, write: BlockWrite) {
    let (epi, bias, at) = match write {
        BlockWrite::Set | BlockWrite::Add => (EpiKind::None, std::ptr::null(), std::ptr::null()),
        BlockWrite::Bias { bias, relu } => {
            let kind = if relu {
                EpiKind::BiasRelu
            } else {
                EpiKind::Bias
            };
            (kind, bias, std::ptr::null())
        }
        BlockWrite::ReluGrad { at } => (EpiKind::ReluGrad, std::ptr::null(), at),
    };
    let r = Region {
        a: block.a.ptr,
        ars: block.a.rs,
        acs: block.a.cs,
        b: block.b.ptr,
        brs: block.b.rs,
        bcs: block.b.cs,
        c: block.c,
        ldc: block.ldc,
        k: block.k,
        epi,
        bias,
        at,
    };
    let w = match write {
        BlockWrite::Add => Write::Continue,
        _ => Write::Scaled {
            alpha: 1.0,
            beta: 0.0,
        },
    };
    let kernel = if block.b.cs == 1 {
        Kernel::Outer
    } else {
        Kernel::Dot
    };
    // SAFETY: forwarded from the caller.
    unsafe { run(kernel, block.m, block.n, &r, w) }
}

#[cfg(test)]
mod tests;
