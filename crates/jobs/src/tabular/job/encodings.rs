//! How the networks of a table job read numbers: the encodings asked
//! ([`NumberOptions`]) resolved into the network's inputs and `auto`'s second network's, and
//! the piecewise-linear rows refused where they would not fit in memory.

use super::error::{NumberConflict, TableRefusal};
use super::options::{EncodingAsked, ModelChoice, NumberOptions};
use crate::Result;
use crate::table::Prepared;
use crate::tabular::auto::{AUTO_PERIODIC, AUTO_PIECEWISE_BINS, AUTO_SECOND, NumericEncoding};

/// The network's inputs and `auto`'s second network's.
pub type Inputs = (Option<NumericEncoding>, Option<NumericEncoding>);

/// The inputs asked of the network (the network alone, or periodic bands with `auto`) and
/// of `auto`'s second network (an encoding with `auto`); `None` where not asked. Refuses
/// options that contradict each other.
pub fn numeric_encodings(
    choice: ModelChoice,
    numbers: Option<&NumberOptions>,
) -> std::result::Result<Inputs, TableRefusal> {
    let Some(n) = numbers else {
        return Ok((None, None));
    };
    let conflict = |c| Err(TableRefusal::Numbers(c));
    let auto_piecewise = matches!(AUTO_SECOND, NumericEncoding::Piecewise(_));
    let encoding = match (n.encoding, n.periodic, n.bins) {
        (Some(EncodingAsked::Plain | EncodingAsked::Piecewise), Some(_), _) => {
            return conflict(NumberConflict::PeriodicWithOtherEncoding);
        }
        (Some(EncodingAsked::Plain | EncodingAsked::Periodic), _, Some(_))
        | (None, Some(_), Some(_)) => return conflict(NumberConflict::BinsWithoutPiecewise),
        (None, None, Some(_)) if choice == ModelChoice::Network || !auto_piecewise => {
            return conflict(NumberConflict::BinsWithoutPiecewise);
        }
        (Some(EncodingAsked::Plain), None, None) => Some(NumericEncoding::Plain),
        (Some(EncodingAsked::Periodic), bands, None) => {
            Some(NumericEncoding::Periodic(bands.unwrap_or(AUTO_PERIODIC)))
        }
        (Some(EncodingAsked::Piecewise), None, bins) | (None, None, bins @ Some(_)) => Some(
            NumericEncoding::Piecewise(bins.unwrap_or(AUTO_PIECEWISE_BINS)),
        ),
        (None, bands, None) => bands.map(NumericEncoding::Periodic),
    };
    // With `auto`, periodic bands are the network's inputs and an encoding the second's.
    Ok(match choice == ModelChoice::Auto && n.periodic.is_none() {
        true => (None, encoding),
        false => (encoding, None),
    })
}

/// Refuses a network on the rows piecewise-linear in `bins` bins when they would not fit
/// in the memory budget.
pub fn refuse_piecewise_beyond_budget(p: &Prepared, bins: usize) -> Result<()> {
    let Some(io::image::MemoryBudget { bytes, source }) = train::budget::budget()? else {
        return Ok(());
    };
    let budget = bytes as f64;
    if p.piecewise_fits(bins, Some(budget)) {
        return Ok(());
    }
    Err(TableRefusal::PiecewiseOverBudget {
        bins,
        need: train::budget::bytes(p.piecewise_bytes(bins) as f64),
        budget: train::budget::bytes(budget),
        budget_from: source,
    }
    .into())
}

/// Whether the table's parts piecewise-linear in `bins` bins fit in the memory budget.
pub fn fits_piecewise(p: &Prepared, bins: usize) -> Result<bool> {
    let budget = train::budget::budget()?.map(|b| b.bytes as f64);
    Ok(p.piecewise_fits(bins, budget))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn asked(
        encoding: Option<EncodingAsked>,
        periodic: Option<usize>,
        bins: Option<usize>,
    ) -> NumberOptions {
        NumberOptions {
            encoding,
            periodic,
            bins,
        }
    }

    #[test]
    fn auto_reads_an_encoding_as_the_second_networks_and_bands_as_the_first() {
        let auto = ModelChoice::Auto;
        let piecewise = asked(Some(EncodingAsked::Piecewise), None, Some(8));
        assert_eq!(
            numeric_encodings(auto, Some(&piecewise)),
            Ok((None, Some(NumericEncoding::Piecewise(8))))
        );
        let bands = asked(None, Some(2), None);
        assert_eq!(
            numeric_encodings(auto, Some(&bands)),
            Ok((Some(NumericEncoding::Periodic(2)), None))
        );
        let periodic = asked(Some(EncodingAsked::Periodic), None, None);
        assert_eq!(
            numeric_encodings(ModelChoice::Network, Some(&periodic)),
            Ok((Some(NumericEncoding::Periodic(AUTO_PERIODIC)), None))
        );
    }

    #[test]
    fn contradictions_are_refused() {
        let bins = TableRefusal::Numbers(NumberConflict::BinsWithoutPiecewise);
        let periodic_bins = asked(Some(EncodingAsked::Periodic), None, Some(8));
        let net = ModelChoice::Network;
        assert_eq!(
            numeric_encodings(net, Some(&periodic_bins)),
            Err(bins.clone())
        );
        assert_eq!(
            numeric_encodings(net, Some(&asked(None, None, Some(8)))),
            Err(bins)
        );
        let both = asked(Some(EncodingAsked::Piecewise), Some(2), None);
        assert_eq!(
            numeric_encodings(ModelChoice::Auto, Some(&both)),
            Err(TableRefusal::Numbers(
                NumberConflict::PeriodicWithOtherEncoding
            ))
        );
    }
}
