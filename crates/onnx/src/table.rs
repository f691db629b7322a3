//! The table preprocessing of a fitted model ([`io::table::Preprocessor`]) as ONNX nodes:
//! raw columns in, the network's encoded features out, computed as `Preprocessor` does.
//!
//! One graph input per raw column, named as the column, of shape `[N, 1]`:
//!
//! - a number: `float32`, NaN (or an infinity) for a missing cell; the graph fills it with
//!   the training median, adds the `<name>_missing` indicator where training had gaps, and
//!   standardises; a piecewise-linear column ([`io::table::Piecewise`]) then becomes its
//!   bins, `(z - b_{t-1}) / (b_t - b_{t-1})` clipped to `[0, 1]` (the first bin only above,
//!   the last only below);
//! - yes/no: `string`, the words as written (`yes`, `No`, `TRUE`, `f`, `1`, ... in any case,
//!   [`io::table::YES_WORDS`] and [`io::table::NO_WORDS`]); any other text is a missing cell;
//! - a category: `string`, the level as written; a level the model does not know reads as
//!   `other`, and the missing words ([`io::table::MISSING_TOKENS`] in any case, the empty
//!   string) as `missing`; `CategoryMapper` (`ai.onnx.ml`) looks the levels up;
//! - a date: `float64`, the seconds from 1970-01-01 00:00 to the date and time as written
//!   (the clock time, no time zone applied; a plain date is its midnight), NaN for a
//!   missing cell; the graph derives the year, month, day of the week and hour by the civil
//!   calendar. A cell written without a time in a column that has times reads as hour 0
//!   here, where `Preprocessor` fills the training median hour.
//!
//! Text cells are compared as they are: strip surrounding spaces first, as the table reader
//! does.

use io::table::{
    ColumnEncoder, DateField, MISSING_TOKENS, NO_WORDS, Piecewise, Preprocessor, Scaling, YES_WORDS,
};

use crate::graph::{Attr, Graph, ML_DOMAIN};
use crate::proto::{BOOL, DOUBLE, FLOAT, INT64, STRING};
use crate::{Error, Result};

/// The ONNX element type of the graph input for `encoder`'s column.
pub fn input_type(encoder: &ColumnEncoder) -> i32 {
    match encoder {
        ColumnEncoder::Number { .. } => FLOAT,
        ColumnEncoder::YesNo { .. } | ColumnEncoder::Category { .. } => STRING,
        ColumnEncoder::Date { .. } => DOUBLE,
    }
}

/// The name of an ONNX element type this module uses, as numpy and onnxruntime write it.
pub fn type_name(elem_type: i32) -> &'static str {
    match elem_type {
        FLOAT => "float32",
        DOUBLE => "float64",
        STRING => "string",
        INT64 => "int64",
        BOOL => "bool",
        _ => "other",
    }
}

/// Declares one input per raw column of `p` and adds the nodes that encode them; returns
/// the name of the encoded `[N, width]` float value.
pub(crate) fn encode(g: &mut Graph, p: &Preprocessor) -> Result<String> {
    let mut pieces = Vec::new();
    for (k, encoder) in p.columns.iter().enumerate() {
        let name = encoder.column();
        let doc = format!("{} ({}), [N, 1]", name, encoder.describe());
        let x = g.typed_input(name, input_type(encoder), &[None, Some(1)], &doc);
        let mut column = Column { g, k, x };
        match encoder {
            ColumnEncoder::Number {
                scaling,
                indicator,
                piecewise,
                ..
            } => pieces.extend(column.number(scaling, *indicator, piecewise.as_ref())),
            ColumnEncoder::YesNo {
                fill, indicator, ..
            } => pieces.extend(column.yes_no(*fill, *indicator)),
            ColumnEncoder::Category {
                levels,
                other,
                missing,
                ..
            } => pieces.extend(column.category(levels, *other, *missing)),
            ColumnEncoder::Date {
                parts, indicator, ..
            } => pieces.extend(column.date(parts, *indicator)),
        }
    }
    if pieces.is_empty() {
        return Err(Error::Unsupported(
            "the table preprocessing encodes no column".into(),
        ));
    }
    let refs: Vec<&str> = pieces.iter().map(String::as_str).collect();
    Ok(g.node("Concat", &refs, &[("axis", Attr::Int(1))]))
}

/// Declares one `float32` input `[N, 1]` per name in `features` (the columns of a table
/// read as numbers, with no preprocessing) and returns the name of the `[N, features]`
/// value they make side by side.
pub(crate) fn number_columns(g: &mut Graph, features: &[String]) -> String {
    let columns: Vec<String> = features
        .iter()
        .map(|name| {
            g.typed_input(
                name,
                FLOAT,
                &[None, Some(1)],
                &format!("{name} (number), [N, 1]"),
            )
        })
        .collect();
    if let [one] = columns.as_slice() {
        return one.clone();
    }
    let refs: Vec<&str> = columns.iter().map(String::as_str).collect();
    g.node("Concat", &refs, &[("axis", Attr::Int(1))])
}

/// Every spelling of `words` in upper and lower case, each once.
pub fn case_variants(words: &[&str]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for word in words {
        let letters: Vec<usize> = word
            .char_indices()
            .filter(|(_, c)| c.is_ascii_alphabetic())
            .map(|(i, _)| i)
            .collect();
        for mask in 0..1u32 << letters.len() {
            let mut bytes = word.to_ascii_lowercase().into_bytes();
            for (bit, &i) in letters.iter().enumerate() {
                if mask & (1 << bit) != 0 {
                    bytes[i] = bytes[i].to_ascii_uppercase();
                }
            }
            let variant = String::from_utf8(bytes).unwrap_or_default();
            if !out.contains(&variant) {
                out.push(variant);
            }
        }
    }
    out
}

/// The nodes of one raw column: `k` is its position (it names the constants), `x` its
/// graph input.
struct Column<'a> {
    g: &'a mut Graph,
    k: usize,
    x: String,
}

impl Column<'_> {
    fn constant(&mut self, what: &str, value: f32) -> String {
        self.g.scalar(&format!("column{}_{what}", self.k), value)
    }

    fn constant_f64(&mut self, what: &str, value: f64) -> String {
        let name = format!("column{}_{what}", self.k);
        self.g
            .constant_raw(&name, &[], DOUBLE, value.to_le_bytes().to_vec())
    }

    /// `true` where `x` is NaN or infinite: `x - x` is NaN exactly there, and NaN is the
    /// one value not equal to itself (`IsNaN` is not defined for `float64` everywhere).
    fn not_finite(&mut self) -> String {
        let d = self.g.node("Sub", &[&self.x, &self.x], &[]);
        let same = self.g.node("Equal", &[&d, &d], &[]);
        self.g.node("Not", &[&same], &[])
    }

    /// `(where(missing, fill, v) - mean) / std`.
    fn fill_and_scale(&mut self, v: &str, missing: &str, s: &Scaling, what: &str) -> String {
        let fill = self.constant(&format!("{what}fill"), s.fill);
        let mean = self.constant(&format!("{what}mean"), s.mean);
        let std = self.constant(&format!("{what}std"), s.std);
        let filled = self.g.node("Where", &[missing, &fill, v], &[]);
        let centred = self.g.node("Sub", &[&filled, &mean], &[]);
        self.g.node("Div", &[&centred, &std], &[])
    }

    fn indicator(&mut self, missing: &str) -> String {
        self.g
            .node("Cast", &[missing], &[("to", Attr::Int(i64::from(FLOAT)))])
    }

    /// `CategoryMapper` from the strings of `x` to `int64`: `keys[i]` to `values[i]`, any
    /// other string to `default`.
    fn lookup(&mut self, keys: Vec<String>, values: Vec<i64>, default: i64) -> String {
        let attrs = [
            ("cats_strings", Attr::Strings(keys)),
            ("cats_int64s", Attr::Ints(values)),
            ("default_int64", Attr::Int(default)),
        ];
        self.g
            .node_in(ML_DOMAIN, "CategoryMapper", &[&self.x.clone()], &attrs)
    }

    fn number(&mut self, s: &Scaling, indicator: bool, bins: Option<&Piecewise>) -> Vec<String> {
        let missing = self.not_finite();
        let x = self.x.clone();
        let z = self.fill_and_scale(&x, &missing, s, "");
        let mut out = vec![match bins {
            Some(p) => self.piecewise(&z, p),
            None => z,
        }];
        if indicator {
            out.push(self.indicator(&missing));
        }
        out
    }

    /// The bins of the standardised `[N, 1]` value `z`, `[N, bins]`: `(z - low) / width`
    /// against each bin's lower edge and width, then `Max` with 0 and `Min` with 1 (an
    /// infinity for the first bin's lower and the last bin's upper side), as
    /// [`Piecewise::write`] computes them.
    fn piecewise(&mut self, z: &str, p: &Piecewise) -> String {
        let bins = p.bins();
        let low: Vec<f32> = p.edges[..bins].to_vec();
        let mut floor = vec![0.0; bins];
        let mut ceiling = vec![1.0; bins];
        if bins > 0 {
            floor[0] = f32::NEG_INFINITY;
            ceiling[bins - 1] = f32::INFINITY;
        }
        let mut vector = |what: &str, values: &[f32]| {
            let name = format!("column{}_bin_{what}", self.k);
            self.g.constant(&name, &[bins], values)
        };
        let (low, width) = (vector("low", &low), vector("width", &p.widths()));
        let (floor, ceiling) = (vector("floor", &floor), vector("ceiling", &ceiling));
        let shifted = self.g.node("Sub", &[z, &low], &[]);
        let share = self.g.node("Div", &[&shifted, &width], &[]);
        let above = self.g.node("Max", &[&share, &floor], &[]);
        self.g.node("Min", &[&above, &ceiling], &[])
    }

    fn yes_no(&mut self, fill: f32, indicator: bool) -> Vec<String> {
        let yes = case_variants(&YES_WORDS);
        let no = case_variants(&NO_WORDS);
        let values = [vec![1; yes.len()], vec![0; no.len()]].concat();
        let code = self.lookup([yes, no].concat(), values, -1);
        let zero = self
            .g
            .constant_i64(&format!("column{}_zero", self.k), &[], &[0]);
        let missing = self.g.node("Less", &[&code, &zero], &[]);
        let value = self
            .g
            .node("Cast", &[&code], &[("to", Attr::Int(i64::from(FLOAT)))]);
        let fill = self.constant("fill", fill);
        let mut out = vec![self.g.node("Where", &[&missing, &fill, &value], &[])];
        if indicator {
            out.push(self.indicator(&missing));
        }
        out
    }

    /// One-hot over `levels`, then `other` and `missing` when present: each cell becomes
    /// the index of its slot (-1 for none) and is compared with `0..width`.
    fn category(&mut self, levels: &[String], other: bool, missing: bool) -> Vec<String> {
        let other_at = other.then_some(levels.len() as i64);
        let missing_at = missing.then_some(levels.len() as i64 + i64::from(other));
        let width = levels.len() + usize::from(other) + usize::from(missing);
        if width == 0 {
            return Vec::new();
        }
        let tokens = case_variants(&MISSING_TOKENS);
        let missing_slot = missing_at.or(other_at).unwrap_or(-1);
        let mut values: Vec<i64> = (0..levels.len() as i64).collect();
        values.extend(std::iter::repeat_n(missing_slot, tokens.len()));
        let keys = [levels.to_vec(), tokens].concat();
        let slot = self.lookup(keys, values, other_at.unwrap_or(-1));
        let range: Vec<i64> = (0..width as i64).collect();
        let slots = self
            .g
            .constant_i64(&format!("column{}_slots", self.k), &[width], &range);
        let hot = self.g.node("Equal", &[&slot, &slots], &[]);
        vec![self.indicator(&hot)]
    }

    fn date(&mut self, parts: &[(DateField, Scaling)], indicator: bool) -> Vec<String> {
        let missing = self.not_finite();
        let fields = self.civil_fields();
        let mut out = Vec::new();
        for (field, scaling) in parts {
            let v = match field {
                DateField::Year => &fields.year,
                DateField::Month => &fields.month,
                DateField::Weekday => &fields.weekday,
                DateField::Hour => &fields.hour,
            }
            .clone();
            let v = self
                .g
                .node("Cast", &[&v], &[("to", Attr::Int(i64::from(FLOAT)))]);
            let what = format!("{field:?}_").to_ascii_lowercase();
            out.push(self.fill_and_scale(&v, &missing, scaling, &what));
        }
        if indicator {
            out.push(self.indicator(&missing));
        }
        out
    }

    /// `floor(a / b)` in `float64`, `b` a constant.
    fn floor_div(&mut self, a: &str, b: f64, what: &str) -> String {
        let b = self.constant_f64(what, b);
        let q = self.g.node("Div", &[a, &b], &[]);
        self.g.node("Floor", &[&q], &[])
    }

    /// `a - b * c` in `float64`, `c` a constant.
    fn minus_times(&mut self, a: &str, b: &str, c: f64, what: &str) -> String {
        let c = self.constant_f64(what, c);
        let bc = self.g.node("Mul", &[b, &c], &[]);
        self.g.node("Sub", &[a, &bc], &[])
    }

    /// Year, month, day of the week and hour of the seconds in `x`, by the civil-calendar
    /// algorithm (proleptic Gregorian, days since 1970-01-01), all in `float64`.
    fn civil_fields(&mut self) -> CivilFields {
        let x = self.x.clone();
        let days = self.floor_div(&x, 86_400.0, "seconds_a_day");
        let seconds = self.minus_times(&x, &days, 86_400.0, "seconds_a_day_again");
        let hour = self.floor_div(&seconds, 3_600.0, "seconds_an_hour");
        let three = self.constant_f64("thursday", 3.0);
        let shifted = self.g.node("Add", &[&days, &three], &[]);
        let weeks = self.floor_div(&shifted, 7.0, "week");
        let weekday = self.minus_times(&shifted, &weeks, 7.0, "week_again");

        let offset = self.constant_f64("epoch_from_0000_03_01", 719_468.0);
        let z = self.g.node("Add", &[&days, &offset], &[]);
        let era = self.floor_div(&z, 146_097.0, "days_an_era");
        let doe = self.minus_times(&z, &era, 146_097.0, "days_an_era_again");
        let a = self.floor_div(&doe, 1_460.0, "days_4_years");
        let b = self.floor_div(&doe, 36_524.0, "days_100_years");
        let c = self.floor_div(&doe, 146_096.0, "days_400_years");
        let t = self.g.node("Sub", &[&doe, &a], &[]);
        let t = self.g.node("Add", &[&t, &b], &[]);
        let t = self.g.node("Sub", &[&t, &c], &[]);
        let yoe = self.floor_div(&t, 365.0, "days_a_year");
        let leap4 = self.floor_div(&yoe, 4.0, "four");
        let leap100 = self.floor_div(&yoe, 100.0, "hundred");
        let doy = self.minus_times(&doe, &yoe, 365.0, "days_a_year_again");
        let doy = self.g.node("Sub", &[&doy, &leap4], &[]);
        let doy = self.g.node("Add", &[&doy, &leap100], &[]);
        let five = self.constant_f64("five", 5.0);
        let two = self.constant_f64("two", 2.0);
        let m5 = self.g.node("Mul", &[&doy, &five], &[]);
        let m5 = self.g.node("Add", &[&m5, &two], &[]);
        let mp = self.floor_div(&m5, 153.0, "days_a_month_group");
        let ten = self.constant_f64("ten", 10.0);
        let march_to_december = self.g.node("Less", &[&mp, &ten], &[]);
        let m_low = self.constant_f64("plus_three", 3.0);
        let m_high = self.constant_f64("minus_nine", -9.0);
        let shift = self
            .g
            .node("Where", &[&march_to_december, &m_low, &m_high], &[]);
        let month = self.g.node("Add", &[&mp, &shift], &[]);
        let year = self.minus_times(&yoe, &era, -400.0, "years_an_era");
        let january_february = self.g.node("Less", &[&month, &three], &[]);
        let carry = self.g.node(
            "Cast",
            &[&january_february],
            &[("to", Attr::Int(i64::from(DOUBLE)))],
        );
        let year = self.g.node("Add", &[&year, &carry], &[]);
        CivilFields {
            year,
            month,
            weekday,
            hour,
        }
    }
}

/// The names of the `float64` values of a date's fields.
struct CivilFields {
    year: String,
    month: String,
    weekday: String,
    hour: String,
}
