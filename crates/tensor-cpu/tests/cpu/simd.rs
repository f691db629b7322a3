//! The vector path: the one `IRON_LEARN_SIMD` forces is the one that runs (so that a test
//! run forcing a path checks that path, not another), and the backend names it.

use tensor_core::Primitives;
use tensor_cpu::{CpuBackend, SIMD_VAR, SimdPath, simd_path};

#[test]
fn the_forced_path_is_the_one_that_runs_and_the_backend_names_it() {
    let path = match std::env::var(SIMD_VAR) {
        Ok(forced) if !forced.trim().is_empty() => {
            let want = SimdPath::from_name(&forced).expect("IRON_LEARN_SIMD names a path");
            let got = simd_path().expect("the forced path is one this CPU has");
            assert_eq!(got, want);
            got
        }
        _ => {
            let got = simd_path().expect("no path forced");
            assert_eq!(got, SimdPath::detected());
            got
        }
    };
    eprintln!("vector path: {path}");
    assert!(path.supported());
    let name = CpuBackend::try_new().expect("an accepted path").name();
    assert!(name.ends_with(&format!(", {path})")), "{name}");
}
