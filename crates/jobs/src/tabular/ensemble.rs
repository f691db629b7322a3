//! Greedy ensemble selection with replacement (Caruana et al., 2004) over candidates'
//! out-of-fold outputs: starting from the best single candidate, each round adds the
//! candidate (again, if it is best) whose addition gives the mean of outputs the lowest
//! loss; a candidate's weight is the share of rounds that picked it.
//!
//! The loss is the smooth one the networks train with (the mean squared error of
//! standardised targets; the cross-entropy of the mean logits), which separates candidates
//! that the same accuracy would tie.

/// Rounds of the selection: the weights are multiples of `1 / ENSEMBLE_ROUNDS`.
pub const ENSEMBLE_ROUNDS: usize = 20;

/// The out-of-fold raw outputs of one candidate (`width` per row, the rows in table order).
pub struct CandidateOutputs<'a> {
    /// The candidate's name in the report (`plain`, `periodic`, `piecewise`, `linear`).
    pub name: &'a str,
    /// Its outputs.
    pub outputs: &'a [f32],
}

/// The truth the outputs are scored against: targets in the networks' units (standardised
/// values, or class indices), the outputs' width and the classes (0: a regression).
#[derive(Clone, Copy)]
pub struct Truth<'a> {
    /// One target per row.
    pub targets: &'a [f32],
    /// Outputs per row.
    pub width: usize,
    /// Classes (0: a regression).
    pub classes: usize,
}

/// The mean loss of raw `outputs` against `truth`: the mean squared error (a regression),
/// the binary cross-entropy of one logit, or the softmax cross-entropy of `width` logits.
pub fn loss(outputs: &[f32], truth: Truth<'_>) -> f64 {
    let rows = truth.targets.len().max(1) as f64;
    let total: f64 = match (truth.classes, truth.width) {
        (0, _) => outputs
            .iter()
            .zip(truth.targets)
            .map(|(&o, &t)| (o as f64 - t as f64).powi(2))
            .sum(),
        (_, 1) => outputs
            .iter()
            .zip(truth.targets)
            .map(|(&z, &t)| {
                let z = z as f64;
                // log(1 + e^z) - t z, computed without overflow.
                z.max(0.0) + (-z.abs()).exp().ln_1p() - t as f64 * z
            })
            .sum(),
        (_, w) => outputs
            .chunks_exact(w)
            .zip(truth.targets)
            .map(|(row, &t)| {
                let most = row.iter().fold(f32::MIN, |m, &v| m.max(v)) as f64;
                let sum: f64 = row.iter().map(|&v| (v as f64 - most).exp()).sum();
                most + sum.ln() - row[t as usize] as f64
            })
            .sum(),
    };
    total / rows
}

/// How many of [`ENSEMBLE_ROUNDS`] rounds picked each candidate, and the loss of the
/// weighted mean: the selection over the candidates of `pool` (indices into `candidates`),
/// starting from the best of them alone. A tie keeps the earlier candidate.
pub fn select(
    candidates: &[CandidateOutputs<'_>],
    pool: &[usize],
    truth: Truth<'_>,
) -> (Vec<usize>, f64) {
    let mut counts = vec![0usize; candidates.len()];
    let Some(len) = pool.first().map(|&c| candidates[c].outputs.len()) else {
        return (counts, f64::INFINITY);
    };
    let mut sum = vec![0f64; len];
    let mut best_loss = f64::INFINITY;
    for round in 1..=ENSEMBLE_ROUNDS {
        let mut best: Option<(usize, f64)> = None;
        for &c in pool {
            let mean: Vec<f32> = sum
                .iter()
                .zip(candidates[c].outputs)
                .map(|(&s, &o)| ((s + o as f64) / round as f64) as f32)
                .collect();
            let l = loss(&mean, truth);
            if best.is_none_or(|(_, b)| l < b) {
                best = Some((c, l));
            }
        }
        let Some((c, l)) = best else { break };
        counts[c] += 1;
        best_loss = l;
        sum.iter_mut()
            .zip(candidates[c].outputs)
            .for_each(|(s, &o)| *s += o as f64);
    }
    (counts, best_loss)
}

/// The weighted mean of the candidates' outputs, `counts` picks each.
pub fn blend_outputs(candidates: &[CandidateOutputs<'_>], counts: &[usize]) -> Vec<f32> {
    let total = counts.iter().sum::<usize>().max(1) as f64;
    let len = candidates.first().map_or(0, |c| c.outputs.len());
    let mut out = vec![0f64; len];
    for (c, &n) in candidates.iter().zip(counts) {
        if n > 0 {
            let w = n as f64 / total;
            out.iter_mut()
                .zip(c.outputs)
                .for_each(|(s, &o)| *s += w * o as f64);
        }
    }
    out.into_iter().map(|v| v as f32).collect()
}

/// `plain 0.60, linear 0.40`: the picked candidates and their weights.
pub fn weights_text(candidates: &[CandidateOutputs<'_>], counts: &[usize]) -> String {
    let total = counts.iter().sum::<usize>().max(1) as f64;
    let parts: Vec<String> = candidates
        .iter()
        .zip(counts)
        .filter(|(_, n)| **n > 0)
        .map(|(c, &n)| format!("{} {:.2}", c.name, n as f64 / total))
        .collect();
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn losses_match_their_closed_forms() {
        let r = Truth {
            targets: &[1.0, 2.0],
            width: 1,
            classes: 0,
        };
        assert!((loss(&[1.5, 1.0], r) - (0.25 + 1.0) / 2.0).abs() < 1e-12);
        let b = Truth {
            targets: &[1.0, 0.0],
            width: 1,
            classes: 2,
        };
        let want = ((1.0 + (-2.0f64).exp()).ln() + (1.0 + 0.5f64.exp()).ln()) / 2.0;
        assert!((loss(&[2.0, 0.5], b) - want).abs() < 1e-12);
        // A large logit does not overflow.
        assert!(loss(&[500.0, -500.0], b).abs() < 1e-12);
        let m = Truth {
            targets: &[2.0],
            width: 3,
            classes: 3,
        };
        let z = [0.0f64, 1.0, 3.0];
        let want = z.iter().map(|v| v.exp()).sum::<f64>().ln() - 3.0;
        assert!((loss(&[0.0, 1.0, 3.0], m) - want).abs() < 1e-12);
    }

    #[test]
    fn two_candidates_with_opposite_errors_are_mixed_half_and_half() {
        // a = t + e, b = t - e: their mean is exact, either alone is not.
        let t = [0.0f32, 1.0, 2.0, 3.0];
        let a = [0.5f32, 0.5, 2.5, 2.5];
        let b = [-0.5f32, 1.5, 1.5, 3.5];
        let worse = [3.0f32, 3.0, 3.0, 3.0];
        let c = [
            CandidateOutputs {
                name: "a",
                outputs: &a,
            },
            CandidateOutputs {
                name: "b",
                outputs: &b,
            },
            CandidateOutputs {
                name: "w",
                outputs: &worse,
            },
        ];
        let truth = Truth {
            targets: &t,
            width: 1,
            classes: 0,
        };
        let (counts, l) = select(&c, &[0, 1, 2], truth);
        assert_eq!(counts, [10, 10, 0]);
        assert!(l < 1e-12, "{l}");
        assert_eq!(weights_text(&c, &counts), "a 0.50, b 0.50");
        assert_eq!(blend_outputs(&c, &counts), t);
        // Restricted to one candidate, it is picked every round.
        let (counts, l) = select(&c, &[2], truth);
        assert_eq!(counts, [0, 0, ENSEMBLE_ROUNDS]);
        assert!((l - loss(&worse, truth)).abs() < 1e-12);
    }

    #[test]
    fn a_candidate_no_better_in_a_mix_is_never_picked() {
        let t = [0.0f32, 1.0, 0.0, 1.0];
        let good = [-4.0f32, 4.0, -4.0, 4.0];
        let bad = [4.0f32, -4.0, 4.0, -4.0];
        let c = [
            CandidateOutputs {
                name: "good",
                outputs: &good,
            },
            CandidateOutputs {
                name: "bad",
                outputs: &bad,
            },
        ];
        let truth = Truth {
            targets: &t,
            width: 1,
            classes: 2,
        };
        let (counts, _) = select(&c, &[0, 1], truth);
        assert_eq!(counts, [ENSEMBLE_ROUNDS, 0]);
        assert_eq!(select(&c, &[], truth).0, [0, 0]);
    }
}
