//! A [`HashGridMlp`] as ONNX operators: the multiresolution hash-grid encoding written with
//! integer arithmetic, `Floor` and `Gather`, followed by its ReLU network.
//!
//! The encoding follows the definition of [`tensor_core::hashgrid`] operation for operation,
//! for all `L` levels at once (`N` points, `d` axes, `C = 2^d` corners, `F` features):
//!
//! 1. `u = clamp(x * scale + shift, 0, 1)` maps the input range to the unit cube (`[N, d]`).
//! 2. `p = u * N_l` per level (`[N, L, d]`, one `float32` product as in the reference), the
//!    cell `i = min(floor(p), N_l - 1)` and the weight `w = p - i`. A NaN coordinate is
//!    looked up in cell 0 (so every index stays inside the table) and keeps its NaN weight,
//!    which makes its features NaN, as in the reference.
//! 3. Per axis `k`, the two vertices `i_k` and `i_k + 1` (as `uint64`) and their factors
//!    `1 - w_k` and `w_k` are broadcast against the other axes, so that corner
//!    `c = sum_k b_k 2^k` comes out in the reference's order: weights are the products of the
//!    factors (axis 0 first), entries are `sum_k v_k stride_k + ((xor_k v_k prime_k) & mask)`
//!    plus the level's offset. A directly indexed level has `mask = 0` and its strides
//!    `(N_l + 1)^k`; a hashed level has strides 0 and `mask = T - 1`. The products
//!    `v_k prime_k` are below 2^57 in `uint64` (nothing overflows), and the mask keeps bits
//!    below 32 only, so the 32-bit wrap-around of the reference's hash is reproduced
//!    exactly. (`uint64` rather than `int64`: tract reads `int64` values as symbolic
//!    dimensions, on which it has no bitwise operators.)
//! 4. `Gather` reads the `[N, L, C]` table rows (as `int32`: they are below 2^29) into
//!    `[N, L, C, F]`, the weighted sum over the
//!    corners gives `[N, L, F]`, reshaped to the `[N, L F]` features (level after level).
//!
//! The bitwise operators need operator set 18 ([`OPSET`]); MLP graphs keep operator set 13.
//! Intermediate tensors take about `L C (2 d + F + 3) * 8` bytes per point (about 4.6 kB
//! for 16 levels of 2 features in 2-D), so large grids are best evaluated in batches.

use nn::{Activation, HashGridMlp, Model, NamedArray};
use tensor_core::hashgrid::HASH_PRIMES;
use tensor_core::{Backend, HashGridLevel, HashGridSpec};

use crate::export::activation;
use crate::graph::{Attr, Graph};
use crate::model::OnnxModel;
use crate::proto::{INT32, UINT64};
use crate::{Error, Result};

/// The operator set of hash-grid graphs (`BitwiseXor` and `BitwiseAnd` appeared in 18).
pub const OPSET: i64 = 18;

/// The IR version that goes with [`OPSET`].
pub const IR_VERSION: i64 = 8;

/// A hash-grid network's ONNX form (operator set [`OPSET`]).
impl<B: Backend> OnnxModel<B> for HashGridMlp<B> {
    const OPSET: i64 = OPSET;
    const IR_VERSION: i64 = IR_VERSION;

    fn to_onnx(&self, g: &mut Graph, x: &str) -> Result<String> {
        network(g, x, self)
    }
}

/// Adds the hash-grid network to `g`, reading the (standardised) inputs `x` (`[N, d]`), and
/// returns the name of its raw output (`[N, outputs]`, before the output de-standardisation).
fn network<B: Backend>(g: &mut Graph, x: &str, model: &HashGridMlp<B>) -> Result<String> {
    let config = model.config();
    let state = model.export_state()?;
    let tensor = |name: &str| -> Result<&NamedArray> {
        state
            .iter()
            .find(|a| a.name == name)
            .ok_or_else(|| Error::Unsupported(format!("the network has no tensor `{name}`")))
    };
    let (scale, shift) = config.unit_map();
    let scale = g.scalar("unit_scale", scale);
    let shift = g.scalar("unit_shift", shift);
    let zero = g.scalar("unit_min", 0.0);
    let one = g.scalar("unit_max", 1.0);
    let scaled = g.node("Mul", &[x, &scale], &[]);
    let shifted = g.node("Add", &[&scaled, &shift], &[]);
    let unit = g.node("Clip", &[&shifted, &zero, &one], &[]);

    let tables = tensor("encoding.tables")?;
    let tables = g.constant("encoding_tables", &tables.shape, &tables.data);
    let mut h = encoding(g, &unit, model.spec(), &tables)?;

    let mut layers = vec![("input".to_string(), Activation::Relu)];
    let count = config.hidden.len();
    for k in 0..count {
        let act = if k + 1 == count {
            config.output_activation
        } else {
            Activation::Relu
        };
        layers.push((format!("layers.{k}"), act));
    }
    for (i, (prefix, act)) in layers.iter().enumerate() {
        let w = tensor(&format!("{prefix}.weight"))?;
        let b = tensor(&format!("{prefix}.bias"))?;
        let name = prefix.replace('.', "_");
        let w = g.constant(&format!("{name}_weight"), &w.shape, &w.data);
        let b = g.constant(&format!("{name}_bias"), &b.shape, &b.data);
        let z = g.node("MatMul", &[&h, &w], &[]);
        h = g.node("Add", &[&z, &b], &[]);
        h = activation(g, &h, *act, i);
    }
    Ok(h)
}

/// The per-level constants of the lookup, as graph constants shaped `[L, 1, .., 1]` to
/// broadcast against `[N, L, 2, .., 2]` (`d` trailing axes of 2 corners each).
struct LevelTensors {
    resolution: String,
    last_cell: String,
    /// One per axis, all zero on hashed levels; none when every level is hashed.
    strides: Vec<String>,
    /// `T - 1` on hashed levels, 0 on directly indexed ones; none when no level is hashed.
    mask: Option<String>,
    offset: String,
}

impl LevelTensors {
    fn new(g: &mut Graph, spec: &HashGridSpec) -> Self {
        let (l, d) = (spec.levels().len(), spec.dims());
        let levels = spec.levels();
        let per_level =
            |f: &dyn Fn(&HashGridLevel) -> u64| -> Vec<u64> { levels.iter().map(f).collect() };
        let mut corner_dims = vec![l];
        corner_dims.extend(std::iter::repeat_n(1, d));
        let any_dense = levels.iter().any(|lv| !lv.hashed);
        let strides = (0..if any_dense { d } else { 0 })
            .map(|k| {
                let values = per_level(&|lv| {
                    if lv.hashed {
                        0
                    } else {
                        u64::from(lv.resolution + 1).pow(k as u32)
                    }
                });
                g.constant_u64(&format!("grid_stride_{k}"), &corner_dims, &values)
            })
            .collect();
        let masks = per_level(&|lv| {
            if lv.hashed {
                u64::from(lv.table_size) - 1
            } else {
                0
            }
        });
        let offsets = per_level(&|lv| lv.offset as u64);
        let resolution: Vec<f32> = levels.iter().map(|lv| lv.resolution as f32).collect();
        let last_cell: Vec<f32> = levels.iter().map(|lv| (lv.resolution - 1) as f32).collect();
        LevelTensors {
            resolution: g.constant("grid_resolution", &[l, 1], &resolution),
            last_cell: g.constant("grid_last_cell", &[l, 1], &last_cell),
            strides,
            mask: levels
                .iter()
                .any(|lv| lv.hashed)
                .then(|| g.constant_u64("grid_hash_mask", &corner_dims, &masks)),
            offset: g.constant_u64("grid_offset", &corner_dims, &offsets),
        }
    }
}

/// The encoding of `unit` (`[N, d]` in `[0, 1]`) through `tables` (`[E, F]`): `[N, L F]`.
fn encoding(g: &mut Graph, unit: &str, spec: &HashGridSpec, tables: &str) -> Result<String> {
    let d = spec.dims();
    let levels = spec.levels().len() as i64;
    let lv = LevelTensors::new(g, spec);
    let axis1 = g.constant_i64("axis_1", &[1], &[1]);
    let points = g.node("Unsqueeze", &[unit, &axis1], &[]);
    let p = g.node("Mul", &[&points, &lv.resolution], &[]);
    // NaN positions look up cell 0, keeping every index in range.
    let nan = g.node("IsNaN", &[&p], &[]);
    let zero = g.scalar("zero", 0.0);
    let p_clean = g.node("Where", &[&nan, &zero, &p], &[]);
    let floor = g.node("Floor", &[&p_clean], &[]);
    let cell = g.node("Min", &[&floor, &lv.last_cell], &[]);
    let weight = g.node("Sub", &[&p, &cell], &[]);
    let cell = g.node("Cast", &[&cell], &[("to", Attr::Int(i64::from(UINT64)))]);

    let axis2 = g.constant_i64("axis_2", &[1], &[2]);
    let up = g.constant_u64("corner_up", &[2], &[0, 1]);
    let one = g.scalar("one_f", 1.0);
    let (mut weights, mut dense, mut hash) = (None::<String>, None::<String>, None::<String>);
    for (k, &prime) in HASH_PRIMES.iter().enumerate().take(d) {
        let index = g.constant_i64(&format!("axis_{k}_index"), &[], &[k as i64]);
        let at = |g: &mut Graph, t: &str| {
            let v = g.node("Gather", &[t, &index], &[("axis", Attr::Int(2))]);
            g.node("Unsqueeze", &[&v, &axis2], &[])
        };
        // The two vertices and factors of axis k, `[N, L, 2]`, moved to corner axis k.
        let (ik, wk) = (at(g, &cell), at(g, &weight));
        let vertices = g.node("Add", &[&ik, &up], &[]);
        let lower = g.node("Sub", &[&one, &wk], &[]);
        let factors = g.node("Concat", &[&lower, &wk], &[("axis", Attr::Int(2))]);
        let mut dims = vec![-1, levels];
        dims.extend((0..d).map(|j| if j == d - 1 - k { 2 } else { 1 }));
        let shape = g.constant_i64(&format!("corner_shape_{k}"), &[dims.len()], &dims);
        let vertices = g.node("Reshape", &[&vertices, &shape], &[]);
        let factors = g.node("Reshape", &[&factors, &shape], &[]);
        weights = Some(chain(g, "Mul", weights, factors));
        if let Some(stride) = lv.strides.get(k) {
            let term = g.node("Mul", &[&vertices, stride], &[]);
            dense = Some(chain(g, "Add", dense, term));
        }
        if lv.mask.is_some() {
            let term = if prime == 1 {
                vertices
            } else {
                let prime = g.constant_u64(&format!("hash_prime_{k}"), &[], &[u64::from(prime)]);
                g.node("Mul", &[&vertices, &prime], &[])
            };
            hash = Some(chain(g, "BitwiseXor", hash, term));
        }
    }
    let masked = hash
        .zip(lv.mask.as_ref())
        .map(|(h, mask)| g.node("BitwiseAnd", &[&h, mask], &[]));
    let (entry, weights) = match (dense, masked, weights) {
        (Some(a), Some(b), Some(w)) => (g.node("Add", &[&a, &b], &[]), w),
        (Some(a), None, Some(w)) | (None, Some(a), Some(w)) => (a, w),
        _ => {
            return Err(Error::Unsupported(
                "a hash grid with no levels or axes".into(),
            ));
        }
    };
    let rows = g.node("Add", &[&entry, &lv.offset], &[]);
    let flat = g.constant_i64("corners_flat", &[3], &[-1, levels, 1 << d]);
    let rows = g.node("Reshape", &[&rows, &flat], &[]);
    let weights = g.node("Reshape", &[&weights, &flat], &[]);
    Ok(interpolate(g, spec, tables, &rows, &weights))
}

/// The features `[N, L F]` from the table `rows` (`[N, L, C]`, `uint64`) and the corner
/// `weights` (`[N, L, C]`): the rows' values weighted and summed over the corners.
fn interpolate(
    g: &mut Graph,
    spec: &HashGridSpec,
    tables: &str,
    rows: &str,
    weights: &str,
) -> String {
    // Rows are below 2^29 (32 levels of at most 2^24 entries): `int32` indices.
    let rows = g.node("Cast", &[rows], &[("to", Attr::Int(i64::from(INT32)))]);
    let values = g.node("Gather", &[tables, &rows], &[("axis", Attr::Int(0))]);
    let axis3 = g.constant_i64("axis_3", &[1], &[3]);
    let weights = g.node("Unsqueeze", &[weights, &axis3], &[]);
    let weighted = g.node("Mul", &[&values, &weights], &[]);
    let corners = g.constant_i64("corner_axis", &[1], &[2]);
    let keep = [("keepdims", Attr::Int(0))];
    let summed = g.node("ReduceSum", &[&weighted, &corners], &keep);
    let width = spec.output_dim() as i64;
    let features = g.constant_i64("features_shape", &[2], &[-1, width]);
    g.node("Reshape", &[&summed, &features], &[])
}

/// `op(acc, term)`, or `term` when there is no accumulator yet.
fn chain(g: &mut Graph, op: &str, acc: Option<String>, term: String) -> String {
    match acc {
        Some(a) => g.node(op, &[&a, &term], &[]),
        None => term,
    }
}
