//! The default table model: candidates (the network and a linear model) compared on
//! held-out training rows, the better one kept ([`select`]); the linear fits in closed form
//! or by Newton's method ([`linear`]).

pub mod auto;
pub mod ensemble;
pub mod job;
pub mod linear;
pub mod logistic_dual;
pub mod multinomial;
pub mod report;
pub mod select;
pub mod widen;

pub use linear::{LinearFit, LinearSkipped};
pub use select::{Choice, Kept, choose, fit_linear, linear_network, score};
