//! [`TableTensors`]: a prepared table's rows on a device, as a network learns them.

use super::{Prepared, network_targets};
use crate::Result;
use io::{Dataset, Standardizer};
use nn::{Activation, Data, Mlp, MlpBuilder};
use tensor_core::{Backend, Tensor};

/// The training and validation rows of a [`Prepared`] table on a device.
pub struct TableTensors<B: Backend> {
    /// Training features and targets.
    pub train: (Tensor<B>, Tensor<B>),
    /// Validation features and targets, when rows are held out.
    pub val: Option<(Tensor<B>, Tensor<B>)>,
    /// The standardisation of a regression target, fitted on the training rows.
    pub targets: Option<Standardizer>,
}

impl<B: Backend> TableTensors<B> {
    /// The training rows, for [`Run::train`](train::Run::train).
    pub fn train_data(&self) -> Data<'_, B> {
        Data::new(&self.train.0, &self.train.1)
    }

    /// The validation rows, when there are some.
    pub fn val_data(&self) -> Option<Data<'_, B>> {
        self.val.as_ref().map(|(x, y)| Data::new(x, y))
    }

    /// An MLP for these rows: their features in, `hidden` layers of `activation`, and one
    /// raw output per target column out (logits for a classifier, standardised values for a
    /// regression, as the targets are held).
    pub fn mlp(&self, hidden: &[usize], activation: Activation) -> MlpBuilder<B> {
        let width = |t: &Tensor<B>| t.dims().get(1).copied().unwrap_or(0);
        Mlp::builder()
            .input(width(&self.train.0))
            .hidden(hidden, activation)
            .output(width(&self.train.1), Activation::Identity)
    }
}

impl Prepared {
    /// The number of classes (0 for a regression).
    pub fn classes(&self) -> usize {
        self.labels.as_ref().map_or(0, Vec::len)
    }

    /// The network's output columns: one for a regression or two classes (a logit), else
    /// one per class.
    pub fn outputs(&self) -> usize {
        match self.classes() {
            0 | 2 => 1,
            k => k,
        }
    }

    /// The training and validation rows uploaded to `backend`, the targets as the network
    /// learns them ([`network_targets`]; a regression target standardised on the training
    /// rows).
    pub fn tensors<B: Backend>(&self, backend: &B) -> Result<TableTensors<B>> {
        let classes = self.classes();
        let targets = (classes == 0)
            .then(|| Standardizer::fit(&self.train.y, 1))
            .transpose()?;
        let outputs = self.outputs();
        let upload = |d: &Dataset| -> Result<(Tensor<B>, Tensor<B>)> {
            let y = network_targets(&d.y, classes, targets.as_ref())?;
            Ok((
                Tensor::from_slice(backend, &d.x, [d.rows, d.n_features])?,
                Tensor::from_slice(backend, &y, [d.rows, outputs])?,
            ))
        };
        Ok(TableTensors {
            train: upload(&self.train)?,
            val: self.val.as_ref().map(upload).transpose()?,
            targets,
        })
    }
}
