//! What an authenticated caller may see and use.
//!
//! Tools, prompts, resources and templates may require OAuth scopes
//! (`requires_scopes`). For a caller with a [`Principal`] the lists show
//! only what its scopes allow (and are then `cacheScope: private`), and
//! using something hidden is the same error as using something that does
//! not exist. Transports that authenticate (HTTP with bearer tokens) ask
//! [`Server::missing_scopes`] first, to answer `403` with
//! `error="insufficient_scope"` and the scopes to request, as the
//! authorization spec's scope challenge describes
//! (`docs/specification/2025-11-25/basic/authorization.mdx` §Scope
//! Challenge Handling). Without a principal (stdio, or HTTP without
//! authorization) nothing is restricted.

use serde_json::Value;

use crate::registry::ScopedBy;
use crate::server::Server;
use crate::session::caller::Principal;

impl Server {
    /// The scopes a request needs that `principal` lacks: `Some(required)`
    /// (all the scopes the named tool, prompt or resource requires) when a
    /// `tools/call`, `prompts/get`, `resources/read` or
    /// `resources/subscribe` names something `principal` may not use;
    /// `None` otherwise (including for unknown names, which the
    /// dispatcher answers as usual).
    pub fn missing_scopes(
        &self,
        principal: &Principal,
        method: &str,
        params: Option<&Value>,
    ) -> Option<Vec<String>> {
        // The method's row says whose scopes it needs; its facts, which
        // param names that item.
        let entry = self.core.methods.get(method)?;
        let scoped_by = entry.scoped_by?;
        let target = params?.get(entry.target()?.param())?.as_str()?;
        let required: Vec<String> = match scoped_by {
            ScopedBy::Tool => self.core.tools.load().get(target)?.value.scopes.to_vec(),
            ScopedBy::Prompt => self.core.prompts.load().get(target)?.value.scopes.to_vec(),
            ScopedBy::Resource => {
                let uri = target;
                match self.core.resources.load().get(uri) {
                    Some(item) => item.value.scopes.to_vec(),
                    None => {
                        let templates = self.core.templates.load();
                        let item = templates.iter().find(|t| t.value.template.matches(uri).is_some())?;
                        item.value.scopes.to_vec()
                    }
                }
            }
        };
        (!principal.has_scopes(&required)).then_some(required)
    }
}
