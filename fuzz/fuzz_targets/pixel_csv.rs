//! Fuzz target: see `iron_learn_fuzz::pixel_csv`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| iron_learn_fuzz::pixel_csv(data));
