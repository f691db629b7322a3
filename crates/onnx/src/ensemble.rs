//! The ONNX form of an [`MlpEnsemble`]: each member's network side by side on the same
//! inputs (its constants named `member_{i}_...`), each output times its weight, summed.

use nn::MlpEnsemble;
use tensor_core::Backend;

use crate::Result;
use crate::export::mlp_named;
use crate::graph::Graph;
use crate::model::OnnxModel;

impl<B: Backend> OnnxModel<B> for MlpEnsemble<B> {
    fn to_onnx(&self, g: &mut Graph, x: &str) -> Result<String> {
        let mut sum: Option<String> = None;
        for (i, (member, &w)) in self.members().iter().zip(self.weights()).enumerate() {
            let out = mlp_named(g, x, member, &format!("member_{i}_"))?;
            let weight = g.scalar(&format!("member_{i}_weight"), w);
            let scaled = g.node("Mul", &[&out, &weight], &[]);
            sum = Some(match sum {
                None => scaled,
                Some(s) => g.node("Add", &[&s, &scaled], &[]),
            });
        }
        Ok(sum.unwrap_or_else(|| unreachable!("an ensemble has a member")))
    }
}
