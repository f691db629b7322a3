//! Progress of a long drawing or encoding (a render, a fit's reconstruction, an image's
//! pixel CSV): an estimate of the whole after the second band (timed alone: the first
//! carries the start-up costs), then a line every [`EVERY`] while it works, for the program
//! to show.

use std::time::{Duration, Instant};

/// The time between two progress lines.
pub const EVERY: Duration = Duration::from_secs(10);
/// Pictures of fewer pixels than this (a megapixel) are drawn or encoded in moments: their
/// progress says nothing.
pub const QUIET_BELOW_PIXELS: usize = 1_000_000;

/// Counts the rows of a drawing as its bands arrive and says how far it is, unless the
/// picture is smaller than `QUIET_BELOW_PIXELS` pixels.
pub struct DrawProgress {
    what: &'static str,
    width: usize,
    height: usize,
    channels: usize,
    rows: usize,
    started: Instant,
    /// The rows and time at the end of the first band.
    first: Option<(usize, Instant)>,
    last: Option<Instant>,
    /// Pictures of fewer pixels say nothing ([`QUIET_BELOW_PIXELS`]).
    quiet_below: usize,
}

impl DrawProgress {
    /// The progress of drawing a `width x height` picture of `channels` values a pixel,
    /// called `what` in its lines (`drawing`, `drawing the reconstruction`).
    pub fn new(what: &'static str, width: usize, height: usize, channels: usize) -> Self {
        DrawProgress {
            what,
            width,
            height,
            channels,
            rows: 0,
            started: Instant::now(),
            first: None,
            last: None,
            quiet_below: QUIET_BELOW_PIXELS,
        }
    }

    /// Takes one band's values (whole rows) and returns the estimate after the second band,
    /// then a line every `EVERY`.
    pub fn band(&mut self, values: &[f32]) -> Option<String> {
        self.rows_done(values.len() / (self.width * self.channels).max(1))
    }

    /// Counts `added` rows done (a band, or one row of an encoding) and returns the estimate
    /// after the second call, then a line every `EVERY`.
    pub fn rows_done(&mut self, added: usize) -> Option<String> {
        self.rows += added;
        let now = Instant::now();
        if self.rows >= self.height || self.width * self.height < self.quiet_below {
            return None;
        }
        let Some((first_rows, first_end)) = self.first else {
            self.first = Some((self.rows, now));
            return None;
        };
        let due = self.last.is_none_or(|t| now.duration_since(t) >= EVERY);
        if !due {
            return None;
        }
        let spent = now.duration_since(self.started).as_secs_f64();
        let line = if self.last.is_none() {
            let band = now.duration_since(first_end).as_secs_f64();
            let per_row = band / (self.rows - first_rows).max(1) as f64;
            let left = per_row * (self.height - self.rows) as f64;
            format!(
                "{} {}x{} ({:.1} megapixels): about {} in all",
                self.what,
                self.width,
                self.height,
                (self.width * self.height) as f64 / 1e6,
                duration(spent + left)
            )
        } else {
            let left = spent / self.rows as f64 * (self.height - self.rows) as f64;
            format!(
                "{}: {:.0}% ({} of {} rows) in {}, about {} left",
                self.what,
                100.0 * self.rows as f64 / self.height as f64,
                self.rows,
                self.height,
                duration(spent),
                duration(left)
            )
        };
        self.last = Some(now);
        Some(line)
    }
}

/// Seconds as `12.3 s`, `4 min 05 s` or `2 h 07 min`.
pub fn duration(seconds: f64) -> String {
    let s = seconds.max(0.0);
    if s < 60.0 {
        format!("{s:.1} s")
    } else if s < 3600.0 {
        format!("{} min {:02} s", (s / 60.0) as u64, (s % 60.0) as u64)
    } else {
        format!(
            "{} h {:02} min",
            (s / 3600.0) as u64,
            (s % 3600.0 / 60.0) as u64
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The estimate comes with the second band, then nothing before [`EVERY`] nor at the end.
    #[test]
    fn the_estimate_comes_with_the_second_band() {
        let mut quick = DrawProgress::new("encoding", 10, 100, 3);
        assert_eq!(quick.rows_done(1), None);
        assert_eq!(quick.rows_done(1), None, "a small picture says nothing");
        let mut p = DrawProgress {
            quiet_below: 0,
            ..DrawProgress::new("encoding", 10, 100, 3)
        };
        assert_eq!(p.rows_done(1), None);
        let line = p
            .band(&[0.0; 30])
            .expect("an estimate after the second band");
        assert!(
            line.starts_with("encoding 10x100 (0.0 megapixels): about"),
            "{line}"
        );
        assert!(line.ends_with("in all"), "{line}");
        assert_eq!(p.rows_done(1), None);
        assert_eq!(p.rows_done(97), None);
    }

    #[test]
    fn durations_read_naturally() {
        assert_eq!(duration(2.04), "2.0 s");
        assert_eq!(duration(245.0), "4 min 05 s");
        assert_eq!(duration(7620.0), "2 h 07 min");
    }
}
