//! The fused training pass of a small ReLU network (`Backend::relu_mlp_mse_pass`): the
//! batch is cut into chunks of rows (at least [`MIN_CHUNKS`], at most [`MAX_CHUNK`] rows
//! each), each chunk walked in tiles of [`TILE`] rows that stay in L2 from the first layer
//! to the last and back ([`tile`]).
//!
//! Each chunk adds its tiles' weight and bias gradients, in order, into gradients of its
//! own; the chunks' gradients are then added in chunk order. The cuts depend on the shape
//! alone, so the results do not depend on the number of threads. The products are the
//! kernels of [`skinny`](crate::skinny) on blocks of a tile, so every element of an
//! activation or a gradient is computed by the same operations as in the layer-by-layer
//! products, except that sums over the batch (weight and bias gradients, the loss) are
//! added in another order, and that the outputs of a narrow layer (a few outputs, such as
//! a colour) are dot products summed across vector lanes: the two paths differ by rounding
//! only.
//!
//! Served on every vector path of [`crate::simd`] where every width is at most [`WIDEST`];
//! elsewhere the pass answers `false` and the caller runs the layers one by one.

mod columns;
mod tile;
mod transpose;

use crate::skinny;
use rayon::prelude::*;
use tensor_core::Result;
use tensor_core::check::{buffer_len, elements};
use tensor_core::mlp_pass::{MlpPass, MlpPassOut};
use tile::{Net, Sums};

/// The widest layer served. Layers wider than a tile's L2 share still gain from the pass
/// over the layer-by-layer products, which pack their operands: one hidden layer of 256
/// to 512 on a hash grid's 48 features trains in 45 to 55% of the time (tiles of 128
/// rows at those widths were slower than tiles of 512).
pub(crate) const WIDEST: usize = 512;

/// Rows of a tile: at widths of 64 its activations (128 KB a layer) stay in L2.
const TILE: usize = 512;
/// The fewest chunks a batch is cut into, while chunks hold at least one tile and at most
/// [`MAX_CHUNK`] rows: enough chunks that threads slowed down by other work on the machine
/// are waited for little at the end of a pass.
const MIN_CHUNKS: usize = 32;
/// The most rows of a chunk.
const MAX_CHUNK: usize = 4 * TILE;

const OP: &str = "relu_mlp_mse_pass";

/// Rows per chunk for a batch of `rows`: a multiple of [`TILE`].
fn chunk_rows(rows: usize) -> usize {
    rows.div_ceil(MIN_CHUNKS)
        .div_ceil(TILE)
        .saturating_mul(TILE)
        .clamp(TILE, MAX_CHUNK)
}

/// A pointer to the input gradient, written by every chunk in its own rows (or columns).
#[derive(Clone, Copy)]
struct Shared(*mut f32);
// SAFETY: chunks write disjoint parts of the buffer behind the pointer.
unsafe impl Send for Shared {}
// SAFETY: as above.
unsafe impl Sync for Shared {}

impl Shared {
    /// The pointer (a method, so that closures capture the whole `Shared`).
    fn get(self) -> *mut f32 {
        self.0
    }
}

/// Runs the pass; `Ok(false)` where it is not served (see the module docs).
pub(crate) fn relu_mlp_mse_pass(
    pass: &MlpPass<'_, Vec<f32>>,
    out: MlpPassOut<'_, '_, Vec<f32>>,
) -> Result<bool> {
    let dims = pass.dims;
    let layers = dims.len().saturating_sub(1);
    if layers == 0 || !dims.iter().all(|&d| (1..=WIDEST).contains(&d)) || !skinny::available() {
        return Ok(false);
    }
    let rows = pass.rows;
    buffer_len(OP, "input", pass.input.len(), elements(OP, rows, dims[0])?)?;
    buffer_len(
        OP,
        "target",
        pass.target.len(),
        elements(OP, rows, dims[layers])?,
    )?;
    buffer_len(OP, "loss", out.loss.len(), 1)?;
    if pass.weights.len() != layers
        || pass.biases.len() != layers
        || out.weight_grads.len() != layers
        || out.bias_grads.len() != layers
    {
        return Err(tensor_core::Error::InvalidArgument {
            op: OP,
            reason: format!("{layers} layers need {layers} weights, biases and gradients of each"),
        });
    }
    for l in 0..layers {
        let (i, o) = (dims[l], dims[l + 1]);
        buffer_len(OP, "weight", pass.weights[l].len(), i * o)?;
        buffer_len(OP, "bias", pass.biases[l].len(), o)?;
        buffer_len(OP, "weight gradient", out.weight_grads[l].len(), i * o)?;
        buffer_len(OP, "bias gradient", out.bias_grads[l].len(), o)?;
    }
    if let Some(g) = &out.input_grad {
        buffer_len(OP, "input gradient", g.len(), rows * dims[0])?;
    }
    if rows == 0 {
        // The mean over no element; no gradient.
        out.loss[0] = f32::NAN;
        out.weight_grads.iter_mut().for_each(|g| g.fill(0.0));
        out.bias_grads.iter_mut().for_each(|g| g.fill(0.0));
        return Ok(true);
    }
    let net = Net::new(pass, out.input_grad.is_some());
    let input_grad = Shared(
        out.input_grad
            .map_or(std::ptr::null_mut(), |g| g.as_mut_ptr()),
    );
    let chunk = chunk_rows(rows);
    let chunks = rows.div_ceil(chunk);
    let run = |scratch: &mut tile::Scratch, c: usize| {
        let r0 = c * chunk;
        // SAFETY: `net` was built from buffers of the checked lengths; chunk `c` writes
        // only rows r0..r0 + len of the input gradient.
        unsafe { net.chunk(r0, chunk.min(rows - r0), input_grad.get(), scratch) }
    };
    let sums: Vec<Sums> = if chunks > 1 && rayon::current_num_threads() > 1 {
        (0..chunks)
            .into_par_iter()
            .map_init(|| net.scratch(), run)
            .collect()
    } else {
        let mut scratch = net.scratch();
        (0..chunks).map(|c| run(&mut scratch, c)).collect()
    };
    let (first, rest) = sums.split_first().expect("at least one chunk");
    for l in 0..layers {
        add_in_order(&mut out.weight_grads[l][..], &first.weights[l], rest, |s| {
            &s.weights[l]
        });
        add_in_order(&mut out.bias_grads[l][..], &first.biases[l], rest, |s| {
            &s.biases[l]
        });
    }
    let loss: f64 = sums.iter().map(|s| s.loss).sum();
    out.loss[0] = (loss / (rows as f64 * dims[layers] as f64)) as f32;
    Ok(true)
}

/// `out = first + rest[0] + rest[1] + ...`, element by element, in that order.
fn add_in_order(out: &mut [f32], first: &[f32], rest: &[Sums], part: impl Fn(&Sums) -> &[f32]) {
    out.copy_from_slice(first);
    for s in rest {
        out.iter_mut().zip(part(s)).for_each(|(o, v)| *o += v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_hold_whole_tiles_and_at_most_max_chunk_rows() {
        assert_eq!(chunk_rows(1), TILE);
        assert_eq!(chunk_rows(16384), TILE);
        assert_eq!(chunk_rows(16385), 2 * TILE);
        assert_eq!(chunk_rows(65536), MAX_CHUNK);
        assert_eq!(chunk_rows(1 << 20), MAX_CHUNK);
    }
}
