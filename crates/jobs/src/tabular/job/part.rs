//! A table network trained by every process of a run over several ([`train::ranks`]), each
//! holding on its device only its part of the training and validation rows
//! ([`nn::Holding::Part`]): the share of each set that [`nn::share`] gives its rank. Every
//! process reads, types and encodes the whole table the same way (the encoding is fitted on
//! every training row), so the host holds it whole; the device, where memory is scarcest,
//! holds the part. The run's summary is the whole training set's, so that it resumes on any
//! number of processes. After training, each process scores its share of the test rows (and
//! of the rows without targets), and the shares are summed into every process's copy.

use crate::Result;
use io::table::Table;
use io::{Dataset, FittedModel};
use std::ops::Range;
use tensor_core::{Backend, Tensor};
use train::WholeRows;

/// This process's rows of the training and validation sets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct PartRows {
    /// Its training rows.
    pub(super) train: Range<usize>,
    /// Its validation rows (empty without validation rows).
    pub(super) val: Range<usize>,
    /// The whole sets' sizes.
    pub(super) whole: WholeRows,
}

impl PartRows {
    /// This process's part of `train` training rows and `val` validation rows in the world
    /// it joined; `None` for a process alone, or where some process would hold no row of a
    /// set (every process then holds the whole sets and computes a share of each step).
    pub(super) fn of_world(train: usize, val: Option<usize>) -> Option<Self> {
        let world = train::ranks::world();
        Self::of(train, val, world.rank(), world.size())
    }

    /// [`PartRows::of_world`] for process `rank` of `size`.
    pub(super) fn of(train: usize, val: Option<usize>, rank: usize, size: usize) -> Option<Self> {
        let too_few = |rows: usize| rows < size;
        if size < 2 || too_few(train) || val.is_some_and(too_few) {
            return None;
        }
        let validation = val.unwrap_or(0);
        Some(PartRows {
            train: nn::share(train, rank, size),
            val: nn::share(validation, rank, size),
            whole: WholeRows { train, validation },
        })
    }
}

/// The outputs of `rows` rows, `width` values a row, that `compute` makes for a range of
/// them: in a run over several processes, each computes those of its share of the rows, laid
/// in place in a buffer of zeros, and the buffers are summed (exactly: each value meets only
/// zeros), so that every process holds them all. Every process calls it, on the same rows.
pub(super) fn shared_rows(
    rows: usize,
    width: usize,
    compute: impl FnOnce(Range<usize>) -> Result<Vec<f32>>,
) -> Result<Vec<f32>> {
    let world = train::ranks::world();
    let size = world.size();
    if size < 2 || rows < size {
        return compute(0..rows);
    }
    let share = nn::share(rows, world.rank(), size);
    let mine = compute(share.clone())?;
    let mut all = vec![0f32; rows * width];
    all.get_mut(share.start * width..share.end * width)
        .filter(|place| place.len() == mine.len())
        .ok_or_else(|| crate::Error::refused("a model gave another number of outputs"))?
        .copy_from_slice(&mine);
    world.sum(&mut all)?;
    Ok(all)
}

/// The raw outputs of `fitted` on the rows of `table` ([`FittedModel::table_outputs`]),
/// each process of a run over several computing its share ([`shared_rows`]).
pub(super) fn shared_outputs<B: Backend>(
    fitted: &FittedModel<B>,
    table: &Table,
) -> Result<Vec<f32>> {
    let width = fitted.info().output_width();
    shared_rows(table.rows(), width, |share| {
        if share.len() == table.rows() {
            return Ok(fitted.table_outputs(table)?);
        }
        let indices: Vec<usize> = share.collect();
        Ok(fitted.table_outputs(&table.select_rows(&indices)?)?)
    })
}

/// The raw outputs of `model` on the features of `rows`, each process of a run over several
/// computing its share ([`shared_rows`]).
pub(super) fn shared_predictions<B: Backend, M: nn::Model<B>>(
    backend: &B,
    model: &M,
    rows: &Dataset,
) -> Result<Vec<f32>> {
    shared_rows(rows.rows, model.output_dim(), |share| {
        let x = part_features(backend, rows, &share)?;
        Ok(model.predict(&x)?.to_vec()?)
    })
}

/// Rows `part` of a row-major matrix of `width` values a row, on the device.
pub(super) fn part_matrix<B: Backend>(
    backend: &B,
    values: &[f32],
    width: usize,
    part: &Range<usize>,
) -> Result<Tensor<B>> {
    let rows = &values[part.start * width..part.end * width];
    Ok(Tensor::from_slice(backend, rows, [part.len(), width])?)
}

/// The features of rows `part` of `rows`, on the device.
pub(super) fn part_features<B: Backend>(
    backend: &B,
    rows: &Dataset,
    part: &Range<usize>,
) -> Result<Tensor<B>> {
    part_matrix(backend, &rows.x, rows.n_features, part)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tensor_cpu::CpuBackend;

    #[test]
    fn the_parts_of_every_process_make_the_whole_sets_in_rank_order() {
        let parts: Vec<PartRows> = (0..3)
            .map(|r| PartRows::of(10, Some(4), r, 3).unwrap())
            .collect();
        assert_eq!(parts[0].train, 0..4);
        assert_eq!(parts[1].train, 4..7);
        assert_eq!(parts[2].train, 7..10);
        assert_eq!(parts[0].val, 0..2);
        assert_eq!(parts[2].val, 3..4);
        assert!(parts.iter().all(|p| p.whole
            == WholeRows {
                train: 10,
                validation: 4
            }));
        // Without validation rows, each holds an empty part of none.
        assert_eq!(PartRows::of(10, None, 1, 2).unwrap().val, 0..0);
    }

    #[test]
    fn a_process_alone_or_a_set_too_small_to_part_holds_the_whole() {
        assert_eq!(PartRows::of(10, Some(4), 0, 1), None);
        assert_eq!(PartRows::of(2, Some(4), 0, 3), None);
        assert_eq!(PartRows::of(10, Some(2), 0, 3), None);
        assert!(PartRows::of(3, Some(3), 2, 3).is_some());
    }

    #[test]
    fn a_part_of_a_matrix_is_its_rows() {
        let backend = CpuBackend::new();
        let values: Vec<f32> = (0..12).map(|v| v as f32).collect();
        let t = part_matrix(&backend, &values, 3, &(1..3)).unwrap();
        assert_eq!(t.dims(), [2, 3]);
        assert_eq!(t.to_vec().unwrap(), [3., 4., 5., 6., 7., 8.]);
    }
}
