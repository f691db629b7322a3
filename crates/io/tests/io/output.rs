//! Output files: every write failure is an error, files are replaced whole, devices are written
//! in place (never renamed over), images are written in the format their name asks for, and
//! temporaries of killed writers can be cleared.

use io::Picture;
use io::image::{ImageFileFormat, encode_picture, save_picture, save_png, write_pixel_csv};
use io::output::{is_temporary, remove_stale_temporaries};
use io::write_file;
use std::path::Path;

fn picture() -> Picture {
    Picture::from_bytes(3, 2, 1, &[0, 50, 100, 150, 200, 250]).unwrap()
}

/// A full device: writing to `/dev/full` fails with "no space" for every writer, and the
/// device is still a device afterwards (not renamed over, even when running as root).
#[cfg(target_os = "linux")]
#[test]
fn a_full_device_is_an_error() {
    use std::os::unix::fs::FileTypeExt;
    let full = Path::new("/dev/full");
    if !full.exists() {
        return;
    }
    let e = write_file(full, b"hello").unwrap_err().to_string();
    assert!(e.contains("/dev/full") && e.contains("No space"), "{e}");
    assert!(save_png(&picture(), full).is_err());
    assert!(write_pixel_csv(&picture(), full, io::image::PixelValues::Bytes).is_err());
    let ft = std::fs::symlink_metadata(full).unwrap().file_type();
    assert!(ft.is_char_device(), "/dev/full is no longer a device");
}

/// Writing to /dev/null succeeds (it is a device: written in place).
#[cfg(unix)]
#[test]
fn a_sink_device_is_written_in_place() {
    write_file(Path::new("/dev/null"), b"nothing").unwrap();
    save_png(&picture(), "/dev/null").unwrap();
}

/// A regular file is replaced whole and no temporary file is left.
#[test]
fn files_are_replaced_whole() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("a.json");
    write_file(&p, b"first, longer content").unwrap();
    write_file(&p, b"second").unwrap();
    assert_eq!(std::fs::read(&p).unwrap(), b"second");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

/// A missing folder and a folder in place of the file are errors naming the file.
#[test]
fn missing_folders_and_folders_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let e = write_file(&dir.path().join("no/x.csv"), b"x")
        .unwrap_err()
        .to_string();
    assert!(e.contains("no/x.csv"), "{e}");
    let e = write_file(dir.path(), b"x").unwrap_err().to_string();
    assert!(e.contains("folder"), "{e}");
}

/// A symbolic link to a file keeps being a link; the file it names gets the content.
#[cfg(unix)]
#[test]
fn links_are_kept() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("target.csv");
    std::fs::write(&target, "old").unwrap();
    let link = dir.path().join("link.csv");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    write_file(&link, b"new").unwrap();
    assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
    assert_eq!(std::fs::read(&target).unwrap(), b"new");
}

/// Temporaries named like `write_atomic`'s are recognised and removed; other files stay.
#[test]
fn stale_temporaries_are_removed() {
    let dir = tempfile::tempdir().unwrap();
    let names = [
        ".model.safetensors.tmp-123-0",
        ".loss.png.tmp-99-17",
        "metrics.json",
        ".hidden",
        ".x.tmp-abc-1",
    ];
    for n in names {
        std::fs::write(dir.path().join(n), "x").unwrap();
    }
    assert_eq!(remove_stale_temporaries(dir.path()).unwrap(), 2);
    let mut left: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    left.sort();
    assert_eq!(left, [".hidden", ".x.tmp-abc-1", "metrics.json"]);
    assert!(is_temporary(".a.tmp-1-2".as_ref()));
    assert!(!is_temporary("a.tmp-1-2".as_ref()));
}

/// Each extension gets its own format (checked by the file's magic bytes, and by decoding);
/// an unknown extension is refused before anything is written.
#[test]
fn images_are_written_in_the_format_their_name_asks_for() {
    let dir = tempfile::tempdir().unwrap();
    let magic: [(&str, &[u8]); 5] = [
        ("a.png", b"\x89PNG"),
        ("a.jpg", b"\xff\xd8\xff"),
        ("a.JPEG", b"\xff\xd8\xff"),
        ("a.webp", b"RIFF"),
        ("a.bmp", b"BM"),
    ];
    for (name, head) in magic {
        let p = dir.path().join(name);
        save_picture(&picture(), &p).unwrap();
        let bytes = std::fs::read(&p).unwrap();
        assert!(
            bytes.starts_with(head),
            "{name} starts with {:?}",
            &bytes[..4]
        );
        let back = io::image::load_picture(&p, io::ColorMode::Grayscale).unwrap();
        assert_eq!((back.width, back.height), (3, 2), "{name}");
    }
    let e = save_picture(&picture(), dir.path().join("a.tiff"))
        .unwrap_err()
        .to_string();
    assert!(e.contains(".tiff") && e.contains(".png"), "{e}");
    assert!(!dir.path().join("a.tiff").exists());
    assert_eq!(
        ImageFileFormat::from_path(Path::new("out")).unwrap(),
        ImageFileFormat::Png
    );
    // Lossless formats keep every byte.
    for f in [
        ImageFileFormat::Png,
        ImageFileFormat::WebP,
        ImageFileFormat::Bmp,
    ] {
        let bytes = encode_picture(&picture(), f).unwrap();
        let back = io::image::decode_picture(&bytes, io::ColorMode::Grayscale, "m").unwrap();
        assert_eq!(back, picture(), "{f:?}");
    }
}

#[test]
fn a_missing_folder_is_named_and_nothing_is_created() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("missing").join("out.csv");
    let e = write_file(&path, b"a\n1\n").unwrap_err().to_string();
    assert!(
        e.contains("there is no folder") && e.contains("missing") && e.contains("out.csv"),
        "{e}"
    );
    assert!(!dir.path().join("missing").exists());
}
