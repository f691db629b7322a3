//! The size at which a fit draws its reconstruction, whatever its network: the whole
//! picture, unless drawing it would take longer than the fit itself, judged by counts, not
//! clocks: drawing a pixel is one forward pass, about a third of a training step's work on a
//! pixel (forward, backward, update), so a picture of more than three times the pixels the
//! fit trained on (steps times batch) would take longer to draw than the fit took. Such a
//! picture is drawn at about the size that takes as long as the fit (asked for at least
//! [`MIN_CAPPED_SIDE`] on its longer side; the shrink by whole blocks of pixels can make it
//! smaller), and scored against the picture shrunk to that size. A hash grid's 30000 x 30000
//! fit (3000 steps of 65536 pixels) would take minutes to draw whole: it is capped as a
//! SIREN's is.

use super::draw_progress::duration;

/// The smallest longer side of a capped reconstruction.
pub const MIN_CAPPED_SIDE: usize = 1024;

/// Pixels drawn in the time of training on one: a forward pass against forward, backward
/// and the update.
const DRAWN_PER_TRAINED: f64 = 3.0;

/// The longer side to draw a `width x height` reconstruction at after a fit that trained on
/// `trained` pixels (steps times batch), or `None` to draw it whole.
pub fn capped_side(width: usize, height: usize, trained: f64) -> Option<usize> {
    let pixels = width as f64 * height as f64;
    let affordable = DRAWN_PER_TRAINED * trained;
    if pixels <= affordable {
        return None;
    }
    let longest = width.max(height);
    let side = ((longest as f64 * (affordable / pixels).sqrt()) as usize).max(MIN_CAPPED_SIDE);
    (side < longest).then_some(side)
}

/// The line that says the reconstruction was drawn at `drawn` instead of `full` after a fit
/// of `seconds` that trained on `trained` pixels.
pub fn capped_note(
    full: (usize, usize),
    drawn: (usize, usize),
    seconds: f64,
    trained: f64,
) -> String {
    let (w, h) = full;
    let whole = seconds * (w as f64 * h as f64) / (DRAWN_PER_TRAINED * trained).max(1.0);
    format!(
        "note: drawing the whole {w}x{h} reconstruction would take about {}, longer than the \
         fit ({}): drawn at {}x{} and scored against the picture shrunk to that size \
         (a render of the saved model at size {} draws it whole)",
        duration(whole),
        duration(seconds),
        drawn.0,
        drawn.1,
        w.max(h)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_pictures_larger_than_the_fit_can_draw_are_capped() {
        // 600 megapixels after 2000 steps of 65536 pixels: 393 million drawable.
        let trained = 2000.0 * 65536.0;
        let side = capped_side(30_000, 20_000, trained).unwrap();
        let kept = (side as f64 / 30_000.0).powi(2) * 600e6;
        assert!((kept / (3.0 * trained) - 1.0).abs() < 1e-3, "{side}");
        // Small enough to draw in the fit's time: whole.
        assert_eq!(capped_side(10_000, 10_000, trained), None);
        // Never below MIN_CAPPED_SIDE, and never capped when that is the whole picture.
        assert_eq!(capped_side(3000, 2000, 10.0), Some(MIN_CAPPED_SIDE));
        assert_eq!(capped_side(1000, 800, 10.0), None);
        let note = capped_note((30_000, 20_000), (24_000, 16_000), 180.0, trained);
        assert!(
            note.contains("30000x20000") && note.contains("24000x16000"),
            "{note}"
        );
        assert!(
            note.contains("at size 30000") && !note.contains("--"),
            "{note}"
        );
    }
}
