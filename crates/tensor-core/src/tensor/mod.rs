//! `Tensor<B>`: a shaped buffer on a backend, with the operations models use.

mod blocks;
mod elementwise;
mod fused;
mod hashgrid;
mod layout;
mod linalg;
mod reduce;

use crate::{Backend, Error, Result, Shape};
use rand::Rng;
use rand_distr::{Distribution, Normal, Uniform};

/// A row-major `f32` tensor stored on backend `B`.
pub struct Tensor<B: Backend> {
    backend: B,
    shape: Shape,
    storage: B::Storage,
}

impl<B: Backend> Tensor<B> {
    /// Wraps an existing buffer; its length must match the shape.
    pub fn from_storage(backend: &B, storage: B::Storage, shape: impl Into<Shape>) -> Result<Self> {
        let shape = shape.into();
        let got = backend.storage_len(&storage);
        if got != shape.numel() {
            return Err(Error::ElementCount {
                op: "from_storage",
                expected: shape.numel(),
                shape,
                got,
            });
        }
        Ok(Tensor {
            backend: backend.clone(),
            shape,
            storage,
        })
    }

    /// A tensor with unspecified contents (to be overwritten by an `*_into` operation).
    pub fn uninit(backend: &B, shape: impl Into<Shape>) -> Result<Self> {
        let shape = shape.into();
        let storage = backend.alloc(shape.numel())?;
        Ok(Tensor {
            backend: backend.clone(),
            shape,
            storage,
        })
    }

    /// A tensor of `value` everywhere, filled on the device.
    pub fn full(backend: &B, shape: impl Into<Shape>, value: f32) -> Result<Self> {
        let mut t = Self::uninit(backend, shape)?;
        t.fill(value)?;
        Ok(t)
    }

    /// A tensor of zeros.
    pub fn zeros(backend: &B, shape: impl Into<Shape>) -> Result<Self> {
        Self::full(backend, shape, 0.0)
    }

    /// A tensor of ones.
    pub fn ones(backend: &B, shape: impl Into<Shape>) -> Result<Self> {
        Self::full(backend, shape, 1.0)
    }

    /// A tensor holding `data` (row-major), uploaded to the device.
    pub fn from_slice(backend: &B, data: &[f32], shape: impl Into<Shape>) -> Result<Self> {
        let shape = shape.into();
        if data.len() != shape.numel() {
            return Err(Error::ElementCount {
                op: "from_slice",
                expected: shape.numel(),
                shape,
                got: data.len(),
            });
        }
        let storage = backend.upload(data)?;
        Ok(Tensor {
            backend: backend.clone(),
            shape,
            storage,
        })
    }

    /// A tensor holding `data` (row-major), uploaded to the device; on the CPU the tensor
    /// takes `data` over without a copy.
    pub fn from_vec(backend: &B, data: Vec<f32>, shape: impl Into<Shape>) -> Result<Self> {
        let shape = shape.into();
        if data.len() != shape.numel() {
            return Err(Error::ElementCount {
                op: "from_vec",
                expected: shape.numel(),
                shape,
                got: data.len(),
            });
        }
        let storage = backend.upload_vec(data)?;
        Ok(Tensor {
            backend: backend.clone(),
            shape,
            storage,
        })
    }

    /// The values (row-major) where the host reads them in place (on the CPU); `None` where
    /// they must be copied ([`to_vec`](Self::to_vec)).
    pub fn host_slice(&self) -> Option<&[f32]> {
        self.backend.host_slice(&self.storage)
    }

    /// The values (row-major) on the host; on the CPU the tensor's own buffer, without a
    /// copy.
    pub fn into_vec(self) -> Result<Vec<f32>> {
        self.backend.download_vec(self.storage)
    }

    /// A rank-0 tensor holding one value.
    pub fn scalar(backend: &B, value: f32) -> Result<Self> {
        Self::from_slice(backend, &[value], Shape::scalar())
    }

    /// Values drawn uniformly from `[low, high)` with `rng`.
    pub fn rand_uniform<R: Rng + ?Sized>(
        backend: &B,
        shape: impl Into<Shape>,
        low: f32,
        high: f32,
        rng: &mut R,
    ) -> Result<Self> {
        let shape = shape.into();
        if low >= high || !low.is_finite() || !high.is_finite() {
            return Err(Error::InvalidArgument {
                op: "rand_uniform",
                reason: format!("bounds [{low}, {high}) are not a finite, non-empty range"),
            });
        }
        let dist = Uniform::new(low, high).map_err(|e| Error::InvalidArgument {
            op: "rand_uniform",
            reason: e.to_string(),
        })?;
        let data: Vec<f32> = (0..shape.numel()).map(|_| dist.sample(rng)).collect();
        Self::from_slice(backend, &data, shape)
    }

    /// Values drawn from a normal distribution with `mean` and `std` (finite, `std >= 0`)
    /// with `rng`.
    pub fn rand_normal<R: Rng + ?Sized>(
        backend: &B,
        shape: impl Into<Shape>,
        mean: f32,
        std: f32,
        rng: &mut R,
    ) -> Result<Self> {
        let shape = shape.into();
        // `Normal::new` accepts a negative deviation (mirroring the distribution); a
        // negative or non-finite `std`, or a non-finite `mean`, is a caller's mistake.
        if std < 0.0 || !std.is_finite() || !mean.is_finite() {
            return Err(Error::InvalidArgument {
                op: "rand_normal",
                reason: format!("mean {mean}, std {std}: need a finite mean and std >= 0"),
            });
        }
        let dist = Normal::new(mean, std).map_err(|e| Error::InvalidArgument {
            op: "rand_normal",
            reason: format!("mean {mean}, std {std}: {e}"),
        })?;
        let data: Vec<f32> = (0..shape.numel()).map(|_| dist.sample(rng)).collect();
        Self::from_slice(backend, &data, shape)
    }

    /// The backend this tensor lives on.
    pub fn backend(&self) -> &B {
        &self.backend
    }

    /// The shape.
    pub fn shape(&self) -> &Shape {
        &self.shape
    }

    /// The dimensions, outermost first.
    pub fn dims(&self) -> &[usize] {
        self.shape.dims()
    }

    /// The number of elements.
    pub fn numel(&self) -> usize {
        self.shape.numel()
    }

    /// The underlying device buffer.
    pub fn storage(&self) -> &B::Storage {
        &self.storage
    }

    /// The underlying device buffer, mutable.
    pub fn storage_mut(&mut self) -> &mut B::Storage {
        &mut self.storage
    }

    /// Consumes the tensor, returning its buffer.
    pub fn into_storage(self) -> B::Storage {
        self.storage
    }

    /// Copies the contents to the host (the only device-to-host path).
    pub fn to_vec(&self) -> Result<Vec<f32>> {
        self.backend.download(&self.storage)
    }

    /// The single value of a one-element tensor, copied to the host.
    pub fn to_scalar(&self) -> Result<f32> {
        if self.numel() != 1 {
            return Err(Error::ElementCount {
                op: "to_scalar",
                shape: self.shape.clone(),
                expected: 1,
                got: self.numel(),
            });
        }
        Ok(self.to_vec()?[0])
    }

    /// Sets every element to `value`.
    pub fn fill(&mut self, value: f32) -> Result<()> {
        self.backend.fill(&mut self.storage, value)
    }

    /// Overwrites the contents with `data` from the host.
    pub fn upload(&mut self, data: &[f32]) -> Result<()> {
        if data.len() != self.numel() {
            return Err(Error::ElementCount {
                op: "upload",
                shape: self.shape.clone(),
                expected: self.numel(),
                got: data.len(),
            });
        }
        self.backend.upload_into(data, &mut self.storage)
    }

    /// Copies the contents of `src` (same number of elements) into `self`.
    pub fn copy_from(&mut self, src: &Tensor<B>) -> Result<()> {
        self.check_same_numel(src, "copy_from")?;
        self.backend.copy_slice(
            crate::SliceCopy {
                src_offset: 0,
                dst_offset: 0,
                len: src.numel(),
            },
            &src.storage,
            &mut self.storage,
        )
    }

    /// A copy of the tensor in a new buffer.
    pub fn try_clone(&self) -> Result<Self> {
        let mut out = Self::uninit(&self.backend, self.shape.clone())?;
        out.copy_from(self)?;
        Ok(out)
    }

    pub(crate) fn check_same_numel(&self, other: &Tensor<B>, op: &'static str) -> Result<()> {
        if self.numel() != other.numel() {
            return Err(Error::ShapeMismatch {
                op,
                lhs: self.shape.clone(),
                rhs: other.shape.clone(),
            });
        }
        Ok(())
    }

    pub(crate) fn check_shape(&self, shape: &Shape, op: &'static str) -> Result<()> {
        if &self.shape != shape {
            return Err(Error::ShapeMismatch {
                op,
                lhs: shape.clone(),
                rhs: self.shape.clone(),
            });
        }
        Ok(())
    }
}

impl<B: Backend> std::fmt::Debug for Tensor<B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tensor")
            .field("backend", &self.backend.name())
            .field("shape", &self.shape)
            .finish()
    }
}
