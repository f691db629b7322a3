//! The terminal progress bar (hidden when stderr is not a terminal).

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;

/// A progress bar over training steps with the last loss and an ETA, or nothing.
pub(crate) struct Progress {
    bar: Option<ProgressBar>,
}

impl Progress {
    /// A bar from `position` to `total` steps, when `enabled` and stderr is a terminal.
    pub(crate) fn new(enabled: bool, total: u64, position: u64) -> Self {
        if !enabled || !std::io::stderr().is_terminal() {
            return Progress { bar: None };
        }
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
        let style = ProgressStyle::with_template(
            "{bar:30.cyan/blue} {pos}/{len} steps [{elapsed_precise} < {eta_precise}] {msg}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar());
        bar.set_style(style);
        bar.set_position(position);
        bar.reset_eta();
        Progress { bar: Some(bar) }
    }

    /// Moves the bar to `step`.
    pub(crate) fn set_position(&self, step: u64) {
        if let Some(b) = &self.bar {
            b.set_position(step);
        }
    }

    /// Shows the latest loss and learning rate.
    pub(crate) fn set_loss(&self, loss: f32, val: Option<f32>, lr: f32) {
        if let Some(b) = &self.bar {
            let msg = match val {
                Some(v) => format!("loss {loss:.4e} val {v:.4e} lr {lr:.2e}"),
                None => format!("loss {loss:.4e} lr {lr:.2e}"),
            };
            b.set_message(msg);
        }
    }

    /// Leaves the bar on screen in its final state.
    pub(crate) fn finish(&self) {
        if let Some(b) = &self.bar {
            b.abandon();
        }
    }
}
