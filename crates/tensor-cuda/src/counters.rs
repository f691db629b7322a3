//! The activity counters, updated from any thread.

use std::sync::atomic::{AtomicU64, Ordering};
use tensor_core::Counters;

/// Atomic cells behind [`Counters`].
#[derive(Debug, Default)]
pub(crate) struct CounterCells {
    allocations: AtomicU64,
    bytes_uploaded: AtomicU64,
    bytes_downloaded: AtomicU64,
    launches: AtomicU64,
}

impl CounterCells {
    /// One more pool allocation.
    pub fn allocation(&self) {
        self.allocations.fetch_add(1, Ordering::Relaxed);
    }

    /// `bytes` more copied from the host.
    pub fn upload(&self, bytes: usize) {
        self.bytes_uploaded
            .fetch_add(bytes as u64, Ordering::Relaxed);
    }

    /// `bytes` more copied to the host.
    pub fn download(&self, bytes: usize) {
        self.bytes_downloaded
            .fetch_add(bytes as u64, Ordering::Relaxed);
    }

    /// One more kernel launch or cuBLAS call.
    pub fn launch(&self) {
        self.launches.fetch_add(1, Ordering::Relaxed);
    }

    /// The values now.
    pub fn snapshot(&self) -> Counters {
        Counters {
            allocations: self.allocations.load(Ordering::Relaxed),
            bytes_uploaded: self.bytes_uploaded.load(Ordering::Relaxed),
            bytes_downloaded: self.bytes_downloaded.load(Ordering::Relaxed),
            launches: self.launches.load(Ordering::Relaxed),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_add_up() {
        let c = CounterCells::default();
        c.allocation();
        c.upload(12);
        c.upload(4);
        c.download(8);
        c.launch();
        c.launch();
        assert_eq!(
            c.snapshot(),
            Counters {
                allocations: 1,
                bytes_uploaded: 16,
                bytes_downloaded: 8,
                launches: 2
            }
        );
    }
}
