//! One chunk of the fused pass, tile by tile: forward through every layer, the loss
//! gradient, then backward, each tile's activations overwritten in place by the gradients
//! that replace them.

use super::TILE;
use super::columns::add_rows;
use super::transpose::{transpose, transpose_matrix};
use crate::skinny::{Block, BlockWrite, Operand, block};
use tensor_core::FeatureLayout;
use tensor_core::mlp_pass::MlpPass;

/// Rows per weight-gradient product inside a tile: both operands' rows stay in L1 while
/// every tile of the gradient passes over them.
const K_STEP: usize = 128;
/// Layers with fewer outputs than this, and more inputs, are narrow: a product of theirs
/// with the outputs along the vector lanes would leave most lanes idle, so their forward
/// product runs as dot products and their weight gradient is computed transposed.
const NARROW: usize = 16;

/// The network and the batch, as raw pointers read by every chunk.
pub(super) struct Net<'a> {
    dims: &'a [usize],
    rows: usize,
    input: *const f32,
    layout: FeatureLayout,
    target: *const f32,
    weights: Vec<*const f32>,
    biases: Vec<*const f32>,
    /// `W_l^T` (`[dims[l + 1], dims[l]]` row-major), read by the input-gradient products;
    /// empty for the first layer when the input gradient is not wanted.
    transposed: Vec<Vec<f32>>,
    input_grad: bool,
    /// `2 / (rows * outputs)`, as the unfused loss computes it.
    grad_scale: f32,
}

// SAFETY: the pointers are only read, from buffers borrowed for the whole pass.
unsafe impl Send for Net<'_> {}
// SAFETY: as above.
unsafe impl Sync for Net<'_> {}

/// What a chunk adds up: its weight and bias gradients and its sum of squared errors.
pub(super) struct Sums {
    pub(super) weights: Vec<Vec<f32>>,
    pub(super) biases: Vec<Vec<f32>>,
    pub(super) loss: f64,
}

/// The buffers of one tile, reused by the chunks a worker runs: each layer's activations
/// (overwritten by their gradients), and the feature-major input and input gradient of the
/// tile copied point-major.
pub(super) struct Scratch {
    acts: Vec<Vec<f32>>,
    x: Vec<f32>,
    gx: Vec<f32>,
    /// Room for the largest weight matrix, where narrow layers' gradients are transposed.
    wt: Vec<f32>,
}

impl<'a> Net<'a> {
    /// The network of `pass`, with the transposed weights the backward products read.
    pub(super) fn new(pass: &MlpPass<'a, Vec<f32>>, input_grad: bool) -> Self {
        let dims = pass.dims;
        let layers = dims.len() - 1;
        let transposed = (0..layers)
            .map(|l| {
                if l == 0 && !input_grad {
                    return Vec::new();
                }
                let (i, o) = (dims[l], dims[l + 1]);
                let mut t = vec![0f32; i * o];
                transpose_matrix(pass.weights[l], i, o, &mut t);
                t
            })
            .collect();
        let outputs = (pass.rows * dims[layers]) as f64;
        Net {
            dims,
            rows: pass.rows,
            input: pass.input.as_ptr(),
            layout: pass.layout,
            target: pass.target.as_ptr(),
            weights: pass.weights.iter().map(|w| w.as_ptr()).collect(),
            biases: pass.biases.iter().map(|b| b.as_ptr()).collect(),
            transposed,
            input_grad,
            grad_scale: (2.0 * (1.0 / outputs)) as f32,
        }
    }

    /// Buffers for the tiles of this network.
    pub(super) fn scratch(&self) -> Scratch {
        let dims = self.dims;
        let feature_major = self.layout == FeatureLayout::FeatureMajor;
        let tile_input = if feature_major { TILE * dims[0] } else { 0 };
        Scratch {
            acts: dims[1..].iter().map(|&d| vec![0f32; TILE * d]).collect(),
            x: vec![0f32; tile_input],
            gx: vec![0f32; if self.input_grad { tile_input } else { 0 }],
            wt: vec![0f32; dims.windows(2).map(|w| w[0] * w[1]).max().unwrap_or(0)],
        }
    }

    /// Rows `start..start + rows` of the input, as the left operand of the first product:
    /// read in place when point-major; when feature-major, copied point-major into
    /// `scratch` first (in place, its rows would lie a whole batch apart, and a tile's
    /// rows would compete for the same few cache sets).
    fn input_rows(&self, start: usize, rows: usize, scratch: &mut [f32]) -> Operand {
        let d = self.dims[0];
        if self.layout == FeatureLayout::PointMajor {
            return Operand {
                ptr: self.input.wrapping_add(start * d),
                rs: d,
                cs: 1,
            };
        }
        assert!(scratch.len() >= rows * d, "a tile's scratch holds the tile");
        // SAFETY: features 0..d of points start..start + rows lie inside the input (the
        // caller's promise); the scratch holds `rows` rows of `d`.
        unsafe {
            transpose(
                self.input.add(start),
                self.rows,
                scratch.as_mut_ptr(),
                d,
                d,
                rows,
            )
        };
        Operand {
            ptr: scratch.as_ptr(),
            rs: d,
            cs: 1,
        }
    }

    /// Forward and backward over rows `r0..r0 + len`, tile after tile; the input
    /// gradient of those rows is written through `input_grad` when the pass computes it.
    ///
    /// # Safety
    /// The buffers behind `self` must have the lengths the pass checked, `r0 + len` must
    /// not exceed the rows, and no other thread may write rows `r0..r0 + len` of
    /// `input_grad`.
    pub(super) unsafe fn chunk(
        &self,
        r0: usize,
        len: usize,
        input_grad: *mut f32,
        scratch: &mut Scratch,
    ) -> Sums {
        let dims = self.dims;
        let layers = dims.len() - 1;
        let mut sums = Sums {
            weights: (0..layers)
                .map(|l| vec![0f32; dims[l] * dims[l + 1]])
                .collect(),
            biases: (0..layers).map(|l| vec![0f32; dims[l + 1]]).collect(),
            loss: 0.0,
        };
        let Scratch { acts, x, gx, wt } = scratch;
        for (t, start) in (r0..r0 + len).step_by(TILE).enumerate() {
            let rows = TILE.min(r0 + len - start);
            // SAFETY: forwarded; each tile stays inside the chunk.
            unsafe {
                let x = self.input_rows(start, rows, x);
                self.forward(x, rows, acts);
                sums.loss += self.loss_grad(start, rows, &mut acts[layers - 1]);
                let tile = Tile {
                    start,
                    rows,
                    first: t == 0,
                    x,
                };
                self.backward(&tile, acts, &mut sums, input_grad, gx);
            }
        }
        // Narrow layers' weight gradients were summed transposed.
        for (l, w) in sums.weights.iter_mut().enumerate() {
            if self.narrow(l) {
                let (i, o) = (dims[l], dims[l + 1]);
                let wt = &mut wt[..i * o];
                wt.copy_from_slice(w);
                transpose_matrix(wt, o, i, w);
            }
        }
        sums
    }

    /// Whether layer `l` is narrow (see [`NARROW`]).
    fn narrow(&self, l: usize) -> bool {
        let (i, o) = (self.dims[l], self.dims[l + 1]);
        o < NARROW && i > o
    }

    /// `acts[l]` = layer `l`'s output for the tile of `rows` rows at `start`.
    unsafe fn forward(&self, x: Operand, rows: usize, acts: &mut [Vec<f32>]) {
        let layers = acts.len();
        let mut a = x;
        for (l, out) in acts.iter_mut().enumerate() {
            let (k, n) = (self.dims[l], self.dims[l + 1]);
            let b = if self.narrow(l) && !self.transposed[l].is_empty() {
                // Read through `W^T`, so that the dot-product kernel serves it.
                Operand {
                    ptr: self.transposed[l].as_ptr(),
                    rs: 1,
                    cs: k,
                }
            } else {
                Operand {
                    ptr: self.weights[l],
                    rs: n,
                    cs: 1,
                }
            };
            let c = out.as_mut_ptr();
            let write = BlockWrite::Bias {
                bias: self.biases[l],
                relu: l + 1 < layers,
            };
            let blk = Block {
                m: rows,
                n,
                k,
                a,
                b,
                c,
                ldc: n,
            };
            // SAFETY: the tile's operands lie inside the input, the weight and `out`.
            unsafe { block(&blk, write) };
            a = Operand {
                ptr: c,
                rs: n,
                cs: 1,
            };
        }
    }

    /// The output of the tile (`y`, in place) becomes `2 (y - t) / (rows * outputs)`;
    /// returns the tile's sum of squared errors.
    unsafe fn loss_grad(&self, start: usize, rows: usize, y: &mut [f32]) -> f64 {
        let outputs = self.dims[self.dims.len() - 1];
        let n = rows * outputs;
        // SAFETY: the target has `self.rows * outputs` values.
        let target = unsafe { std::slice::from_raw_parts(self.target.add(start * outputs), n) };
        let mut sum = 0f64;
        for (p, &t) in y[..n].iter_mut().zip(target) {
            let d = *p - t;
            sum += (d as f64) * (d as f64);
            *p = d * self.grad_scale;
        }
        sum
    }

    /// Backward through the tile: adds the weight and bias gradients to `sums` (the first
    /// tile of a chunk sets them), turns `acts[l - 1]` into the gradient at layer `l`'s
    /// input (times ReLU's derivative), and writes the input gradient.
    unsafe fn backward(
        &self,
        tile: &Tile,
        acts: &mut [Vec<f32>],
        sums: &mut Sums,
        input_grad: *mut f32,
        scratch: &mut [f32],
    ) {
        let dims = self.dims;
        let rows = tile.rows;
        for l in (0..acts.len()).rev() {
            let (i, o) = (dims[l], dims[l + 1]);
            let (below, here) = acts.split_at_mut(l);
            let g = here[0].as_ptr();
            let a = match below.last() {
                Some(prev) => Operand {
                    ptr: prev.as_ptr(),
                    rs: i,
                    cs: 1,
                },
                None => tile.x,
            };
            let grad = Operand {
                ptr: g,
                rs: o,
                cs: 1,
            };
            // In steps of K_STEP rows, whose operands stay in L1 while every tile of the
            // gradient passes over them; the sum runs in the same order either way.
            // A narrow layer's is summed transposed, `grad^T a`, with the layer's
            // inputs along the lanes: each element is the same chain of multiply-adds.
            let narrow = self.narrow(l);
            for k0 in (0..rows).step_by(K_STEP) {
                let a_rows = Operand {
                    ptr: a.ptr.wrapping_add(k0 * a.rs),
                    ..a
                };
                let grad_rows = Operand {
                    ptr: grad.ptr.wrapping_add(k0 * o),
                    ..grad
                };
                let k = K_STEP.min(rows - k0);
                let c = sums.weights[l].as_mut_ptr();
                let dw = if narrow {
                    Block {
                        m: o,
                        n: i,
                        k,
                        a: grad_rows.t(),
                        b: a_rows,
                        c,
                        ldc: i,
                    }
                } else {
                    Block {
                        m: i,
                        n: o,
                        k,
                        a: a_rows.t(),
                        b: grad_rows,
                        c,
                        ldc: o,
                    }
                };
                let write = if tile.first && k0 == 0 {
                    BlockWrite::Set
                } else {
                    BlockWrite::Add
                };
                // SAFETY: the tile's activations and gradient are `rows` rows long.
                unsafe { block(&dw, write) };
            }
            add_rows(&here[0][..rows * o], &mut sums.biases[l]);
            if let Some(prev) = below.last_mut() {
                let blk = Block {
                    m: rows,
                    n: i,
                    k: o,
                    a: grad,
                    b: self.transposed_op(l),
                    c: prev.as_mut_ptr(),
                    ldc: i,
                };
                let at = prev.as_ptr();
                // SAFETY: in place: each element's ReLU input is read before it is written.
                unsafe { block(&blk, BlockWrite::ReluGrad { at }) };
            } else if self.input_grad {
                // SAFETY: the caller owns these rows of the input gradient.
                unsafe { self.input_grad_tile(tile, grad, input_grad, scratch) };
            }
        }
    }

    /// `W_l^T`, rows contiguous.
    fn transposed_op(&self, l: usize) -> Operand {
        Operand {
            ptr: self.transposed[l].as_ptr(),
            rs: self.dims[l],
            cs: 1,
        }
    }

    /// The input gradient of the tile, `grad W_0^T`, in the input's layout: written in
    /// place when point-major, else computed into `scratch` and copied feature-major.
    unsafe fn input_grad_tile(
        &self,
        tile: &Tile,
        grad: Operand,
        out: *mut f32,
        scratch: &mut [f32],
    ) {
        let (i, o) = (self.dims[0], self.dims[1]);
        let (start, rows) = (tile.start, tile.rows);
        let point_major = self.layout == FeatureLayout::PointMajor;
        let c = if point_major {
            out.wrapping_add(start * i)
        } else {
            scratch.as_mut_ptr()
        };
        let blk = Block {
            m: rows,
            n: i,
            k: o,
            a: grad,
            b: self.transposed_op(0),
            c,
            ldc: i,
        };
        // SAFETY: forwarded from the caller; `scratch` holds a tile of `i` columns.
        unsafe { block(&blk, BlockWrite::Set) };
        if point_major {
            return;
        }
        // SAFETY: features 0..i of points start..start + rows lie inside the gradient, in
        // the rows the caller owns; `scratch` holds `rows` rows of `i`.
        unsafe { transpose(scratch.as_ptr(), i, out.add(start), self.rows, rows, i) };
    }
}

/// The tile a backward pass works on: its rows, whether it is the first of its chunk, and
/// its input as the first product read it.
struct Tile {
    start: usize,
    rows: usize,
    first: bool,
    x: Operand,
}
