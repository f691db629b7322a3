//! TIFF files read strip by strip into a [`CompactPicture`]: 8-bit gray (black is zero) and
//! RGB images stored in strips with interleaved channels, in the memory of the compact copy
//! and one strip. Other TIFFs (tiles, 16 bits, planes, alpha) are decoded whole.

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;

use tiff::ColorType;
use tiff::decoder::{ChunkType, Decoder, DecodingResult};
use tiff::tags::Tag;

use super::compact::CompactPicture;
use super::file::ColorMode;
use super::rows::{RowSink, RowTarget};
use crate::error::{Error, Result};

type TiffDecoder = Decoder<BufReader<File>>;

/// Whether the file starts like a TIFF (`II*\0` or `MM\0*`).
pub(crate) fn is_tiff(path: &Path) -> Result<bool> {
    let mut file = File::open(path).map_err(|e| Error::io("read", path, e))?;
    let mut magic = [0u8; 4];
    let n = file
        .read(&mut magic)
        .map_err(|e| Error::io("read", path, e))?;
    Ok(n == 4 && (magic == *b"II*\0" || magic == *b"MM\0*"))
}

fn tiff_error(path: &Path, e: tiff::TiffError) -> Error {
    Error::Image {
        action: "decode",
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

/// A decoder of the file's first image with its 8-bit channels (1 or 3) when it is read strip
/// by strip; `Ok(None)` for a TIFF of another layout.
fn strip_decoder(path: &Path) -> Result<Option<(TiffDecoder, usize)>> {
    let file = File::open(path).map_err(|e| Error::io("read", path, e))?;
    let fail = |e| tiff_error(path, e);
    let mut decoder = Decoder::new(BufReader::new(file)).map_err(fail)?;
    let channels = match decoder.colortype().map_err(fail)? {
        ColorType::Gray(8) => 1,
        ColorType::RGB(8) => 3,
        _ => return Ok(None),
    };
    let photometric: Option<u16> = decoder
        .find_tag_unsigned(Tag::PhotometricInterpretation)
        .map_err(fail)?;
    let planar: Option<u16> = decoder
        .find_tag_unsigned(Tag::PlanarConfiguration)
        .map_err(fail)?;
    // Black is zero (1) for gray, RGB (2) for colour; channels interleaved (1, the default).
    let expected = if channels == 1 { 1 } else { 2 };
    let streamed = decoder.get_chunk_type() == ChunkType::Strip
        && photometric == Some(expected)
        && planar.unwrap_or(1) == 1;
    Ok(streamed.then_some((decoder, channels)))
}

/// Whether `path` is a TIFF that [`load_compact_within`](super::load_compact_within) reads
/// strip by strip.
pub(crate) fn tiff_rows_streamed(path: &Path) -> bool {
    matches!(strip_decoder(path), Ok(Some(_)))
}

/// Reads an 8-bit gray or RGB strip TIFF strip by strip into a compact copy.
pub(crate) fn decode_tiff_strips(path: &Path, mode: ColorMode) -> Result<CompactPicture> {
    decode_tiff_strips_into(path, |w, h, channels| RowSink::new(w, h, channels, mode))
}

/// Reads an 8-bit gray or RGB strip TIFF strip by strip into the target that `make` builds
/// from its width, height and bytes per pixel.
pub(crate) fn decode_tiff_strips_into<T: RowTarget>(
    path: &Path,
    make: impl FnOnce(usize, usize, usize) -> T,
) -> Result<T::Output> {
    let Some((mut decoder, channels)) = strip_decoder(path)? else {
        return Err(Error::Image {
            action: "decode",
            path: path.to_path_buf(),
            message: "not an 8-bit gray or RGB TIFF stored in strips".into(),
        });
    };
    let fail = |e| tiff_error(path, e);
    let (width, height) = decoder.dimensions().map_err(fail)?;
    let (width, height) = (width as usize, height as usize);
    let mut sink = make(width, height, channels);
    for strip in 0..decoder.strip_count().map_err(fail)? {
        let DecodingResult::U8(bytes) = decoder.read_chunk(strip).map_err(fail)? else {
            return Err(Error::Image {
                action: "decode",
                path: path.to_path_buf(),
                message: format!("strip {strip} does not hold 8-bit values"),
            });
        };
        sink.push(&bytes)?;
    }
    sink.finish(path)
}
