//! [`Composed`]: a backend's primitives with every fused operation given to its default
//! composition, the second reference each fused kernel is checked against.

use crate::params::{BinaryAssignSpec, BinarySpec, BlockCopy, GatherSpec, ReduceSpec, SliceCopy};
use crate::{Backend, Counters, Gemm, Primitives, Result, UnaryOp};

/// Runs every primitive on the wrapped backend and every fused operation through its
/// default composition of those primitives (each operation's `composed` in
/// [`fused`](crate::fused); the implementations are there, beside the compositions).
#[derive(Debug, Clone)]
pub struct Composed<B>(pub B);

impl<B: Backend> Primitives for Composed<B> {
    type Storage = B::Storage;
    type Index = B::Index;

    fn name(&self) -> String {
        format!("{} (default compositions)", self.0.name())
    }
    fn counters(&self) -> Counters {
        self.0.counters()
    }
    fn synchronize(&self) -> Result<()> {
        self.0.synchronize()
    }
    fn alloc(&self, len: usize) -> Result<Self::Storage> {
        self.0.alloc(len)
    }
    fn storage_len(&self, storage: &Self::Storage) -> usize {
        self.0.storage_len(storage)
    }
    fn upload(&self, data: &[f32]) -> Result<Self::Storage> {
        self.0.upload(data)
    }
    fn upload_into(&self, data: &[f32], dst: &mut Self::Storage) -> Result<()> {
        self.0.upload_into(data, dst)
    }
    fn download(&self, storage: &Self::Storage) -> Result<Vec<f32>> {
        self.0.download(storage)
    }
    fn host_slice<'a>(&self, storage: &'a Self::Storage) -> Option<&'a [f32]> {
        self.0.host_slice(storage)
    }
    fn upload_vec(&self, data: Vec<f32>) -> Result<Self::Storage> {
        self.0.upload_vec(data)
    }
    fn download_vec(&self, storage: Self::Storage) -> Result<Vec<f32>> {
        self.0.download_vec(storage)
    }
    fn upload_indices(&self, indices: &[u32]) -> Result<Self::Index> {
        self.0.upload_indices(indices)
    }
    fn index_len(&self, index: &Self::Index) -> usize {
        self.0.index_len(index)
    }
    fn fill(&self, dst: &mut Self::Storage, value: f32) -> Result<()> {
        self.0.fill(dst, value)
    }
    fn copy_slice(
        &self,
        range: SliceCopy,
        src: &Self::Storage,
        dst: &mut Self::Storage,
    ) -> Result<()> {
        self.0.copy_slice(range, src, dst)
    }
    fn copy_block(
        &self,
        block: BlockCopy,
        src: &Self::Storage,
        dst: &mut Self::Storage,
    ) -> Result<()> {
        self.0.copy_block(block, src, dst)
    }
    fn transpose(
        &self,
        src: &Self::Storage,
        rows: usize,
        cols: usize,
        dst: &mut Self::Storage,
    ) -> Result<()> {
        self.0.transpose(src, rows, cols, dst)
    }
    fn gemm(
        &self,
        spec: Gemm,
        a: &Self::Storage,
        b: &Self::Storage,
        c: &mut Self::Storage,
    ) -> Result<()> {
        self.0.gemm(spec, a, b, c)
    }
    fn unary(&self, op: UnaryOp, x: &Self::Storage, out: &mut Self::Storage) -> Result<()> {
        self.0.unary(op, x, out)
    }
    fn unary_assign(&self, op: UnaryOp, x: &mut Self::Storage) -> Result<()> {
        self.0.unary_assign(op, x)
    }
    fn binary(
        &self,
        spec: BinarySpec<'_>,
        a: &Self::Storage,
        b: &Self::Storage,
        out: &mut Self::Storage,
    ) -> Result<()> {
        self.0.binary(spec, a, b, out)
    }
    fn binary_assign(
        &self,
        spec: BinaryAssignSpec<'_>,
        a: &mut Self::Storage,
        b: &Self::Storage,
    ) -> Result<()> {
        self.0.binary_assign(spec, a, b)
    }
    fn reduce(&self, spec: ReduceSpec, x: &Self::Storage, out: &mut Self::Storage) -> Result<()> {
        self.0.reduce(spec, x, out)
    }
    fn gather_rows(
        &self,
        spec: GatherSpec,
        src: &Self::Storage,
        index: &Self::Index,
        dst: &mut Self::Storage,
    ) -> Result<()> {
        self.0.gather_rows(spec, src, index, dst)
    }
}
