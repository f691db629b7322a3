//! Column types decided on the whole table: numbers as people write them, a few stray cells
//! in a number or date column, codes with leading zeros, and the number format kept in the
//! fitted encoding.

use io::table::{
    ColumnEncoder, ColumnInfo, ColumnKind, DateField, DateOrder, EncodeOptions, NumberFormat,
    Preprocessor, Table, TaskGuess, TypeOverrides, guess_task, infer_schema, read_table,
    regression_targets, regression_targets_as, rows_with_number_target, target_number_format,
};

fn read(text: &str) -> Table {
    read_table(text.as_bytes(), "t.csv", None).unwrap()
}

fn schema(table: &Table) -> Vec<ColumnInfo> {
    infer_schema(table, Some("y"), &TypeOverrides::default()).unwrap()
}

fn column<'a>(schema: &'a [ColumnInfo], name: &str) -> &'a ColumnInfo {
    schema.iter().find(|c| c.name == name).unwrap()
}

/// The values the encoding reads from column `name` of `table` (its only column), before
/// standardisation: `x * std + mean`, `None` for a missing cell.
fn values(table: &Table, name: &str) -> Vec<Option<f64>> {
    let s = schema(table);
    let used: Vec<ColumnInfo> = s.into_iter().filter(|c| c.name == name).collect();
    let p = Preprocessor::fit(table, &used, &EncodeOptions::default()).unwrap();
    let ColumnEncoder::Number {
        scaling, indicator, ..
    } = p.columns[0].clone()
    else {
        panic!("{:?}", p.columns[0])
    };
    let x = p.transform(table).unwrap();
    let width = p.width();
    x.chunks(width)
        .map(|row| {
            let missing = indicator && row[1] == 1.0;
            let v = f64::from(row[0]) * f64::from(scaling.std) + f64::from(scaling.mean);
            (!missing).then_some(v)
        })
        .collect()
}

fn close(a: &[Option<f64>], b: &[Option<f64>]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(a, b)| match (a, b) {
            (Some(a), Some(b)) => (a - b).abs() <= 1e-3 * b.abs().max(1.0),
            (None, None) => true,
            _ => false,
        })
}

#[test]
fn thousands_separators_currency_and_parentheses_are_numbers() {
    let text = "amount,y\n\"1,234,567.89\",1\n\"$1,234.56\",0\n(12.50),1\n\"-3,000\",0\n17,1\n";
    let t = read(text);
    let s = schema(&t);
    let amount = column(&s, "amount");
    assert_eq!(amount.kind, ColumnKind::Number, "{amount:?}");
    assert_eq!(amount.format.group, Some(','));
    assert!(amount.format.currency && amount.format.parentheses);
    assert_eq!(amount.format.example(), "$1,234.56");
    let want = [1_234_567.89, 1234.56, -12.5, -3000.0, 17.0].map(Some);
    let got = values(&t, "amount");
    assert!(close(&got, &want), "{got:?}");
}

#[test]
fn decimal_commas_european_groups_percent_and_codes() {
    let text = "a;b;c;d;y\n12,5;1.234.567,89;45.2%;1 234 EUR;1\n3,25;1.234;7%;€12;0\n\
                -0,5;12,5;100%;5 000 EUR;1\n";
    let t = read(text);
    let s = schema(&t);
    for name in ["a", "b", "c", "d"] {
        assert_eq!(column(&s, name).kind, ColumnKind::Number, "{name}");
    }
    assert_eq!(column(&s, "b").format.decimal, ',');
    assert_eq!(column(&s, "b").format.group, Some('.'));
    assert!(
        column(&s, "c")
            .format
            .describe()
            .contains("45.2% read as 45.2")
    );
    let cases = [
        ("a", [12.5, 3.25, -0.5]),
        ("b", [1_234_567.89, 1234.0, 12.5]),
        ("c", [45.2, 7.0, 100.0]),
        ("d", [1234.0, 12.0, 5000.0]),
    ];
    for (name, want) in cases {
        let got = values(&t, name);
        assert!(close(&got, &want.map(Some)), "{name}: {got:?}");
    }
}

#[test]
fn an_ambiguous_comma_follows_the_tables_decimal_comma() {
    // `b` alone reads `1,234` as a thousand and 234; beside `a`, which writes a decimal
    // comma, it is 1.234.
    let alone = read("b,y\n\"1,234\",1\n\"2,500\",0\n\"7,125\",1\n");
    assert_eq!(schema(&alone)[0].format.group, Some(','));
    assert!(close(
        &values(&alone, "b"),
        &[1234.0, 2500.0, 7125.0].map(Some)
    ));
    let beside = read("a;b;y\n1,5;1,234;1\n2,25;2,500;0\n3,5;7,125;1\n");
    let s = schema(&beside);
    assert_eq!(column(&s, "b").format.decimal, ',');
    assert!(close(&values(&beside, "b"), &[1.234, 2.5, 7.125].map(Some)));
}

#[test]
fn a_tenth_of_words_keeps_a_number_column_and_names_them() {
    let mut text = String::from("income,y\n");
    for r in 0..300 {
        let cell = match r % 10 {
            0 => "unknown".to_string(),
            5 if r % 20 == 5 => "n.a.".to_string(),
            _ => format!("{}.{}", 20_000 + r * 37, r % 10),
        };
        text += &format!("{cell},{}\n", r % 2);
    }
    let t = read(&text);
    let s = schema(&t);
    let income = column(&s, "income");
    assert_eq!(income.kind, ColumnKind::Number);
    assert_eq!(income.missing, 45);
    assert!(
        income
            .note
            .contains("45 cells not numbers (`n.a.`, `unknown`), read as missing"),
        "{}",
        income.note
    );
    // Half numbers of many values, one word: still a number, never a category of decimals.
    let mut text = String::from("v,y\n");
    (0..60).for_each(|r| text += &format!("{},0\n", if r % 2 == 0 { "?x" } else { "1.5" }));
    (0..40).for_each(|r| text += &format!("{r}.25,1\n"));
    let s = schema(&read(&text));
    assert_eq!(s[0].kind, ColumnKind::Number, "{:?}", s[0]);
}

#[test]
fn one_impossible_date_keeps_a_date_column() {
    let mut text = String::from("day,y\n");
    for r in 0..300 {
        let day = if r == 150 {
            "2021-02-30".to_string()
        } else {
            format!("2021-{:02}-{:02}", r % 12 + 1, r % 28 + 1)
        };
        text += &format!("{day},{}\n", r % 2);
    }
    let s = schema(&read(&text));
    assert_eq!(
        s[0].kind,
        ColumnKind::Date {
            time: false,
            order: DateOrder::YearFirst
        }
    );
    assert_eq!(s[0].missing, 1);
    assert!(
        s[0].note.contains("1 cell not dates (`2021-02-30`)"),
        "{}",
        s[0].note
    );
}

/// The month each row's date encodes in a table of one date column `day` (and `y`).
fn months(table: &Table) -> Vec<Option<f64>> {
    let used: Vec<ColumnInfo> = schema(table)
        .into_iter()
        .filter(|c| c.name == "day")
        .collect();
    let p = Preprocessor::fit(table, &used, &EncodeOptions::default()).unwrap();
    let ColumnEncoder::Date {
        parts, indicator, ..
    } = p.columns[0].clone()
    else {
        panic!("{:?}", p.columns[0])
    };
    let k = parts
        .iter()
        .position(|(f, _)| *f == DateField::Month)
        .unwrap();
    let scaling = parts[k].1;
    let x = p.transform(table).unwrap();
    x.chunks(p.width())
        .map(|row| {
            let missing = indicator && row[parts.len()] == 1.0;
            let v = f64::from(row[k]) * f64::from(scaling.std) + f64::from(scaling.mean);
            (!missing).then(|| v.round())
        })
        .collect()
}

/// A table of one date column written by `write(month, day)` on 60 rows (days 1 to 28).
fn dated(write: impl Fn(u32, u32) -> String) -> (Table, Vec<Option<f64>>) {
    let mut text = String::from("day,y\n");
    let mut truth = Vec::new();
    for r in 0..60u32 {
        let (month, day) = (r % 12 + 1, (r * 7) % 28 + 1);
        text += &format!("{},{}\n", write(month, day), r % 2);
        truth.push(Some(f64::from(month)));
    }
    (read(&text), truth)
}

#[test]
fn dates_whose_year_comes_last_are_read_in_the_column_s_order() {
    type Writer = fn(u32, u32) -> String;
    let cases: [(&str, Writer, DateOrder); 5] = [
        (
            "month first",
            |m, d| format!("{m}/{d}/2023"),
            DateOrder::MonthFirst,
        ),
        (
            "day first",
            |m, d| format!("{d:02}/{m:02}/2023"),
            DateOrder::DayFirst,
        ),
        (
            "dotted",
            |m, d| format!("{d}.{m}.2023"),
            DateOrder::DayFirst,
        ),
        (
            "dashed",
            |m, d| format!("{d:02}-{m:02}-2023 14:30"),
            DateOrder::DayFirst,
        ),
        (
            "year first, slashed",
            |m, d| format!("2023/{m:02}/{d:02}"),
            DateOrder::YearFirst,
        ),
    ];
    for (what, write, order) in cases {
        let (t, truth) = dated(write);
        let s = schema(&t);
        let time = what == "dashed";
        assert_eq!(
            s[0].kind,
            ColumnKind::Date { time, order },
            "{what}: {:?}",
            s[0]
        );
        assert_eq!(s[0].missing, 0, "{what}: {:?}", s[0]);
        assert_eq!(months(&t), truth, "{what}");
    }
    // Every day at most 12: nothing tells the orders apart but the separator.
    let (slashed, _) = dated(|m, d| format!("{:02}/{:02}/2023", m, d % 12 + 1));
    let kind = schema(&slashed)[0].kind;
    assert_eq!(
        kind,
        ColumnKind::Date {
            time: false,
            order: DateOrder::MonthFirst
        }
    );
    let (dotted, _) = dated(|m, d| format!("{:02}.{:02}.2023", d % 12 + 1, m));
    let kind = schema(&dotted)[0].kind;
    assert_eq!(
        kind,
        ColumnKind::Date {
            time: false,
            order: DateOrder::DayFirst
        }
    );
    // A two-digit year is not read as a date, and the column says why.
    let (short, _) = dated(|m, d| format!("{m}/{d}/23"));
    let s = schema(&short);
    assert!(!s[0].kind.is_date(), "{:?}", s[0]);
    assert!(
        s[0].note
            .contains("dates with two-digit years are not read as dates"),
        "{:?}",
        s[0]
    );
}

#[test]
fn codes_with_leading_zeros_are_categories() {
    let mut text = String::from("zip,n,y\n");
    for r in 0..40 {
        let zip = if r % 3 == 0 {
            "02134"
        } else {
            ["10001", "94110"][r % 2]
        };
        text += &format!("{zip},{},1\n", r % 7);
    }
    let s = schema(&read(&text));
    assert_eq!(column(&s, "zip").kind, ColumnKind::Category);
    assert_eq!(column(&s, "n").kind, ColumnKind::Number);
    // A stray word does not turn the codes into numbers.
    let s = schema(&read(&text.replacen("02134", "unknown", 1)));
    assert_eq!(column(&s, "zip").kind, ColumnKind::Category);
}

/// A target whose cells all read either way (`2,184`: 2.184 or 2184) takes the comma as
/// decimal where another column writes one, as the feature columns do; and a part of the
/// table (a split) reads its targets in the whole table's format, whatever its own cells.
#[test]
fn a_target_reads_its_commas_as_the_table_does() {
    let text = "a;y\n1,5;1,127\n0,25;2,184\n-3,75;-2,609\n2;0,500\n";
    let t = read(text);
    let format = target_number_format(&t, "y").unwrap();
    assert_eq!((format.decimal, format.group), (',', None), "{format:?}");
    let y = regression_targets(&t, "y").unwrap();
    assert_eq!(y, [1.127, 2.184, -2.609, 0.5]);
    // The same cells alone, in a table whose other column writes whole numbers, read either
    // way: the part still reads them as the whole table did.
    let part = read("a;y\n1;2,184\n2;1,127\n");
    assert_eq!(
        regression_targets_as(&part, "y", &format).unwrap(),
        [2.184, 1.127]
    );
}

/// IPv4 addresses whose groups all have three digits are not numbers grouped by points
/// (`192.168.100.200` is not 192,168,100,200); round billions so written still are.
#[test]
fn ip_addresses_are_not_numbers() {
    let mut text = String::from("ip,amount,y\n");
    for r in 0..30 {
        let ip = format!("{}.{}.{}.{}", 100 + r, 168, 100 + 3 * r, 250 - r);
        text += &format!("{ip},{}.000.000,{}\n", r + 1, r % 2);
    }
    let s = schema(&read(&text));
    assert_ne!(
        column(&s, "ip").kind,
        ColumnKind::Number,
        "{:?}",
        column(&s, "ip")
    );
    let amount = column(&s, "amount");
    assert_eq!(amount.kind, ColumnKind::Number, "{amount:?}");
    assert_eq!(amount.format.group, Some('.'));
}

#[test]
fn the_number_format_is_kept_in_the_encoding() {
    let t = read("p,y\n\"$1,200.50\",1\n\"$300\",0\n\"$2,000\",1\n");
    let s = schema(&t);
    let p = Preprocessor::fit(&t, &s, &EncodeOptions::default()).unwrap();
    let json = serde_json::to_string(&p).unwrap();
    assert!(json.contains("\"group\":\",\""), "{json}");
    let back: Preprocessor = serde_json::from_str(&json).unwrap();
    assert_eq!(back, p);
    // New rows in the same writing read as the training rows did.
    let x = back.transform(&read("p,y\n\"$300\",0\n")).unwrap();
    assert_eq!(x, p.transform(&read("p,y\n300,0\n")).unwrap());
    // A plain column stores no format: model files read as before.
    let plain = read("p,y\n1.5,1\n2,0\n");
    let p = Preprocessor::fit(&plain, &schema(&plain), &EncodeOptions::default()).unwrap();
    assert!(!serde_json::to_string(&p).unwrap().contains("format"));
    assert!(NumberFormat::default().is_plain());
}

#[test]
fn a_few_stray_words_leave_a_regression_target() {
    let mut text = String::from("y\n");
    (0..300).for_each(|r| text += &format!("{}.99\n", 100 + r));
    text += "unknown\n";
    let t = read(&text);
    let guess = guess_task(t.column(0));
    assert_eq!(
        guess,
        TaskGuess {
            classify: false,
            note: None
        }
    );
    let (keep, dropped) = rows_with_number_target(&t, "y").unwrap();
    assert_eq!((keep.len(), dropped), (300, vec!["unknown".to_string()]));
    // Words in more than 5% of the cells: classes.
    let words = read("y\n1.5\n2.5\n3.5\nlow\nhigh\n");
    assert!(guess_task(words.column(0)).classify);
}

#[test]
fn a_handful_of_whole_number_codes_are_classes_with_a_note() {
    let t = read("y\n0\n1\n2\n1\n0\n2\n");
    let guess = guess_task(t.column(0));
    assert!(guess.classify);
    let note = guess.note.unwrap();
    assert!(note.contains("3 whole-number codes (0, 1, 2)"), "{note}");
    assert!(
        !note.contains("--"),
        "a library note names no option: {note}"
    );
    let spread = guess_task(read("y\n10\n20\n30\n20\n").column(0));
    assert!(!spread.classify);
    assert!(spread.note.unwrap().contains("3 distinct whole numbers"));
}

#[test]
fn new_rows_say_what_could_not_be_read() {
    let train = read("age,when,y\n30,2020-01-02,1\n40,2020-02-03,0\n50,2021-03-04,1\n");
    let p = Preprocessor::fit(&train, &schema(&train), &EncodeOptions::default()).unwrap();
    let new = read("age,when,y\n35,2020-01-02,1\nold,2020-02-30,0\n?,2021-03-04,1\nyoung,,1\n");
    let notes = p.read_notes(&new).unwrap();
    let shown: Vec<String> = notes.iter().map(ToString::to_string).collect();
    assert_eq!(
        shown,
        [
            "age: 2 of 4 cells are not numbers (`old`, `young`), read as missing",
            "when: 1 of 4 cells is not a date like 2024-03-15 (`2020-02-30`), read as missing",
        ]
    );
    // The unreadable cells are encoded as missing ones.
    let x = p.transform(&new).unwrap();
    let missing = p.transform(&read("age,when,y\n?,?,1\n")).unwrap();
    assert_eq!(x[p.width()..p.width() + 2], missing[..2]);
    let all_text = read("age,when,y\nold,2020-01-02,1\nyoung,2020-01-02,0\n?,2020-01-02,0\n");
    match p.read_notes(&all_text).unwrap_err() {
        io::Error::UnreadableColumn { column, note, .. } => {
            assert_eq!(column, "age");
            assert!(note.starts_with("2 of 3 cells are not numbers"), "{note}");
        }
        e => panic!("{e}"),
    }
}

#[test]
fn new_rows_with_dates_in_another_order_are_refused() {
    // Trained on dates written month first (15 March cannot be read day first).
    let (train, _) = dated(|m, d| format!("{m}/{d}/2023"));
    let p = Preprocessor::fit(&train, &schema(&train), &EncodeOptions::default()).unwrap();
    let refused = |text: &str| match p.read_notes(&read(text)).unwrap_err() {
        io::Error::DatesInAnotherOrder {
            column,
            trained,
            found,
            ..
        } => (column, trained, found),
        e => panic!("{e}"),
    };
    // Day first: 7 January would be read as 1 July without the refusal.
    let (column, trained, found) = refused("day,y\n07.01.2019,1\n19.08.2021,0\n");
    assert_eq!(column, "day");
    assert_eq!(trained, DateOrder::MonthFirst);
    assert_eq!(found, DateOrder::DayFirst);
    // The model's own order, and dates both orders read alike, are read.
    assert!(
        p.read_notes(&read("day,y\n7/1/2019,1\n12/31/2021,0\n"))
            .unwrap()
            .is_empty()
    );
    assert!(
        p.read_notes(&read("day,y\n07.01.2019,1\n"))
            .unwrap()
            .is_empty()
    );
    // A model of year-first dates names the order it reads.
    let iso = read("day,y\n2020-01-02,1\n2020-02-03,0\n2021-03-04,1\n");
    let p = Preprocessor::fit(&iso, &schema(&iso), &EncodeOptions::default()).unwrap();
    let e = p
        .read_notes(&read("day,y\n1/21/2019,1\n"))
        .unwrap_err()
        .to_string();
    assert!(
        e.ends_with("has dates written month first (03/15/2024), but the model reads them written year first (2024-03-15); write them so"),
        "{e}"
    );
}

#[test]
fn new_rows_say_which_levels_of_a_category_are_new() {
    let mut text = String::from("colour,y\n");
    // Six rows of each level: enough for each to have a column of its own.
    for i in 0..18 {
        text += &format!("{},{}\n", ["red", "blue", "green"][i % 3], i % 2);
    }
    let train = read(&text);
    let p = Preprocessor::fit(&train, &schema(&train), &EncodeOptions::default()).unwrap();
    let new = read("colour,y\nred,1\nRED,0\npurple,1\n,0\nblue,1\n");
    let shown: Vec<String> = p
        .read_notes(&new)
        .unwrap()
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        shown,
        [
            "colour: 2 of 5 cells are not levels seen in training (`RED`, `purple`), read as none of its levels"
        ]
    );
    // A new level has no column of its own: its row is all zeros, as the note says.
    let x = p.transform(&read("colour,y\npurple,1\n")).unwrap();
    assert!(x[..p.width()].iter().all(|&v| v == 0.0), "{x:?}");
    // Every level new: a note still, not an error (categories meet new levels).
    let notes = p.read_notes(&read("colour,y\nteal,1\nteal,0\n")).unwrap();
    assert_eq!(notes.len(), 1);
    assert_eq!((notes[0].unreadable, notes[0].rows), (2, 2));
}

#[test]
fn values_given_as_numbers_skip_the_number_format() {
    let t = read("a;y\n1.234,5;1\n2.000,25;0\n12,5;1\n");
    let p = Preprocessor::fit(&t, &schema(&t), &EncodeOptions::default()).unwrap();
    assert_eq!(p.columns.len(), 1);
    let from_values = p.transform_values(&[1234.5, 12.5]).unwrap();
    let from_text = p.transform(&read("a;y\n1.234,5;1\n12,5;1\n")).unwrap();
    assert_eq!(from_values, from_text);
}

/// Row ids that do not start at 0 or 1, or come in another order (a slice, a shuffled or
/// filtered table), are identifiers in a column named as ids; a rising number column of
/// another name (a year) and repeated ids (groups) stay numbers.
#[test]
fn row_ids_from_any_start_in_an_id_column_are_identifiers() {
    let mut text = String::from("id,customer_id,Unnamed: 0,year,group_id,y\n");
    for r in 0..60u64 {
        let shuffled = (r * 37) % 60;
        text += &format!(
            "{},{},{},{},{},{}\n",
            5001 + r,
            900 + shuffled * 3,
            10 + r,
            1950 + r,
            r / 3,
            r % 7
        );
    }
    let t = read(&text);
    let s = schema(&t);
    for name in ["id", "customer_id", "Unnamed: 0"] {
        assert_eq!(column(&s, name).kind, ColumnKind::Identifier, "{name}");
        assert!(column(&s, name).note.contains("row ids"), "{name}");
    }
    assert_eq!(column(&s, "year").kind, ColumnKind::Number);
    assert_eq!(column(&s, "group_id").kind, ColumnKind::Number);
    for (name, id) in [
        ("id", true),
        ("Row_ID", true),
        ("order-id", true),
        ("index", true),
        ("rownames", true),
        ("row.names", true),
        ("idea", false),
        ("names", false),
        ("paid", false),
        ("width", false),
    ] {
        assert_eq!(io::table::is_id_name(name), id, "{name}");
    }
}
