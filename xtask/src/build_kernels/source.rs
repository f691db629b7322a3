//! Kernel sources: the files of the manifest, read from `kernels/`, their source hash and the
//! PTX header line that records it.

use super::manifest;
use std::path::Path;

/// One `kernels/NAME.cu` file and the headers it includes.
pub struct KernelSource {
    /// The file name without `.cu`.
    pub stem: String,
    /// Its text.
    pub text: String,
    /// `(name, text)` of each header it includes with `#include "name"`, in order.
    pub headers: Vec<(String, String)>,
}

impl KernelSource {
    /// `NAME.cu`.
    pub fn file_name(&self) -> String {
        format!("{}.cu", self.stem)
    }

    /// The manifest's source hash: FNV-1a of the `.cu` text followed by each included header.
    pub fn hash(&self) -> u64 {
        let parts: Vec<&str> = std::iter::once(self.text.as_str())
            .chain(self.headers.iter().map(|(_, t)| t.as_str()))
            .collect();
        manifest::fnv1a(&parts)
    }

    /// The first line of the generated PTX file.
    pub fn header_line(&self, compiler: &str) -> String {
        manifest::header_line(self.hash(), &self.file_name(), compiler)
    }
}

/// `ptx` with the file names of its `.file` directives (line information) made relative to
/// the repository, `kernels/NAME`, so that the output does not depend on the folder it was
/// built in.
pub fn relative_file_names(ptx: &str) -> String {
    ptx.split('\n')
        .map(|line| {
            let directive = line.trim_start().starts_with(".file");
            match (directive, line.find('"'), line.rfind('"')) {
                (true, Some(a), Some(b)) if b > a => {
                    let path = &line[a + 1..b];
                    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
                    format!("{}\"kernels/{name}\"{}", &line[..a], &line[b + 1..])
                }
                _ => line.to_string(),
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The `.cu` files in `dir` and the headers in it, sorted by name.
fn files_in(dir: &Path) -> Result<(Vec<String>, Vec<String>), String> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    let mut cu = Vec::new();
    let mut cuh = Vec::new();
    for name in entries.filter_map(|e| e.ok()?.file_name().into_string().ok()) {
        if let Some(stem) = name.strip_suffix(".cu") {
            cu.push(stem.to_string());
        } else if name.ends_with(".cuh") {
            cuh.push(name);
        }
    }
    cu.sort();
    cuh.sort();
    Ok((cu, cuh))
}

/// Every kernel file of the manifest, read from `dir` with its headers. A `.cu` or `.cuh`
/// file in `dir` that the manifest does not list, or an include of an unlisted header, is an
/// error: the library would not embed it and the freshness test would not check it.
pub fn discover(dir: &Path) -> Result<Vec<KernelSource>, String> {
    let (cu, cuh) = files_in(dir)?;
    let manifest_file = "crates/tensor-cuda/src/manifest.rs";
    let unlisted: Vec<String> = cu
        .iter()
        .filter(|s| !manifest::KERNEL_FILES.contains(&s.as_str()))
        .map(|s| format!("{s}.cu"))
        .chain(
            cuh.iter()
                .filter(|h| !manifest::KERNEL_HEADERS.contains(&h.as_str()))
                .cloned(),
        )
        .collect();
    if !unlisted.is_empty() {
        return Err(format!(
            "{} in {} not listed in {manifest_file} (kernel_files! / kernel_headers!)",
            unlisted.join(", "),
            dir.display()
        ));
    }
    manifest::KERNEL_FILES
        .iter()
        .map(|stem| {
            let path = dir.join(format!("{stem}.cu"));
            let text = std::fs::read_to_string(&path)
                .map_err(|e| format!("{manifest_file} lists {}: {e}", path.display()))?;
            let headers = manifest::included_headers(&text)
                .into_iter()
                .map(|name| {
                    if !manifest::KERNEL_HEADERS.contains(&name) {
                        return Err(format!(
                            "{stem}.cu includes {name}, which {manifest_file} does not list"
                        ));
                    }
                    let p = dir.join(name);
                    std::fs::read_to_string(&p)
                        .map(|t| (name.to_string(), t))
                        .map_err(|e| format!("{} includes {}: {e}", path.display(), p.display()))
                })
                .collect::<Result<_, _>>()?;
            Ok(KernelSource {
                stem: stem.to_string(),
                text,
                headers,
            })
        })
        .collect()
}

/// The names of the kernels whose PTX file is missing, records another source hash or
/// declares another PTX ISA version than the manifest.
pub fn stale_outputs(kernels: &[KernelSource], ptx_dir: &Path) -> Vec<String> {
    kernels
        .iter()
        .filter(|k| {
            let ptx = std::fs::read_to_string(ptx_dir.join(format!("{}.ptx", k.stem)));
            !ptx.is_ok_and(|t| {
                manifest::recorded_hash(&t) == Some(k.hash())
                    && t.lines().any(|l| l == manifest::ptx_version_line())
            })
        })
        .map(KernelSource::file_name)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, text: &str) {
        std::fs::write(dir.join(name), text).unwrap();
    }

    /// A `kernels/` folder with every manifest file and header, each a line of text.
    fn complete_folder() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for h in manifest::KERNEL_HEADERS {
            write(dir.path(), h, "// header\n");
        }
        for stem in manifest::KERNEL_FILES {
            let include = format!("#include \"{}\"\n", manifest::KERNEL_HEADERS[0]);
            write(
                dir.path(),
                &format!("{stem}.cu"),
                &format!("{include}// {stem}\n"),
            );
        }
        dir
    }

    #[test]
    fn line_information_names_files_relative_to_the_repository() {
        let ptx = "ld.param.u64 %rd1;\n\t.file\t1 \"/home/me/src/fill.cu\"\n\t.file\t2 \"/x/common.cuh\", 1700000000, 42\n";
        assert_eq!(
            relative_file_names(ptx),
            "ld.param.u64 %rd1;\n\t.file\t1 \"kernels/fill.cu\"\n\t.file\t2 \"kernels/common.cuh\", 1700000000, 42\n"
        );
    }

    #[test]
    fn the_manifest_files_are_read_in_order_with_their_headers() {
        let dir = complete_folder();
        let kernels = discover(dir.path()).unwrap();
        let stems: Vec<&str> = kernels.iter().map(|k| k.stem.as_str()).collect();
        assert_eq!(stems, manifest::KERNEL_FILES);
        let k = &kernels[0];
        assert_eq!(k.headers.len(), 1);
        assert_eq!(k.hash(), manifest::fnv1a(&[k.text.as_str(), "// header\n"]));
    }

    #[test]
    fn unlisted_and_missing_files_are_errors() {
        let dir = complete_folder();
        write(dir.path(), "extra.cu", "int x;");
        let e = discover(dir.path()).err().unwrap();
        assert!(e.contains("extra.cu") && e.contains("manifest.rs"), "{e}");

        let dir = complete_folder();
        std::fs::remove_file(dir.path().join(format!("{}.cu", manifest::KERNEL_FILES[0]))).unwrap();
        let e = discover(dir.path()).err().unwrap();
        assert!(e.contains("lists"), "{e}");

        let dir = complete_folder();
        let first = format!("{}.cu", manifest::KERNEL_FILES[0]);
        write(dir.path(), &first, "#include \"other.h\"\n");
        let e = discover(dir.path()).err().unwrap();
        assert!(e.contains("other.h"), "{e}");
    }

    #[test]
    fn stale_means_another_hash_or_another_isa_version() {
        let dir = complete_folder();
        let kernels = discover(dir.path()).unwrap();
        let ptx_dir = dir.path().join("ptx");
        std::fs::create_dir(&ptx_dir).unwrap();
        for k in &kernels {
            let ptx = format!(
                "{}\n.version {}\n.target sm_70\n",
                k.header_line("test"),
                manifest::PTX_ISA_VERSION
            );
            write(&ptx_dir, &format!("{}.ptx", k.stem), &ptx);
        }
        assert!(stale_outputs(&kernels, &ptx_dir).is_empty());
        let k = &kernels[1];
        let path = ptx_dir.join(format!("{}.ptx", k.stem));
        let text = std::fs::read_to_string(&path).unwrap();
        let newer = text.replace(&manifest::ptx_version_line(), ".version 9.9");
        std::fs::write(&path, newer).unwrap();
        assert_eq!(stale_outputs(&kernels, &ptx_dir), [k.file_name()]);
        std::fs::remove_file(&path).unwrap();
        assert_eq!(stale_outputs(&kernels, &ptx_dir), [k.file_name()]);
    }
}
