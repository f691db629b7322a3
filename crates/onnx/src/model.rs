//! The ONNX form of each model type: [`OnnxModel`] (how a model type writes its network as
//! ONNX operators) and the registry that [`export`](crate::export) looks a network up in by
//! its kind ([`register`]).
//!
//! Adding ONNX export to a model type: implement [`OnnxModel`] for it (its network as nodes
//! of a [`Graph`], and the operator set they need), and call [`register`] once for the
//! backend it runs on, in place of [`io::fitted::register`]: that one call makes the type
//! load, save, predict, render and export. The built-in types (the MLP and the hash-grid
//! network) are listed in `built_in` and need no call. A network of a kind without an ONNX
//! form is refused in one line naming its kind.

use std::any::{Any, TypeId};
use std::sync::RwLock;

use io::fitted::{ModelKind, Network};
use nn::{HashGridMlp, Mlp};
use tensor_core::Backend;

use crate::graph::Graph;
use crate::{Error, Result};

/// A model type with an ONNX form: it adds its network to a graph.
pub trait OnnxModel<B: Backend>: ModelKind<B> {
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

/// A model type with an ONNX form: its kind and how to export it.
struct Entry<B: Backend> {
    kind: &'static str,
    export: Exporter<B>,
}

impl<B: Backend> Entry<B> {
    fn of<M: OnnxModel<B>>() -> Self {
        Entry {
            kind: M::KIND,
            export: export_as::<B, M>,
        }
    }
}

/// The model types every build exports, on every backend.
fn built_in<B: Backend>() -> [Entry<B>; 2] {
    [Entry::of::<Mlp<B>>(), Entry::of::<HashGridMlp<B>>()]
}

/// Model types added by [`register`]: the backend's type id, the kind, and its `Entry<B>`.
type Registered = Vec<(TypeId, &'static str, Box<dyn Any + Send + Sync>)>;

static REGISTERED: RwLock<Registered> = RwLock::new(Vec::new());

/// Adds the model type `M` on backend `B` to those that model files hold
/// ([`io::fitted::register`]) and to those that [`export`](crate::export) writes as ONNX.
/// Registering the same type again changes nothing; a kind already taken by another type is
/// refused, naming it.
pub fn register<B: Backend, M: OnnxModel<B>>() -> Result<()> {
    io::fitted::register::<B, M>()?;
    let backend = TypeId::of::<B>();
    let mut registered = REGISTERED.write().unwrap_or_else(|e| e.into_inner());
    let taken = registered
        .iter()
        .any(|(b, kind, _)| *b == backend && *kind == M::KIND);
    if !taken {
        registered.push((backend, M::KIND, Box::new(Entry::<B>::of::<M>())));
    }
    Ok(())
}

/// The kinds with an ONNX form on backend `B`, built-in first.
pub fn exported_kinds<B: Backend>() -> Vec<&'static str> {
    let mut kinds: Vec<&'static str> = built_in::<B>().iter().map(|e| e.kind).collect();
    let registered = REGISTERED.read().unwrap_or_else(|e| e.into_inner());
    kinds.extend(
        registered
            .iter()
            .filter(|(b, _, _)| *b == TypeId::of::<B>())
            .map(|(_, kind, _)| *kind),
    );
    kinds
}

/// Adds `network` to `g`, reading the standardised inputs `x`, by the exporter of its kind;
/// a kind without one is refused, naming it.
pub(crate) fn body<B: Backend>(g: &mut Graph, x: &str, network: &dyn Network<B>) -> Result<Body> {
    let kind = network.kind();
    let export = match built_in::<B>().iter().find(|e| e.kind == kind) {
        Some(entry) => Some(entry.export),
        None => {
            let registered = REGISTERED.read().unwrap_or_else(|e| e.into_inner());
            registered
                .iter()
                .find(|(b, k, _)| *b == TypeId::of::<B>() && *k == kind)
                .and_then(|(_, _, entry)| entry.downcast_ref::<Entry<B>>())
                .map(|e| e.export)
        }
    };
    match export {
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
        assert_eq!(kinds[..2], ["mlp", "hash_grid_mlp"]);
    }
}
