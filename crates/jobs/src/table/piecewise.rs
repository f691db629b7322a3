//! A prepared table in a second encoding: its numbers piecewise-linear
//! ([`io::table::Piecewise`]), the edges fitted on the training rows, to train a network on
//! and, when that network is kept, to report and save it with ([`Prepared::swap_encoded`]).

use super::{Prepared, SchemaReport};
use crate::Result;
use io::Dataset;
use io::table::{ColumnEncoder, Preprocessor};

/// A table's encoding and its encoded parts, to swap with a [`Prepared`]'s.
#[derive(Debug, Clone)]
pub struct Encoded {
    /// The encoding.
    pub encoding: Preprocessor,
    /// The training rows (features, targets).
    pub train: Dataset,
    /// The validation rows, when some are held out.
    pub val: Option<Dataset>,
    /// The test rows (`None`: none held out).
    pub test: Option<Dataset>,
    /// The columns with this encoding (`schema.json`).
    pub schema: SchemaReport,
}

impl Prepared {
    /// The parts of `self` with every number column piecewise-linear in at most `bins`
    /// bins, fitted on `train_x`: the training rows' features in `self`'s encoding (which
    /// a run may have taken out of `self.train`).
    pub fn piecewise(&self, train_x: &[f32], bins: usize) -> Result<Encoded> {
        let encoding = self.encoding.with_piecewise(train_x, bins)?;
        self.piecewise_with(train_x, encoding)
    }

    /// The parts of `self` in `encoding`: `self`'s encoding with piecewise-linear numbers
    /// ([`io::table::Preprocessor::with_piecewise`], fitted on `train_x`, the training rows'
    /// features in `self`'s encoding), whose width a caller may check before the rows are
    /// encoded.
    pub fn piecewise_with(&self, train_x: &[f32], encoding: Preprocessor) -> Result<Encoded> {
        let names = encoding.output_names();
        let part = |d: &Dataset, x: &[f32]| -> Result<Dataset> {
            let x = encoding.piecewise_rows(x)?;
            let targets = d.target_names.clone();
            Ok(Dataset::new(
                x,
                d.y.clone(),
                d.rows,
                names.clone(),
                targets,
            )?)
        };
        Ok(Encoded {
            train: part(&self.train, train_x)?,
            val: self.val.as_ref().map(|v| part(v, &v.x)).transpose()?,
            test: self.test.as_ref().map(|t| part(t, &t.x)).transpose()?,
            schema: self.schema.reencoded(&self.encoding, &encoding),
            encoding,
        })
    }

    /// Bytes the parts of `self` would take piecewise-linear in `bins` bins, at most (every
    /// number column in `bins` bins): features and targets of every part.
    pub fn piecewise_bytes(&self, bins: usize) -> usize {
        let numbers = self.encoding.columns.iter();
        let numbers = numbers.filter(|c| matches!(c, ColumnEncoder::Number { .. }));
        let width = self.encoding.width() + numbers.count() * bins.saturating_sub(1);
        let rows = [Some(&self.train), self.val.as_ref(), self.test.as_ref()];
        let rows: usize = rows.iter().flatten().map(|d| d.rows).sum();
        4 * rows * (width + 1)
    }

    /// Whether the parts piecewise-linear in `bins` bins fit in `budget` bytes (`None`:
    /// unknown, they do) beside the program, the table as read, its parts as they are and
    /// the training rows' features (wherever they are held now).
    pub fn piecewise_fits(&self, bins: usize, budget: Option<f64>) -> bool {
        let train_x = 4 * self.train.rows * self.train.n_features;
        let held = self.held_bytes() + train_x + self.piecewise_bytes(bins);
        budget.is_none_or(|b| held as f64 + train::budget::PROGRAM_BYTES <= b)
    }

    /// Swaps the encoding, the encoded rows and the schema with `other`'s; the targets,
    /// the raw test rows and the rest stay.
    pub fn swap_encoded(&mut self, other: &mut Encoded) {
        std::mem::swap(&mut self.encoding, &mut other.encoding);
        std::mem::swap(&mut self.train, &mut other.train);
        std::mem::swap(&mut self.val, &mut other.val);
        std::mem::swap(&mut self.test, &mut other.test);
        std::mem::swap(&mut self.schema, &mut other.schema);
    }
}
