//! The processes of a run: its rank and world size, one process of one (the default) or many
//! under an MPI launcher (`mpirun`, `srun`), with the `mpi` feature.
//!
//! A program joins the world once, at its start ([`join`]); from then on every run of the
//! process trains data-parallel with the others ([`Run`](crate::Run) hands the world to the
//! trainer as its [`nn::Replicas`]): each process computes the gradient of its share of every
//! global batch, the gradients are summed, every process takes the same step. Rank 0 alone
//! writes the run folder ([`RunFolder`](crate::run_dir::RunFolder) gives the others a scratch
//! folder) and shows progress. The program ends with [`finish`] (or [`abort`] on an error, which
//! stops every process).
//!
//! ```no_run
//! # fn main() -> Result<(), train::Error> {
//! let world = train::ranks::join()?;
//! if world.is_writer() {
//!     println!("{} process(es)", world.size());
//! }
//! // ... train ...
//! train::ranks::finish();
//! # Ok(()) }
//! ```

pub mod launcher;
mod scratch;
mod share;

pub(crate) use scratch::scratch_folder;
#[cfg(feature = "nccl")]
mod gpus;
#[cfg(feature = "mpi")]
mod mpi;

#[cfg(feature = "nccl")]
pub use gpus::sum_between_gpus;

use crate::{Error, Result};
use std::sync::{Arc, OnceLock};

/// The processes of the run this process belongs to.
#[derive(Debug)]
pub struct World {
    rank: usize,
    size: usize,
    #[cfg(feature = "mpi")]
    mpi: Option<mpi::MpiWorld>,
}

impl World {
    /// The world of a process started alone.
    pub const fn single() -> World {
        World {
            rank: 0,
            size: 1,
            #[cfg(feature = "mpi")]
            mpi: None,
        }
    }

    /// This process's rank, `0..size`.
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// The number of processes.
    pub fn size(&self) -> usize {
        self.size
    }

    /// This process's rank among the processes of its machine (0 for a process alone): the
    /// GPU it takes, one process per GPU.
    pub fn local_rank(&self) -> usize {
        match self.size {
            1 => 0,
            _ => launcher::local_rank(|name| std::env::var(name).ok()),
        }
    }

    /// Whether this process writes the run folder and shows progress (rank 0).
    pub fn is_writer(&self) -> bool {
        self.rank == 0
    }

    /// Whether the processes' library may be called from any one thread at a time (always,
    /// for a process alone); where it may not, only the thread that joined may call it.
    pub fn calls_from_any_thread(&self) -> bool {
        #[cfg(feature = "mpi")]
        if let Some(m) = &self.mpi {
            return m.calls_from_any_thread();
        }
        true
    }

    /// Sums `values` element-wise over every process, in place.
    pub fn sum(&self, values: &mut [f32]) -> Result<()> {
        #[cfg(feature = "mpi")]
        if let Some(m) = &self.mpi {
            return m.sum(values);
        }
        let _ = values;
        Ok(())
    }
}

/// The world joined, as a trainer's [`nn::Replicas`]: `None` for a process alone. Its sums
/// go through the GPUs' NCCL group once the processes have joined one
/// (`sum_between_gpus`, with the `nccl` feature), through MPI otherwise.
pub fn replicas() -> Option<Arc<dyn nn::Replicas>> {
    #[cfg(feature = "nccl")]
    if let Some(group) = gpus::replicas() {
        return Some(group);
    }
    let w = world();
    (w.size() > 1).then(|| Arc::new(Joined(w)) as Arc<dyn nn::Replicas>)
}

/// The joined world, shared with a trainer.
#[derive(Debug)]
struct Joined(&'static World);

impl nn::Replicas for Joined {
    fn rank(&self) -> usize {
        self.0.rank
    }
    fn size(&self) -> usize {
        self.0.size
    }
    fn sum(&self, values: &mut [f32]) -> std::result::Result<(), String> {
        self.0.sum(values).map_err(|e| e.to_string())
    }
}

static WORLD: OnceLock<World> = OnceLock::new();
static SINGLE: World = World::single();

/// Joins the world this process was started in: alone, rank 0 of 1; under a launcher, its
/// MPI world (with the `mpi` feature). Refused when the launcher's variables say more
/// processes than the process can join: a build without MPI, or an MPI that sees each
/// process alone (`srun` without PMI support starts N separate single-process jobs).
/// Later calls return the world joined first.
pub fn join() -> Result<&'static World> {
    if let Some(w) = WORLD.get() {
        return Ok(w);
    }
    let world = match launcher::from_env() {
        Some(launch) if launch.size > 1 => joined(&launch)?,
        _ => World::single(),
    };
    Ok(WORLD.get_or_init(|| world))
}

/// The world of a launch of several processes.
#[cfg(feature = "mpi")]
fn joined(launch: &launcher::Launch) -> Result<World> {
    let m = mpi::MpiWorld::init()?;
    let (rank, size) = (m.rank(), m.size());
    if size != launch.size {
        return Err(Error::Launch(format!(
            "the launcher started {} processes ({}) but MPI sees {size}: each would train \
             alone; launch with `mpirun -n N` or `srun --mpi=pmix` (an MPI with PMI support)",
            launch.size, launch.source
        )));
    }
    Ok(World {
        rank,
        size,
        mpi: Some(m),
    })
}

/// The world of a launch of several processes, in a build without MPI: refused.
#[cfg(not(feature = "mpi"))]
fn joined(launch: &launcher::Launch) -> Result<World> {
    Err(Error::Launch(format!(
        "started as one of {} processes ({}), but this build has no MPI support: build it \
         with the `mpi` feature to train on several processes, or start one",
        launch.size, launch.source
    )))
}

/// The world joined ([`join`]), or a process alone where none was.
pub fn world() -> &'static World {
    WORLD.get().unwrap_or(&SINGLE)
}

/// Ends this process's part in the world (MPI's finalisation), after its last run.
pub fn finish() {
    #[cfg(feature = "mpi")]
    if let Some(m) = world().mpi.as_ref() {
        m.finish();
    }
}

/// Stops every process of the world with `code`, after an error in this one; returns
/// where the process is alone.
pub fn abort(code: i32) {
    #[cfg(feature = "mpi")]
    if let Some(m) = world().mpi.as_ref() {
        m.abort(code);
    }
    let _ = code;
}
