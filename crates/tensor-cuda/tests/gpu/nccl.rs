//! NCCL sums (the `nccl` feature) in a group of one process, the most a single GPU allows:
//! joining works, a sum leaves the values as they are and reads nothing back to the host.
//! Groups of several processes need a GPU each (`mpirun -n N` on a machine of N GPUs).

use crate::common::gpu;
use tensor_core::{Primitives, Tensor};
use tensor_cuda::nccl::{NcclGroup, new_group_id};

#[test]
#[ignore = "needs a CUDA GPU and NCCL"]
fn a_group_of_one_sums_in_place_on_the_device() {
    let gpu = gpu();
    let id = new_group_id().unwrap();
    let group = NcclGroup::join(&gpu, 0, 1, &id).unwrap();
    assert_eq!((group.rank(), group.size()), (0, 1));
    let values: Vec<f32> = (0..1000).map(|i| i as f32 * 0.5 - 7.0).collect();
    let mut t = Tensor::from_slice(&gpu, &values, [10, 100]).unwrap();
    let before = gpu.counters();
    group.sum_in_place(&mut t).unwrap();
    assert_eq!(gpu.counters().bytes_downloaded, before.bytes_downloaded);
    assert_eq!(t.to_vec().unwrap(), values);
}

#[test]
#[ignore = "needs a CUDA GPU and NCCL"]
fn a_rank_outside_the_group_is_refused() {
    let gpu = gpu();
    let id = new_group_id().unwrap();
    let e = NcclGroup::join(&gpu, 2, 2, &id).unwrap_err().to_string();
    assert!(e.contains("rank 2 is not one of 2 processes"), "{e}");
}
