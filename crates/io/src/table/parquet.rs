//! Reading Parquet files into a [`Table`]: each top-level column becomes a text column in the
//! form the CSV reader would give (numbers in shortest form, booleans `true`/`false`, dates and
//! timestamps in ISO form, nulls as empty cells), so that the same type inference and encoding
//! apply.

use std::path::Path;

use ::parquet::basic::{LogicalType, TimeUnit};
use ::parquet::file::reader::{FileReader, SerializedFileReader};
use ::parquet::record::Field;

use super::text::{Table, TextColumn};
use crate::error::{Error, Result, read_file};

/// Reads a Parquet file into a [`Table`]; see [`read_parquet`].
pub fn load_parquet(path: impl AsRef<Path>) -> Result<Table> {
    let path = path.as_ref();
    let bytes = read_file(path)?;
    read_parquet(bytes, &path.display().to_string())
}

/// Reads the bytes of a Parquet file into a [`Table`] of text cells.
///
/// Numbers are written in shortest form, booleans as `true`/`false`, strings (plain or
/// dictionary-encoded) as they are, dates as `YYYY-MM-DD` and timestamps as
/// `YYYY-MM-DD HH:MM:SS` (UTC; every unit, seconds to nanoseconds, with or without a time
/// zone); nulls are empty (missing) cells. Pages compressed with snappy, gzip, zstd, brotli
/// or lz4 are read. Errors, each naming
/// `source_name`: bytes that are not Parquet or are truncated, nested columns (lists, maps,
/// groups), binary columns, a duplicate column name, and a file with no rows.
pub fn read_parquet(bytes: Vec<u8>, source_name: &str) -> Result<Table> {
    let fail = |message: String| Error::Table {
        source_name: source_name.to_string(),
        message,
    };
    if bytes.is_empty() {
        return Err(Error::EmptyFile {
            source_name: source_name.to_string(),
        });
    }
    if !bytes.starts_with(b"PAR1") {
        return Err(fail(
            "not a Parquet file (no `PAR1` mark at its start)".into(),
        ));
    }
    let reader = SerializedFileReader::new(bytes::Bytes::from(bytes))
        .map_err(|e| fail(format!("not a readable Parquet file (truncated?): {e}")))?;
    // Each top-level column's name, and its time unit when it holds timestamps.
    let (names, units): (Vec<String>, Vec<Option<TimeUnit>>) = reader
        .metadata()
        .file_metadata()
        .schema_descr()
        .root_schema()
        .get_fields()
        .iter()
        .map(|f| {
            let unit = match f.get_basic_info().logical_type_ref() {
                Some(LogicalType::Timestamp(t)) => Some(t.unit),
                _ => None,
            };
            (f.name().to_string(), unit)
        })
        .unzip();
    let rows = reader.metadata().file_metadata().num_rows().max(0) as usize;
    let mut columns = vec![TextColumn::with_capacity(rows); names.len()];
    let iter = reader
        .get_row_iter(None)
        .map_err(|e| fail(format!("cannot read its rows: {e}")))?;
    let mut cell = String::new();
    for (r, row) in iter.enumerate() {
        let row = row.map_err(|e| fail(format!("row {}: {e} (truncated?)", r + 1)))?;
        for (c, (name, field)) in row.get_column_iter().enumerate() {
            cell.clear();
            let unit = units.get(c).copied().flatten();
            field_text(field, unit, &mut cell).map_err(|kind| {
                fail(format!(
                    "column `{name}` holds {kind}, which tables do not take"
                ))
            })?;
            if let Some(column) = columns.get_mut(c) {
                column.push(&cell);
            }
        }
    }
    columns.iter_mut().for_each(TextColumn::shrink_to_fit);
    let table = Table::new(source_name, names, columns)?.without_lines();
    if table.rows() == 0 {
        return Err(Error::NoDataRows {
            source_name: source_name.to_string(),
            dropped: 0,
        });
    }
    Ok(table)
}

/// Writes one Parquet value as a table cell into `out`; `Err` names a kind tables do not take.
/// `unit` is the column's time unit when its logical type is a timestamp: a 64-bit integer
/// there (nanoseconds as pandas 2 writes them, or a unit without a converted type) is a
/// date-time.
fn field_text(
    field: &Field,
    unit: Option<TimeUnit>,
    out: &mut String,
) -> std::result::Result<(), &'static str> {
    use std::fmt::Write;
    let _ = match field {
        Field::Long(v) if unit.is_some() => {
            let per_second = match unit {
                Some(TimeUnit::MILLIS) => 1_000,
                Some(TimeUnit::MICROS) => 1_000_000,
                _ => 1_000_000_000,
            };
            write_timestamp(out, v.div_euclid(per_second))
        }
        Field::Null => Ok(()),
        Field::Bool(v) => write!(out, "{v}"),
        Field::Byte(v) => write!(out, "{v}"),
        Field::Short(v) => write!(out, "{v}"),
        Field::Int(v) => write!(out, "{v}"),
        Field::Long(v) => write!(out, "{v}"),
        Field::UByte(v) => write!(out, "{v}"),
        Field::UShort(v) => write!(out, "{v}"),
        Field::UInt(v) => write!(out, "{v}"),
        Field::ULong(v) => write!(out, "{v}"),
        Field::Float16(v) => write!(out, "{}", f32::from(*v)),
        Field::Float(v) => write_float(out, f64::from(*v)),
        Field::Double(v) => write_float(out, *v),
        Field::Decimal(_) => write!(out, "{field}"),
        Field::Str(s) => write!(out, "{s}"),
        Field::Date(days) => write_date(out, i64::from(*days)),
        Field::TimestampMillis(ms) => write_timestamp(out, ms.div_euclid(1000)),
        Field::TimestampMicros(us) => write_timestamp(out, us.div_euclid(1_000_000)),
        Field::TimeMillis(_) | Field::TimeMicros(_) => write!(out, "{field}"),
        Field::Bytes(_) => return Err("binary values"),
        Field::Group(_) | Field::ListInternal(_) | Field::MapInternal(_) => {
            return Err("nested values");
        }
    };
    Ok(())
}

/// A float in shortest form; NaN is a missing cell.
fn write_float(out: &mut String, v: f64) -> std::fmt::Result {
    use std::fmt::Write;
    if v.is_nan() {
        Ok(())
    } else {
        write!(out, "{v}")
    }
}

/// Days since 1970-01-01 as `YYYY-MM-DD` (proleptic Gregorian calendar).
fn write_date(out: &mut String, days: i64) -> std::fmt::Result {
    use std::fmt::Write;
    let (y, m, d) = civil_from_days(days);
    write!(out, "{y:04}-{m:02}-{d:02}")
}

/// Seconds since 1970-01-01 00:00:00 UTC as `YYYY-MM-DD HH:MM:SS`.
fn write_timestamp(out: &mut String, seconds: i64) -> std::fmt::Result {
    use std::fmt::Write;
    write_date(out, seconds.div_euclid(86_400))?;
    let s = seconds.rem_euclid(86_400);
    write!(out, " {:02}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

/// The calendar date of a day count since 1970-01-01 (the era-based method for the
/// proleptic Gregorian calendar).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::civil_from_days;

    #[test]
    fn days_map_to_calendar_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(civil_from_days(19_723), (2024, 1, 1));
    }
}
