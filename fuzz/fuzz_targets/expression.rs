//! Fuzz target: see `iron_learn_fuzz::expression`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| iron_learn_fuzz::expression(data));
