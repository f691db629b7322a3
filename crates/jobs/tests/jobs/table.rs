//! A table file prepared for training: splits, encoding, and the rows as tensors.

use jobs::table::{TableOptions, prepare};
use nn::Data;
use tensor_cpu::CpuBackend;

fn write_csv(dir: &std::path::Path, rows: &[(f32, &str, &str)]) -> std::path::PathBuf {
    let mut text = String::from("size,colour,label\n");
    for (size, colour, label) in rows {
        text += &format!("{size},{colour},{label}\n");
    }
    let path = dir.join("t.csv");
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn classes_become_indices_and_the_rows_tensors_of_the_right_shapes() {
    let dir = tempfile::tempdir().unwrap();
    let rows: Vec<(f32, &str, &str)> = (0..40)
        .map(|i| {
            let label = ["cat", "dog", "eel"][i % 3];
            (i as f32, if i % 2 == 0 { "red" } else { "blue" }, label)
        })
        .collect();
    let options = TableOptions {
        data: write_csv(dir.path(), &rows),
        test_fraction: 0.25,
        val_fraction: 0.2,
        ..TableOptions::default()
    };
    let p = prepare(&options, None).unwrap();
    assert!(p.classify);
    assert_eq!(p.labels.as_deref().unwrap(), ["cat", "dog", "eel"]);
    assert_eq!((p.classes(), p.outputs()), (3, 3));
    assert_eq!(p.test.as_ref().unwrap().rows, 10);
    let val = p.val.as_ref().unwrap();
    assert_eq!(p.train.rows + val.rows, 30);
    let t = p.tensors(&CpuBackend::new()).unwrap();
    assert_eq!(t.train.0.dims(), [p.train.rows, p.train.n_features]);
    // One-hot targets: each row sums to one, in the column of its class.
    let y = t.train.1.to_vec().unwrap();
    assert_eq!(t.train.1.dims(), [p.train.rows, 3]);
    for (r, row) in y.chunks(3).enumerate() {
        assert_eq!(row[p.train.y[r] as usize], 1.0);
        assert_eq!(row.iter().sum::<f32>(), 1.0);
    }
    assert!(t.targets.is_none());
    let data: Data<'_, CpuBackend> = t.train_data();
    assert_eq!(data.x.dims()[0], p.train.rows);
    assert_eq!(t.val_data().unwrap().x.dims()[0], val.rows);
    assert_eq!(p.schema.target, "label");
    assert_eq!(p.schema.columns.len(), 2);
}

#[test]
fn a_regression_target_is_standardised_and_a_constant_one_refused() {
    let dir = tempfile::tempdir().unwrap();
    // Sizes that do not count the rows (a counter would be an identifier, ignored).
    let rows: Vec<(f32, &str, &str)> = (0..20).map(|i| ((i * 7 % 20) as f32, "red", "5")).collect();
    let options = TableOptions {
        data: write_csv(dir.path(), &rows),
        test_fraction: 0.2,
        ..TableOptions::default()
    };
    let p = prepare(&options, Some(false)).unwrap();
    let e = p.refuse_unlearnable().unwrap_err().to_string();
    assert!(e.contains("`label` is constant"), "{e}");
}

#[test]
fn a_test_fraction_of_zero_trains_on_every_row_and_tests_on_none() {
    let dir = tempfile::tempdir().unwrap();
    let rows: Vec<(f32, &str, &str)> = (0..20)
        .map(|i| ((i * 7 % 20) as f32, "red", ["1", "4"][i % 2]))
        .collect();
    let options = TableOptions {
        data: write_csv(dir.path(), &rows),
        test_fraction: 0.0,
        ..TableOptions::default()
    };
    let p = prepare(&options, Some(false)).unwrap();
    assert_eq!((p.train.rows, p.test_table.rows()), (20, 0));
    assert!(p.test.is_none());
    // Every row's target is there: ten 1s and ten 4s.
    let mut y = p.train.y.clone();
    y.sort_by(f32::total_cmp);
    assert_eq!(y, [[1.0; 10], [4.0; 10]].concat());
}
