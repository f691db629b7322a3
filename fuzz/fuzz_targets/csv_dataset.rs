//! Fuzz target: see `iron_learn_fuzz::csv_dataset`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| iron_learn_fuzz::csv_dataset(data));
