//! Prompts: templates with string arguments that produce messages.
//!
//! A typed prompt takes a struct of string fields: its schema (schemars)
//! declares the argument list, doc comments become descriptions, and
//! `Option<String>` fields are optional.
//!
//! ```
//! use switchboard_server::{Prompt, RequestContext, complete_from};
//! use switchboard_server::types::PromptMessage;
//! use schemars::JsonSchema;
//! use serde::Deserialize;
//!
//! #[derive(Deserialize, JsonSchema)]
//! struct Review {
//!     /// The code to review.
//!     code: String,
//!     /// Its language.
//!     language: Option<String>,
//! }
//!
//! let prompt = Prompt::new("code_review")
//!     .description("Asks for a review of a piece of code.")
//!     .handler(|args: Review, _ctx: RequestContext| async move {
//!         let lang = args.language.unwrap_or_else(|| "the".into());
//!         Ok(vec![PromptMessage::user(format!("Please review this {lang} code:\n{}", args.code))])
//!     })
//!     .unwrap()
//!     .complete("language", complete_from(["rust", "python", "go"]));
//! assert_eq!(prompt.definition().arguments.as_ref().unwrap().len(), 2);
//! ```
//!
//! Spec: `docs/specification/<rev>/server/prompts.mdx`.

pub(crate) mod area;
pub(crate) mod entry;
pub(crate) mod methods;

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::future::Future;
use std::sync::Arc;

use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;
use switchboard_types::{GetPromptResult, PromptArgument, PromptMessage};

use crate::completion::Completer;
use crate::context::RequestContext;
use crate::error::Error;
use crate::handler_error::HandlerError;
use crate::tools::schema_of;

/// Converts a prompt handler's success value into a `prompts/get` result.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a prompt result",
    label = "a prompt returns `String`, `PromptMessage`, `Vec<PromptMessage>` or `GetPromptResult`"
)]
pub trait IntoPromptResult {
    /// The result.
    fn into_prompt_result(self) -> GetPromptResult;
}

impl IntoPromptResult for GetPromptResult {
    fn into_prompt_result(self) -> GetPromptResult {
        self
    }
}

impl IntoPromptResult for Vec<PromptMessage> {
    fn into_prompt_result(self) -> GetPromptResult {
        GetPromptResult { description: None, messages: self }
    }
}

impl IntoPromptResult for PromptMessage {
    fn into_prompt_result(self) -> GetPromptResult {
        GetPromptResult { description: None, messages: vec![self] }
    }
}

impl IntoPromptResult for String {
    fn into_prompt_result(self) -> GetPromptResult {
        PromptMessage::user(self).into_prompt_result()
    }
}

/// The type-erased prompt handler; arguments are already validated
/// (required ones present, no undeclared ones).
pub trait PromptHandler: Send + Sync + 'static {
    /// Renders the prompt.
    fn get(
        &self,
        arguments: BTreeMap<String, String>,
        ctx: RequestContext,
    ) -> BoxFuture<'static, Result<GetPromptResult, HandlerError>>;
}

struct RawHandler<F>(F);

impl<F, Fut, R> PromptHandler for RawHandler<F>
where
    F: Fn(BTreeMap<String, String>, RequestContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<R, HandlerError>> + Send + 'static,
    R: IntoPromptResult,
{
    fn get(
        &self,
        arguments: BTreeMap<String, String>,
        ctx: RequestContext,
    ) -> BoxFuture<'static, Result<GetPromptResult, HandlerError>> {
        let fut = (self.0)(arguments, ctx);
        Box::pin(async move { fut.await.map(IntoPromptResult::into_prompt_result) })
    }
}

struct TypedHandler<F, A> {
    f: F,
    _args: std::marker::PhantomData<fn(A)>,
}

impl<F, A, Fut, R> PromptHandler for TypedHandler<F, A>
where
    F: Fn(A, RequestContext) -> Fut + Send + Sync + 'static,
    A: DeserializeOwned + Send + 'static,
    Fut: Future<Output = Result<R, HandlerError>> + Send + 'static,
    R: IntoPromptResult,
{
    fn get(
        &self,
        arguments: BTreeMap<String, String>,
        ctx: RequestContext,
    ) -> BoxFuture<'static, Result<GetPromptResult, HandlerError>> {
        let object: serde_json::Map<String, Value> =
            arguments.into_iter().map(|(k, v)| (k, Value::String(v))).collect();
        match serde_json::from_value::<A>(Value::Object(object)) {
            Ok(args) => {
                let fut = (self.f)(args, ctx);
                Box::pin(async move { fut.await.map(IntoPromptResult::into_prompt_result) })
            }
            Err(e) => {
                Box::pin(async move { Err(HandlerError::invalid_params(format!("invalid arguments: {e}"))) })
            }
        }
    }
}

/// A prompt: its definition, handler and argument completers.
pub struct Prompt {
    pub(crate) def: switchboard_types::Prompt,
    pub(crate) handler: Option<Arc<dyn PromptHandler>>,
    pub(crate) completers: HashMap<String, Arc<dyn Completer>>,
    pub(crate) scopes: Vec<String>,
}

impl fmt::Debug for Prompt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Prompt").field("def", &self.def).finish_non_exhaustive()
    }
}

impl Prompt {
    /// A prompt called `name`, with no arguments and no handler yet.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            def: switchboard_types::Prompt {
                name: name.into(),
                title: None,
                description: None,
                arguments: None,
                icons: None,
                meta: None,
            },
            handler: None,
            completers: HashMap::new(),
            scopes: Vec::new(),
        }
    }

    /// A prompt with this wire definition (name, title, arguments, …) and no
    /// handler yet: for prompts described elsewhere, e.g. by a proxied
    /// server.
    pub fn from_definition(def: switchboard_types::Prompt) -> Self {
        Self { def, ..Self::new("") }
    }

    /// The prompt's name.
    pub fn name(&self) -> &str {
        &self.def.name
    }

    /// The definition as it stands.
    pub fn definition(&self) -> &switchboard_types::Prompt {
        &self.def
    }

    crate::setters::metadata_setters!();

    /// Declares an argument.
    #[must_use]
    pub fn argument(
        mut self,
        name: impl Into<String>,
        description: impl Into<String>,
        required: bool,
    ) -> Self {
        self.def.arguments.get_or_insert_with(Vec::new).push(PromptArgument {
            name: name.into(),
            title: None,
            description: Some(description.into()),
            required: Some(required),
        });
        self
    }

    /// Declares an argument from its full definition (title, optional
    /// description).
    #[must_use]
    pub fn argument_def(mut self, argument: PromptArgument) -> Self {
        self.def.arguments.get_or_insert_with(Vec::new).push(argument);
        self
    }

    /// Renders with the validated arguments as a map.
    #[must_use]
    pub fn raw_handler<F, Fut, R>(mut self, f: F) -> Self
    where
        F: Fn(BTreeMap<String, String>, RequestContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<R, HandlerError>> + Send + 'static,
        R: IntoPromptResult,
    {
        self.handler = Some(Arc::new(RawHandler(f)));
        self
    }

    /// Renders with a typed argument struct whose fields declare the
    /// arguments. Fails if a field is not a string (`Option<String>` for an
    /// optional argument): prompt arguments are always strings.
    pub fn handler<F, A, Fut, R>(mut self, f: F) -> Result<Self, Error>
    where
        F: Fn(A, RequestContext) -> Fut + Send + Sync + 'static,
        A: DeserializeOwned + JsonSchema + Send + 'static,
        Fut: Future<Output = Result<R, HandlerError>> + Send + 'static,
        R: IntoPromptResult,
    {
        self.def.arguments = Some(arguments_of(&self.def.name, &schema_of::<A>())?);
        self.handler = Some(Arc::new(TypedHandler { f, _args: std::marker::PhantomData }));
        Ok(self)
    }

    /// Completes the argument `argument` (`completion/complete` with `ref/prompt`).
    #[must_use]
    pub fn complete(mut self, argument: impl Into<String>, completer: Arc<dyn Completer>) -> Self {
        self.completers.insert(argument.into(), completer);
        self
    }
}

/// Derives prompt arguments from a struct's JSON Schema.
fn arguments_of(prompt: &str, schema: &Value) -> Result<Vec<PromptArgument>, Error> {
    let invalid = |reason: String| Error::InvalidPrompt { prompt: prompt.to_owned(), reason };
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return if schema.get("type").and_then(Value::as_str) == Some("object") {
            Ok(Vec::new())
        } else {
            Err(invalid("the argument type must be a struct".into()))
        };
    };
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut out = Vec::with_capacity(properties.len());
    for (name, property) in properties {
        let is_string = match property.get("type") {
            Some(Value::String(t)) => t == "string",
            Some(Value::Array(types)) => {
                types.iter().all(|t| t == "string" || t == "null") && types.iter().any(|t| t == "string")
            }
            _ => false,
        };
        if !is_string {
            return Err(invalid(format!("argument {name:?} must be a String or Option<String>")));
        }
        out.push(PromptArgument {
            name: name.clone(),
            title: property.get("title").and_then(Value::as_str).map(str::to_owned),
            description: property.get("description").and_then(Value::as_str).map(str::to_owned),
            required: Some(required.contains(&name.as_str())),
        });
    }
    Ok(out)
}
