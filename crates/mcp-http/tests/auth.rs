//! Authorization over real loopback HTTP: the resource-server role with
//! static tokens and JWTs (inline JWKS and a JWKS fetched from a URL),
//! scope challenges, scope-filtered lists, session binding.

use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use jsonwebtoken::{Algorithm, EncodingKey, Header, encode};
use mcp_http::{AuthOptions, HttpOptions, JwtValidator, StaticTokens, TokenValidator};
use mcp_server::{CallToolResult, Principal, RequestContext, Server, Tool};
use reqwest::{Client, StatusCode};
use serde_json::{Value, json};

const JWKS: &str = include_str!("keys/jwks.json");
const ES256_KEY: &[u8] = include_bytes!("keys/es256-private.pk8.pem");
const OTHER_ES256_KEY: &[u8] = include_bytes!("keys/other-es256-private.pk8.pem");
const RS256_KEY: &[u8] = include_bytes!("keys/rs256-private.pem");
const AUTH_SERVER: &str = "https://auth.example.com";

fn server() -> Server {
    let who = |_: Value, ctx: RequestContext| async move {
        let subject = ctx.principal().map(|p| p.subject.clone()).unwrap_or_default();
        let custom = ctx.header("x-custom").unwrap_or("-").to_owned();
        let leaked = ctx.header("authorization").is_some();
        Ok(CallToolResult::text(format!("{subject} {custom} leaked={leaked}")))
    };
    Server::builder("auth-test", "1")
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
    _shutdown: tokio::sync::oneshot::Sender<()>,
}

async fn start(validator: Arc<dyn TokenValidator>, required: &[&str]) -> Running {
    start_with(|_| validator, required).await
}

/// Starts the server with the validator `make` builds for the server's own
/// URL (the audience tokens must carry, known once the port is bound).
async fn start_with(make: impl FnOnce(&str) -> Arc<dyn TokenValidator>, required: &[&str]) -> Running {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let resource = format!("http://{addr}/mcp");
    let validator = make(&resource);
    let mut options = HttpOptions::default();
    options.auth = Some(
        AuthOptions::new(resource, AUTH_SERVER, validator)
            .require_scopes(required.iter().copied())
            .scopes_supported(["notes:read", "notes:admin"]),
    );
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(mcp_http::serve_listener(server(), listener, options, async move {
        let _ = rx.await;
    }));
    Running {
        base: format!("http://{addr}"),
        url: format!("http://{addr}/mcp"),
        client: Client::new(),
        _shutdown: tx,
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
