//! [`MlpEnsemble`]: trained [`Mlp`]s that read the same inputs, predicting the weighted sum
//! of their outputs — the bagged and selected table models are one of these.
//!
//! An ensemble is put together from networks trained on their own; it is not trained as a
//! whole (its training pass refuses, naming its members as what trains). Its state is each
//! member's under `members.{i}.`, so a model file holds it like any network.

use super::config::MlpConfig;
use super::mlp::Mlp;
use super::state::NamedArray;
use super::traits::Model;
use crate::layer::{Layer, check_input, check_matrix};
use crate::{Error, Result};
use serde::{Deserialize, Serialize};
use tensor_core::{Backend, Tensor};

/// The prefix of member `i`'s arrays in the ensemble's state.
pub fn member_prefix(i: usize) -> String {
    format!("members.{i}.")
}

/// The members' architectures and the weight of each one's outputs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MlpEnsembleConfig {
    /// Each member's architecture: the same input and output widths.
    pub members: Vec<MlpConfig>,
    /// Each member's weight in the sum of outputs (the mean: `1 / members` each).
    pub weights: Vec<f32>,
}

impl MlpEnsembleConfig {
    /// Checks that there are members, as many finite weights, one input and one output
    /// width, and that each member's architecture is valid.
    pub fn validate(&self) -> Result<()> {
        let Some(first) = self.members.first() else {
            return Err(Error::Config(
                "an ensemble needs at least one member".into(),
            ));
        };
        if self.weights.len() != self.members.len() {
            return Err(Error::Config(format!(
                "an ensemble of {} members has {} weights",
                self.members.len(),
                self.weights.len()
            )));
        }
        if let Some(w) = self.weights.iter().find(|w| !w.is_finite()) {
            return Err(Error::Config(format!("an ensemble weight is {w}")));
        }
        for (i, m) in self.members.iter().enumerate() {
            m.validate()?;
            if (m.input, m.output) != (first.input, first.output) {
                return Err(Error::Config(format!(
                    "ensemble member {i} maps {} inputs to {} outputs, member 0 {} to {}",
                    m.input, m.output, first.input, first.output
                )));
            }
        }
        Ok(())
    }
}

/// Networks reading the same inputs; the output is `sum_i weights[i] * members[i](x)`.
pub struct MlpEnsemble<B: Backend> {
    backend: B,
    config: MlpEnsembleConfig,
    members: Vec<Mlp<B>>,
}

impl<B: Backend> MlpEnsemble<B> {
    /// The ensemble of `members` (the same input and output widths), each one's outputs
    /// times its weight.
    pub fn new(members: Vec<Mlp<B>>, weights: Vec<f32>) -> Result<Self> {
        let config = MlpEnsembleConfig {
            members: members.iter().map(|m| m.config().clone()).collect(),
            weights,
        };
        config.validate()?;
        let backend = members[0].backend().clone();
        Ok(MlpEnsemble {
            backend,
            config,
            members,
        })
    }

    /// The members, in order.
    pub fn members(&self) -> &[Mlp<B>] {
        &self.members
    }

    /// Each member's weight, in order.
    pub fn weights(&self) -> &[f32] {
        &self.config.weights
    }

    /// The members and their weights, in order.
    pub fn into_members(self) -> (Vec<Mlp<B>>, Vec<f32>) {
        (self.members, self.config.weights)
    }

    /// `out` = the weighted sum of the members' outputs for `x`.
    fn infer_sum(&self, x: &Tensor<B>, out: &mut Tensor<B>) -> Result<()> {
        let mut part = Tensor::uninit(&self.backend, out.dims().to_vec())?;
        for (i, (m, &w)) in self.members.iter().zip(&self.config.weights).enumerate() {
            let target = if i == 0 { &mut *out } else { &mut part };
            m.infer(x, target)?;
            target.scale_assign(w)?;
            if i > 0 {
                out.add_assign(&part)?;
            }
        }
        Ok(())
    }
}

/// Why an ensemble's training pass refuses.
fn not_trained() -> Error {
    Error::Config(
        "an ensemble is not trained as one network: its members train on their own".into(),
    )
}

impl<B: Backend> Layer<B> for MlpEnsemble<B> {
    fn describe(&self) -> String {
        let each: Vec<String> = self.members.iter().map(|m| m.describe()).collect();
        format!("ensemble of {} [{}]", self.members.len(), each.join(", "))
    }

    fn input_dim(&self) -> usize {
        self.config.members[0].input
    }

    fn output_dim(&self) -> usize {
        self.config.members[0].output
    }

    fn forward(&mut self, _x: &Tensor<B>) -> Result<&Tensor<B>> {
        Err(not_trained())
    }

    fn output(&self) -> Option<&Tensor<B>> {
        None
    }

    fn backward(&mut self, _x: &Tensor<B>, _grad_out: &Tensor<B>) -> Result<&Tensor<B>> {
        Err(not_trained())
    }

    fn input_grad(&self) -> Option<&Tensor<B>> {
        None
    }

    fn infer(&self, x: &Tensor<B>, out: &mut Tensor<B>) -> Result<()> {
        let rows = check_input(x, self.input_dim(), "MlpEnsemble::infer")?;
        check_matrix(out, rows, self.output_dim(), "MlpEnsemble::infer (output)")?;
        self.infer_sum(x, out)
    }

    fn num_params(&self) -> usize {
        self.members.iter().map(|m| m.num_params()).sum()
    }
}

impl<B: Backend> Model<B> for MlpEnsemble<B> {
    type Config = MlpEnsembleConfig;
    const KIND: &'static str = "mlp_ensemble";

    fn backend(&self) -> &B {
        &self.backend
    }

    fn from_config(backend: &B, config: &MlpEnsembleConfig, seed: u64) -> Result<Self> {
        config.validate()?;
        let members = config
            .members
            .iter()
            .map(|c| Mlp::from_config(backend, c, seed))
            .collect::<Result<Vec<_>>>()?;
        Ok(MlpEnsemble {
            backend: backend.clone(),
            config: config.clone(),
            members,
        })
    }

    fn config(&self) -> &MlpEnsembleConfig {
        &self.config
    }

    /// Each member's predictions (computed in bounded chunks), weighted and summed.
    fn predict(&self, x: &Tensor<B>) -> Result<Tensor<B>> {
        check_input(x, self.input_dim(), "MlpEnsemble::predict")?;
        let mut sum: Option<Tensor<B>> = None;
        for (m, &w) in self.members.iter().zip(&self.config.weights) {
            let mut p = m.predict(x)?;
            p.scale_assign(w)?;
            match &mut sum {
                None => sum = Some(p),
                Some(s) => s.add_assign(&p)?,
            }
        }
        sum.ok_or_else(|| Error::Config("an ensemble needs at least one member".into()))
    }

    fn export_state(&self) -> Result<Vec<NamedArray>> {
        let mut out = Vec::new();
        for (i, m) in self.members.iter().enumerate() {
            let prefix = member_prefix(i);
            out.extend(m.export_state()?.into_iter().map(|mut a| {
                a.name = format!("{prefix}{}", a.name);
                a
            }));
        }
        Ok(out)
    }

    /// Each member's arrays, found under its prefix; every member is checked before any
    /// changes.
    fn import_state(&mut self, state: &[NamedArray]) -> Result<()> {
        let mut copies = Vec::with_capacity(self.members.len());
        for (i, m) in self.members.iter().enumerate() {
            let prefix = member_prefix(i);
            let own: Vec<NamedArray> = state
                .iter()
                .filter_map(|a| {
                    let name = a.name.strip_prefix(&prefix)?;
                    Some(NamedArray {
                        name: name.to_string(),
                        ..a.clone()
                    })
                })
                .collect();
            let mut copy = Mlp::from_config(&self.backend, m.config(), 0)?;
            copy.import_state(&own)
                .map_err(|e| Error::StateMismatch(format!("ensemble member {i}: {e}")))?;
            copies.push(copy);
        }
        self.members = copies;
        Ok(())
    }
}

impl<B: Backend> std::fmt::Debug for MlpEnsemble<B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MlpEnsemble")
            .field("backend", &self.backend.name())
            .field("members", &self.members.len())
            .field("weights", &self.config.weights)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Activation;
    use tensor_cpu::CpuBackend;

    fn net(cpu: &CpuBackend, hidden: &[usize], seed: u64) -> Mlp<CpuBackend> {
        Mlp::builder()
            .input(3)
            .hidden(hidden, Activation::Relu)
            .output(2, Activation::Identity)
            .build(cpu, seed)
            .unwrap()
    }

    fn rows(cpu: &CpuBackend, n: usize) -> Tensor<CpuBackend> {
        let data: Vec<f32> = (0..n * 3)
            .map(|i| ((i * 37 % 23) as f32 - 11.0) / 7.0)
            .collect();
        Tensor::from_slice(cpu, &data, [n, 3]).unwrap()
    }

    #[test]
    fn predicts_the_weighted_sum_of_its_members_in_f64() {
        let cpu = CpuBackend::new();
        let members = vec![net(&cpu, &[8, 8], 1), net(&cpu, &[5], 2), net(&cpu, &[], 3)];
        let x = rows(&cpu, 9);
        let each: Vec<Vec<f32>> = members
            .iter()
            .map(|m| m.predict(&x).unwrap().to_vec().unwrap())
            .collect();
        let weights = vec![0.5, 0.25, 0.25];
        let e = MlpEnsemble::new(members, weights.clone()).unwrap();
        let got = Model::predict(&e, &x).unwrap().to_vec().unwrap();
        let mut inferred = Tensor::zeros(&cpu, [9, 2]).unwrap();
        e.infer(&x, &mut inferred).unwrap();
        for (k, (&g, &i)) in got.iter().zip(&inferred.to_vec().unwrap()).enumerate() {
            let want: f64 = (0..3).map(|m| weights[m] as f64 * each[m][k] as f64).sum();
            assert!((g as f64 - want).abs() < 1e-5, "{g} vs {want}");
            assert!((i as f64 - want).abs() < 1e-5, "{i} vs {want}");
        }
        assert_eq!(
            e.num_params(),
            e.members().iter().map(|m| m.num_params()).sum::<usize>()
        );
    }

    #[test]
    fn its_state_rebuilds_it_and_a_missing_member_array_is_named() {
        let cpu = CpuBackend::new();
        let e =
            MlpEnsemble::new(vec![net(&cpu, &[4], 1), net(&cpu, &[6], 2)], vec![0.5, 0.5]).unwrap();
        let state = e.export_state().unwrap();
        assert!(state.iter().any(|a| a.name == "members.1.layers.0.weight"));
        let mut back = MlpEnsemble::from_config(&cpu, e.config(), 99).unwrap();
        back.import_state(&state).unwrap();
        let x = rows(&cpu, 4);
        let (a, b) = (
            Model::predict(&e, &x).unwrap(),
            Model::predict(&back, &x).unwrap(),
        );
        assert_eq!(a.to_vec().unwrap(), b.to_vec().unwrap());
        let short: Vec<NamedArray> = state
            .into_iter()
            .filter(|a| a.name != "members.1.layers.1.bias")
            .collect();
        let err = back.import_state(&short).unwrap_err().to_string();
        assert!(err.contains("member 1"), "{err}");
    }

    #[test]
    fn refuses_members_of_other_widths_and_training() {
        let cpu = CpuBackend::new();
        let other = Mlp::builder()
            .input(4)
            .hidden(&[4], Activation::Relu)
            .output(2, Activation::Identity)
            .build(&cpu, 1)
            .unwrap();
        let err = MlpEnsemble::new(vec![net(&cpu, &[4], 1), other], vec![0.5, 0.5]);
        assert!(
            err.unwrap_err()
                .to_string()
                .contains("member 1 maps 4 inputs")
        );
        let err = MlpEnsemble::new(vec![net(&cpu, &[4], 1)], vec![1.0, 2.0]);
        assert!(err.unwrap_err().to_string().contains("2 weights"));
        let err = MlpEnsemble::new(vec![net(&cpu, &[4], 1)], vec![f32::NAN]);
        assert!(err.is_err());
        let mut e = MlpEnsemble::new(vec![net(&cpu, &[4], 1)], vec![1.0]).unwrap();
        let err = e.forward(&rows(&cpu, 2)).unwrap_err().to_string();
        assert!(err.contains("members train on their own"), "{err}");
    }
}
