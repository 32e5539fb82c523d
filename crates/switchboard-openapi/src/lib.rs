//! An OpenAPI 3.0 or 3.1 document as MCP tools, one per operation: what
//! `switchboard` serves for each `[[tools.openapi]]` entry of
//! `switchboard.toml`.
//!
//! [`openapi_tools`] reads the document ([`OpenApiSpec::document`]: a file
//! in the served folder, or an http(s) URL fetched then, JSON or YAML) and
//! builds a [`switchboard_server::Tool`] per operation that the include and
//! exclude patterns keep:
//!
//! - **name**: the `operationId`, else the method and path (`get_pets_petId`),
//!   made to fit the MCP rule (1 to 128 of `A-Z a-z 0-9 _ - .`; anything
//!   else becomes `_`), after `prefix_` if a prefix is set; a name met
//!   twice gets `_2`, `_3`, …;
//! - **input schema**: one argument per path, query, header and cookie
//!   parameter (named as the API names it; `name_query` etc. when two
//!   places use one name), and `body` for a JSON request body; local
//!   `$ref`s are inlined (recursive types go to `$defs`), `readOnly`
//!   properties left out of bodies;
//! - **output schema**: the JSON schema of the success (2xx) responses
//!   when they all share one and it describes an object; otherwise none,
//!   and a JSON object answer is still `structuredContent`;
//! - **annotations**: `readOnlyHint` for GET, HEAD and OPTIONS,
//!   `destructiveHint` for PUT, PATCH and DELETE, `idempotentHint` for PUT
//!   and DELETE, `openWorldHint` always; title and description from the
//!   summary and description.
//!
//! Each call sends one request through `switchboard-tools`'
//! [`switchboard_tools::HttpCaller`], the path `[[tools.http]]` tools use:
//! the same client, time limit, response cap and handling of a larger
//! response (`on_large_output`), the same failures. A non-2xx answer is
//! an `isError` result with the status and the body. When the tool has an
//! output schema, an answer that does not match it, or was cut at the cap,
//! is an `isError` result with the body (the result could not be the
//! structured content the tool promises).
//!
//! The base URL is `base_url`, else the document's first server (its
//! variables at their defaults; relative to the document's URL when it was
//! fetched). Credentials come from the environment when the entry loads
//! ([`AuthSpec`]): a bearer token, an API key (header or query; name and
//! place from the document's `apiKey` scheme unless given) or basic.
//!
//! [`OpenApiSpec::problems`] lists what can be found wrong without reading
//! the document, each placed on its key ([`OpenApiProblem`]), for
//! `switchboard check`.
//!
//! # 3.0 and 3.1
//!
//! `oas3` reads the document (see `Cargo.toml` for why). A 3.0 document's
//! Schema Objects are first rewritten to 3.1's JSON Schema 2020-12:
//! `nullable: true` adds `"null"` to the type, boolean
//! `exclusiveMinimum`/`exclusiveMaximum` take the bound's number.
//!
//! # Not served
//!
//! Request bodies that are not JSON (an operation that requires one is
//! left out, with a warning in the log), references to other files, and
//! callbacks and webhooks (they are not requests a client makes).

mod call;
mod document;
mod error;
mod operation;
mod schema;
mod spec;

use std::path::Path;

pub use error::{OpenApiError, OpenApiProblem};
pub use spec::{AuthKind, AuthSpec, KeyLocation, OpenApiSpec};
use switchboard_server::Tool;

/// The tools of `spec`'s API, for a folder served from `dir` (a relative
/// `document` is a file in it). Reads (or fetches) the document; fails on
/// the first problem: a setting ([`OpenApiSpec::problems`]), a document
/// that cannot be read, parsed or used, or no operation left to serve.
pub fn openapi_tools(spec: &OpenApiSpec, dir: &Path) -> Result<Vec<Tool>, OpenApiError> {
    spec.checked(dir)?;
    let document = document::Document::load(spec.source(dir)?, spec.timeout)?;
    let api = call::Api::new(spec, &document)?;
    let operations = operation::operations(spec, &document)?;
    if operations.is_empty() {
        let filtered = ["include_tags", "exclude_tags", "include_operations", "exclude_operations"]
            .iter()
            .any(|key| !spec.patterns(key).is_empty());
        let reason = if filtered {
            "no operation is left after include_tags, exclude_tags, include_operations and exclude_operations"
        } else {
            "it has no operation under `paths`"
        };
        return Err(document.invalid(reason.to_owned()));
    }
    tracing::debug!(
        document = %document.source.name(),
        version = ?document.version,
        operations = operations.len(),
        "OpenAPI document read"
    );
    operations.into_iter().map(|operation| api.tool(operation)).collect()
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    fn spec(toml_text: &str) -> OpenApiSpec {
        toml::from_str(toml_text).unwrap()
    }

    fn folder(name: &str, text: &str) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(name), text).unwrap();
        dir
    }

    fn definitions(tools: &[Tool]) -> Vec<Value> {
        tools.iter().map(|t| serde_json::to_value(t.definition()).unwrap()).collect()
    }

    const YAML_30: &str = r"
openapi: 3.0.3
info: {title: Pets, version: '1'}
servers: [{url: 'http://127.0.0.1:1/api'}]
paths:
  /pets:
    get:
      operationId: listPets
      tags: [pets]
      summary: List pets
      parameters:
        - {name: limit, in: query, schema: {type: integer, nullable: true}}
      responses:
        '200':
          description: ok
          content: {application/json: {schema: {$ref: '#/components/schemas/Page'}}}
    post:
      tags: [pets, admin]
      requestBody:
        required: true
        content: {application/json: {schema: {$ref: '#/components/schemas/Pet'}}}
      responses: {'201': {description: made}}
  /pets/{id}:
    delete:
      operationId: deletePet
      tags: [admin]
      parameters: [{name: id, in: path, required: true, schema: {type: integer}}]
      responses: {'204': {description: gone}}
components:
  schemas:
    Pet:
      type: object
      required: [id, name]
      properties: {id: {type: integer, readOnly: true}, name: {type: string}}
    Page:
      type: object
      properties: {items: {type: array, items: {$ref: '#/components/schemas/Pet'}}}
";

    #[test]
    fn a_three_oh_yaml_document_becomes_tools() {
        let dir = folder("pets.yaml", YAML_30);
        let tools = openapi_tools(&spec("document = \"pets.yaml\"\nprefix = \"pets\""), dir.path()).unwrap();
        let defs = definitions(&tools);
        let names: Vec<&str> = defs.iter().map(|d| d["name"].as_str().unwrap()).collect();
        assert_eq!(names, ["pets_listPets", "pets_post_pets", "pets_deletePet"]);
        let list = &defs[0];
        assert_eq!(list["title"], "List pets");
        assert_eq!(list["annotations"]["readOnlyHint"], true);
        assert_eq!(list["inputSchema"]["properties"]["limit"]["type"], json!(["integer", "null"]));
        assert_eq!(list["outputSchema"]["properties"]["items"]["items"]["required"], json!(["id", "name"]));
        let post = &defs[1];
        assert_eq!(post["inputSchema"]["required"], json!(["body"]));
        assert_eq!(
            post["inputSchema"]["properties"]["body"]["required"],
            json!(["name"]),
            "readOnly id left out"
        );
        assert!(post.get("outputSchema").is_none(), "201 has no JSON body");
        assert_eq!(defs[2]["annotations"]["destructiveHint"], true);
    }

    #[test]
    fn tags_and_operations_filter_with_globs() {
        let dir = folder("pets.yaml", YAML_30);
        let only_pets =
            spec("document = \"pets.yaml\"\ninclude_tags = [\"pe*\"]\nexclude_tags = [\"admin\"]");
        let names: Vec<String> =
            openapi_tools(&only_pets, dir.path()).unwrap().iter().map(|t| t.name().to_owned()).collect();
        assert_eq!(names, ["listPets"]);
        let by_id = spec(
            "document = \"pets.yaml\"\ninclude_operations = [\"*Pet*\", \"post_pets\"]\nexclude_operations = [\"delete*\"]",
        );
        let names: Vec<String> =
            openapi_tools(&by_id, dir.path()).unwrap().iter().map(|t| t.name().to_owned()).collect();
        assert_eq!(names, ["listPets", "post_pets"]);
        let none = spec("document = \"pets.yaml\"\ninclude_tags = [\"nothing\"]");
        let e = openapi_tools(&none, dir.path()).unwrap_err();
        assert!(e.to_string().contains("no operation is left"), "{e}");
    }

    #[test]
    fn a_three_one_json_document_keeps_its_keywords() {
        let doc = json!({
            "openapi": "3.1.0",
            "info": {"title": "t", "version": "1"},
            "paths": {"/things/{id}": {"get": {
                "operationId": "getThing",
                "parameters": [{"name": "id", "in": "path", "required": true,
                                "schema": {"type": "string", "pattern": "^[a-z]+$", "not": {"const": "admin"}}}],
                "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {
                    "type": "object", "properties": {"id": {"type": ["string", "null"]}}, "required": ["id"]}}}}}
            }}}
        });
        let dir = folder("api.json", &doc.to_string());
        let entry = spec("document = \"api.json\"\nbase_url = \"http://127.0.0.1:1\"");
        let defs = definitions(&openapi_tools(&entry, dir.path()).unwrap());
        assert_eq!(defs[0]["inputSchema"]["properties"]["id"]["not"], json!({"const": "admin"}));
        assert_eq!(defs[0]["outputSchema"]["properties"]["id"]["type"], json!(["string", "null"]));
        let no_server = spec("document = \"api.json\"");
        let e = openapi_tools(&no_server, dir.path()).unwrap_err();
        assert!(e.to_string().starts_with("base_url: the document names no server"), "{e}");
    }
}
