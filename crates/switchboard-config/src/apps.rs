//! A view's side file: `apps/<name>.toml` beside `apps/<name>.html` says
//! how a host should show the view (MCP Apps `_meta.ui` of its resource).
//!
//! ```toml
//! title = "Test report"
//! description = "The last test run, failures first"
//! prefers_border = true
//! domain = "report.example.com"       # a dedicated sandbox origin (the host's format)
//! permissions = ["clipboard_write"]   # camera, microphone, geolocation, clipboard_write
//!
//! [csp]                                # origins the view may reach; none by default
//! connect_domains = ["https://api.example.com"]
//! resource_domains = ["https://cdn.example.com"]
//! frame_domains = []
//! base_uri_domains = []
//! ```
//!
//! Why here: like `switchboard.toml`, every problem of the file is placed
//! at its line and column, and a CSP origin is judged by the one rule of
//! the protocol crate ([`switchboard_types::apps::check_origin`]), so
//! `switchboard check` and the framework's builder refuse the same origins.

use std::path::Path;

use serde::Deserialize;
use switchboard_types::apps::{UiCsp, UiPermissions, UiResourceMeta, check_origin};
use toml::Spanned;

use crate::Problem;

/// What a side file gives a view.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ViewSettings {
    /// The resource's display title.
    pub title: Option<String>,
    /// The resource's description.
    pub description: Option<String>,
    /// The resource's `_meta.ui`: CSP origins, permissions, domain, border.
    pub meta: UiResourceMeta,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SideFile {
    title: Option<String>,
    description: Option<String>,
    domain: Option<String>,
    prefers_border: Option<bool>,
    #[serde(default)]
    permissions: Vec<Spanned<String>>,
    #[serde(default)]
    csp: SideCsp,
}

#[derive(Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct SideCsp {
    connect_domains: Vec<Spanned<String>>,
    resource_domains: Vec<Spanned<String>>,
    frame_domains: Vec<Spanned<String>>,
    base_uri_domains: Vec<Spanned<String>>,
}

/// The settings of the side file `file` (its text is `text`), or every
/// problem of it, each at its line and column.
pub fn view_settings(file: &Path, text: &str) -> Result<ViewSettings, Vec<Problem>> {
    let at = |span: std::ops::Range<usize>, message: String| Problem::at(Some(file), text, span, message);
    let side: SideFile = toml::from_str(text).map_err(|e| {
        let message = format!(
            "{} (a view's side file has title, description, domain, prefers_border, permissions and [csp])",
            e.message().trim_end()
        );
        vec![at(e.span().unwrap_or(0..0), message)]
    })?;
    let mut problems = Vec::new();
    let mut origins = |list: Vec<Spanned<String>>, key: &str| -> Vec<String> {
        let mut kept = Vec::with_capacity(list.len());
        for origin in list {
            let span = origin.span();
            let origin = origin.into_inner();
            match check_origin(&origin) {
                Ok(()) => kept.push(origin),
                Err(reason) => problems.push(at(
                    span,
                    format!(
                        "[csp] {key}: {reason}; give an origin such as \"https://api.example.com\" or \
                         \"https://*.example.com\""
                    ),
                )),
            }
        }
        kept
    };
    let csp = UiCsp {
        connect_domains: origins(side.csp.connect_domains, "connect_domains"),
        resource_domains: origins(side.csp.resource_domains, "resource_domains"),
        frame_domains: origins(side.csp.frame_domains, "frame_domains"),
        base_uri_domains: origins(side.csp.base_uri_domains, "base_uri_domains"),
    };
    let mut permissions = UiPermissions::default();
    for name in side.permissions {
        if !permissions.grant(name.get_ref()) {
            problems.push(at(
                name.span(),
                format!(
                    "unknown permission {:?}; the permissions are camera, microphone, geolocation and \
                     clipboard_write",
                    name.get_ref()
                ),
            ));
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    let meta = UiResourceMeta {
        csp: (!csp.is_empty()).then_some(csp),
        permissions: (!permissions.is_empty()).then_some(permissions),
        domain: side.domain,
        prefers_border: side.prefers_border,
    };
    Ok(ViewSettings { title: side.title, description: side.description, meta })
}

/// Why `name` (a file name without `.html`) cannot be a view's name, if it
/// cannot: a view is named in `ui = "…"` and in its `ui://` URI, so its
/// name is letters, digits, `-` and `_`.
pub fn view_name_problem(name: &str) -> Option<String> {
    let plain = !name.is_empty()
        && name.len() <= 128
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    (!plain).then(|| {
        format!(
            "{name:?} is not a view name: use letters, digits, '-' and '_' (up to 128), like \"report\" \
             for apps/report.html"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_side_file_gives_the_resource_meta() {
        let text = "title = \"Report\"\nprefers_border = true\npermissions = [\"camera\", \"clipboard_write\"]\n\
                    [csp]\nconnect_domains = [\"https://api.example.com\"]\n";
        let settings = view_settings(Path::new("apps/report.toml"), text).unwrap();
        assert_eq!(settings.title.as_deref(), Some("Report"));
        let meta = serde_json::to_value(&settings.meta).unwrap();
        assert_eq!(
            meta,
            serde_json::json!({
                "csp": {"connectDomains": ["https://api.example.com"]},
                "permissions": {"camera": {}, "clipboardWrite": {}},
                "prefersBorder": true
            })
        );
    }

    #[test]
    fn every_bad_origin_and_permission_is_placed_at_its_line() {
        let text = "permissions = [\"telepathy\"]\n[csp]\nconnect_domains = [\"https://ok.example.com\", \
                    \"https://x.example.com/path\"]\nframe_domains = [\"'self'\"]\n";
        let problems = view_settings(Path::new("apps/v.toml"), text).unwrap_err();
        let lines: Vec<usize> = problems.iter().map(|p| p.line).collect();
        assert_eq!(lines.len(), 3, "{problems:?}");
        assert!(lines.contains(&1) && lines.contains(&3) && lines.contains(&4), "{problems:?}");
        assert!(problems.iter().any(|p| p.message.contains("connect_domains")), "{problems:?}");
    }

    #[test]
    fn an_unknown_key_is_a_placed_problem() {
        let problems = view_settings(Path::new("apps/v.toml"), "\n\ncolour = \"red\"\n").unwrap_err();
        assert_eq!(problems[0].line, 3, "{problems:?}");
    }

    #[test]
    fn view_names_are_plain() {
        assert!(view_name_problem("report-2_b").is_none());
        assert!(view_name_problem("my view").is_some());
        assert!(view_name_problem("").is_some());
    }
}
