//! Piecewise-linear encoding of a numeric input ([`Piecewise`]): the standardised value
//! `z` becomes one number per bin between edges `b_0 < b_1 < ... < b_T` taken at the
//! quantiles `0, 1/T, ..., 1` of the training values (the values at the nearest ranks), bin `t` (1-based) giving
//!
//! - 1 when `z >= b_t` (the bin lies wholly below `z`), except for the last bin;
//! - 0 when `z < b_{t-1}` (the bin lies wholly above `z`), except for the first bin;
//! - `(z - b_{t-1}) / (b_t - b_{t-1})` otherwise.
//!
//! The first bin is not clipped below nor the last above, so a value beyond the training
//! range goes on growing (below 0 in the first bin, above 1 in the last), and the value is
//! always `b_0 + sum_t e_t (b_t - b_{t-1})`: a linear function of its encoding
//! ([`Piecewise::widths`]). Edges that coincide (a column of few distinct values) are kept
//! once, so such a column has fewer bins; a column of fewer than two distinct training
//! values has none and keeps its standardised value.

use serde::{Deserialize, Serialize};

use super::encode::ColumnEncoder;
use super::preprocessor::Preprocessor;
use crate::error::{Error, Result};

/// The bin edges of one numeric input's piecewise-linear encoding, on its standardised
/// value (see the module documentation).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Piecewise {
    /// The edges `b_0 < ... < b_T`, strictly increasing, in standardised units.
    pub edges: Vec<f32>,
}

impl Piecewise {
    /// The edges at the quantiles `t / bins` (`t = 0..=bins`) of `values` (the
    /// standardised training values, missing cells left out), each the sorted value at the
    /// nearest rank, so that every edge is a training value and a column of few distinct
    /// values has an edge at each of them at most; each kept once. `None` for fewer than two
    /// distinct edges or no bins.
    pub fn fit(values: &mut [f64], bins: usize) -> Option<Piecewise> {
        if values.is_empty() || bins == 0 {
            return None;
        }
        values.sort_unstable_by(f64::total_cmp);
        let last = values.len() - 1;
        let mut edges: Vec<f32> = Vec::with_capacity(bins + 1);
        for t in 0..=bins {
            let rank = (last as f64 * t as f64 / bins as f64).round() as usize;
            let edge = values[rank.min(last)] as f32;
            if edges.last().is_none_or(|&e| edge > e) {
                edges.push(edge);
            }
        }
        (edges.len() >= 2).then_some(Piecewise { edges })
    }

    /// The number of bins (encoded columns).
    pub fn bins(&self) -> usize {
        self.edges.len().saturating_sub(1)
    }

    /// Each bin's width `b_t - b_{t-1}`, in order, as the encoding divides by it.
    pub fn widths(&self) -> Vec<f32> {
        self.edges.windows(2).map(|w| w[1] - w[0]).collect()
    }

    /// Writes the encoding of the standardised value `z` into `out` (one value a bin).
    pub fn write(&self, z: f32, out: &mut [f32]) {
        let last = self.bins().saturating_sub(1);
        for (t, (o, w)) in out.iter_mut().zip(self.edges.windows(2)).enumerate() {
            let mut e = (z - w[0]) / (w[1] - w[0]);
            if t > 0 {
                e = e.max(0.0);
            }
            if t < last {
                e = e.min(1.0);
            }
            *o = e;
        }
    }
}

/// How a value of the plain encoding (every number standardised) is read from the rows
/// of a piecewise one: `offset + sum(weight * row[column])` over `terms`.
#[derive(Debug, Clone, PartialEq)]
pub struct PlainColumn {
    /// The constant part.
    pub offset: f32,
    /// `(column of the piecewise encoding, weight)` pairs.
    pub terms: Vec<(usize, f32)>,
}

/// The encoded width of `encoder` with its numbers standardised, not piecewise.
fn plain_width(encoder: &ColumnEncoder) -> usize {
    match encoder {
        ColumnEncoder::Number {
            indicator,
            piecewise: Some(_),
            ..
        } => 1 + usize::from(*indicator),
        other => other.output_names().len(),
    }
}

/// The piecewise encoding of a number column, if it has one.
fn piecewise_of(encoder: &ColumnEncoder) -> Option<&Piecewise> {
    match encoder {
        ColumnEncoder::Number { piecewise, .. } => piecewise.as_ref(),
        _ => None,
    }
}

impl Preprocessor {
    /// The same encoding with every number column piecewise-linear in at most `bins`
    /// bins ([`Piecewise`]), the edges fitted on `train`: the rows this encoding gave for
    /// the training rows (`rows * width()` values; a missing cell's filled value is left
    /// out of its column's edges). A column of fewer than two distinct training values
    /// stays standardised. Errors when the encoding is piecewise already or `train` is not
    /// whole rows.
    pub fn with_piecewise(&self, train: &[f32], bins: usize) -> Result<Preprocessor> {
        if self.columns.iter().any(|c| piecewise_of(c).is_some()) {
            return Err(Error::invalid("the encoding is piecewise-linear already"));
        }
        let width = self.width();
        if width == 0 || !train.len().is_multiple_of(width) {
            return Err(Error::invalid(format!(
                "{} values are not whole rows of {width} encoded columns",
                train.len()
            )));
        }
        let mut out = self.clone();
        let mut offset = 0;
        for encoder in &mut out.columns {
            let here = offset;
            offset += encoder.output_names().len();
            let ColumnEncoder::Number {
                indicator,
                piecewise,
                ..
            } = encoder
            else {
                continue;
            };
            let mut values: Vec<f64> = train
                .chunks_exact(width)
                .filter(|row| !(*indicator && row[here + 1] == 1.0))
                .map(|row| f64::from(row[here]))
                .collect();
            *piecewise = Piecewise::fit(&mut values, bins);
        }
        Ok(out)
    }

    /// The encoding with every number standardised (no piecewise-linear column).
    pub fn plain(&self) -> Preprocessor {
        let mut out = self.clone();
        for encoder in &mut out.columns {
            if let ColumnEncoder::Number { piecewise, .. } = encoder {
                *piecewise = None;
            }
        }
        out
    }

    /// Rows of this encoding from rows of its [`plain`](Self::plain) one (the same values
    /// as [`transform`](Self::transform) of the table they encode). Errors when `plain` is
    /// not whole rows.
    pub fn piecewise_rows(&self, plain: &[f32]) -> Result<Vec<f32>> {
        let from: usize = self.columns.iter().map(plain_width).sum();
        let width = self.width();
        if from == 0 || !plain.len().is_multiple_of(from) {
            return Err(Error::invalid(format!(
                "{} values are not whole rows of {from} encoded columns",
                plain.len()
            )));
        }
        let rows = plain.len() / from;
        let mut out = vec![0f32; rows * width];
        for (src, dst) in plain.chunks_exact(from).zip(out.chunks_exact_mut(width)) {
            let (mut a, mut b) = (0, 0);
            for encoder in &self.columns {
                let n = plain_width(encoder);
                match piecewise_of(encoder) {
                    Some(p) => {
                        let bins = p.bins();
                        p.write(src[a], &mut dst[b..b + bins]);
                        dst[b + bins..b + bins + n - 1].copy_from_slice(&src[a + 1..a + n]);
                        b += bins + n - 1;
                    }
                    None => {
                        dst[b..b + n].copy_from_slice(&src[a..a + n]);
                        b += n;
                    }
                }
                a += n;
            }
        }
        Ok(out)
    }

    /// Each column of the [`plain`](Self::plain) encoding, in order, as read from this
    /// encoding's rows: a standardised number is `b_0 + sum_t e_t (b_t - b_{t-1})` of its
    /// bins, any other column itself. So a model of the plain rows is a model of these.
    pub fn plain_columns(&self) -> Vec<PlainColumn> {
        let mut out = Vec::new();
        let mut at = 0;
        for encoder in &self.columns {
            let n = plain_width(encoder);
            let copied = match piecewise_of(encoder) {
                Some(p) => {
                    let terms = p.widths().into_iter().enumerate();
                    out.push(PlainColumn {
                        offset: p.edges[0],
                        terms: terms.map(|(t, w)| (at + t, w)).collect(),
                    });
                    at += p.bins();
                    n - 1
                }
                None => n,
            };
            for _ in 0..copied {
                out.push(PlainColumn {
                    offset: 0.0,
                    terms: vec![(at, 1.0)],
                });
                at += 1;
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edges_are_quantiles_kept_once() {
        let mut v: Vec<f64> = (0..=8).map(f64::from).collect();
        let p = Piecewise::fit(&mut v, 4).unwrap();
        assert_eq!(p.edges, [0.0, 2.0, 4.0, 6.0, 8.0]);
        // The sorted values at the nearest ranks: 0, 0.75 and 1.5 of the way to the last.
        let p = Piecewise::fit(&mut [3.0, 0.0, 1.0, 9.0], 2).unwrap();
        assert_eq!(p.edges, [0.0, 3.0, 9.0]);
        // Three distinct values asked into 8 bins: the repeated edges collapse.
        let mut few = [1.0, 1.0, 1.0, 2.0, 2.0, 5.0, 5.0, 5.0, 5.0];
        let p = Piecewise::fit(&mut few, 8).unwrap();
        assert_eq!(p.edges, [1.0, 2.0, 5.0]);
        assert!(Piecewise::fit(&mut [4.0, 4.0], 8).is_none());
        assert!(Piecewise::fit(&mut [], 8).is_none());
        assert!(Piecewise::fit(&mut [1.0, 2.0], 0).is_none());
    }

    #[test]
    fn values_fill_the_bins_below_them_and_extrapolate_at_the_ends() {
        let p = Piecewise {
            edges: vec![0.0, 2.0, 4.0, 8.0],
        };
        let encode = |z: f32| {
            let mut out = [9.0; 3];
            p.write(z, &mut out);
            out
        };
        assert_eq!(encode(1.0), [0.5, 0.0, 0.0]);
        assert_eq!(encode(3.0), [1.0, 0.5, 0.0]);
        assert_eq!(encode(6.0), [1.0, 1.0, 0.5]);
        assert_eq!(encode(-2.0), [-1.0, 0.0, 0.0]);
        assert_eq!(encode(12.0), [1.0, 1.0, 2.0]);
        // The value is b_0 plus the widths weighted by the encoding.
        for z in [-3.0f32, 0.5, 2.0, 5.0, 11.0] {
            let sum: f32 = encode(z).iter().zip(p.widths()).map(|(e, w)| e * w).sum();
            assert_eq!(p.edges[0] + sum, z);
        }
    }
}
