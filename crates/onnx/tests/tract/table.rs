//! Models trained on tables with text, yes/no, date and missing cells: the whole pipeline
//! (one input per raw column, the preprocessing, the network, `label` and `probabilities`)
//! run in tract on raw rows, against `FittedModel::predict_table` on the same rows, with
//! unknown levels, missing cells of every kind and the columns in another order.

use super::{floats, graph_labels, predicted_labels};
use io::fitted::{FittedModel, ModelInfo};
use io::table::{
    ColumnEncoder, DateTime, EncodeOptions, Preprocessor, Table, TypeOverrides, infer_schema,
    read_table,
};
use nn::{Activation, Mlp};
use tensor_cpu::CpuBackend;
use tract_onnx::prelude::*;

/// 48 training rows: a number with gaps, a yes/no column with a gap, a category with a rare
/// level and missing cells, a date-time column, a plain number, and the target.
fn training_csv(target: &str) -> String {
    let mut text = format!("size,garden,colour,listed,rooms,{target}\n");
    let colours = ["red", "blue", "green", "NA", "red", "blue"];
    for i in 0..48 {
        let size = if i % 7 == 3 {
            "?".to_string()
        } else {
            format!("{}", 40 + (i * 13) % 90)
        };
        let garden = ["yes", "No", "TRUE", "n", ""][i % 5];
        let colour = if i == 11 { "purple" } else { colours[i % 6] };
        let listed = format!(
            "20{:02}-{:02}-{:02}T{:02}:30",
            10 + i % 13,
            1 + i % 12,
            1 + (i * 5) % 28,
            (i * 7) % 24
        );
        let label = ["cheap", "fair", "dear"][(i * 5 + i / 7) % 3];
        text += &format!("{size},{garden},{colour},{listed},{},{label}\n", 1 + i % 6);
    }
    text
}

/// Rows to predict, columns in another order plus an unused one: unknown levels, every
/// missing spelling, a yes/no word in upper case, an infinite size, dates across
/// 1970 and on leap days.
pub(super) const NEW_ROWS: &str = "\
rooms,note,listed,colour,garden,size
3,a,2024-02-29T23:00,red,YES,55
1,b,1969-12-31T00:00,blue,f,
6,c,2000-03-01T12:15,violet,maybe,1e3
2,d,,N/A,,NaN
4,e,1900-01-01T01:00,none,T,inf
5,f,2099-12-31T13:00,Green,0,-20
0,g,1999-02-28T05:00,green,y,.
7,h,2012-07-15T08:00,purple,NO,120
";

pub(super) fn fitted(target: &str, classes: bool) -> (FittedModel<CpuBackend>, Table) {
    fitted_with(target, classes, None)
}

/// [`fitted`], its numbers piecewise-linear in at most `bins` bins when given.
pub(super) fn fitted_with(
    target: &str,
    classes: bool,
    bins: Option<usize>,
) -> (FittedModel<CpuBackend>, Table) {
    let table = read_table(training_csv(target).as_bytes(), "train.csv", None).unwrap();
    let schema = infer_schema(&table, Some(target), &TypeOverrides::default()).unwrap();
    let options = EncodeOptions {
        min_count: 2,
        ..EncodeOptions::default()
    };
    let mut p = Preprocessor::fit(&table, &schema, &options).unwrap();
    if let Some(bins) = bins {
        p = p
            .with_piecewise(&p.transform(&table).unwrap(), bins)
            .unwrap();
    }
    let kinds: Vec<&str> = p
        .columns
        .iter()
        .map(|c| match c {
            ColumnEncoder::Number { .. } => "number",
            ColumnEncoder::YesNo { .. } => "yes/no",
            ColumnEncoder::Category { .. } => "category",
            ColumnEncoder::Date { .. } => "date",
        })
        .collect();
    assert_eq!(kinds, ["number", "yes/no", "category", "date", "number"]);
    let names = p.output_names();
    let outputs = if classes { 3 } else { 1 };
    let network = Mlp::builder()
        .input(names.len())
        .hidden(&[16, 16], Activation::Tanh)
        .output(outputs, Activation::Identity)
        .build(&CpuBackend::new(), 11)
        .unwrap();
    let info = if classes {
        let labels = ["cheap", "dear", "fair"].map(String::from).to_vec();
        ModelInfo::classification_labels(&names, target, labels)
    } else {
        ModelInfo::regression(&names, &[target.to_string()]).with_targets(io::Standardizer {
            mean: vec![300.0],
            std: vec![120.0],
        })
    };
    let model = FittedModel::new(network, info.with_preprocessing(p)).unwrap();
    let new = read_table(NEW_ROWS.as_bytes(), "new.csv", None).unwrap();
    (model, new)
}

/// The graph's inputs for the rows of `table`, in the model's column order, as the module
/// docs of `onnx::table` ask: numbers as float (NaN when not a number), dates as float64
/// seconds (NaN when not a date), text as it is.
pub(super) fn inputs_for(model: &FittedModel<CpuBackend>, table: &Table) -> Vec<Tensor> {
    let p = model.info().preprocessing.as_ref().unwrap();
    let rows = table.rows();
    p.columns
        .iter()
        .map(|c| {
            let column = table.column_named(c.column()).unwrap();
            match c {
                ColumnEncoder::Number { .. } => {
                    let v: Vec<f32> = column
                        .iter()
                        .map(|s| io::table::number_f32(s).unwrap_or(f32::NAN))
                        .collect();
                    tract_ndarray::Array2::from_shape_vec((rows, 1), v)
                        .unwrap()
                        .into_tensor()
                }
                ColumnEncoder::Date { order, .. } => {
                    let seconds = |s: &str| {
                        DateTime::parse_in(s, *order).map_or(f64::NAN, |d| d.seconds_since_epoch())
                    };
                    let v: Vec<f64> = column.iter().map(seconds).collect();
                    tract_ndarray::Array2::from_shape_vec((rows, 1), v)
                        .unwrap()
                        .into_tensor()
                }
                _ => {
                    let v: Vec<String> = column.iter().map(str::to_string).collect();
                    tract_ndarray::Array2::from_shape_vec((rows, 1), v)
                        .unwrap()
                        .into_tensor()
                }
            }
        })
        .collect()
}

/// Runs the exported graph in tract on `inputs`; returns every output.
pub(super) fn run(bytes: &[u8], inputs: Vec<Tensor>) -> TVec<TValue> {
    let mut model = tract_onnx::onnx()
        .model_for_read(&mut &bytes[..])
        .expect("tract reads the file");
    for (i, t) in inputs.iter().enumerate() {
        let fact = InferenceFact::dt_shape(t.datum_type(), t.shape());
        model = model.with_input_fact(i, fact).unwrap();
    }
    let runnable = model
        .into_optimized()
        .expect("tract optimises the graph")
        .into_runnable()
        .unwrap();
    runnable
        .run(inputs.into_iter().map(TValue::from).collect())
        .expect("tract runs the graph")
}

pub(super) fn assert_close(name: &str, got: &[f32], want: &[f32]) {
    assert_eq!(got.len(), want.len(), "{name}: lengths");
    for (i, (a, b)) in got.iter().zip(want).enumerate() {
        let tol = 1e-5 * b.abs().max(1.0);
        assert!((a - b).abs() <= tol, "{name}[{i}]: ONNX {a}, predict {b}");
    }
}

#[test]
fn classifier_of_a_raw_table_gives_the_labels_and_probabilities_of_predict() {
    let (model, new) = fitted("price_band", true);
    let ours = model.predict_table(&new).unwrap();
    let bytes = onnx::export(&model).unwrap();
    let out = run(&bytes, inputs_for(&model, &new));
    let (labels, want) = (graph_labels(&out[0]), predicted_labels(&ours));
    assert_eq!(labels, want);
    let probabilities = out[1].to_array_view::<f32>().unwrap();
    assert_eq!(probabilities.shape(), [new.rows(), 3]);
    let got: Vec<f32> = probabilities.iter().copied().collect();
    assert_close("probabilities", &got, &ours.values);
    // The encoded rows differ: unknown, missing and known levels do not all read alike.
    let encoded = model.encode_table(&new).unwrap();
    let width = encoded.len() / new.rows();
    assert_ne!(encoded[2 * width..3 * width], encoded[3 * width..4 * width]);
}

#[test]
fn regression_of_a_raw_table_in_user_units() {
    let (model, new) = fitted("price", false);
    let ours = model.predict_table(&new).unwrap();
    let bytes = onnx::export(&model).unwrap();
    let out = run(&bytes, inputs_for(&model, &new));
    assert_eq!(out.len(), 1, "a regression has no label output");
    let got: Vec<f32> = floats(&out[0]);
    assert_close("prediction", &got, &ours.values);
}

/// The preprocessing of `model` alone, on `new`: the graph of a network that passes its
/// inputs through (identity weights) outputs the encoded rows. Returns the graph's rows, the
/// preprocessor's own, and the encoded columns' names.
pub fn encoded_by_graph(
    model: &FittedModel<CpuBackend>,
    new: &io::table::Table,
) -> (Vec<f32>, Vec<f32>, Vec<String>) {
    let p = model.info().preprocessing.clone().unwrap();
    let width = p.width();
    let mut network = Mlp::builder()
        .input(width)
        .output(width, Activation::Identity)
        .build(&CpuBackend::new(), 1)
        .unwrap();
    let mut state = network.export_state().unwrap();
    for a in &mut state {
        a.data.iter_mut().for_each(|v| *v = 0.0);
        if a.name.ends_with("weight") {
            (0..width).for_each(|i| a.data[i * width + i] = 1.0);
        }
    }
    network.import_state(&state).unwrap();
    let names = p.output_names();
    let info = ModelInfo::regression(&names, &names).with_preprocessing(p.clone());
    let identity = FittedModel::new(network, info).unwrap();
    let out = run(
        &onnx::export(&identity).unwrap(),
        inputs_for(&identity, new),
    );
    let got: Vec<f32> = floats(&out[0]);
    (got, p.transform(new).unwrap(), names)
}

/// The preprocessing alone: a network that passes its inputs through (identity weights)
/// makes the graph's output the encoded row, compared value by value with `transform`.
#[test]
fn encoded_columns_equal_the_preprocessors_own_output() {
    let (model, new) = fitted("price", false);
    let (got, want, names) = encoded_by_graph(&model, &new);
    let width = names.len();
    assert_eq!(got.len(), want.len());
    for (i, (a, b)) in got.iter().zip(&want).enumerate() {
        assert!(
            (a - b).abs() <= 1e-6 * b.abs().max(1.0),
            "row {} column `{}`: ONNX {a}, Preprocessor {b}",
            i / width,
            names[i % width]
        );
    }
}

#[test]
fn inputs_are_named_and_typed_by_column() {
    let (model, _) = fitted("price_band", true);
    let proto = onnx::to_model_proto(&model).unwrap();
    let graph = proto.graph.as_ref().unwrap();
    let inputs: Vec<(&str, i32)> = graph
        .input
        .iter()
        .map(|v| {
            let t = v.r#type.as_ref().unwrap().tensor_type.as_ref().unwrap();
            (v.name.as_str(), t.elem_type)
        })
        .collect();
    use onnx::proto::{DOUBLE, FLOAT, STRING};
    assert_eq!(
        inputs,
        [
            ("size", FLOAT),
            ("garden", STRING),
            ("colour", STRING),
            ("listed", DOUBLE),
            ("rooms", FLOAT)
        ]
    );
    let outputs: Vec<&str> = graph.output.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(outputs, ["label", "probabilities"]);
    let meta = |k: &str| {
        proto
            .metadata_props
            .iter()
            .find(|p| p.key == k)
            .map(|p| p.value.clone())
    };
    assert_eq!(
        meta("input_types").as_deref(),
        Some(concat!(
            r#"[{"name":"size","type":"float32"},{"name":"garden","type":"string"},"#,
            r#"{"name":"colour","type":"string"},{"name":"listed","type":"float64"},"#,
            r#"{"name":"rooms","type":"float32"}]"#
        ))
    );
    assert!(proto.opset_import.iter().any(|o| o.domain == "ai.onnx.ml"));
}

/// A column named like an output of the graph is refused in one line naming it.
#[test]
fn a_column_named_like_an_output_is_refused() {
    let text = "label,colour,y\n1,red,a\n2,blue,b\n3,red,a\n4,blue,b\n5,red,b\n6,NA,a\n";
    let table = read_table(text.as_bytes(), "t.csv", None).unwrap();
    let schema = infer_schema(&table, Some("y"), &TypeOverrides::default()).unwrap();
    let options = EncodeOptions {
        min_count: 1,
        ..EncodeOptions::default()
    };
    let p = Preprocessor::fit(&table, &schema, &options).unwrap();
    let names = p.output_names();
    let network = Mlp::builder()
        .input(names.len())
        .output(1, Activation::Identity)
        .build(&CpuBackend::new(), 3)
        .unwrap();
    let info = ModelInfo::classification_labels(&names, "y", vec!["a".into(), "b".into()]);
    let model = FittedModel::new(network, info.with_preprocessing(p)).unwrap();
    let err = onnx::export(&model).unwrap_err().to_string();
    assert!(err.contains("`label`") && !err.contains('\n'), "{err}");
}

/// A table of numbers only, with word labels such as `sp_050`, fitted as the table job
/// fits it: a plain standardisation and no preprocessing.
pub(super) fn fitted_numeric() -> FittedModel<CpuBackend> {
    let mut text = String::from("a,b,c,species\n");
    for i in 0..60 {
        let label = ["sp_007", "sp_050", "sp_123"][(i * 7 + i / 5) % 3];
        text += &format!("{},{},{}.5,{label}\n", i % 11, (i * 13) % 17, i % 4);
    }
    let table = read_table(text.as_bytes(), "train.csv", None).unwrap();
    let schema = infer_schema(&table, Some("species"), &TypeOverrides::default()).unwrap();
    let p = Preprocessor::fit(&table, &schema, &EncodeOptions::default()).unwrap();
    let scaler = p.as_standardizer().expect("numbers without gaps");
    let names = p.output_names();
    let network = Mlp::builder()
        .input(names.len())
        .hidden(&[12], Activation::Tanh)
        .output(3, Activation::Identity)
        .build(&CpuBackend::new(), 5)
        .unwrap();
    let labels = ["sp_007", "sp_050", "sp_123"].map(String::from).to_vec();
    let info = ModelInfo::classification_labels(&names, "species", labels).with_features(scaler);
    FittedModel::new(network, info).unwrap()
}

/// Rows for [`fitted_numeric`], columns in another order plus an unused one.
pub(super) const NEW_NUMBERS: &str = "c,note,b,a\n0.5,x,3,4\n3.5,y,16,0\n2.5,z,-4,10\n1.5,w,8,7\n";

/// The model of a table of numbers takes its columns by name and gives the word labels of
/// `predict`, not the indices of the classes.
#[test]
fn classifier_of_a_numeric_table_gives_the_word_labels_of_predict() {
    let model = fitted_numeric();
    assert!(model.info().preprocessing.is_none());
    let new = read_table(NEW_NUMBERS.as_bytes(), "new.csv", None).unwrap();
    let ours = model.predict_table(&new).unwrap();
    let bytes = onnx::export(&model).unwrap();
    let proto = onnx::to_model_proto(&model).unwrap();
    let graph = proto.graph.as_ref().unwrap();
    let inputs: Vec<&str> = graph.input.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(inputs, ["a", "b", "c"]);
    let columns: Vec<Tensor> = inputs
        .iter()
        .map(|name| {
            let v: Vec<f32> = new
                .column_named(name)
                .unwrap()
                .iter()
                .map(|s| io::table::number_f32(s).unwrap())
                .collect();
            tract_ndarray::Array2::from_shape_vec((new.rows(), 1), v)
                .unwrap()
                .into_tensor()
        })
        .collect();
    let out = run(&bytes, columns);
    let (labels, want) = (graph_labels(&out[0]), predicted_labels(&ours));
    assert!(want.iter().all(|w| w.starts_with("sp_")), "{want:?}");
    assert_eq!(labels, want);
    let got: Vec<f32> = floats(&out[1]);
    assert_close("probabilities", &got, &ours.values);
    let meta = proto
        .metadata_props
        .iter()
        .find(|p| p.key == "class_labels");
    assert_eq!(meta.unwrap().value, r#"["sp_007","sp_050","sp_123"]"#);
}

#[test]
fn a_network_with_learned_input_factors_gives_the_values_of_predict() {
    let (plain, new) = fitted("price", false);
    let inputs = plain.network().input_dim();
    let mut network = Mlp::builder()
        .input(inputs)
        .input_scale(true)
        .hidden(&[16, 16], Activation::Tanh)
        .output(1, Activation::Identity)
        .build(&CpuBackend::new(), 11)
        .unwrap();
    let mut state = network.export_state().unwrap();
    let factors = state
        .iter_mut()
        .find(|a| a.name == nn::model::mlp::INPUT_SCALE)
        .unwrap();
    factors.data = (0..inputs).map(|i| 0.5 + 0.3 * i as f32).collect();
    network.import_state(&state).unwrap();
    let model = FittedModel::new(network, plain.info().clone()).unwrap();
    let ours = model.predict_table(&new).unwrap();
    // The factors change the predictions, so that an export that dropped them would differ.
    let unscaled = plain.predict_table(&new).unwrap();
    assert!(
        ours.values
            .iter()
            .zip(&unscaled.values)
            .any(|(a, b)| (a - b).abs() > 1e-3)
    );
    let out = run(&onnx::export(&model).unwrap(), inputs_for(&model, &new));
    let got: Vec<f32> = out[0]
        .to_array_view::<f32>()
        .unwrap()
        .iter()
        .copied()
        .collect();
    assert_close("values", &got, &ours.values);
}
