//! The backend traits: [`Primitives`] (device memory, transfers and the primitive
//! operations), [`FusedOps`](crate::fused) (the fused operations of the hot paths, one
//! trait each) and [`Backend`], the two
//! together.

use crate::fused::FusedOps;
use crate::params::{BinaryAssignSpec, BinarySpec, BlockCopy, GatherSpec, ReduceSpec, SliceCopy};
use crate::{Gemm, Result, UnaryOp};
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
/// Each fused operation is a trait of one required method, in its own module of
/// [`fused`](crate::fused): a backend names for each either its own kernel or the default
/// composition from primitives (`fused::bias_act::composed(self, p, z, out)`); a backend
/// that lacks one of the traits is not a `Backend`, so no operation is lost by omission.
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
/// **Values.** Element-wise results match [`UnaryOp::apply`], [`BinaryOp::apply`](crate::BinaryOp::apply) and the
/// [`Activation`](crate::Activation) functions (the definitions; evaluated in f64, a backend's f32 result is
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
    /// Whether independent work given from several threads at once runs side by side on
    /// this device (a CPU with more than one thread) rather than in turn (the one stream of
    /// a GPU): a caller with independent models to train may then train them at the same
    /// time. `false` unless a backend says otherwise.
    fn runs_side_by_side(&self) -> bool {
        false
    }
    /// Runs `work`, one of several independent jobs given at once from threads of their
    /// own (where [`runs_side_by_side`](Self::runs_side_by_side)), so that it does not
    /// compete with the others for the device's threads (the CPU runs it on one thread of
    /// its own: the same results, as they do not depend on the thread count). Runs it as
    /// it is unless a backend says otherwise.
    fn run_beside<T: Send>(&self, work: impl FnOnce() -> T + Send) -> T
    where
        Self: Sized,
    {
        work()
    }
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
