//! Property tests of broadcasting: the result shape follows numpy's rule, addition and
//! multiplication are symmetric, and every element agrees with an f64 reference
//! (element-wise tolerance, see `common/mod.rs`).

use crate::common::*;
use proptest::prelude::*;
use tensor_core::{BinaryOp, Shape, Tensor};

/// A shape of rank 0 to 4 with dimensions 1 to 5.
fn shape() -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(1usize..=5, 0..=4)
}

/// A shape and another that broadcasts with it: each trailing axis of the second is either
/// the first's, or 1, and either may be longer; the first's axes may also be set to 1.
fn broadcastable() -> impl Strategy<Value = (Vec<usize>, Vec<usize>)> {
    (
        shape(),
        prop::collection::vec(0u8..3, 4),
        prop::collection::vec(any::<bool>(), 4),
        0usize..=4,
        prop::collection::vec(1usize..=5, 4),
    )
        .prop_map(|(a, choice, ones_in_a, extra, lead)| {
            let mut b: Vec<usize> = a
                .iter()
                .zip(&choice)
                .map(|(&d, &c)| if c == 0 { 1 } else { d })
                .collect();
            let lead_len = extra.saturating_sub(a.len());
            let mut full: Vec<usize> = lead[..lead_len].to_vec();
            full.append(&mut b);
            let a = a
                .iter()
                .zip(&ones_in_a)
                .zip(&full[lead_len..])
                .map(|((&d, &one), &bd)| if one && bd == d { 1 } else { d })
                .collect();
            (a, full)
        })
}

fn values(n: usize, seed: u64) -> Vec<f32> {
    uniform(&mut rng(seed), n, -3.0, 3.0)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn broadcast_shape_symmetry_and_values((ad, bd) in broadcastable(), seed in any::<u64>()) {
        let want_dims = broadcast_dims(&ad, &bd).expect("the strategy makes broadcastable shapes");
        let av = values(ad.iter().product(), seed);
        let bv = values(bd.iter().product(), seed ^ 1);
        let a = Tensor::from_slice(&cpu(), &av, ad.clone()).unwrap();
        let b = Tensor::from_slice(&cpu(), &bv, bd.clone()).unwrap();
        for op in [BinaryOp::Add, BinaryOp::Mul, BinaryOp::Sub, BinaryOp::Maximum] {
            let ab = a.binary(op, &b).unwrap();
            prop_assert_eq!(ab.shape(), &Shape::new(want_dims.clone()));
            let ba = b.binary(op, &a).unwrap();
            prop_assert_eq!(ba.shape(), ab.shape());
            let (abv, bav) = (host(&ab), host(&ba));
            for (i, (&x, &y)) in abv.iter().zip(&bav).enumerate() {
                let idx = unravel(i, &want_dims);
                let (p, q) = (av[broadcast_offset(&idx, &ad)] as f64, bv[broadcast_offset(&idx, &bd)] as f64);
                let want = match op {
                    BinaryOp::Add => p + q,
                    BinaryOp::Mul => p * q,
                    BinaryOp::Sub => p - q,
                    _ => p.max(q),
                };
                let tol = ELEMENT_TOL * (p.abs() + q.abs() + (p * q).abs());
                prop_assert!((x as f64 - want).abs() <= tol, "{:?} at {}: {} vs {}", op, i, x, want);
                // Symmetric operations give the same bits either way round; `Sub` flips sign.
                match op {
                    BinaryOp::Sub => prop_assert_eq!(x, -y),
                    _ => prop_assert_eq!(x.to_bits(), y.to_bits()),
                }
            }
        }
    }

    #[test]
    fn incompatible_shapes_are_refused(a in shape(), b in shape()) {
        let ta = Tensor::zeros(&cpu(), a.clone()).unwrap();
        let tb = Tensor::zeros(&cpu(), b.clone()).unwrap();
        let got = ta.binary(BinaryOp::Add, &tb);
        match broadcast_dims(&a, &b) {
            Some(d) => {
                let got = got.unwrap();
                prop_assert_eq!(got.dims(), d.as_slice());
            }
            None => {
                let is_broadcast_error = matches!(got, Err(tensor_core::Error::Broadcast { .. }));
                prop_assert!(is_broadcast_error);
            }
        }
    }
}
