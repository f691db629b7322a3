//! Planning a broadcasting binary operation: merge the dimensions that can be walked as one
//! and pick the cheapest kernel for what is left.

use crate::kernels::{MAX_DIMS, NdLayout};
use tensor_core::{Error, Result, Shape};

/// How to run one broadcast binary operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Plan {
    /// Both operands have the output's layout: `n` elements side by side.
    Same { n: u64 },
    /// At most two dimensions remain: `rows x cols` with a (row, column) stride per operand.
    TwoD {
        rows: u64,
        cols: u64,
        a: (u64, u64),
        b: (u64, u64),
    },
    /// The general case, up to [`MAX_DIMS`] dimensions.
    Nd { n: u64, layout: NdLayout },
}

/// One output dimension and each operand's stride along it.
#[derive(Debug, Clone, Copy)]
struct Dim {
    size: u64,
    a: u64,
    b: u64,
}

/// The plan for `out = op(a, b)`, where `out` must be the broadcast of `a` and `b`.
pub(crate) fn plan(op: &'static str, a: &Shape, b: &Shape, out: &Shape) -> Result<Plan> {
    let expected = a.broadcast(b, op)?;
    if &expected != out {
        return Err(Error::ShapeMismatch {
            op,
            lhs: expected,
            rhs: out.clone(),
        });
    }
    let a_strides = a.broadcast_strides(out);
    let b_strides = b.broadcast_strides(out);
    // Drop size-1 dimensions, then merge a dimension into the one inside it when both
    // operands step through the pair as through one longer dimension.
    let mut dims: Vec<Dim> = Vec::with_capacity(out.rank());
    for (i, &size) in out.dims().iter().enumerate() {
        if size == 1 {
            continue;
        }
        let d = Dim {
            size: size as u64,
            a: a_strides[i] as u64,
            b: b_strides[i] as u64,
        };
        match dims.last_mut() {
            Some(prev) if prev.a == d.a * d.size && prev.b == d.b * d.size => {
                *prev = Dim {
                    size: prev.size * d.size,
                    a: d.a,
                    b: d.b,
                };
            }
            _ => dims.push(d),
        }
    }
    let n = out.numel() as u64;
    Ok(match dims.as_slice() {
        [] => Plan::Same { n },
        [d] if d.a == 1 && d.b == 1 => Plan::Same { n },
        [d] => Plan::TwoD {
            rows: 1,
            cols: d.size,
            a: (0, d.a),
            b: (0, d.b),
        },
        [r, c] => Plan::TwoD {
            rows: r.size,
            cols: c.size,
            a: (r.a, c.a),
            b: (r.b, c.b),
        },
        many if many.len() <= MAX_DIMS => {
            let mut layout = NdLayout {
                rank: many.len() as u64,
                ..NdLayout::default()
            };
            for (slot, d) in many.iter().rev().enumerate() {
                layout.dims[slot] = d.size;
                layout.a_strides[slot] = d.a;
                layout.b_strides[slot] = d.b;
            }
            Plan::Nd { n, layout }
        }
        many => {
            return Err(Error::InvalidArgument {
                op,
                reason: format!(
                    "broadcasting {a} with {b} needs {} dimensions after merging; the CUDA \
                     backend handles up to {MAX_DIMS}",
                    many.len()
                ),
            });
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(a: &[usize], b: &[usize]) -> Plan {
        let (a, b) = (Shape::new(a), Shape::new(b));
        let out = a.broadcast(&b, "t").unwrap();
        plan("t", &a, &b, &out).unwrap()
    }

    /// Runs a plan on the host the way the kernels index, to check the index arithmetic.
    fn run(plan: &Plan, a: &[f32], b: &[f32]) -> Vec<f32> {
        match plan {
            Plan::Same { n } => (0..*n as usize).map(|i| a[i] + b[i]).collect(),
            Plan::TwoD {
                rows,
                cols,
                a: sa,
                b: sb,
            } => {
                let mut out = Vec::new();
                for r in 0..*rows {
                    for c in 0..*cols {
                        out.push(
                            a[(r * sa.0 + c * sa.1) as usize] + b[(r * sb.0 + c * sb.1) as usize],
                        );
                    }
                }
                out
            }
            Plan::Nd { n, layout } => (0..*n)
                .map(|i| {
                    let (mut rest, mut ao, mut bo) = (i, 0, 0);
                    for d in 0..layout.rank as usize {
                        let coord = rest % layout.dims[d];
                        rest /= layout.dims[d];
                        ao += coord * layout.a_strides[d];
                        bo += coord * layout.b_strides[d];
                    }
                    a[ao as usize] + b[bo as usize]
                })
                .collect(),
        }
    }

    /// The broadcast sum computed naively, coordinate by coordinate.
    fn reference(a_shape: &[usize], b_shape: &[usize], a: &[f32], b: &[f32]) -> Vec<f32> {
        let (sa, sb) = (Shape::new(a_shape), Shape::new(b_shape));
        let out = sa.broadcast(&sb, "t").unwrap();
        let (ta, tb) = (sa.broadcast_strides(&out), sb.broadcast_strides(&out));
        let os = out.strides();
        (0..out.numel())
            .map(|i| {
                let (mut ao, mut bo) = (0, 0);
                for d in 0..out.rank() {
                    let coord = i / os[d] % out.dims()[d];
                    ao += coord * ta[d];
                    bo += coord * tb[d];
                }
                a[ao] + b[bo]
            })
            .collect()
    }

    #[test]
    fn picks_the_cheapest_kernel() {
        assert_eq!(p(&[4, 5], &[4, 5]), Plan::Same { n: 20 });
        assert_eq!(p(&[2, 3, 4], &[2, 3, 4]), Plan::Same { n: 24 });
        assert_eq!(p(&[], &[]), Plan::Same { n: 1 });
        assert_eq!(p(&[1, 1], &[1]), Plan::Same { n: 1 });
        // Bias over rows: b repeats for every row.
        assert_eq!(
            p(&[7, 3], &[3]),
            Plan::TwoD {
                rows: 7,
                cols: 3,
                a: (3, 1),
                b: (0, 1)
            }
        );
        // Column broadcast (softmax's row statistics).
        assert_eq!(
            p(&[7, 3], &[7, 1]),
            Plan::TwoD {
                rows: 7,
                cols: 3,
                a: (3, 1),
                b: (1, 0)
            }
        );
        // Scalar against a tensor of any rank collapses to one dimension.
        assert_eq!(
            p(&[2, 3, 4], &[]),
            Plan::TwoD {
                rows: 1,
                cols: 24,
                a: (0, 1),
                b: (0, 0)
            }
        );
        // Leading dimensions of a row broadcast merge.
        assert_eq!(
            p(&[2, 3, 4], &[4]),
            Plan::TwoD {
                rows: 6,
                cols: 4,
                a: (4, 1),
                b: (0, 1)
            }
        );
        assert!(matches!(p(&[2, 3, 4], &[3, 1]), Plan::Nd { n: 24, .. }));
    }

    #[test]
    fn rejects_wrong_output_shapes() {
        let err = plan(
            "add",
            &Shape::new([2, 3]),
            &Shape::new([3]),
            &Shape::new([3, 2]),
        );
        assert!(matches!(err, Err(Error::ShapeMismatch { .. })));
        let err = plan(
            "add",
            &Shape::new([2, 3]),
            &Shape::new([4]),
            &Shape::new([2, 3]),
        );
        assert!(matches!(err, Err(Error::Broadcast { .. })));
    }

    #[test]
    fn plans_index_like_numpy() {
        let cases: &[(&[usize], &[usize])] = &[
            (&[5], &[5]),
            (&[5], &[1]),
            (&[1], &[5]),
            (&[3, 4], &[4]),
            (&[3, 4], &[3, 1]),
            (&[3, 1], &[1, 4]),
            (&[4], &[3, 1]),
            (&[2, 3, 4], &[3, 1]),
            (&[2, 1, 4], &[3, 1]),
            (&[2, 3, 1, 5], &[1, 3, 4, 1]),
            (&[2, 1, 3, 1, 2, 1, 2], &[1, 2, 1, 3, 1, 2, 1]),
            (&[2, 2, 1, 2, 1, 2, 1, 2], &[1, 2, 2, 1, 2, 1, 2, 1]),
        ];
        for (sa, sb) in cases {
            let na: usize = sa.iter().product();
            let nb: usize = sb.iter().product();
            let a: Vec<f32> = (0..na).map(|i| i as f32).collect();
            let b: Vec<f32> = (0..nb).map(|i| 1000.0 * i as f32).collect();
            let plan = p(sa, sb);
            assert_eq!(
                run(&plan, &a, &b),
                reference(sa, sb, &a, &b),
                "{sa:?} {sb:?}: {plan:?}"
            );
        }
    }

    #[test]
    fn too_many_dimensions_are_an_error() {
        let a = Shape::new([2, 1, 2, 1, 2, 1, 2, 1, 2]);
        let b = Shape::new([1, 2, 1, 2, 1, 2, 1, 2, 1]);
        let out = a.broadcast(&b, "t").unwrap();
        assert!(matches!(
            plan("t", &a, &b, &out),
            Err(Error::InvalidArgument { .. })
        ));
    }
}
