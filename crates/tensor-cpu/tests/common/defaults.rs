//! `Defaults`: a backend that runs `CpuBackend`'s primitives but keeps every fused
//! operation's default composition from `tensor-core`, so tests can check the defaults and
//! the CPU overrides against each other.

use tensor_core::{Backend, BinaryOp, Counters, Gemm, ReduceOp, Result, Shape, UnaryOp};
use tensor_cpu::CpuBackend;

/// `CpuBackend` without its fused overrides.
#[derive(Debug, Clone, Default)]
pub struct Defaults(pub CpuBackend);

impl Backend for Defaults {
    type Storage = Vec<f32>;
    type Index = Vec<u32>;

    fn name(&self) -> String {
        format!("defaults over {}", self.0.name())
    }
    fn counters(&self) -> Counters {
        self.0.counters()
    }
    fn alloc(&self, len: usize) -> Result<Vec<f32>> {
        self.0.alloc(len)
    }
    fn storage_len(&self, storage: &Vec<f32>) -> usize {
        self.0.storage_len(storage)
    }
    fn upload(&self, data: &[f32]) -> Result<Vec<f32>> {
        self.0.upload(data)
    }
    fn upload_into(&self, data: &[f32], dst: &mut Vec<f32>) -> Result<()> {
        self.0.upload_into(data, dst)
    }
    fn download(&self, storage: &Vec<f32>) -> Result<Vec<f32>> {
        self.0.download(storage)
    }
    fn upload_indices(&self, indices: &[u32]) -> Result<Vec<u32>> {
        self.0.upload_indices(indices)
    }
    fn index_len(&self, index: &Vec<u32>) -> usize {
        self.0.index_len(index)
    }
    fn fill(&self, dst: &mut Vec<f32>, value: f32) -> Result<()> {
        self.0.fill(dst, value)
    }
    fn copy_slice(
        &self,
        src: &Vec<f32>,
        src_offset: usize,
        dst: &mut Vec<f32>,
        dst_offset: usize,
        len: usize,
    ) -> Result<()> {
        self.0.copy_slice(src, src_offset, dst, dst_offset, len)
    }
    fn copy_block(
        &self,
        src: &Vec<f32>,
        src_cols: usize,
        dst: &mut Vec<f32>,
        dst_cols: usize,
        col_offset: usize,
        rows: usize,
    ) -> Result<()> {
        self.0
            .copy_block(src, src_cols, dst, dst_cols, col_offset, rows)
    }
    fn transpose(
        &self,
        src: &Vec<f32>,
        rows: usize,
        cols: usize,
        dst: &mut Vec<f32>,
    ) -> Result<()> {
        self.0.transpose(src, rows, cols, dst)
    }
    fn gemm(&self, spec: Gemm, a: &Vec<f32>, b: &Vec<f32>, c: &mut Vec<f32>) -> Result<()> {
        self.0.gemm(spec, a, b, c)
    }
    fn unary(&self, op: UnaryOp, x: &Vec<f32>, out: &mut Vec<f32>) -> Result<()> {
        self.0.unary(op, x, out)
    }
    fn unary_assign(&self, op: UnaryOp, x: &mut Vec<f32>) -> Result<()> {
        self.0.unary_assign(op, x)
    }
    fn binary(
        &self,
        op: BinaryOp,
        a: &Vec<f32>,
        a_shape: &Shape,
        b: &Vec<f32>,
        b_shape: &Shape,
        out: &mut Vec<f32>,
        out_shape: &Shape,
    ) -> Result<()> {
        self.0.binary(op, a, a_shape, b, b_shape, out, out_shape)
    }
    fn binary_assign(
        &self,
        op: BinaryOp,
        a: &mut Vec<f32>,
        a_shape: &Shape,
        b: &Vec<f32>,
        b_shape: &Shape,
    ) -> Result<()> {
        self.0.binary_assign(op, a, a_shape, b, b_shape)
    }
    fn reduce(
        &self,
        op: ReduceOp,
        x: &Vec<f32>,
        outer: usize,
        len: usize,
        inner: usize,
        out: &mut Vec<f32>,
    ) -> Result<()> {
        self.0.reduce(op, x, outer, len, inner, out)
    }
    fn gather_rows(
        &self,
        src: &Vec<f32>,
        src_rows: usize,
        cols: usize,
        index: &Vec<u32>,
        start: usize,
        count: usize,
        dst: &mut Vec<f32>,
    ) -> Result<()> {
        self.0
            .gather_rows(src, src_rows, cols, index, start, count, dst)
    }
}
