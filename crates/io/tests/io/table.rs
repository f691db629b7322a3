//! Tables read as text: delimiters, BOM, quoting, bad files, and the column types decided
//! from the rows.

use io::Error;
use io::table::{
    ColumnKind, ColumnOverride, DateOrder, Table, TypeOverrides, infer_schema, read_table,
    sniff_delimiter,
};

fn read(text: &str) -> Result<Table, Error> {
    read_table(text.as_bytes(), "t.csv", None)
}

fn kinds(table: &Table, target: Option<&str>) -> Vec<(String, ColumnKind)> {
    infer_schema(table, target, &TypeOverrides::default())
        .unwrap()
        .into_iter()
        .map(|c| (c.name, c.kind))
        .collect()
}

fn kind_of(table: &Table, name: &str) -> ColumnKind {
    kinds(table, None)
        .into_iter()
        .find(|(n, _)| n == name)
        .unwrap()
        .1
}

#[test]
fn delimiters_are_sniffed() {
    for (d, text) in [
        (b',', "a,b,c\n1,2,3\n"),
        (b';', "a;b;c\n1,5;2,5;3\n"),
        (b'\t', "a\tb\tc\n1\t2\t3\n"),
        (b';', "name;note\n\"x\";\"a, b, c\"\n"),
    ] {
        assert_eq!(
            sniff_delimiter(text.as_bytes()) as char,
            d as char,
            "{text:?}"
        );
        let t = read(text).unwrap();
        assert_eq!(
            t.names().len(),
            if text.starts_with("name") { 2 } else { 3 }
        );
    }
    // Decimal commas inside a semicolon file stay in the cell.
    let t = read("a;b;c\n1,5;2,5;3\n").unwrap();
    assert_eq!(t.column(0).get(0), "1,5");
}

#[test]
fn bom_quotes_and_line_breaks_in_fields() {
    let text = "\u{feff}id,comment,y\n1,\"hello, world\",2\n2,\"two\nlines\",3\r";
    let text = text.trim_end_matches('\r');
    let t = read(text).unwrap();
    assert_eq!(t.names(), ["id", "comment", "y"]);
    assert_eq!(t.rows(), 2);
    assert_eq!(t.column(1).get(0), "hello, world");
    assert_eq!(t.column(1).get(1), "two\nlines");
    let crlf = read("a,b\r\n1,2\r\n3,4\r\n").unwrap();
    assert_eq!((crlf.rows(), crlf.column(1).get(1)), (2, "4"));
}

#[test]
fn bad_files_are_one_error_naming_the_line() {
    let err = |text: &str| read(text).unwrap_err().to_string();
    let e = err("a,b,a\n1,2,3\n");
    assert!(
        e.contains("`a` twice") && e.contains("columns 1 and 3"),
        "{e}"
    );
    let e = err("a,b,c\n1,2,3\n4,5\n6,7,8\n");
    assert!(
        e.contains("line 3") && e.contains("2 fields") && e.contains("3"),
        "{e}"
    );
    let e = err("a,b\n1,2\r\n3,4\n");
    assert!(
        e.contains("line 2") && e.contains("CRLF") && e.contains("LF"),
        "{e}"
    );
    let e = err("a,b,c\n");
    assert!(e.contains("no data rows"), "{e}");
    let e = err("");
    assert!(e.contains("empty"), "{e}");
    let e = err("a,b\n1,2\n3,\"open\n");
    assert!(e.contains("line 3") && e.contains("never closed"), "{e}");
}

#[test]
fn empty_header_cells_are_named_by_position() {
    let t = read(",x,y\n1,2,3\n").unwrap();
    assert_eq!(t.names(), ["column_1", "x", "y"]);
}

/// A table with one column of each type, 40 rows.
fn mixed() -> Table {
    let mut text = String::from("row,id,size,colour,member,day,stamp,code,const,empty,note,y\n");
    for r in 0..40 {
        let size = if r % 10 == 3 {
            "NA".to_string()
        } else {
            format!("{}.5", r % 7)
        };
        let colour = ["red", "green", "blue"][r % 3];
        let member = if r % 2 == 0 { "Yes" } else { "no" };
        let day = format!("2024-01-{:02}", r % 28 + 1);
        let stamp = format!("2024-03-05T{:02}:30:00Z", r % 24);
        // Mostly numbers with one word: a number with a missing cell.
        let code = if r == 5 {
            "unknown".to_string()
        } else {
            (r * 3 % 11).to_string()
        };
        let note = if r % 4 == 0 { "?" } else { "fine" };
        text += &format!(
            "{r},user{r},{size},{colour},{member},{day},{stamp},{code},7,,{note},{}\n",
            r % 5
        );
    }
    read(&text).unwrap()
}

#[test]
fn each_type_is_recognised() {
    let t = mixed();
    let expected = [
        ("row", ColumnKind::Identifier),
        ("id", ColumnKind::Identifier),
        ("size", ColumnKind::Number),
        ("colour", ColumnKind::Category),
        ("member", ColumnKind::YesNo),
        (
            "day",
            ColumnKind::Date {
                time: false,
                order: DateOrder::YearFirst,
            },
        ),
        (
            "stamp",
            ColumnKind::Date {
                time: true,
                order: DateOrder::YearFirst,
            },
        ),
        ("code", ColumnKind::Number),
        ("const", ColumnKind::Constant),
        ("empty", ColumnKind::Empty),
        ("note", ColumnKind::Constant),
    ];
    assert_eq!(
        kinds(&t, Some("y")),
        expected.map(|(n, k)| (n.to_string(), k))
    );
    let schema = infer_schema(&t, Some("y"), &TypeOverrides::default()).unwrap();
    let size = &schema[2];
    assert_eq!((size.missing, size.rows, size.distinct), (4, 40, 7));
    let code = &schema[7];
    assert_eq!(code.missing, 1);
    assert!(code.note.contains("unknown"), "{}", code.note);
}

#[test]
fn the_mostly_numbers_rule_has_a_threshold() {
    // 15 numbers and 5 words: 75% numbers, a number column.
    let mut text = String::from("v,y\n");
    (0..15).for_each(|i| text += &format!("{i}.5,1\n"));
    (0..5).for_each(|i| text += &format!("many{i},1\n"));
    assert_eq!(kind_of(&read(&text).unwrap(), "v"), ColumnKind::Number);
    // 14 numbers and 6 words: below 75%, and too few distinct numbers (and too many distinct
    // words) for the 50% rule: a category.
    let mut text = String::from("v,y\n");
    (0..14).for_each(|i| text += &format!("{i}.5,1\n"));
    (0..6).for_each(|i| text += &format!("few{i},1\n"));
    assert_eq!(kind_of(&read(&text).unwrap(), "v"), ColumnKind::Category);
}

#[test]
fn yes_no_spellings_and_zero_one() {
    let t = read("a,b,c,d\ntrue,Y,0,yes\nFALSE,n,1,maybe\nTrue,y,1,no\n").unwrap();
    assert_eq!(kind_of(&t, "a"), ColumnKind::YesNo);
    assert_eq!(kind_of(&t, "b"), ColumnKind::YesNo);
    assert_eq!(kind_of(&t, "c"), ColumnKind::YesNo);
    assert_eq!(kind_of(&t, "d"), ColumnKind::Category);
}

#[test]
fn overrides_win_and_bad_names_are_errors() {
    let t = mixed();
    let overrides = TypeOverrides {
        categorical: vec!["code".into()],
        numeric: vec!["row".into()],
        ignore: vec!["size".into()],
    };
    let schema = infer_schema(&t, Some("y"), &overrides).unwrap();
    let kind = |n: &str| schema.iter().find(|c| c.name == n).unwrap().kind;
    assert_eq!(kind("code"), ColumnKind::Category);
    assert_eq!(kind("row"), ColumnKind::Number);
    assert_eq!(kind("size"), ColumnKind::Ignored);
    // A column of words read as numbers would be all missing: refused, its words shown.
    let words = TypeOverrides {
        numeric: vec!["colour".into()],
        ..TypeOverrides::default()
    };
    let e = infer_schema(&t, Some("y"), &words).unwrap_err();
    assert!(
        matches!(
            &e,
            io::Error::FewNumbers {
                numbers: 0,
                cells: 40,
                ..
            }
        ),
        "{e}"
    );
    let e = e.to_string();
    assert!(
        e.contains("`colour`") && e.contains("`blue`, `green`, `red`"),
        "{e}"
    );
    // The target is not a feature: no override applies to it.
    for (how, o) in [
        (
            ColumnOverride::Ignore,
            TypeOverrides {
                ignore: vec!["y".into()],
                ..TypeOverrides::default()
            },
        ),
        (
            ColumnOverride::Numeric,
            TypeOverrides {
                numeric: vec!["y".into()],
                ..TypeOverrides::default()
            },
        ),
    ] {
        let e = infer_schema(&t, Some("y"), &o).unwrap_err();
        assert!(
            matches!(&e, io::Error::OverrideOfTarget { how: h, name } if *h == how && name == "y"),
            "{e}"
        );
        assert!(!e.to_string().contains("--"), "{e}");
    }
    for (how, name) in [
        (ColumnOverride::Categorical, "nope"),
        (ColumnOverride::Ignore, "gone"),
    ] {
        let mut o = TypeOverrides::default();
        match how {
            ColumnOverride::Categorical => o.categorical.push(name.into()),
            _ => o.ignore.push(name.into()),
        }
        let e = infer_schema(&t, Some("y"), &o).unwrap_err();
        assert!(
            matches!(&e, io::Error::OverrideUnknownColumn { how: h, .. } if *h == how),
            "{e}"
        );
        let e = e.to_string();
        assert!(
            e.contains(&how.to_string()) && e.contains(name) && e.contains("colour"),
            "{e}"
        );
        assert!(!e.contains("--"), "{e}");
    }
    let e = infer_schema(&t, Some("price"), &TypeOverrides::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("no column `price`; available"), "{e}");
    // A name that differs only by its case is pointed at.
    let e = infer_schema(&t, Some("Y"), &TypeOverrides::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("no column `Y` (did you mean `y`?"), "{e}");
    let cased = TypeOverrides {
        ignore: vec!["Colour".into()],
        ..TypeOverrides::default()
    };
    let e = infer_schema(&t, Some("y"), &cased).unwrap_err().to_string();
    assert!(e.contains("(did you mean `colour`?"), "{e}");
    let twice = TypeOverrides {
        categorical: vec!["code".into()],
        ignore: vec!["code".into()],
        ..TypeOverrides::default()
    };
    let e = infer_schema(&t, Some("y"), &twice).unwrap_err();
    assert!(
        matches!(
            e,
            io::Error::OverriddenTwice {
                first: ColumnOverride::Categorical,
                second: ColumnOverride::Ignore,
                ..
            }
        ),
        "{e}"
    );
}

/// The estimate of a text table before reading it: the header's columns, the rows from
/// the file's size over its first rows (exact for rows of one length, close for a file
/// larger than the sample), and what a budget holds.
#[test]
fn text_table_estimate_from_the_head_of_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let small = dir.path().join("small.csv");
    std::fs::write(&small, "a;b;c\n1;2;3\n4;5;6\n7;8;9\n").unwrap();
    let e = io::table::estimate_text_table(&small).unwrap();
    assert_eq!((e.file_bytes, e.rows, e.columns), (24, 3, 3));
    assert_eq!(e.bytes(), 2 * 24 + 8 * 3 * 3);

    let big = dir.path().join("big.csv");
    let mut text = String::from("id,name,value\n");
    for r in 0..100_000 {
        text += &format!("{r},item{},{}\n", r % 97, r % 1000);
    }
    std::fs::write(&big, &text).unwrap();
    let e = io::table::estimate_text_table(&big).unwrap();
    assert_eq!(e.columns, 3);
    let error = e.rows.abs_diff(100_000) as f64 / 100_000.0;
    assert!(error < 0.1, "estimated {} rows for 100,000", e.rows);
    let per_row = e.bytes() / e.rows;
    assert_eq!(e.rows_within(per_row * 500), 500);
    assert!(io::table::estimate_text_table(dir.path().join("absent.csv")).is_none());
}
