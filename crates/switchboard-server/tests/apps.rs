//! MCP Apps (extension `io.modelcontextprotocol/ui`) through the MCP
//! surface: every `_meta.ui` field of a view on the listed resource and on
//! the read contents, a tool's linkage (`resourceUri`, `visibility`, the
//! flat `ui/resourceUri`), the extension offered, the host's `mimeTypes`
//! reaching a handler that answers differently with and without them, and
//! each build-time error. Every wire test runs four ways: stdio and HTTP,
//! each in the handshake era (`initialize` at 2025-11-25) and per request
//! (2026-07-28).
//!
//! Spec: `specification/2026-01-26/apps.mdx` of `modelcontextprotocol/ext-apps`.

use serde_json::{Value, json};
use switchboard_server::apps::{
    self, EXTENSION, MIME_TYPE, UiCsp, UiPermissions, UiResourceMeta, Visibility,
};
use switchboard_server::types::ResourceContents;
use switchboard_server::{
    CallToolResult, Error, NoArgs, ReadRequest, RequestContext, Resource, ResourceTemplate, Server,
    ServerBuilder, Tool, ToolError,
};
use switchboard_testkit::TestClient;

const LEGACY: &str = "2025-11-25";
const MODERN: &str = "2026-07-28";
const VIEW: &str = "ui://weather/forecast";
const VIEW_HTML: &str = "<!doctype html><title>Forecast</title><main id=forecast></main>";

/// The `_meta.ui` of the test view: every field, each CSP list and each
/// permission.
fn every_field() -> UiResourceMeta {
    UiResourceMeta {
        csp: Some(UiCsp {
            connect_domains: vec!["https://api.weather.example".into(), "wss://live.weather.example".into()],
            resource_domains: vec!["https://cdn.weather.example".into()],
            frame_domains: vec!["https://*.maps.example".into()],
            base_uri_domains: vec!["https://weather.example".into()],
        }),
        permissions: Some(UiPermissions {
            camera: true,
            microphone: true,
            geolocation: true,
            clipboard_write: true,
        }),
        domain: Some("a904794854a047f6.claudemcpcontent.com".into()),
        prefers_border: Some(true),
    }
}

/// The same, as the spec's schema spells it.
fn every_field_json() -> Value {
    json!({
        "csp": {
            "connectDomains": ["https://api.weather.example", "wss://live.weather.example"],
            "resourceDomains": ["https://cdn.weather.example"],
            "frameDomains": ["https://*.maps.example"],
            "baseUriDomains": ["https://weather.example"]
        },
        "permissions": {"camera": {}, "microphone": {}, "geolocation": {}, "clipboardWrite": {}},
        "domain": "a904794854a047f6.claudemcpcontent.com",
        "prefersBorder": true
    })
}

/// `forecast` answers a host that renders views with structured data for
/// the view, and any other client with a sentence.
fn forecast_tool() -> Tool {
    Tool::new("forecast").ui(VIEW).raw_handler(|_, ctx: RequestContext| async move {
        let support = ctx.ui_support();
        if support.as_ref().is_some_and(|s| s.renders_html()) {
            let mut result = CallToolResult::structured(json!({"city": "Oslo", "days": [3, 5, 4]}));
            result.content = vec![switchboard_server::ContentBlock::text("Forecast shown in the view.")];
            return Ok(result);
        }
        let declared = support.map(|s| s.mime_types.join(",")).unwrap_or_else(|| "none".into());
        Ok(CallToolResult::text(format!("Oslo: 3, 5 and 4 degrees (views: {declared})")))
    })
}

fn builder() -> ServerBuilder {
    Server::builder("weather", "1")
        .resource(
            Resource::ui(VIEW, "forecast-view").title("Forecast").text(VIEW_HTML).ui_meta(every_field()),
        )
        .resource(Resource::ui("ui://weather/chart", "chart").blob(b"<!doctype html><canvas></canvas>"))
        .tool(forecast_tool())
        .tool(
            Tool::new("refresh")
                .ui(VIEW)
                .visibility(&[Visibility::App])
                .handler(|_: NoArgs, _: RequestContext| async { Ok("refreshed") }),
        )
        .tool(
            Tool::new("both")
                .visibility(&[Visibility::Model, Visibility::App])
                .ui("ui://weather/chart")
                .handler(|_: NoArgs, _: RequestContext| async { Ok("both") }),
        )
        .tool(Tool::new("plain").handler(|_: NoArgs, _: RequestContext| async { Ok("plain") }))
}

fn server() -> Server {
    builder().build().expect("the weather server builds")
}

/// The capabilities of a host that renders MCP App views.
fn host_capabilities() -> Value {
    json!({"extensions": {EXTENSION: {"mimeTypes": [MIME_TYPE]}}})
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Wire {
    Stdio,
    Http,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Era {
    /// `initialize` at 2025-11-25.
    Handshake,
    /// 2026-07-28, capabilities in each request's `_meta`.
    PerRequest,
}

const WAYS: [(Wire, Era); 4] = [
    (Wire::Stdio, Era::Handshake),
    (Wire::Stdio, Era::PerRequest),
    (Wire::Http, Era::Handshake),
    (Wire::Http, Era::PerRequest),
];

/// A client on one wire in one era, declaring `capabilities`.
struct Peer {
    wire: Wire,
    era: Era,
    capabilities: Value,
    stdio: Option<TestClient>,
    http: Option<HttpPeer>,
    /// What the server announced: the `initialize` result, or `server/discover`'s.
    announced: Value,
}

struct HttpPeer {
    client: reqwest::Client,
    url: String,
    session: Option<String>,
    next_id: i64,
    _shutdown: tokio::sync::oneshot::Sender<()>,
}

impl Peer {
    async fn open(server: &Server, wire: Wire, era: Era, capabilities: Value) -> Peer {
        let mut peer = Peer { wire, era, capabilities, stdio: None, http: None, announced: Value::Null };
        match wire {
            Wire::Stdio => peer.stdio = Some(TestClient::connect(server)),
            Wire::Http => peer.http = Some(HttpPeer::start(server.clone()).await),
        }
        peer.announced = match era {
            Era::Handshake => peer.handshake().await,
            Era::PerRequest => peer.result("server/discover", json!({})).await,
        };
        peer
    }

    fn label(&self) -> String {
        format!("{:?}/{:?}", self.wire, self.era)
    }

    async fn handshake(&mut self) -> Value {
        let params = json!({
            "protocolVersion": LEGACY,
            "capabilities": self.capabilities,
            "clientInfo": {"name": "apps-test", "version": "1"}
        });
        let result = self.result("initialize", params).await;
        assert_eq!(result["protocolVersion"], LEGACY, "{result}");
        match (&mut self.stdio, &mut self.http) {
            (Some(c), _) => {
                c.notify("notifications/initialized", None).await.unwrap();
            }
            (_, Some(h)) => h.notify_initialized().await,
            _ => unreachable!("a peer has a wire"),
        }
        result
    }

    /// The response message to `method` with `params` (plus the
    /// 2026-07-28 `_meta` when per request).
    async fn response(&mut self, method: &str, mut params: Value) -> Value {
        if self.era == Era::PerRequest && method != "initialize" {
            params["_meta"] = json!({
                "io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientCapabilities": self.capabilities,
                "io.modelcontextprotocol/clientInfo": {"name": "apps-test", "version": "1"}
            });
        }
        match (&mut self.stdio, &mut self.http) {
            (Some(c), _) => c.request_raw(method, Some(params)).await.unwrap(),
            (_, Some(h)) => h.post(self.era, method, params).await,
            _ => unreachable!("a peer has a wire"),
        }
    }

    /// The `result` of `method`; panics on an error.
    async fn result(&mut self, method: &str, params: Value) -> Value {
        let response = self.response(method, params).await;
        assert!(response.get("error").is_none(), "{} {method}: {response}", self.label());
        response["result"].clone()
    }
}

impl HttpPeer {
    async fn start(server: Server) -> HttpPeer {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let options = switchboard_http::HttpOptions::default();
        tokio::spawn(switchboard_http::serve_listener(server, listener, options, async move {
            let _ = rx.await;
        }));
        HttpPeer {
            client: reqwest::Client::new(),
            url: format!("http://{addr}/mcp"),
            session: None,
            next_id: 0,
            _shutdown: tx,
        }
    }

    fn request(&self, era: Era) -> reqwest::RequestBuilder {
        let version = if era == Era::PerRequest { MODERN } else { LEGACY };
        let post = self
            .client
            .post(&self.url)
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", version);
        match &self.session {
            Some(sid) => post.header("mcp-session-id", sid),
            None => post,
        }
    }

    async fn post(&mut self, era: Era, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let mut post = self
            .request(era)
            .json(&json!({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}));
        if era == Era::PerRequest {
            post = post.header("mcp-method", method);
            let target = match method {
                "tools/call" => params["name"].as_str(),
                "resources/read" => params["uri"].as_str(),
                _ => None,
            };
            if let Some(target) = target {
                post = post.header("mcp-name", target);
            }
        }
        let response = post.send().await.unwrap();
        if method == "initialize"
            && let Some(sid) = response.headers().get("mcp-session-id")
        {
            self.session = Some(sid.to_str().unwrap().to_owned());
        }
        let sse = response
            .headers()
            .get("content-type")
            .is_some_and(|v| v.to_str().unwrap_or_default().starts_with("text/event-stream"));
        let body = response.text().await.unwrap();
        if !sse {
            return serde_json::from_str(&body).unwrap_or_else(|e| panic!("{method}: {e}: {body}"));
        }
        // The response is the stream's message that carries our id.
        body.lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .filter_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
            .find(|m| m["id"] == self.next_id && m.get("method").is_none())
            .unwrap_or_else(|| panic!("{method}: no response in the stream: {body}"))
    }

    async fn notify_initialized(&self) {
        let r = self
            .request(Era::Handshake)
            .json(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 202);
    }
}

fn find<'a>(items: &'a Value, key: &str, value: &str) -> &'a Value {
    items
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i[key] == value)
        .unwrap_or_else(|| panic!("no {value} in {items}"))
}

#[tokio::test]
async fn a_view_lists_and_reads_with_every_ui_meta_field() {
    let server = server();
    for (wire, era) in WAYS {
        let mut peer = Peer::open(&server, wire, era, host_capabilities()).await;
        let label = peer.label();
        let listed = peer.result("resources/list", json!({})).await;
        let view = find(&listed["resources"], "uri", VIEW);
        assert_eq!(view["mimeType"], MIME_TYPE, "{label}: {view}");
        assert_eq!(view["_meta"]["ui"], every_field_json(), "{label}: {view}");

        let read = peer.result("resources/read", json!({"uri": VIEW})).await;
        let contents = read["contents"].as_array().unwrap();
        assert_eq!(contents.len(), 1, "{label}: {read}");
        assert_eq!(contents[0]["uri"], VIEW, "{label}");
        assert_eq!(contents[0]["mimeType"], MIME_TYPE, "{label}");
        assert_eq!(contents[0]["text"], VIEW_HTML, "{label}");
        assert_eq!(contents[0]["_meta"]["ui"], every_field_json(), "{label}: the read contents carry it too");

        // A blob view with no `_meta.ui`: its contents carry none either.
        let chart = peer.result("resources/read", json!({"uri": "ui://weather/chart"})).await;
        let content = &chart["contents"][0];
        assert_eq!(content["mimeType"], MIME_TYPE, "{label}: {chart}");
        assert_eq!(content["blob"], switchboard_server::base64_encode(b"<!doctype html><canvas></canvas>"));
        assert!(content.get("_meta").is_none(), "{label}: {chart}");
    }
}

#[tokio::test]
async fn a_tool_names_its_view_with_resource_uri_visibility_and_the_flat_key() {
    let server = server();
    for (wire, era) in WAYS {
        let mut peer = Peer::open(&server, wire, era, json!({})).await;
        let label = peer.label();
        let tools = peer.result("tools/list", json!({})).await["tools"].clone();
        let forecast = &find(&tools, "name", "forecast")["_meta"];
        assert_eq!(forecast["ui"], json!({"resourceUri": VIEW}), "{label}: visibility omitted means both");
        assert_eq!(forecast["ui/resourceUri"], VIEW, "{label}: the deprecated flat key");
        let refresh = &find(&tools, "name", "refresh")["_meta"];
        assert_eq!(refresh["ui"], json!({"resourceUri": VIEW, "visibility": ["app"]}), "{label}");
        assert_eq!(refresh["ui/resourceUri"], VIEW, "{label}");
        let both = &find(&tools, "name", "both")["_meta"];
        assert_eq!(
            both["ui"],
            json!({"resourceUri": "ui://weather/chart", "visibility": ["model", "app"]}),
            "{label}: visibility set before ui is kept"
        );
        assert!(find(&tools, "name", "plain").get("_meta").is_none(), "{label}: a tool without a view");
        // The app-only tool is still callable on the wire: the host, not
        // the server, keeps it from the model.
        let called = peer.result("tools/call", json!({"name": "refresh", "arguments": {}})).await;
        assert_eq!(called["content"][0]["text"], "refreshed", "{label}: {called}");
    }
}

#[tokio::test]
async fn the_server_offers_the_ui_extension_in_both_eras() {
    let server = server();
    let plain = Server::builder("plain", "1")
        .tool(Tool::new("plain").handler(|_: NoArgs, _: RequestContext| async { Ok("plain") }))
        .build()
        .unwrap();
    for (wire, era) in WAYS {
        let peer = Peer::open(&server, wire, era, json!({})).await;
        let label = peer.label();
        assert_eq!(
            peer.announced["capabilities"]["extensions"][EXTENSION],
            json!({}),
            "{label}: {}",
            peer.announced
        );
        let peer = Peer::open(&plain, wire, era, json!({})).await;
        assert!(
            peer.announced["capabilities"]["extensions"].get(EXTENSION).is_none(),
            "{label}: a server without views does not offer it: {}",
            peer.announced
        );
    }
}

#[tokio::test]
async fn an_explicit_offer_of_the_ui_extension_is_kept_as_given() {
    let settings = json!({"com.example/note": "kept"});
    let server = builder().extension(EXTENSION, settings.clone()).build().expect("one offer, not two");
    for (wire, era) in WAYS {
        let peer = Peer::open(&server, wire, era, json!({})).await;
        assert_eq!(peer.announced["capabilities"]["extensions"][EXTENSION], settings, "{}", peer.label());
    }
}

#[tokio::test]
async fn a_handler_sees_the_hosts_mime_types_and_answers_richer_for_a_host_that_renders_views() {
    let server = server();
    for (wire, era) in WAYS {
        let mut host = Peer::open(&server, wire, era, host_capabilities()).await;
        let label = host.label();
        let rich = host.result("tools/call", json!({"name": "forecast", "arguments": {}})).await;
        assert_eq!(rich["structuredContent"], json!({"city": "Oslo", "days": [3, 5, 4]}), "{label}: {rich}");
        assert_eq!(rich["content"][0]["text"], "Forecast shown in the view.", "{label}");

        let mut plain = Peer::open(&server, wire, era, json!({})).await;
        let text = plain.result("tools/call", json!({"name": "forecast", "arguments": {}})).await;
        assert!(text.get("structuredContent").is_none(), "{label}: {text}");
        assert_eq!(text["content"][0]["text"], "Oslo: 3, 5 and 4 degrees (views: none)", "{label}");

        // Declaring the extension without the MCP App MIME type is not rendering views.
        let other = json!({"extensions": {EXTENSION: {"mimeTypes": ["text/html"]}}});
        let mut other = Peer::open(&server, wire, era, other).await;
        let text = other.result("tools/call", json!({"name": "forecast", "arguments": {}})).await;
        assert_eq!(text["content"][0]["text"], "Oslo: 3, 5 and 4 degrees (views: text/html)", "{label}");
    }
}

#[tokio::test]
async fn a_view_served_by_a_template_gets_its_meta_on_every_read() {
    let template = ResourceTemplate::new("ui://weather/city/{name}", "city-view")
        .unwrap()
        .mime_type(MIME_TYPE)
        .ui_meta(UiResourceMeta { prefers_border: Some(false), ..Default::default() })
        .handler(|req: ReadRequest, _ctx: RequestContext| async move {
            let html = format!("<h1>{}</h1>", req.var("name").unwrap_or_default());
            Ok(ResourceContents::text(req.uri, Some(MIME_TYPE.into()), html))
        });
    let server = Server::builder("weather", "1")
        .resource_template(template)
        .tool(
            Tool::new("city")
                .ui("ui://weather/city/oslo")
                .handler(|_: NoArgs, _: RequestContext| async { Ok("Oslo") }),
        )
        .build()
        .expect("the template serves the tool's view");
    for (wire, era) in WAYS {
        let mut peer = Peer::open(&server, wire, era, json!({})).await;
        let label = peer.label();
        let templates = peer.result("resources/templates/list", json!({})).await;
        assert_eq!(
            templates["resourceTemplates"][0]["_meta"]["ui"],
            json!({"prefersBorder": false}),
            "{label}"
        );
        let read = peer.result("resources/read", json!({"uri": "ui://weather/city/oslo"})).await;
        assert_eq!(read["contents"][0]["text"], "<h1>oslo</h1>", "{label}");
        assert_eq!(read["contents"][0]["_meta"]["ui"], json!({"prefersBorder": false}), "{label}: {read}");
        assert_eq!(peer.announced["capabilities"]["extensions"][EXTENSION], json!({}), "{label}");
    }
}

// ---- Build-time errors -------------------------------------------------

fn view_error(builder: ServerBuilder) -> (String, String) {
    match builder.build().expect_err("the build fails") {
        Error::InvalidUiResource { uri, reason } => (uri, reason),
        other => panic!("expected InvalidUiResource, got {other:?}"),
    }
}

fn tool_error(builder: ServerBuilder) -> (String, String) {
    match builder.build().expect_err("the build fails") {
        Error::InvalidToolUi { tool, reason } => (tool, reason),
        other => panic!("expected InvalidToolUi, got {other:?}"),
    }
}

fn bare() -> ServerBuilder {
    Server::builder("weather", "1")
}

#[test]
fn a_view_outside_the_ui_scheme_fails_the_build() {
    let (uri, reason) =
        view_error(bare().resource(Resource::ui("https://weather.example/view", "v").text("x")));
    assert_eq!(uri, "https://weather.example/view");
    assert!(reason.contains("ui://"), "{reason}");
    // `_meta.ui` alone makes it a view too.
    let meta_only =
        Resource::new("file:///view.html", "v").mime_type("text/html").text("x").ui_meta(every_field());
    let (uri, _) = view_error(bare().resource(meta_only));
    assert_eq!(uri, "file:///view.html");
    // And a template.
    let template = ResourceTemplate::new("app://views/{id}", "t").unwrap().mime_type(MIME_TYPE).handler(
        |req: ReadRequest, _: RequestContext| async move { Ok(ResourceContents::text(req.uri, None, "x")) },
    );
    let (uri, _) = view_error(bare().resource_template(template));
    assert_eq!(uri, "app://views/{id}");
}

#[test]
fn a_ui_resource_with_another_mime_type_fails_the_build() {
    for mime in [Some("text/html"), None] {
        let mut resource = Resource::new(VIEW, "v");
        if let Some(mime) = mime {
            resource = resource.mime_type(mime);
        }
        let (uri, reason) = view_error(bare().resource(resource.text("<p>")));
        assert_eq!(uri, VIEW);
        assert!(reason.contains(MIME_TYPE), "{reason}");
    }
    let (_, reason) = view_error(bare().resource(Resource::ui("ui://", "v").text("x")));
    assert!(reason.contains("name after the scheme"), "{reason}");
}

#[test]
fn a_csp_origin_that_check_origin_refuses_fails_the_build() {
    let bad = [
        "api.weather.example",
        "https://api.weather.example/path",
        "https://api.weather.example; script-src 'unsafe-inline'",
        "https://'self'",
        "javascript://x",
    ];
    for origin in bad {
        for list in 0..4 {
            let mut csp = UiCsp::default();
            let slot = [
                &mut csp.connect_domains,
                &mut csp.resource_domains,
                &mut csp.frame_domains,
                &mut csp.base_uri_domains,
            ];
            slot.into_iter().nth(list).unwrap().push(origin.to_owned());
            let meta = UiResourceMeta { csp: Some(csp), ..Default::default() };
            let (uri, reason) = view_error(bare().resource(Resource::ui(VIEW, "v").text("x").ui_meta(meta)));
            assert_eq!(uri, VIEW);
            assert!(reason.contains(origin), "{origin}: {reason}");
            assert!(apps::check_origin(origin).is_err(), "the builder and check_origin agree on {origin}");
        }
    }
}

#[tokio::test]
async fn a_bad_view_added_at_run_time_is_refused_too() {
    let server = server();
    let refused =
        server.add_resource(Resource::new("ui://weather/late", "late").mime_type("text/plain").text("x"));
    assert!(matches!(refused, Err(Error::InvalidUiResource { .. })), "{refused:?}");
    let refused = server.add_tool(
        Tool::new("late")
            .ui("https://x.example")
            .handler(|_: NoArgs, _: RequestContext| async { Ok::<_, ToolError>("late") }),
    );
    assert!(matches!(refused, Err(Error::InvalidToolUi { .. })), "{refused:?}");
    let mut peer = Peer::open(&server, Wire::Stdio, Era::Handshake, json!({})).await;
    let listed = peer.result("resources/list", json!({})).await;
    assert!(
        listed["resources"].as_array().unwrap().iter().all(|r| r["uri"] != "ui://weather/late"),
        "{listed}"
    );
}

#[test]
fn a_tool_naming_a_view_nobody_serves_fails_the_build() {
    let tool = Tool::new("orphan")
        .ui("ui://weather/missing")
        .handler(|_: NoArgs, _: RequestContext| async { Ok("x") });
    let (tool, reason) = tool_error(bare().resource(Resource::ui(VIEW, "v").text("x")).tool(tool));
    assert_eq!(tool, "orphan");
    assert!(reason.contains("ui://weather/missing"), "{reason}");
}

#[test]
fn a_tool_naming_a_uri_outside_ui_fails_the_build() {
    let tool = Tool::new("web")
        .ui("https://weather.example/view")
        .handler(|_: NoArgs, _: RequestContext| async { Ok("x") });
    let (tool, reason) = tool_error(bare().tool(tool));
    assert_eq!(tool, "web");
    assert!(reason.contains("ui://"), "{reason}");
}

#[test]
fn visibility_without_a_view_fails_the_build() {
    let tool = Tool::new("hidden")
        .visibility(&[Visibility::App])
        .handler(|_: NoArgs, _: RequestContext| async { Ok("x") });
    let (tool, reason) = tool_error(bare().tool(tool));
    assert_eq!(tool, "hidden");
    assert!(reason.contains("visibility"), "{reason}");
    let nobody = Tool::new("nobody")
        .ui(VIEW)
        .visibility(&[])
        .handler(|_: NoArgs, _: RequestContext| async { Ok("x") });
    let (tool, reason) = tool_error(bare().resource(Resource::ui(VIEW, "v").text("x")).tool(nobody));
    assert_eq!(tool, "nobody");
    assert!(reason.contains("empty `visibility`"), "{reason}");
}

// ---- The macro ----------------------------------------------------------

/// Refreshes the forecast; only the view calls it.
#[switchboard_server::tool(ui = "ui://weather/forecast", visibility = "app")]
async fn refresh_forecast() -> Result<String, ToolError> {
    Ok("refreshed".into())
}

/// Shows the forecast.
#[switchboard_server::tool(ui = "ui://weather/forecast", visibility = ["model", "app"])]
async fn show_forecast(city: String) -> Result<String, ToolError> {
    Ok(city)
}

#[tokio::test]
async fn the_tool_macro_sets_the_view_and_its_visibility() {
    let server = bare()
        .resource(Resource::ui(VIEW, "v").text(VIEW_HTML))
        .tool(refresh_forecast_tool())
        .tool(show_forecast_tool())
        .build()
        .unwrap();
    for (wire, era) in WAYS {
        let mut peer = Peer::open(&server, wire, era, json!({})).await;
        let tools = peer.result("tools/list", json!({})).await["tools"].clone();
        let refresh = &find(&tools, "name", "refresh_forecast")["_meta"];
        assert_eq!(refresh["ui"], json!({"resourceUri": VIEW, "visibility": ["app"]}), "{}", peer.label());
        assert_eq!(refresh["ui/resourceUri"], VIEW);
        let show = &find(&tools, "name", "show_forecast")["_meta"];
        assert_eq!(show["ui"], json!({"resourceUri": VIEW, "visibility": ["model", "app"]}));
    }
}

// ---- Views that arrive at run time -----------------------------------------

#[tokio::test]
async fn enable_apps_offers_the_extension_for_views_added_at_run_time() {
    let server = bare().enable_apps().enable_resources().build().unwrap();
    server.add_resource(Resource::ui(VIEW, "late").text(VIEW_HTML).ui_meta(every_field())).unwrap();
    for (wire, era) in WAYS {
        let mut peer = Peer::open(&server, wire, era, json!({})).await;
        let label = peer.label();
        assert_eq!(peer.announced["capabilities"]["extensions"][EXTENSION], json!({}), "{label}");
        let read = peer.result("resources/read", json!({"uri": VIEW})).await;
        assert_eq!(read["contents"][0]["_meta"]["ui"], every_field_json(), "{label}: {read}");
    }
}

/// A source serving one view, as a folder of views might.
struct OneView;

impl switchboard_server::ResourceSource for OneView {
    fn len(&self) -> usize {
        1
    }

    fn list(&self, range: std::ops::Range<usize>) -> Vec<switchboard_server::types::Resource> {
        let mut view = switchboard_server::types::Resource::new("ui://weather/sourced", "sourced");
        view.mime_type = Some(MIME_TYPE.into());
        let mut meta = switchboard_server::types::Meta::new();
        UiResourceMeta { prefers_border: Some(true), ..Default::default() }.write_into(&mut meta);
        view.meta = Some(meta);
        range.map(|_| view.clone()).collect()
    }

    fn read(&self, uri: &str, _: RequestContext) -> Option<switchboard_server::SourceRead> {
        (uri == "ui://weather/sourced").then(|| -> switchboard_server::SourceRead {
            Box::pin(async {
                Ok(vec![ResourceContents::text("ui://weather/sourced", Some(MIME_TYPE.into()), "<p>")])
            })
        })
    }
}

#[test]
fn a_view_listed_by_a_resource_source_satisfies_a_tools_link() {
    let tool = || {
        Tool::new("sourced")
            .ui("ui://weather/sourced")
            .handler(|_: NoArgs, _: RequestContext| async { Ok("x") })
    };
    bare()
        .resource_source(std::sync::Arc::new(OneView))
        .tool(tool())
        .build()
        .expect("the source lists the view");
    let (name, _) = tool_error(bare().tool(tool()));
    assert_eq!(name, "sourced", "without the source nothing serves it");
}

#[tokio::test]
async fn meta_set_after_ui_keeps_the_view_link() {
    let mut other = switchboard_server::types::Meta::new();
    other.insert("com.example/owner".into(), json!("weather-team"));
    let tool = Tool::new("late_meta")
        .ui(VIEW)
        .visibility(&[Visibility::App])
        .meta(other)
        .handler(|_: NoArgs, _: RequestContext| async { Ok("x") });
    let server = bare().resource(Resource::ui(VIEW, "v").text(VIEW_HTML)).tool(tool).build().unwrap();
    let mut peer = Peer::open(&server, Wire::Stdio, Era::PerRequest, json!({})).await;
    let tools = peer.result("tools/list", json!({})).await["tools"].clone();
    let meta = &find(&tools, "name", "late_meta")["_meta"];
    assert_eq!(meta["com.example/owner"], "weather-team", "{meta}");
    assert_eq!(meta["ui"], json!({"resourceUri": VIEW, "visibility": ["app"]}), "{meta}");
    assert_eq!(meta["ui/resourceUri"], VIEW, "{meta}");
}
