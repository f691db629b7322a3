//! What is particular to the CUDA backend: its device description, TF32 products, and
//! clones that share one stream and workspace.

use crate::common::*;
use tensor_core::ReduceSpec;
use tensor_core::testing::compare::assert_close;
use tensor_core::testing::reference;
use tensor_core::{Gemm, Primitives, ReduceOp};

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

#[test]
#[ignore = "needs a CUDA GPU"]
fn tf32_is_opt_in_and_close_to_f32() {
    let g = gpu();
    assert!(!g.tf32(), "TF32 must be off by default");
    let mut rng = rng("tf32");
    let (m, n, k) = (256, 256, 512);
    let a = uniform(&mut rng, m * k, -1.0, 1.0);
    let b = uniform(&mut rng, k * n, -1.0, 1.0);
    let spec = Gemm {
        m,
        n,
        k,
        trans_a: false,
        trans_b: true,
        alpha: 1.0,
        beta: 0.0,
    };
    let want = reference::gemm(spec, &a, &b, &[]);
    let (ga, gb) = (g.upload(&a).unwrap(), g.upload(&b).unwrap());
    let mut gc = g.alloc(m * n).unwrap();
    g.set_tf32(true);
    g.gemm(spec, &ga, &gb, &mut gc).unwrap();
    let tf32 = g.download(&gc).unwrap();
    g.set_tf32(false);
    // TF32 keeps 10 bits of each factor's mantissa: products are off by about 1e-3.
    assert_close("TF32", &tf32, &want, 3e-3);
    g.gemm(spec, &ga, &gb, &mut gc).unwrap();
    assert_close("f32 after TF32", &g.download(&gc).unwrap(), &want, 1e-4);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn concurrent_reductions_from_clones_do_not_mix_partials() {
    let g = gpu();
    let handles: Vec<_> = (0..4)
        .map(|t| {
            let g = g.clone();
            std::thread::spawn(move || {
                // Long rows: two passes through the shared workspace.
                let x = vec![t as f32 + 1.0; 300_000];
                let xs = g.upload(&x).unwrap();
                let mut out = g.alloc(1).unwrap();
                for _ in 0..50 {
                    g.reduce(
                        ReduceSpec {
                            op: ReduceOp::Sum,
                            outer: 1,
                            len: x.len(),
                            inner: 1,
                        },
                        &xs,
                        &mut out,
                    )
                    .unwrap();
                    let got = g.download(&out).unwrap()[0];
                    assert_eq!(got, 300_000.0 * (t as f32 + 1.0), "thread {t}");
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
}
