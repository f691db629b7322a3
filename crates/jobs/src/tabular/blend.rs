//! The mean of two networks of the same widths, one on plain inputs and one with a
//! positional (periodic) encoding that keeps the input, or with no encoding and the same
//! inputs, as ONE [`Mlp`]: the encoding of the second, hidden layers side by side
//! (block-diagonal weights; the first network reads only the raw-input part of the
//! encoding, which comes first), and an output layer that averages the two. So the blend is
//! saved, predicted and exported like any network. A network on plain rows reads
//! piecewise-linear rows unchanged once its first layer is rewritten for them ([`widen`]).

use crate::{Error, Result};
use io::table::PlainColumn;
use nn::model::mlp::ENCODING_FREQUENCIES;
use nn::{DenseLayer, EncodingConfig, Mlp};
use tensor_core::Backend;

/// Places `w` at row `r0`, column `c0` of `out`, times `k`.
fn place(out: &mut DenseLayer, w: &DenseLayer, (r0, c0): (usize, usize), k: f32) {
    for r in 0..w.inputs {
        let row = &mut out.row_mut(r0 + r)[c0..c0 + w.outputs];
        row.iter_mut().zip(w.row(r)).for_each(|(o, &v)| *o = k * v);
    }
}

/// One network computing `(plain(x) + periodic(x)) / 2`. `plain` has no encoding; `periodic`
/// a positional encoding with the input kept; both the same hidden layers and output, and
/// no input factors ([`Mlp::fold_input_scale`] first).
pub fn blend<B: Backend>(
    backend: &B,
    plain: &Mlp<B>,
    periodic: &Mlp<B>,
    seed: u64,
) -> Result<Mlp<B>> {
    let (ca, cb) = (plain.config(), periodic.config());
    let keeps_input = matches!(
        cb.encoding,
        EncodingConfig::None
            | EncodingConfig::Positional {
                include_input: true,
                ..
            }
    );
    if ca.encoding != EncodingConfig::None
        || ca.input_scale
        || cb.input_scale
        || !keeps_input
        || ca.input != cb.input
        || ca.hidden != cb.hidden
        || ca.output != cb.output
        || ca.hidden.is_empty()
    {
        return Err(Error::refused(
            "a blend needs a plain network and a periodic or plain one of the same widths, \
             their input factors folded",
        ));
    }
    let mut config = cb.clone();
    config.hidden = cb.hidden.iter().map(|h| 2 * h).collect();
    config.learned_frequencies = false;
    let mut net = Mlp::from_config(backend, &config, seed)?;
    let (la, lb) = (plain.dense_layers()?, periodic.dense_layers()?);
    let mut layers = net.dense_layers()?;
    if layers.len() != la.len() || la.len() != lb.len() {
        return Err(Error::refused("the blend has too few layers"));
    }
    let last = la.len() - 1;
    for (i, (layer, (a, b))) in layers.iter_mut().zip(la.iter().zip(&lb)).enumerate() {
        *layer = DenseLayer::zeros(layer.inputs, layer.outputs);
        if i == last {
            // The output averages the two networks.
            place(layer, a, (0, 0), 0.5);
            place(layer, b, (a.inputs, 0), 0.5);
            layer.bias = a
                .bias
                .iter()
                .zip(&b.bias)
                .map(|(x, y)| 0.5 * (x + y))
                .collect();
        } else {
            // The first layer of the plain network reads the raw input, the first rows of
            // the encoding; deeper layers are block-diagonal.
            let below = if i == 0 { 0 } else { a.inputs };
            place(layer, a, (0, 0), 1.0);
            place(layer, b, (below, a.outputs), 1.0);
            layer.bias = a.bias.iter().chain(&b.bias).copied().collect();
        }
    }
    net.set_dense_layers(&layers)?;
    // The encoding is the second network's, as trained.
    let frequencies = periodic
        .export_state()?
        .into_iter()
        .find(|a| a.name == ENCODING_FREQUENCIES);
    if let Some(f) = frequencies {
        let mut state = net.export_state()?;
        if let Some(slot) = state.iter_mut().find(|a| a.name == ENCODING_FREQUENCIES) {
            *slot = f;
        }
        net.import_state(&state)?;
    }
    Ok(net)
}

/// `net` (no encoding, no input factors) rewritten to read rows of a piecewise-linear
/// encoding: input `i` of `net` is `columns[i]` of those rows
/// ([`io::table::Preprocessor::plain_columns`]), so its first layer's row `i` spreads over
/// the bins with their widths and its offset moves into the bias. The outputs are the same
/// up to rounding.
pub fn widen<B: Backend>(
    backend: &B,
    net: &Mlp<B>,
    columns: &[PlainColumn],
    width: usize,
) -> Result<Mlp<B>> {
    let config = net.config();
    if config.encoding != EncodingConfig::None
        || config.input_scale
        || config.input != columns.len()
    {
        return Err(Error::refused(format!(
            "a network of {} plain inputs (input factors folded) cannot read {} columns",
            config.input,
            columns.len()
        )));
    }
    if columns
        .iter()
        .flat_map(|c| &c.terms)
        .any(|&(j, _)| j >= width)
    {
        return Err(Error::refused(format!(
            "a plain column reads beyond {width} encoded columns"
        )));
    }
    let mut config = config.clone();
    config.input = width;
    let mut out = Mlp::from_config(backend, &config, 0)?;
    let mut layers = net.dense_layers()?;
    let Some(first) = layers.first_mut() else {
        return Err(Error::refused("a network without a dense layer"));
    };
    let mut wide = DenseLayer::zeros(width, first.outputs);
    wide.bias = first.bias.clone();
    for (i, column) in columns.iter().enumerate() {
        let row = first.row(i);
        for (bias, &v) in wide.bias.iter_mut().zip(row) {
            *bias += column.offset * v;
        }
        for &(j, k) in &column.terms {
            let target = wide.row_mut(j);
            target.iter_mut().zip(row).for_each(|(t, &v)| *t += k * v);
        }
    }
    *first = wide;
    out.set_dense_layers(&layers)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use nn::Activation;
    use tensor_core::Tensor;
    use tensor_cpu::CpuBackend;

    /// The blend's outputs are the mean of the two networks' on the same rows.
    #[test]
    fn the_blend_is_the_mean_of_the_two_networks() {
        let cpu = CpuBackend::new();
        let a = Mlp::builder()
            .input(3)
            .hidden(&[5, 4], Activation::Relu)
            .output(2, Activation::Identity)
            .build(&cpu, 1)
            .unwrap();
        let mut b = Mlp::builder()
            .input(3)
            .positional_encoding(2, true)
            .learned_frequencies(true)
            .hidden(&[5, 4], Activation::Relu)
            .output(2, Activation::Identity)
            .build(&cpu, 2)
            .unwrap();
        // Frequencies as training leaves them: not the octaves the configuration starts from.
        let mut state = b.export_state().unwrap();
        let f = state
            .iter_mut()
            .find(|a| a.name == ENCODING_FREQUENCIES)
            .unwrap();
        f.data.iter_mut().for_each(|v| *v *= 1.3);
        b.import_state(&state).unwrap();
        let rows: Vec<f32> = (0..18).map(|i| ((i * 7) % 11) as f32 / 5.0 - 1.0).collect();
        let x = Tensor::from_slice(&cpu, &rows, [6, 3]).unwrap();
        let ya = a.predict(&x).unwrap().to_vec().unwrap();
        let yb = b.predict(&x).unwrap().to_vec().unwrap();
        let both = blend(&cpu, &a, &b, 0).unwrap();
        let y = both.predict(&x).unwrap().to_vec().unwrap();
        for ((y, ya), yb) in y.iter().zip(&ya).zip(&yb) {
            let mean = 0.5 * (f64::from(*ya) + f64::from(*yb));
            assert!((f64::from(*y) - mean).abs() < 1e-5, "{y} against {mean}");
        }
        assert!(blend(&cpu, &b, &a, 0).is_err());
    }

    /// A plain network rewritten for piecewise rows gives, on them, its outputs on the
    /// plain rows they stand for; it then blends with a network on those rows.
    #[test]
    fn a_widened_network_reads_the_rows_its_inputs_are_made_of() {
        let cpu = CpuBackend::new();
        let columns = [
            PlainColumn {
                offset: 0.5,
                terms: vec![(0, 2.0), (1, 1.0)],
            },
            PlainColumn {
                offset: 0.0,
                terms: vec![(2, 1.0)],
            },
            PlainColumn {
                offset: -1.0,
                terms: vec![(3, 3.0)],
            },
        ];
        let net = |input, seed| {
            Mlp::builder()
                .input(input)
                .hidden(&[6], Activation::Relu)
                .output(2, Activation::Identity)
                .build(&cpu, seed)
                .unwrap()
        };
        let plain = net(3, 4);
        let rows: Vec<f32> = (0..20).map(|i| ((i * 5) % 9) as f32 / 4.0 - 1.0).collect();
        let narrow: Vec<f32> = rows
            .chunks(4)
            .flat_map(|r| {
                columns
                    .iter()
                    .map(|c| c.offset + c.terms.iter().map(|&(j, k)| k * r[j]).sum::<f32>())
            })
            .collect();
        let predict = |m: &Mlp<CpuBackend>, x: &[f32], w| {
            let x = Tensor::from_slice(&cpu, x, [5, w]).unwrap();
            m.predict(&x).unwrap().to_vec().unwrap()
        };
        let want = predict(&plain, &narrow, 3);
        let wide = widen(&cpu, &plain, &columns, 4).unwrap();
        for (a, b) in predict(&wide, &rows, 4).iter().zip(&want) {
            assert!((a - b).abs() < 1e-5, "{a} against {b}");
        }
        let other = net(4, 5);
        let both = blend(&cpu, &wide, &other, 0).unwrap();
        let alone = predict(&other, &rows, 4);
        let mean = alone.iter().zip(&want).map(|(a, b)| 0.5 * (a + b));
        for (a, b) in predict(&both, &rows, 4).iter().zip(mean) {
            assert!((a - b).abs() < 1e-5, "{a} against {b}");
        }
        assert!(widen(&cpu, &plain, &columns, 3).is_err());
        assert!(widen(&cpu, &other, &columns, 4).is_err());
    }
}
