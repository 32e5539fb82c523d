//! Authorization over real loopback HTTP: the resource-server role with
//! static tokens and JWTs (inline JWKS and a JWKS fetched from a URL),
//! scope challenges, scope-filtered lists, session binding.

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::{Algorithm, EncodingKey, Header, encode};
use reqwest::{Client, StatusCode};
use serde_json::{Value, json};
use switchboard_http::{AuthOptions, HttpOptions, JwtValidator, MetricsText, StaticTokens, TokenValidator};
use switchboard_server::{CallToolResult, Principal, RateLimit, RequestContext, Server, ServerOptions, Tool};

use crate::support::{Serving, loopback};

const JWKS: &str = include_str!("keys/jwks.json");
const ES256_KEY: &[u8] = include_bytes!("keys/es256-private.pk8.pem");
const OTHER_ES256_KEY: &[u8] = include_bytes!("keys/other-es256-private.pk8.pem");
const RS256_KEY: &[u8] = include_bytes!("keys/rs256-private.pem");
const AUTH_SERVER: &str = "https://auth.example.com";
/// Bounds every request of these tests.
const WAIT: Duration = Duration::from_secs(30);

fn server() -> Server {
    server_with(ServerOptions::default())
}

fn server_with(options: ServerOptions) -> Server {
    let who = |_: Value, ctx: RequestContext| async move {
        let subject = ctx.principal().map(|p| p.subject.clone()).unwrap_or_default();
        let custom = ctx.header("x-custom").unwrap_or("-").to_owned();
        let leaked =
            ["authorization", "cookie", "proxy-authorization"].iter().any(|h| ctx.header(h).is_some());
        // Every header the handler is handed, so a test can tell what reached it.
        let seen: Vec<String> =
            ctx.headers().unwrap_or_default().iter().map(|(name, value)| format!("{name}={value}")).collect();
        Ok(CallToolResult::text(format!("{subject} {custom} leaked={leaked} seen=[{}]", seen.join("; "))))
    };
    Server::builder("auth-test", "1")
        .options(options)
        .tool(Tool::new("whoami").description("who").raw_handler(who))
        .tool(
            Tool::new("delete_all")
                .description("dangerous")
                .requires_scopes(["notes:admin"])
                .raw_handler(who),
        )
        .build()
        .unwrap()
}

struct Running {
    base: String,
    url: String,
    client: Client,
    _serving: Serving,
}

async fn start(validator: Arc<dyn TokenValidator>, required: &[&str]) -> Running {
    start_with(|_| validator, required).await
}

/// Starts the server with the validator `make` builds for the server's own
/// URL (the audience tokens must carry, known once the port is bound).
async fn start_with(make: impl FnOnce(&str) -> Arc<dyn TokenValidator>, required: &[&str]) -> Running {
    start_serving(server(), make, required).await
}

/// [`start_with`] for `server`.
async fn start_serving(
    server: Server,
    make: impl FnOnce(&str) -> Arc<dyn TokenValidator>,
    required: &[&str],
) -> Running {
    let listener = loopback().await;
    let addr = listener.local_addr().unwrap();
    let resource = format!("http://{addr}/mcp");
    let validator = make(&resource);
    let mut options = HttpOptions::default();
    options.auth = Some(
        AuthOptions::new(resource, AUTH_SERVER, validator)
            .require_scopes(required.iter().copied())
            .scopes_supported(["notes:read", "notes:admin"]),
    );
    let serving = Serving::on(listener, server, options);
    Running {
        base: format!("http://{addr}"),
        url: serving.url.clone(),
        client: Client::new(),
        _serving: serving,
    }
}

fn modern(method: &str, params: Value) -> Value {
    let mut params = params;
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"}
    });
    json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
}

impl Running {
    fn post(&self, token: Option<&str>, body: &Value) -> reqwest::RequestBuilder {
        let method = body["method"].as_str().unwrap_or_default().to_owned();
        let mut r = self
            .client
            .post(&self.url)
            .timeout(WAIT)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("x-custom", "hello");
        if body["params"]["_meta"].get("io.modelcontextprotocol/protocolVersion").is_some() {
            r = r.header("mcp-protocol-version", "2026-07-28").header("mcp-method", method.clone());
            if let Some(name) = body["params"]["name"].as_str() {
                r = r.header("mcp-name", name);
            }
        }
        if let Some(t) = token {
            r = r.header("authorization", format!("Bearer {t}"));
        }
        r.body(body.to_string())
    }

    async fn call(&self, token: &str, tool: &str) -> (StatusCode, String, String) {
        let r = self
            .post(Some(token), &modern("tools/call", json!({"name": tool, "arguments": {}})))
            .send()
            .await
            .unwrap();
        let status = r.status();
        let challenge =
            r.headers().get("www-authenticate").map(|v| v.to_str().unwrap().to_owned()).unwrap_or_default();
        (status, challenge, r.text().await.unwrap())
    }
}

fn statics() -> Arc<dyn TokenValidator> {
    Arc::new(
        StaticTokens::new()
            .with("reader-token", Principal::new("reader").with_scopes(["notes:read"]))
            .with("admin-token", Principal::new("admin").with_scopes(["notes:read", "notes:admin"]))
            .with("noscope-token", Principal::new("nobody")),
    )
}

#[tokio::test]
async fn serves_protected_resource_metadata_at_both_well_known_paths() {
    let s = start(statics(), &[]).await;
    for path in ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"] {
        let r = s.client.get(format!("{}{path}", s.base)).send().await.unwrap();
        assert_eq!(r.status(), 200, "{path}");
        assert_eq!(r.headers()["content-type"], "application/json");
        let doc: Value = r.json().await.unwrap();
        assert_eq!(doc["resource"], s.url);
        assert_eq!(doc["authorization_servers"], json!([AUTH_SERVER]));
        assert_eq!(doc["scopes_supported"], json!(["notes:read", "notes:admin"]));
        assert_eq!(doc["bearer_methods_supported"], json!(["header"]));
    }
}

#[tokio::test]
async fn requests_without_a_valid_token_get_401_with_the_metadata_url() {
    let s = start(statics(), &["notes:read"]).await;
    let metadata = format!("{}/.well-known/oauth-protected-resource/mcp", s.base);
    let r = s.post(None, &modern("tools/list", json!({}))).send().await.unwrap();
    assert_eq!(r.status(), 401);
    let challenge = r.headers()["www-authenticate"].to_str().unwrap().to_owned();
    assert!(challenge.starts_with("Bearer "), "{challenge}");
    assert!(challenge.contains(&format!("resource_metadata=\"{metadata}\"")), "{challenge}");
    assert!(challenge.contains("scope=\"notes:read\""), "{challenge}");
    let r = s.post(Some("wrong"), &modern("tools/list", json!({}))).send().await.unwrap();
    assert_eq!(r.status(), 401);
    let challenge = r.headers()["www-authenticate"].to_str().unwrap().to_owned();
    assert!(challenge.contains("error=\"invalid_token\""), "{challenge}");
    // A token lacking the scopes every request needs: 403.
    let r = s.post(Some("noscope-token"), &modern("tools/list", json!({}))).send().await.unwrap();
    assert_eq!(r.status(), 403);
    assert!(r.headers()["www-authenticate"].to_str().unwrap().contains("insufficient_scope"));
    // Legacy GET and DELETE are protected too.
    let r = s.client.get(&s.url).header("accept", "text/event-stream").send().await.unwrap();
    assert_eq!(r.status(), 401);
    let r = s.client.delete(&s.url).send().await.unwrap();
    assert_eq!(r.status(), 401);
    // A malformed Authorization header is a 400.
    let r = s
        .post(None, &modern("tools/list", json!({})))
        .header("authorization", "Bearer a b")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
}

#[tokio::test]
async fn lists_follow_scopes_and_missing_scopes_get_a_403_challenge() {
    let s = start(statics(), &[]).await;
    let list = |token: &'static str| {
        let s = &s;
        async move {
            let r: Value = s
                .post(Some(token), &modern("tools/list", json!({})))
                .send()
                .await
                .unwrap()
                .json()
                .await
                .unwrap();
            let names: Vec<String> = r["result"]["tools"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t["name"].as_str().unwrap().to_owned())
                .collect();
            (names, r["result"]["cacheScope"].clone())
        }
    };
    assert_eq!(list("reader-token").await, (vec!["whoami".to_owned()], json!("private")));
    assert_eq!(list("admin-token").await.0, ["whoami", "delete_all"]);

    let (status, challenge, _) = s.call("reader-token", "delete_all").await;
    assert_eq!(status, 403);
    assert!(challenge.contains("error=\"insufficient_scope\""), "{challenge}");
    assert!(challenge.contains("scope=\"notes:admin\""), "{challenge}");
    assert!(challenge.contains("resource_metadata="), "{challenge}");
    let (status, _, body) = s.call("admin-token", "delete_all").await;
    assert_eq!(status, 200, "{body}");
    // Handlers see the principal and the headers, never the token.
    let (_, _, body) = s.call("reader-token", "whoami").await;
    assert!(body.contains("reader hello leaked=false"), "{body}");
}

#[tokio::test]
async fn cookies_and_proxy_credentials_never_reach_handlers() {
    let s = start(statics(), &[]).await;
    let secrets = [("cookie", "sid=cookie-secret-1"), ("proxy-authorization", "Basic proxy-secret-2")];
    let with_secrets = |mut r: reqwest::RequestBuilder| {
        for (name, value) in secrets {
            r = r.header(name, value);
        }
        r
    };
    let assert_withheld = |body: &str| {
        // The handler ran and was handed the other headers...
        assert!(body.contains("reader hello leaked=false"), "{body}");
        assert!(body.contains("x-custom=hello"), "{body}");
        // ...but none of the credentials, under any name.
        for secret in ["reader-token", "cookie-secret-1", "proxy-secret-2", "cookie=", "authorization="] {
            assert!(!body.contains(secret), "{secret} reached the handler: {body}");
        }
    };

    // 2026-07-28: one stateless request.
    let call = modern("tools/call", json!({"name": "whoami", "arguments": {}}));
    let r = with_secrets(s.post(Some("reader-token"), &call)).send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert_withheld(&r.text().await.unwrap());

    // A legacy session: the headers of the request inside the session.
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let r = with_secrets(s.post(Some("reader-token"), &init)).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let sid = r.headers()["mcp-session-id"].to_str().unwrap().to_owned();
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "whoami", "arguments": {}}});
    let r = with_secrets(s.post(Some("reader-token"), &call))
        .header("mcp-session-id", &sid)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_withheld(&r.text().await.unwrap());
}

#[tokio::test]
async fn tool_call_budgets_follow_the_principal_and_the_global_refusal_says_when_to_retry() {
    // One call a minute once the burst is spent: nothing refills while the test runs.
    let mut options = ServerOptions::default();
    options.tool_rate_per_caller = Some(RateLimit { per_minute: 1, burst: 2 });
    options.tool_rate_global = Some(RateLimit { per_minute: 1, burst: 5 });
    let s = start_serving(server_with(options), |_| statics(), &[]).await;
    let call = |token: &'static str| {
        let s = &s;
        async move {
            let (status, _, body) = s.call(token, "whoami").await;
            assert_eq!(status, 200, "{body}");
            serde_json::from_str::<Value>(&body).unwrap()
        }
    };
    let refusal = |reply: &Value| {
        assert_eq!(reply["error"]["code"], -32029, "{reply}");
        let wait = reply["error"]["data"]["retryAfterMs"].as_u64().unwrap_or(0);
        assert!(wait > 0 && wait <= 60_000, "{reply}");
        reply["error"]["message"].as_str().unwrap().to_owned()
    };

    // Each 2026-07-28 request is a connection of its own: the budget is the principal's.
    for _ in 0..2 {
        let reply = call("reader-token").await;
        assert!(reply["result"]["content"][0]["text"].as_str().unwrap().starts_with("reader "), "{reply}");
    }
    let message = refusal(&call("reader-token").await);
    assert!(message.contains("at most 1 tool calls per minute per caller"), "{message}");

    // Another principal is not limited by the first one's spent budget.
    for _ in 0..2 {
        let reply = call("admin-token").await;
        assert!(reply["result"]["content"][0]["text"].as_str().unwrap().starts_with("admin "), "{reply}");
    }
    // The reader is still refused.
    refusal(&call("reader-token").await);

    // Four of the five global calls are taken; a third principal gets the last one.
    assert!(call("noscope-token").await.get("result").is_some());
    let message = refusal(&call("noscope-token").await);
    assert!(message.contains("this server takes at most 1 tool calls per minute"), "{message}");
}

#[tokio::test]
async fn a_session_belongs_to_the_principal_that_opened_it() {
    let s = start(statics(), &[]).await;
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let r = s.post(Some("reader-token"), &init).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let sid = r.headers()["mcp-session-id"].to_str().unwrap().to_owned();
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
    let r = s.post(Some("reader-token"), &ping).header("mcp-session-id", &sid).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let r = s.post(Some("admin-token"), &ping).header("mcp-session-id", &sid).send().await.unwrap();
    assert_eq!(r.status(), 403, "another principal's valid token does not get into the session");
    let r = s.post(None, &ping).header("mcp-session-id", &sid).send().await.unwrap();
    assert_eq!(r.status(), 401, "every request needs its token, even inside a session");
}

fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs()
}

fn jwt(alg: Algorithm, kid: &str, key: &EncodingKey, claims: Value) -> String {
    let mut header = Header::new(alg);
    header.kid = Some(kid.to_owned());
    encode(&header, &claims, key).unwrap()
}

fn es256() -> EncodingKey {
    EncodingKey::from_ec_pem(ES256_KEY).unwrap()
}

#[tokio::test]
async fn jwts_are_checked_for_signature_audience_expiry_and_algorithm() {
    let s = start_with(
        |resource| Arc::new(JwtValidator::from_jwks_json(JWKS, resource).unwrap().issuer(AUTH_SERVER)),
        &[],
    )
    .await;
    let resource = s.url.clone();

    let good = json!({"sub": "ada", "aud": resource, "iss": AUTH_SERVER, "exp": now() + 300, "scope": "notes:read notes:admin"});
    let (status, _, body) =
        s.call(&jwt(Algorithm::ES256, "es-1", &es256(), good.clone()), "delete_all").await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("ada hello"), "{body}");
    let rs = EncodingKey::from_rsa_pem(RS256_KEY).unwrap();
    let (status, _, body) = s.call(&jwt(Algorithm::RS256, "rs-1", &rs, good.clone()), "whoami").await;
    assert_eq!(status, 200, "{body}");
    // `scp` as a list works too; without the admin scope the tool is refused.
    let scp =
        json!({"sub": "bo", "aud": resource, "iss": AUTH_SERVER, "exp": now() + 300, "scp": ["notes:read"]});
    let (status, _, _) = s.call(&jwt(Algorithm::ES256, "es-1", &es256(), scp), "delete_all").await;
    assert_eq!(status, 403);

    let mut cases = vec![];
    let mut expired = good.clone();
    expired["exp"] = json!(now() - 3600);
    cases.push(("expired", jwt(Algorithm::ES256, "es-1", &es256(), expired)));
    let mut other_audience = good.clone();
    other_audience["aud"] = json!("https://another.example.com/mcp");
    cases.push(("audience", jwt(Algorithm::ES256, "es-1", &es256(), other_audience)));
    let mut other_issuer = good.clone();
    other_issuer["iss"] = json!("https://evil.example.com");
    cases.push(("issuer", jwt(Algorithm::ES256, "es-1", &es256(), other_issuer)));
    let forged = EncodingKey::from_ec_pem(OTHER_ES256_KEY).unwrap();
    cases.push(("signature", jwt(Algorithm::ES256, "es-1", &forged, good.clone())));
    cases.push(("signing key", jwt(Algorithm::ES256, "nope", &es256(), good.clone())));
    cases.push((
        "algorithm",
        jwt(Algorithm::HS256, "es-1", &EncodingKey::from_secret(b"guess"), good.clone()),
    ));
    let mut no_sub = good.clone();
    no_sub.as_object_mut().unwrap().remove("sub");
    cases.push(("invalid token", jwt(Algorithm::ES256, "es-1", &es256(), no_sub)));
    cases.push(("not a JWT", "garbage".to_owned()));
    for (why, token) in cases {
        let (status, challenge, body) = s.call(&token, "whoami").await;
        assert_eq!(status, 401, "{why}: {body}");
        assert!(challenge.contains("error=\"invalid_token\""), "{why}: {challenge}");
        assert!(body.contains(why), "{why}: {body}");
    }
}

#[tokio::test]
async fn jwts_without_a_real_algorithm_or_an_expiry_or_with_another_algorithm_are_refused() {
    let s = start_with(|resource| Arc::new(JwtValidator::from_jwks_json(JWKS, resource).unwrap()), &[]).await;
    let claims = json!({"sub": "ada", "aud": s.url, "exp": now() + 300});
    let refused = |why: &'static str, token: String| {
        let s = &s;
        async move {
            let (status, challenge, body) = s.call(&token, "whoami").await;
            assert_eq!(status, 401, "{why}: {body}");
            assert!(challenge.contains("error=\"invalid_token\""), "{why}: {challenge}");
            body
        }
    };
    // The same claims, properly signed, are accepted: what follows is refused
    // for the one thing it changes.
    let (status, _, body) = s.call(&jwt(Algorithm::ES256, "es-1", &es256(), claims.clone()), "whoami").await;
    assert_eq!(status, 200, "{body}");

    // `alg: none`, unsigned, naming a key the server has.
    let part = |v: Value| URL_SAFE_NO_PAD.encode(v.to_string());
    for alg in ["none", "None", "NONE"] {
        let token =
            format!("{}.{}.", part(json!({"alg": alg, "typ": "JWT", "kid": "es-1"})), part(claims.clone()));
        refused("alg none", token).await;
    }

    // No `exp`: a token that never expires is not accepted.
    let mut no_exp = claims.clone();
    no_exp.as_object_mut().unwrap().remove("exp");
    let body = refused("no exp", jwt(Algorithm::ES256, "es-1", &es256(), no_exp)).await;
    assert!(body.contains("a required claim (exp, sub, aud) is missing"), "{body}");

    // Other algorithms, correctly signed with the RSA key the key set holds (rs-1):
    // RSASSA-PSS and RS512 are refused like HMAC (HS256 is refused in
    // `jwts_are_checked_for_signature_audience_expiry_and_algorithm`). The test keys
    // hold no P-384 key, so ES384 is not tried.
    let rs = EncodingKey::from_rsa_pem(RS256_KEY).unwrap();
    for alg in [Algorithm::PS256, Algorithm::RS512] {
        let body = refused("algorithm", jwt(alg, "rs-1", &rs, claims.clone())).await;
        assert!(body.contains("unsupported signing algorithm (RS256 or ES256 only)"), "{alg:?}: {body}");
    }
}

#[tokio::test]
async fn jwks_from_a_url_is_fetched_cached_and_its_absence_is_503() {
    // An authorization server stand-in that serves the JWKS and counts fetches.
    let fetches = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = Arc::clone(&fetches);
    let app = axum::Router::new().route(
        "/jwks",
        axum::routing::get(move || {
            counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            async { ([(axum::http::header::CONTENT_TYPE, "application/json")], JWKS) }
        }),
    );
    let as_listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let as_addr = as_listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(as_listener, app).await.unwrap() });

    let s = start_with(
        |resource| Arc::new(JwtValidator::from_jwks_url(format!("http://{as_addr}/jwks"), resource)),
        &[],
    )
    .await;
    let resource = s.url.clone();
    let token =
        jwt(Algorithm::ES256, "es-1", &es256(), json!({"sub": "ada", "aud": resource, "exp": now() + 300}));
    for _ in 0..3 {
        let (status, _, body) = s.call(&token, "whoami").await;
        assert_eq!(status, 200, "{body}");
    }
    assert_eq!(fetches.load(std::sync::atomic::Ordering::SeqCst), 1, "the key set is cached");
    // An unknown key id triggers one early refresh, not one per request.
    let unknown = jwt(
        Algorithm::ES256,
        "rotated",
        &es256(),
        json!({"sub": "ada", "aud": resource, "exp": now() + 300}),
    );
    for _ in 0..3 {
        let (status, _, _) = s.call(&unknown, "whoami").await;
        assert_eq!(status, 401);
    }
    assert!(fetches.load(std::sync::atomic::Ordering::SeqCst) <= 2);

    // No reachable key source and nothing cached: 503 with Retry-After, not 401.
    let closed = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap().local_addr().unwrap();
    let s2 = start_with(
        |resource| Arc::new(JwtValidator::from_jwks_url(format!("http://{closed}/jwks"), resource)),
        &[],
    )
    .await;
    let resource = s2.url.clone();
    let token =
        jwt(Algorithm::ES256, "es-1", &es256(), json!({"sub": "ada", "aud": resource, "exp": now() + 300}));
    let r = s2.post(Some(&token), &modern("tools/list", json!({}))).send().await.unwrap();
    assert_eq!(r.status(), 503);
    assert!(r.headers().get("retry-after").is_some());
}

/// The guard stands in front of the MCP endpoint and `/metrics` (Host and
/// Origin first, then the token) and nowhere else: the health probes and
/// the metadata document answer any caller.
#[tokio::test]
async fn the_guard_covers_the_endpoint_and_metrics_and_leaves_probes_and_metadata_open() {
    let listener = loopback().await;
    let base = format!("http://{}", listener.local_addr().unwrap());
    let mut options = HttpOptions::default();
    options.auth = Some(AuthOptions::new(format!("{base}/mcp"), AUTH_SERVER, statics()));
    options.metrics = Some(MetricsText(Arc::new(|| "# EOF\n".to_owned())));
    let _serving = Serving::on(listener, server(), options);
    let client = Client::builder().timeout(WAIT).build().unwrap();
    for path in ["/mcp", "/metrics"] {
        let url = format!("{base}{path}");
        let r = client.get(&url).header("accept", "text/event-stream").send().await.unwrap();
        assert_eq!(r.status(), 401, "{path} without a token");
        let challenge = r.headers()["www-authenticate"].to_str().unwrap().to_owned();
        assert!(challenge.contains("resource_metadata=\""), "{path}: {challenge}");
        for (name, value) in [("host", "evil.example"), ("origin", "http://evil.example")] {
            // No token either: the 403 (not a 401) shows Host/Origin come first.
            let r = client.get(&url).header(name, value).send().await.unwrap();
            assert_eq!(r.status(), 403, "{path} with a foreign {name}, checked before the token");
            assert!(r.headers().get("www-authenticate").is_none(), "{path}: no token challenge");
            let body: Value = r.json().await.unwrap();
            assert!(body["error"]["message"].as_str().unwrap().contains("DNS-rebinding"), "{body}");
        }
    }
    let r = client.get(format!("{base}/metrics")).bearer_auth("reader-token").send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.text().await.unwrap(), "# EOF\n");
    for path in ["/healthz", "/readyz", "/.well-known/oauth-protected-resource/mcp"] {
        let r = client.get(format!("{base}{path}")).header("host", "evil.example").send().await.unwrap();
        assert_eq!(r.status(), 200, "{path} is open to any caller");
    }
}
