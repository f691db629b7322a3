//! The fitted encoding of tables: statistics from the training rows only, unknown and
//! missing levels, bounded width, targets as words, and the model file round trip.

use io::table::{
    ColumnEncoder, EncodeOptions, Preprocessor, Table, TypeOverrides, class_indices, class_labels,
    infer_schema, looks_categorical, read_table, regression_targets, rows_with_target,
};
use io::{FittedModel, ModelInfo};
use nn::{Activation, Mlp};
use tensor_cpu::CpuBackend;

fn read(text: &str) -> Table {
    read_table(text.as_bytes(), "t.csv", None).unwrap()
}

fn fit(table: &Table, target: &str, options: EncodeOptions) -> Preprocessor {
    let schema = infer_schema(table, Some(target), &TypeOverrides::default()).unwrap();
    Preprocessor::fit(table, &schema, &options).unwrap()
}

const ONE: EncodeOptions = EncodeOptions {
    min_count: 1,
    max_levels: 64,
};

#[test]
fn numbers_use_training_median_mean_and_deviation() {
    let train = read("a,y\n1,0\n2,0\nNA,0\n10,0\n");
    let p = fit(&train, "y", ONE);
    assert_eq!(p.output_names(), ["a", "a_missing"]);
    // Median of 1, 2, 10 is 2; the filled column 1, 2, 2, 10 has mean 3.75.
    let ColumnEncoder::Number { scaling, .. } = &p.columns[0] else {
        panic!()
    };
    assert_eq!((scaling.fill, scaling.mean), (2.0, 3.75));
    let var: f64 = [1.0f64, 2.0, 2.0, 10.0]
        .iter()
        .map(|v| (v - 3.75).powi(2))
        .sum::<f64>()
        / 4.0;
    assert!((f64::from(scaling.std) - var.sqrt()).abs() < 1e-6);
    // New rows are encoded with the training statistics, not their own.
    let x = p.transform(&read("a,y\n3.75,0\n?,0\n")).unwrap();
    assert_eq!(x[0..2], [0.0, 0.0]);
    assert!(
        (x[2] - (2.0 - 3.75) / scaling.std).abs() < 1e-6 && x[3] == 1.0,
        "{x:?}"
    );
}

#[test]
fn categories_pool_rare_unknown_and_missing_levels() {
    let mut text = String::from("c,y\n");
    for (level, n) in [("a", 6), ("b", 5), ("rare", 2), ("NA", 1)] {
        (0..n).for_each(|_| text += &format!("{level},1\n"));
    }
    let p = fit(&read(&text), "y", EncodeOptions::default());
    assert_eq!(p.output_names(), ["c=a", "c=b", "c=other", "c=missing"]);
    let x = p
        .transform(&read("c,y\nb,1\nrare,1\nnever seen,1\n,1\n"))
        .unwrap();
    assert_eq!(
        x,
        [
            0., 1., 0., 0., 0., 0., 1., 0., 0., 0., 1., 0., 0., 0., 0., 1.
        ]
    );
    // Nothing pooled in training: an unknown level is a row of zeros, never an error.
    let p = fit(&read("c,y\nx,1\ny,1\n"), "y", ONE);
    assert_eq!(p.output_names(), ["c=x", "c=y"]);
    assert_eq!(p.transform(&read("c,y\nz,1\n")).unwrap(), [0.0, 0.0]);
}

/// A level called `other` (or `missing`) keeps its name; the pooled column is named apart,
/// so that no two encoded columns share a name.
#[test]
fn a_level_named_other_does_not_collide_with_the_pooled_column() {
    let mut text = String::from("c,y\n");
    for (level, n) in [("other", 6), ("b", 5), ("rare", 2), ("", 1)] {
        (0..n).for_each(|_| text += &format!("{level},1\n"));
    }
    let p = fit(&read(&text), "y", EncodeOptions::default());
    assert_eq!(
        p.output_names(),
        ["c=other", "c=b", "c=other*", "c=missing"]
    );
}

#[test]
fn many_levels_stay_within_the_cap() {
    let mut text = String::from("title,y\n");
    for r in 0..20_000 {
        // A few common titles and thousands of one-off ones.
        let title = if r % 2 == 0 {
            format!("common{}", r % 10)
        } else {
            format!("title {r}")
        };
        text += &format!("{title},{}\n", r % 3);
    }
    let table = read(&text);
    let p = fit(
        &table,
        "y",
        EncodeOptions {
            min_count: 5,
            max_levels: 3,
        },
    );
    assert_eq!(p.width(), 4, "{:?}", p.output_names());
    assert_eq!(p.output_names()[3], "title=other");
    let x = p.transform(&table).unwrap();
    assert_eq!(x.len(), 20_000 * 4);
    assert!(x.chunks_exact(4).all(|r| r.iter().sum::<f32>() == 1.0));
}

#[test]
fn dates_and_yes_no_encode_as_numbers() {
    let train = read("d,ok,y\n2024-01-01,yes,1\n2024-01-02,no,1\n2024-01-06,,1\n");
    let p = fit(&train, "y", ONE);
    assert_eq!(
        p.output_names(),
        ["d_year", "d_month", "d_weekday", "ok", "ok_missing"]
    );
    let x = p.transform(&train).unwrap();
    // Yes = 1, no = 0, missing = the share of yes (1/2) with its indicator.
    assert_eq!(
        [x[3], x[4], x[8], x[9], x[13], x[14]],
        [1.0, 0.0, 0.0, 0.0, 0.5, 1.0]
    );
    // The year is constant: standardised to 0 with a unit deviation.
    assert_eq!([x[0], x[5], x[10]], [0.0, 0.0, 0.0]);
}

#[test]
fn columns_match_by_name_and_a_missing_one_is_named() {
    let p = fit(&read("a,b,y\n1,x,0\n2,z,1\n"), "y", ONE);
    let one = p.transform(&read("a,b\n2,z\n")).unwrap();
    let other = p.transform(&read("extra,b,a\n9,z,2\n")).unwrap();
    assert_eq!(one, other);
    let e = p.transform(&read("b,y\nx,1\n")).unwrap_err().to_string();
    assert!(e.contains("no column `a`"), "{e}");
}

#[test]
fn every_column_ignored_is_an_error() {
    let t = read("id,c,y\n1,k,1\n2,k,2\n");
    let o = TypeOverrides {
        ignore: vec!["id".into()],
        ..TypeOverrides::default()
    };
    let schema = infer_schema(&t, Some("y"), &o).unwrap();
    let e = Preprocessor::fit(&t, &schema, &ONE)
        .unwrap_err()
        .to_string();
    assert!(e.contains("every feature column is ignored"), "{e}");
    // Each column says why it is left out.
    assert!(e.ends_with("`id` ignored; `c` constant"), "{e}");
}

#[test]
fn targets_as_people_write_them() {
    let t = read("x,label,v\n1,good,1.5\n2,bad,NA\n3,good,2\n4,,3\n5,fair,x\n");
    let label = t.column(1);
    assert!(looks_categorical(label));
    assert!(
        !looks_categorical(read("y\n1\n2.5\n3\n4\n5\n").column(0)),
        "five distinct numbers, not all whole"
    );
    assert!(
        !looks_categorical(t.column(0)),
        "whole numbers 1 to 5 counting up, one row each: no class has two rows"
    );
    assert!(
        looks_categorical(read("y\n1\n2\n3\n3\n1\n2\n").column(0)),
        "whole numbers 1 to 3 counting up, two rows each: codes"
    );
    assert!(
        looks_categorical(read("y\n1\n0\n1\n").column(0)),
        "two distinct numbers"
    );
    let (keep, dropped) = rows_with_target(&t, "label").unwrap();
    assert_eq!((keep, dropped), (vec![0, 1, 2, 4], 1));
    let labels = class_labels(&t, "label").unwrap();
    assert_eq!(labels, ["bad", "fair", "good"]);
    assert_eq!(
        class_indices(label, &labels),
        [Some(2), Some(0), Some(2), None, Some(1)]
    );
    // Numeric labels are ordered by value and written in shortest form.
    let n = read("y\n10\n9\n1.0\n9\n");
    assert_eq!(class_labels(&n, "y").unwrap(), ["1", "9", "10"]);
    // Integers an f32 cannot tell apart (2^24 and 2^24 + 1) stay two classes.
    let big = read("y\n16777217\n16777216\n16777218\n16777217\n");
    let labels = class_labels(&big, "y").unwrap();
    assert_eq!(labels, ["16777216", "16777217", "16777218"]);
    assert_eq!(
        class_indices(big.column(0), &labels),
        [Some(1), Some(0), Some(2), Some(1)]
    );
    let e = class_labels(&read("y\nyes\nyes\n"), "y")
        .unwrap_err()
        .to_string();
    assert!(e.contains("single class"), "{e}");
    let e = regression_targets(&t, "v").unwrap_err().to_string();
    assert!(e.contains("holds text") && e.contains("`NA`"), "{e}");
    let e = rows_with_target(&read("a,y\n1,\n2,NA\n"), "y")
        .unwrap_err()
        .to_string();
    assert!(e.contains("missing in every row"), "{e}");
}

/// A classifier on words, saved and loaded: the preprocessing and the class words come
/// back, and raw tables give the same answers before and after.
#[test]
fn fitted_models_keep_the_encoding_and_the_words() {
    let train =
        read("size,colour,species\n1,red,Adelie\n5,blue,Gentoo\n3,red,Adelie\n9,blue,Chinstrap\n");
    let p = fit(&train, "species", ONE);
    let labels = class_labels(&train, "species").unwrap();
    let cpu = CpuBackend::new();
    let net = Mlp::builder()
        .input(p.width())
        .hidden(&[4], Activation::Tanh)
        .output(3, Activation::Identity)
        .build(&cpu, 3)
        .unwrap();
    let info = ModelInfo::classification_labels(&p.output_names(), "species", labels)
        .with_preprocessing(p.clone());
    let model = FittedModel::new(net, info).unwrap();
    assert_eq!(model.feature_names(), ["size", "colour"]);
    let new = read("colour,size,id\nblue,4,a\nviolet,,b\n");
    let before = model.predict_table(&new).unwrap();
    assert_eq!(
        before.columns,
        [
            "probability_Adelie",
            "probability_Chinstrap",
            "probability_Gentoo"
        ]
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.safetensors");
    model.save(&path).unwrap();
    let back = FittedModel::load(&path, &cpu).unwrap();
    assert_eq!(back.info().preprocessing.as_ref(), Some(&p));
    let after = back.predict_table(&new).unwrap();
    assert_eq!(after.values, before.values);
    let words: Vec<String> = (0..2).map(|r| after.label_text(r).unwrap()).collect();
    assert!(
        words
            .iter()
            .all(|w| ["Adelie", "Chinstrap", "Gentoo"].contains(&w.as_str()))
    );
    let mut csv = Vec::new();
    after.write_csv(&mut csv, None).unwrap();
    let csv = String::from_utf8(csv).unwrap();
    assert!(csv.starts_with("prediction,probability_Adelie,"), "{csv}");
    assert!(csv.lines().nth(1).unwrap().starts_with(&words[0]), "{csv}");
    // Raw rows as numbers (NaN missing) reach the same encoding: `colour` cannot be a
    // number, so it reads as an unknown level.
    let numbers = back.predict(&[4.0, f32::NAN]).unwrap();
    let table = back.predict_table(&read("size,colour\n4,\n")).unwrap();
    assert_eq!(numbers.values, table.values);
}

/// A table of more rows than `PREDICT_ROWS` is encoded and predicted in chunks: the values are
/// those of each row predicted on its own, in order.
#[test]
fn large_tables_are_predicted_in_chunks_with_the_same_values() {
    let rows = 2 * io::fitted::PREDICT_ROWS + 77;
    let mut text = String::from("size,colour,price\n");
    for r in 0..rows {
        let colour = ["red", "blue", "green", ""][r % 4];
        text.push_str(&format!("{},{colour},{}\n", r % 97, r % 13));
    }
    let table = read(&text);
    let p = fit(&table, "price", ONE);
    let cpu = CpuBackend::new();
    let net = Mlp::builder()
        .input(p.width())
        .hidden(&[8], Activation::Tanh)
        .output(1, Activation::Identity)
        .build(&cpu, 5)
        .unwrap();
    let info =
        ModelInfo::regression(&p.output_names(), &["price".to_string()]).with_preprocessing(p);
    let model = FittedModel::new(net, info).unwrap();
    let whole = model.table_outputs(&table).unwrap();
    assert_eq!(whole.len(), rows);
    for r in [
        0,
        1,
        io::fitted::PREDICT_ROWS - 1,
        io::fitted::PREDICT_ROWS,
        rows - 1,
    ] {
        let one = model
            .table_outputs(&table.select_rows(&[r]).unwrap())
            .unwrap();
        // One row and a chunk of 4,096 take different product kernels (a plain loop, the
        // skinny kernel), whose sums may round differently: a misplaced row differs by far
        // more than this bound, relative to max(1, |value|).
        let bound = 1e-5 * whole[r].abs().max(1.0);
        assert!(
            (one[0] - whole[r]).abs() <= bound,
            "row {r}: {} vs {}",
            one[0],
            whole[r]
        );
    }
}

#[test]
fn the_columns_of_categories_of_many_levels_are_found() {
    let mut text = String::from("n,few,many,y\n");
    for i in 0..12 {
        let few = ["p", "q"][i % 2];
        let many = if i == 11 {
            String::new()
        } else {
            format!("L{}", i % 5)
        };
        text += &format!("{i},{few},{many},1\n");
    }
    let p = fit(&read(&text), "y", ONE);
    let names = p.output_names();
    // n; few=p, few=q; many=L0..L4 and many=missing.
    assert_eq!(names.len(), 1 + 2 + 6, "{names:?}");
    let over = p.columns_of_categories_over(2);
    let picked: Vec<&str> = over.iter().map(|&i| names[i].as_str()).collect();
    assert_eq!(
        picked,
        [
            "many=L0",
            "many=L1",
            "many=L2",
            "many=L3",
            "many=L4",
            "many=missing"
        ]
    );
    assert_eq!(p.columns_of_categories_over(1).len(), 8);
    assert!(p.columns_of_categories_over(5).is_empty());
}
