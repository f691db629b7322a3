//! Subnormal floats flushed to zero wherever the kernels run.
//!
//! Arithmetic on subnormal floats (magnitudes below `f32::MIN_POSITIVE`, about 1.2e-38) is
//! handled in microcode on x86 and costs up to a hundred times a normal operation. Weight
//! decay drives the weights of dead units towards zero, through the subnormal range, so a
//! long run could slow several-fold once many weights are that small. Every operation of
//! [`crate::CpuBackend`] therefore runs with subnormal inputs read as zero and subnormal
//! results written as zero (x86: MXCSR's DAZ and FTZ bits; aarch64: FPCR's FZ bit). The
//! change in any result is below `f32::MIN_POSITIVE` per operation, far inside every
//! tolerance of the conformance suite.
//!
//! - The calling thread flushes only for the duration of an operation ([`FlushScope`]): its
//!   float mode is restored when the operation returns, so the caller's own arithmetic is
//!   unchanged.
//! - The workers of the rayon pool that an operation hands work to are set to flush once,
//!   for good, by a broadcast the first time a thread runs an operation in that pool: they
//!   are compute threads, and setting the mode per task would cost more than the tasks.

use std::cell::Cell;

thread_local! {
    /// Whether this thread has set the workers of its rayon pool to flush.
    static POOL_FLUSHES: Cell<bool> = const { Cell::new(false) };
}

/// The float mode of one operation on the calling thread: subnormals flushed while it is
/// alive, the mode it found restored when it is dropped.
#[must_use = "the mode is restored when the scope is dropped"]
pub(crate) struct FlushScope {
    /// The mode to restore, when it differed.
    saved: Option<mode::Word>,
}

impl FlushScope {
    /// Flushes subnormals on this thread until the scope is dropped, and on the workers of
    /// the rayon pool the operation will use.
    pub(crate) fn enter() -> Self {
        if !POOL_FLUSHES.get() {
            rayon::broadcast(|_| {
                mode::set(mode::get() | mode::FLUSH);
            });
            POOL_FLUSHES.set(true);
        }
        let found = mode::get();
        let saved = (found & mode::FLUSH != mode::FLUSH).then(|| {
            mode::set(found | mode::FLUSH);
            found
        });
        FlushScope { saved }
    }
}

impl Drop for FlushScope {
    fn drop(&mut self) {
        if let Some(found) = self.saved {
            mode::set(found);
        }
    }
}

/// `x`, or zero of its sign when it is subnormal: what an instruction reads under the
/// flushing mode, for library functions that inspect a float's bits before computing.
#[inline(always)]
pub(crate) fn read_as_zero(x: f32) -> f32 {
    if x.abs() < f32::MIN_POSITIVE {
        0.0f32.copysign(x)
    } else {
        x
    }
}

/// Whether this thread flushes subnormals now (tests check that a scope restores it).
pub fn flushing_subnormals() -> bool {
    mode::FLUSH != 0 && mode::get() & mode::FLUSH == mode::FLUSH
}

#[cfg(target_arch = "x86_64")]
mod mode {
    //! MXCSR: bit 15 flushes subnormal results to zero (FTZ), bit 6 reads subnormal
    //! inputs as zero (DAZ). Every x86-64 CPU has both.
    use std::arch::asm;

    pub(super) type Word = u32;
    pub(super) const FLUSH: Word = (1 << 15) | (1 << 6);

    pub(super) fn get() -> Word {
        let mut word: Word = 0;
        // SAFETY: STMXCSR stores the 32-bit control word into the local it points at.
        unsafe { asm!("stmxcsr [{}]", in(reg) &mut word, options(nostack, preserves_flags)) };
        word
    }

    pub(super) fn set(word: Word) {
        // SAFETY: LDMXCSR loads a word read from MXCSR with only FTZ and DAZ changed: no
        // reserved bit is set, so it cannot fault.
        unsafe { asm!("ldmxcsr [{}]", in(reg) &word, options(nostack, readonly, preserves_flags)) };
    }
}

#[cfg(target_arch = "aarch64")]
mod mode {
    //! FPCR: bit 24 (FZ) flushes subnormal inputs and results of single and double
    //! precision to zero, NEON included.
    use std::arch::asm;

    pub(super) type Word = u64;
    pub(super) const FLUSH: Word = 1 << 24;

    pub(super) fn get() -> Word {
        let word: Word;
        // SAFETY: reading FPCR has no side effect.
        unsafe { asm!("mrs {}, fpcr", out(reg) word, options(nomem, nostack, preserves_flags)) };
        word
    }

    pub(super) fn set(word: Word) {
        // SAFETY: writes back a word read from FPCR with only FZ changed.
        unsafe { asm!("msr fpcr, {}", in(reg) word, options(nomem, nostack, preserves_flags)) };
    }
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
mod mode {
    //! Elsewhere the float mode is left as it is.
    pub(super) type Word = u32;
    pub(super) const FLUSH: Word = 0;

    pub(super) fn get() -> Word {
        0
    }

    pub(super) fn set(_: Word) {}
}
