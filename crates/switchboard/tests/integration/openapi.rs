//! `[[tools.openapi]]` end to end, and large outputs of every kind of
//! configured tool: a small pet API served by the test itself on a
//! loopback port, described by an OpenAPI 3.0 YAML file and a 3.1 JSON
//! document the API serves (fetched when switchboard starts), and the real
//! `switchboard` binary serving them over stdio.

use crate::common;

use std::net::SocketAddr;

use axum::Json;
use axum::extract::{Path as UrlPath, Query};
use axum::http::{HeaderMap, StatusCode};
use axum::routing::get;
use base64::Engine as _;
use common::{Switchboard, run};
use serde_json::{Value, json};

/// The pet API, running until the runtime is dropped.
struct Api {
    addr: SocketAddr,
    _runtime: tokio::runtime::Runtime,
}

fn header(headers: &HeaderMap, name: &str) -> Value {
    headers.get(name).and_then(|v| v.to_str().ok()).map_or(Value::Null, |v| Value::from(v.to_owned()))
}

fn start_api() -> Api {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).unwrap();
    let addr = listener.local_addr().unwrap();
    let app = axum::Router::new()
        .route(
            "/pets",
            get(|Query(q): Query<Vec<(String, String)>>, headers: HeaderMap| async move {
                let limit = q.iter().find(|(k, _)| k == "limit").and_then(|(_, v)| v.parse::<i64>().ok());
                let tags: Vec<&String> = q.iter().filter(|(k, _)| k == "tags").map(|(_, v)| v).collect();
                Json(json!({"pets": [{"id": 1, "name": "Rex", "tag": "dog"}], "limit": limit, "tags": tags,
                            "trace": header(&headers, "x-trace")}))
            })
            .post(|Json(body): Json<Value>| async move {
                (StatusCode::CREATED, Json(json!({"id": 7, "name": body["name"], "tag": body["tag"]})))
            }),
        )
        .route(
            "/pets/{id}",
            get(|UrlPath(id): UrlPath<i64>| async move {
                if id == 1 {
                    Ok(Json(json!({"id": 1, "name": "Rex", "tag": null})))
                } else {
                    Err((StatusCode::NOT_FOUND, format!("no pet {id}")))
                }
            })
            .delete(|| async { StatusCode::NO_CONTENT }),
        )
        .route(
            "/auth/echo",
            get(|Query(q): Query<Vec<(String, String)>>, headers: HeaderMap| async move {
                let query_key = q.iter().find(|(k, _)| k == "api_key").map(|(_, v)| v.clone());
                Json(json!({"authorization": header(&headers, "authorization"),
                            "apiKeyHeader": header(&headers, "x-api-key"), "apiKeyQuery": query_key}))
            }),
        )
        // A redirect to another origin (127.0.0.2, where nothing listens).
        .route(
            "/auth/moved",
            get(move || async move {
                axum::response::Redirect::temporary(&format!("http://127.0.0.2:{}/auth/echo", addr.port()))
            }),
        )
        .route("/big", get(|| async { "x".repeat(5000) }))
        .route("/big-json", get(|| async { Json(json!({"data": "y".repeat(5000)})) }))
        .route("/fail", get(|| async { (StatusCode::INTERNAL_SERVER_ERROR, "database on fire") }))
        .route("/openapi.json", get(|| async { Json(document_31()) }));
    runtime.spawn(async move { axum::serve(listener, app).await.unwrap() });
    Api { addr, _runtime: runtime }
}

/// The API as an OpenAPI 3.0 document (YAML): `nullable`, a boolean
/// `exclusiveMinimum`, server variables, a bearer scheme.
fn document_30(port: u16) -> String {
    r##"openapi: 3.0.3
info: {title: Pets, version: "1"}
servers:
  - url: "http://{host}:{port}"
    variables:
      host: {default: "127.0.0.1"}
      port: {default: "PORT"}
components:
  securitySchemes:
    token: {type: http, scheme: bearer}
  schemas:
    Pet:
      type: object
      required: [id, name]
      properties:
        id: {type: integer, readOnly: true}
        name: {type: string}
        tag: {type: string, nullable: true}
    PetList:
      type: object
      required: [pets]
      properties:
        pets: {type: array, items: {$ref: "#/components/schemas/Pet"}}
        limit: {type: integer, nullable: true}
        tags: {type: array, items: {type: string}}
        trace: {type: string, nullable: true}
paths:
  /pets:
    get:
      operationId: listPets
      tags: [pets]
      summary: List pets
      parameters:
        - {name: limit, in: query, schema: {type: integer, minimum: 1, exclusiveMinimum: false}}
        - {name: tags, in: query, schema: {type: array, items: {type: string}}}
        - {name: X-Trace, in: header, schema: {type: string}}
      responses:
        "200": {description: the pets, content: {application/json: {schema: {$ref: "#/components/schemas/PetList"}}}}
    post:
      operationId: createPet
      tags: [pets]
      requestBody:
        required: true
        content: {application/json: {schema: {$ref: "#/components/schemas/Pet"}}}
      responses:
        "201": {description: made, content: {application/json: {schema: {$ref: "#/components/schemas/Pet"}}}}
  /pets/{petId}:
    parameters:
      - {name: petId, in: path, required: true, schema: {type: integer}}
    get:
      operationId: getPet
      tags: [pets]
      responses:
        "200": {description: the pet, content: {application/json: {schema: {$ref: "#/components/schemas/Pet"}}}}
        "404": {description: no such pet}
    delete:
      operationId: deletePet
      tags: [admin]
      responses: {"204": {description: gone}}
  /auth/echo:
    get:
      operationId: authEcho
      tags: [auth]
      responses: {"200": {description: what arrived, content: {application/json: {}}}}
  /big:
    get:
      operationId: getBig
      tags: [big]
      responses: {"200": {description: many bytes, content: {text/plain: {schema: {type: string}}}}}
  /big-json:
    get:
      operationId: getBigJson
      tags: [big]
      responses:
        "200": {description: a large object, content: {application/json: {schema: {type: object, properties: {data: {type: string}}}}}}
  /fail:
    get:
      operationId: fail
      tags: [big]
      responses: {"200": {description: never}}
"##
    .replace("PORT", &port.to_string())
}

/// The same API as an OpenAPI 3.1 document (JSON), served at
/// `/openapi.json` with a server URL relative to it and an `apiKey` scheme.
fn document_31() -> Value {
    let pet = json!({"$ref": "#/components/schemas/Pet"});
    let reply = |description: &str, schema: &Value| json!({"description": description, "content": {"application/json": {"schema": schema}}});
    json!({
        "openapi": "3.1.0",
        "info": {"title": "Pets", "version": "1"},
        "servers": [{"url": "/"}],
        "components": {
            "securitySchemes": {"key": {"type": "apiKey", "in": "header", "name": "X-Api-Key"}},
            "schemas": {"Pet": {"type": "object", "required": ["id", "name"], "properties": {
                "id": {"type": "integer", "readOnly": true},
                "name": {"type": "string"},
                "tag": {"type": ["string", "null"]}}}}
        },
        "paths": {
            "/pets": {
                "post": {"operationId": "createPet", "tags": ["pets"],
                         "requestBody": {"required": true, "content": {"application/json": {"schema": pet}}},
                         "responses": {"201": reply("made", &pet)}}
            },
            "/pets/{petId}": {
                "parameters": [{"name": "petId", "in": "path", "required": true, "schema": {"type": "integer"}}],
                "get": {"operationId": "getPet", "tags": ["pets"], "responses": {"200": reply("the pet", &pet)}},
                "delete": {"operationId": "deletePet", "tags": ["admin"], "responses": {"204": {"description": "gone"}}}
            },
            "/auth/echo": {"get": {"operationId": "authEcho", "tags": ["auth"],
                                   "responses": {"200": {"description": "what arrived"}}}},
            "/auth/moved": {"get": {"operationId": "authMoved", "tags": ["auth"],
                                    "responses": {"307": {"description": "elsewhere"}}}},
            "/big": {"get": {"operationId": "getBig", "tags": ["big"], "responses": {"200": {"description": "bytes"}}}}
        }
    })
}

/// A served folder with both documents' entries and one command and one
/// HTTP tool per large-output policy.
fn project(api: &Api) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("v30.yaml"), document_30(api.addr.port())).unwrap();
    let addr = api.addr;
    let config = format!(
        r#"[tools.builtin]
search = false
read = false

[[tools.openapi]]
document = "v30.yaml"
prefix = "v30"
auth = {{ type = "bearer", token_env = "PETS_TOKEN" }}

[[tools.openapi]]
document = "http://{addr}/openapi.json"
prefix = "v31"
exclude_tags = ["admin", "bi*"]
auth = {{ type = "api_key", key_env = "PETS_KEY" }}

[[tools.openapi]]
document = "http://{addr}/openapi.json"
prefix = "query"
include_operations = ["auth*"]
auth = {{ type = "api_key", key_env = "PETS_KEY", name = "api_key", in = "query" }}

[[tools.openapi]]
document = "v30.yaml"
prefix = "basic"
include_tags = ["auth"]
auth = {{ type = "basic", username_env = "PETS_USER", password_env = "PETS_PASSWORD" }}

[[tools.openapi]]
document = "v30.yaml"
prefix = "small"
include_tags = ["big"]
max_response = 100

[[tools.openapi]]
document = "v30.yaml"
prefix = "strict"
include_operations = ["getBig"]
max_response = 100
on_large_output = "error"

[[tools.command]]
name = "loud"
command = ["/bin/sh", "-c", "i=0; while [ $i -lt 500 ]; do echo 0123456789; i=$((i+1)); done"]
max_output = 100

[[tools.command]]
name = "loud_strict"
command = ["/bin/sh", "-c", "i=0; while [ $i -lt 500 ]; do echo 0123456789; i=$((i+1)); done"]
max_output = 100
on_large_output = "error"

[[tools.http]]
name = "big_http"
url = "http://{addr}/big"
max_response = 100

[[tools.http]]
name = "big_http_strict"
url = "http://{addr}/big"
max_response = 100
on_large_output = "error"
"#
    );
    std::fs::write(dir.path().join("switchboard.toml"), config).unwrap();
    dir
}

const ENV: [(&str, &str); 4] =
    [("PETS_TOKEN", "tok-123"), ("PETS_KEY", "key-456"), ("PETS_USER", "ann"), ("PETS_PASSWORD", "s3cret")];

fn serve(dir: &std::path::Path) -> Switchboard {
    Switchboard::start_with_env(&["serve", "."], dir, &ENV)
}

fn tools(switchboard: &mut Switchboard) -> Vec<Value> {
    let listed = switchboard.result("tools/list", json!({}));
    listed["tools"].as_array().unwrap().clone()
}

fn tool<'a>(tools: &'a [Value], name: &str) -> &'a Value {
    tools.iter().find(|t| t["name"] == name).unwrap_or_else(|| panic!("no tool {name}"))
}

fn call(switchboard: &mut Switchboard, name: &str, arguments: Value) -> Value {
    switchboard.result("tools/call", json!({"name": name, "arguments": arguments}))
}

fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_else(|| panic!("no text in {result}"))
}

fn is_error(result: &Value) -> bool {
    result["isError"] == true
}

#[test]
fn documents_become_tools_with_names_schemas_annotations_and_filters() {
    let api = start_api();
    let dir = project(&api);
    let mut switchboard = serve(dir.path());
    let tools = tools(&mut switchboard);
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "loud",
            "loud_strict",
            "big_http",
            "big_http_strict",
            "v30_listPets",
            "v30_createPet",
            "v30_getPet",
            "v30_deletePet",
            "v30_authEcho",
            "v30_getBig",
            "v30_getBigJson",
            "v30_fail",
            "v31_createPet",
            "v31_getPet",
            "v31_authEcho",
            "v31_authMoved",
            "query_authEcho",
            "query_authMoved",
            "basic_authEcho",
            "small_getBig",
            "small_getBigJson",
            "small_fail",
            "strict_getBig",
        ]
    );

    let list = tool(&tools, "v30_listPets");
    assert_eq!(list["title"], "List pets");
    assert_eq!(list["annotations"], json!({"readOnlyHint": true, "openWorldHint": true}));
    assert_eq!(
        list["inputSchema"],
        json!({"type": "object", "additionalProperties": false, "properties": {
            "limit": {"type": "integer", "minimum": 1},
            "tags": {"type": "array", "items": {"type": "string"}},
            "X-Trace": {"type": "string"}}})
    );
    // 3.0's `nullable` is 3.1's "null" type, in outputs too.
    assert_eq!(list["outputSchema"]["properties"]["limit"]["type"], json!(["integer", "null"]));
    assert_eq!(list["outputSchema"]["properties"]["pets"]["items"]["required"], json!(["id", "name"]));

    let create = tool(&tools, "v30_createPet");
    assert_eq!(
        create["annotations"],
        json!({"readOnlyHint": false, "destructiveHint": false, "idempotentHint": false, "openWorldHint": true})
    );
    assert_eq!(create["inputSchema"]["required"], json!(["body"]));
    let body = &create["inputSchema"]["properties"]["body"];
    assert_eq!(body["required"], json!(["name"]), "the readOnly id is not asked for: {body}");
    assert!(body["properties"].get("id").is_none(), "{body}");

    let delete = tool(&tools, "v30_deletePet");
    assert_eq!(delete["annotations"]["destructiveHint"], true);
    assert_eq!(delete["annotations"]["idempotentHint"], true);
    assert_eq!(delete["inputSchema"]["required"], json!(["petId"]));
    assert!(delete.get("outputSchema").is_none(), "204 has no body: {delete}");

    assert_eq!(tool(&tools, "v30_getPet")["outputSchema"]["required"], json!(["id", "name"]));
    assert_eq!(
        tool(&tools, "v31_getPet")["outputSchema"]["properties"]["tag"]["type"],
        json!(["string", "null"])
    );
    assert!(tool(&tools, "v30_getBig").get("outputSchema").is_none(), "text/plain has no output schema");
    switchboard.finish();
}

#[test]
fn operations_are_called_with_path_query_header_parameters_and_a_json_body() {
    let api = start_api();
    let dir = project(&api);
    let mut switchboard = serve(dir.path());
    let r = call(&mut switchboard, "v30_listPets", json!({"limit": 2, "tags": ["a", "b"], "X-Trace": "t-1"}));
    assert!(!is_error(&r), "{r}");
    assert_eq!(
        r["structuredContent"],
        json!({"pets": [{"id": 1, "name": "Rex", "tag": "dog"}], "limit": 2, "tags": ["a", "b"], "trace": "t-1"})
    );
    for prefix in ["v30", "v31"] {
        let r = call(&mut switchboard, &format!("{prefix}_getPet"), json!({"petId": 1}));
        assert_eq!(r["structuredContent"], json!({"id": 1, "name": "Rex", "tag": null}), "{prefix}: {r}");
        let r = call(
            &mut switchboard,
            &format!("{prefix}_createPet"),
            json!({"body": {"name": "Kit", "tag": "cat"}}),
        );
        assert_eq!(r["structuredContent"], json!({"id": 7, "name": "Kit", "tag": "cat"}), "{prefix}: {r}");
    }
    let r = call(&mut switchboard, "v30_deletePet", json!({"petId": 1}));
    assert!(!is_error(&r), "{r}");
    // Arguments are checked against the input schema before any request.
    let r = call(&mut switchboard, "v30_getPet", json!({"petId": "one"}));
    assert!(is_error(&r) && text(&r).contains("Invalid arguments"), "{r}");
    switchboard.finish();
}

#[test]
fn credentials_from_the_environment_arrive_as_bearer_api_key_and_basic() {
    let api = start_api();
    let dir = project(&api);
    let mut switchboard = serve(dir.path());
    let echo = |switchboard: &mut Switchboard, name: &str| {
        call(switchboard, name, json!({}))["structuredContent"].clone()
    };
    assert_eq!(echo(&mut switchboard, "v30_authEcho")["authorization"], "Bearer tok-123");
    // The header the document's apiKey scheme names.
    let v31 = echo(&mut switchboard, "v31_authEcho");
    assert_eq!((v31["apiKeyHeader"].clone(), v31["authorization"].clone()), (json!("key-456"), Value::Null));
    assert_eq!(echo(&mut switchboard, "query_authEcho")["apiKeyQuery"], "key-456");
    let basic = base64::engine::general_purpose::STANDARD.encode("ann:s3cret");
    assert_eq!(echo(&mut switchboard, "basic_authEcho")["authorization"], format!("Basic {basic}"));
    // A redirect to another origin is not followed: the credential stays
    // with the API it was configured for.
    let moved = call(&mut switchboard, "v31_authMoved", json!({}));
    assert!(is_error(&moved), "{moved}");
    let port = api.addr.port();
    let expected = format!(
        "returned HTTP 307 Temporary Redirect, a redirect to http://127.0.0.2:{port}/auth/echo: not followed"
    );
    assert!(text(&moved).contains(&expected), "{moved}");
    switchboard.finish();
}

#[test]
fn a_non_2xx_answer_is_an_error_result_with_its_status_and_body() {
    let api = start_api();
    let dir = project(&api);
    let mut switchboard = serve(dir.path());
    let r = call(&mut switchboard, "v30_getPet", json!({"petId": 404}));
    assert!(is_error(&r), "{r}");
    let addr = api.addr;
    assert_eq!(
        text(&r),
        format!("v30_getPet: GET http://{addr}/pets/404 returned HTTP 404 Not Found: no pet 404")
    );
    let r = call(&mut switchboard, "small_fail", json!({}));
    assert!(is_error(&r), "{r}");
    assert!(text(&r).ends_with("returned HTTP 500 Internal Server Error: database on fire"), "{r}");
    switchboard.finish();
}

#[test]
fn large_outputs_of_every_tool_kind_are_cut_with_the_total_size_or_refused() {
    let api = start_api();
    let dir = project(&api);
    let mut switchboard = serve(dir.path());
    let notice = |what: &str, total: usize, key: &str| {
        format!(
            "[{what} truncated: showing the first 100 bytes of {total} bytes; the tool's {key} limit is 100 bytes]"
        )
    };
    for name in ["small_getBig", "big_http"] {
        let r = call(&mut switchboard, name, json!({}));
        assert!(!is_error(&r), "{name}: {r}");
        assert_eq!(
            text(&r),
            format!("{}\n{}", "x".repeat(100), notice("response", 5000, "max_response")),
            "{name}"
        );
    }
    for name in ["strict_getBig", "big_http_strict"] {
        let r = call(&mut switchboard, name, json!({}));
        assert!(is_error(&r), "{name}: {r}");
        let expected = format!(
            "{name}: the response is 5000 bytes, more than the tool's max_response limit of 100 bytes"
        );
        assert!(text(&r).starts_with(&expected), "{name}: {r}");
    }
    // A tool with an output schema cannot return a cut body as its
    // structured result: the first part comes as an error result.
    let r = call(&mut switchboard, "small_getBigJson", json!({}));
    assert!(is_error(&r), "{r}");
    assert!(text(&r).starts_with("{\"data\":\"yyyy"), "{r}");
    assert!(text(&r).contains(&notice("response", 5011, "max_response")), "{r}");

    let r = call(&mut switchboard, "loud", json!({}));
    assert!(!is_error(&r), "{r}");
    assert_eq!(r["structuredContent"]["truncated"], true);
    assert_eq!(r["structuredContent"]["totalBytes"], 5500);
    assert!(text(&r).ends_with(&notice("output", 5500, "max_output")), "{r}");
    let r = call(&mut switchboard, "loud_strict", json!({}));
    assert!(is_error(&r), "{r}");
    assert!(
        text(&r).starts_with(
            "loud_strict: the output is 5500 bytes, more than the tool's max_output limit of 100 bytes"
        ),
        "{r}"
    );
    switchboard.finish();
}

#[test]
fn editing_the_document_reloads_its_tools_and_a_bad_edit_keeps_them() {
    let api = start_api();
    let dir = tempfile::tempdir().unwrap();
    let full = document_30(api.addr.port());
    // The first version: only /pets/{petId}.
    let start = full.find("  /pets/{petId}:").unwrap();
    let end = full.find("  /auth/echo:").unwrap();
    let head = &full[..full.find("paths:\n").unwrap() + "paths:\n".len()];
    std::fs::write(dir.path().join("api.yaml"), format!("{head}{}", &full[start..end])).unwrap();
    std::fs::write(dir.path().join("switchboard.toml"), "[[tools.openapi]]\ndocument = \"api.yaml\"\n")
        .unwrap();
    let mut switchboard = serve(dir.path());
    let names = |switchboard: &mut Switchboard| -> Vec<String> {
        tools(switchboard)
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_owned())
            .filter(|n| !n.contains('_'))
            .collect()
    };
    assert_eq!(names(&mut switchboard), ["search", "getPet", "deletePet"]);

    std::fs::write(dir.path().join("api.yaml"), &full).unwrap();
    switchboard.notification("notifications/tools/list_changed", None);
    assert!(names(&mut switchboard).contains(&"listPets".to_owned()));

    std::fs::write(dir.path().join("api.yaml"), "openapi: 3.0.3\npaths: [unclosed\n").unwrap();
    let log = switchboard.wait_stderr("configuration not reloaded");
    assert!(log.contains("api.yaml:"), "the problem is placed in the document: {log}");
    assert!(names(&mut switchboard).contains(&"listPets".to_owned()), "the last good tools stay");
    switchboard.finish();
}

/// A `[[tools.openapi]]` entry with a problem on every line.
const BROKEN: &str = r#"[[tools.openapi]]
document = "missing.yaml"
prefix = "bad prefix"
include_tags = ["ok", "[oops"]
auth = { type = "bearer", token_env = "SWITCHBOARD_SURELY_UNSET_TOKEN" }
on_large_output = "cut"
timeout = "0s"
"#;

#[test]
fn check_places_each_problem_of_an_openapi_entry() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("switchboard.toml"), BROKEN).unwrap();
    let (ok, _, stderr) = run(&["check"], dir.path());
    assert!(!ok, "{stderr}");
    let lines: Vec<&str> = stderr.lines().filter(|l| l.starts_with("switchboard.toml:")).collect();
    let expected = [
        ("switchboard.toml:2:12: ", "missing.yaml"),
        ("switchboard.toml:3:10: ", "prefix: \"bad prefix\" cannot start tool names"),
        ("switchboard.toml:4:23: ", "\"[oops\" is not a valid glob"),
        ("switchboard.toml:5:39: ", "environment variable \"SWITCHBOARD_SURELY_UNSET_TOKEN\" is not set"),
        (
            "switchboard.toml:6:19: ",
            "`on_large_output` must be one of `\"truncate\"`, `\"error\"`; found the text \"cut\"",
        ),
        ("switchboard.toml:7:11: ", "timeout: must be more than zero"),
    ];
    assert_eq!(lines.len(), expected.len(), "{stderr}");
    for (line, (place, words)) in lines.iter().zip(expected) {
        assert!(line.starts_with(place) && line.contains(words), "{line}\n  expected {place}…{words}…");
    }
}

#[test]
fn check_places_a_broken_document_in_the_document_or_on_its_entry() {
    let dir = tempfile::tempdir().unwrap();
    let config = "[server]\nname = \"x\"\n\n[[tools.openapi]]\ndocument = \"api.yaml\"\n";
    std::fs::write(dir.path().join("switchboard.toml"), config).unwrap();
    std::fs::write(dir.path().join("api.yaml"), "openapi: 3.1.0\ninfo:\n  title: [unclosed\n").unwrap();
    let (ok, _, stderr) = run(&["check"], dir.path());
    assert!(!ok);
    assert!(
        stderr.lines().any(|l| l.starts_with("api.yaml:4:1: ") && l.contains("not valid YAML")),
        "{stderr}"
    );

    std::fs::write(dir.path().join("api.yaml"), "swagger: '2.0'\n").unwrap();
    let (ok, _, stderr) = run(&["check"], dir.path());
    assert!(!ok);
    assert!(
        stderr.lines().any(|l| l.starts_with("switchboard.toml:4:1: ") && l.contains("Swagger 2.0")),
        "placed on the entry: {stderr}"
    );
}

#[test]
fn the_example_checks_and_lists_its_tools() {
    let example = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/openapi");
    let (ok, stdout, stderr) = run(&["check", "."], &example);
    assert!(ok, "{stderr}");
    // The example lives in this repository, so the read-only git tools come too.
    assert!(stdout.starts_with("switchboard.toml: ok — 14 tools"), "{stdout}");
    let (ok, stdout, stderr) = run(&["list", "--json", "."], &example);
    assert!(ok, "{stderr}");
    let listing: Value = serde_json::from_str(&stdout).unwrap();
    let names: Vec<&str> =
        listing["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "search",
            "read_file",
            "list_directory",
            "find_files",
            "file_info",
            "git_status",
            "git_diff",
            "git_log",
            "git_show",
            "git_blame",
            "git_branch",
            "httpbin_getAnything",
            "httpbin_postAnything",
            "httpbin_getStatus"
        ]
    );
}
