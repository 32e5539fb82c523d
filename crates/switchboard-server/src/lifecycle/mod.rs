//! The two lifecycle models: the `initialize` handshake and 2026-07-28
//! per-request `_meta` with `server/discover`.
//!
//! Era is decided before method (spec.md §b.1, §e.1): a request whose
//! `_meta` carries `io.modelcontextprotocol/protocolVersion`, or any
//! `server/discover`, is served statelessly under 2026-07-28 rules; anything
//! else is handshake-era and needs the connection's `initialize` first.
//!
//! Version negotiation (`docs/specification/<revision>/basic/lifecycle.mdx`
//! §Version Negotiation): a supported handshake-era version is echoed; anything
//! else (older, newer, junk, and `2026-07-28`, which has no handshake) gets the
//! newest handshake revision as a counter-offer, never an error. Which
//! revisions have a handshake is their row's `era` (`Era::Handshake`).
//!
//! Both eras describe the server with the same capabilities object (in the
//! `initialize` result, or the `server/discover` result), built here from
//! what is registered, with the members the revision's row has. Extensions
//! (SEP-2133) are checked when the server is built, so a bad identifier
//! never reaches a client.

use serde_json::value::RawValue;
use serde_json::{Map, Value, json};
use switchboard_types::head::{MetaView, json_str};
use switchboard_types::lifecycle::{CacheScope, PromptsCapability, ResourcesCapability, ToolsCapability};
use switchboard_types::meta::{CLIENT_CAPABILITIES, PROTOCOL_VERSION};
use switchboard_types::{
    ClientCapabilities, DiscoverResult, Era, ErrorCode, ErrorObject, Implementation, InitializeParams,
    InitializeResult, ProtocolVersion, RequestId, ServerCapabilities,
};

use crate::core::Core;
use crate::session::{Negotiated, Session};
use crate::shape;

/// The `_meta` of a request, as the dispatcher reads it: the reserved
/// members of the one borrowed read of its params ([`ParamsHead`]), each
/// parsed only when asked for.
///
/// [`ParamsHead`]: switchboard_types::head::ParamsHead
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct RequestMeta<'a> {
    pub view: MetaView<'a>,
}

impl<'a> RequestMeta<'a> {
    /// True if this request opts into the 2026-07-28 model (the version key
    /// is present, even `null`: it is then refused as missing).
    pub(crate) fn is_per_request(&self) -> bool {
        self.view.protocol_version.is_some()
    }

    /// The progress token, if a valid one was given.
    pub(crate) fn progress_token(&self) -> Option<RequestId> {
        serde_json::from_str(self.view.progress_token?.get()).ok()
    }

    /// The 2026-07-28 per-request log level: `Ok(None)` when absent,
    /// `-32602` when it is not a valid level.
    pub(crate) fn log_level(&self) -> Result<Option<switchboard_types::logging::LoggingLevel>, ErrorObject> {
        match self.view.log_level {
            None => Ok(None),
            Some(v) => serde_json::from_str(v.get()).map(Some).map_err(|_| {
                ErrorObject::invalid_params(format!(
                    "params._meta[\"{}\"] must be one of debug, info, notice, warning, error, critical, alert, emergency",
                    switchboard_types::meta::LOG_LEVEL
                ))
            }),
        }
    }

    /// The client's self-description (2026-07-28 `clientInfo`), if valid.
    pub(crate) fn client_info(&self) -> Option<Implementation> {
        serde_json::from_str(self.view.client_info?.get()).ok()
    }

    /// The whole `_meta` as sent, when it is an object: kept raw for
    /// [`RequestContext::meta`](crate::RequestContext::meta), which builds
    /// the map only if a handler asks.
    pub(crate) fn raw_object(&self) -> Option<Box<RawValue>> {
        self.view.raw.filter(|_| self.view.is_object()).map(ToOwned::to_owned)
    }

    /// Applies the 2026-07-28 per-request rules
    /// (`docs/specification/2026-07-28/basic/index.mdx` §`_meta`): the
    /// version and client capabilities are required (`-32602`), and the
    /// version must be one the server serves per request (`-32022`).
    pub(crate) fn validate_per_request(&self) -> Result<ProtocolVersion, ErrorObject> {
        let missing = |field: &str, what: &str| {
            ErrorObject::invalid_params(format!(
                "2026-07-28 requests must carry params._meta[\"{field}\"] ({what})"
            ))
            .with_data(json!({"missing": field}))
        };
        let Some(version) = json_str(self.view.protocol_version) else {
            return Err(missing(PROTOCOL_VERSION, "a version string such as \"2026-07-28\""));
        };
        if !self.view.client_capabilities.is_some_and(|c| c.get().starts_with('{')) {
            return Err(missing(CLIENT_CAPABILITIES, "an object, {} when the client has none"));
        }
        match ProtocolVersion::parse(&version) {
            Some(v) if v.era() == Era::PerRequest => Ok(v),
            parsed => {
                let hint = if parsed.is_some() {
                    " (that revision is negotiated with `initialize`, not sent per request)"
                } else {
                    ""
                };
                Err(ErrorObject::new(
                    ErrorCode::UNSUPPORTED_PROTOCOL_VERSION,
                    format!("Unsupported protocol version {version:?}{hint}"),
                )
                .with_data(json!({"supported": ProtocolVersion::SUPPORTED, "requested": version})))
            }
        }
    }

    /// The declared client capabilities (already validated as an object).
    pub(crate) fn client_capabilities(&self) -> ClientCapabilities {
        self.view.client_capabilities.and_then(|raw| serde_json::from_str(raw.get()).ok()).unwrap_or_default()
    }
}

/// The handshake's counter-offer rule: a handshake revision the server
/// knows is echoed, anything else (a per-request revision too: it has no
/// handshake) gets the newest handshake revision.
pub(crate) fn negotiate(requested: &str) -> ProtocolVersion {
    match ProtocolVersion::parse(requested) {
        Some(v) if v.era() == Era::Handshake => v,
        _ => ProtocolVersion::LATEST_HANDSHAKE,
    }
}

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
            tools: self.tools_enabled.then_some(ToolsCapability { list_changed: Some(true) }),
            prompts: self.prompts_enabled.then_some(PromptsCapability { list_changed: Some(true) }),
            resources: self
                .resources_enabled
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
        let offer_tasks =
            self.tasks_offered && version.rules().adds("tasks/result") && params.capabilities.tasks.is_some();
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
            server_info: shape::implementation(&self.info, version),
            instructions: self.instructions.clone(),
        };
        crate::params::to_map(&result)
    }

    /// Answers `server/discover` (2026-07-28).
    pub(crate) fn discover(&self) -> Result<Map<String, Value>, ErrorObject> {
        let result = DiscoverResult {
            // `-32022` errors carry the same list (`validate_per_request`).
            supported_versions: ProtocolVersion::SUPPORTED.iter().map(|v| (*v).to_owned()).collect(),
            capabilities: self.capabilities(ProtocolVersion::LATEST),
            instructions: self.instructions.clone(),
        };
        crate::params::to_map(&result)
    }

    /// [`Core::decorate_per_request`] for a result already serialized as a
    /// JSON object without `_meta`: the fields are spliced in after `{`.
    pub(crate) fn decorate_per_request_raw(
        &self,
        result: Vec<u8>,
        cache: Option<(std::time::Duration, CacheScope)>,
    ) -> Vec<u8> {
        let mut extra = Map::new();
        self.decorate_per_request(&mut extra, cache);
        let extra = serde_json::to_vec(&extra).expect("a map serializes; qed");
        let mut out = Vec::with_capacity(result.len() + extra.len());
        out.extend_from_slice(&extra[..extra.len() - 1]);
        if result.len() > 2 {
            out.push(b',');
            out.extend_from_slice(&result[1..]);
        } else {
            out.push(b'}');
        }
        out
    }

    /// Adds what every 2026-07-28 result carries: `resultType`, the server's
    /// identity in `_meta`, and cache hints on cacheable results.
    pub(crate) fn decorate_per_request(
        &self,
        result: &mut Map<String, Value>,
        cache: Option<(std::time::Duration, CacheScope)>,
    ) {
        self.decorate_as(result, "complete", cache);
    }

    /// Decorates a 2026-07-28 result as `result_type` (`"complete"`,
    /// `"input_required"`, the Tasks extension's `"task"`), with the
    /// server's identity and the cache hints given (never on
    /// `input_required` results, `caching.mdx`).
    pub(crate) fn decorate_as(
        &self,
        result: &mut Map<String, Value>,
        result_type: &'static str,
        cache: Option<(std::time::Duration, CacheScope)>,
    ) {
        result.insert("resultType".into(), Value::String(result_type.into()));
        if let Some((ttl, scope)) = cache {
            let ms = u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX);
            result.insert("ttlMs".into(), Value::from(ms));
            result.insert(
                "cacheScope".into(),
                serde_json::to_value(scope).expect("CacheScope serializes; qed"),
            );
        }
        let meta = result.entry("_meta").or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(meta) = meta {
            meta.insert(switchboard_types::meta::SERVER_INFO.into(), self.per_request_info.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use switchboard_types::head::ParamsHead;

    use super::*;

    #[test]
    fn counter_offers_the_latest_handshake_revision() {
        assert_eq!(negotiate("2025-06-18"), ProtocolVersion::V2025_06_18);
        assert_eq!(negotiate("2024-11-05"), ProtocolVersion::V2024_11_05);
        for other in ["2026-07-28", "2024-10-07", "2026-01-01", "1.0.0", ""] {
            assert_eq!(negotiate(other), ProtocolVersion::V2025_11_25, "{other}");
        }
    }

    #[test]
    fn peeks_meta_without_the_rest() {
        let raw = RawValue::from_string(
            r#"{"name":"x","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","progressToken":"p"}}"#.into(),
        )
        .unwrap();
        let m = RequestMeta { view: ParamsHead::read(Some(&raw)).unwrap().meta };
        assert!(m.is_per_request());
        assert_eq!(m.progress_token(), Some(RequestId::from("p")));
        let raw = RawValue::from_string(r#"{"_meta":5}"#.into()).unwrap();
        assert!(ParamsHead::read(Some(&raw)).unwrap().meta.is_malformed());
    }
}
