//! Every `kernels/ptx/NAME.ptx` starts with the FNV-1a hash of the source it was built from
//! (`kernels/NAME.cu` followed by the `.cuh` headers it includes, in order). A `.cu` or `.cuh`
//! edited without `cargo xtask build-kernels` fails here. The list of kernel files, the hash
//! and the declared PTX ISA version come from the kernel manifest, which the library and
//! `cargo xtask build-kernels` share. The sources are embedded at compile time, so the test
//! also runs where the checkout is absent.

#[macro_use]
#[path = "../../src/manifest.rs"]
mod manifest;

/// Expands to `[(stem, .cu source, PTX), ...]` for the given kernel file stems.
macro_rules! embed_kernels {
    ($($stem:literal),* $(,)?) => {
        [$((
            $stem,
            include_str!(concat!("../../kernels/", $stem, ".cu")),
            include_str!(concat!("../../kernels/ptx/", $stem, ".ptx")),
        )),*]
    };
}

/// Expands to `[(name, text), ...]` for the given header names.
macro_rules! embed_headers {
    ($($name:literal),* $(,)?) => {
        [$(($name, include_str!(concat!("../../kernels/", $name)))),*]
    };
}

/// `(stem, .cu source, PTX)` of every kernel file of the manifest.
const KERNELS: &[(&str, &str, &str)] = &kernel_files!(embed_kernels);

/// `(name, text)` of every header of the manifest.
const HEADERS: &[(&str, &str)] = &kernel_headers!(embed_headers);

fn header(name: &str) -> Option<&'static str> {
    HEADERS.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

#[test]
fn every_ptx_file_was_built_from_the_current_source() {
    let mut stale = Vec::new();
    for &(stem, cu, ptx) in KERNELS {
        let actual = manifest::source_hash(cu, header)
            .unwrap_or_else(|e| panic!("{stem}.cu: {e}: add it to kernel_headers!"));
        let recorded = manifest::recorded_hash(ptx);
        if recorded != Some(actual) {
            let first = ptx.lines().next().unwrap_or_default();
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
fn the_ptx_declares_the_manifests_target_and_isa_version() {
    let version = manifest::ptx_version_line();
    for &(stem, _, ptx) in KERNELS {
        let lines: Vec<&str> = ptx.lines().collect();
        assert!(
            lines.contains(&manifest::PTX_TARGET),
            "{stem}.ptx: not {}",
            manifest::VIRTUAL_ARCH
        );
        // The lowest version the kernels need, so that drivers older than the compiler load
        // them; `cargo xtask build-kernels` writes it and checks it with ptxas.
        assert_eq!(
            lines
                .iter()
                .filter(|l| l.starts_with(".version "))
                .collect::<Vec<_>>(),
            [&version.as_str()],
            "{stem}.ptx: not PTX ISA {}",
            manifest::PTX_ISA_VERSION
        );
    }
}

/// When the source tree is present (a checkout, not a copied test binary), every `.cu` and
/// `.cuh` file in `kernels/` must be in the manifest.
#[test]
fn every_kernel_file_is_in_the_manifest() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../kernels");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!("{} is absent: skipping the listing check", dir.display());
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if let Some(stem) = name.strip_suffix(".cu") {
            assert!(
                manifest::KERNEL_FILES.contains(&stem),
                "{name} is missing from kernel_files! in crates/tensor-cuda/src/manifest.rs"
            );
        }
        if name.ends_with(".cuh") {
            assert!(
                manifest::KERNEL_HEADERS.contains(&name.as_str()),
                "{name} is missing from kernel_headers! in crates/tensor-cuda/src/manifest.rs"
            );
        }
    }
}
