//! The crate's error type: what can fail when starting the server.

/// Errors from starting the HTTP server.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Binding or serving failed.
    #[error("HTTP server I/O error: {0}")]
    Io(#[from] std::io::Error),
}
