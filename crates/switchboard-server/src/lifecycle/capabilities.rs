//! How the server describes itself: the capabilities object built from
//! what is registered, and the answers to `initialize` (handshake era) and
//! `server/discover` (2026-07-28).

use serde_json::value::RawValue;
use serde_json::{Map, Value};
use switchboard_types::lifecycle::{PromptsCapability, ResourcesCapability, ToolsCapability};
use switchboard_types::{
    DiscoverResult, ErrorObject, InitializeParams, InitializeResult, ProtocolVersion, ServerCapabilities,
};

use super::negotiate;
use crate::core::Core;
use crate::session::{Negotiated, Session};
use crate::shape;

impl Core {
    /// The capabilities object for `version`.
    ///
    /// Exactly what is wired up: a primitive appears when something of its
    /// kind is registered (or it was enabled for run-time registration);
    /// `completions` when a prompt or template has a completer; `extensions`
    /// when an extension is offered to this revision's clients. Which of
    /// these members a revision has is its row's `capabilities`
    /// ([`CapabilityMembers`](switchboard_types::revision::CapabilityMembers)).
    pub(crate) fn capabilities(&self, version: ProtocolVersion) -> ServerCapabilities {
        let fields = version.rules().capabilities;
        ServerCapabilities {
            tools: self.tools.enabled.then_some(ToolsCapability { list_changed: Some(true) }),
            prompts: self.prompts.enabled.then_some(PromptsCapability { list_changed: Some(true) }),
            resources: self
                .resources
                .enabled
                .then_some(ResourcesCapability { subscribe: Some(true), list_changed: Some(true) }),
            logging: self.logging_enabled.then(|| Value::Object(Map::new())),
            completions: (fields.completions && self.completions_enabled())
                .then(|| Value::Object(Map::new())),
            extensions: fields.extensions.then(|| self.extensions_for(version)).flatten(),
            ..ServerCapabilities::default()
        }
    }

    /// The `extensions` map offered to clients of `version`; `None` when
    /// nothing is (the member is left out rather than sent empty).
    fn extensions_for(&self, version: ProtocolVersion) -> Option<Value> {
        let map: Map<String, Value> = self
            .extensions
            .iter()
            .filter(|offer| offer.offered_to(version))
            .map(|offer| (offer.id.clone(), offer.settings.clone()))
            .collect();
        (!map.is_empty()).then_some(Value::Object(map))
    }

    /// Answers a handshake-era `initialize`.
    pub(crate) fn initialize(
        &self,
        session: &Session,
        params: Option<&RawValue>,
    ) -> Result<Map<String, Value>, ErrorObject> {
        let params: InitializeParams = crate::params::parse_params(params)?;
        let version = negotiate(&params.protocol_version);
        // 2025-11-25 tasks are offered to a client that declared its own
        // `tasks` capability, when some tool runs as a task.
        let offer_tasks = self.tasks.offered()
            && version.rules().adds("tasks/result")
            && params.capabilities.tasks.is_some();
        let negotiated =
            Negotiated { version, client_capabilities: params.capabilities, client_info: params.client_info };
        if !session.initialize(negotiated) {
            return Err(ErrorObject::invalid_request(
                "initialize was already answered on this connection; open a new connection to start over",
            ));
        }
        let mut capabilities = self.capabilities(version);
        if offer_tasks {
            capabilities.tasks = Some(crate::task_wire::server_capability());
        }
        let result = InitializeResult {
            protocol_version: version.as_str().to_owned(),
            capabilities,
            server_info: shape::implementation(&self.shared.info, version),
            instructions: self.shared.instructions.clone(),
        };
        crate::params::to_map(&result)
    }

    /// Answers `server/discover` (2026-07-28).
    pub(crate) fn discover(&self) -> Result<Map<String, Value>, ErrorObject> {
        let result = DiscoverResult {
            // `-32022` errors carry the same list (`validate_per_request`).
            supported_versions: ProtocolVersion::SUPPORTED.iter().map(|v| (*v).to_owned()).collect(),
            capabilities: self.capabilities(ProtocolVersion::LATEST),
            instructions: self.shared.instructions.clone(),
        };
        crate::params::to_map(&result)
    }
}
