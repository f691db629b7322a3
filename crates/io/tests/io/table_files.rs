//! Table files as exported by spreadsheets, pandas and databases: what a file that is not
//! text is called, UTF-16, `|` and `sep=`, trailing delimiters, file lines kept through a
//! selection of rows, long cells cut in messages.

use io::Error;
use io::table::RowPlace;
use io::table::{Table, TypeOverrides, infer_schema, read_table};

fn read(bytes: &[u8]) -> Result<Table, Error> {
    read_table(bytes, "t.csv", None)
}

#[test]
fn files_that_are_not_text_are_named() {
    let parquet = b"PAR1\x15\x04\x15\x10rest of a parquet file";
    for (bytes, kind) in [
        (
            &b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03abc"[..],
            "gzip-compressed",
        ),
        (&b"\x28\xb5\x2f\xfd\x04\x58abc"[..], "zstd-compressed"),
        (&b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"[..], "PNG image"),
        (&parquet[..], "Parquet file"),
        (&b"PK\x03\x04\x14\x00\x06\x00"[..], "Excel .xlsx"),
    ] {
        let e = read(bytes).unwrap_err().to_string();
        assert!(e.contains(kind), "{e}");
        assert!(!e.contains("line ending"), "{e}");
    }
    // Bytes of a fixed pseudo-random sequence (a linear congruential generator).
    let mut state = 12345u32;
    let random: Vec<u8> = (0..5000)
        .map(|_| {
            state = state.wrapping_mul(1_103_515_245).wrapping_add(12345);
            (state >> 16) as u8
        })
        .collect();
    let e = read(&random).unwrap_err().to_string();
    assert!(e.contains("binary data"), "{e}");
}

#[test]
fn excel_unicode_text_is_decoded() {
    let text = "name\tprice\r\ncafé\t1,5\r\nthé\t2\r\n";
    let mut bytes = vec![0xFF, 0xFE];
    bytes.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
    let t = read(&bytes).unwrap();
    assert_eq!(t.names(), ["name", "price"]);
    assert_eq!(t.column(0).get(0), "café");
    assert_eq!(t.column(1).get(1), "2");
}

#[test]
fn pipes_and_excel_separator_lines_split_columns() {
    let t = read(b"a|b|y\n1|2|3\n4|5|6\n").unwrap();
    assert_eq!(t.names(), ["a", "b", "y"]);
    let t = read(b"sep=;\r\na;b;y\r\n1,5;2;3\r\n4;5;6\r\n").unwrap();
    assert_eq!(t.names(), ["a", "b", "y"]);
    assert_eq!(t.column(0).get(0), "1,5");
    assert_eq!(
        (t.place(0).line(), t.place(1).line()),
        (Some(3), Some(4)),
        "the sep= line counts"
    );
    let e = read(b"SEP=,\na,b\n1,2,3\n").unwrap_err().to_string();
    assert!(e.contains("line 3 has 3 fields"), "{e}");
}

#[test]
fn trailing_delimiters_make_no_column() {
    for text in [
        "a,b,y,\n1,2,3,\n4,5,6,\n",
        "a,b,y\n1,2,3,\n4,5,6,\n",
        "a,b,y,,\n1,2,3,,\n4,5,6,,\n",
    ] {
        let t = read(text.as_bytes()).unwrap();
        assert_eq!(t.names(), ["a", "b", "y"], "{text:?}");
        assert_eq!(t.column(2).get(1), "6");
    }
    // A named last column, or one with a cell, stays; an empty unnamed one inside too.
    assert_eq!(read(b"a,b,\n1,2,\n3,4,x\n").unwrap().names().len(), 3);
    let t = read(b"a,,b,y,,\n1,,2,3,,\n4,,5,6,,\n").unwrap();
    assert_eq!(t.names(), ["a", "column_2", "b", "y"]);
    let e = read(b"a,b\n1,2,3\n").unwrap_err().to_string();
    assert!(
        e.contains("line 2 has 3 fields but the header has 2"),
        "{e}"
    );
}

#[test]
fn rows_keep_their_file_lines_through_a_selection() {
    let text = "a,y\n1,2\n\n\"two\nlines\",3\n5,1e39\n7,8\n";
    let t = read(text.as_bytes()).unwrap();
    assert_eq!(
        (0..4)
            .map(|r| t.place(r).line().unwrap())
            .collect::<Vec<_>>(),
        [2, 4, 6, 7]
    );
    let part = t.select_rows(&[3, 2]).unwrap();
    assert_eq!(
        (part.place(0), part.place(1)),
        (RowPlace::Line(7), RowPlace::Line(6))
    );
    assert_eq!(part.select_rows(&[1]).unwrap().place(0), RowPlace::Line(6));
    // A message about a row of the part names its line in the file.
    let e = infer_schema(&part, None, &TypeOverrides::default()).unwrap_err();
    assert!(
        matches!(
            e,
            Error::NumberTooLarge {
                place: RowPlace::Line(6),
                ..
            }
        ),
        "{e}"
    );
    // Without quoted breaks or blank lines, row r is on line r + 2.
    let plain = read(b"a,y\n1,2\n3,4\n").unwrap();
    assert_eq!(plain.select_rows(&[1]).unwrap().place(0), RowPlace::Line(3));
}

#[test]
fn long_cells_are_cut_in_messages() {
    let long = "9".repeat(1_000_000) + "x";
    let e = Error::BadNumber {
        source_name: "t.csv".into(),
        place: RowPlace::Line(2),
        column: "a".into(),
        value: long,
    }
    .to_string();
    assert!(e.len() < 200, "{} bytes", e.len());
    assert!(e.contains("(1000001 characters)"), "{e}");
}

/// A JSON array of records has no line per row: messages name the record's position.
#[test]
fn rows_of_files_without_lines_are_named_by_position() {
    let text = r#"[{"a": 1, "y": 2}, {"a": 2, "y": 3}, {"a": 3, "y": 1e39}]"#;
    let t = io::table::read_json_table(text.as_bytes(), "t.json").unwrap();
    assert_eq!(t.place(2), RowPlace::Row(3));
    assert_eq!(t.select_rows(&[2, 0]).unwrap().place(0), RowPlace::Row(3));
    let e = io::table::regression_targets(&t, "y").unwrap_err();
    assert!(
        matches!(
            e,
            Error::NumberTooLarge {
                place: RowPlace::Row(3),
                ..
            }
        ),
        "{e}"
    );
    assert!(e.to_string().contains("`t.json` row 3, column `y`"), "{e}");
    // JSON lines keep their lines.
    let lines =
        io::table::read_json_table("{\"y\": 1}\n\n{\"y\": 2}\n".as_bytes(), "t.jsonl").unwrap();
    assert_eq!(lines.place(1), RowPlace::Line(3));
}

#[test]
fn numbers_beyond_f32_are_too_large_wherever_they_are() {
    let t = read(b"a,y\n1,2\n\n2,1e39\n3,4\n").unwrap();
    let e = io::table::regression_targets(&t, "y").unwrap_err();
    assert!(
        matches!(&e, Error::NumberTooLarge { place: RowPlace::Line(4), column, .. } if column == "y"),
        "{e}"
    );
    assert!(
        e.to_string().contains("too large for a 32-bit float"),
        "{e}"
    );
    // A row outside the rows a schema was inferred on is checked before it is encoded.
    let part = t.select_rows(&[1]).unwrap();
    let e = part.refuse_too_large("y").unwrap_err();
    assert!(
        matches!(
            e,
            Error::NumberTooLarge {
                place: RowPlace::Line(4),
                ..
            }
        ),
        "{e}"
    );
    assert!(part.refuse_too_large("a").is_ok());
    assert!(io::table::too_large_for_f32("-1e39"));
    assert!(!io::table::too_large_for_f32("3e38"));
    assert!(!io::table::too_large_for_f32("1e39x"));
}

/// Text without quotes is split without the `csv` reader; a quoted header name sends the same
/// text through it: both read the same cells on the same lines, and refuse the same rows.
#[test]
fn text_without_quotes_reads_as_the_csv_reader_reads_it() {
    let bodies = [
        "1,x,\n2,y,\n",
        "1;x\r\n\r\n2;y\r\n",
        "1|x\r2|y\r\r3|z",
        " 7 , NA \n\n\n8,b\n",
        "1,é\n  \n2,ü",
    ];
    for body in bodies {
        let delimiter = [',', ';', '|']
            .into_iter()
            .find(|&d| body.contains(d))
            .unwrap();
        let end = if body.contains("\r\n") {
            "\r\n"
        } else if body.contains('\n') {
            "\n"
        } else {
            "\r"
        };
        let header = format!("n{delimiter}t");
        let plain = read(format!("{header}{end}{body}").as_bytes()).unwrap();
        let quoted = read(format!("\"n\"{delimiter}t{end}{body}").as_bytes()).unwrap();
        assert_eq!(plain, quoted, "{body:?}");
        let places = |t: &Table| (0..t.rows()).map(|r| t.place(r)).collect::<Vec<RowPlace>>();
        assert_eq!(places(&plain), places(&quoted), "{body:?}");
    }
    let ragged = "n,t\n1,x\n\n2,y,z\n";
    let quoted = ragged.replacen("n,", "\"n\",", 1);
    assert_eq!(
        read(ragged.as_bytes()).unwrap_err().to_string(),
        read(quoted.as_bytes()).unwrap_err().to_string()
    );
}
