//! MIME types: from the file's name when it is known, else from the first
//! bytes (magic numbers for binary formats, UTF-8 for text).
//!
//! ## Why a table of our own in front of `mime_guess`
//!
//! `mime_guess` is a maintained table of the web's types, and it is what
//! names everything else (images, archives, fonts, documents). For source
//! code it is wrong where it matters most to a model: `.ts` is an MPEG
//! transport stream there (`video/vnd.dlna.mpeg-tts`), `.java`
//! `application/octet-stream`, `.py`, `.c` and `.cs` plain text, and `.go`,
//! `.kt` or `.swift` unknown. A client decides from the type whether a file
//! is text and which language it is, so [`SOURCE_EXTENSIONS`] and
//! [`SOURCE_NAMES`] are consulted first. They pin every type they list,
//! even where `mime_guess` agrees today (`.rs`), so an update of that table
//! cannot change what a project's files are served as.
//!
//! ## What was chosen
//!
//! - A registered type where there is one: `text/javascript` (RFC 9239,
//!   also for `.mjs` and `.cjs`), `text/markdown` (RFC 7763),
//!   `application/yaml` (RFC 9512) and `application/toml` (in the IANA
//!   registry since 2024). These are the only non-`text/` types here.
//! - Otherwise the `text/x-<language>` name that editors, highlighters and
//!   the freedesktop.org shared MIME database commonly use (`text/x-python`,
//!   `text/x-java`, `text/x-rust`, `text/x-c`, `text/x-c++`, …). Where those
//!   sources disagree (shell scripts are `application/x-shellscript` in
//!   shared-mime-info, Ruby `application/x-ruby`) the `text/` name is taken:
//!   clients treat `text/*` as text they may show and quote.
//! - `text/typescript` for TypeScript, and `text/tsx` / `text/jsx` for the
//!   JSX dialects, as Deno and editors name them. A `.ts` file is far more
//!   often TypeScript than a video in a project folder; a real transport
//!   stream is still read as a base64 blob, because reads decide text or
//!   blob from the bytes, not from the type.
//! - Files known by their whole name (`Dockerfile`, `Makefile`, `Gemfile`,
//!   …) get their language's type; conventional text files with no
//!   extension (`LICENSE`, `README`, …) are `text/plain`.
//!
//! Extensions and names are matched without regard to case (`App.TS`,
//! `dockerfile`).

use std::io::Read;
use std::path::Path;
use std::sync::RwLock;

/// Source code and the project's text formats by extension (lower case),
/// consulted before `mime_guess`.
pub(crate) const SOURCE_EXTENSIONS: &[(&[&str], &str)] = &[
    (&["ts", "mts", "cts"], "text/typescript"),
    (&["tsx"], "text/tsx"),
    (&["js", "mjs", "cjs"], "text/javascript"),
    (&["jsx"], "text/jsx"),
    (&["java"], "text/x-java"),
    (&["py", "pyi", "pyw"], "text/x-python"),
    (&["rs"], "text/x-rust"),
    (&["go"], "text/x-go"),
    (&["c", "h"], "text/x-c"),
    (&["cpp", "cc", "cxx", "c++", "hpp", "hh", "hxx", "h++", "ipp"], "text/x-c++"),
    (&["cs"], "text/x-csharp"),
    (&["rb", "rake", "gemspec"], "text/x-ruby"),
    (&["php"], "text/x-php"),
    (&["swift"], "text/x-swift"),
    (&["kt", "kts"], "text/x-kotlin"),
    (&["scala", "sc"], "text/x-scala"),
    (&["groovy", "gradle"], "text/x-groovy"),
    (&["sh", "bash", "zsh", "ksh"], "text/x-shellscript"),
    (&["ps1", "psm1"], "text/x-powershell"),
    (&["bat", "cmd"], "text/x-msdos-batch"),
    (&["pl", "pm"], "text/x-perl"),
    (&["lua"], "text/x-lua"),
    (&["r"], "text/x-r"),
    (&["jl"], "text/x-julia"),
    (&["hs", "lhs"], "text/x-haskell"),
    (&["ml", "mli"], "text/x-ocaml"),
    (&["fs", "fsi", "fsx"], "text/x-fsharp"),
    (&["ex", "exs"], "text/x-elixir"),
    (&["erl", "hrl"], "text/x-erlang"),
    (&["clj", "cljs", "cljc", "edn"], "text/x-clojure"),
    (&["elm"], "text/x-elm"),
    (&["zig"], "text/x-zig"),
    (&["nix"], "text/x-nix"),
    (&["proto"], "text/x-protobuf"),
    (&["sql"], "text/x-sql"),
    (&["vue"], "text/x-vue"),
    (&["svelte"], "text/x-svelte"),
    (&["cmake"], "text/x-cmake"),
    (&["mk", "mak"], "text/x-makefile"),
    (&["diff", "patch"], "text/x-diff"),
    (&["toml"], "application/toml"),
    (&["yaml", "yml"], "application/yaml"),
    (&["md", "markdown"], "text/markdown"),
];

/// Files known by their whole name, consulted before the extension
/// (`CMakeLists.txt` is CMake, not plain text).
pub(crate) const SOURCE_NAMES: &[(&[&str], &str)] = &[
    (&["Dockerfile", "Containerfile"], "text/x-dockerfile"),
    (&["Makefile", "GNUmakefile"], "text/x-makefile"),
    (&["CMakeLists.txt"], "text/x-cmake"),
    (&["Rakefile", "Gemfile", "Vagrantfile"], "text/x-ruby"),
    (&["Jenkinsfile"], "text/x-groovy"),
    (&["LICENSE", "README", "CHANGELOG", "AUTHORS", "NOTICE", "COPYING"], "text/plain"),
];

/// The MIME type `path` has by its name alone: `SOURCE_NAMES`, then
/// `SOURCE_EXTENSIONS`, then `mime_guess`; `None` when none knows it.
pub fn mime_from_name(path: &Path) -> Option<&'static str> {
    let name = path.file_name()?.to_str()?;
    if let Some((_, mime)) =
        SOURCE_NAMES.iter().find(|(names, _)| names.iter().any(|n| n.eq_ignore_ascii_case(name)))
    {
        return Some(mime);
    }
    let ext = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
    if let Some(ext) = ext
        && let Some((_, mime)) = SOURCE_EXTENSIONS.iter().find(|(exts, _)| exts.contains(&ext.as_str()))
    {
        return Some(mime);
    }
    mime_guess::from_path(path).first_raw()
}

/// The MIME type of the file at `path`: by name, else by its first bytes
/// (what the `file://` resources announce; the file tools report it too).
pub fn mime_of_file(path: &Path) -> String {
    guess(path).to_owned()
}

/// The MIME type of contents starting with `head`, from the bytes alone
/// (magic numbers, else text or `application/octet-stream`).
pub fn mime_from_content(head: &[u8]) -> &'static str {
    sniff(head)
}

/// Every MIME type given out so far, by number ([`number`]): an index
/// entry keeps two bytes instead of a 16-byte `&'static str`. The types
/// come from fixed tables (ours, `mime_guess`'s, `infer`'s), so the list
/// stays a few dozen long.
static NUMBERED: RwLock<Vec<&'static str>> = RwLock::new(Vec::new());

/// The number of `mime` in [`NUMBERED`], adding it the first time. Past
/// `u16::MAX - 1` distinct types (which no fixed table holds) a type is
/// kept as `application/octet-stream`.
pub(crate) fn number(mime: &'static str) -> u16 {
    let position = |types: &[&'static str]| types.iter().position(|t| *t == mime);
    if let Some(i) = position(&NUMBERED.read().unwrap_or_else(|p| p.into_inner())) {
        return i as u16;
    }
    let mut types = NUMBERED.write().unwrap_or_else(|p| p.into_inner());
    if let Some(i) = position(&types) {
        return i as u16;
    }
    if types.len() >= usize::from(u16::MAX) {
        // Numbered nowhere: `numbered` reads it as octet-stream.
        return u16::MAX;
    }
    types.push(mime);
    (types.len() - 1) as u16
}

/// The MIME type numbered `n` by [`number`].
pub(crate) fn numbered(n: u16) -> &'static str {
    NUMBERED
        .read()
        .unwrap_or_else(|p| p.into_inner())
        .get(usize::from(n))
        .copied()
        .unwrap_or("application/octet-stream")
}

/// The MIME type of the file at `path`: by name, else by its first bytes.
pub(crate) fn guess(path: &Path) -> &'static str {
    if let Some(mime) = mime_from_name(path) {
        return mime;
    }
    let mut head = [0u8; 1024];
    let n = std::fs::File::open(path).and_then(|mut f| f.read(&mut head)).unwrap_or(0);
    sniff(&head[..n])
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

    fn by_name(name: &str) -> Option<&'static str> {
        mime_from_name(Path::new(name))
    }

    #[test]
    fn sniffs_text_and_binary() {
        assert_eq!(sniff(b"hello\nworld"), "text/plain");
        assert_eq!(sniff(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR"), "image/png");
        assert_eq!(sniff(b"a\0b"), "application/octet-stream");
        assert!(is_text("é".as_bytes()));
        assert!(is_text(&"é".as_bytes()[..1]));
        assert!(!is_text(b"\xff\xfe"));
    }

    #[test]
    fn source_files_have_their_language_type() {
        let expected = [
            ("a.ts", "text/typescript"),
            ("a.mts", "text/typescript"),
            ("a.cts", "text/typescript"),
            ("a.tsx", "text/tsx"),
            ("a.js", "text/javascript"),
            ("a.mjs", "text/javascript"),
            ("a.cjs", "text/javascript"),
            ("a.jsx", "text/jsx"),
            ("B.java", "text/x-java"),
            ("c.py", "text/x-python"),
            ("lib.rs", "text/x-rust"),
            ("main.go", "text/x-go"),
            ("x.c", "text/x-c"),
            ("x.h", "text/x-c"),
            ("x.cpp", "text/x-c++"),
            ("x.cc", "text/x-c++"),
            ("x.hpp", "text/x-c++"),
            ("X.cs", "text/x-csharp"),
            ("x.rb", "text/x-ruby"),
            ("x.php", "text/x-php"),
            ("x.swift", "text/x-swift"),
            ("x.kt", "text/x-kotlin"),
            ("x.scala", "text/x-scala"),
            ("x.sh", "text/x-shellscript"),
            ("x.bash", "text/x-shellscript"),
            ("Cargo.toml", "application/toml"),
            ("ci.yaml", "application/yaml"),
            ("ci.yml", "application/yaml"),
            ("README.md", "text/markdown"),
            ("q.sql", "text/x-sql"),
            ("x.lua", "text/x-lua"),
            ("App.vue", "text/x-vue"),
            ("App.svelte", "text/x-svelte"),
        ];
        for (name, mime) in expected {
            assert_eq!(by_name(name), Some(mime), "{name}");
        }
    }

    #[test]
    fn extensions_and_names_ignore_case() {
        assert_eq!(by_name("src/App.TS"), Some("text/typescript"));
        assert_eq!(by_name("Main.Java"), Some("text/x-java"));
        assert_eq!(by_name("Dockerfile"), Some("text/x-dockerfile"));
        assert_eq!(by_name("dockerfile"), Some("text/x-dockerfile"));
        assert_eq!(by_name("makefile"), Some("text/x-makefile"));
        assert_eq!(by_name("docker/Containerfile"), Some("text/x-dockerfile"));
        assert_eq!(by_name("Makefile"), Some("text/x-makefile"));
        assert_eq!(by_name("GNUmakefile"), Some("text/x-makefile"));
        assert_eq!(by_name("CMakeLists.txt"), Some("text/x-cmake"), "the name before the extension");
        assert_eq!(by_name("notes.txt"), Some("text/plain"));
        assert_eq!(by_name("LICENSE"), Some("text/plain"));
        assert_eq!(by_name("blob"), None, "unknown: the bytes decide");
    }

    #[test]
    fn everything_else_comes_from_mime_guess() {
        assert_eq!(by_name("logo.png"), Some("image/png"));
        assert_eq!(by_name("data.json"), Some("application/json"));
        assert_eq!(by_name("style.css"), Some("text/css"));
        assert_eq!(by_name("index.html"), Some("text/html"));
    }

    #[test]
    fn the_tables_are_well_formed() {
        let mut seen = std::collections::HashSet::new();
        for (exts, mime) in SOURCE_EXTENSIONS {
            for ext in *exts {
                assert_eq!(*ext, ext.to_ascii_lowercase(), "extensions are listed in lower case");
                assert!(!ext.starts_with('.'), "{ext}: no dot");
                assert!(seen.insert(ext.to_string()), "{ext} is listed twice");
            }
            assert!(
                mime.starts_with("text/") || ["application/toml", "application/yaml"].contains(mime),
                "{mime}: a text type, or a registered text format"
            );
        }
        for (names, _) in SOURCE_NAMES {
            for name in *names {
                assert!(seen.insert(name.to_ascii_lowercase()), "{name} is listed twice");
            }
        }
    }
}
