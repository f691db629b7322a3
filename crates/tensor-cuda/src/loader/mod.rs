//! Finding the CUDA libraries at run time, so that a missing or unusable driver or cuBLAS is
//! an error and never a panic.
//!
//! - The driver (`driver.rs`): `libcuda.so.1`, the name the driver package installs, is
//!   tried before `libcuda.so` and cudarc's other names, and the library cudarc will open is
//!   checked to be the same driver, or at least not the CUDA toolkit's link-time stub.
//! - cuBLAS (`cublas.rs`, `search.rs`): `$IRON_LEARN_CUBLAS`, the loader's search path, CUDA
//!   toolkits, NVIDIA's Python wheels and `ldconfig -p`, in that order; a candidate that does
//!   not load, lacks an entry point or cannot create a handle is passed over for the next.

mod cublas;
mod driver;
mod search;

pub(crate) use cublas::{CublasHandle, CublasLibrary, find_cublas};
pub(crate) use driver::probe_driver;
pub use search::CUBLAS_ENV;
pub(crate) use search::SearchEnv;

use crate::error::CudaError;

/// What came of trying one candidate library.
#[derive(Debug)]
pub(crate) enum Attempt<T> {
    /// It works.
    Works(T),
    /// It is not there (a name the loader does not find, a path with no file): not worth
    /// reporting.
    Absent,
    /// It is there but does not work.
    Fails(CudaError),
}

/// Every candidate tried, and why each that was there did not work.
#[derive(Debug, Default)]
pub(crate) struct Tried {
    /// Every candidate tried, in order.
    pub names: Vec<String>,
    /// The candidates that were there but failed, with their errors.
    pub failures: Vec<(String, CudaError)>,
}

impl Tried {
    /// "tried a, b, c" followed by each failure, for an error message.
    pub(crate) fn describe(&self) -> String {
        self.describe_first(usize::MAX)
    }

    /// As [`Tried::describe`], naming only the first `n` candidates tried.
    pub(crate) fn describe_first(&self, n: usize) -> String {
        let mut text = format!("tried {}", self.names[..n.min(self.names.len())].join(", "));
        let more = self.names.len().saturating_sub(n);
        if more > 0 {
            let s = if more == 1 { "" } else { "s" };
            text.push_str(&format!(" and {more} other name{s}"));
        }
        for (name, error) in &self.failures {
            text.push_str(&format!("; {name}: {}", error_text(error)));
        }
        text
    }

    /// The error of the last candidate that was there, if any.
    pub(crate) fn last_error(&self) -> Option<CudaError> {
        self.failures.last().map(|(_, e)| e.clone())
    }
}

/// The error without its library name, which the failure list already gives.
fn error_text(error: &CudaError) -> String {
    match error {
        CudaError::Library { message, .. } => message.clone(),
        other => other.to_string(),
    }
}

/// A candidate as error messages name it.
pub(crate) trait Label {
    /// The name or path.
    fn label(&self) -> String;
}

impl Label for &str {
    fn label(&self) -> String {
        self.to_string()
    }
}

impl Label for &String {
    fn label(&self) -> String {
        self.to_string()
    }
}

impl Label for std::path::PathBuf {
    fn label(&self) -> String {
        self.display().to_string()
    }
}

/// Tries `candidates` in order with `attempt` and returns the first that works; otherwise
/// every candidate tried and the failures. Candidates are produced lazily, so a costly source
/// (running `ldconfig`) is only consulted when the cheap ones failed.
pub(crate) fn first_working<C: Label, T>(
    candidates: impl IntoIterator<Item = C>,
    mut attempt: impl FnMut(&C) -> Attempt<T>,
) -> Result<T, Tried> {
    let mut tried = Tried::default();
    for candidate in candidates {
        let name = candidate.label();
        if tried.names.contains(&name) {
            continue;
        }
        tried.names.push(name.clone());
        match attempt(&candidate) {
            Attempt::Works(t) => return Ok(t),
            Attempt::Absent => {}
            Attempt::Fails(e) => tried.failures.push((name, e)),
        }
    }
    Err(tried)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;

    fn fails(what: &str) -> CudaError {
        CudaError::Library {
            library: "x".into(),
            message: what.into(),
        }
    }

    #[test]
    fn the_first_candidate_that_works_wins() {
        let seen = RefCell::new(Vec::new());
        let got = first_working(["a", "b", "c", "d"], |c| {
            seen.borrow_mut().push(c.to_string());
            match *c {
                "a" => Attempt::Absent,
                "b" => Attempt::Fails(fails("cannot create a handle")),
                "c" => Attempt::Works(3),
                _ => Attempt::Works(4),
            }
        });
        assert_eq!(got.unwrap(), 3);
        assert_eq!(*seen.borrow(), ["a", "b", "c"], "d is never tried");
    }

    #[test]
    fn when_none_works_every_candidate_and_failure_is_reported() {
        let tried = first_working(["a", "b", "a", "c"], |c| match *c {
            "b" => Attempt::Fails(fails("missing cublasCreate_v2")),
            "c" => Attempt::Fails(CudaError::Cublas {
                call: "cublasCreate_v2",
                status: crate::error::CublasStatus(1),
            }),
            _ => Attempt::<()>::Absent,
        })
        .unwrap_err();
        assert_eq!(tried.names, ["a", "b", "c"], "duplicates are tried once");
        assert_eq!(
            tried.describe(),
            "tried a, b, c; b: missing cublasCreate_v2; c: cublasCreate_v2 returned \
             CUBLAS_STATUS_NOT_INITIALIZED (1)"
        );
        assert!(matches!(tried.last_error(), Some(CudaError::Cublas { .. })));
        assert!(
            tried
                .describe_first(2)
                .starts_with("tried a, b and 1 other name; b: "),
            "{}",
            tried.describe_first(2)
        );
    }

    #[test]
    fn candidates_are_produced_only_as_needed() {
        let expensive = RefCell::new(false);
        let lazy = ["a"].into_iter().chain(std::iter::once_with(|| {
            *expensive.borrow_mut() = true;
            "z"
        }));
        assert_eq!(first_working(lazy, |_| Attempt::Works(1)).unwrap(), 1);
        assert!(!*expensive.borrow());
    }
}
