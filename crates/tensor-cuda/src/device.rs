//! Opening a device: the driver, the primary context, the one stream, the memory pool.

use crate::error::{CudaError, driver_unavailable};
use cudarc::driver::{CudaContext, CudaStream, DriverError, result, sys};
use std::sync::Arc;
use tensor_core::{Error, Result, UnavailableKind};

/// What the backend knows about its device.
#[derive(Debug, Clone)]
pub(crate) struct DeviceInfo {
    /// The device ordinal.
    pub ordinal: usize,
    /// The product name.
    pub name: String,
    /// Compute capability (major, minor).
    pub compute_capability: (i32, i32),
    /// Number of streaming multiprocessors.
    pub sm_count: u32,
    /// Device memory in bytes.
    pub total_memory: usize,
    /// Whether allocations come from the stream-ordered pool.
    pub pooled: bool,
    /// Problems that leave the device usable but not as configured (a pool setting the
    /// driver refused), one line each.
    pub warnings: Vec<String>,
}

/// A context, its stream and the device description.
pub(crate) struct Device {
    pub ctx: Arc<CudaContext>,
    pub stream: Arc<CudaStream>,
    pub info: DeviceInfo,
}

/// The number of CUDA devices, once the driver library is known to load.
pub(crate) fn count() -> Result<usize> {
    result::init()
        .map_err(|e| driver_unavailable("the CUDA driver did not initialise", "cuInit", e))?;
    let n = CudaContext::device_count().map_err(|e| {
        driver_unavailable(
            "the CUDA driver could not count devices",
            "cuDeviceGetCount",
            e,
        )
    })?;
    Ok(usize::try_from(n).unwrap_or(0))
}

/// Opens device `ordinal`: retains its primary context, turns off cudarc's per-buffer event
/// tracking (everything runs on one stream, so stream order is the only synchronisation
/// needed), creates the stream and raises the release threshold of the device's default
/// memory pool so that freed blocks stay in the pool for reuse.
pub(crate) fn open(ordinal: usize) -> Result<Device> {
    let n = count()?;
    if ordinal >= n {
        return Err(Error::unavailable(
            UnavailableKind::NoDevice,
            format!("CUDA device {ordinal} does not exist ({n} device(s) found)"),
        ));
    }
    let ctx = CudaContext::new(ordinal).map_err(|e| {
        driver_unavailable(
            &format!("cannot open CUDA device {ordinal}"),
            "cuDevicePrimaryCtxRetain",
            e,
        )
    })?;
    // SAFETY: no buffer exists yet, and every buffer, copy, kernel and cuBLAS call of this
    // backend goes to the single stream created below, so stream order alone keeps uses
    // apart; buffers are freed on that stream too (cuMemFreeAsync).
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx
        .new_stream()
        .map_err(|e| driver_unavailable("cannot create a CUDA stream", "cuStreamCreate", e))?;
    let attr = |a| {
        ctx.attribute(a)
            .map_err(|e| driver_unavailable("cannot query the device", "cuDeviceGetAttribute", e))
    };
    use sys::CUdevice_attribute as A;
    let cc = (
        attr(A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?,
        attr(A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?,
    );
    let sm_count = attr(A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?.max(1) as u32;
    let name = ctx.name().unwrap_or_else(|_| "unknown GPU".into());
    let total_memory = ctx.total_mem().unwrap_or(0);
    let pooled = ctx.has_async_alloc();
    let warnings = if pooled {
        pool_warning(keep_freed_memory_in_pool(&ctx))
            .into_iter()
            .collect()
    } else {
        Vec::new()
    };
    Ok(Device {
        ctx,
        stream,
        info: DeviceInfo {
            ordinal,
            name,
            compute_capability: cc,
            sm_count,
            total_memory,
            pooled,
            warnings,
        },
    })
}

/// The warning for a release threshold the driver refused: the pool still works, it only
/// returns freed memory to the driver at each synchronisation, so allocations cost more.
pub(crate) fn pool_warning(set: std::result::Result<(), DriverError>) -> Option<String> {
    set.err().map(|e| {
        format!(
            "the memory pool keeps returning freed memory to the driver, so allocations may be \
             slower: {}",
            CudaError::driver("raising the pool's release threshold", e)
        )
    })
}

/// Sets `CU_MEMPOOL_ATTR_RELEASE_THRESHOLD` of the device's default pool (the one
/// `cuMemAllocAsync` draws from) to `u64::MAX`: memory freed with `cuMemFreeAsync` then
/// stays reserved for the next allocation instead of going back to the driver at each
/// synchronisation.
fn keep_freed_memory_in_pool(ctx: &CudaContext) -> std::result::Result<(), DriverError> {
    ctx.bind_to_thread()?;
    let mut pool: sys::CUmemoryPool = std::ptr::null_mut();
    let mut threshold: u64 = u64::MAX;
    // SAFETY: `pool` receives the handle of the default pool of a valid device; the attribute
    // takes a pointer to a cuuint64_t.
    unsafe {
        sys::cuDeviceGetDefaultMemPool(&mut pool, ctx.cu_device()).result()?;
        sys::cuMemPoolSetAttribute(
            pool,
            sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
            (&mut threshold as *mut u64).cast(),
        )
        .result()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sys::CUresult;

    #[test]
    fn a_refused_pool_setting_is_a_warning() {
        assert_eq!(pool_warning(Ok(())), None);
        let w =
            pool_warning(Err(DriverError(CUresult::CUDA_ERROR_NOT_SUPPORTED))).expect("a warning");
        assert!(w.contains("CUDA_ERROR_NOT_SUPPORTED"), "{w}");
        assert!(w.contains("release threshold"), "{w}");
        assert!(!w.contains('\n'));
    }
}
