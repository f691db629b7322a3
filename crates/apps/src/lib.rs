//! The library part of the `iron-learn` command-line tool: what other programs (the fuzz
//! targets, tests) reach directly. The tool itself is the `iron-learn` binary.

#![warn(missing_docs)]

pub mod expr;
