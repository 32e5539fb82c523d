//! Turning `[limits]` and `[http]` into server and transport options:
//! rate limits and timeouts for every transport, allowed host names and the
//! OAuth resource-server role for HTTP.

use std::sync::Arc;

use futures::future::BoxFuture;
use switchboard_config::{AuthSection, Config, LimitsSection, Problem};
use switchboard_http::{AuthOptions, JwtValidator, StaticTokens, TokenError, TokenValidator};
use switchboard_server::{Principal, RateLimit, ServerOptions};

/// `options` with the limits of `[limits]` applied.
pub(crate) fn server_options(limits: &LimitsSection, mut options: ServerOptions) -> ServerOptions {
    options.tool_rate_per_caller = (limits.tool_calls_per_minute > 0).then(|| RateLimit {
        per_minute: limits.tool_calls_per_minute,
        burst: limits.tool_calls_burst.max(1),
    });
    options.tool_rate_global = (limits.global_tool_calls_per_minute > 0).then(|| RateLimit {
        per_minute: limits.global_tool_calls_per_minute,
        burst: limits.global_tool_calls_per_minute.div_ceil(10).max(1),
    });
    options.max_in_flight = limits.max_in_flight.max(1);
    options.handler_timeout = (!limits.handler_timeout.is_zero()).then_some(limits.handler_timeout);
    options.max_message_size = limits.max_message_size;
    options.max_response_size = limits.max_response_size;
    options
}

/// The authorization `[http.auth]` asks for, checked; problems are placed
/// on the configuration file.
pub(crate) fn auth_options(config: &Config, problems: &mut Vec<Problem>) -> Option<AuthOptions> {
    let section: &AuthSection = config.http.auth.as_ref()?;
    let before = problems.len();
    // Each problem at the key it is about (the `[http.auth]` table itself
    // when a key is missing).
    let mut problem = |at: &[&str], message: String| {
        let path: Vec<&str> = ["http", "auth"].iter().chain(at).copied().collect();
        problems.push(config.problem_at_path(&path, format!("[http.auth]: {message}")));
    };
    if !(section.resource.starts_with("https://") || section.resource.starts_with("http://")) {
        problem(
            &["resource"],
            format!(
                "resource must be this server's URL, e.g. \"https://mcp.example.com/mcp\" (got {:?})",
                section.resource
            ),
        );
    }
    if section.authorization_servers.is_empty() {
        problem(
            &["authorization_servers"],
            "name at least one authorization server in authorization_servers".into(),
        );
    }
    let mut validators: Vec<Arc<dyn TokenValidator>> = Vec::new();
    if !section.tokens.is_empty() {
        let mut tokens = StaticTokens::new();
        for (i, t) in section.tokens.iter().enumerate() {
            match switchboard_tools::env_var(&t.env) {
                Some(value) if !value.trim().is_empty() => {
                    tokens = tokens
                        .with(value.trim(), Principal::new(&t.subject).with_scopes(t.scopes.iter().cloned()));
                }
                _ => problem(
                    &["tokens", &i.to_string(), "env"],
                    format!(
                        "the token of {:?} is read from ${}, which is not set; set it in the environment \
                         switchboard starts with or in the `[server] env_file`",
                        t.subject, t.env
                    ),
                ),
            }
        }
        validators.push(Arc::new(tokens));
    }
    let jwt = match (&section.jwks_url, &section.jwks_file) {
        (Some(_), Some(_)) => {
            problem(&["jwks_file"], "give jwks_url or jwks_file, not both".into());
            None
        }
        (Some(url), None) => Some(JwtValidator::from_jwks_url(url.clone(), section.resource.clone())),
        (None, Some(file)) => {
            match JwtValidator::from_jwks_file(&config.resolve(file), section.resource.clone()) {
                Ok(v) => Some(v),
                Err(e) => {
                    problem(&["jwks_file"], e.to_string());
                    None
                }
            }
        }
        (None, None) => None,
    };
    if let Some(jwt) = jwt {
        let jwt = match &section.issuer {
            Some(issuer) => jwt.issuer(issuer.clone()),
            None => jwt,
        };
        validators.push(Arc::new(jwt));
    }
    if section.tokens.is_empty() && section.jwks_url.is_none() && section.jwks_file.is_none() {
        problem(&[], "say how tokens are checked: jwks_url, jwks_file, or [[http.auth.tokens]]".into());
    }
    if problems.len() > before {
        return None;
    }
    let mut options = AuthOptions::new(
        section.resource.clone(),
        section.authorization_servers[0].clone(),
        Arc::new(AnyOf(validators)),
    )
    .require_scopes(section.required_scopes.iter().cloned())
    .scopes_supported(section.scopes_supported.iter().cloned());
    options.authorization_servers = section.authorization_servers.clone();
    Some(options)
}

/// Accepts a token any of its validators accepts (static tokens first).
struct AnyOf(Vec<Arc<dyn TokenValidator>>);

impl TokenValidator for AnyOf {
    fn validate<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Principal, TokenError>> {
        Box::pin(async move {
            let mut last = TokenError::Invalid("unknown token".into());
            for validator in &self.0 {
                match validator.validate(token).await {
                    Ok(principal) => return Ok(principal),
                    // An unreachable key source matters more than a miss elsewhere.
                    Err(e @ TokenError::Unavailable(_)) => last = e,
                    Err(e) if !matches!(last, TokenError::Unavailable(_)) => last = e,
                    Err(_) => {}
                }
            }
            Err(last)
        })
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn the_default_configuration_has_the_documented_limits() {
        // SECURITY.md, "Defaults, in one place": the switchboard column. A folder
        // without switchboard.toml (the embedded default), and a file without [limits].
        let dir = tempfile::tempdir().unwrap();
        let embedded = Config::load(dir.path(), None).unwrap();
        assert!(embedded.path().is_none(), "the embedded default is in use");
        let file = dir.path().join("switchboard.toml");
        let without_limits = Config::parse("[server]\n", Some(&file), dir.path()).unwrap();
        for config in [&embedded, &without_limits] {
            let o = server_options(&config.limits, ServerOptions::default());
            assert_eq!(o.tool_rate_per_caller, Some(RateLimit { per_minute: 600, burst: 60 }));
            assert_eq!(o.tool_rate_global, None, "no overall tools/call limit");
            assert_eq!(o.max_in_flight, 64);
            assert_eq!(o.handler_timeout, Some(Duration::from_secs(15 * 60)));
            assert_eq!(o.max_message_size, 4 * 1024 * 1024);
            assert_eq!(o.max_response_size, 16 * 1024 * 1024);
        }
    }
}
