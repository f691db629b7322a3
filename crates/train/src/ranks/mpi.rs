//! The world of an MPI launch, through the `mpi` crate (Open MPI or MPICH).

use crate::{Error, Result};
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::{Communicator, CommunicatorCollectives, Root};
use mpi::{Threading, environment::Universe};
use std::sync::Mutex;
use std::thread::ThreadId;

/// The most values one MPI sum carries (64 MiB of `f32`).
const SUM_CHUNK: usize = 1 << 24;

/// The MPI universe and its world communicator, one caller at a time.
pub(super) struct MpiWorld {
    inner: Mutex<Option<Inner>>,
    rank: usize,
    size: usize,
    /// The thread that joined, where MPI allows calls from that thread only.
    only_from: Option<ThreadId>,
}

struct Inner {
    world: SimpleCommunicator,
    universe: Universe,
}

// SAFETY: the communicator and the universe are only touched behind the mutex, so MPI is
// called by one thread at a time, which MPI_THREAD_SERIALIZED allows; where MPI grants less,
// `only_from` refuses calls from any thread but the one that initialised it.
unsafe impl Send for MpiWorld {}
// SAFETY: as for `Send`: every use goes through the mutex.
unsafe impl Sync for MpiWorld {}

impl std::fmt::Debug for MpiWorld {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "MpiWorld(rank {} of {})", self.rank, self.size)
    }
}

impl MpiWorld {
    /// Initialises MPI, asking that any one thread at a time may call it.
    pub fn init() -> Result<Self> {
        let (universe, granted) = mpi::initialize_with_threading(Threading::Serialized)
            .ok_or_else(|| Error::Launch("MPI was initialised already".into()))?;
        let world = universe.world();
        let (rank, size) = (world.rank() as usize, world.size() as usize);
        let only_from = (granted < Threading::Serialized).then(|| std::thread::current().id());
        Ok(MpiWorld {
            inner: Mutex::new(Some(Inner { world, universe })),
            rank,
            size,
            only_from,
        })
    }

    pub fn rank(&self) -> usize {
        self.rank
    }

    pub fn size(&self) -> usize {
        self.size
    }

    /// Whether MPI may be called from any one thread at a time.
    pub fn calls_from_any_thread(&self) -> bool {
        self.only_from.is_none()
    }

    /// Sums `values` over every process, in place (MPI_Allreduce), [`SUM_CHUNK`] values at a
    /// time: MPI counts in `int`, and each chunk is copied to be sent.
    pub fn sum(&self, values: &mut [f32]) -> Result<()> {
        self.check_thread()?;
        let guard = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let inner = guard
            .as_ref()
            .ok_or_else(|| Error::Launch("MPI was finalised".into()))?;
        for chunk in values.chunks_mut(SUM_CHUNK) {
            let send = chunk.to_vec();
            inner
                .world
                .all_reduce_into(&send[..], chunk, SystemOperation::sum());
        }
        Ok(())
    }

    /// Makes `bytes` on process `root` the bytes of every process (MPI_Bcast of the length,
    /// then of the bytes).
    pub fn broadcast(&self, root: usize, bytes: &mut Vec<u8>) -> Result<()> {
        self.check_thread()?;
        let guard = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let inner = guard
            .as_ref()
            .ok_or_else(|| Error::Launch("MPI was finalised".into()))?;
        let from = inner.world.process_at_rank(root as i32);
        let mut len = bytes.len() as u64;
        from.broadcast_into(&mut len);
        bytes.resize(len as usize, 0);
        // Every process knows the length now: none sends an empty buffer.
        if len > 0 {
            from.broadcast_into(&mut bytes[..]);
        }
        Ok(())
    }

    /// Refuses a call from another thread than the first where MPI allows only that one.
    fn check_thread(&self) -> Result<()> {
        match self.only_from {
            Some(id) if id != std::thread::current().id() => Err(Error::Launch(
                "this MPI allows calls from its first thread only; train one model at a time"
                    .into(),
            )),
            _ => Ok(()),
        }
    }

    /// Finalises MPI (the universe dropped).
    pub fn finish(&self) {
        let taken = self.inner.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(inner) = taken {
            let Inner { world, universe } = inner;
            drop(world);
            drop(universe);
        }
    }

    /// Stops every process of the world (MPI_Abort).
    pub fn abort(&self, code: i32) {
        let guard = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(inner) = guard.as_ref() {
            inner.world.abort(code);
        }
    }
}
