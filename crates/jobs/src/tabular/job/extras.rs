//! The bagged job's portfolio: networks on the plain rows that each fold trains beside
//! `auto`'s: the plain network without weight decay, and one that leaves out the
//! categories of many levels (one-hot columns where a network overfits and trees do not).

use super::network::{Network, NetworkRows};
use crate::Result;
use crate::table::Prepared;
use crate::tabular::auto;
use io::{Dataset, Standardizer};
use nn::Mlp;
use tensor_core::{Backend, Tensor};

/// A network of the portfolio: its report name, shape, run folder (inside the fold's) and
/// the encoded columns it leaves out (empty: none).
pub(super) struct Extra {
    /// The report's name of the candidate.
    pub(super) name: &'static str,
    /// The network.
    pub(super) net: Network,
    /// Its run folder's name.
    pub(super) dir: &'static str,
    /// The encoded columns it does not read, and the validation rows with them zeroed.
    left_out: Option<(Vec<usize>, Dataset)>,
}

/// The portfolio beside `net` (the plain network of the fold `part`): `net` without weight
/// decay when it has some, and `net` without the columns `many_levels` (the categories of
/// more than [`auto::MANY_LEVELS`] levels) when there are such columns.
pub(super) fn portfolio(net: &Network, part: &Prepared, many_levels: &[usize]) -> Vec<Extra> {
    let mut extras = Vec::new();
    if let Some(undecayed) = net.without_weight_decay() {
        extras.push(Extra {
            name: "plain without weight decay",
            net: undecayed,
            dir: auto::UNDECAYED_DIR,
            left_out: None,
        });
    }
    if let (false, Some(val)) = (many_levels.is_empty(), part.val.as_ref()) {
        let mut val = val.clone();
        zero_columns(&mut val.x, val.n_features, many_levels);
        extras.push(Extra {
            name: "plain without many-level categories",
            net: net.clone(),
            dir: auto::FEW_LEVELS_DIR,
            left_out: Some((many_levels.to_vec(), val)),
        });
    }
    extras
}

/// Sets the columns `columns` of the row-major `x` (`width` per row) to zero.
fn zero_columns(x: &mut [f32], width: usize, columns: &[usize]) {
    for row in x.chunks_exact_mut(width.max(1)) {
        columns.iter().for_each(|&c| row[c] = 0.0);
    }
}

impl Extra {
    /// Its own training features, when they are not the plain ones: `plain` (rows of
    /// `width` features) with the left-out columns zeroed.
    pub(super) fn features<B: Backend>(
        &self,
        backend: &B,
        plain: &Tensor<B>,
        width: usize,
    ) -> Result<Option<Tensor<B>>> {
        let Some((columns, _)) = &self.left_out else {
            return Ok(None);
        };
        let mut x = plain.to_vec()?;
        zero_columns(&mut x, width, columns);
        Ok(Some(Tensor::from_vec(backend, x, plain.dims())?))
    }

    /// The rows it trains and validates on in `p`, its training features `x` (the plain
    /// ones, or [`Extra::features`]).
    pub(super) fn rows<'a, B: Backend>(
        &'a self,
        p: &'a Prepared,
        x: &'a Tensor<B>,
        targets: Option<&Standardizer>,
    ) -> NetworkRows<'a, B> {
        let rows = NetworkRows::of(p, &p.train, x, targets);
        match &self.left_out {
            None => rows,
            Some((_, val)) => NetworkRows {
                val: Some(val),
                ..rows
            },
        }
    }

    /// The trained network as it reads the plain rows: one that left columns out no
    /// longer reads them at all.
    pub(super) fn finished<B: Backend>(&self, model: Mlp<B>) -> Result<Mlp<B>> {
        match &self.left_out {
            None => Ok(model),
            Some((columns, _)) => Ok(model.without_inputs(columns)?),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::zero_columns;

    #[test]
    fn columns_are_zeroed_in_every_row() {
        let mut x = vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
        zero_columns(&mut x, 3, &[0, 2]);
        assert_eq!(x, [0.0, 2.0, 0.0, 0.0, 5.0, 0.0]);
    }
}
