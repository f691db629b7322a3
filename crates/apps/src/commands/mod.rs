//! One module per subcommand.

pub mod approx;
pub mod bench;
pub mod export;
pub mod image_codec;
pub mod image_fit;
pub mod image_render;
pub mod predict;
pub mod tabular;
pub mod tabular_print;
pub mod xor;
