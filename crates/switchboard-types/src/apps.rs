//! MCP Apps (extension `io.modelcontextprotocol/ui`): the wire types that let
//! a tool name an HTML view, a `ui://` resource the host renders in a
//! sandboxed iframe next to the tool's result.
//!
//! Why a module of its own: three parts of the project write these
//! `_meta` objects (the server builder, the `switchboard.toml` apps folder
//! and the built-in views), and `switchboard check` validates the same
//! origins the builder does; one definition keeps them from drifting. The
//! rule for a CSP origin lives in [`check_origin`], once.
//!
//! What goes where on the wire:
//! - a UI resource (`resources/list` and every `resources/read` content of
//!   it) carries `_meta.ui` = [`UiResourceMeta`];
//! - a tool carries `_meta.ui` = [`ToolUi`] and, for hosts that still read
//!   it, the deprecated flat key [`TOOL_RESOURCE_URI_KEY`] with the same URI;
//! - a client that renders views declares
//!   `capabilities.extensions["io.modelcontextprotocol/ui"] = {"mimeTypes": [...]}`,
//!   read with [`UiSupport::from_capabilities`].
//!
//! Spec: `specification/2026-01-26/apps.mdx` of `modelcontextprotocol/ext-apps`
//! (`McpUiResourceMeta`, `McpUiResourceCsp`, `McpUiResourcePermissions`,
//! `McpUiToolMeta`, `McpUiClientCapabilities`).
//!
//! ```
//! use switchboard_types::apps::{ToolUi, UiCsp, UiResourceMeta, Visibility};
//! let meta = UiResourceMeta {
//!     csp: Some(UiCsp { connect_domains: vec!["https://api.example.com".into()], ..UiCsp::default() }),
//!     prefers_border: Some(true),
//!     ..UiResourceMeta::default()
//! };
//! assert_eq!(
//!     serde_json::to_value(&meta).unwrap(),
//!     serde_json::json!({"csp": {"connectDomains": ["https://api.example.com"]}, "prefersBorder": true})
//! );
//! let tool = ToolUi::new("ui://weather/view").visibility(vec![Visibility::App]);
//! assert_eq!(
//!     serde_json::to_value(&tool).unwrap(),
//!     serde_json::json!({"resourceUri": "ui://weather/view", "visibility": ["app"]})
//! );
//! ```

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::meta::Meta;

/// The extension's identifier, `io.modelcontextprotocol/ui`.
pub const EXTENSION: &str = crate::extensions::UI;

/// The MIME type of an MCP App view: HTML meant to run under the Apps
/// bridge.
pub const MIME_TYPE: &str = "text/html;profile=mcp-app";

/// The URI scheme every UI resource uses.
pub const URI_SCHEME: &str = "ui://";

/// The `_meta` key (of a resource, its contents, or a tool) holding the
/// extension's object.
pub const META_KEY: &str = "ui";

/// The deprecated flat tool `_meta` key that current hosts still read for
/// the view's URI (`_meta["ui/resourceUri"]`).
pub const TOOL_RESOURCE_URI_KEY: &str = "ui/resourceUri";

/// Content Security Policy origins a view needs (`McpUiResourceCsp`). The
/// host builds the iframe's CSP from them; an empty list means none (no
/// network, no nested frames, `base-uri 'self'`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UiCsp {
    /// Origins for `fetch`, XHR and WebSocket (`connect-src`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub connect_domains: Vec<String>,
    /// Origins for scripts, styles, images, fonts and media (`script-src`,
    /// `style-src`, `img-src`, `font-src`, `media-src`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resource_domains: Vec<String>,
    /// Origins for nested iframes (`frame-src`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub frame_domains: Vec<String>,
    /// Allowed base URIs of the document (`base-uri`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub base_uri_domains: Vec<String>,
}

impl UiCsp {
    /// Every origin with the wire name of its list, in declaration order.
    pub fn origins(&self) -> impl Iterator<Item = (&'static str, &str)> {
        let lists = [
            ("connectDomains", &self.connect_domains),
            ("resourceDomains", &self.resource_domains),
            ("frameDomains", &self.frame_domains),
            ("baseUriDomains", &self.base_uri_domains),
        ];
        lists.into_iter().flat_map(|(name, list)| list.iter().map(move |o| (name, o.as_str())))
    }

    /// Checks every origin with [`check_origin`]; the error names the list
    /// and the origin.
    pub fn check(&self) -> Result<(), String> {
        for (list, origin) in self.origins() {
            check_origin(origin).map_err(|reason| format!("csp.{list} origin {origin:?}: {reason}"))?;
        }
        Ok(())
    }

    /// Whether every list is empty.
    pub fn is_empty(&self) -> bool {
        self.origins().next().is_none()
    }
}

/// Sandbox permissions a view asks for (`McpUiResourcePermissions`). On the
/// wire a granted permission is an empty object (`{"camera": {}}`) and one
/// not asked for is absent.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "PermissionsWire", into = "PermissionsWire")]
pub struct UiPermissions {
    /// The camera.
    pub camera: bool,
    /// The microphone.
    pub microphone: bool,
    /// The location.
    pub geolocation: bool,
    /// Writing to the clipboard.
    pub clipboard_write: bool,
}

impl UiPermissions {
    /// Whether no permission is asked for.
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }

    /// Sets the permission named `name` as it is spelled on the wire or in
    /// snake case (`camera`, `microphone`, `geolocation`, `clipboardWrite`
    /// or `clipboard_write`); `false` for an unknown name.
    pub fn grant(&mut self, name: &str) -> bool {
        let flag = match name {
            "camera" => &mut self.camera,
            "microphone" => &mut self.microphone,
            "geolocation" => &mut self.geolocation,
            "clipboardWrite" | "clipboard_write" => &mut self.clipboard_write,
            _ => return false,
        };
        *flag = true;
        true
    }
}

/// The wire form of [`UiPermissions`]: each present key grants.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct PermissionsWire {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    camera: Option<Map<String, Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    microphone: Option<Map<String, Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    geolocation: Option<Map<String, Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    clipboard_write: Option<Map<String, Value>>,
}

impl From<PermissionsWire> for UiPermissions {
    fn from(w: PermissionsWire) -> Self {
        Self {
            camera: w.camera.is_some(),
            microphone: w.microphone.is_some(),
            geolocation: w.geolocation.is_some(),
            clipboard_write: w.clipboard_write.is_some(),
        }
    }
}

impl From<UiPermissions> for PermissionsWire {
    fn from(p: UiPermissions) -> Self {
        let granted = |on: bool| on.then(Map::new);
        Self {
            camera: granted(p.camera),
            microphone: granted(p.microphone),
            geolocation: granted(p.geolocation),
            clipboard_write: granted(p.clipboard_write),
        }
    }
}

/// A UI resource's `_meta.ui` (`McpUiResourceMeta`): how the host should
/// sandbox and frame the view.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UiResourceMeta {
    /// Origins the view may reach.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub csp: Option<UiCsp>,
    /// Sandbox permissions it asks for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permissions: Option<UiPermissions>,
    /// A dedicated sandbox origin; its format is the host's (e.g.
    /// `{hash}.claudemcpcontent.com`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
    /// Whether the view wants the host to draw a border and background.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefers_border: Option<bool>,
}

impl UiResourceMeta {
    /// Checks the CSP origins ([`UiCsp::check`]).
    pub fn check(&self) -> Result<(), String> {
        self.csp.as_ref().map_or(Ok(()), UiCsp::check)
    }

    /// The JSON object that goes under `_meta.ui`.
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).expect("UiResourceMeta serializes; qed")
    }

    /// Writes `_meta.ui` into `meta`, replacing any earlier one.
    pub fn write_into(&self, meta: &mut Meta) {
        meta.insert(META_KEY.to_owned(), self.to_value());
    }
}

/// Who may call a tool that has a view (`McpUiToolMeta.visibility`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum Visibility {
    /// The model (the host lists the tool to the agent).
    Model,
    /// The view, through the host's bridge (`tools/call` from the app).
    App,
}

impl Visibility {
    /// The wire name: `"model"` or `"app"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Visibility::Model => "model",
            Visibility::App => "app",
        }
    }

    /// Parses a wire name.
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "model" => Some(Visibility::Model),
            "app" => Some(Visibility::App),
            _ => None,
        }
    }
}

/// A tool's `_meta.ui` (`McpUiToolMeta`): the view that renders its results
/// and who may call it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolUi {
    /// The `ui://` resource of the view.
    pub resource_uri: String,
    /// Who may call the tool; absent means both the model and the app.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub visibility: Option<Vec<Visibility>>,
}

impl ToolUi {
    /// A linkage to `resource_uri`, callable by both model and app.
    pub fn new(resource_uri: impl Into<String>) -> Self {
        Self { resource_uri: resource_uri.into(), visibility: None }
    }

    /// Restricts who may call the tool.
    #[must_use]
    pub fn visibility(mut self, visibility: Vec<Visibility>) -> Self {
        self.visibility = Some(visibility);
        self
    }

    /// Writes `_meta.ui` and the deprecated flat `_meta["ui/resourceUri"]`
    /// into a tool's `meta`, keeping its other keys.
    pub fn write_into(&self, meta: &mut Meta) {
        let value = serde_json::to_value(self).expect("ToolUi serializes; qed");
        meta.insert(META_KEY.to_owned(), value);
        meta.insert(TOOL_RESOURCE_URI_KEY.to_owned(), Value::String(self.resource_uri.clone()));
    }

    /// Reads a tool's linkage from its `_meta`: `_meta.ui`, or the flat key
    /// when only that is present.
    pub fn from_meta(meta: &Meta) -> Option<Self> {
        if let Some(ui) = meta.get(META_KEY).and_then(|v| serde_json::from_value::<Self>(v.clone()).ok()) {
            return Some(ui);
        }
        meta.get(TOOL_RESOURCE_URI_KEY).and_then(Value::as_str).map(Self::new)
    }
}

/// What a client declared under
/// `capabilities.extensions["io.modelcontextprotocol/ui"]`
/// (`McpUiClientCapabilities`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UiSupport {
    /// The view MIME types the host renders.
    #[serde(default)]
    pub mime_types: Vec<String>,
}

impl UiSupport {
    /// Reads the extension's settings object; `None` when it is not an
    /// object (a client that declares the extension with `{}` supports it
    /// with no MIME type listed). Non-string MIME types are skipped, as
    /// every reader here is tolerant.
    pub fn from_capabilities(settings: &Value) -> Option<UiSupport> {
        let object = settings.as_object()?;
        let mime_types = object
            .get("mimeTypes")
            .and_then(Value::as_array)
            .map(|list| list.iter().filter_map(Value::as_str).map(str::to_owned).collect())
            .unwrap_or_default();
        Some(UiSupport { mime_types })
    }

    /// Whether the host renders MCP App HTML ([`MIME_TYPE`]).
    pub fn renders_html(&self) -> bool {
        self.mime_types.iter().any(|m| m == MIME_TYPE)
    }
}

/// Whether `uri` is a UI resource URI (`ui://…` with something after the
/// scheme).
pub fn is_ui_uri(uri: &str) -> bool {
    uri.strip_prefix(URI_SCHEME).is_some_and(|rest| !rest.is_empty())
}

/// The one rule for a CSP origin in [`UiCsp`]: a scheme (`https`, `http`,
/// `wss` or `ws`), `://`, a host, and an optional `:port` (digits, or `*`).
/// The host is a DNS name, an IPv4 address, a bracketed IPv6 address, or a
/// wildcard subdomain `*.example.com`. Nothing else: no path, query,
/// fragment, user info, quotes, spaces or semicolons, any of which would
/// let one entry smuggle another directive into the host's policy.
///
/// ```
/// use switchboard_types::apps::check_origin;
/// assert!(check_origin("https://api.example.com").is_ok());
/// assert!(check_origin("wss://*.example.com:8443").is_ok());
/// assert!(check_origin("http://localhost:3000").is_ok());
/// assert!(check_origin("api.example.com").is_err(), "the scheme is required");
/// assert!(check_origin("https://a.com; script-src *").is_err());
/// assert!(check_origin("https://a.com/path").is_err());
/// ```
pub fn check_origin(origin: &str) -> Result<(), String> {
    let Some((scheme, rest)) = origin.split_once("://") else {
        return Err("an origin starts with its scheme, e.g. https://api.example.com".into());
    };
    if !matches!(scheme, "https" | "http" | "wss" | "ws") {
        return Err(format!("the scheme {scheme:?} is not one of https, http, wss, ws"));
    }
    if let Some(bad) = rest.chars().find(|c| matches!(c, '/' | '?' | '#' | '@' | '\\')) {
        return Err(format!("an origin has no path, query, fragment or user info (found {bad:?})"));
    }
    let (host, port) = split_port(rest)?;
    if let Some(port) = port
        && port != "*"
        && (port.is_empty() || port.len() > 5 || !port.bytes().all(|b| b.is_ascii_digit()))
    {
        return Err(format!("the port {port:?} is not a number (or `*`)"));
    }
    check_host(host)
}

/// Splits `host[:port]`, minding bracketed IPv6 hosts.
fn split_port(rest: &str) -> Result<(&str, Option<&str>), String> {
    if rest.starts_with('[') {
        let Some(end) = rest.find(']') else {
            return Err("an IPv6 host is missing its closing `]`".into());
        };
        let (host, after) = rest.split_at(end + 1);
        return match after {
            "" => Ok((host, None)),
            _ => match after.strip_prefix(':') {
                Some(port) => Ok((host, Some(port))),
                None => Err(format!("unexpected {after:?} after the IPv6 host")),
            },
        };
    }
    Ok(match rest.rsplit_once(':') {
        Some((host, port)) => (host, Some(port)),
        None => (rest, None),
    })
}

/// A DNS name (optionally `*.`-prefixed), an IPv4 address or `[IPv6]`.
fn check_host(host: &str) -> Result<(), String> {
    if let Some(inner) = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
        let ok =
            !inner.is_empty() && inner.bytes().all(|b| b.is_ascii_hexdigit() || matches!(b, b':' | b'.'));
        return if ok { Ok(()) } else { Err(format!("{host:?} is not an IPv6 address")) };
    }
    let name = host.strip_prefix("*.").unwrap_or(host);
    if name.is_empty() {
        return Err("the host is empty".into());
    }
    if name.len() > 253 {
        return Err("the host is longer than 253 characters".into());
    }
    for label in name.split('.') {
        let bytes = label.as_bytes();
        let valid = !bytes.is_empty()
            && bytes.len() <= 63
            && bytes.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'-')
            && bytes.first() != Some(&b'-')
            && bytes.last() != Some(&b'-');
        if !valid {
            return Err(format!(
                "{label:?} is not a host name label (letters, digits and inner hyphens; `*` only as a \
                 leading `*.`)"
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn permissions_are_empty_objects_on_the_wire() {
        let p = UiPermissions { camera: true, clipboard_write: true, ..UiPermissions::default() };
        assert_eq!(serde_json::to_value(p).unwrap(), json!({"camera": {}, "clipboardWrite": {}}));
        let back: UiPermissions =
            serde_json::from_value(json!({"microphone": {}, "geolocation": {}})).unwrap();
        assert!(back.microphone && back.geolocation && !back.camera && !back.clipboard_write);
        assert_eq!(serde_json::to_value(UiPermissions::default()).unwrap(), json!({}));
    }

    #[test]
    fn resource_meta_uses_the_spec_names() {
        let meta = UiResourceMeta {
            csp: Some(UiCsp {
                connect_domains: vec!["https://a.example".into()],
                resource_domains: vec!["https://b.example".into()],
                frame_domains: vec!["https://c.example".into()],
                base_uri_domains: vec!["https://d.example".into()],
            }),
            permissions: Some(UiPermissions { geolocation: true, ..Default::default() }),
            domain: Some("abc.example".into()),
            prefers_border: Some(false),
        };
        let value = meta.to_value();
        assert_eq!(
            value,
            json!({
                "csp": {
                    "connectDomains": ["https://a.example"],
                    "resourceDomains": ["https://b.example"],
                    "frameDomains": ["https://c.example"],
                    "baseUriDomains": ["https://d.example"]
                },
                "permissions": {"geolocation": {}},
                "domain": "abc.example",
                "prefersBorder": false
            })
        );
        assert_eq!(serde_json::from_value::<UiResourceMeta>(value).unwrap(), meta);
    }

    #[test]
    fn tool_ui_writes_both_keys_and_reads_either() {
        let mut meta = Meta::new();
        meta.insert("other".into(), json!(1));
        ToolUi::new("ui://s/v").visibility(vec![Visibility::Model, Visibility::App]).write_into(&mut meta);
        assert_eq!(meta["ui"], json!({"resourceUri": "ui://s/v", "visibility": ["model", "app"]}));
        assert_eq!(meta["ui/resourceUri"], json!("ui://s/v"));
        assert_eq!(meta["other"], json!(1));
        let mut flat = Meta::new();
        flat.insert(TOOL_RESOURCE_URI_KEY.into(), json!("ui://s/old"));
        assert_eq!(ToolUi::from_meta(&flat), Some(ToolUi::new("ui://s/old")));
    }

    #[test]
    fn ui_support_reads_mime_types_tolerantly() {
        let s = UiSupport::from_capabilities(&json!({"mimeTypes": [MIME_TYPE, 5]})).unwrap();
        assert!(s.renders_html());
        assert_eq!(s.mime_types, vec![MIME_TYPE.to_owned()]);
        let empty = UiSupport::from_capabilities(&json!({})).unwrap();
        assert!(!empty.renders_html());
        assert_eq!(UiSupport::from_capabilities(&json!(true)), None);
    }

    #[test]
    fn origins_accepted() {
        for origin in [
            "https://api.example.com",
            "http://localhost",
            "http://127.0.0.1:8080",
            "ws://localhost:*",
            "wss://*.example.com",
            "https://[::1]:3000",
            "https://xn--bcher-kva.example",
        ] {
            assert_eq!(check_origin(origin), Ok(()), "{origin}");
        }
    }

    #[test]
    fn origins_refused() {
        for origin in [
            "",
            "example.com",
            "*.example.com",
            "ftp://example.com",
            "javascript://x",
            "https://",
            "https://*",
            "https://a.*.example.com",
            "https://example.com/",
            "https://example.com/path",
            "https://example.com?q",
            "https://example.com#f",
            "https://user@example.com",
            "https://example.com; script-src *",
            "https://example.com 'unsafe-inline'",
            "https://'self'",
            "https://exa\"mple.com",
            "https://-bad.example",
            "https://example.com:abc",
            "https://example.com:123456",
            "https://[::1",
            "https://[zz]",
        ] {
            assert!(check_origin(origin).is_err(), "{origin:?} was accepted");
        }
    }

    #[test]
    fn ui_uris() {
        assert!(is_ui_uri("ui://server/view"));
        assert!(!is_ui_uri("ui://"));
        assert!(!is_ui_uri("https://x/y"));
        assert!(!is_ui_uri("UI://x"), "the scheme is matched as the spec spells it");
    }
}
