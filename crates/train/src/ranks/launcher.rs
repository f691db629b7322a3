//! What a launcher (`mpirun`, `srun`, `mpiexec`) says about the process it started, read from
//! the variables it sets, before MPI is asked.

/// The world a launcher started this process in, as its variables say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Launch {
    /// The processes the launcher started.
    pub size: usize,
    /// This process's rank among them.
    pub rank: usize,
    /// The variable that gave the size ("OMPI_COMM_WORLD_SIZE=2").
    pub source: String,
}

/// The variables launchers set for a process's rank among those of its machine.
const LOCAL_RANKS: [&str; 4] = [
    "OMPI_COMM_WORLD_LOCAL_RANK",
    "MPI_LOCALRANKID",
    "MV2_COMM_WORLD_LOCAL_RANK",
    "SLURM_LOCALID",
];

/// This process's rank among the processes of its machine, as the launcher's variables
/// say (0 where none does): the GPU a process of several takes.
pub fn local_rank(var: impl Fn(&str) -> Option<String>) -> usize {
    LOCAL_RANKS
        .iter()
        .find_map(|name| var(name)?.trim().parse().ok())
        .unwrap_or(0)
}

/// The variables launchers set for the world's size and this process's rank, most specific
/// first: Open MPI's `mpirun`, the PMI of MPICH's Hydra and Intel MPI, MVAPICH, Slurm's
/// `srun`.
const VARIABLES: [(&str, &str); 5] = [
    ("OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK"),
    ("PMI_SIZE", "PMI_RANK"),
    ("PMIX_SIZE", "PMIX_RANK"),
    ("MV2_COMM_WORLD_SIZE", "MV2_COMM_WORLD_RANK"),
    ("SLURM_NTASKS", "SLURM_PROCID"),
];

/// The launch that the environment `var` describes: the first launcher variable of a size
/// that reads as a whole number (`None`: started alone, or by no launcher known).
pub fn launch(var: impl Fn(&str) -> Option<String>) -> Option<Launch> {
    VARIABLES.iter().find_map(|(size, rank)| {
        let n: usize = var(size)?.trim().parse().ok()?;
        let r = var(rank).and_then(|r| r.trim().parse().ok()).unwrap_or(0);
        Some(Launch {
            size: n,
            rank: r,
            source: format!("{size}={n}"),
        })
    })
}

/// The launch this process's environment describes.
pub fn from_env() -> Option<Launch> {
    launch(|name| std::env::var(name).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn launchers_are_read_from_their_variables() {
        assert_eq!(launch(env(&[])), None);
        let open_mpi = launch(env(&[
            ("OMPI_COMM_WORLD_SIZE", "4"),
            ("OMPI_COMM_WORLD_RANK", "3"),
        ]));
        assert_eq!(
            open_mpi,
            Some(Launch {
                size: 4,
                rank: 3,
                source: "OMPI_COMM_WORLD_SIZE=4".into()
            })
        );
        let slurm = launch(env(&[("SLURM_NTASKS", "8"), ("SLURM_PROCID", "5")])).unwrap();
        assert_eq!((slurm.size, slurm.rank), (8, 5));
        // Open MPI's own variables win over Slurm's in an allocation.
        let both = launch(env(&[("SLURM_NTASKS", "8"), ("OMPI_COMM_WORLD_SIZE", "2")])).unwrap();
        assert_eq!(both.size, 2);
        // A value that is not a number is no launch.
        assert_eq!(launch(env(&[("PMI_SIZE", "many")])), None);
        assert_eq!(local_rank(env(&[])), 0);
        assert_eq!(local_rank(env(&[("OMPI_COMM_WORLD_LOCAL_RANK", "3")])), 3);
        assert_eq!(local_rank(env(&[("SLURM_LOCALID", "1")])), 1);
    }
}
