//! The piecewise-linear encoding of numbers: edges at the training quantiles, values
//! against a reference computed by hand in f64, constant and few-valued columns, missing
//! cells, values beyond the training range, plain rows re-encoded, and the model file.

use io::table::{
    ColumnEncoder, ColumnInfo, ColumnKind, EncodeOptions, Preprocessor, Table, TypeOverrides,
    infer_schema, read_table,
};
use io::{FittedModel, ModelInfo};
use nn::{Activation, Mlp};
use tensor_cpu::CpuBackend;

fn read(text: &str) -> Table {
    read_table(text.as_bytes(), "t.csv", None).unwrap()
}

/// The encoding of `train` (target `y`), then piecewise in `bins` bins fitted on its rows.
fn fit(train: &Table, bins: usize) -> Preprocessor {
    let schema = infer_schema(train, Some("y"), &TypeOverrides::default()).unwrap();
    let plain = Preprocessor::fit(train, &schema, &EncodeOptions::default()).unwrap();
    plain
        .with_piecewise(&plain.transform(train).unwrap(), bins)
        .unwrap()
}

/// The encoding of `v` by the formula, in f64: `edges` in the column's units.
fn reference(v: f64, edges: &[f64]) -> Vec<f64> {
    let last = edges.len() - 2;
    (0..=last)
        .map(|t| {
            let e = (v - edges[t]) / (edges[t + 1] - edges[t]);
            let e = if t > 0 { e.max(0.0) } else { e };
            if t < last { e.min(1.0) } else { e }
        })
        .collect()
}

fn assert_near(got: &[f32], want: &[f64]) {
    assert_eq!(got.len(), want.len(), "{got:?} against {want:?}");
    for (g, w) in got.iter().zip(want) {
        assert!((f64::from(*g) - w).abs() < 1e-5, "{got:?} against {want:?}");
    }
}

/// Nine training values 0, 10, ..., 80 (one missing) in four bins: edges at 0, 20, 40, 60,
/// 80 in the column's units; new values inside, on an edge, missing (the median 40) and
/// beyond the training range on both sides.
#[test]
fn numbers_are_encoded_as_the_formula_says() {
    let mut text = String::from("a,y\n");
    for v in (0..=80).step_by(10) {
        text += &format!("{v},1\n");
    }
    text += "NA,2\n";
    let p = fit(&read(&text), 4);
    assert_eq!(
        p.output_names(),
        ["a_bin1", "a_bin2", "a_bin3", "a_bin4", "a_missing"]
    );
    let edges = [0.0, 20.0, 40.0, 60.0, 80.0];
    let new = [
        Some(5.0),
        Some(40.0),
        Some(79.0),
        None,
        Some(-30.0),
        Some(200.0),
    ];
    let mut rows = String::from("a,y\n");
    for v in new {
        rows += &v.map_or("?".into(), |v: f64| v.to_string());
        rows += ",1\n";
    }
    let x = p.transform(&read(&rows)).unwrap();
    for (row, v) in x.chunks(5).zip(new) {
        assert_near(&row[..4], &reference(v.unwrap_or(40.0), &edges));
        assert_eq!(row[4], f32::from(u8::from(v.is_none())));
    }
    // Below the range the first bin goes negative; above it the last passes 1.
    assert!(x[4 * 5] < -1.4 && x[5 * 5 + 3] > 6.9, "{x:?}");
    assert!(
        p.columns[0]
            .describe()
            .contains("piecewise-linear in 4 bins")
    );
}

/// Two distinct values give one bin, a constant column none (it stays standardised), text
/// and yes/no columns are left alone; the plain rows re-encode to the table's own.
#[test]
fn few_values_give_fewer_bins_and_other_columns_stay() {
    let mut text = String::from("two,flat,c,ok,y\n");
    for i in 0..12 {
        let c = ["red", "blue"][i % 2];
        text += &format!("{},7,{c},{},{i}\n", [1, 3][i % 3 / 2], ["yes", "no"][i % 2]);
    }
    let train = read(&text);
    let schema = infer_schema(&train, Some("y"), &TypeOverrides::default()).unwrap();
    // A constant column is ignored when typed; as a number (the training part of a split
    // can be constant) it has no bins. Two distinct numbers would read as yes/no.
    let columns: Vec<ColumnInfo> = schema
        .into_iter()
        .map(|mut c| {
            if c.name == "flat" || c.name == "two" {
                c.kind = ColumnKind::Number;
            }
            c
        })
        .collect();
    let plain = Preprocessor::fit(&train, &columns, &EncodeOptions::default()).unwrap();
    let plain_rows = plain.transform(&train).unwrap();
    let p = plain.with_piecewise(&plain_rows, 16).unwrap();
    let names = p.output_names();
    assert!(names.contains(&"two_bin1".to_string()), "{names:?}");
    assert!(!names.contains(&"two_bin2".to_string()), "{names:?}");
    assert!(names.contains(&"c=red".to_string()) && names.contains(&"ok".to_string()));
    assert_eq!(names[1], "flat", "{names:?}");
    let x = p.transform(&train).unwrap();
    assert_eq!(p.piecewise_rows(&plain_rows).unwrap(), x);
    // Every plain column is read back from the piecewise rows.
    let map = p.plain_columns();
    let (w, pw) = (p.width(), plain.width());
    assert_eq!(map.len(), pw);
    for (row, plain_row) in x.chunks(w).zip(plain_rows.chunks(pw)) {
        for (m, want) in map.iter().zip(plain_row) {
            let got = m.offset + m.terms.iter().map(|&(j, k)| k * row[j]).sum::<f32>();
            assert!((got - want).abs() < 1e-5, "{got} against {want}");
        }
    }
    assert!(p.with_piecewise(&x, 4).is_err());
    assert!(plain.with_piecewise(&plain_rows[1..], 4).is_err());
    assert_eq!(p.plain(), plain);
}

/// The edges travel in the model file: a network on piecewise inputs predicts the same
/// raw rows after a save and a load, and the stored encoding is the fitted one.
#[test]
fn the_model_file_keeps_the_edges() {
    let mut text = String::from("a,b,y\n");
    for i in 0..40 {
        text += &format!("{},{},{}\n", (i * 7) % 23, i % 5, i % 3);
    }
    let p = fit(&read(&text), 8);
    let ColumnEncoder::Number {
        piecewise: Some(bins),
        ..
    } = &p.columns[0]
    else {
        panic!("{:?}", p.columns[0])
    };
    assert_eq!(bins.bins(), 8);
    let cpu = CpuBackend::new();
    let net = Mlp::builder()
        .input(p.width())
        .hidden(&[6], Activation::Tanh)
        .output(1, Activation::Identity)
        .build(&cpu, 5)
        .unwrap();
    let info = ModelInfo::regression(&p.output_names(), &["y".to_string()]);
    let model = FittedModel::new(net, info.with_preprocessing(p.clone())).unwrap();
    let new = read("b,a\n2,-4\n,30\n3,\n");
    let before = model.predict_table(&new).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.safetensors");
    model.save(&path).unwrap();
    let back = FittedModel::load(&path, &cpu).unwrap();
    assert_eq!(back.info().preprocessing.as_ref(), Some(&p));
    assert_eq!(back.predict_table(&new).unwrap().values, before.values);
}
