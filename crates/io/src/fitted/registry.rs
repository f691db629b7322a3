//! [`KindRegistry`]: what is known about each model kind on each backend, filled at run time.
//!
//! One table serves every use: this crate's loaders (how a model file's network is rebuilt,
//! by its kind) and what other crates attach to a kind (the ONNX exporters of
//! `iron-learn-onnx`). An entry is keyed by the backend type and the kind, and remembers the
//! model type that added it, so that two types cannot claim one kind.

use std::any::{Any, TypeId};
use std::sync::RwLock;

/// One entry: a backend, a kind, the model type that holds it and its value.
struct Registered {
    backend: TypeId,
    kind: &'static str,
    model: TypeId,
    value: Box<dyn Any + Send + Sync>,
}

/// Values keyed by (backend type, model kind), each added by one model type. Built-in kinds
/// are added by [`seed`](Self::seed) the first time a backend is looked up, so they come
/// first and need no call.
///
/// ```
/// use io::fitted::KindRegistry;
///
/// static UNITS: KindRegistry = KindRegistry::new();
/// struct Cpu;
/// struct Metres;
/// UNITS.add::<Cpu, Metres, &str>("length", "m").unwrap();
/// assert_eq!(UNITS.get::<Cpu, &str>("length"), Some("m"));
/// assert_eq!(UNITS.get::<Cpu, &str>("mass"), None);
/// // Another type cannot take the kind; the same type again changes nothing.
/// struct Feet;
/// assert!(UNITS.add::<Cpu, Feet, &str>("length", "ft").is_err());
/// assert!(UNITS.add::<Cpu, Metres, &str>("length", "m").is_ok());
/// assert_eq!(UNITS.kinds::<Cpu>(), ["length"]);
/// ```
pub struct KindRegistry {
    entries: RwLock<Vec<Registered>>,
    seeded: RwLock<Vec<TypeId>>,
}

impl Default for KindRegistry {
    fn default() -> Self {
        Self::new()
    }
}

impl KindRegistry {
    /// An empty registry (usable in a `static`).
    pub const fn new() -> Self {
        KindRegistry {
            entries: RwLock::new(Vec::new()),
            seeded: RwLock::new(Vec::new()),
        }
    }

    /// Adds `value` for the model type `M` under `kind` on backend `B`. Adding the same type
    /// again changes nothing; a kind that another type holds on `B` is refused with a sentence
    /// naming it.
    pub fn add<B: 'static, M: 'static, V: Any + Send + Sync>(
        &self,
        kind: &'static str,
        value: V,
    ) -> Result<(), String> {
        let (backend, model) = (TypeId::of::<B>(), TypeId::of::<M>());
        let mut entries = self.entries.write().unwrap_or_else(|e| e.into_inner());
        match entries
            .iter()
            .find(|e| e.backend == backend && e.kind == kind)
        {
            Some(e) if e.model == model => Ok(()),
            Some(_) => Err(format!(
                "the model kind `{kind}` is already registered for another type"
            )),
            None => {
                entries.push(Registered {
                    backend,
                    kind,
                    model,
                    value: Box::new(value),
                });
                Ok(())
            }
        }
    }

    /// Runs `built_in` (which adds the built-in kinds) the first time backend `B` is seeded.
    pub fn seed<B: 'static>(&self, built_in: impl FnOnce(&Self)) {
        let backend = TypeId::of::<B>();
        if self
            .seeded
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .contains(&backend)
        {
            return;
        }
        // Held while the built-in kinds are added: a lookup on another thread waits for them.
        let mut seeded = self.seeded.write().unwrap_or_else(|e| e.into_inner());
        if !seeded.contains(&backend) {
            built_in(self);
            seeded.push(backend);
        }
    }

    /// The value of `kind` on backend `B`, if one of type `V` was added.
    pub fn get<B: 'static, V: Any + Clone>(&self, kind: &str) -> Option<V> {
        let backend = TypeId::of::<B>();
        let entries = self.entries.read().unwrap_or_else(|e| e.into_inner());
        entries
            .iter()
            .find(|e| e.backend == backend && e.kind == kind)
            .and_then(|e| e.value.downcast_ref::<V>())
            .cloned()
    }

    /// The kinds with a value on backend `B`, in the order they were added.
    pub fn kinds<B: 'static>(&self) -> Vec<&'static str> {
        let backend = TypeId::of::<B>();
        let entries = self.entries.read().unwrap_or_else(|e| e.into_inner());
        entries
            .iter()
            .filter(|e| e.backend == backend)
            .map(|e| e.kind)
            .collect()
    }
}
