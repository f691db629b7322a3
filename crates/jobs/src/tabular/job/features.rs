//! Training features on the device, lent by the host rows they come from to every network
//! that reads them: each network's run borrows the one tensor, none owns it.

use crate::Result;
use io::Dataset;
use std::ops::Range;
use tensor_core::{Backend, Tensor};

/// The training features of some host rows, on the device while the job's networks train.
/// On the CPU the tensor takes over the rows' own buffer (no copy: a table of a million rows
/// holds its training matrix once); the rows get it back when the networks are done. A
/// process holding only its part of the rows on the device copies that part instead, and
/// the host rows keep theirs.
pub(super) struct DeviceFeatures<B: Backend> {
    x: Tensor<B>,
    /// Whether `x` is the rows' own buffer, to give back.
    taken: bool,
}

impl<B: Backend> DeviceFeatures<B> {
    /// Takes the features of `rows` onto `backend` (leaving `rows` without them until
    /// [`DeviceFeatures::give_back`]).
    pub(super) fn take(backend: &B, rows: &mut Dataset) -> Result<Self> {
        let x = std::mem::take(&mut rows.x);
        let x = Tensor::from_vec(backend, x, [rows.rows, rows.n_features])?;
        Ok(DeviceFeatures { x, taken: true })
    }

    /// The features of `part` of `rows` onto `backend`, copied (`rows` keeps its own).
    pub(super) fn part(backend: &B, rows: &Dataset, part: &Range<usize>) -> Result<Self> {
        let x = super::part::part_features(backend, rows, part)?;
        Ok(DeviceFeatures { x, taken: false })
    }

    /// The features, to borrow.
    pub(super) fn tensor(&self) -> &Tensor<B> {
        &self.x
    }

    /// Gives the features back to `rows` (the rows they were taken from, or copied from).
    pub(super) fn give_back(self, rows: &mut Dataset) -> Result<()> {
        if self.taken {
            rows.x = self.x.into_vec()?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::DeviceFeatures;
    use io::Dataset;
    use tensor_cpu::CpuBackend;

    #[test]
    fn features_lent_to_the_device_come_back_unchanged() {
        let backend = CpuBackend::new();
        let x = vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
        let names = |n: &str| vec![n.to_string()];
        let features = vec!["a".to_string(), "b".to_string()];
        let mut rows =
            Dataset::new(x.clone(), vec![0.0, 1.0, 0.0], 3, features, names("y")).unwrap();
        let lent = DeviceFeatures::take(&backend, &mut rows).unwrap();
        assert!(rows.x.is_empty());
        assert_eq!(lent.tensor().dims(), [3, 2]);
        assert_eq!(lent.tensor().to_vec().unwrap(), x);
        lent.give_back(&mut rows).unwrap();
        assert_eq!(rows.x, x);
        // A part is copied: the rows keep their features.
        let part = DeviceFeatures::part(&backend, &rows, &(1..3)).unwrap();
        assert_eq!(rows.x, x);
        assert_eq!(part.tensor().to_vec().unwrap(), x[2..].to_vec());
        part.give_back(&mut rows).unwrap();
        assert_eq!(rows.x, x);
    }
}
