//! `iron-learn image render`: redraw a fitted image at any size. The drawing is the
//! library's ([`jobs::image::render_image`]); this converts the flags, removes an
//! unfinished file when a signal stops it, and prints what it returns.

use crate::cli::ImageRenderArgs;
use crate::device::Job;
use anyhow::Result;
use jobs::image::{RenderOptions, check_render_options, render_image};
use tensor_core::Backend;

/// Renders a fitted image.
pub struct ImageRender(pub ImageRenderArgs);

impl Job for ImageRender {
    fn run<B: Backend>(self, backend: &B) -> Result<()> {
        let args = &self.0;
        let options = RenderOptions {
            threshold: args.threshold,
            reference: args.reference.clone(),
            ..RenderOptions::new(&args.model, args.size, &args.output)
        };
        check_render_options(&options)?;
        crate::signals::remove_unfinished_on_signal(&args.output);
        let render = render_image(backend, &options, &mut train::Lines { every: 0 })?;
        println!("{}", render.line());
        if render.enlarged() {
            let (w0, h0) = render.fitted;
            eprintln!(
                "note: the model was fitted on {w0}x{h0} pixels; drawing it at {}x{} \
                 interpolates between them and adds no detail (compare with bicubic upscaling: \
                 --reference)",
                render.width, render.height
            );
        }
        for line in render.score_lines() {
            println!("{line}");
        }
        Ok(())
    }
}
