//! How a prompt stops early: the terminal failed, or the person, the clock or the server ended it.

use std::io;

use crate::lifecycle::Stop;

/// Why asking stopped before an answer.
#[derive(Debug)]
pub enum Flow {
    /// Reading or writing the terminal failed.
    Io(io::Error),
    /// Esc/Ctrl-C, the timeout or the server's cancel.
    Stop(Stop),
    /// Ctrl-R: the person rejects the request.
    Reject,
}

impl From<io::Error> for Flow {
    fn from(error: io::Error) -> Self {
        Flow::Io(error)
    }
}
