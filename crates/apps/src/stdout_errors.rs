//! A failed write to standard output (a full disk behind `> file`, a closed terminal) as a
//! one-line error instead of a panic.
//!
//! `println!` panics when stdout cannot be written. The panic hook stays silent for exactly
//! that panic, and `main` turns it (caught with `catch_unwind`) into an ordinary error. A
//! closed pipe (`| head`) never gets here: SIGPIPE ends the process quietly first.

use std::any::Any;

const PREFIX: &str = "failed printing to ";

/// Installs the panic hook that keeps output-failure panics quiet (others print as usual).
pub fn install_hook() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if failure(info.payload()).is_none() {
            default(info);
        }
    }));
}

/// For the payload of a panic raised by a failed `print!`/`eprint!`: the stream and the
/// system's reason, e.g. `("stdout", "No space left on device (os error 28)")`.
pub fn failure(payload: &(dyn Any + Send)) -> Option<(String, String)> {
    let text = payload
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| payload.downcast_ref::<&str>().copied())?;
    let rest = text.strip_prefix(PREFIX)?;
    let (stream, reason) = rest.split_once(": ")?;
    Some((stream.to_string(), reason.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_failures_are_recognised() {
        let p: Box<dyn Any + Send> = Box::new(
            "failed printing to stdout: No space left on device (os error 28)".to_string(),
        );
        assert_eq!(
            failure(&*p),
            Some((
                "stdout".into(),
                "No space left on device (os error 28)".into()
            ))
        );
        let other: Box<dyn Any + Send> = Box::new("index out of bounds");
        assert_eq!(failure(&*other), None);
    }
}
