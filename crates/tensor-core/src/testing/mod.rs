//! The backend conformance suite (feature `testing`): checks, generic over the backend, that
//! an implementation of [`Backend`](crate::Backend) computes what tensor-core defines,
//! against `f64` references. Each check panics with a description when it fails; macros
//! generate one `#[test]` per check for a backend.

pub mod hashgrid;
