//! `prompts/list`, `prompts/get` and `completion/complete`.
//!
//! Spec: `docs/specification/<rev>/server/prompts.mdx`,
//! `docs/specification/<rev>/server/utilities/completion.mdx`. Arguments are
//! checked before the handler runs: an unknown prompt, a missing required
//! argument or an undeclared one is `-32602` naming it, so no template is
//! ever rendered half-filled.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{Map, Value, json};
use switchboard_types::ErrorObject;
use switchboard_types::completion::{CompleteParams, CompletionReference};
use switchboard_types::pagination::PaginatedParams;
use switchboard_types::prompts::GetPromptParams;

use crate::completion::{CompletionRequest, MAX_VALUES};
use crate::context::RequestContext;
use crate::output::Output;
use crate::params::to_map;
use crate::prompts::area::Prompts;
use crate::prompts::entry::PromptEntry;
use crate::resources::area::Resources;
use crate::resources::entry::TemplateEntry;
use crate::resources::listing::{list, listed};
use crate::session::Session;
use crate::session::caller::permits;
use crate::shape;
use crate::shared::Shared;

listed! {
    PromptEntry: Prompts in "prompts";
}

pub(crate) async fn list_prompts(
    (prompts, shared): (&Prompts, &Shared),
    _: &Arc<Session>,
    ctx: &RequestContext,
    params: PaginatedParams,
) -> Result<Output, ErrorObject> {
    list(shared, ctx, &prompts.catalog, params)
}

pub(crate) async fn get_prompt(
    prompts: &Prompts,
    _: &Arc<Session>,
    ctx: &RequestContext,
    params: GetPromptParams,
) -> Result<Map<String, Value>, ErrorObject> {
    let prompts = prompts.catalog.load();
    let visible = prompts.get(&params.name).filter(|item| permits(ctx.principal(), &item.value.scopes));
    let item = visible.cloned().ok_or_else(|| {
        ErrorObject::invalid_params(format!(
            "Unknown prompt: {:?}; call prompts/list for the available prompts",
            params.name
        ))
        .with_data(json!({"name": params.name}))
    })?;
    let entry = &item.value;
    let arguments = params.arguments.unwrap_or_default();
    check_arguments(&entry.def, &arguments)?;
    let mut result = entry
        .handler
        .get(arguments, ctx.clone())
        .await
        .map_err(|e| e.into_error(|| ErrorObject::invalid_params("prompt not found")))?;
    let version = ctx.protocol_version();
    for message in &mut result.messages {
        let block = std::mem::replace(&mut message.content, switchboard_types::ContentBlock::text(""));
        message.content = shape::content(vec![block], version).pop().expect("one block in, one out");
    }
    if result.description.is_none() {
        result.description = entry.def.description.clone();
    }
    to_map(&result)
}

pub(crate) async fn complete(
    (prompts, resources): (&Prompts, &Resources),
    _: &Arc<Session>,
    ctx: &RequestContext,
    params: CompleteParams,
) -> Result<Map<String, Value>, ErrorObject> {
    let argument = params.argument.name;
    let completer = match &params.reference {
        CompletionReference::Prompt { name } => {
            let prompts = prompts.catalog.load();
            let item =
                prompts.get(name).filter(|i| permits(ctx.principal(), &i.value.scopes)).ok_or_else(|| {
                    ErrorObject::invalid_params(format!("Unknown prompt: {name:?}"))
                        .with_data(json!({"name": name}))
                })?;
            let declared = item.value.def.arguments.iter().flatten().any(|a| a.name == argument);
            if !declared {
                return Err(ErrorObject::invalid_params(format!(
                    "prompt {name:?} has no argument {argument:?}"
                )));
            }
            item.value.completers.get(&argument).cloned()
        }
        CompletionReference::Resource { uri } => {
            let templates = resources.templates.load();
            // The reference names a template by its text, or any URI it matches.
            let allowed =
                |t: &&Arc<crate::catalog::Item<TemplateEntry>>| permits(ctx.principal(), &t.value.scopes);
            let item = templates
                .iter()
                .filter(allowed)
                .find(|t| t.value.def.uri_template == *uri)
                .or_else(|| {
                    templates.iter().filter(allowed).find(|t| t.value.template.matches(uri).is_some())
                })
                .ok_or_else(|| {
                    ErrorObject::invalid_params(format!("Unknown resource template: {uri:?}"))
                        .with_data(json!({"uri": uri}))
                })?;
            if !item.value.template.variables().any(|v| v == argument) {
                return Err(ErrorObject::invalid_params(format!(
                    "template {uri:?} has no variable {argument:?}"
                )));
            }
            item.value.completers.get(&argument).cloned()
        }
    };
    let values = match completer {
        None => Vec::new(),
        Some(c) => {
            let request = CompletionRequest {
                argument,
                value: params.argument.value,
                context: params.context.and_then(|c| c.arguments).unwrap_or_default(),
            };
            c.complete(request, ctx.clone())
                .await
                .map_err(|e| e.into_error(|| ErrorObject::invalid_params("nothing to complete")))?
        }
    };
    let total = values.len();
    let values: Vec<Value> = values.into_iter().take(MAX_VALUES).map(Value::String).collect();
    let mut completion = Map::new();
    completion.insert("values".into(), Value::Array(values));
    completion.insert("total".into(), Value::from(total));
    completion.insert("hasMore".into(), Value::Bool(total > MAX_VALUES));
    let mut map = Map::with_capacity(1);
    map.insert("completion".into(), Value::Object(completion));
    Ok(map)
}

fn check_arguments(
    prompt: &switchboard_types::Prompt,
    arguments: &BTreeMap<String, String>,
) -> std::result::Result<(), ErrorObject> {
    let declared = prompt.arguments.as_deref().unwrap_or_default();
    let missing: Vec<&str> = declared
        .iter()
        .filter(|a| a.required == Some(true) && !arguments.contains_key(&a.name))
        .map(|a| a.name.as_str())
        .collect();
    if !missing.is_empty() {
        return Err(ErrorObject::invalid_params(format!(
            "prompt {:?} is missing required argument{} {}",
            prompt.name,
            if missing.len() > 1 { "s" } else { "" },
            missing.iter().map(|m| format!("{m:?}")).collect::<Vec<_>>().join(", ")
        ))
        .with_data(json!({"missing": missing})));
    }
    let unknown: Vec<&str> =
        arguments.keys().map(String::as_str).filter(|k| !declared.iter().any(|a| a.name == *k)).collect();
    if !unknown.is_empty() {
        return Err(ErrorObject::invalid_params(format!(
            "prompt {:?} has no argument{} {}; declared: {}",
            prompt.name,
            if unknown.len() > 1 { "s" } else { "" },
            unknown.iter().map(|m| format!("{m:?}")).collect::<Vec<_>>().join(", "),
            declared.iter().map(|a| a.name.as_str()).collect::<Vec<_>>().join(", ")
        ))
        .with_data(json!({"unknown": unknown})));
    }
    Ok(())
}
