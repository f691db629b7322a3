//! Hostile tables: files as Excel, pandas, R and databases export them, and files that are
//! not tables at all, each run through `mlp` (and `predict`) with its expected outcome
//! written down. A case is one line of [`CASES`] or [`PREDICT_CASES`]; the inputs are made
//! here, small, so that the whole battery runs in seconds. Totals are printed.

use std::path::Path;

use crate::common::{command, describe, tmp};

/// What a case must do.
#[derive(Debug, Clone, Copy)]
enum Expect {
    /// The command succeeds.
    Works,
    /// The command succeeds and prints this (a note, a column name).
    WorksSaying(&'static str),
    /// The command fails, its last line an error holding this (notes may come before).
    Refused(&'static str),
}
use Expect::{Refused, Works, WorksSaying};

/// One `mlp` case: a name, the file's name, its bytes, the arguments after `--data FILE`.
type Case = (
    &'static str,
    &'static str,
    fn() -> Vec<u8>,
    &'static [&'static str],
    Expect,
);

/// The header and rows of a small regression table: a number, a category, a target.
fn rows() -> Vec<[String; 3]> {
    let mut rows = vec![["size".into(), "colour".into(), "price".into()]];
    for i in 0..40 {
        let colour = ["red", "blue", "green"][i % 3];
        let size = 10.0 + i as f64 * 1.5;
        let price = 3.0 * size + 7.0 * (i % 3) as f64;
        rows.push([format!("{size}"), colour.into(), format!("{price}")]);
    }
    rows
}

/// The table with `d` between fields, `eol` after each line.
fn table(d: &str, eol: &str) -> String {
    rows().iter().map(|r| r.join(d) + eol).collect()
}

/// The table with line `line` of the file (1 = the header) replaced.
fn with_line(line: usize, text: &str) -> Vec<u8> {
    let mut lines: Vec<String> = rows().iter().map(|r| r.join(",")).collect();
    lines[line - 1] = text.into();
    (lines.join("\n") + "\n").into_bytes()
}

fn plain() -> Vec<u8> {
    table(",", "\n").into_bytes()
}

fn utf16le() -> Vec<u8> {
    let mut bytes = vec![0xFF, 0xFE];
    bytes.extend(
        table("\t", "\r\n")
            .encode_utf16()
            .flat_map(u16::to_le_bytes),
    );
    bytes
}

fn decimal_commas() -> Vec<u8> {
    let text: String = rows()
        .iter()
        .map(|r| format!("{};{};{}\r\n", r[0].replace('.', ","), r[1], r[2]))
        .collect();
    text.into_bytes()
}

fn quoted_newlines() -> Vec<u8> {
    let text = table(",", "\n").replacen(",red,", ",\"red\nand more\",", 1);
    text.into_bytes()
}

fn r_write_csv() -> Vec<u8> {
    let mut out = String::from("\"\",\"size\",\"colour\",\"price\"\n");
    for (i, r) in rows().iter().skip(1).enumerate() {
        out += &format!("\"{}\",{},\"{}\",{}\n", i + 1, r[0], r[1], r[2]);
    }
    out.into_bytes()
}

fn json_records() -> Vec<u8> {
    let records: Vec<String> = rows()
        .iter()
        .skip(1)
        .map(|r| {
            format!(
                "{{\"size\":{},\"colour\":\"{}\",\"price\":{}}}",
                r[0], r[1], r[2]
            )
        })
        .collect();
    format!("[{}]", records.join(",")).into_bytes()
}

fn json_lines() -> Vec<u8> {
    let text = String::from_utf8(json_records()).unwrap();
    let inner = &text[1..text.len() - 1];
    inner.replace("},{", "}\n{").into_bytes()
}

fn one_row_class() -> Vec<u8> {
    let mut text = String::from("a,b,c\n");
    for i in 0..30 {
        text += &format!("{i},{},{}\n", i % 7, if i % 2 == 1 { "x" } else { "z" });
    }
    (text + "0.1,3,lonely\n").into_bytes()
}

fn random_bytes() -> Vec<u8> {
    let mut state = 7u32;
    (0..4000)
        .map(|_| {
            state = state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            (state >> 16) as u8
        })
        .collect()
}

/// A 1 MB word in the number column, on line 3 (a training row with the default seed).
fn long_cell() -> Vec<u8> {
    let word = "w".repeat(1_000_000);
    let mut lines: Vec<String> = rows().iter().map(|r| r.join(",")).collect();
    for line in lines.iter_mut().skip(2).take(1) {
        *line = format!("{word},red,55");
    }
    (lines.join("\n") + "\n").into_bytes()
}

/// The `mlp` cases: name, file name, bytes, arguments after `--data FILE`, expectation.
#[rustfmt::skip]
const CASES: &[Case] = &[
    ("plain CSV", "t.csv", plain, &[], Works),
    ("CRLF line endings", "t.csv", || table(",", "\r\n").into_bytes(), &[], Works),
    ("UTF-8 BOM, CRLF", "t.csv", || ["\u{feff}", &table(",", "\r\n")].concat().into_bytes(), &[], Works),
    ("old Mac CR endings", "t.csv", || table(",", "\r").into_bytes(), &[], Works),
    ("no newline at the end", "t.csv", || table(",", "\n").trim_end().as_bytes().to_vec(), &[], Works),
    ("blank lines at the end", "t.csv", || (table(",", "\n") + "\n\n\n").into_bytes(), &[], Works),
    ("; and decimal commas", "t.csv", decimal_commas, &[], WorksSaying("size")),
    ("tab-separated .tsv", "t.tsv", || table("\t", "\n").into_bytes(), &[], Works),
    ("| separated", "t.csv", || table("|", "\n").into_bytes(), &[], WorksSaying("colour")),
    ("Excel sep=; line", "t.csv", || ("sep=;\r\n".to_string() + &table(";", "\r\n")).into_bytes(), &[], WorksSaying("colour")),
    ("delimiter ending every line", "t.csv", || table(",", ",\n").into_bytes(), &[], WorksSaying("target `price`")),
    ("delimiter ending the rows only", "t.csv", || table(",", "\n").replace("\n", ",\n").replacen(",\n", "\n", 1).into_bytes(), &[], WorksSaying("target `price`")),
    ("quoted line breaks", "t.csv", quoted_newlines, &[], Works),
    ("Excel Unicode Text (UTF-16)", "t.txt", utf16le, &[], WorksSaying("colour")),
    ("R write.csv row names", "t.csv", r_write_csv, &["--target", "price"], Works),
    ("pandas records JSON", "t.json", json_records, &[], WorksSaying("target `price`")),
    ("pandas JSON lines", "t.jsonl", json_lines, &[], WorksSaying("target `price`")),
    ("pandas columns JSON", "t.json", || br#"{"size":{"0":1,"1":2},"price":{"0":3,"1":4}}"#.to_vec(), &[], Refused("orient=\"records\"")),
    ("rows without a target", "t.csv", || with_line(4, "14.5,red,"), &[], WorksSaying("dropped 1 row")),
    ("a class of one row", "t.csv", one_row_class, &["--seed", "2"], Works),
    ("1 MB cell cut in notes", "t.csv", long_cell, &[], WorksSaying("(1000000 characters)")),
    ("empty file", "t.csv", Vec::new, &[], Refused("is empty")),
    ("header only", "t.csv", || b"size,colour,price\n".to_vec(), &[], Refused("no data rows")),
    ("duplicate header names", "t.csv", || with_line(1, "size,size,price"), &[], Refused("`size`")),
    ("ragged row", "t.csv", || with_line(7, "1,2,3,4"), &[], Refused("line 7 has 4 fields")),
    ("mixed line endings", "t.csv", || [&table(",", "\n")[..60], "\r\n", &table(",", "\n")[60..]].concat().into_bytes(), &[], Refused("line ending")),
    ("quote never closed", "t.csv", || with_line(9, "1,\"red,3"), &[], Refused("line 9")),
    ("1e39 target", "t.csv", || with_line(12, "26.5,red,1e39"), &[], Refused("line 12, column `price`: `1e39` is too large for a 32-bit float")),
    ("1e39 feature", "t.csv", || with_line(30, "1e39,red,3"), &[], Refused("line 30, column `size`: `1e39` is too large for a 32-bit float")),
    ("gzip named .csv", "t.csv", || b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03+I-.\x01\x00".to_vec(), &[], Refused("gzip-compressed")),
    ("zstd named .csv", "t.csv", || b"\x28\xb5\x2f\xfd\x24\x04\x21\x00\x00test".to_vec(), &[], Refused("zstd-compressed")),
    ("PNG named .csv", "t.csv", || b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00".to_vec(), &[], Refused("PNG image")),
    ("Parquet named .csv", "t.csv", || b"PAR1\x15\x04\x15\x10\x15\x14L\x15\x04PAR1".to_vec(), &[], Refused("Parquet file")),
    ("xlsx named .csv", "t.csv", || b"PK\x03\x04\x14\x00\x06\x00\x08\x00".to_vec(), &[], Refused("Excel")),
    ("random bytes", "t.csv", random_bytes, &[], Refused("binary data")),
    ("Windows-1252 accents", "t.csv", || with_line(8, "caf\u{e9},red,3").iter().map(|&b| if b == 0xc3 { 0xe9 } else { b }).filter(|&b| b != 0xa9).collect(), &[], Refused("line 8: invalid UTF-8")),
];

/// The `predict` cases, run with a model trained on [`plain`]: name, bytes of the rows,
/// extra arguments, expectation.
type PredictCase = (
    &'static str,
    fn() -> Vec<u8>,
    &'static [&'static str],
    Expect,
);

#[rustfmt::skip]
const PREDICT_CASES: &[PredictCase] = &[
    ("BOM, CRLF rows", || ["\u{feff}", &table(",", "\r\n")].concat().into_bytes(), &[], Works),
    ("--keep an input column", plain, &["--keep", "colour"], WorksSaying("colour,prediction")),
    ("--keep prediction", || with_line(1, "size,colour,prediction"), &["--keep", "prediction"], Refused("two columns named `prediction`")),
    ("--keep a name off by its case", plain, &["--keep", "Colour"], Refused("(did you mean `colour`? column names match with their case)")),
    ("1e39 in a feature", || with_line(6, "1e39,red,3"), &[], Refused("line 6, column `size`: `1e39` is too large")),
    ("words in a number on a quoted-break file", || { let mut b = quoted_newlines(); b.extend(b"abc,red,1\n"); b }, &[], Works),
];

/// Runs one command; whether its outcome is `expect`, and what it printed.
fn outcome(args: &[&std::ffi::OsStr], expect: Expect) -> (bool, String) {
    let o = command(args).output().expect("cannot start iron-learn");
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    // No message may echo a whole long cell.
    let short = all.len() < 20_000;
    let ok = match expect {
        Works => o.status.success(),
        WorksSaying(text) => o.status.success() && all.contains(text),
        Refused(text) => {
            let err = String::from_utf8_lossy(&o.stderr);
            let last = err.trim().lines().last().unwrap_or("");
            !o.status.success() && last.starts_with("error: ") && last.contains(text)
        }
    };
    (ok && short, describe(&o).chars().take(3000).collect())
}

fn mlp_args<'a>(file: &'a Path, out: &'a Path, extra: &[&'a str]) -> Vec<&'a std::ffi::OsStr> {
    let mut args: Vec<&std::ffi::OsStr> = [
        "mlp",
        "--device",
        "cpu",
        "--epochs",
        "2",
        "--test-fraction",
        "0.2",
        "--data",
    ]
    .iter()
    .map(|s| s.as_ref())
    .collect();
    args.push(file.as_os_str());
    args.extend(extra.iter().map(|s| std::ffi::OsStr::new(*s)));
    args.extend(["--out".as_ref(), out.as_os_str()]);
    args
}

#[test]
fn hostile_tables_give_the_expected_outcomes() {
    let dir = tmp();
    let mut failures = Vec::new();
    for (i, (name, file, bytes, extra, expect)) in CASES.iter().enumerate() {
        let folder = dir.path().join(format!("case{i}"));
        std::fs::create_dir_all(&folder).unwrap();
        let path = folder.join(file);
        std::fs::write(&path, bytes()).unwrap();
        let out = folder.join("run");
        let (ok, said) = outcome(&mlp_args(&path, &out, extra), *expect);
        if !ok {
            failures.push(format!("mlp: {name}: expected {expect:?}\n{said}"));
        }
    }
    let model = dir.path().join("model");
    let base = dir.path().join("base.csv");
    std::fs::write(&base, plain()).unwrap();
    let (ok, said) = outcome(&mlp_args(&base, &model, &[]), Works);
    assert!(ok, "{said}");
    for (i, (name, bytes, extra, expect)) in PREDICT_CASES.iter().enumerate() {
        let path = dir.path().join(format!("rows{i}.csv"));
        std::fs::write(&path, bytes()).unwrap();
        let mut args: Vec<&std::ffi::OsStr> = vec!["predict".as_ref(), model.as_os_str()];
        args.extend(["--data".as_ref(), path.as_os_str()]);
        args.extend(extra.iter().map(|s| std::ffi::OsStr::new(*s)));
        let (ok, said) = outcome(&args, *expect);
        if !ok {
            failures.push(format!("predict: {name}: expected {expect:?}\n{said}"));
        }
    }
    let cases = CASES.len() + PREDICT_CASES.len();
    println!(
        "hostile tables: {cases} cases, {} as expected",
        cases - failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
