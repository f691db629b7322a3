//! The `CpuBackend` type: buffers, transfers and counters.

use crate::skinny::Epilogue;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use tensor_core::check::{buffer_len, check_fused_gemm};
use tensor_core::mlp_pass::{MlpPass, MlpPassOut};
use tensor_core::params::{
    AdamMoments, BiasAct, BinaryAssignSpec, BinarySpec, BlockCopy, FourierFeatures, GatherSpec,
    GemmActGrad, GemmBiasAct, HashGridLookup, HashGridScatter, LossGrad, ReduceSpec, SliceCopy,
};
use tensor_core::{
    Activation, AdamStep, Counters, FusedOps, Gemm, Primitives, Result, SgdStep, UnaryOp,
};

#[derive(Debug, Default)]
struct AtomicCounters {
    allocations: AtomicU64,
    bytes_uploaded: AtomicU64,
    bytes_downloaded: AtomicU64,
    launches: AtomicU64,
}

/// Tensors in host memory, computed with rayon and `matrixmultiply`.
///
/// Cloning is cheap; clones share their counters.
#[derive(Debug, Clone, Default)]
pub struct CpuBackend {
    counters: Arc<AtomicCounters>,
}

impl CpuBackend {
    /// A CPU backend using rayon's global thread pool. Its kernels run the vector path of
    /// [`crate::simd_path`]; where `IRON_LEARN_SIMD` asks for a path this CPU lacks, the
    /// path detected from the CPU ([`CpuBackend::try_new`] refuses instead).
    pub fn new() -> Self {
        Self::default()
    }

    /// [`CpuBackend::new`], or the one-line reason `IRON_LEARN_SIMD` is refused (a name
    /// that is no path, or a path this CPU lacks).
    pub fn try_new() -> Result<Self> {
        crate::simd::simd_path()?;
        Ok(Self::new())
    }

    pub(crate) fn count_alloc(&self) {
        self.counters.allocations.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn count_op(&self) {
        self.counters.launches.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn count_up(&self, bytes: usize) {
        self.counters
            .bytes_uploaded
            .fetch_add(bytes as u64, Ordering::Relaxed);
    }

    pub(crate) fn count_down(&self, bytes: usize) {
        self.counters
            .bytes_downloaded
            .fetch_add(bytes as u64, Ordering::Relaxed);
    }

    pub(crate) fn snapshot(&self) -> Counters {
        Counters {
            allocations: self.counters.allocations.load(Ordering::Relaxed),
            bytes_uploaded: self.counters.bytes_uploaded.load(Ordering::Relaxed),
            bytes_downloaded: self.counters.bytes_downloaded.load(Ordering::Relaxed),
            launches: self.counters.launches.load(Ordering::Relaxed),
        }
    }
}

impl Primitives for CpuBackend {
    type Storage = Vec<f32>;
    type Index = Vec<u32>;

    fn name(&self) -> String {
        format!(
            "cpu ({} threads, {})",
            rayon::current_num_threads(),
            crate::simd::active()
        )
    }

    fn counters(&self) -> Counters {
        self.snapshot()
    }

    fn synchronize(&self) -> Result<()> {
        Ok(())
    }

    fn alloc(&self, len: usize) -> Result<Vec<f32>> {
        self.count_alloc();
        Ok(vec![0.0; len])
    }

    fn storage_len(&self, storage: &Vec<f32>) -> usize {
        storage.len()
    }

    fn upload(&self, data: &[f32]) -> Result<Vec<f32>> {
        self.count_alloc();
        self.count_up(std::mem::size_of_val(data));
        Ok(data.to_vec())
    }

    fn host_slice<'a>(&self, storage: &'a Vec<f32>) -> Option<&'a [f32]> {
        Some(storage)
    }

    fn upload_vec(&self, data: Vec<f32>) -> Result<Vec<f32>> {
        self.count_alloc();
        self.count_up(std::mem::size_of_val(data.as_slice()));
        Ok(data)
    }

    fn download_vec(&self, storage: Vec<f32>) -> Result<Vec<f32>> {
        self.count_down(std::mem::size_of_val(storage.as_slice()));
        Ok(storage)
    }

    fn upload_into(&self, data: &[f32], dst: &mut Vec<f32>) -> Result<()> {
        buffer_len("upload_into", "dst", dst.len(), data.len())?;
        self.count_up(std::mem::size_of_val(data));
        dst.copy_from_slice(data);
        Ok(())
    }

    fn download(&self, storage: &Vec<f32>) -> Result<Vec<f32>> {
        self.count_down(std::mem::size_of_val(storage.as_slice()));
        Ok(storage.clone())
    }

    fn upload_indices(&self, indices: &[u32]) -> Result<Vec<u32>> {
        self.count_alloc();
        self.count_up(std::mem::size_of_val(indices));
        Ok(indices.to_vec())
    }

    fn index_len(&self, index: &Vec<u32>) -> usize {
        index.len()
    }

    fn fill(&self, dst: &mut Vec<f32>, value: f32) -> Result<()> {
        self.count_op();
        crate::parallel::for_chunks_mut(dst, |_, c| c.fill(value));
        Ok(())
    }

    fn copy_slice(&self, range: SliceCopy, src: &Vec<f32>, dst: &mut Vec<f32>) -> Result<()> {
        self.count_op();
        let SliceCopy {
            src_offset,
            dst_offset,
            len,
        } = range;
        crate::copy::copy_slice(src, src_offset, dst, dst_offset, len)
    }

    fn copy_block(&self, block: BlockCopy, src: &Vec<f32>, dst: &mut Vec<f32>) -> Result<()> {
        self.count_op();
        let BlockCopy {
            rows,
            src_cols,
            dst_cols,
            col_offset,
        } = block;
        crate::copy::copy_block(src, src_cols, dst, dst_cols, col_offset, rows)
    }

    fn transpose(
        &self,
        src: &Vec<f32>,
        rows: usize,
        cols: usize,
        dst: &mut Vec<f32>,
    ) -> Result<()> {
        self.count_op();
        crate::copy::transpose(src, rows, cols, dst)
    }

    fn gemm(&self, spec: Gemm, a: &Vec<f32>, b: &Vec<f32>, c: &mut Vec<f32>) -> Result<()> {
        self.count_op();
        crate::gemm::gemm(spec, a, b, c)
    }

    fn unary(&self, op: UnaryOp, x: &Vec<f32>, out: &mut Vec<f32>) -> Result<()> {
        self.count_op();
        buffer_len("unary", "out", out.len(), x.len())?;
        crate::unary::unary(op, x, out);
        Ok(())
    }

    fn unary_assign(&self, op: UnaryOp, x: &mut Vec<f32>) -> Result<()> {
        self.count_op();
        crate::unary::unary_assign(op, x);
        Ok(())
    }

    fn binary(
        &self,
        spec: BinarySpec<'_>,
        a: &Vec<f32>,
        b: &Vec<f32>,
        out: &mut Vec<f32>,
    ) -> Result<()> {
        self.count_op();
        let BinarySpec {
            op,
            a_shape,
            b_shape,
            out_shape,
        } = spec;
        crate::binary::binary(op, a, a_shape, b, b_shape, out, out_shape)
    }

    fn binary_assign(
        &self,
        spec: BinaryAssignSpec<'_>,
        a: &mut Vec<f32>,
        b: &Vec<f32>,
    ) -> Result<()> {
        self.count_op();
        crate::binary::binary_assign(spec.op, a, spec.a_shape, b, spec.b_shape)
    }

    fn reduce(&self, spec: ReduceSpec, x: &Vec<f32>, out: &mut Vec<f32>) -> Result<()> {
        self.count_op();
        let ReduceSpec {
            op,
            outer,
            len,
            inner,
        } = spec;
        crate::reduce::reduce(op, x, outer, len, inner, out)
    }

    fn gather_rows(
        &self,
        spec: GatherSpec,
        src: &Vec<f32>,
        index: &Vec<u32>,
        dst: &mut Vec<f32>,
    ) -> Result<()> {
        self.count_op();
        let GatherSpec {
            src_rows,
            cols,
            start,
            count,
        } = spec;
        crate::copy::gather_rows(src, src_rows, cols, index, start, count, dst)
    }
}

impl FusedOps for CpuBackend {
    fn bias_act(
        &self,
        p: BiasAct<'_, Vec<f32>>,
        z: &mut Vec<f32>,
        out: &mut Vec<f32>,
    ) -> Result<()> {
        self.count_op();
        crate::fused::bias_act(z, p.bias, p.rows, p.cols, p.act, out)
    }

    fn relu_mlp_mse_pass(
        &self,
        pass: &MlpPass<'_, Vec<f32>>,
        out: MlpPassOut<'_, '_, Vec<f32>>,
    ) -> Result<bool> {
        self.count_op();
        crate::mlp_pass::relu_mlp_mse_pass(pass, out)
    }

    fn gemm_bias_act(&self, p: GemmBiasAct<'_, Vec<f32>>, c: &mut Vec<f32>) -> Result<()> {
        use Activation::{Identity, Relu};
        self.count_op();
        let GemmBiasAct {
            gemm: spec,
            a,
            b,
            bias,
            act,
        } = p;
        let n = check_fused_gemm(self, "gemm_bias_act", &spec, ("bias", bias, spec.n), c)?;
        if let Identity | Relu = act {
            let epi = Epilogue::Bias {
                bias,
                relu: act == Relu,
            };
            return crate::gemm::gemm_then(spec, a, b, c, epi);
        }
        let mut z = vec![0.0; n];
        crate::gemm::gemm(spec, a, b, &mut z)?;
        crate::fused::bias_act(&mut z, bias, spec.m, spec.n, act, c)
    }

    fn gemm_act_grad(&self, p: GemmActGrad<'_, Vec<f32>>, c: &mut Vec<f32>) -> Result<()> {
        self.count_op();
        let GemmActGrad {
            gemm: spec,
            a,
            b,
            at,
            act,
        } = p;
        let n = check_fused_gemm(self, "gemm_act_grad", &spec, ("at", at, c.len()), c)?;
        if act == Activation::Relu {
            return crate::gemm::gemm_then(spec, a, b, c, Epilogue::ReluGrad { at });
        }
        let mut g = vec![0.0; n];
        crate::gemm::gemm(spec, a, b, &mut g)?;
        crate::fused::act_backward(&g, at, act, c)
    }

    fn act_backward(
        &self,
        grad_out: &Vec<f32>,
        z: &Vec<f32>,
        act: Activation,
        grad_z: &mut Vec<f32>,
    ) -> Result<()> {
        self.count_op();
        crate::fused::act_backward(grad_out, z, act, grad_z)
    }

    fn loss_grad(
        &self,
        p: LossGrad<'_, Vec<f32>>,
        grad: &mut Vec<f32>,
        loss: &mut Vec<f32>,
    ) -> Result<()> {
        self.count_op();
        let LossGrad {
            kind,
            pred,
            target,
            rows,
            cols,
        } = p;
        crate::fused::loss_grad(kind, pred, target, rows, cols, grad, loss)
    }

    fn adam_step(
        &self,
        step: AdamStep,
        param: &mut Vec<f32>,
        grad: &Vec<f32>,
        moments: AdamMoments<'_, Vec<f32>>,
    ) -> Result<()> {
        self.count_op();
        crate::fused::adam_step(step, param, grad, moments.m, moments.v)
    }

    fn sgd_step(
        &self,
        step: SgdStep,
        param: &mut Vec<f32>,
        grad: &Vec<f32>,
        velocity: Option<&mut Vec<f32>>,
    ) -> Result<()> {
        self.count_op();
        crate::fused::sgd_step(step, param, grad, velocity)
    }

    fn fourier_features(&self, p: FourierFeatures<'_, Vec<f32>>, out: &mut Vec<f32>) -> Result<()> {
        self.count_op();
        let FourierFeatures {
            x,
            freqs,
            rows,
            d,
            m,
        } = p;
        crate::fourier::fourier_features(x, freqs, rows, d, m, out)
    }

    fn hashgrid_forward(&self, p: HashGridLookup<'_, Vec<f32>>, out: &mut Vec<f32>) -> Result<()> {
        self.count_op();
        let HashGridLookup {
            spec,
            layout,
            points,
            n,
            tables,
        } = p;
        crate::hashgrid::forward(spec, layout, points, n, tables, out)
    }

    fn hashgrid_backward(
        &self,
        p: HashGridScatter<'_, Vec<f32>>,
        grad_tables: &mut Vec<f32>,
    ) -> Result<()> {
        self.count_op();
        let HashGridScatter {
            spec,
            layout,
            points,
            n,
            grad_features,
            accumulate,
        } = p;
        crate::hashgrid::backward(
            spec,
            layout,
            points,
            n,
            grad_features,
            grad_tables,
            accumulate,
        )
    }
}
