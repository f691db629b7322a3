//! The model kinds a file can hold, and how each is rebuilt from one: the one registry of
//! model kinds.
//!
//! The built-in kinds ([`nn::Mlp`], [`nn::HashGridMlp`], [`nn::MlpEnsemble`]) are a fixed list read on every
//! backend. A kind a program defines is added at run time with [`register`], once per backend
//! it runs on; its entry holds its loader and, when the `iron-learn-onnx` crate adds it with
//! [`register_with`], one more value for that crate (its ONNX exporter). A model type needs
//! nothing for this but [`nn::Model`]: its [`KIND`](nn::Model::KIND) names it.

use std::any::{Any, TypeId};
use std::sync::RwLock;

use nn::{HashGridMlp, Mlp, MlpEnsemble, Model, NamedArray};
use serde_json::Value;
use tensor_core::Backend;

use super::network::{MODEL_KIND_KEY, Network, boxed};

/// Rebuilds a network from a file's configuration and tensors; errors are sentences about
/// the file.
type Loader<B> = fn(&Value, &B, &[NamedArray]) -> Result<Box<dyn Network<B>>, String>;

/// One kind on backend `B`: its name, the model type that holds it and its loader.
struct Kind<B> {
    name: &'static str,
    model: TypeId,
    load: Loader<B>,
}

impl<B: Backend> Kind<B> {
    /// The kind of model type `M`.
    fn of<M: Model<B>>() -> Self {
        Kind {
            name: M::KIND,
            model: TypeId::of::<M>(),
            load: load_as::<B, M>,
        }
    }
}

/// The built-in kinds on backend `B`.
fn built_in<B: Backend>() -> [Kind<B>; 3] {
    [
        Kind::of::<Mlp<B>>(),
        Kind::of::<HashGridMlp<B>>(),
        Kind::of::<MlpEnsemble<B>>(),
    ]
}

/// A kind added at run time on backend `B`, with what another crate attached to it
/// ([`register_with`]).
struct Added<B> {
    kind: Kind<B>,
    extension: Option<Box<dyn Any + Send + Sync>>,
}

/// The kinds added at run time, each an [`Added`] of its backend, in the order they came.
static ADDED: RwLock<Vec<Box<dyn Any + Send + Sync>>> = RwLock::new(Vec::new());

/// `f` of the kind named `name` added on backend `B`, if there is one.
fn read_kind<B: Backend, R>(name: &str, f: impl FnOnce(&Added<B>) -> Option<R>) -> Option<R> {
    let added = ADDED.read().unwrap_or_else(|e| e.into_inner());
    let mut on_b = added.iter().filter_map(|a| a.downcast_ref::<Added<B>>());
    on_b.find(|a| a.kind.name == name).and_then(f)
}

/// Adds the model type `M` on backend `B` to those that [`FittedModel::load`] and
/// [`FittedModel::from_checkpoint`] rebuild, by its [`Model::KIND`]. Registering the same
/// type again changes nothing; a kind that another type holds (a built-in one included) is
/// refused, naming it.
///
/// The built-in kinds need no call: registering one of their types changes nothing (and
/// keeps no extension: a crate that attaches one lists the built-in kinds itself).
///
/// [`FittedModel::load`]: super::FittedModel::load
/// [`FittedModel::from_checkpoint`]: super::FittedModel::from_checkpoint
pub fn register<B: Backend, M: Model<B>>() -> crate::Result<()> {
    add::<B, M>(None)
}

/// [`register`], attaching `extension` to the kind (in place of what was attached before):
/// how another crate keeps what it knows about the kind beside its loader, found again with
/// [`extension`]. `iron-learn-onnx` attaches the kind's ONNX exporter this way.
pub fn register_with<B: Backend, M: Model<B>, X: Any + Send + Sync>(
    extension: X,
) -> crate::Result<()> {
    add::<B, M>(Some(Box::new(extension)))
}

/// The value of type `X` attached to `kind` on backend `B` by [`register_with`], if any.
pub fn extension<B: Backend, X: Any + Clone>(kind: &str) -> Option<X> {
    read_kind::<B, _>(kind, |a| a.extension.as_ref()?.downcast_ref::<X>().cloned())
}

/// Adds `M` on `B` with `extension` (see [`register`]).
fn add<B: Backend, M: Model<B>>(
    extension: Option<Box<dyn Any + Send + Sync>>,
) -> crate::Result<()> {
    let kind = Kind::<B>::of::<M>();
    let taken = Err(crate::Error::invalid(format!(
        "the model kind `{}` is already registered for another type",
        kind.name
    )));
    if let Some(held) = built_in::<B>().into_iter().find(|k| k.name == kind.name) {
        return if held.model == kind.model {
            Ok(())
        } else {
            taken
        };
    }
    let mut added = ADDED.write().unwrap_or_else(|e| e.into_inner());
    let same_name = added
        .iter_mut()
        .filter_map(|a| a.downcast_mut::<Added<B>>())
        .find(|a| a.kind.name == kind.name);
    match same_name {
        Some(a) if a.kind.model != kind.model => taken,
        Some(a) => {
            a.extension = extension.or(a.extension.take());
            Ok(())
        }
        None => {
            added.push(Box::new(Added { kind, extension }));
            Ok(())
        }
    }
}

/// The kinds readable on backend `B`, built-in first.
pub fn known_kinds<B: Backend>() -> Vec<&'static str> {
    let added = ADDED.read().unwrap_or_else(|e| e.into_inner());
    let on_b = added.iter().filter_map(|a| a.downcast_ref::<Added<B>>());
    let built_in = built_in::<B>().map(|k| k.name);
    built_in
        .into_iter()
        .chain(on_b.map(|a| a.kind.name))
        .collect()
}

/// The loader of `kind` on backend `B`.
fn loader<B: Backend>(kind: &str) -> Option<Loader<B>> {
    match built_in::<B>().into_iter().find(|k| k.name == kind) {
        Some(k) => Some(k.load),
        None => read_kind::<B, _>(kind, |a| Some(a.kind.load)),
    }
}

/// Rebuilds a network of kind `kind` from its configuration and state on `backend`; errors
/// are sentences about the file.
pub(super) fn rebuild<B: Backend>(
    kind: &str,
    config: &Value,
    backend: &B,
    state: &[NamedArray],
) -> Result<Box<dyn Network<B>>, String> {
    match loader::<B>(kind) {
        Some(load) => load(config, backend, state),
        None => Err(format!(
            "its `{MODEL_KIND_KEY}` is `{kind}`, which this version cannot read (it reads `{}`)",
            known_kinds::<B>().join("`, `")
        )),
    }
}

/// The [`Loader`] of model type `M`.
fn load_as<B: Backend, M: Model<B>>(
    config: &Value,
    backend: &B,
    state: &[NamedArray],
) -> Result<Box<dyn Network<B>>, String> {
    let config: M::Config = serde_json::from_value(config.clone())
        .map_err(|e| format!("its `architecture` is unreadable ({e})"))?;
    let mut model = M::from_config(backend, &config, 0).map_err(|e| match e {
        nn::Error::Config(_) => format!("its `architecture` is invalid ({e})"),
        e => format!("its network cannot be built ({e})"),
    })?;
    model
        .import_state(state)
        .map_err(|e| format!("its tensors do not fit its architecture ({e})"))?;
    Ok(boxed(model))
}

#[cfg(test)]
mod tests {
    use super::*;
    use tensor_cpu::CpuBackend;

    #[test]
    fn files_without_a_kind_hold_the_built_in_mlp() {
        assert_eq!(super::super::DEFAULT_KIND, Mlp::<CpuBackend>::KIND);
        assert_eq!(
            known_kinds::<CpuBackend>()[..3],
            ["mlp", "hash_grid_mlp", "mlp_ensemble"]
        );
    }
}
