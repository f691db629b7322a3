//! `comparison.png`: pictures side by side under their labels ("original",
//! "reconstruction"), small pictures enlarged (nearest neighbour) so that they can be seen.

use super::{fonts_available, write_png};
use crate::{Error, Result};
use io::Picture;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::path::Path;

/// Pictures narrower than this are enlarged by a whole factor.
const MIN_SIDE: usize = 160;

/// The layout of a comparison: enlargement, gap, label band.
struct Layout {
    scale: usize,
    gap: usize,
    band: usize,
    font: u32,
}

fn layout(pictures: &[(&str, &Picture)], text: bool) -> Layout {
    let longest = pictures
        .iter()
        .map(|(_, p)| p.width.max(p.height))
        .max()
        .unwrap_or(1);
    let scale = MIN_SIDE.div_ceil(longest.max(1)).max(1);
    let width = pictures.iter().map(|(_, p)| p.width).min().unwrap_or(1) * scale;
    let font = (width / 9).clamp(12, 28) as u32;
    Layout {
        scale,
        gap: (width / 20).max(6),
        band: if text { font as usize * 2 } else { 0 },
        font,
    }
}

/// The longest side a picture is shown at in a comparison.
pub const COMPARISON_SIDE: usize = 2048;

/// Draws the pictures left to right with their labels above and writes an RGB PNG
/// (pictures larger than [`COMPARISON_SIDE`] are shrunk first).
pub fn write_comparison(path: &Path, pictures: &[(&str, &Picture)]) -> Result<()> {
    if pictures.is_empty() {
        return Err(Error::Draw("nothing to compare".into()));
    }
    // Large images are shown at most COMPARISON_SIDE pixels on their longer side.
    let longest = pictures.iter().map(|(_, p)| p.width.max(p.height)).max();
    if longest.is_some_and(|n| n > COMPARISON_SIDE) {
        let small: Vec<(&str, Picture)> = pictures
            .iter()
            .map(|(name, p)| {
                let (w, h) = io::image::fit_longest_side(p.width, p.height, COMPARISON_SIDE);
                Ok((*name, p.resize_bicubic(w, h)?))
            })
            .collect::<Result<_>>()?;
        let refs: Vec<(&str, &Picture)> = small.iter().map(|(n, p)| (*n, p)).collect();
        return write_comparison(path, &refs);
    }
    let text = fonts_available();
    let l = layout(pictures, text);
    let width: usize = pictures
        .iter()
        .map(|(_, p)| p.width * l.scale)
        .sum::<usize>()
        + l.gap * (pictures.len() - 1);
    let height = pictures
        .iter()
        .map(|(_, p)| p.height * l.scale)
        .max()
        .unwrap_or(1)
        + l.band;
    let mut rgb = vec![255u8; width * height * 3];
    let mut x0 = 0;
    let mut centres = Vec::new();
    for (_, p) in pictures {
        let bytes = p.to_bytes();
        for y in 0..p.height * l.scale {
            for x in 0..p.width * l.scale {
                let i = (y / l.scale * p.width + x / l.scale) * p.channels;
                let px = if p.channels == 1 {
                    [bytes[i]; 3]
                } else {
                    [bytes[i], bytes[i + 1], bytes[i + 2]]
                };
                let o = ((y + l.band) * width + x0 + x) * 3;
                rgb[o..o + 3].copy_from_slice(&px);
            }
        }
        centres.push(x0 + p.width * l.scale / 2);
        x0 += p.width * l.scale + l.gap;
    }
    if text {
        let root =
            BitMapBackend::with_buffer(&mut rgb, (width as u32, height as u32)).into_drawing_area();
        let style = TextStyle::from(("sans-serif", l.font).into_font())
            .color(&BLACK)
            .pos(Pos::new(HPos::Center, VPos::Center));
        for ((label, _), cx) in pictures.iter().zip(centres) {
            root.draw_text(label, &style, (cx as i32, (l.band / 2) as i32))
                .map_err(|e| Error::Draw(format!("cannot label the comparison: {e:?}")))?;
        }
        root.present()
            .map_err(|e| Error::Draw(format!("cannot label the comparison: {e:?}")))?;
    }
    write_png(path, &rgb, width as u32, height as u32, 3)
}
