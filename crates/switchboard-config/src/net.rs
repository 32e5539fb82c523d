//! The sections that matter once switchboard is on a network: `[limits]` and
//! `[http]` (with `[http.auth]`).

use std::path::PathBuf;
use std::time::Duration;

use serde::Deserialize;

/// `[limits]`: what one caller may take. The defaults are safe for a
/// server on a network and invisible to one person's client.
///
/// ```toml
/// [limits]
/// tool_calls_per_minute = 600        # per caller (principal, or connection); 0 turns it off
/// tool_calls_burst = 60              # calls allowed back to back
/// global_tool_calls_per_minute = 0   # for everyone together; 0: off
/// max_in_flight = 64                 # requests running at once per connection
/// handler_timeout = "15m"            # a request running longer is stopped
/// max_message_size = 4194304         # bytes per message (and per HTTP body)
/// max_response_size = 16777216       # bytes per response; larger ones become an error
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct LimitsSection {
    /// `tools/call` per minute per caller (0: no limit).
    pub tool_calls_per_minute: u32,
    /// Burst allowance of the per-caller limit.
    pub tool_calls_burst: u32,
    /// `tools/call` per minute for the whole server (0: no limit).
    pub global_tool_calls_per_minute: u32,
    /// Requests in flight per connection.
    pub max_in_flight: usize,
    /// Longest a request may run.
    #[serde(with = "humantime_serde")]
    #[schemars(schema_with = "switchboard_tools::duration_schema")]
    pub handler_timeout: Duration,
    /// Largest message in bytes.
    pub max_message_size: usize,
    /// Largest response in bytes.
    pub max_response_size: usize,
}

impl Default for LimitsSection {
    fn default() -> Self {
        Self {
            tool_calls_per_minute: 600,
            tool_calls_burst: 60,
            global_tool_calls_per_minute: 0,
            max_in_flight: 64,
            handler_timeout: Duration::from_secs(15 * 60),
            max_message_size: 4 * 1024 * 1024,
            max_response_size: 16 * 1024 * 1024,
        }
    }
}

/// `[http]`: the Streamable HTTP transport (`switchboard serve --http ADDR`).
///
/// ```toml
/// [http]
/// allowed_hosts = ["mcp.example.com"]   # Host/Origin names accepted besides loopback
/// metrics = true                         # GET /metrics: Prometheus request counts and latencies
///
/// [http.auth]                            # OAuth resource server: a bearer token on every request
/// resource = "https://mcp.example.com/mcp"
/// authorization_servers = ["https://auth.example.com"]
/// jwks_url = "https://auth.example.com/.well-known/jwks.json"   # or jwks_file = "jwks.json"
/// issuer = "https://auth.example.com"
/// required_scopes = ["mcp"]
/// scopes_supported = ["mcp", "tools:run"]
///
/// [[http.auth.tokens]]                   # static API tokens, read from the environment
/// env = "SWITCHBOARD_CI_TOKEN"
/// subject = "ci"
/// scopes = ["mcp", "tools:run"]
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct HttpSection {
    /// Host names accepted in `Host`/`Origin` besides loopback.
    pub allowed_hosts: Vec<String>,
    /// Serve `GET /metrics` (Prometheus / OpenMetrics text).
    pub metrics: bool,
    /// Authorization; none by default (loopback use).
    pub auth: Option<AuthSection>,
}

/// `[http.auth]`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct AuthSection {
    /// This server's canonical URL: the audience tokens must carry.
    pub resource: String,
    /// Where clients get tokens.
    pub authorization_servers: Vec<String>,
    /// JWTs: the authorization server's key set, by URL…
    pub jwks_url: Option<String>,
    /// …or from a file (relative to the served folder).
    pub jwks_file: Option<PathBuf>,
    /// JWTs: the required `iss`.
    pub issuer: Option<String>,
    /// Scopes every request needs.
    pub required_scopes: Vec<String>,
    /// Scopes announced in the metadata document.
    pub scopes_supported: Vec<String>,
    /// Static API tokens.
    pub tokens: Vec<StaticToken>,
}

/// One static API token; its value comes from an environment variable so
/// the configuration file holds no secret.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StaticToken {
    /// The environment variable holding the token.
    pub env: String,
    /// The principal it stands for.
    pub subject: String,
    /// The scopes it grants.
    #[serde(default)]
    pub scopes: Vec<String>,
}
