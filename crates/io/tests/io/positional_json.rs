//! Rows to predict in the positional JSON format (`{m, n, x, ...}`) for a model whose
//! training dropped a column (a constant): the file's `n` columns are read by position and
//! the dropped ones skipped; a model of other columns is refused saying why.

use io::fitted::load_inputs;

fn names(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

#[test]
fn positional_rows_skip_the_columns_training_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("data.json");
    // Four columns, x2 constant (dropped in training): the model reads x0, x1 and x3.
    std::fs::write(&json, r#"{"m":2,"n":4,"x":[1,2,9,3, 4,5,9,6],"y":[0,1]}"#).unwrap();
    let rows = load_inputs(&json, &names(&["x0", "x1", "x3"])).unwrap();
    assert_eq!(rows.rows, 2);
    assert_eq!(rows.x, [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    assert_eq!(rows.ignored, ["x2"]);

    // The same count as the model: read by position, whatever the names.
    let rows = load_inputs(&json, &names(&["a", "b", "c", "d"])).unwrap();
    assert_eq!(rows.x, [1.0, 2.0, 9.0, 3.0, 4.0, 5.0, 9.0, 6.0]);

    // Columns that are not positions of this file: refused, naming the model's columns.
    for model in [names(&["x0", "x7"]), names(&["size", "age"])] {
        let e = load_inputs(&json, &model).unwrap_err().to_string();
        assert!(
            e.contains("`n` is 4") && e.contains(&model.join(", ")) && e.contains("positional"),
            "{e}"
        );
    }
}
