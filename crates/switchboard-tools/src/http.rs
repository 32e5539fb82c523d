//! HTTP tools: one request per call to a URL built from an RFC 6570
//! template, with configured headers (which may take secrets from the
//! environment) and, optionally, the remaining arguments as a JSON body.
//!
//! [`HttpCaller`] is the one place that decides how an outgoing request of
//! a tool is made and limited (client, time limit, response cap, what
//! happens to a larger response, how failures read): the `[[tools.http]]`
//! tools here and the `[[tools.openapi]]` operations of `switchboard-openapi`
//! both send through it.

use std::sync::Arc;
use std::time::Duration;

use reqwest::header::{CONTENT_LENGTH, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue, LOCATION};
use reqwest::{Method, StatusCode, Url};
use serde_json::{Map, Value};
use switchboard_server::uri_template::{self, UriTemplate, Variables};
use switchboard_server::{CallToolResult, ContentBlock, RequestContext, Tool, ToolError};

use crate::error::{Segment, SpecProblem, ToolsError};
use crate::large::{self, LargeOutput, Total};
use crate::spec::{self, BodyMode, HttpToolSpec};

/// How much of an error response's body goes into the message.
const EXCERPT_CHARS: usize = 2000;

/// Past the cap, the rest of a body is read only to count it, up to this
/// many bytes (beyond, the total is given as "at least").
const COUNT_BEYOND_CAP: u64 = 64 * 1024 * 1024;

/// Redirects followed within one request.
const MAX_REDIRECTS: usize = 10;

/// Follows redirects only within the origin (scheme, host, port) the
/// request was made to. The configured headers may hold secrets (an API
/// key from the environment), and a redirect carries them along: an open
/// redirect on the API, or a compromised one, would otherwise hand them to
/// any host, and a model could be steered to the URL that triggers it.
/// A redirect to another origin is not followed; the tool gets the 3xx
/// answer and reports it ([`HttpCaller::failure`]).
fn same_origin_redirects() -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(|attempt| {
        let first = attempt.previous().first().map(Url::origin);
        if attempt.previous().len() > MAX_REDIRECTS {
            attempt.error(format!("more than {MAX_REDIRECTS} redirects"))
        } else if first.is_some_and(|first| first == attempt.url().origin()) {
            attempt.follow()
        } else {
            attempt.stop()
        }
    })
}

/// The limits of one tool's requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HttpLimits {
    /// Time limit of the whole request, the body included.
    pub timeout: Duration,
    /// Bytes of response body kept.
    pub max_response: usize,
    /// What a body larger than `max_response` gives.
    pub on_large_output: LargeOutput,
}

/// One request to send.
#[derive(Debug, Clone)]
pub struct OutgoingRequest {
    /// The method.
    pub method: Method,
    /// The whole URL, query included.
    pub url: Url,
    /// The headers (a JSON body adds `Content-Type: application/json`
    /// unless one is set).
    pub headers: HeaderMap,
    /// A JSON body.
    pub json_body: Option<Value>,
}

/// A response, its body read up to the tool's cap.
#[derive(Debug, Clone)]
pub struct HttpAnswer {
    /// The status.
    pub status: StatusCode,
    /// The `Content-Type`, if any.
    pub content_type: Option<String>,
    /// The body, at most `max_response` bytes of it.
    pub body: Vec<u8>,
    /// The size of the whole body.
    pub total: Total,
    /// The `Location` of a redirect that was not followed.
    pub location: Option<String>,
}

impl HttpAnswer {
    /// Whether the body was cut at the cap.
    pub fn truncated(&self) -> bool {
        self.total.bytes() > self.body.len() as u64
    }

    /// Whether the content type is JSON (`application/json`, `…+json`).
    pub fn is_json(&self) -> bool {
        self.content_type.as_deref().is_some_and(|v| v.to_ascii_lowercase().contains("json"))
    }

    /// The body as text (invalid UTF-8 replaced).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// Sends a tool's requests and shapes their answers: the one path every
/// outgoing HTTP request of a configured tool takes.
#[derive(Debug, Clone)]
pub struct HttpCaller {
    tool: String,
    client: reqwest::Client,
    limits: HttpLimits,
}

impl HttpCaller {
    /// A caller for `tool` with `limits`; fails on a zero limit or when
    /// the HTTP client cannot be built.
    pub fn new(tool: &str, limits: HttpLimits) -> Result<Self, ToolsError> {
        Self::with_redirects(tool, limits, same_origin_redirects())
    }

    /// A caller for fetching a document the operator named (an OpenAPI
    /// description): it sends no configured headers, so it follows
    /// redirects to any origin (up to 10), as a download would.
    pub fn fetching(what: &str, limits: HttpLimits) -> Result<Self, ToolsError> {
        Self::with_redirects(what, limits, reqwest::redirect::Policy::limited(MAX_REDIRECTS))
    }

    fn with_redirects(
        tool: &str,
        limits: HttpLimits,
        redirects: reqwest::redirect::Policy,
    ) -> Result<Self, ToolsError> {
        spec::check_limits(tool, limits.timeout, ("max_response", limits.max_response))?;
        let client = reqwest::Client::builder()
            .timeout(limits.timeout)
            .redirect(redirects)
            .build()
            .map_err(|e| ToolsError::HttpClient { tool: tool.to_owned(), reason: e.to_string() })?;
        Ok(Self { tool: tool.to_owned(), client, limits })
    }

    /// The same client and limits for another tool (the operations of one
    /// API share one connection pool).
    #[must_use]
    pub fn named(&self, tool: &str) -> Self {
        Self { tool: tool.to_owned(), client: self.client.clone(), limits: self.limits }
    }

    /// The tool's name, as messages give it.
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// The limits in force.
    pub fn limits(&self) -> HttpLimits {
        self.limits
    }

    /// Sends `request` and reads the body up to the cap, counting the rest.
    /// A connection failure, a timeout before the body started or a body
    /// that cannot be encoded is a tool error saying so.
    pub async fn send(&self, request: OutgoingRequest) -> Result<HttpAnswer, ToolError> {
        let OutgoingRequest { method, url, headers, json_body } = request;
        let fail = |e: reqwest::Error| {
            let what = if e.is_timeout() {
                format!("timed out after {} s", self.limits.timeout.as_secs_f64())
            } else if e.is_connect() {
                format!("could not connect: {}", chain(&e))
            } else {
                chain(&e)
            };
            ToolError::new(format!("{}: {method} {url} failed: {what}", self.tool))
        };
        let mut builder = self.client.request(method.clone(), url.clone()).headers(headers.clone());
        if let Some(body) = json_body {
            let body = serde_json::to_vec(&body)
                .map_err(|e| ToolError::new(format!("{}: cannot encode the body: {e}", self.tool)))?;
            if !headers.contains_key(CONTENT_TYPE) {
                builder = builder.header(CONTENT_TYPE, "application/json");
            }
            builder = builder.body(body);
        }
        let mut response = builder.send().await.map_err(fail)?;
        let status = response.status();
        let header = |name| response.headers().get(name).and_then(|v| v.to_str().ok()).map(str::to_owned);
        let content_type = header(CONTENT_TYPE);
        let location = if status.is_redirection() { header(LOCATION) } else { None };
        let announced = response
            .headers()
            .get(CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<u64>().ok());
        let cap = self.limits.max_response;
        let mut body = Vec::new();
        let mut seen: u64 = 0;
        let total = loop {
            let chunk = match response.chunk().await {
                Ok(Some(chunk)) => chunk,
                Ok(None) => break Total::Exact(seen),
                // Past the cap the rest is only counted: a failure (the
                // time limit) there ends the count, not the call.
                Err(_) if body.len() >= cap && seen > cap as u64 => break Total::AtLeast(seen),
                Err(e) => return Err(fail(e)),
            };
            seen += chunk.len() as u64;
            let room = cap.saturating_sub(body.len());
            body.extend_from_slice(&chunk[..chunk.len().min(room)]);
            if seen > cap as u64 {
                if let Some(length) = announced.filter(|l| *l >= seen) {
                    break Total::Exact(length);
                }
                if seen - cap as u64 > COUNT_BEYOND_CAP {
                    break Total::AtLeast(seen);
                }
            }
        };
        Ok(HttpAnswer { status, content_type, body, total, location })
    }

    /// The result for a redirect to another origin (not followed: `isError`
    /// naming where it led), an answer whose status is not 2xx (`isError`
    /// with the status and the start of the body), or whose body passed the
    /// cap under `on_large_output = "error"`; `None` otherwise.
    pub fn failure(&self, method: &Method, url: &Url, answer: &HttpAnswer) -> Option<CallToolResult> {
        if let Some(location) = &answer.location {
            return Some(CallToolResult::error(format!(
                "{}: {method} {url} returned HTTP {}, a redirect to {location}: not followed, because \
                 HTTP tools follow redirects only within the origin they call (their headers never \
                 leave it)",
                self.tool, answer.status
            )));
        }
        if !answer.status.is_success() {
            let text = answer.text();
            let excerpt: String = text.chars().take(EXCERPT_CHARS).collect();
            let more = if excerpt.len() < text.len() || answer.truncated() { " […]" } else { "" };
            return Some(CallToolResult::error(format!(
                "{}: {method} {url} returned HTTP {}: {excerpt}{more}",
                self.tool, answer.status
            )));
        }
        if answer.truncated() && self.limits.on_large_output == LargeOutput::Error {
            let limit = ("max_response", self.limits.max_response);
            return Some(CallToolResult::error(large::refusal(&self.tool, "response", answer.total, limit)));
        }
        None
    }

    /// The first part of a truncated body with the notice (text only: a
    /// cut body is not JSON any more).
    pub fn truncated_text(&self, answer: &HttpAnswer) -> String {
        let limit = ("max_response", self.limits.max_response);
        let notice = large::truncation_notice("response", answer.body.len(), answer.total, limit);
        format!("{}\n{notice}", answer.text())
    }

    /// The result of an answer as `[[tools.http]]` gives it: a failure
    /// (see [`HttpCaller::failure`]), a truncated body with its notice, a
    /// JSON object as `structuredContent` (with its text copy), or text.
    pub fn result(&self, method: &Method, url: &Url, answer: &HttpAnswer) -> CallToolResult {
        if let Some(failure) = self.failure(method, url, answer) {
            return failure;
        }
        if answer.truncated() {
            return CallToolResult::text(self.truncated_text(answer));
        }
        if answer.is_json()
            && let Ok(value @ Value::Object(_)) = serde_json::from_slice::<Value>(&answer.body)
        {
            return CallToolResult::structured(value);
        }
        CallToolResult::success(vec![ContentBlock::text(answer.text())])
    }
}

/// Runs a tool's request future until it ends or the call is cancelled.
pub async fn until_cancelled(
    tool: &str,
    ctx: &RequestContext,
    work: impl Future<Output = Result<CallToolResult, ToolError>>,
) -> Result<CallToolResult, ToolError> {
    tokio::select! {
        r = work => r,
        () = ctx.cancelled() => Err(ToolError::new(format!("{tool}: cancelled"))),
    }
}

#[derive(Debug)]
struct Requester {
    template: UriTemplate,
    url_variables: Vec<String>,
    method: Method,
    headers: HeaderMap,
    body: Option<BodyMode>,
    caller: HttpCaller,
}

/// Builds the tool for `spec`. Fails when the schema, the URL template,
/// the method or a header is unusable (a header naming an unset
/// `${VARIABLE}` included).
pub fn http_tool(spec: &HttpToolSpec) -> Result<Tool, ToolsError> {
    let tool = spec.name.clone();
    let (schema, properties) = spec::input_schema(&tool, spec.input_schema.as_ref())?;
    let template = parse_url(&tool, &spec.url)?;
    let url_variables: Vec<String> = template.variables().map(str::to_owned).collect();
    if let Some(unknown) = url_variables.iter().find(|v| !properties.contains(v)) {
        return Err(ToolsError::UnknownPlaceholder { tool, placeholder: unknown.clone(), place: "url" });
    }
    let method = parse_method(&tool, &spec.method)?;
    let mut headers = HeaderMap::new();
    for (name, value) in &spec.headers {
        let (header, value) = header(&tool, name, value).map_err(|(_, e)| e)?;
        headers.insert(header, value);
    }
    let limits = HttpLimits {
        timeout: spec.timeout,
        max_response: spec.max_response,
        on_large_output: spec.on_large_output,
    };
    let caller = HttpCaller::new(&tool, limits)?;
    let requester = Arc::new(Requester { template, url_variables, method, headers, body: spec.body, caller });
    let t = spec.metadata().apply(Tool::new(&tool).input_schema(schema));
    Ok(t.raw_handler(move |args: Value, ctx: RequestContext| {
        let requester = Arc::clone(&requester);
        async move { until_cancelled(requester.caller.tool(), &ctx, requester.call(args)).await }
    }))
}

/// The URL template, parsed; it must be http(s).
pub(crate) fn parse_url(tool: &str, url: &str) -> Result<UriTemplate, ToolsError> {
    let bad_url = |reason: String| ToolsError::BadUrl { tool: tool.to_owned(), url: url.to_owned(), reason };
    let template = UriTemplate::parse(url).map_err(|e| bad_url(e.to_string()))?;
    let lower = url.to_ascii_lowercase();
    if !lower.starts_with("http://") && !lower.starts_with("https://") {
        return Err(bad_url(
            "it must start with http:// or https://, like \"https://api.example.com/{id}\"".to_owned(),
        ));
    }
    Ok(template)
}

/// One of the supported methods, in any case.
pub(crate) fn parse_method(tool: &str, method: &str) -> Result<Method, ToolsError> {
    match method.to_ascii_uppercase().as_str() {
        "GET" => Ok(Method::GET),
        "POST" => Ok(Method::POST),
        "PUT" => Ok(Method::PUT),
        "PATCH" => Ok(Method::PATCH),
        "DELETE" => Ok(Method::DELETE),
        _ => Err(ToolsError::BadMethod { tool: tool.to_owned(), method: method.to_owned() }),
    }
}

/// A configured header, its `${VAR}`s substituted; on error, whether the
/// name (`true`) or the value is at fault.
pub fn header(tool: &str, name: &str, value: &str) -> Result<(HeaderName, HeaderValue), (bool, ToolsError)> {
    let bad =
        |reason: String| ToolsError::BadHeader { tool: tool.to_owned(), header: name.to_owned(), reason };
    let header = HeaderName::from_bytes(name.as_bytes()).map_err(|_| {
        let reason = "not a valid header name: use letters, digits and '-', like \"X-Api-Key\"";
        (true, bad(reason.to_owned()))
    })?;
    let value = substitute_env(value).map_err(|e| match e {
        Substitution::Unset(variable) => {
            (false, ToolsError::MissingSecret { tool: tool.to_owned(), header: name.to_owned(), variable })
        }
        Substitution::Malformed(reason) => (false, bad(reason)),
    })?;
    let mut value = HeaderValue::from_str(&value)
        .map_err(|_| (false, bad("the value has characters a header cannot carry (a line break?)".into())))?;
    value.set_sensitive(true);
    Ok((header, value))
}

/// Why a header value's `${NAME}`s could not be substituted.
#[derive(Debug, PartialEq, Eq)]
enum Substitution {
    /// The variable is set neither in the environment nor in the `env_file`.
    Unset(String),
    /// The value is not well formed (an unclosed `${`).
    Malformed(String),
}

/// Replaces `${NAME}` with the variable's value ([`crate::env_var`]); `$$`
/// is a literal `$`.
fn substitute_env(value: &str) -> Result<String, Substitution> {
    let mut out = String::new();
    let mut rest = value;
    while let Some(i) = rest.find('$') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        if let Some(after) = after.strip_prefix('$') {
            out.push('$');
            rest = after;
        } else if let Some(body) = after.strip_prefix('{') {
            let end = body.find('}').ok_or_else(|| {
                Substitution::Malformed("an unclosed ${ (write ${NAME}, or $$ for a literal $)".to_owned())
            })?;
            let name = &body[..end];
            let v = crate::env_var(name).ok_or_else(|| Substitution::Unset(name.to_owned()))?;
            out.push_str(&v);
            rest = &body[end + 1..];
        } else {
            out.push('$');
            rest = after;
        }
    }
    out.push_str(rest);
    Ok(out)
}

/// An argument as a URI template value; `None` leaves the variable
/// undefined (`null`). Arrays are lists, objects associative lists.
pub fn template_value(v: &Value) -> Option<uri_template::Value> {
    fn text(v: &Value) -> Option<String> {
        match v {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            Value::Bool(b) => Some(b.to_string()),
            Value::Null => None,
            other => Some(other.to_string()),
        }
    }
    match v {
        Value::Null => None,
        Value::Array(items) => Some(uri_template::Value::List(items.iter().filter_map(text).collect())),
        Value::Object(map) => Some(uri_template::Value::AssocList(
            map.iter().filter_map(|(k, v)| Some((k.clone(), text(v)?))).collect(),
        )),
        other => text(other).map(uri_template::Value::String),
    }
}

impl Requester {
    async fn call(&self, args: Value) -> Result<CallToolResult, ToolError> {
        let mut args = match args {
            Value::Object(m) => m,
            _ => Map::new(),
        };
        let mut vars = Variables::new();
        for name in &self.url_variables {
            if let Some(v) = args.remove(name).as_ref().and_then(template_value) {
                vars.insert(name.clone(), v);
            }
        }
        let expanded = self.template.expand(&vars);
        let url = Url::parse(&expanded).map_err(|e| {
            ToolError::new(format!("{}: the URL {expanded:?} is not valid: {e}", self.caller.tool()))
        })?;
        let json_body = (self.body == Some(BodyMode::Json)).then_some(Value::Object(args));
        let request = OutgoingRequest {
            method: self.method.clone(),
            url: url.clone(),
            headers: self.headers.clone(),
            json_body,
        };
        let answer = self.caller.send(request).await?;
        Ok(self.caller.result(&self.method, &url, &answer))
    }
}

fn chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut source = e.source();
    while let Some(inner) = source {
        s.push_str(": ");
        s.push_str(&inner.to_string());
        source = inner.source();
    }
    s
}

impl HttpToolSpec {
    /// Every problem of this tool at once, each placed on its key (a
    /// header's name or value): what [`crate::http_tool`] refuses.
    pub fn problems(&self) -> Vec<SpecProblem> {
        let tool = self.name.as_str();
        let mut problems: Vec<SpecProblem> = spec::name_problem(tool).into_iter().collect();
        let properties = spec::schema_checked(tool, self.input_schema.as_ref())
            .map_err(|p| problems.push(p))
            .ok()
            .or_else(|| spec::declared_properties(self.input_schema.as_ref()));
        match parse_url(tool, &self.url) {
            Ok(template) => {
                let unknown = template
                    .variables()
                    .filter(|v| properties.as_ref().is_some_and(|p| !p.iter().any(|n| n == v)));
                problems.extend(unknown.map(|v| {
                    let error = ToolsError::UnknownPlaceholder {
                        tool: tool.to_owned(),
                        placeholder: v.to_owned(),
                        place: "url",
                    };
                    SpecProblem::at(["url".into()], error)
                }));
            }
            Err(error) => problems.push(SpecProblem::at(["url".into()], error)),
        }
        if let Err(error) = parse_method(tool, &self.method) {
            problems.push(SpecProblem::at(["method".into()], error));
        }
        for (name, value) in &self.headers {
            if let Err((in_name, error)) = header(tool, name, value) {
                let problem = SpecProblem::at(["headers".into(), Segment::Key(name.clone())], error);
                problems.push(if in_name { problem.on_key() } else { problem });
            }
        }
        problems.extend(spec::limit_problems(tool, self.timeout, ("max_response", self.max_response)));
        problems
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_values_take_environment_variables() {
        let path = std::env::var("PATH").unwrap();
        assert_eq!(substitute_env("Bearer ${PATH}").unwrap(), format!("Bearer {path}"));
        assert_eq!(substitute_env("a $$ b $c").unwrap(), "a $ b $c");
        let e = substitute_env("${SWITCHBOARD_TOOLS_SURELY_UNSET_VAR}").unwrap_err();
        assert_eq!(e, Substitution::Unset("SWITCHBOARD_TOOLS_SURELY_UNSET_VAR".to_owned()));
        assert!(matches!(substitute_env("${OPEN"), Err(Substitution::Malformed(_))));
        let (_, missing) =
            header("t", "Authorization", "Bearer ${SWITCHBOARD_TOOLS_SURELY_UNSET_VAR}").unwrap_err();
        assert!(missing.is_missing_secret(), "{missing}");
    }
}
