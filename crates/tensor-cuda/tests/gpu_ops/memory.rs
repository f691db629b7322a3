//! Allocation, transfers and the counters that record them.

use crate::common::*;
use tensor_core::{Backend, Error};

#[test]
#[ignore = "needs a CUDA GPU"]
fn uploads_and_downloads_round_trip_and_are_counted() {
    let g = gpu();
    let mut rng = rng("round trip");
    for n in [0, 1, 7, 33, 1000, (1 << 20) + 3] {
        let x = uniform(&mut rng, n, -1e3, 1e3);
        let before = g.counters();
        let s = g.upload(&x).unwrap();
        assert_eq!(g.storage_len(&s), n);
        assert_eq!(g.download(&s).unwrap(), x);
        let after = g.counters();
        assert_eq!(after.bytes_uploaded - before.bytes_uploaded, 4 * n as u64);
        assert_eq!(
            after.bytes_downloaded - before.bytes_downloaded,
            4 * n as u64
        );
        assert_eq!(after.allocations - before.allocations, 1);
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn upload_into_reuses_the_buffer() {
    let g = gpu();
    let mut s = g.alloc(5).unwrap();
    let before = g.counters();
    g.upload_into(&[1.0, 2.0, 3.0, 4.0, 5.0], &mut s).unwrap();
    assert_eq!(g.counters().allocations, before.allocations);
    assert_eq!(g.download(&s).unwrap(), vec![1.0, 2.0, 3.0, 4.0, 5.0]);
    let err = g.upload_into(&[1.0; 4], &mut s);
    assert!(matches!(err, Err(Error::InvalidArgument { .. })), "{err:?}");
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn the_backend_describes_its_device() {
    let g = gpu();
    let name = g.name();
    assert!(name.starts_with("CUDA device 0: "), "{name}");
    assert!(g.compute_capability().0 >= 7, "{name}");
    assert!(g.total_memory() > 0);
    let (version, path) = g.cublas_version();
    assert!(version > 0, "cuBLAS {version} from {path}");
    eprintln!("{name}; cuBLAS from {path}");
    g.synchronize().unwrap();
}
