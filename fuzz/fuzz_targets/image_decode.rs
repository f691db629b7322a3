//! Fuzz target: see `iron_learn_fuzz::image_decode`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| iron_learn_fuzz::image_decode(data));
