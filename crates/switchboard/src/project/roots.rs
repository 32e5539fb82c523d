//! Serving the client's roots: `switchboard serve` over stdio with no folder
//! and no `--config`.
//!
//! MCP hosts start servers in `/` or the home folder, which switchboard never
//! serves unnamed, but a host that declares the `roots` capability says
//! which folders the user is working in. So, after `notifications/initialized`:
//!
//! - a client with `roots` is asked `roots/list`; its `file://` roots that
//!   are local folders, and neither `/`, the home folder nor a folder holding
//!   it (the rule of [`unservable_folder`], the same as for the working
//!   folder), are served: one root as the served folder (as `serve ROOT`
//!   would), several as `[[files.roots]]` mounted under their folder names
//!   (made unique), with the first root's configuration. Without a
//!   `switchboard.toml` in it, that is the embedded default: read-only.
//!   `notifications/roots/list_changed` asks again and switches live;
//! - a client without `roots` keeps what `serve` does with no folder: the
//!   working folder, or, when that is refused, the same refusal (exit 2).
//!
//! Until the first answer, the working folder is served as before, or
//! nothing (an empty private folder) when the working folder is refused:
//! requests never wait for a client that may be slow to answer, and
//! switching announces `list_changed` like any reload, which is the
//! protocol's way of saying "ask again". A client whose roots are all
//! refused gets nothing served rather than a folder it did not name.
//!
//! Switching goes through the live-reload loop (`live::run`): a new
//! [`Source`] is loaded and applied like an edited configuration.

use std::io::IsTerminal as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use switchboard_files::RootSpec;
use switchboard_server::Session;
use tokio::sync::{mpsc, oneshot};

use super::source::{Source, unservable_folder};
use crate::exit;

/// How long a `roots/list` may take before the roots in force stay.
const ANSWER_WAIT: Duration = Duration::from_secs(30);

/// Most roots served at once (more are left out, with a warning).
const MAX_ROOTS: usize = 32;

/// What the notification hook hands the follower.
pub(crate) enum Notice {
    /// `notifications/initialized`.
    Ready(Arc<Session>),
    /// `notifications/roots/list_changed`.
    Changed(Arc<Session>),
}

/// The server's notification hook: passes on the two notifications that
/// matter here, without waiting.
pub(crate) fn hook(notices: mpsc::UnboundedSender<Notice>) -> impl Fn(&Arc<Session>, &str) + Send + Sync {
    move |session, method| {
        let notice = match method {
            "notifications/initialized" => Notice::Ready(Arc::clone(session)),
            "notifications/roots/list_changed" => Notice::Changed(Arc::clone(session)),
            _ => return,
        };
        let _ = notices.send(notice);
    }
}

/// What serving starts with before the client said anything.
pub(crate) struct Start {
    /// The working folder, or the empty folder when that is refused.
    pub source: Source,
    /// Served when there is nothing else to serve; removed at exit.
    pub empty: tempfile::TempDir,
    /// Why the working folder is not served, if it is not.
    pub refused: Option<String>,
    /// Set once a client's roots were served.
    pub named: Arc<AtomicBool>,
}

impl Start {
    /// How serving ends when stdin closed: the refusal when the working
    /// folder was refused and no client ever named roots (it never said
    /// what to serve, e.g. stdin was empty), else fine.
    pub(crate) fn at_end(&self) -> anyhow::Result<()> {
        match &self.refused {
            Some(reason) if !self.named.load(Ordering::Relaxed) => {
                Err(exit::usage(anyhow::anyhow!("{reason}")))
            }
            _ => Ok(()),
        }
    }
}

impl Start {
    /// The working folder if [`unservable_folder`] allows it, else an
    /// empty private folder.
    pub(crate) fn new() -> anyhow::Result<Self> {
        use anyhow::Context as _;
        let empty = tempfile::Builder::new()
            .prefix("switchboard-no-roots-")
            .tempdir()
            .context("creating an empty folder to serve until the client names its roots")
            .map_err(exit::io)?;
        let cwd = std::env::current_dir()
            .and_then(|d| d.canonicalize())
            .context("the current folder")
            .map_err(exit::io)?;
        let refused = unservable_folder(&cwd).map(|what| {
            format!(
                "no folder to serve was named, the current folder, {}, is {what}, and the client \
                 named no roots; name the project folder, e.g. `switchboard serve /path/to/project`",
                cwd.display()
            )
        });
        // Run by hand in a terminal, no client will name roots: refuse now.
        if let Some(reason) = &refused
            && std::io::stdin().is_terminal()
        {
            return Err(exit::usage(anyhow::anyhow!("{reason}")));
        }
        let dir = if refused.is_some() { canonical(empty.path()) } else { cwd };
        let source = Source { dir, config: None, roots: Vec::new() };
        Ok(Self { source, empty, refused, named: Arc::new(AtomicBool::new(false)) })
    }
}

/// Follows the client: asks for roots when it is ready and whenever they
/// change, and sends the folders to serve on `retarget`. A client without
/// roots while the working folder is refused ends serving through `fatal`.
pub(crate) async fn follow(
    mut notices: mpsc::UnboundedReceiver<Notice>,
    retarget: mpsc::Sender<Source>,
    empty: PathBuf,
    refused: Option<String>,
    named: Arc<AtomicBool>,
    fatal: oneshot::Sender<anyhow::Error>,
) {
    let mut fatal = Some(fatal);
    let mut last: Option<Source> = None;
    while let Some(notice) = notices.recv().await {
        let (session, first) = match notice {
            Notice::Ready(session) => (session, true),
            Notice::Changed(session) => (session, false),
        };
        let declared = session.negotiated().is_some_and(|n| n.client_capabilities.roots.is_some());
        if !declared {
            if first && let (Some(reason), Some(fatal)) = (&refused, fatal.take()) {
                let _ = fatal.send(exit::usage(anyhow::anyhow!("{reason}")));
            }
            continue;
        }
        let Some(roots) = ask(&session).await else { continue };
        let next = source_of(&roots, &empty);
        named.store(true, Ordering::Relaxed);
        if last.as_ref() != Some(&next) {
            last = Some(next.clone());
            if retarget.send(next).await.is_err() {
                return;
            }
        }
    }
}

/// The client's answer to `roots/list` (its `roots` array), or `None`
/// (logged) when it failed or took longer than [`ANSWER_WAIT`].
async fn ask(session: &Session) -> Option<Vec<Value>> {
    let answer = tokio::time::timeout(ANSWER_WAIT, session.request_client_now("roots/list", json!({}))).await;
    match answer {
        Ok(Ok(result)) => match result.get("roots").and_then(Value::as_array) {
            Some(roots) => Some(roots.clone()),
            None => {
                tracing::warn!(%result, "roots/list answer without a roots array; serving what was served");
                None
            }
        },
        Ok(Err(error)) => {
            tracing::warn!(%error, "roots/list failed; serving what was served");
            None
        }
        Err(_) => {
            tracing::warn!(wait = ?ANSWER_WAIT, "no answer to roots/list; serving what was served");
            None
        }
    }
}

/// The folders `roots` names that may be served, as a source: one root is
/// the served folder, several are mounted under their (unique) folder
/// names; none leaves only `empty`.
fn source_of(roots: &[Value], empty: &Path) -> Source {
    let mut folders: Vec<PathBuf> = Vec::new();
    for root in roots {
        let uri = root.get("uri").and_then(Value::as_str).unwrap_or_default();
        match servable(uri) {
            Ok(folder) if !folders.contains(&folder) => folders.push(folder),
            Ok(_) => {}
            Err(reason) => tracing::warn!(uri, "root not served: {reason}"),
        }
    }
    if folders.len() > MAX_ROOTS {
        tracing::warn!(
            roots = folders.len(),
            served = MAX_ROOTS,
            "too many roots; the first ones are served"
        );
        folders.truncate(MAX_ROOTS);
    }
    match folders.as_slice() {
        [] => {
            tracing::warn!("no root can be served; serving nothing");
            Source { dir: canonical(empty), config: None, roots: Vec::new() }
        }
        [only] => Source { dir: only.clone(), config: None, roots: Vec::new() },
        [first, ..] => Source { dir: first.clone(), config: None, roots: mounts(&folders) },
    }
}

/// The local folder a root's `file://` URI names, canonical, if it may be
/// served.
fn servable(uri: &str) -> Result<PathBuf, String> {
    // The scheme and the host are case-insensitive (RFC 3986 3.1, 3.2.2).
    let rest = strip_prefix_ignoring_case(uri, "file://").ok_or("not a file:// URI")?;
    // `file:///path` or `file://localhost/path`; another host is not local.
    let path = strip_prefix_ignoring_case(rest, "localhost").unwrap_or(rest);
    if !path.starts_with('/') {
        return Err("not a local file:// URI".into());
    }
    let path = switchboard_uri_template::percent_decode(path.split(['?', '#']).next().unwrap_or_default())
        .ok_or("the path is not valid percent-encoded UTF-8")?;
    let folder = PathBuf::from(path).canonicalize().map_err(|e| format!("cannot be read: {e}"))?;
    if !folder.is_dir() {
        return Err("not a folder".into());
    }
    match unservable_folder(&folder) {
        Some(what) => Err(format!("{} is {what}", folder.display())),
        None => Ok(folder),
    }
}

/// `text` without `prefix`, compared without regard to ASCII case.
fn strip_prefix_ignoring_case<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    let head = text.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix).then(|| &text[prefix.len()..])
}

/// `[[files.roots]]` for several folders: each mounted under its own name
/// (characters other than letters, digits, `.`, `-` and `_` become `_`;
/// a repeated name gets `-2`, `-3`…).
fn mounts(folders: &[PathBuf]) -> Vec<RootSpec> {
    let mut taken: Vec<String> = Vec::new();
    folders
        .iter()
        .map(|folder| {
            let name: String = folder
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default()
                .chars()
                .map(|c| if c.is_alphanumeric() || matches!(c, '.' | '-' | '_') { c } else { '_' })
                .collect();
            let name =
                if name.is_empty() || name.chars().all(|c| c == '.') { "root".to_owned() } else { name };
            let mut mount = name.clone();
            let mut n = 1;
            while taken.contains(&mount) {
                n += 1;
                mount = format!("{name}-{n}");
            }
            taken.push(mount.clone());
            RootSpec { path: folder.clone(), mount }
        })
        .collect()
}

/// `path` canonical, or as it is when that fails.
fn canonical(path: &Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| path.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_uris_are_decoded_and_other_schemes_and_hosts_refused() {
        assert_eq!(switchboard_uri_template::percent_decode("/a%20b/c").as_deref(), Some("/a b/c"));
        assert_eq!(switchboard_uri_template::percent_decode("/bad%2"), None);
        assert!(servable("https://example.com/x").is_err());
        assert!(servable("file://server/share").is_err());
        assert!(servable("file:///").is_err(), "the root folder is refused");
        let dir = tempfile::tempdir().unwrap();
        let uri = format!("file://{}", dir.path().display());
        assert_eq!(servable(&uri).unwrap(), dir.path().canonicalize().unwrap());
        // Scheme and host in any case, as RFC 3986 allows.
        for uri in
            [format!("FILE://{}", dir.path().display()), format!("file://LocalHost{}", dir.path().display())]
        {
            assert_eq!(servable(&uri).unwrap(), dir.path().canonicalize().unwrap(), "{uri}");
        }
        assert!(servable("FILE:///").is_err() && servable("file://LOCALHOST/").is_err());
    }

    #[test]
    fn several_roots_get_unique_mounts_named_after_their_folders() {
        let specs = mounts(&[PathBuf::from("/a/app"), PathBuf::from("/b/app"), PathBuf::from("/c/my docs")]);
        let names: Vec<&str> = specs.iter().map(|s| s.mount.as_str()).collect();
        assert_eq!(names, ["app", "app-2", "my_docs"]);
    }
}
