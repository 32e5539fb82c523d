//! JWT access tokens checked against an authorization server's keys.
//!
//! RS256 and ES256 only (never `none`, never HMAC, whose shared secret would
//! let anyone holding it mint tokens); the audience must be this server's
//! resource URI (RFC 8707), the issuer when configured must match, `exp`
//! and `sub` are required, with 60 s of clock leeway. Scopes come from
//! `scope` (space-separated, RFC 9068) or `scp` (a list or a string).
//!
//! Keys come from a JWKS document: a file, an inline string, or a URL that
//! is fetched on first use, kept for ten minutes, and fetched again early
//! when a token names a key id it does not have (key rotation), at most
//! once every 30 s so a flood of forged key ids cannot hammer the
//! authorization server.

use std::path::Path;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use futures::future::BoxFuture;
use jsonwebtoken::jwk::JwkSet;
use jsonwebtoken::{Algorithm, DecodingKey, Validation, decode, decode_header};
use serde::Deserialize;
use switchboard_server::Principal;

use crate::auth::{TokenError, TokenValidator};

const CACHE_FOR: Duration = Duration::from_secs(600);
const REFETCH_AT_MOST_EVERY: Duration = Duration::from_secs(30);

/// Validates JWT access tokens.
pub struct JwtValidator {
    audience: String,
    issuer: Option<String>,
    keys: Keys,
}

enum Keys {
    Fixed(JwkSet),
    Remote { url: String, client: reqwest::Client, cache: Mutex<Cache> },
}

#[derive(Default)]
struct Cache {
    set: Option<(Instant, JwkSet)>,
    last_fetch: Option<Instant>,
}

impl std::fmt::Debug for JwtValidator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let source = match &self.keys {
            Keys::Fixed(set) => format!("{} fixed keys", set.keys.len()),
            Keys::Remote { url, .. } => url.clone(),
        };
        f.debug_struct("JwtValidator")
            .field("audience", &self.audience)
            .field("issuer", &self.issuer)
            .field("keys", &source)
            .finish()
    }
}

/// Why a validator could not be built.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum JwksError {
    /// The JWKS file could not be read.
    #[error("reading the JWKS file {path}: {source}")]
    Read {
        /// The file.
        path: std::path::PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The text is not a JWKS document.
    #[error("not a JWKS document: {0}")]
    Parse(String),
}

#[derive(Deserialize)]
struct Claims {
    sub: String,
    #[serde(default)]
    scope: Option<String>,
    #[serde(default)]
    scp: Option<ScopeList>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum ScopeList {
    List(Vec<String>),
    Text(String),
}

impl JwtValidator {
    /// Keys from a JWKS document's text; tokens must name `audience`.
    pub fn from_jwks_json(text: &str, audience: impl Into<String>) -> Result<Self, JwksError> {
        let set: JwkSet = serde_json::from_str(text).map_err(|e| JwksError::Parse(e.to_string()))?;
        Ok(Self { audience: audience.into(), issuer: None, keys: Keys::Fixed(set) })
    }

    /// Keys from a JWKS file.
    pub fn from_jwks_file(path: &Path, audience: impl Into<String>) -> Result<Self, JwksError> {
        let text = std::fs::read_to_string(path)
            .map_err(|source| JwksError::Read { path: path.to_path_buf(), source })?;
        Self::from_jwks_json(&text, audience)
    }

    /// Keys fetched from `url` (the authorization server's `jwks_uri`).
    pub fn from_jwks_url(url: impl Into<String>, audience: impl Into<String>) -> Self {
        let client = reqwest::Client::builder()
            .timeout(Duration::from_secs(10))
            .build()
            .unwrap_or_else(|_| reqwest::Client::new());
        Self {
            audience: audience.into(),
            issuer: None,
            keys: Keys::Remote { url: url.into(), client, cache: Mutex::new(Cache::default()) },
        }
    }

    /// Also requires the `iss` claim to be `issuer`.
    #[must_use]
    pub fn issuer(mut self, issuer: impl Into<String>) -> Self {
        self.issuer = Some(issuer.into());
        self
    }

    async fn key_set(&self, kid: Option<&str>) -> Result<JwkSet, TokenError> {
        let (url, client, cache) = match &self.keys {
            Keys::Fixed(set) => return Ok(set.clone()),
            Keys::Remote { url, client, cache } => (url, client, cache),
        };
        let (cached, may_fetch) = {
            let c = cache.lock().unwrap_or_else(|p| p.into_inner());
            let cached = c.set.as_ref().map(|(at, set)| (at.elapsed() < CACHE_FOR, set.clone()));
            (cached, c.last_fetch.is_none_or(|at| at.elapsed() >= REFETCH_AT_MOST_EVERY))
        };
        let needed = match &cached {
            None => true,
            Some((fresh, set)) => !fresh || kid.is_some_and(|k| set.find(k).is_none()),
        };
        let cached = cached.map(|(_, set)| set);
        if !needed || !may_fetch {
            return cached.ok_or_else(|| {
                TokenError::Unavailable(format!(
                    "the signing keys from {url} are not available yet; retry shortly"
                ))
            });
        }
        cache.lock().unwrap_or_else(|p| p.into_inner()).last_fetch = Some(Instant::now());
        let fetched = async {
            let response = client.get(url).send().await.map_err(|e| e.to_string())?;
            if !response.status().is_success() {
                return Err(format!("status {}", response.status()));
            }
            response.json::<JwkSet>().await.map_err(|e| e.to_string())
        }
        .await;
        match fetched {
            Ok(set) => {
                cache.lock().unwrap_or_else(|p| p.into_inner()).set = Some((Instant::now(), set.clone()));
                Ok(set)
            }
            Err(why) => match cached {
                // Keep serving with the keys we had; the authorization server may be back soon.
                Some(set) => {
                    tracing::warn!(%url, reason = %why, "JWKS refresh failed; using the cached keys");
                    Ok(set)
                }
                None => {
                    Err(TokenError::Unavailable(format!("cannot fetch the signing keys from {url}: {why}")))
                }
            },
        }
    }

    async fn check(&self, token: &str) -> Result<Principal, TokenError> {
        let invalid = |why: &str| TokenError::Invalid(why.to_owned());
        let header = decode_header(token).map_err(|_| invalid("not a JWT"))?;
        if !matches!(header.alg, Algorithm::RS256 | Algorithm::ES256) {
            return Err(invalid("unsupported signing algorithm (RS256 or ES256 only)"));
        }
        let set = self.key_set(header.kid.as_deref()).await?;
        let jwk = match header.kid.as_deref() {
            Some(kid) => set.find(kid).ok_or_else(|| invalid("unknown signing key"))?,
            None if set.keys.len() == 1 => &set.keys[0],
            None => return Err(invalid("the token names no key id (kid)")),
        };
        let key = DecodingKey::from_jwk(jwk).map_err(|_| invalid("unusable signing key"))?;
        let mut validation = Validation::new(header.alg);
        validation.set_audience(&[&self.audience]);
        if let Some(issuer) = &self.issuer {
            validation.set_issuer(&[issuer]);
        }
        validation.set_required_spec_claims(&["exp", "sub", "aud"]);
        validation.leeway = 60;
        let data = decode::<Claims>(token, &key, &validation).map_err(|e| {
            use jsonwebtoken::errors::ErrorKind;
            TokenError::Invalid(
                match e.kind() {
                    ErrorKind::ExpiredSignature => "the token has expired",
                    ErrorKind::InvalidAudience => "the token was not issued for this server (audience)",
                    ErrorKind::InvalidIssuer => "the token comes from another issuer",
                    ErrorKind::InvalidSignature => "bad signature",
                    ErrorKind::ImmatureSignature => "the token is not valid yet",
                    ErrorKind::MissingRequiredClaim(_) => "a required claim (exp, sub, aud) is missing",
                    _ => "invalid token",
                }
                .to_owned(),
            )
        })?;
        let claims = data.claims;
        let mut scopes: Vec<String> =
            claims.scope.iter().flat_map(|s| s.split_whitespace()).map(str::to_owned).collect();
        match claims.scp {
            Some(ScopeList::List(list)) => scopes.extend(list),
            Some(ScopeList::Text(text)) => scopes.extend(text.split_whitespace().map(str::to_owned)),
            None => {}
        }
        Ok(Principal::new(claims.sub).with_scopes(scopes))
    }
}

impl TokenValidator for JwtValidator {
    fn validate<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Principal, TokenError>> {
        Box::pin(self.check(token))
    }
}
