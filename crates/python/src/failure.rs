//! A library error as the Python exception a Python user expects: `FileNotFoundError` for a
//! file that is not there, `OSError` for other failures of the file system, `ValueError` for
//! input the library refuses, `KeyboardInterrupt` for a run stopped by Ctrl-C; the message is
//! the library's, on one line.

use pyo3::PyErr;
use pyo3::exceptions::{PyFileNotFoundError, PyOSError, PyRuntimeError, PyValueError};

/// Which Python exception a failure becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `ValueError`: input the library refuses.
    Value,
    /// `FileNotFoundError`.
    NotFound,
    /// `OSError`: another failure of the file system.
    Os,
    /// `RuntimeError`: a failure of the program itself.
    Runtime,
}

/// A failure on a worker thread, carried back to the thread that raises it.
#[derive(Debug, Clone)]
pub struct Failure {
    /// The exception.
    pub kind: Kind,
    /// Its one-line message.
    pub message: String,
}

impl Failure {
    /// A `ValueError` saying `message`.
    pub fn value(message: impl Into<String>) -> Self {
        Failure {
            kind: Kind::Value,
            message: message.into(),
        }
    }

    /// The failure with the texts of `renames` replaced in its message (a temporary file
    /// named as what it holds).
    pub fn renamed(mut self, renames: &[(String, String)]) -> Self {
        for (from, to) in renames {
            self.message = self.message.replace(from, to);
        }
        self
    }

    /// A `RuntimeError` saying `message`.
    pub fn runtime(message: impl Into<String>) -> Self {
        Failure {
            kind: Kind::Runtime,
            message: message.into(),
        }
    }

    /// The failure of error `e`: its message and its causes' on one line, and the exception
    /// its first file-system cause calls for.
    pub fn of(e: &(dyn std::error::Error + 'static)) -> Self {
        let mut kind = match missing_file(e) {
            true => Kind::NotFound,
            false => Kind::Value,
        };
        let mut message = e.to_string();
        let mut cause = Some(e);
        while let Some(c) = cause {
            if let Some(io) = c.downcast_ref::<std::io::Error>()
                && kind == Kind::Value
            {
                kind = match io.kind() {
                    std::io::ErrorKind::NotFound => Kind::NotFound,
                    _ => Kind::Os,
                };
            }
            let text = c.to_string();
            if !message.contains(&text) {
                message.push_str(": ");
                message.push_str(&text);
            }
            cause = c.source();
        }
        Failure { kind, message }
    }

    /// The Python exception.
    pub fn into_py(self) -> PyErr {
        match self.kind {
            Kind::Value => PyValueError::new_err(self.message),
            Kind::NotFound => PyFileNotFoundError::new_err(self.message),
            Kind::Os => PyOSError::new_err(self.message),
            Kind::Runtime => PyRuntimeError::new_err(self.message),
        }
    }
}

/// Whether `e` says that a file to read, or the folder of a file to write, does not exist
/// (the library's own errors for them, through the layers that wrap them whole).
fn missing_file(e: &(dyn std::error::Error + 'static)) -> bool {
    let io = |e: &io::Error| {
        matches!(
            e,
            io::Error::FileNotFound { .. } | io::Error::NoFolder { .. }
        )
    };
    let run = |e: &train::Error| matches!(e, train::Error::Io(e) if io(e));
    if let Some(e) = e.downcast_ref::<io::Error>() {
        return io(e);
    }
    if let Some(e) = e.downcast_ref::<train::Error>() {
        return run(e);
    }
    matches!(e.downcast_ref::<jobs::Error>(), Some(jobs::Error::Run(e)) if run(e))
}

/// Any library error converts into the failure [`Failure::of`] makes of it.
impl<E: std::error::Error + 'static> From<E> for Failure {
    fn from(e: E) -> Self {
        Failure::of(&e)
    }
}

/// Shorthand for results whose error is a [`Failure`].
pub type Result<T> = std::result::Result<T, Failure>;
