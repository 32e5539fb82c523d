//! MIME types: from the extension when it is known, else from the first
//! bytes (magic numbers for binary formats, UTF-8 for text).

use std::io::Read;
use std::path::Path;

/// Names of extension-less files that are text by convention.
const TEXT_NAMES: &[&str] =
    &["Makefile", "Dockerfile", "LICENSE", "README", "CHANGELOG", "AUTHORS", "NOTICE", "COPYING"];

/// The MIME type of the file at `path`.
pub(crate) fn guess(path: &Path) -> String {
    if let Some(mime) = mime_guess::from_path(path).first() {
        return mime.essence_str().to_owned();
    }
    if let Some(name) = path.file_name().and_then(|n| n.to_str())
        && TEXT_NAMES.iter().any(|t| name.eq_ignore_ascii_case(t))
    {
        return "text/plain".to_owned();
    }
    let mut head = [0u8; 1024];
    let n = std::fs::File::open(path).and_then(|mut f| f.read(&mut head)).unwrap_or(0);
    sniff(&head[..n]).to_owned()
}

/// The MIME type of contents starting with `head`.
pub(crate) fn sniff(head: &[u8]) -> &'static str {
    if let Some(kind) = infer::get(head) {
        return kind.mime_type();
    }
    if is_text(head) { "text/plain" } else { "application/octet-stream" }
}

/// Whether bytes look like text: UTF-8 (allowing a character cut at the
/// end of a prefix) with no NUL.
pub(crate) fn is_text(bytes: &[u8]) -> bool {
    if bytes.contains(&0) {
        return false;
    }
    match std::str::from_utf8(bytes) {
        Ok(_) => true,
        Err(e) => e.error_len().is_none() && bytes.len() - e.valid_up_to() < 4,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sniffs_text_and_binary() {
        assert_eq!(sniff(b"hello\nworld"), "text/plain");
        assert_eq!(sniff(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR"), "image/png");
        assert_eq!(sniff(b"a\0b"), "application/octet-stream");
        assert!(is_text("é".as_bytes()));
        assert!(is_text(&"é".as_bytes()[..1]));
        assert!(!is_text(b"\xff\xfe"));
    }
}
