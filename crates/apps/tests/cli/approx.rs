//! `iron-learn approx`: fitting a typed function of x, including one with a pole at x = 0,
//! as a regression and (with --classify) as a classifier of its sign.

use crate::common::*;

/// The seed system's example: (x^2+x^3+x^4+x^6)/x^5 has a pole at 0. The run must not break:
/// the near-pole values are left out (and counted), the rest is fitted with R^2 > 0.9, and the
/// plot of the fit is written.
#[test]
fn function_with_a_pole_is_fitted() {
    let dir = tmp();
    let o = train(
        &[
            "approx",
            "--fn",
            "(x^2+x^3+x^4+x^6)/x^5",
            "--range",
            "-3:3",
            "--epochs",
            "800",
        ],
        dir.path(),
    );
    assert_success(&o);
    assert_run_files(dir.path());
    png_size(&dir.path().join("fit.png"));
    let m = metrics(dir.path());
    assert!(num(&m, "r2") > 0.9, "{m}");
    assert!(num(&m, "points_left_out") > 0.0, "{m}");
    assert_eq!(
        num(&m, "points_used") + num(&m, "points_left_out"),
        2000.0,
        "every default sample is used or counted as left out: {m}"
    );
    assert_eq!(num(&m, "steps"), 800.0, "full batch: one step per epoch");
    assert!(stderr(&o).contains("left out"), "{}", describe(&o));
}

/// The sign of the same function (negative for x < 0, positive for x > 0) is learned as a
/// classifier. With 601 samples of [-3, 3] one of them is exactly x = 0, where the function
/// is 0/0: that single point is left out, and nothing else is (no outlier removal here).
#[test]
fn sign_of_a_function_with_a_pole_is_classified() {
    let dir = tmp();
    let o = train(
        &[
            "approx",
            "--classify",
            "--fn",
            "(x^2+x^3+x^4+x^6)/x^5",
            "--range",
            "-3:3",
            "--samples",
            "601",
            "--epochs",
            "400",
        ],
        dir.path(),
    );
    assert_success(&o);
    assert_run_files(dir.path());
    png_size(&dir.path().join("fit.png"));
    let m = metrics(dir.path());
    assert!(num(&m, "accuracy") > 0.95, "{m}");
    assert_eq!(num(&m, "points_left_out"), 1.0, "{m}");
    assert_eq!(num(&m, "points_used"), 600.0, "{m}");
    assert!(stdout(&o).contains("accuracy"), "{}", describe(&o));
}

/// A smooth function with a negative range start (which must not be read as a flag) is
/// fitted almost exactly and nothing is left out.
#[test]
fn smooth_function_is_fitted_closely() {
    let dir = tmp();
    let o = train(
        &[
            "approx",
            "--fn",
            "sin(2*x)",
            "--range",
            "-2:1",
            "--samples",
            "200",
            "--hidden",
            "32,32",
            "--epochs",
            "600",
        ],
        dir.path(),
    );
    assert_success(&o);
    let m = metrics(dir.path());
    assert!(num(&m, "r2") > 0.99, "{m}");
    assert!(num(&m, "max_error") < 0.2, "{m}");
    assert_eq!(num(&m, "points_left_out"), 0.0, "{m}");
}
