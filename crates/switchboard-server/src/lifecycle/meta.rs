//! A request's `_meta` as the dispatcher reads it: the reserved members
//! (version, client capabilities, progress token, log level, client info)
//! parsed only when asked for, and the 2026-07-28 rules they must meet.

use serde_json::json;
use serde_json::value::RawValue;
use switchboard_types::head::{MetaView, json_str};
use switchboard_types::meta::{CLIENT_CAPABILITIES, PROTOCOL_VERSION};
use switchboard_types::{
    ClientCapabilities, Era, ErrorCode, ErrorObject, Implementation, ProtocolVersion, RequestId,
};

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

#[cfg(test)]
mod tests {
    use serde_json::value::RawValue;
    use switchboard_types::RequestId;
    use switchboard_types::head::ParamsHead;

    use super::*;

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
