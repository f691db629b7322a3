//! A fitted image model drawn at any size, with the one renderer ([`crate::image::render_png`]).

use std::path::Path;

use tensor_core::{Backend, Tensor};

use super::{FittedModel, Task};
use crate::error::{Error, Result};
use crate::image::{PixelNetwork, RenderSettings, fit_longest_side, render_png};

impl<B: Backend> PixelNetwork<B> for FittedModel<B> {
    fn predict_pixels(&self, coords: &Tensor<B>) -> Result<Tensor<B>> {
        match &self.info.features {
            None => Ok(self.network.predict(coords)?),
            Some(scaler) => {
                let rows = scaler.transform(&coords.to_vec().map_err(nn::Error::from)?)?;
                let x = Tensor::from_slice(self.network.backend(), &rows, coords.shape().clone())
                    .map_err(nn::Error::from)?;
                Ok(self.network.predict(&x)?)
            }
        }
    }
}

impl<B: Backend> FittedModel<B> {
    /// The size of the image an image model was fitted on; an error for other models.
    pub fn image_size(&self) -> Result<(usize, usize)> {
        match self.info.task {
            Task::Image { width, height } => Ok((width, height)),
            Task::Regression => Err(Error::invalid(
                "this is a regression model, not an image model (written by `image fit`)",
            )),
            Task::Classification { .. } => Err(Error::invalid(
                "this is a classifier, not an image model (written by `image fit`)",
            )),
        }
    }

    /// How to draw the image with its longer side `longest_side` pixels (the fitted aspect
    /// ratio kept): the stored channel means added back to the network's outputs.
    pub fn render_settings(&self, longest_side: usize) -> Result<RenderSettings> {
        let (w0, h0) = self.image_size()?;
        let (width, height) = fit_longest_side(w0, h0, longest_side.max(1));
        let channels = self.network.output_dim();
        let mut settings = RenderSettings::new(width, height, channels);
        if let Some(targets) = &self.info.targets {
            settings.offset = targets.mean.clone();
            settings.scale = targets.std.clone();
        }
        Ok(settings)
    }

    /// Draws the image with its longer side `longest_side` pixels into a PNG at `path`, band
    /// by band in the memory of one band, and returns its size.
    pub fn render_png(
        &self,
        longest_side: usize,
        path: impl AsRef<Path>,
    ) -> Result<(usize, usize)> {
        let settings = self.render_settings(longest_side)?;
        render_png(self.network.backend(), self, &settings, path.as_ref())?;
        Ok((settings.width, settings.height))
    }
}
