//! Gradients summed between the processes' GPUs with NCCL (the `nccl` feature), where every
//! process trains on a GPU; through MPI on the host otherwise.

use super::{World, world};
use crate::{Error, Result};
use std::any::Any;
use std::sync::{Arc, OnceLock};
use tensor_core::Tensor;
use tensor_cuda::CudaBackend;
use tensor_cuda::nccl::{GROUP_ID_BYTES, NcclGroup, new_group_id};

/// The world's NCCL group, once its processes have joined one.
static GROUP: OnceLock<Arc<GpuSums>> = OnceLock::new();

/// The world's processes as a trainer's [`nn::Replicas`] that sums on the GPUs.
#[derive(Debug)]
struct GpuSums {
    world: &'static World,
    group: NcclGroup,
}

impl nn::Replicas for GpuSums {
    fn rank(&self) -> usize {
        self.world.rank()
    }
    fn size(&self) -> usize {
        self.world.size()
    }
    fn sum(&self, values: &mut [f32]) -> std::result::Result<(), String> {
        self.world.sum(values).map_err(|e| e.to_string())
    }
    fn sums_on_device(&self) -> bool {
        true
    }
    fn sum_on_device(&self, values: &mut dyn Any) -> std::result::Result<(), String> {
        let t = values
            .downcast_mut::<Tensor<CudaBackend>>()
            .ok_or("the NCCL group sums GPU buffers only")?;
        self.group.sum_in_place(t).map_err(|e| e.to_string())
    }
}

/// Decides, with every other process, how the world's runs sum their gradients: where every
/// process trains on a GPU (`gpu` given on each), they join one NCCL group and from then on
/// sum on the GPUs ([`replicas`](super::replicas) hands the group to every run); where any
/// trains on the CPU, every process sums through MPI. Every process calls it once, when it
/// has chosen its device; a process alone does nothing. Returns whether the sums go through
/// NCCL.
pub fn sum_between_gpus(gpu: Option<&CudaBackend>) -> Result<bool> {
    let w = world();
    if w.size() <= 1 || GROUP.get().is_some() {
        return Ok(GROUP.get().is_some());
    }
    let mut on_gpus = [f32::from(u8::from(gpu.is_some()))];
    w.sum(&mut on_gpus)?;
    let Some(gpu) = gpu.filter(|_| on_gpus[0] as usize == w.size()) else {
        return Ok(false);
    };
    let refused = |e: tensor_core::Error| Error::Launch(format!("cannot sum on the GPUs: {e}"));
    let mut id = match w.rank() {
        0 => new_group_id().map_err(refused)?.to_vec(),
        _ => Vec::new(),
    };
    w.broadcast(0, &mut id)?;
    let id: [u8; GROUP_ID_BYTES] = id
        .try_into()
        .map_err(|_| Error::Launch("the NCCL group's id did not arrive whole".into()))?;
    let group = NcclGroup::join(gpu, w.rank(), w.size(), &id).map_err(refused)?;
    let joined = Arc::new(GpuSums { world: w, group });
    Ok(GROUP.set(joined).is_ok())
}

/// The world's NCCL group as a trainer's replicas, once joined.
pub(super) fn replicas() -> Option<Arc<dyn nn::Replicas>> {
    GROUP.get().map(|g| Arc::clone(g) as Arc<dyn nn::Replicas>)
}
