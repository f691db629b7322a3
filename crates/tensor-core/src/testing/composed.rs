//! [`Composed`]: a backend's primitives with every fused operation left to its default
//! composition, the second reference each fused kernel is checked against.

use crate::{Backend, BinaryOp, Counters, Gemm, ReduceOp, Result, Shape, UnaryOp};

/// Runs every primitive on the wrapped backend and every fused operation through the
/// trait's default composition of those primitives.
#[derive(Debug, Clone)]
pub struct Composed<B>(pub B);

impl<B: Backend> Backend for Composed<B> {
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
        src: &Self::Storage,
        src_offset: usize,
        dst: &mut Self::Storage,
        dst_offset: usize,
        len: usize,
    ) -> Result<()> {
        self.0.copy_slice(src, src_offset, dst, dst_offset, len)
    }
    fn copy_block(
        &self,
        src: &Self::Storage,
        src_cols: usize,
        dst: &mut Self::Storage,
        dst_cols: usize,
        col_offset: usize,
        rows: usize,
    ) -> Result<()> {
        self.0
            .copy_block(src, src_cols, dst, dst_cols, col_offset, rows)
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
        op: BinaryOp,
        a: &Self::Storage,
        a_shape: &Shape,
        b: &Self::Storage,
        b_shape: &Shape,
        out: &mut Self::Storage,
        out_shape: &Shape,
    ) -> Result<()> {
        self.0.binary(op, a, a_shape, b, b_shape, out, out_shape)
    }
    fn binary_assign(
        &self,
        op: BinaryOp,
        a: &mut Self::Storage,
        a_shape: &Shape,
        b: &Self::Storage,
        b_shape: &Shape,
    ) -> Result<()> {
        self.0.binary_assign(op, a, a_shape, b, b_shape)
    }
    fn reduce(
        &self,
        op: ReduceOp,
        x: &Self::Storage,
        outer: usize,
        len: usize,
        inner: usize,
        out: &mut Self::Storage,
    ) -> Result<()> {
        self.0.reduce(op, x, outer, len, inner, out)
    }
    fn gather_rows(
        &self,
        src: &Self::Storage,
        src_rows: usize,
        cols: usize,
        index: &Self::Index,
        start: usize,
        count: usize,
        dst: &mut Self::Storage,
    ) -> Result<()> {
        self.0
            .gather_rows(src, src_rows, cols, index, start, count, dst)
    }
}
