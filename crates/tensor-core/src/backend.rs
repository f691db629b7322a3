//! The backend traits: [`Primitives`] (device memory, transfers and the primitive
//! operations), [`FusedOps`] (the fused operations of the hot paths) and [`Backend`], the two
//! together.

use crate::mlp_pass::{MlpPass, MlpPassOut};
use crate::params::{
    AdamMoments, BiasAct, BinaryAssignSpec, BinarySpec, BlockCopy, FourierFeatures, GatherSpec,
    GemmActGrad, GemmBiasAct, HashGridLookup, HashGridScatter, LossGrad, ReduceSpec, SliceCopy,
};
use crate::{Activation, AdamStep, Gemm, Result, SgdStep, UnaryOp};
use std::fmt;

/// Activity counters a backend keeps, so tests can check what a step did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counters {
    /// Buffers allocated (CPU: vectors; GPU: pool allocations).
    pub allocations: u64,
    /// Bytes copied from the host to the device.
    pub bytes_uploaded: u64,
    /// Bytes copied from the device to the host.
    pub bytes_downloaded: u64,
    /// Kernels launched (GPU) or operations run (CPU).
    pub launches: u64,
}

/// A compute device: [`Primitives`] and [`FusedOps`] together. Implemented for every type
/// that implements both; models and tensors are generic over `B: Backend`.
///
/// Every buffer holds `f32`s in row-major order; shapes are tracked by
/// [`Tensor`](crate::Tensor). Output buffers are passed in by the caller so that hot
/// paths can reuse them. Operations of more than four arguments take a parameter struct
/// (see [`params`](crate::params)).
///
/// Every fused operation is a required method: a backend (and a wrapper around one) names
/// for each either its own kernel or the default composition from primitives in
/// [`fused`](crate::fused) (`fused::bias_act(self, p, z, out)`), so that no override is
/// lost by omission.
///
/// # The contract
///
/// Every backend follows these rules; the conformance suite (`tensor_core::testing`, behind
/// the `testing` feature) checks each of them against f64 references, and every backend's
/// tests run it.
///
/// **Buffer lengths are exact.** Each buffer must hold exactly the number of elements the
/// operation's dimensions call for (`m * k` for GEMM's `a`, `outer * inner` for a
/// reduction's `out`, one element for a loss, ...); a longer buffer is as wrong as a
/// shorter one. A wrong length is refused with [`Error::BufferLength`](crate::Error)
/// (naming the operation in `op` and the buffer), before anything is written. The
/// exceptions are ranges into a buffer: [`copy_slice`](Primitives::copy_slice) reads and writes
/// `len` elements at offsets in buffers of any length, [`copy_block`](Primitives::copy_block)'s
/// columns must fit in `dst_cols`, and [`gather_rows`](Primitives::gather_rows) reads
/// `index[start..start + count]` from an index buffer of any length and row numbers below
/// `src_rows`; a range or row outside its buffer is [`Error::OutOfBounds`](crate::Error).
/// Dimensions whose product overflows `usize` are [`Error::InvalidArgument`](crate::Error).
/// Errors name the trait method in `op`. No input makes a backend panic.
///
/// **Shapes.** [`binary`](Primitives::binary) needs operands that broadcast
/// ([`Error::Broadcast`](crate::Error) otherwise) and an `out_shape` that is their broadcast;
/// [`binary_assign`](Primitives::binary_assign) needs `b` to broadcast to `a_shape` exactly.
/// A wrong result shape is [`Error::ShapeMismatch`](crate::Error).
///
/// **Empty inputs** are valid everywhere: an operation with no elements to write succeeds
/// and writes nothing. A GEMM with `k == 0` writes `beta * C` (zeros when `beta == 0`).
/// Reducing an empty axis (`len == 0`, `outer * inner > 0`) gives 0 for a sum and NaN for a
/// mean (as PyTorch), and [`Error::InvalidArgument`](crate::Error) for max, min, argmax and
/// argmin, which have no value there. The loss of an empty batch (`rows * cols == 0`) is NaN,
/// the mean over zero elements as PyTorch's mean reduction gives, on every path: the fused
/// kernels and the default composition alike.
///
/// **NaN and infinities follow IEEE arithmetic and PyTorch.** Arithmetic with NaN gives NaN;
/// comparisons with NaN are false (masks of 0, and the `x > 0` of `Step`, ReLU's and leaky
/// ReLU's derivatives); `Maximum`, `Minimum`, `Clamp` and ReLU return NaN for a NaN input
/// (as `torch.maximum`, `torch.clamp` and `torch.relu`, not as `f32::max`). Max and min
/// reductions are NaN when the reduced values hold a NaN, and argmax and argmin then point at
/// the first NaN (as `torch.argmax`); otherwise they point at the first extreme on ties. Sums
/// and means with NaN are NaN; `inf + (-inf)` is NaN.
///
/// **GEMM follows BLAS:** `alpha == 0` does not read `A` or `B` (NaN or infinities there do
/// not reach `C`, which becomes `beta * C`), and `beta == 0` does not read `C` (NaN there is
/// overwritten). Otherwise NaN and infinities in `A` and `B` propagate as in arithmetic.
///
/// **Values.** Element-wise results match [`UnaryOp::apply`], [`BinaryOp::apply`] and the
/// [`Activation`] functions (the definitions; evaluated in f64, a backend's f32 result is
/// within a few units in the last place, see the suite for each tolerance). Reductions,
/// GEMM and losses may sum in any order, within `1e-4` of the sum of the magnitudes of their
/// terms. In-place variants (`unary_assign`, `binary_assign`) give the same bits as their
/// out-of-place forms. Fused operations agree with their default compositions (the
/// functions in [`fused`](crate::fused)) within the same tolerances, NaN for NaN.
pub trait Backend: Primitives + FusedOps {}

impl<T: Primitives + FusedOps> Backend for T {}

/// Device memory, transfers and the primitive operations, from which every fused operation
/// can be composed. See [`Backend`] for the contract.
pub trait Primitives: Clone + Send + Sync + fmt::Debug + 'static {
    /// A buffer of `f32` in device memory.
    type Storage: Send + Sync;
    /// A buffer of row indices in device memory (for gathers).
    type Index: Send + Sync;

    /// A human-readable description of the device.
    fn name(&self) -> String;
    /// The activity counters so far.
    fn counters(&self) -> Counters;
    /// Waits until every queued operation has finished.
    fn synchronize(&self) -> Result<()>;
    /// Runs `work` and returns the milliseconds the device spent on what it queued, read
    /// from the device's own clock after waiting for it (CUDA events on a GPU), or `None`
    /// where the device has no clock of its own (the CPU: time the call on the host).
    fn device_time_ms(&self, work: &mut dyn FnMut() -> Result<()>) -> Result<Option<f64>> {
        work()?;
        Ok(None)
    }

    /// A buffer of `len` elements with unspecified contents.
    fn alloc(&self, len: usize) -> Result<Self::Storage>;
    /// The number of elements in a buffer.
    fn storage_len(&self, storage: &Self::Storage) -> usize;
    /// A new buffer holding `data`.
    fn upload(&self, data: &[f32]) -> Result<Self::Storage>;
    /// Copies `data` into an existing buffer of exactly its length (buffer `dst`).
    fn upload_into(&self, data: &[f32], dst: &mut Self::Storage) -> Result<()>;
    /// Copies a buffer to the host.
    fn download(&self, storage: &Self::Storage) -> Result<Vec<f32>>;
    /// The values of a buffer where the host can read them in place (the CPU's); `None`
    /// where they must be copied to the host first.
    fn host_slice<'a>(&self, storage: &'a Self::Storage) -> Option<&'a [f32]> {
        let _ = storage;
        None
    }
    /// A new buffer holding `data`, taking it over where host memory is the device's (no
    /// copy on the CPU); a copy of it elsewhere.
    fn upload_vec(&self, data: Vec<f32>) -> Result<Self::Storage> {
        self.upload(&data)
    }
    /// The values of a buffer on the host, the buffer itself where host memory is the
    /// device's (no copy on the CPU).
    fn download_vec(&self, storage: Self::Storage) -> Result<Vec<f32>> {
        self.download(&storage)
    }
    /// A new index buffer holding `indices`.
    fn upload_indices(&self, indices: &[u32]) -> Result<Self::Index>;
    /// The number of indices in an index buffer.
    fn index_len(&self, index: &Self::Index) -> usize;

    /// Sets every element of `dst` to `value`.
    fn fill(&self, dst: &mut Self::Storage, value: f32) -> Result<()>;
    /// Copies `range.len` elements from `src[range.src_offset..]` to
    /// `dst[range.dst_offset..]`; both ranges must lie inside their buffers
    /// ([`Error::OutOfBounds`](crate::Error) otherwise).
    fn copy_slice(
        &self,
        range: SliceCopy,
        src: &Self::Storage,
        dst: &mut Self::Storage,
    ) -> Result<()>;
    /// Copies a `rows x src_cols` matrix (`src`) into columns
    /// `col_offset..col_offset + src_cols` of a `rows x dst_cols` matrix (`dst`), leaving the
    /// other columns alone.
    fn copy_block(
        &self,
        block: BlockCopy,
        src: &Self::Storage,
        dst: &mut Self::Storage,
    ) -> Result<()>;
    /// Writes the transpose of the `rows x cols` matrix `src` into `dst` (`cols x rows`).
    fn transpose(
        &self,
        src: &Self::Storage,
        rows: usize,
        cols: usize,
        dst: &mut Self::Storage,
    ) -> Result<()>;
    /// Row-major GEMM, see [`Gemm`]: buffers `a` (`m * k`), `b` (`k * n`) and `c` (`m * n`).
    fn gemm(
        &self,
        spec: Gemm,
        a: &Self::Storage,
        b: &Self::Storage,
        c: &mut Self::Storage,
    ) -> Result<()>;
    /// `out = op(x)` element-wise; `x` and `out` have the same length.
    fn unary(&self, op: UnaryOp, x: &Self::Storage, out: &mut Self::Storage) -> Result<()>;
    /// `x = op(x)` element-wise.
    fn unary_assign(&self, op: UnaryOp, x: &mut Self::Storage) -> Result<()>;
    /// `out = op(a, b)` with broadcasting; `spec.out_shape` is the broadcast of the two
    /// shapes.
    fn binary(
        &self,
        spec: BinarySpec<'_>,
        a: &Self::Storage,
        b: &Self::Storage,
        out: &mut Self::Storage,
    ) -> Result<()>;
    /// `a = op(a, b)` where `b` broadcasts to `spec.a_shape` (and the result has that shape).
    fn binary_assign(
        &self,
        spec: BinaryAssignSpec<'_>,
        a: &mut Self::Storage,
        b: &Self::Storage,
    ) -> Result<()>;
    /// Reduces `x`, seen as `outer x len x inner`, along the middle axis into
    /// `out` (`outer x inner`). See the contract for empty axes and NaN.
    fn reduce(&self, spec: ReduceSpec, x: &Self::Storage, out: &mut Self::Storage) -> Result<()>;
    /// `dst[r, :] = src[index[start + r], :]` for `r < count`; `src` is `src_rows x cols`
    /// and `dst` is `count x cols`. An index of `src_rows` or more is
    /// [`Error::OutOfBounds`](crate::Error).
    fn gather_rows(
        &self,
        spec: GatherSpec,
        src: &Self::Storage,
        index: &Self::Index,
        dst: &mut Self::Storage,
    ) -> Result<()>;
}

/// The fused operations of the hot paths. Each is required: an implementation names either
/// its own kernel or the default composition from primitives in [`fused`](crate::fused)
/// (or [`hashgrid`](crate::hashgrid) and [`mlp_pass`](crate::mlp_pass)), and agrees with
/// that composition within the contract's tolerances.
pub trait FusedOps: Primitives {
    /// `z += bias` (bias broadcast over the `rows x cols` matrix `z`), then `out = act(z)`.
    /// Default: [`fused::bias_act`](crate::fused::bias_act).
    fn bias_act(
        &self,
        p: BiasAct<'_, Self::Storage>,
        z: &mut Self::Storage,
        out: &mut Self::Storage,
    ) -> Result<()>;

    /// `c = act(alpha * op(A) op(B) + bias)`, the bias (`[n]`) broadcast over the rows of
    /// the `m x n` result: a dense layer's forward pass without its pre-activation.
    /// `p.gemm.beta` must be 0 (an [`Error::InvalidArgument`](crate::Error) otherwise). The
    /// result is the one [`gemm`](Primitives::gemm) into a buffer followed by
    /// [`bias_act`](Self::bias_act) would give.
    /// Default: [`fused::gemm_bias_act`](crate::fused::gemm_bias_act).
    fn gemm_bias_act(&self, p: GemmBiasAct<'_, Self::Storage>, c: &mut Self::Storage)
    -> Result<()>;

    /// A whole training pass of a ReLU network with a mean-squared-error loss (see
    /// [`mlp_pass`](crate::mlp_pass)). Returns `Ok(false)` without writing anything when the
    /// backend has no fused version for this network: the caller then runs the layers one
    /// at a time. Shapes are checked by
    /// [`relu_mlp_mse_pass`](crate::mlp_pass::relu_mlp_mse_pass) before this is called.
    /// Default: [`mlp_pass::unfused`](crate::mlp_pass::unfused).
    fn relu_mlp_mse_pass(
        &self,
        pass: &MlpPass<'_, Self::Storage>,
        out: MlpPassOut<'_, '_, Self::Storage>,
    ) -> Result<bool>;

    /// `c = (alpha * op(A) op(B)) * act'(at)` element-wise, `at` having the shape of the
    /// `m x n` result: the gradient through an activation, fused into the matrix product
    /// that computes the gradient with respect to its output. For ReLU, `act'` at the
    /// activation's output equals `act'` at its input, so `at` may be either.
    /// `p.gemm.beta` must be 0. The result is the one [`gemm`](Primitives::gemm) into a
    /// buffer followed by [`act_backward`](Self::act_backward) would give.
    /// Default: [`fused::gemm_act_grad`](crate::fused::gemm_act_grad).
    fn gemm_act_grad(&self, p: GemmActGrad<'_, Self::Storage>, c: &mut Self::Storage)
    -> Result<()>;

    /// `grad_z = grad_out * act'(z)`.
    /// Default: [`fused::act_backward`](crate::fused::act_backward).
    fn act_backward(
        &self,
        grad_out: &Self::Storage,
        z: &Self::Storage,
        act: Activation,
        grad_z: &mut Self::Storage,
    ) -> Result<()>;

    /// The loss of `pred` against `target` (both `rows x cols`) into the one-element
    /// `loss`, and its gradient with respect to `pred` into `grad`. An empty batch gives a
    /// NaN loss. Default: [`fused::loss_grad`](crate::fused::loss_grad).
    fn loss_grad(
        &self,
        p: LossGrad<'_, Self::Storage>,
        grad: &mut Self::Storage,
        loss: &mut Self::Storage,
    ) -> Result<()>;

    /// One Adam/AdamW update of `param` from `grad`, updating the moments.
    /// Default: [`fused::adam_step`](crate::fused::adam_step).
    fn adam_step(
        &self,
        step: AdamStep,
        param: &mut Self::Storage,
        grad: &Self::Storage,
        moments: AdamMoments<'_, Self::Storage>,
    ) -> Result<()>;

    /// One SGD update of `param` from `grad`, with an optional momentum buffer
    /// (`velocity`, of `param`'s length whenever it is given; read and written only when
    /// `step.momentum != 0`). Default: [`fused::sgd_step`](crate::fused::sgd_step).
    fn sgd_step(
        &self,
        step: SgdStep,
        param: &mut Self::Storage,
        grad: &Self::Storage,
        velocity: Option<&mut Self::Storage>,
    ) -> Result<()>;

    /// Fourier features of `x` (`rows x d`) with frequencies `freqs` (`d x m`):
    /// `out = [sin(2 pi x b), cos(2 pi x b)]` (`rows x 2m`).
    /// Default: [`fused::fourier_features`](crate::fused::fourier_features).
    fn fourier_features(
        &self,
        p: FourierFeatures<'_, Self::Storage>,
        out: &mut Self::Storage,
    ) -> Result<()>;

    /// Hash-grid encoding (see [`hashgrid`](crate::hashgrid) for the definition and the
    /// layouts): `n` points (`n x d`, coordinates in `[0, 1]`, clamped) looked up in the
    /// tables ([`HashGridSpec::param_count`](crate::HashGridSpec::param_count) values) into
    /// `out`, `n` points of [`HashGridSpec::output_dim`](crate::HashGridSpec::output_dim)
    /// features in `p.layout`. Default (on the host):
    /// [`hashgrid::host_forward`](crate::hashgrid::host_forward).
    fn hashgrid_forward(
        &self,
        p: HashGridLookup<'_, Self::Storage>,
        out: &mut Self::Storage,
    ) -> Result<()>;

    /// The backward pass of [`hashgrid_forward`](Self::hashgrid_forward): scatters
    /// `p.grad_features` (in `p.layout`) into `grad_tables` (the tables' layout), adding to
    /// its contents when `p.accumulate` is set and overwriting them otherwise. The sums may
    /// be added in any order (the CUDA backend uses atomics); the CPU backend adds each
    /// entry's terms in point order, whatever the thread count. Default (on the host):
    /// [`hashgrid::host_backward`](crate::hashgrid::host_backward).
    fn hashgrid_backward(
        &self,
        p: HashGridScatter<'_, Self::Storage>,
        grad_tables: &mut Self::Storage,
    ) -> Result<()>;
}
