//! The ONNX form of each model type: [`OnnxModel`] (how a model type writes its network as
//! ONNX operators) and how [`export`](crate::export) finds it by a network's kind.
//!
//! Adding ONNX export to a model type: implement [`OnnxModel`] for it (its network as nodes
//! of a [`Graph`], and the operator set they need), and call [`register`] once for the
//! backend it runs on, in place of [`io::fitted::register`]: that one call makes the type
//! load, save, predict, render and export (its exporter is kept in the entry of its kind in
//! the one registry of model kinds, `io`'s). The built-in types (the MLP and the hash-grid
//! network, the ensemble of MLPs) are listed in `built_in` and need no call. A network of a kind without an ONNX
//! form is refused in one line naming its kind.

use io::fitted::Network;
use nn::{HashGridMlp, Mlp, MlpEnsemble, Model};
use tensor_core::Backend;

use crate::graph::Graph;
use crate::{Error, Result};

/// A model type with an ONNX form: it adds its network to a graph.
pub trait OnnxModel<B: Backend>: Model<B> {
    /// The ONNX operator set the nodes of [`to_onnx`](Self::to_onnx) need (at least 13, which
    /// the graph's input and output steps use).
    const OPSET: i64 = crate::OPSET;

    /// The IR version that goes with [`OPSET`](Self::OPSET).
    const IR_VERSION: i64 = crate::IR_VERSION;

    /// Adds the network to `g`, reading its inputs from the value `x` (`[N, input_dim]`,
    /// already standardised), and returns the name of its raw output (`[N, output_dim]`,
    /// before the output de-standardisation): what [`nn::Model::predict`] computes.
    fn to_onnx(&self, g: &mut Graph, x: &str) -> Result<String>;
}

/// The network added to a graph: its raw output, operator set and IR version.
pub(crate) struct Body {
    /// The name of the raw output value.
    pub output: String,
    /// The operator set the graph needs.
    pub opset: i64,
    /// The IR version that goes with it.
    pub ir_version: i64,
}

/// Adds a network to a graph (see [`OnnxModel::to_onnx`]).
type Exporter<B> = fn(&dyn Network<B>, &mut Graph, &str) -> Result<Body>;

/// The built-in kinds with an ONNX form on backend `B`, and their exporters.
fn built_in<B: Backend>() -> [(&'static str, Exporter<B>); 3] {
    [
        (Mlp::<B>::KIND, export_as::<B, Mlp<B>>),
        (HashGridMlp::<B>::KIND, export_as::<B, HashGridMlp<B>>),
        (MlpEnsemble::<B>::KIND, export_as::<B, MlpEnsemble<B>>),
    ]
}

/// Adds the model type `M` on backend `B` to those that model files hold
/// ([`io::fitted::register`]) and to those that [`export`](crate::export) writes as ONNX: its
/// exporter goes into the entry of its kind ([`io::fitted::register_with`]). Registering the
/// same type again changes nothing; a kind already taken by another type is refused, naming
/// it.
pub fn register<B: Backend, M: OnnxModel<B>>() -> Result<()> {
    Ok(io::fitted::register_with::<B, M, Exporter<B>>(
        export_as::<B, M>,
    )?)
}

/// The exporter of `kind` on backend `B`: a built-in one, or one added with [`register`].
fn exporter<B: Backend>(kind: &str) -> Option<Exporter<B>> {
    match built_in::<B>().into_iter().find(|(k, _)| *k == kind) {
        Some((_, export)) => Some(export),
        None => io::fitted::extension::<B, Exporter<B>>(kind),
    }
}

/// The kinds with an ONNX form on backend `B`, built-in first.
pub fn exported_kinds<B: Backend>() -> Vec<&'static str> {
    let known = io::fitted::known_kinds::<B>();
    known
        .into_iter()
        .filter(|k| exporter::<B>(k).is_some())
        .collect()
}

/// Adds `network` to `g`, reading the standardised inputs `x`, by the exporter of its kind;
/// a kind without one is refused, naming it.
pub(crate) fn body<B: Backend>(g: &mut Graph, x: &str, network: &dyn Network<B>) -> Result<Body> {
    let kind = network.kind();
    match exporter::<B>(kind) {
        Some(export) => export(network, g, x),
        None => Err(Error::Unsupported(format!(
            "a `{kind}` model has no ONNX form (exported kinds: `{}`)",
            exported_kinds::<B>().join("`, `")
        ))),
    }
}

/// The [`Exporter`] of model type `M`.
fn export_as<B: Backend, M: OnnxModel<B>>(
    network: &dyn Network<B>,
    g: &mut Graph,
    x: &str,
) -> Result<Body> {
    let model = network.downcast_ref::<M>().ok_or_else(|| {
        Error::Unsupported(format!(
            "a `{}` model of another type than the one registered for its kind",
            network.kind()
        ))
    })?;
    Ok(Body {
        output: model.to_onnx(g, x)?,
        opset: M::OPSET,
        ir_version: M::IR_VERSION,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_kinds_are_exported() {
        let kinds = exported_kinds::<tensor_cpu::CpuBackend>();
        assert_eq!(kinds[..3], ["mlp", "hash_grid_mlp", "mlp_ensemble"]);
    }
}
