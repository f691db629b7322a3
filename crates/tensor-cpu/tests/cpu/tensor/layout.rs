//! Data movement: transpose, reshape, row slices, gathers, concatenation, copies and
//! constructors. These move values without arithmetic, so results must be exact.

use crate::common::*;
use tensor_core::{Primitives, Shape, Tensor};

#[test]
fn reshape_keeps_the_data() {
    let mut r = rng(41);
    let x = rand_tensor(&mut r, &[4, 6], -1.0, 1.0);
    let xv = host(&x);
    let y = x.reshape([2, 3, 4]).unwrap();
    assert_eq!(y.dims(), [2, 3, 4]);
    assert_bits_eq(&host(&y), &xv, "reshape");
    let z = y
        .reshape([24])
        .unwrap()
        .reshape(Shape::new([1, 24, 1]))
        .unwrap();
    assert_bits_eq(&host(&z), &xv, "reshape again");
    let s = Tensor::scalar(&cpu(), 3.5)
        .unwrap()
        .reshape([1, 1])
        .unwrap();
    assert_eq!(host(&s), [3.5]);
}

#[test]
fn slice_rows_and_its_into_variant() {
    let mut r = rng(42);
    let x = rand_tensor(&mut r, &[10, 3, 2], -1.0, 1.0);
    let xv = host(&x);
    for (start, count) in [(0, 10), (0, 1), (9, 1), (3, 4), (10, 0)] {
        let s = x.slice_rows(start, count).unwrap();
        assert_eq!(s.dims(), [count, 3, 2]);
        assert_bits_eq(&host(&s), &xv[start * 6..(start + count) * 6], "slice_rows");
        let mut out = Tensor::full(&cpu(), [count, 3, 2], f32::NAN).unwrap();
        x.slice_rows_into(start, &mut out).unwrap();
        assert_bits_eq(&host(&out), &host(&s), "slice_rows_into");
    }
    let big = rand_tensor(&mut r, &[50_000, 2], -1.0, 1.0);
    let s = big.slice_rows(12_345, 30_000).unwrap();
    assert_bits_eq(&host(&s), &host(&big)[24_690..84_690], "large slice");
}

#[test]
fn gather_rows_and_its_into_variant() {
    let cpu = cpu();
    let mut r = rng(43);
    let x = rand_tensor(&mut r, &[7, 33], -1.0, 1.0);
    let xv = host(&x);
    let idx = [6u32, 0, 3, 3, 1, 6];
    let index = cpu.upload_indices(&idx).unwrap();
    for (start, count) in [(0, 6), (2, 3), (5, 1), (6, 0)] {
        let g = x.gather_rows(&index, start, count).unwrap();
        assert_eq!(g.dims(), [count, 33]);
        let want: Vec<f32> = idx[start..start + count]
            .iter()
            .flat_map(|&i| xv[i as usize * 33..(i as usize + 1) * 33].to_vec())
            .collect();
        assert_bits_eq(&host(&g), &want, "gather_rows");
        let mut out = Tensor::full(&cpu, [count, 33], f32::NAN).unwrap();
        x.gather_rows_into(&index, start, &mut out).unwrap();
        assert_bits_eq(&host(&out), &want, "gather_rows_into");
    }
}

#[test]
fn concat_along_each_axis() {
    let mut r = rng(44);
    // Rank 1.
    let a = rand_tensor(&mut r, &[3], -1.0, 1.0);
    let b = rand_tensor(&mut r, &[5], -1.0, 1.0);
    let c = Tensor::concat(&[&a, &b], 0).unwrap();
    assert_eq!(host(&c), [host(&a), host(&b)].concat());
    // Rank 3, along each axis, with three parts of different lengths (one empty).
    let base = [2, 3, 4];
    for axis in 0..3 {
        let dims_of = |len: usize| {
            let mut d = base.to_vec();
            d[axis] = len;
            d
        };
        let parts: Vec<_> = [2, 0, 3]
            .iter()
            .map(|&len| rand_tensor(&mut r, &dims_of(len), -1.0, 1.0))
            .collect();
        let refs: Vec<_> = parts.iter().collect();
        let out = Tensor::concat(&refs, axis).unwrap();
        let out_dims = dims_of(5);
        assert_eq!(out.dims(), out_dims.as_slice());
        let ov = host(&out);
        // Check every element against the part it came from.
        for (flat, &v) in ov.iter().enumerate() {
            let mut idx = unravel(flat, &out_dims);
            let mut part = 0;
            while idx[axis] >= parts[part].dims()[axis] {
                idx[axis] -= parts[part].dims()[axis];
                part += 1;
            }
            let pd = parts[part].dims();
            let off: usize = idx.iter().zip(strides(pd)).map(|(i, s)| i * s).sum();
            assert_eq!(v, host(&parts[part])[off], "axis {axis}, element {flat}");
        }
    }
    // Matrices side by side and stacked.
    let m1 = rand_tensor(&mut r, &[4, 2], -1.0, 1.0);
    let m2 = rand_tensor(&mut r, &[4, 3], -1.0, 1.0);
    let side = Tensor::concat(&[&m1, &m2], 1).unwrap();
    assert_eq!(side.dims(), [4, 5]);
    let (v1, v2, vs) = (host(&m1), host(&m2), host(&side));
    for i in 0..4 {
        assert_eq!(vs[i * 5..i * 5 + 2], v1[i * 2..i * 2 + 2]);
        assert_eq!(vs[i * 5 + 2..i * 5 + 5], v2[i * 3..i * 3 + 3]);
    }
}

#[test]
fn constructors_copies_and_transfers() {
    let cpu = cpu();
    assert_eq!(host(&Tensor::zeros(&cpu, [2, 2]).unwrap()), [0.0; 4]);
    assert_eq!(host(&Tensor::ones(&cpu, [3]).unwrap()), [1.0; 3]);
    assert_eq!(
        host(&Tensor::full(&cpu, [40_000], -2.5).unwrap()),
        vec![-2.5; 40_000]
    );
    let s = Tensor::scalar(&cpu, 4.0).unwrap();
    assert_eq!((s.dims().len(), s.to_scalar().unwrap()), (0, 4.0));
    let v = Tensor::from_vec(&cpu, vec![1.0, 2.0, 3.0], [3, 1]).unwrap();
    assert_eq!(v.dims(), [3, 1]);
    let mut w = Tensor::zeros(&cpu, [1, 3]).unwrap();
    w.copy_from(&v).unwrap();
    assert_eq!(host(&w), [1.0, 2.0, 3.0]);
    w.upload(&[4.0, 5.0, 6.0]).unwrap();
    assert_eq!(host(&w.try_clone().unwrap()), [4.0, 5.0, 6.0]);
    let mut big = Tensor::zeros(&cpu, [100_000]).unwrap();
    let src = Tensor::full(&cpu, [100_000], 7.0).unwrap();
    big.copy_from(&src).unwrap();
    assert!(host(&big).iter().all(|&v| v == 7.0));
    // Seeded random constructors are reproducible and in range.
    let u1 = Tensor::rand_uniform(&cpu, [1000], -2.0, 3.0, &mut rng(45)).unwrap();
    let u2 = Tensor::rand_uniform(&cpu, [1000], -2.0, 3.0, &mut rng(45)).unwrap();
    assert_bits_eq(&host(&u1), &host(&u2), "rand_uniform");
    assert!(host(&u1).iter().all(|v| (-2.0..3.0).contains(v)));
    let n = host(&Tensor::rand_normal(&cpu, [20_000], 1.0, 2.0, &mut rng(46)).unwrap());
    let mean = n.iter().map(|&v| v as f64).sum::<f64>() / n.len() as f64;
    assert!((mean - 1.0).abs() < 0.1, "mean {mean}");
}
