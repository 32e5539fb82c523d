//! Calling an operation: the request built from the arguments (the path
//! through an RFC 6570 template, like `[[tools.http]]` URLs; the query in
//! each OpenAPI style, headers, cookies, the body and the credentials by
//! hand), sent through `switchboard-tools`' [`HttpCaller`], and the answer
//! shaped into a result.

use std::sync::Arc;

use base64::Engine as _;
use reqwest::header::{AUTHORIZATION, COOKIE, HeaderMap, HeaderName, HeaderValue};
use reqwest::{Method, Url};
use serde_json::{Map, Value};
use switchboard_server::uri_template::{self, UriTemplate, Variables};
use switchboard_server::{CallToolResult, RequestContext, Tool, ToolError};
use switchboard_tools::{HttpCaller, OutgoingRequest};
use switchboard_types::tools::ToolAnnotations;

use crate::document::Document;
use crate::error::OpenApiError;
use crate::operation::{Input, Location, Operation, Style};
use crate::spec::{Credentials, KeyLocation, OpenApiSpec};

/// How much of a body that breaks the response schema goes into the message.
const EXCERPT_CHARS: usize = 2000;

/// What every operation of one API shares.
#[derive(Debug)]
pub(crate) struct Api {
    /// The base URL, without a trailing `/`.
    base: String,
    /// The configured headers and header credentials.
    headers: HeaderMap,
    /// Query parameters every request carries (an API key in the query).
    query: Vec<(String, String)>,
    /// Cookies every request carries (an API key in a cookie).
    cookies: Vec<(String, String)>,
    caller: HttpCaller,
    scopes: Vec<String>,
}

impl Api {
    /// The shared parts of `spec`'s API over `doc`.
    pub fn new(spec: &OpenApiSpec, doc: &Document) -> Result<Self, OpenApiError> {
        let base = match &spec.base_url {
            Some(base) => crate::spec::base_url(base)?,
            None => document_base(doc)?,
        };
        let base = base.as_str().trim_end_matches('/').to_owned();
        let mut headers = HeaderMap::new();
        for (name, value) in &spec.headers {
            let (name, value) = switchboard_tools::header(spec.label(), name, value).map_err(|(_, e)| e)?;
            headers.insert(name, value);
        }
        let mut query = Vec::new();
        let mut cookies = Vec::new();
        if let Some(auth) = &spec.auth {
            let credentials = auth.credentials().map_err(|(_, e)| e)?;
            match credentials {
                Credentials::Bearer(token) => {
                    headers.insert(AUTHORIZATION, secret(&format!("Bearer {token}"), "auth.token_env")?);
                }
                Credentials::Basic { username, password } => {
                    let encoded =
                        base64::engine::general_purpose::STANDARD.encode(format!("{username}:{password}"));
                    headers.insert(AUTHORIZATION, secret(&format!("Basic {encoded}"), "auth.password_env")?);
                }
                Credentials::ApiKey { name, location, value } => {
                    let scheme = api_key_scheme(doc);
                    let name = name.or_else(|| scheme.as_ref().map(|s| s.0.clone())).ok_or_else(|| {
                        OpenApiError::setting(
                            "auth.name",
                            "the document declares no apiKey security scheme: give the header or query parameter, \
                             like name = \"X-Api-Key\"",
                        )
                    })?;
                    let place = match (location, scheme.as_ref().map(|s| s.1.as_str())) {
                        (Some(KeyLocation::Query), _) => "query",
                        (Some(KeyLocation::Header), _) => "header",
                        (None, Some(from_document)) => from_document,
                        (None, None) => "header",
                    };
                    match place {
                        "query" => query.push((name, value)),
                        "cookie" => cookies.push((name, value)),
                        _ => {
                            let header = HeaderName::from_bytes(name.as_bytes()).map_err(|_| {
                                OpenApiError::setting(
                                    "auth.name",
                                    format!("{name:?} is not a valid header name"),
                                )
                            })?;
                            headers.insert(header, secret(&value, "auth.key_env")?);
                        }
                    }
                }
            }
        }
        let caller = HttpCaller::new(spec.label(), spec.limits())?;
        Ok(Self { base, headers, query, cookies, caller, scopes: spec.scopes.clone() })
    }

    /// The tool for `operation`.
    pub fn tool(&self, operation: Operation) -> Result<Tool, OpenApiError> {
        let template = self.template(&operation)?;
        let output = match &operation.output_schema {
            Some(schema) => Some(jsonschema::validator_for(schema).map_err(|e| OpenApiError::Document {
                source_name: operation.tool.clone(),
                reason: format!(
                    "the response schema of {} {} does not compile: {e}",
                    operation.method, operation.path
                ),
            })?),
            None => None,
        };
        let mut tool = Tool::new(&operation.tool).input_schema(operation.input_schema.clone());
        if let Some(schema) = &operation.output_schema {
            tool = tool.output_schema(schema.clone());
        }
        if let Some(summary) = &operation.summary {
            tool = tool.title(summary.clone());
        }
        let mut description = operation
            .description
            .clone()
            .or_else(|| operation.summary.clone())
            .unwrap_or_else(|| format!("{} {}", operation.method, operation.path));
        if operation.deprecated {
            description.push_str("\n\nDeprecated.");
        }
        tool = tool.description(description).annotations(annotations(&operation.method));
        if !self.scopes.is_empty() {
            tool = tool.requires_scopes(self.scopes.iter().cloned());
        }
        let call = Arc::new(Call {
            caller: self.caller.named(&operation.tool),
            template,
            headers: self.headers.clone(),
            query: self.query.clone(),
            cookies: self.cookies.clone(),
            operation,
            output,
        });
        Ok(tool.raw_handler(move |args: Value, ctx: RequestContext| {
            let call = Arc::clone(&call);
            async move { switchboard_tools::until_cancelled(call.caller.tool(), &ctx, call.call(args)).await }
        }))
    }

    /// `base` + the path, its variables as RFC 6570 expressions (OpenAPI's
    /// path styles are RFC 6570's). Variables are named by their input's
    /// index (`v0`), since API names may hold characters a template
    /// variable cannot (`pet-id`).
    fn template(&self, operation: &Operation) -> Result<UriTemplate, OpenApiError> {
        let mut text = self.base.clone();
        let mut rest = operation.path.as_str();
        while let Some(open) = rest.find('{') {
            literal(&mut text, &rest[..open]);
            let after = &rest[open + 1..];
            let close = after.find('}').unwrap_or(after.len());
            let name = &after[..close];
            let found = operation.inputs.iter().position(|i| i.location == Location::Path && i.name == name);
            if let Some(index) = found {
                let input = &operation.inputs[index];
                let operator = match input.style {
                    Style::Label => ".",
                    Style::Matrix => ";",
                    _ => "",
                };
                let star = if input.explode { "*" } else { "" };
                text.push_str(&format!("{{{operator}v{index}{star}}}"));
            }
            rest = after.get(close + 1..).unwrap_or("");
        }
        literal(&mut text, rest);
        UriTemplate::parse(&text).map_err(|e| OpenApiError::Document {
            source_name: operation.tool.clone(),
            reason: format!(
                "the URL of {} {} cannot be built ({text:?}: {e})",
                operation.method, operation.path
            ),
        })
    }
}

/// Template literal text: characters RFC 6570 does not allow literally are
/// percent-encoded.
fn literal(out: &mut String, text: &str) {
    for c in text.chars() {
        if c.is_ascii_graphic() && !matches!(c, '"' | '\'' | '<' | '>' | '\\' | '^' | '`' | '{' | '|' | '}') {
            out.push(c);
        } else {
            let mut buf = [0u8; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                out.push_str(&format!("%{b:02X}"));
            }
        }
    }
}

/// A header value holding a secret (hidden from debug output).
fn secret(value: &str, setting: &str) -> Result<HeaderValue, OpenApiError> {
    let mut value = HeaderValue::from_str(value)
        .map_err(|_| OpenApiError::setting(setting, "the value has characters a header cannot carry"))?;
    value.set_sensitive(true);
    Ok(value)
}

/// The document's first server URL, its variables at their defaults; a
/// relative one is resolved against the document's own URL.
fn document_base(doc: &Document) -> Result<Url, OpenApiError> {
    let missing = |why: &str| {
        OpenApiError::setting(
            "base_url",
            format!("{why}; set base_url, like base_url = \"https://api.example.com/v1\""),
        )
    };
    let Some(server) = doc.spec.servers.first() else {
        return Err(missing("the document names no server"));
    };
    let mut url = server.url.clone();
    for (name, variable) in &server.variables {
        url = url.replace(&format!("{{{name}}}"), &variable.default);
    }
    let parsed = match &doc.source {
        crate::spec::Source::Url(from) => from.join(&url),
        crate::spec::Source::File(_) => Url::parse(&url),
    };
    let parsed =
        parsed.map_err(|_| missing(&format!("the document's server URL {url:?} is not a full URL")))?;
    crate::spec::base_url(parsed.as_str())
        .map_err(|_| missing(&format!("the document's server URL {url:?} cannot be used")))
}

/// The name and place (`header`, `query`, `cookie`) of the document's
/// first `apiKey` security scheme.
fn api_key_scheme(doc: &Document) -> Option<(String, String)> {
    let schemes = doc.raw.pointer("/components/securitySchemes")?.as_object()?;
    schemes.keys().find_map(|key| {
        let (scheme, _) =
            doc.follow(&format!("/components/securitySchemes/{}", crate::document::escape(key))).ok()?;
        (scheme.get("type")?.as_str()? == "apiKey")
            .then(|| Some((scheme.get("name")?.as_str()?.to_owned(), scheme.get("in")?.as_str()?.to_owned())))
            .flatten()
    })
}

/// The behaviour hints of a method: GET, HEAD and OPTIONS only read; PUT,
/// PATCH and DELETE may destroy (PUT and DELETE are idempotent); POST adds.
fn annotations(method: &Method) -> ToolAnnotations {
    let read_only = matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS);
    let mut hints = ToolAnnotations {
        read_only_hint: Some(read_only),
        open_world_hint: Some(true),
        ..Default::default()
    };
    if !read_only {
        hints.destructive_hint = Some(matches!(*method, Method::PUT | Method::PATCH | Method::DELETE));
        hints.idempotent_hint = Some(matches!(*method, Method::PUT | Method::DELETE));
    }
    hints
}

/// One operation's calls.
struct Call {
    caller: HttpCaller,
    template: UriTemplate,
    headers: HeaderMap,
    query: Vec<(String, String)>,
    cookies: Vec<(String, String)>,
    operation: Operation,
    output: Option<jsonschema::Validator>,
}

impl Call {
    async fn call(&self, args: Value) -> Result<CallToolResult, ToolError> {
        let request = self.request(&args)?;
        let (method, url) = (request.method.clone(), request.url.clone());
        let answer = self.caller.send(request).await?;
        if let Some(failure) = self.caller.failure(&method, &url, &answer) {
            return Ok(failure);
        }
        let Some(output) = &self.output else {
            return Ok(self.caller.result(&method, &url, &answer));
        };
        let tool = self.caller.tool();
        if answer.truncated() {
            // The tool promises structured output, which a cut body cannot
            // give: the first part still reaches the model, as an error.
            return Ok(CallToolResult::error(format!(
                "{}\n{tool}: the response was cut, so it cannot be the structured result this tool declares; \
                 ask for less, or raise max_response",
                self.caller.truncated_text(&answer)
            )));
        }
        let text = answer.text();
        let excerpt: String = text.chars().take(EXCERPT_CHARS).collect();
        match serde_json::from_slice::<Value>(&answer.body) {
            Ok(value @ Value::Object(_)) if output.is_valid(&value) => Ok(CallToolResult::structured(value)),
            Ok(value) => {
                let errors: Vec<String> = output
                    .iter_errors(&value)
                    .take(3)
                    .map(|e| format!("{e} (at \"{}\")", e.instance_path()))
                    .collect();
                Ok(CallToolResult::error(format!(
                    "{tool}: {method} {url} answered HTTP {} with a body that does not match the response schema \
                     of the OpenAPI document ({}): {excerpt}",
                    answer.status,
                    errors.join("; ")
                )))
            }
            Err(e) => Ok(CallToolResult::error(format!(
                "{tool}: {method} {url} answered HTTP {} with a body that is not JSON ({e}): {excerpt}",
                answer.status
            ))),
        }
    }

    /// The request for `args` (already checked against the input schema).
    fn request(&self, args: &Value) -> Result<OutgoingRequest, ToolError> {
        let tool = self.caller.tool();
        let empty = Map::new();
        let args = args.as_object().unwrap_or(&empty);
        let mut vars = Variables::new();
        for (index, input) in self.operation.inputs.iter().enumerate() {
            if input.location == Location::Path
                && let Some(value) = args.get(&input.property).and_then(|v| template_value(input, v))
            {
                vars.insert(format!("v{index}"), value);
            }
        }
        let expanded = self.template.expand(&vars);
        let mut url = Url::parse(&expanded)
            .map_err(|e| ToolError::new(format!("{tool}: the URL {expanded:?} is not valid: {e}")))?;
        let mut pairs: Vec<(String, String)> = Vec::new();
        let mut headers = self.headers.clone();
        let mut cookies = self.cookies.clone();
        for input in &self.operation.inputs {
            let Some(value) = args.get(&input.property).filter(|v| !v.is_null()) else { continue };
            match input.location {
                Location::Query => pairs.extend(query_pairs(input, value)),
                Location::Header => {
                    let name = HeaderName::from_bytes(input.name.as_bytes()).map_err(|_| {
                        ToolError::new(format!("{tool}: {:?} is not a valid header name", input.name))
                    })?;
                    let text = simple(input, value);
                    let value = HeaderValue::from_str(&text).map_err(|_| {
                        ToolError::new(format!(
                            "{tool}: the value of {:?} has characters a header cannot carry (a line break?)",
                            input.property
                        ))
                    })?;
                    headers.insert(name, value);
                }
                Location::Cookie => cookies.push((input.name.clone(), simple(input, value))),
                _ => {}
            }
        }
        pairs.extend(self.query.iter().cloned());
        if !pairs.is_empty() {
            let mut query = url.query_pairs_mut();
            for (name, value) in &pairs {
                query.append_pair(name, value);
            }
        }
        if !cookies.is_empty() {
            let line: Vec<String> = cookies.iter().map(|(n, v)| format!("{n}={v}")).collect();
            let value = HeaderValue::from_str(&line.join("; ")).map_err(|_| {
                ToolError::new(format!("{tool}: a cookie value has characters a header cannot carry"))
            })?;
            headers.insert(COOKIE, value);
        }
        let json_body = self.operation.body.as_ref().and_then(|b| args.get(b)).cloned();
        Ok(OutgoingRequest { method: self.operation.method.clone(), url, headers, json_body })
    }
}

/// An argument as a template value; a `content` parameter as its JSON text.
fn template_value(input: &Input, value: &Value) -> Option<uri_template::Value> {
    if input.json && !value.is_null() {
        return Some(uri_template::Value::String(value.to_string()));
    }
    switchboard_tools::template_value(value)
}

/// A scalar as text (strings without quotes).
fn scalar(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The `simple` style (headers and cookies): lists joined with `,`,
/// objects as `k,v,…` or, exploded, `k=v,…`.
fn simple(input: &Input, value: &Value) -> String {
    if input.json {
        return value.to_string();
    }
    match value {
        Value::Array(items) => items.iter().map(scalar).collect::<Vec<_>>().join(","),
        Value::Object(map) => {
            let parts = map.iter().map(|(k, v)| {
                if input.explode { format!("{k}={}", scalar(v)) } else { format!("{k},{}", scalar(v)) }
            });
            parts.collect::<Vec<_>>().join(",")
        }
        other => scalar(other),
    }
}

/// The query pairs of a parameter: `form` (exploded: `tags=a&tags=b`,
/// objects `k=v&…`; not: `tags=a,b`, objects `filter=k,v,…`),
/// `spaceDelimited` and `pipeDelimited` lists, `deepObject`
/// (`filter[k]=v`). A `content` parameter is its JSON text.
fn query_pairs(input: &Input, value: &Value) -> Vec<(String, String)> {
    let name = input.name.clone();
    if input.json {
        return vec![(name, value.to_string())];
    }
    let joined =
        |items: &mut dyn Iterator<Item = String>, separator: &str| items.collect::<Vec<_>>().join(separator);
    match (input.style, value) {
        (Style::DeepObject, Value::Object(map)) => {
            map.iter().map(|(k, v)| (format!("{name}[{k}]"), scalar(v))).collect()
        }
        (_, Value::Object(map)) if input.explode => map.iter().map(|(k, v)| (k.clone(), scalar(v))).collect(),
        (_, Value::Object(map)) => {
            vec![(name, joined(&mut map.iter().flat_map(|(k, v)| [k.clone(), scalar(v)]), ","))]
        }
        (_, Value::Array(items)) if input.explode => {
            items.iter().map(|v| (name.clone(), scalar(v))).collect()
        }
        (style, Value::Array(items)) => {
            let separator = match style {
                Style::SpaceDelimited => " ",
                Style::PipeDelimited => "|",
                _ => ",",
            };
            vec![(name, joined(&mut items.iter().map(scalar), separator))]
        }
        (_, other) => vec![(name, scalar(other))],
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::spec::Source;

    fn api_and_operation(document: Value, spec: Value) -> (Api, Vec<Operation>) {
        let doc = Document::parse(&document.to_string(), Source::File("/api.json".into())).unwrap();
        let spec: OpenApiSpec = serde_json::from_value(spec).unwrap();
        let operations = crate::operation::operations(&spec, &doc).unwrap();
        (Api::new(&spec, &doc).unwrap(), operations)
    }

    fn call(api: &Api, operation: Operation) -> Call {
        Call {
            caller: api.caller.named(&operation.tool),
            template: api.template(&operation).unwrap(),
            headers: api.headers.clone(),
            query: api.query.clone(),
            cookies: api.cookies.clone(),
            operation,
            output: None,
        }
    }

    fn document() -> Value {
        json!({
            "openapi": "3.1.0",
            "info": {"title": "t", "version": "1"},
            "servers": [{"url": "http://{host}:8080/v1/", "variables": {"host": {"default": "127.0.0.1"}}}],
            "components": {"securitySchemes": {"key": {"type": "apiKey", "name": "api_key", "in": "query"}}},
            "paths": {"/pets/{pet-id}": {
                "parameters": [{"name": "pet-id", "in": "path", "required": true, "schema": {"type": "string"}}],
                "put": {
                    "operationId": "updatePet",
                    "parameters": [
                        {"name": "tags", "in": "query", "schema": {"type": "array", "items": {"type": "string"}}},
                        {"name": "ids", "in": "query", "style": "pipeDelimited", "explode": false,
                         "schema": {"type": "array", "items": {"type": "integer"}}},
                        {"name": "filter", "in": "query", "style": "deepObject", "schema": {"type": "object"}},
                        {"name": "X-Trace", "in": "header", "schema": {"type": "array", "items": {"type": "string"}}},
                        {"name": "session", "in": "cookie", "schema": {"type": "string"}}
                    ],
                    "requestBody": {"required": true, "content": {"application/json": {"schema": {"type": "object"}}}}
                }
            }}
        })
    }

    #[test]
    fn arguments_become_path_query_header_cookie_and_body() {
        let (api, operations) = api_and_operation(
            document(),
            json!({"document": "api.json", "auth": {"type": "api_key", "key_env": "PATH"}}),
        );
        let [operation] = <[Operation; 1]>::try_from(operations).unwrap();
        assert_eq!(operation.tool, "updatePet");
        assert_eq!(operation.input_schema["required"], json!(["pet-id", "body"]));
        let call = call(&api, operation);
        let request = call
            .request(&json!({"pet-id": "a b/c", "tags": ["x", "y"], "ids": [1, 2], "filter": {"kind": "cat"},
                             "X-Trace": ["t1", "t2"], "session": "s1", "body": {"name": "Rex"}}))
            .unwrap();
        assert_eq!(request.method, Method::PUT);
        let path = std::env::var("PATH").unwrap();
        let expected = Url::parse_with_params(
            "http://127.0.0.1:8080/v1/pets/a%20b%2Fc",
            [
                ("tags", "x"),
                ("tags", "y"),
                ("ids", "1|2"),
                ("filter[kind]", "cat"),
                ("api_key", path.as_str()),
            ],
        )
        .unwrap();
        assert_eq!(request.url, expected);
        assert_eq!(request.headers["x-trace"], "t1,t2");
        assert_eq!(request.headers["cookie"], "session=s1");
        assert_eq!(request.json_body, Some(json!({"name": "Rex"})));
    }

    #[test]
    fn query_styles_write_lists_and_objects_as_openapi_says() {
        let input = |style, explode| Input {
            property: "p".into(),
            name: "p".into(),
            location: Location::Query,
            style,
            explode,
            json: false,
        };
        let pairs = |style, explode, value: Value| query_pairs(&input(style, explode), &value);
        let owned =
            |v: &[(&str, &str)]| v.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect::<Vec<_>>();
        assert_eq!(pairs(Style::Form, true, json!([1, 2])), owned(&[("p", "1"), ("p", "2")]));
        assert_eq!(pairs(Style::Form, false, json!([1, 2])), owned(&[("p", "1,2")]));
        assert_eq!(pairs(Style::Form, true, json!({"a": 1, "b": "x"})), owned(&[("a", "1"), ("b", "x")]));
        assert_eq!(pairs(Style::Form, false, json!({"a": 1, "b": "x"})), owned(&[("p", "a,1,b,x")]));
        assert_eq!(pairs(Style::SpaceDelimited, false, json!(["a", "b"])), owned(&[("p", "a b")]));
        assert_eq!(pairs(Style::Form, true, json!(true)), owned(&[("p", "true")]));
        let json_input = Input { json: true, ..input(Style::Form, true) };
        assert_eq!(query_pairs(&json_input, &json!({"a": [1]})), owned(&[("p", "{\"a\":[1]}")]));
    }

    #[test]
    fn credentials_go_where_they_belong() {
        let (api, _) = api_and_operation(
            document(),
            json!({"document": "api.json", "auth": {"type": "bearer", "token_env": "PATH"}}),
        );
        let path = std::env::var("PATH").unwrap();
        assert_eq!(api.headers[AUTHORIZATION], format!("Bearer {path}").as_str());
        assert!(api.headers[AUTHORIZATION].is_sensitive());
        let spec = json!({"document": "api.json", "base_url": "http://localhost:9/",
                          "auth": {"type": "basic", "username_env": "PATH", "password_env": "PATH"}});
        let (api, _) = api_and_operation(document(), spec);
        let encoded = base64::engine::general_purpose::STANDARD.encode(format!("{path}:{path}"));
        assert_eq!(api.headers[AUTHORIZATION], format!("Basic {encoded}").as_str());
        assert_eq!(api.base, "http://localhost:9");
    }

    #[test]
    fn methods_give_their_hints() {
        let get = annotations(&Method::GET);
        assert_eq!((get.read_only_hint, get.destructive_hint), (Some(true), None));
        let delete = annotations(&Method::DELETE);
        assert_eq!(
            (delete.read_only_hint, delete.destructive_hint, delete.idempotent_hint),
            (Some(false), Some(true), Some(true))
        );
        let post = annotations(&Method::POST);
        assert_eq!((post.destructive_hint, post.idempotent_hint), (Some(false), Some(false)));
    }
}
