//! The repository README's Rust code blocks, compiled and run as doc tests
//! (`cargo test -p examples --doc`), so that the README's library section works as written.

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
