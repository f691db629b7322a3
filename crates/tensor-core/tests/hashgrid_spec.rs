//! Hash-grid parameters: every invalid one is refused with one line naming it, and the
//! level layout follows the closed forms of the definition.

use tensor_core::hashgrid::{MAX_LEVELS, MAX_RESOLUTION};
use tensor_core::{Error, HashGridConfig, HashGridScale};

fn config() -> HashGridConfig {
    HashGridConfig {
        dims: 2,
        levels: 8,
        features: 2,
        log2_table_size: 12,
        base_resolution: 4,
        scale: HashGridScale::Growth(2.0),
    }
}

/// The message of the error `config` is refused with.
fn refusal(config: HashGridConfig) -> String {
    match config.validate() {
        Err(e @ Error::InvalidArgument { .. }) => e.to_string(),
        other => panic!("{config:?} should be refused, got {other:?}"),
    }
}

#[test]
fn every_invalid_parameter_is_one_line_naming_it() {
    let cases: Vec<(HashGridConfig, &str)> = vec![
        (
            HashGridConfig {
                dims: 0,
                ..config()
            },
            "input dimensions must be 1, 2 or 3, got 0",
        ),
        (
            HashGridConfig {
                dims: 4,
                ..config()
            },
            "input dimensions must be 1, 2 or 3, got 4",
        ),
        (
            HashGridConfig {
                levels: 0,
                ..config()
            },
            "levels must be between 1 and 32, got 0",
        ),
        (
            HashGridConfig {
                levels: MAX_LEVELS + 1,
                ..config()
            },
            "got 33",
        ),
        (
            HashGridConfig {
                features: 0,
                ..config()
            },
            "features per level must be between 1 and 8, got 0",
        ),
        (
            HashGridConfig {
                features: 9,
                ..config()
            },
            "features per level must be between 1 and 8, got 9",
        ),
        (
            HashGridConfig {
                log2_table_size: 25,
                ..config()
            },
            "at most 2^24 entries per level), got 25",
        ),
        (
            HashGridConfig {
                log2_table_size: 0,
                ..config()
            },
            "log2 of the table size",
        ),
        (
            HashGridConfig {
                base_resolution: 0,
                ..config()
            },
            "base resolution must be between 1",
        ),
        (
            HashGridConfig {
                base_resolution: 64,
                scale: HashGridScale::Finest(32),
                ..config()
            },
            "base resolution 64 is above the finest resolution 32",
        ),
        (
            HashGridConfig {
                scale: HashGridScale::Finest(MAX_RESOLUTION + 1),
                ..config()
            },
            "finest resolution must be at most 16777216",
        ),
        (
            HashGridConfig {
                scale: HashGridScale::Growth(0.5),
                ..config()
            },
            "growth factor",
        ),
        (
            HashGridConfig {
                scale: HashGridScale::Growth(f64::NAN),
                ..config()
            },
            "got NaN",
        ),
        (
            HashGridConfig {
                scale: HashGridScale::Growth(f64::INFINITY),
                ..config()
            },
            "got inf",
        ),
        (
            HashGridConfig {
                levels: 32,
                scale: HashGridScale::Growth(2.0),
                ..config()
            },
            "above the largest resolution",
        ),
        (
            HashGridConfig {
                levels: 1,
                scale: HashGridScale::Finest(8),
                ..config()
            },
            "a single level has only the base resolution 4, but the finest resolution is 8",
        ),
    ];
    for (bad, expected) in cases {
        let message = refusal(bad);
        assert!(message.starts_with("hash grid: "), "{message}");
        assert!(
            message.contains(expected),
            "{bad:?}: `{message}` lacks `{expected}`"
        );
        assert!(!message.contains('\n'), "{message}");
    }
}

#[test]
fn the_limits_themselves_are_accepted() {
    for ok in [
        HashGridConfig {
            dims: 1,
            levels: 1,
            features: 1,
            log2_table_size: 1,
            base_resolution: 1,
            scale: HashGridScale::Growth(1.0),
        },
        HashGridConfig {
            dims: 3,
            levels: 32,
            features: 8,
            log2_table_size: 24,
            base_resolution: 16,
            scale: HashGridScale::Finest(MAX_RESOLUTION),
        },
        HashGridConfig {
            levels: 1,
            scale: HashGridScale::Finest(4),
            ..config()
        },
        HashGridConfig {
            levels: 12,
            scale: HashGridScale::Growth(4.0),
            ..config()
        },
    ] {
        ok.validate().unwrap_or_else(|e| panic!("{ok:?}: {e}"));
    }
}

#[test]
fn levels_follow_the_closed_forms() {
    // Growth 2 from 4: resolutions 4 * 2^l; 2-D tables of min(2^12, (N + 1)^2) entries.
    let spec = config().validate().unwrap();
    let mut offset = 0;
    for (l, level) in spec.levels().iter().enumerate() {
        let res = 4u32 << l;
        let vertices = u64::from(res + 1).pow(2);
        assert_eq!(level.resolution, res, "level {l}");
        assert_eq!(level.hashed, vertices > 4096, "level {l}");
        assert_eq!(u64::from(level.table_size), vertices.min(4096), "level {l}");
        assert_eq!(level.offset, offset, "level {l}");
        offset += level.table_size as usize;
    }
    // 25 + 81 + 289 + 1089 dense, then four hashed levels of 4096.
    assert_eq!(spec.table_entries(), 25 + 81 + 289 + 1089 + 4 * 4096);
    assert_eq!(spec.param_count(), 2 * spec.table_entries());
    assert_eq!(spec.output_dim(), 16);
    assert_eq!(spec.growth(), 2.0);
}

#[test]
fn a_finest_resolution_sets_the_growth() {
    // The usual encoding: 16 levels from 16 to 2048, b = 128^(1/15).
    let spec = HashGridConfig::new(2).validate().unwrap();
    let b = 128f64.powf(1.0 / 15.0);
    assert!((spec.growth() - b).abs() < 1e-12);
    let res: Vec<u32> = spec.levels().iter().map(|l| l.resolution).collect();
    for (l, &r) in res.iter().enumerate() {
        assert_eq!(
            r,
            (16.0 * b.powi(l as i32) + 1e-6).floor() as u32,
            "level {l}"
        );
    }
    assert_eq!((res[0], res[15]), (16, 2048));
    // Resolutions whose exact value is an integer land on it despite rounding.
    for (base, finest, levels) in [
        (3, 3 * 1024, 11),
        (10, 10_000, 4),
        (7, 7 * 3usize.pow(6) as u32, 7),
    ] {
        let spec = HashGridConfig {
            base_resolution: base,
            scale: HashGridScale::Finest(finest),
            levels,
            ..config()
        }
        .validate()
        .unwrap();
        let res: Vec<u32> = spec.levels().iter().map(|l| l.resolution).collect();
        let ratio = (f64::from(finest) / f64::from(base))
            .powf(1.0 / (levels - 1) as f64)
            .round() as u32;
        let want: Vec<u32> = (0..levels as u32).map(|l| base * ratio.pow(l)).collect();
        assert_eq!(res, want);
    }
}
