//! OAuth 2.1 resource-server role: bearer tokens on every request,
//! Protected Resource Metadata (RFC 9728), scope challenges.
//!
//! Spec: `docs/specification/2025-11-25/basic/authorization.mdx` (and the
//! 2025-06-18 and 2026-07-28 pages, which agree on the server's part):
//! - every request carries `Authorization: Bearer <token>` (never in the
//!   query string); a missing, invalid or expired token is `401` with
//!   `WWW-Authenticate: Bearer resource_metadata="…"` (and the scopes to
//!   request);
//! - tokens must have been issued for this server: the audience must be
//!   [`AuthOptions::resource`] (RFC 8707); tokens are never passed on (the
//!   `Authorization` header is not handed to handlers);
//! - a token without the scopes an operation needs is `403` with
//!   `error="insufficient_scope"` and the scopes to ask for;
//! - the metadata document is served at
//!   `/.well-known/oauth-protected-resource<path of the resource>` and at
//!   `/.well-known/oauth-protected-resource`.
//!
//! Token checking is a [`TokenValidator`]: [`StaticTokens`] for simple
//! setups (API keys) and [`JwtValidator`](crate::JwtValidator) for JWTs
//! signed by an authorization server (RS256/ES256 against a JWKS).

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures::future::BoxFuture;
use serde_json::json;
use sha2::{Digest, Sha256};
use switchboard_server::Principal;

/// Why a token was not accepted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TokenError {
    /// Invalid, expired, or not for this server: `401 invalid_token`.
    #[error("{0}")]
    Invalid(String),
    /// The validator could not decide (its key source is unreachable): `503`.
    #[error("{0}")]
    Unavailable(String),
}

/// Checks a bearer token and says who it belongs to.
pub trait TokenValidator: Send + Sync + 'static {
    /// The principal (subject and granted scopes) of a valid token.
    fn validate<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Principal, TokenError>>;
}

/// Fixed API tokens, each mapped to a principal. Tokens are kept only as
/// SHA-256 digests, so the table leaks nothing and lookups take the same
/// time whatever the token.
#[derive(Default, Clone)]
pub struct StaticTokens {
    by_digest: HashMap<[u8; 32], Principal>,
}

impl fmt::Debug for StaticTokens {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StaticTokens").field("tokens", &self.by_digest.len()).finish()
    }
}

impl StaticTokens {
    /// No tokens yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Accepts `token` as `principal`.
    #[must_use]
    pub fn with(mut self, token: &str, principal: Principal) -> Self {
        self.by_digest.insert(Sha256::digest(token.as_bytes()).into(), principal);
        self
    }
}

impl TokenValidator for StaticTokens {
    fn validate<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Principal, TokenError>> {
        let digest: [u8; 32] = Sha256::digest(token.as_bytes()).into();
        let found = self.by_digest.get(&digest).cloned();
        Box::pin(async move { found.ok_or_else(|| TokenError::Invalid("unknown token".into())) })
    }
}

/// Authorization for the HTTP transport.
#[derive(Clone)]
#[non_exhaustive]
pub struct AuthOptions {
    /// This server's canonical URI, e.g. `https://mcp.example.com/mcp`:
    /// the audience tokens must carry, and the `resource` of the metadata.
    pub resource: String,
    /// The authorization servers clients get tokens from (at least one).
    pub authorization_servers: Vec<String>,
    /// Scopes this server understands (`scopes_supported`).
    pub scopes_supported: Vec<String>,
    /// Scopes every request needs (also the scopes a `401` asks for).
    pub required_scopes: Vec<String>,
    /// A human-readable name for the metadata document.
    pub resource_name: Option<String>,
    /// Who checks tokens.
    pub validator: Arc<dyn TokenValidator>,
}

impl fmt::Debug for AuthOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AuthOptions")
            .field("resource", &self.resource)
            .field("authorization_servers", &self.authorization_servers)
            .field("required_scopes", &self.required_scopes)
            .finish_non_exhaustive()
    }
}

impl AuthOptions {
    /// Authorization for the server at `resource`, whose tokens come from
    /// `authorization_server` and are checked by `validator`.
    pub fn new(
        resource: impl Into<String>,
        authorization_server: impl Into<String>,
        validator: Arc<dyn TokenValidator>,
    ) -> Self {
        Self {
            resource: resource.into(),
            authorization_servers: vec![authorization_server.into()],
            scopes_supported: Vec::new(),
            required_scopes: Vec::new(),
            resource_name: None,
            validator,
        }
    }

    /// Requires `scopes` on every request.
    #[must_use]
    pub fn require_scopes<I: IntoIterator<Item = S>, S: Into<String>>(mut self, scopes: I) -> Self {
        self.required_scopes.extend(scopes.into_iter().map(Into::into));
        self
    }

    /// Announces `scopes` in the metadata document.
    #[must_use]
    pub fn scopes_supported<I: IntoIterator<Item = S>, S: Into<String>>(mut self, scopes: I) -> Self {
        self.scopes_supported.extend(scopes.into_iter().map(Into::into));
        self
    }

    /// The path part of [`AuthOptions::resource`] (`/mcp`), `""` for a root.
    fn resource_path(&self) -> &str {
        let after_scheme = self.resource.split_once("://").map_or(self.resource.as_str(), |(_, rest)| rest);
        match after_scheme.find('/') {
            Some(i) => after_scheme[i..].trim_end_matches('/'),
            None => "",
        }
    }

    /// The origin part of [`AuthOptions::resource`] (`https://host:port`).
    fn origin(&self) -> &str {
        let scheme_end = self.resource.find("://").map_or(0, |i| i + 3);
        match self.resource[scheme_end..].find('/') {
            Some(i) => &self.resource[..scheme_end + i],
            None => &self.resource,
        }
    }

    /// The metadata document's URL (the path-specific well-known form).
    pub fn metadata_url(&self) -> String {
        format!("{}{}{}", self.origin(), WELL_KNOWN, self.resource_path())
    }

    /// The paths the metadata document is served at.
    pub(crate) fn metadata_paths(&self) -> Vec<String> {
        let mut paths = vec![WELL_KNOWN.to_owned()];
        let path = self.resource_path();
        if !path.is_empty() {
            paths.push(format!("{WELL_KNOWN}{path}"));
        }
        paths
    }

    /// The RFC 9728 metadata document.
    pub(crate) fn metadata(&self) -> serde_json::Value {
        let mut doc = json!({
            "resource": self.resource,
            "authorization_servers": self.authorization_servers,
            "bearer_methods_supported": ["header"],
        });
        if !self.scopes_supported.is_empty() {
            doc["scopes_supported"] = json!(self.scopes_supported);
        }
        if let Some(name) = &self.resource_name {
            doc["resource_name"] = json!(name);
        }
        doc
    }

    /// Authenticates a request: its principal, or the `401`/`403`/`503` to send.
    pub(crate) async fn authenticate(&self, headers: &HeaderMap) -> Result<Principal, Response> {
        let token = match bearer(headers) {
            Bearer::Missing => {
                return Err(self.challenge(StatusCode::UNAUTHORIZED, None, &self.required_scopes));
            }
            Bearer::Malformed(why) => {
                return Err(self.challenge(StatusCode::BAD_REQUEST, Some(("invalid_request", why)), &[]));
            }
            Bearer::Token(token) => token,
        };
        let principal = match self.validator.validate(token).await {
            Ok(p) => p,
            Err(TokenError::Invalid(why)) => {
                return Err(self.challenge(
                    StatusCode::UNAUTHORIZED,
                    Some(("invalid_token", &why)),
                    &self.required_scopes,
                ));
            }
            Err(TokenError::Unavailable(why)) => {
                tracing::warn!(reason = %why, "token validation unavailable");
                return Err((
                    StatusCode::SERVICE_UNAVAILABLE,
                    [(header::RETRY_AFTER, HeaderValue::from_static("5"))],
                    "token validation is unavailable; retry shortly",
                )
                    .into_response());
            }
        };
        if !principal.has_scopes(&self.required_scopes) {
            return Err(self.insufficient(&self.required_scopes, "this server requires more scopes"));
        }
        Ok(principal)
    }

    /// `403 insufficient_scope` asking for `scopes`.
    pub(crate) fn insufficient(&self, scopes: &[String], description: &str) -> Response {
        self.challenge(StatusCode::FORBIDDEN, Some(("insufficient_scope", description)), scopes)
    }

    fn challenge(&self, status: StatusCode, error: Option<(&str, &str)>, scopes: &[String]) -> Response {
        let mut value = String::from("Bearer ");
        let mut params = Vec::new();
        if let Some((code, description)) = error {
            params.push(format!("error=\"{code}\""));
            params.push(format!("error_description=\"{}\"", quote_safe(description)));
        }
        if !scopes.is_empty() {
            params.push(format!("scope=\"{}\"", quote_safe(&scopes.join(" "))));
        }
        params.push(format!("resource_metadata=\"{}\"", quote_safe(&self.metadata_url())));
        value.push_str(&params.join(", "));
        let header_value =
            HeaderValue::from_str(&value).unwrap_or_else(|_| HeaderValue::from_static("Bearer"));
        let body = match error {
            Some((code, description)) => format!("{code}: {description}"),
            None => "authorization required: send Authorization: Bearer <token>".to_owned(),
        };
        (status, [(header::WWW_AUTHENTICATE, header_value)], body).into_response()
    }
}

const WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";

enum Bearer<'a> {
    Missing,
    Malformed(&'static str),
    Token(&'a str),
}

fn bearer(headers: &HeaderMap) -> Bearer<'_> {
    let mut values = headers.get_all(header::AUTHORIZATION).iter();
    let Some(value) = values.next() else { return Bearer::Missing };
    if values.next().is_some() {
        return Bearer::Malformed("more than one Authorization header");
    }
    let Ok(value) = value.to_str() else { return Bearer::Malformed("the Authorization header is not ASCII") };
    let Some((scheme, token)) = value.split_once(' ') else {
        return Bearer::Malformed("expected: Bearer <token>");
    };
    if !scheme.eq_ignore_ascii_case("bearer") {
        return Bearer::Missing;
    }
    let token = token.trim();
    if token.is_empty() || token.contains(char::is_whitespace) {
        return Bearer::Malformed("expected: Bearer <token>");
    }
    Bearer::Token(token)
}

/// Keeps a value inside a quoted-string (no quotes, backslashes or controls).
fn quote_safe(s: &str) -> String {
    s.chars().filter(|c| *c != '"' && *c != '\\' && !c.is_control()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(resource: &str) -> AuthOptions {
        AuthOptions::new(resource, "https://auth.example.com", Arc::new(StaticTokens::new()))
    }

    #[test]
    fn metadata_urls_follow_rfc_9728() {
        let o = options("https://mcp.example.com/mcp");
        assert_eq!(o.metadata_url(), "https://mcp.example.com/.well-known/oauth-protected-resource/mcp");
        assert_eq!(
            o.metadata_paths(),
            ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"]
        );
        let root = options("http://127.0.0.1:8080");
        assert_eq!(root.metadata_url(), "http://127.0.0.1:8080/.well-known/oauth-protected-resource");
        assert_eq!(root.metadata_paths(), ["/.well-known/oauth-protected-resource"]);
    }

    #[test]
    fn bearer_parsing() {
        let mut h = HeaderMap::new();
        assert!(matches!(bearer(&h), Bearer::Missing));
        h.insert(header::AUTHORIZATION, HeaderValue::from_static("Bearer abc"));
        assert!(matches!(bearer(&h), Bearer::Token("abc")));
        h.insert(header::AUTHORIZATION, HeaderValue::from_static("bearer   abc  "));
        assert!(matches!(bearer(&h), Bearer::Token("abc")));
        h.insert(header::AUTHORIZATION, HeaderValue::from_static("Basic abc"));
        assert!(matches!(bearer(&h), Bearer::Missing));
        h.insert(header::AUTHORIZATION, HeaderValue::from_static("Bearer a b"));
        assert!(matches!(bearer(&h), Bearer::Malformed(_)));
        assert_eq!(quote_safe("a\"b\\c\nd"), "abcd");
    }
}
