//! The training/test split of a classification table keeps every class in the training
//! part, with the same seed giving the same split; rows keep their file lines.

use io::table::{Table, read_table};
use jobs::table::{TableOptions, prepare, split_rows, split_rows_by_class};

/// 30 rows of two classes alternating, then one row of a third class on file line 32.
fn table() -> Table {
    let mut text = String::from("a,b,c\n");
    for i in 0..30 {
        text += &format!("{i},{},{}\n", i % 7, if i % 2 == 1 { "x" } else { "z" });
    }
    text += "0.1,3,lonely\n";
    read_table(text.as_bytes(), "t.csv", None).unwrap()
}

fn labels(t: &Table) -> Vec<String> {
    t.column(2).iter().map(str::to_string).collect()
}

#[test]
fn every_class_stays_in_the_training_part() {
    let t = table();
    for seed in 0..40 {
        let (kept, held) = split_rows_by_class(&t, "c", 0.2, seed).unwrap();
        assert_eq!(held.rows(), 6, "round(31 * 0.2)");
        assert_eq!(kept.rows() + held.rows(), 31);
        assert!(labels(&kept).iter().any(|l| l == "lonely"), "seed {seed}");
        // 15 of each of x and z: 3 held of each.
        let held_x = labels(&held).iter().filter(|l| *l == "x").count();
        assert_eq!(held_x, 3, "seed {seed}");
        // Same seed, same split; the parts in file order.
        let again = split_rows_by_class(&t, "c", 0.2, seed).unwrap();
        assert_eq!(labels(&again.1), labels(&held));
        let lines: Vec<u64> = (0..held.rows())
            .filter_map(|r| held.place(r).line())
            .collect();
        assert_eq!(lines.len(), held.rows());
        assert!(lines.windows(2).all(|w| w[0] < w[1]), "{lines:?}");
    }
    // The random split holds the single row out for some seeds.
    let lost = (0..40).any(|seed| {
        let (kept, _) = split_rows(&t, 0.2, seed).unwrap();
        !labels(&kept).iter().any(|l| l == "lonely")
    });
    assert!(
        lost,
        "the unstratified split should lose the lonely class for some seed"
    );
}

#[test]
fn a_class_of_one_row_does_not_refuse_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let t = table();
    let path = dir.path().join("t.csv");
    let mut text = String::from("a,b,c\n");
    for r in 0..t.rows() {
        let cells: Vec<&str> = (0..3).map(|c| t.column(c).get(r)).collect();
        text += &(cells.join(",") + "\n");
    }
    std::fs::write(&path, text).unwrap();
    for seed in [2, 6, 12] {
        let options = TableOptions {
            data: path.clone(),
            seed,
            ..TableOptions::split(&path, 0.2, 0.2)
        };
        let prepared = prepare(&options, None).unwrap();
        assert!(prepared.labels.unwrap().contains(&"lonely".to_string()));
        assert_eq!(prepared.test.as_ref().unwrap().rows, 6);
    }
}
