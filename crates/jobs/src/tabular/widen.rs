//! A network on plain rows rewritten to read the piecewise-linear rows those plain rows are
//! made of ([`widen`]), so that it joins an ensemble with a network on those rows: every
//! member of an ensemble reads the same inputs.

use crate::{Error, Result};
use io::table::PlainColumn;
use nn::{DenseLayer, EncodingConfig, Mlp};
use tensor_core::Backend;

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

    /// A plain network rewritten for piecewise rows gives, on them, its outputs on the
    /// plain rows they stand for.
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
        assert!(widen(&cpu, &plain, &columns, 3).is_err());
        assert!(widen(&cpu, &other, &columns, 4).is_err());
    }
}
