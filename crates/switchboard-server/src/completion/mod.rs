//! Argument completion for prompt arguments and resource-template variables.
//!
//! Spec: `docs/specification/<rev>/server/utilities/completion.mdx`. A
//! completer returns every candidate it has; the server sends at most 100
//! with the honest `total` and `hasMore`.

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use futures::future::BoxFuture;

use crate::context::RequestContext;
use crate::handler_error::HandlerError;

/// What the client is typing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompletionRequest {
    /// The argument or template variable being completed.
    pub argument: String,
    /// What has been typed so far.
    pub value: String,
    /// Values already chosen for other arguments (2025-06-18 and later
    /// clients send them; empty otherwise).
    pub context: BTreeMap<String, String>,
}

/// Produces completion candidates.
pub trait Completer: Send + Sync + 'static {
    /// Every candidate, most relevant first.
    fn complete(
        &self,
        request: CompletionRequest,
        ctx: RequestContext,
    ) -> BoxFuture<'static, Result<Vec<String>, HandlerError>>;
}

struct FnCompleter<F>(F);

impl<F, Fut> Completer for FnCompleter<F>
where
    F: Fn(CompletionRequest, RequestContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Vec<String>, HandlerError>> + Send + 'static,
{
    fn complete(
        &self,
        request: CompletionRequest,
        ctx: RequestContext,
    ) -> BoxFuture<'static, Result<Vec<String>, HandlerError>> {
        Box::pin((self.0)(request, ctx))
    }
}

/// A completer from an async function.
pub fn completer_fn<F, Fut>(f: F) -> Arc<dyn Completer>
where
    F: Fn(CompletionRequest, RequestContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Vec<String>, HandlerError>> + Send + 'static,
{
    Arc::new(FnCompleter(f))
}

/// A completer over a fixed list: the values that start with what was typed
/// (case-insensitively), in the list's order.
pub fn complete_from<I, S>(values: I) -> Arc<dyn Completer>
where
    I: IntoIterator<Item = S>,
    S: Into<String>,
{
    let values: Arc<Vec<String>> = Arc::new(values.into_iter().map(Into::into).collect());
    completer_fn(move |request: CompletionRequest, _ctx| {
        let values = Arc::clone(&values);
        async move {
            let typed = request.value.to_lowercase();
            Ok(values.iter().filter(|v| v.to_lowercase().starts_with(&typed)).cloned().collect())
        }
    })
}

/// The most values one `completion/complete` result may carry.
pub(crate) const MAX_VALUES: usize = 100;

/// Whether some registered prompt or template has a completer, so the
/// server offers `completions`: set by registration, never cleared.
#[derive(Debug, Default)]
pub(crate) struct CompleterFlag(AtomicBool);

impl CompleterFlag {
    /// Records that an item with a completer was registered.
    pub(crate) fn note(&self) {
        self.0.store(true, Ordering::Release);
    }

    pub(crate) fn is_set(&self) -> bool {
        self.0.load(Ordering::Acquire)
    }
}
