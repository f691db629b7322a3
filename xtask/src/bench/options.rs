//! Command-line options shared by the benchmarks.

use super::BenchResult;

/// Help text for the options.
pub const HELP: &str = "options:
  --threads N   threads for our backend and for PyTorch (default: all cores)
  --reps N      timed repetitions per case; the median is reported (default: per case)
  --device D    cpu or cuda (train only; default cpu)
  --image PATH  the photo to fit (image-fit only)
  --tables DIR  the folder of published tables (tables only; default: $IRON_LEARN_TABLES,
                else ../shared/tables)";

/// Parsed benchmark options.
#[derive(Debug, Clone)]
pub struct Options {
    /// Threads given to the rayon pool and to PyTorch.
    pub threads: usize,
    /// Timed repetitions per case, when given.
    pub reps: Option<usize>,
    /// The device (`train` only): "cpu" or "cuda".
    pub device: String,
    /// The image to fit (`image-fit` only).
    pub image: Option<std::path::PathBuf>,
    /// The folder of published tables (`tables` only).
    pub tables: Option<std::path::PathBuf>,
}

impl Options {
    /// Parses `--threads N`, `--reps N`, `--device D`, `--image PATH` and `--tables DIR`.
    pub fn parse(args: &[String]) -> BenchResult<Self> {
        let mut opts = Options {
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            reps: None,
            device: "cpu".into(),
            image: None,
            tables: None,
        };
        let mut it = args.iter();
        while let Some(arg) = it.next() {
            let mut value = |name: &str| -> BenchResult<usize> {
                let v = it.next().ok_or(format!("{name} needs a value"))?;
                match v.parse::<usize>() {
                    Ok(n) if n > 0 => Ok(n),
                    _ => Err(format!("{name} needs a positive integer, got `{v}`").into()),
                }
            };
            match arg.as_str() {
                "--threads" => opts.threads = value("--threads")?,
                "--reps" => opts.reps = Some(value("--reps")?),
                "--image" => {
                    let path = it.next().ok_or("--image needs a path")?;
                    opts.image = Some(path.into());
                }
                "--tables" => {
                    let path = it.next().ok_or("--tables needs a folder")?;
                    opts.tables = Some(path.into());
                }
                "--device" => match it.next().map(String::as_str) {
                    Some(d @ ("cpu" | "cuda")) => opts.device = d.to_string(),
                    other => {
                        return Err(format!("--device needs cpu or cuda, got {other:?}").into());
                    }
                },
                other => return Err(format!("unknown option `{other}`\n{HELP}").into()),
            }
        }
        Ok(opts)
    }
}
