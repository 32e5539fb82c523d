//! HTTP tools: one request per call to a URL built from an RFC 6570
//! template, with configured headers (which may take secrets from the
//! environment) and, optionally, the remaining arguments as a JSON body.

use std::sync::Arc;
use std::time::Duration;

use reqwest::header::{CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};
use reqwest::{Method, Url};
use serde_json::{Map, Value};
use switchboard_server::uri_template::{self, UriTemplate, Variables};
use switchboard_server::{CallToolResult, ContentBlock, RequestContext, Tool, ToolError};

use crate::error::ToolsError;
use crate::spec::{self, BodyMode, HttpToolSpec};

/// How much of an error response's body goes into the message.
const EXCERPT_CHARS: usize = 2000;

#[derive(Debug)]
struct Requester {
    name: String,
    template: UriTemplate,
    url_variables: Vec<String>,
    method: Method,
    headers: HeaderMap,
    body: Option<BodyMode>,
    timeout: Duration,
    max_response: usize,
    client: reqwest::Client,
}

/// Builds the tool for `spec`. Fails when the schema, the URL template,
/// the method or a header is unusable (a header naming an unset
/// `${VARIABLE}` included).
pub fn http_tool(spec: &HttpToolSpec) -> Result<Tool, ToolsError> {
    let tool = spec.name.clone();
    let (schema, properties) = spec::input_schema(&tool, spec.input_schema.as_ref())?;
    let template = parse_url(&tool, &spec.url)?;
    spec::check_limits(&tool, spec.timeout, ("max_response", spec.max_response))?;
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
    let client = reqwest::Client::builder()
        .timeout(spec.timeout)
        .build()
        .map_err(|e| ToolsError::HttpClient { tool: tool.clone(), reason: e.to_string() })?;
    let requester = Arc::new(Requester {
        name: tool.clone(),
        template,
        url_variables,
        method,
        headers,
        body: spec.body,
        timeout: spec.timeout,
        max_response: spec.max_response,
        client,
    });
    let t = spec.metadata().apply(Tool::new(&tool).input_schema(schema));
    Ok(t.raw_handler(move |args: Value, ctx: RequestContext| {
        let requester = Arc::clone(&requester);
        async move {
            tokio::select! {
                r = requester.call(args) => r,
                () = ctx.cancelled() => Err(ToolError::new(format!("{}: cancelled", requester.name))),
            }
        }
    }))
}

/// Replaces `${NAME}` with the variable's value; `$$` is a literal `$`.
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
pub(crate) fn header(
    tool: &str,
    name: &str,
    value: &str,
) -> Result<(HeaderName, HeaderValue), (bool, ToolsError)> {
    let bad =
        |reason: String| ToolsError::BadHeader { tool: tool.to_owned(), header: name.to_owned(), reason };
    let header = HeaderName::from_bytes(name.as_bytes()).map_err(|_| {
        let reason = "not a valid header name: use letters, digits and '-', like \"X-Api-Key\"";
        (true, bad(reason.to_owned()))
    })?;
    let value = substitute_env(value).map_err(|e| (false, bad(e)))?;
    let mut value = HeaderValue::from_str(&value)
        .map_err(|_| (false, bad("the value has characters a header cannot carry (a line break?)".into())))?;
    value.set_sensitive(true);
    Ok((header, value))
}

fn substitute_env(value: &str) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = value;
    while let Some(i) = rest.find('$') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        if let Some(after) = after.strip_prefix('$') {
            out.push('$');
            rest = after;
        } else if let Some(body) = after.strip_prefix('{') {
            let end = body.find('}').ok_or_else(|| format!("unclosed ${{ in {value:?}"))?;
            let name = &body[..end];
            let v = std::env::var(name)
                .map_err(|_| format!("environment variable {name:?} is not set (or not UTF-8)"))?;
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

/// An argument as a URI template value; `None` leaves the variable undefined.
fn template_value(v: &Value) -> Option<uri_template::Value> {
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
        let url = Url::parse(&expanded)
            .map_err(|e| ToolError::new(format!("{}: the URL {expanded:?} is not valid: {e}", self.name)))?;
        let mut request = self.client.request(self.method.clone(), url.clone()).headers(self.headers.clone());
        if self.body == Some(BodyMode::Json) {
            let body = serde_json::to_vec(&Value::Object(args))
                .map_err(|e| ToolError::new(format!("{}: cannot encode the body: {e}", self.name)))?;
            if !self.headers.contains_key(CONTENT_TYPE) {
                request = request.header(CONTENT_TYPE, "application/json");
            }
            request = request.body(body);
        }
        let fail = |e: reqwest::Error| {
            let what = if e.is_timeout() {
                format!("timed out after {} s", self.timeout.as_secs_f64())
            } else if e.is_connect() {
                format!("could not connect: {}", chain(&e))
            } else {
                chain(&e)
            };
            ToolError::new(format!("{}: {} {url} failed: {what}", self.name, self.method))
        };
        let mut response = request.send().await.map_err(fail)?;
        let status = response.status();
        let is_json = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.to_ascii_lowercase().contains("json"));
        let mut body = Vec::new();
        let mut truncated = false;
        while let Some(chunk) = response.chunk().await.map_err(fail)? {
            let room = self.max_response.saturating_sub(body.len());
            body.extend_from_slice(&chunk[..chunk.len().min(room)]);
            if chunk.len() > room {
                truncated = true;
                break;
            }
        }
        let text = String::from_utf8_lossy(&body).into_owned();
        if !status.is_success() {
            let excerpt: String = text.chars().take(EXCERPT_CHARS).collect();
            let more = if excerpt.len() < text.len() || truncated { " […]" } else { "" };
            return Ok(CallToolResult::error(format!(
                "{}: {} {url} returned HTTP {status}: {excerpt}{more}",
                self.name, self.method
            )));
        }
        if truncated {
            return Ok(CallToolResult::text(format!(
                "{text}\n[response truncated: the tool's max_response limit of {} bytes was reached]",
                self.max_response
            )));
        }
        if is_json && let Ok(value @ Value::Object(_)) = serde_json::from_slice::<Value>(&body) {
            return Ok(CallToolResult::structured(value));
        }
        Ok(CallToolResult::success(vec![ContentBlock::text(text)]))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_values_take_environment_variables() {
        let path = std::env::var("PATH").unwrap();
        assert_eq!(substitute_env("Bearer ${PATH}").unwrap(), format!("Bearer {path}"));
        assert_eq!(substitute_env("a $$ b $c").unwrap(), "a $ b $c");
        let e = substitute_env("${SWITCHBOARD_TOOLS_SURELY_UNSET_VAR}").unwrap_err();
        assert!(e.contains("SWITCHBOARD_TOOLS_SURELY_UNSET_VAR"), "{e}");
        assert!(substitute_env("${OPEN").is_err());
    }
}
