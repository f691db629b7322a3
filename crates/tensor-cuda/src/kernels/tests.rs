//! The kernel table against the embedded PTX and the manifest.

use super::*;

/// The parameter list of `.entry name(...)` in a PTX text, each as its type words with the
/// parameter name dropped (an array keeps its `[size]`): ".u64", ".align 8 .b8 [200]".
fn ptx_params(ptx: &str, name: &str) -> Option<Vec<String>> {
    let start = ptx.find(&format!(".entry {name}("))?;
    let body = &ptx[start..];
    let body = &body[body.find('(')? + 1..body.find(')')?];
    Some(
        body.lines()
            .map(str::trim)
            .filter(|l| l.starts_with(".param"))
            .map(|l| {
                l.trim_end_matches(',')
                    .split_whitespace()
                    .skip(1)
                    .filter_map(|w| match w.find("_param_") {
                        Some(_) => w.find('[').map(|b| w[b..].to_string()),
                        None => Some(w.to_string()),
                    })
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect(),
    )
}

/// The embedded PTX of kernel file `stem`.
fn module(stem: &str) -> &'static str {
    MODULES
        .iter()
        .find(|(s, _)| *s == stem)
        .unwrap_or_else(|| panic!("no module {stem}"))
        .1
}

#[test]
fn kernel_table_matches_the_ptx_signatures() {
    for &k in K::ALL {
        let spec = k.spec();
        let params = ptx_params(module(spec.module), spec.name)
            .unwrap_or_else(|| panic!("{} not in {}.ptx", spec.name, spec.module));
        let expected: Vec<String> = spec
            .params
            .iter()
            .map(|p| match p {
                Param::Ptr | Param::U64 => ".u64".to_string(),
                Param::I32 => ".u32".to_string(),
                Param::F32 => ".f32".to_string(),
                Param::Nd => format!(".align 8 .b8 [{}]", std::mem::size_of::<NdLayout>()),
                Param::Grid => format!(
                    ".align 8 .b8 [{}]",
                    std::mem::size_of::<crate::ops::HashGridParams>()
                ),
            })
            .collect();
        assert_eq!(params, expected, "parameters of {}", spec.name);
    }
}

#[test]
fn every_kernel_is_found_by_its_name() {
    assert_eq!(K::ReduceCols.spec().name, "reduce_cols");
    assert_eq!(K::ReduceCols.spec().module, "reduce");
    assert_eq!(K::Transpose.spec().name, "transpose_f32");
    assert_eq!(K::Transpose.spec().module, "copy");
    assert_eq!(K::Fill.spec().params, &[Param::Ptr, Param::U64, Param::F32]);
    let mut names: Vec<&str> = K::ALL.iter().map(|k| k.spec().name).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), K::ALL.len(), "entry names are unique");
}

#[test]
fn every_module_is_a_manifest_file_targeting_the_declared_isa_and_used() {
    assert_eq!(
        MODULES.iter().map(|(s, _)| *s).collect::<Vec<_>>(),
        manifest::KERNEL_FILES
    );
    for &(stem, ptx) in MODULES {
        assert!(
            ptx.contains(&format!("\n{}\n", manifest::PTX_TARGET)),
            "{stem}"
        );
        assert!(
            ptx.contains(&format!("\n{}\n", manifest::ptx_version_line())),
            "{stem}.ptx does not declare PTX ISA {PTX_ISA_VERSION}"
        );
        assert!(
            K::ALL.iter().any(|k| k.spec().module == stem),
            "{stem} is unused"
        );
    }
}

#[test]
fn arguments_are_checked_against_the_table() {
    let layout = NdLayout::default();
    assert!(check_args(K::Fill.spec(), &[Arg::Ptr(0), u(3), Arg::F32(1.0)]).is_ok());
    let wrong_kind = check_args(K::Fill.spec(), &[Arg::Ptr(0), Arg::I32(3), Arg::F32(1.0)]);
    assert_eq!(
        wrong_kind,
        Err("internal error: wrong arguments for kernel fill_f32".into())
    );
    assert!(check_args(K::Fill.spec(), &[Arg::Ptr(0), u(3)]).is_err());
    let nd = [
        Arg::Ptr(0),
        Arg::Ptr(0),
        Arg::Ptr(0),
        u(1),
        Arg::Nd(&layout),
        Arg::I32(0),
    ];
    assert!(check_args(K::BinaryNd.spec(), &nd).is_ok());
    assert!(check_args(K::Binary2d.spec(), &nd).is_err());
}

#[test]
fn ptx_the_driver_rejects_means_a_driver_too_old() {
    use cudarc::driver::DriverError;
    let kind = |code| match module_error("fill", DriverError(code)) {
        Error::DeviceUnavailable { kind, reason, .. } => {
            assert!(reason.contains("fill.cu"), "{reason}");
            assert!(reason.contains(PTX_ISA_MIN_CUDA), "{reason}");
            kind
        }
        other => panic!("{other:?}"),
    };
    assert_eq!(
        kind(CUresult::CUDA_ERROR_UNSUPPORTED_PTX_VERSION),
        UnavailableKind::DriverTooOld
    );
    assert_eq!(
        kind(CUresult::CUDA_ERROR_OUT_OF_MEMORY),
        UnavailableKind::DriverFailed
    );
}
