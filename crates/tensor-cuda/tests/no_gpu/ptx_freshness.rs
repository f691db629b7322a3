//! Every `kernels/ptx/NAME.ptx` starts with the FNV-1a hash of the source it was built from
//! (`kernels/NAME.cu` followed by the `.cuh` headers it includes, in order). A `.cu` or `.cuh`
//! edited without `cargo xtask build-kernels` fails here. The sources are embedded at compile
//! time, so the test also runs where the checkout is absent.

/// `(stem, .cu source, PTX)` of every kernel file.
const KERNELS: [(&str, &str, &str); 9] = [
    (
        "binary",
        include_str!("../../../../kernels/binary.cu"),
        include_str!("../../../../kernels/ptx/binary.ptx"),
    ),
    (
        "copy",
        include_str!("../../../../kernels/copy.cu"),
        include_str!("../../../../kernels/ptx/copy.ptx"),
    ),
    (
        "fill",
        include_str!("../../../../kernels/fill.cu"),
        include_str!("../../../../kernels/ptx/fill.ptx"),
    ),
    (
        "fourier",
        include_str!("../../../../kernels/fourier.cu"),
        include_str!("../../../../kernels/ptx/fourier.ptx"),
    ),
    (
        "fused",
        include_str!("../../../../kernels/fused.cu"),
        include_str!("../../../../kernels/ptx/fused.ptx"),
    ),
    (
        "gather",
        include_str!("../../../../kernels/gather.cu"),
        include_str!("../../../../kernels/ptx/gather.ptx"),
    ),
    (
        "hashgrid",
        include_str!("../../../../kernels/hashgrid.cu"),
        include_str!("../../../../kernels/ptx/hashgrid.ptx"),
    ),
    (
        "reduce",
        include_str!("../../../../kernels/reduce.cu"),
        include_str!("../../../../kernels/ptx/reduce.ptx"),
    ),
    (
        "unary",
        include_str!("../../../../kernels/unary.cu"),
        include_str!("../../../../kernels/ptx/unary.ptx"),
    ),
];

/// `(name, text)` of every header the kernels may include.
const HEADERS: [(&str, &str); 1] = [("common.cuh", include_str!("../../../../kernels/common.cuh"))];

const HASH_PREFIX: &str = "// source-hash fnv1a64:";

fn fnv1a(parts: &[&str]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for &b in part.as_bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h
}

/// The headers a source includes with `#include "name"`, in order.
fn includes(text: &str) -> Vec<&str> {
    text.lines()
        .filter_map(|line| {
            let rest = line.trim_start().strip_prefix("#include")?.trim_start();
            let rest = rest.strip_prefix('"')?;
            Some(&rest[..rest.find('"')?])
        })
        .collect()
}

fn source_hash(cu: &str) -> u64 {
    let mut parts = vec![cu];
    for name in includes(cu) {
        let (_, text) = HEADERS
            .iter()
            .find(|(n, _)| *n == name)
            .unwrap_or_else(|| panic!("unknown header {name}: add it to HEADERS"));
        parts.push(text);
    }
    fnv1a(&parts)
}

#[test]
fn fnv1a_matches_reference_values() {
    assert_eq!(fnv1a(&[""]), 0xcbf2_9ce4_8422_2325);
    assert_eq!(fnv1a(&["a"]), 0xaf63_dc4c_8601_ec8c);
    assert_eq!(fnv1a(&["foo", "bar"]), 0x8594_4171_f739_67e8);
}

#[test]
fn every_ptx_file_was_built_from_the_current_source() {
    let mut stale = Vec::new();
    for (stem, cu, ptx) in KERNELS {
        let first = ptx.lines().next().unwrap_or_default();
        let recorded = first
            .strip_prefix(HASH_PREFIX)
            .and_then(|rest| rest.get(..16))
            .and_then(|hex| u64::from_str_radix(hex, 16).ok());
        let actual = source_hash(cu);
        if recorded != Some(actual) {
            stale.push(format!(
                "{stem}.cu (source {actual:016x}, PTX header {first:?})"
            ));
        }
    }
    assert!(
        stale.is_empty(),
        "PTX out of date, run `cargo xtask build-kernels` and commit kernels/ptx/:\n  {}",
        stale.join("\n  ")
    );
}

#[test]
fn the_ptx_targets_compute_70_with_a_cuda_12_4_compiler() {
    for (stem, _, ptx) in KERNELS {
        assert!(
            ptx.contains("\n.target sm_70"),
            "{stem}.ptx: not compute_70"
        );
        // PTX ISA 8.4 is what CUDA 12.4 writes and what drivers from 12.4 on load.
        assert!(
            ptx.contains("\n.version 8.4"),
            "{stem}.ptx: not PTX ISA 8.4"
        );
    }
}

/// When the source tree is present (a checkout, not a copied test binary), every `.cu` file
/// in `kernels/` must be listed above.
#[test]
fn every_kernel_file_is_checked() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../kernels");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!("{} is absent: skipping the listing check", dir.display());
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if let Some(stem) = name.strip_suffix(".cu") {
            assert!(
                KERNELS.iter().any(|(s, _, _)| *s == stem),
                "{name} is missing from KERNELS"
            );
        }
        if name.ends_with(".cuh") {
            assert!(
                HEADERS.iter().any(|(h, _)| *h == name),
                "{name} is missing from HEADERS"
            );
        }
    }
}
