//! [`Function::sample`]: a function evaluated on a grid, undefined points and poles left out.

use super::{Function, written};
use crate::Standardizer;
use crate::error::{Error, Result};

/// Samples of a function ([`Function::sample`]): inputs and values, with the count of points
/// left out.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Samples {
    /// The inputs kept.
    pub x: Vec<f64>,
    /// The function's values there.
    pub y: Vec<f64>,
    /// The sample index of each kept point (0..n).
    pub index: Vec<usize>,
    /// Points where the function is undefined (NaN).
    pub undefined: usize,
    /// Points where |f(x)| is beyond the largest 32-bit float (or infinite).
    pub overflow: usize,
    /// The first such x.
    pub first_overflow: Option<f64>,
    /// Values left out far outside the bulk (near a pole).
    pub outliers: usize,
}

fn median(sorted: &[f64]) -> f64 {
    sorted[sorted.len() / 2]
}

impl Function {
    /// Evaluates the function on `n` (at least 2) evenly spaced points of `[a, b]`, leaving
    /// out points where it is undefined or beyond 32-bit floats, and, unless
    /// `keep_outliers`, values far outside the bulk (ten interquartile ranges from the
    /// median), as near a pole.
    pub fn sample(&self, a: f64, b: f64, n: usize, keep_outliers: bool) -> Result<Samples> {
        sample(self, a, b, n, keep_outliers)
    }
}

impl Function {
    /// [`sample`](Self::sample), refusing in one line samples no network could fit: more
    /// than a few points beyond 32-bit floats (a few are poles, such as 1/x at 0), fewer
    /// than 10 defined points, or (unless `classify`, which fits the sign) a constant.
    pub fn fittable_samples(
        &self,
        (a, b): (f64, f64),
        n: usize,
        classify: bool,
    ) -> Result<Samples> {
        let s = self.sample(a, b, n, classify)?;
        let (sa, sb) = (written(a), written(b));
        let refuse = |m: String| Err(Error::invalid(m));
        if s.overflow > (n / 100).max(2) {
            let x0 = s.first_overflow.unwrap_or(a);
            let x0 = if x0.abs() < 1e6 {
                format!("{x0:.4}")
            } else {
                format!("{x0:.4e}")
            };
            return refuse(format!(
                "{:?} overflows 32-bit floats (|f(x)| above {:.1e}) at {} of {n} points in [{sa}, {sb}], from x = {x0}; narrow the range or scale the function down",
                self.text(),
                f32::MAX,
                s.overflow,
            ));
        }
        if s.x.len() < 10 {
            return refuse(format!(
                "{:?} is defined at only {} of {n} points in [{sa}, {sb}]",
                self.text(),
                s.x.len(),
            ));
        }
        if !classify && s.y.iter().all(|&y| y == s.y[0]) {
            return refuse(format!(
                "{:?} is constant on [{sa}, {sb}] (every value is {}); there is nothing to fit",
                self.text(),
                s.y[0]
            ));
        }
        Ok(s)
    }
}

fn sample(f: &Function, a: f64, b: f64, n: usize, keep_outliers: bool) -> Result<Samples> {
    if n < 2 {
        return Err(Error::invalid(format!(
            "sampling needs at least 2 points, got {n}"
        )));
    }
    let mut s = Samples::default();
    // The count comes from the user: reserve fallibly.
    let fail = |_| Error::invalid(format!("cannot allocate {n} samples; use fewer samples"));
    s.x.try_reserve_exact(n).map_err(fail)?;
    s.y.try_reserve_exact(n).map_err(fail)?;
    s.index.try_reserve_exact(n).map_err(fail)?;
    for i in 0..n {
        let x = a + (b - a) * i as f64 / (n - 1) as f64;
        let y = f.eval(x);
        if y.is_nan() {
            s.undefined += 1;
        } else if y.abs() > f64::from(f32::MAX) {
            s.overflow += 1;
            s.first_overflow.get_or_insert(x);
        } else {
            s.x.push(x);
            s.y.push(y);
            s.index.push(i);
        }
    }
    if keep_outliers || s.y.len() < 8 {
        return Ok(s);
    }
    let mut sorted = s.y.clone();
    sorted.sort_by(f64::total_cmp);
    let (q1, q3) = (sorted[sorted.len() / 4], sorted[3 * sorted.len() / 4]);
    let (mid, spread) = (median(&sorted), (q3 - q1).max(1e-9 * median(&sorted).abs()));
    let keep: Vec<bool> =
        s.y.iter()
            .map(|y| (y - mid).abs() <= 10.0 * spread.max(1e-12))
            .collect();
    s.outliers = keep.iter().filter(|k| !**k).count();
    let mut it = keep.iter();
    s.x.retain(|_| *it.next().unwrap_or(&true));
    let mut it = keep.iter();
    s.y.retain(|_| *it.next().unwrap_or(&true));
    let mut it = keep.iter();
    s.index.retain(|_| *it.next().unwrap_or(&true));
    Ok(s)
}

/// Samples as a network learns them ([`Samples::scaled`]).
#[derive(Debug, Clone, PartialEq)]
pub struct ScaledSamples {
    /// The map of `[a, b]` onto `[-1, 1]`: a standardisation with the centre and the
    /// half-width, to store with the model so that predictions apply the same transform.
    pub inputs: Standardizer,
    /// The inputs, mapped.
    pub xs: Vec<f32>,
    /// The values, as they are.
    pub raw: Vec<f32>,
    /// The standardisation of the values.
    pub stats: Standardizer,
    /// The targets: the values standardised, or their sign classes (1 above 0).
    pub ys: Vec<f32>,
}

impl Samples {
    /// The samples of `[a, b]` as a network learns them: inputs mapped onto `[-1, 1]`,
    /// targets standardised, or with `classify` the sign classes of the values.
    pub fn scaled(&self, (a, b): (f64, f64), classify: bool) -> Result<ScaledSamples> {
        let s = self;
        let inputs = Standardizer {
            mean: vec![((a + b) / 2.0) as f32],
            std: vec![((b - a) / 2.0) as f32],
        };
        let xs = inputs.transform(&s.x.iter().map(|&x| x as f32).collect::<Vec<_>>())?;
        let raw: Vec<f32> = s.y.iter().map(|&y| y as f32).collect();
        let stats = Standardizer::fit(&raw, 1)?;
        let ys = if classify {
            raw.iter()
                .map(|&y| if y > 0.0 { 1.0 } else { 0.0 })
                .collect()
        } else {
            stats.transform(&raw)?
        };
        Ok(ScaledSamples {
            inputs,
            xs,
            raw,
            stats,
            ys,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn undefined_points_and_poles_are_left_out_and_counted() {
        let f = Function::parse("sqrt(x)").unwrap();
        let s = f.sample(-1.0, 1.0, 5, false).unwrap();
        assert_eq!((s.undefined, s.x.len()), (2, 3));
        assert_eq!(s.index, [2, 3, 4]);
        assert_eq!(s.y, [0.0, 0.5f64.sqrt(), 1.0]);

        // 1/x on 101 points: x = 0 is infinite, its neighbours far outside the bulk.
        let f = Function::parse("1/x").unwrap();
        let s = f.sample(-1.0, 1.0, 101, false).unwrap();
        assert_eq!((s.overflow, s.first_overflow), (1, Some(0.0)));
        assert!(
            s.outliers > 0 && s.y.iter().all(|y| y.abs() < 50.0),
            "{s:?}"
        );
        let kept = f.sample(-1.0, 1.0, 101, true).unwrap();
        assert_eq!((kept.outliers, kept.x.len()), (0, 100));

        assert!(f.sample(0.0, 1.0, 1, false).is_err());
    }

    #[test]
    fn scaled_samples_map_the_range_onto_minus_one_to_one() {
        let f = Function::parse("x - 1").unwrap();
        let s = f.sample(-2.0, 4.0, 3, false).unwrap();
        let r = s.scaled((-2.0, 4.0), false).unwrap();
        assert_eq!(r.xs, [-1.0, 0.0, 1.0]);
        assert_eq!(r.raw, [-3.0, 0.0, 3.0]);
        let back = r.stats.inverse_transform(&r.ys).unwrap();
        assert!(back.iter().zip(&r.raw).all(|(a, b)| (a - b).abs() < 1e-6));
        let c = s.scaled((-2.0, 4.0), true).unwrap();
        assert_eq!(c.ys, [0.0, 0.0, 1.0]);
    }

    #[test]
    fn samples_no_network_could_fit_are_refused_in_one_line() {
        let f = |t: &str| Function::parse(t).unwrap();
        let e = f("exp(x)").fittable_samples((0.0, 1000.0), 100, false);
        let e = e.unwrap_err().to_string();
        assert!(
            e.contains("overflows 32-bit floats") && e.contains("of 100 points"),
            "{e}"
        );
        let e = f("sqrt(x)").fittable_samples((-10.0, 0.05), 100, false);
        assert!(e.unwrap_err().to_string().contains("defined at only"));
        let e = f("2 + 0*x").fittable_samples((0.0, 1.0), 100, false);
        assert!(e.unwrap_err().to_string().contains("is constant"));
        // The sign of a constant is a class, and one pole is a pole.
        assert!(f("2 + 0*x").fittable_samples((0.0, 1.0), 100, true).is_ok());
        assert!(f("1/x").fittable_samples((-1.0, 1.0), 101, false).is_ok());
    }
}
