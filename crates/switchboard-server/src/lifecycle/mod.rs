//! The two lifecycle models: the `initialize` handshake and 2026-07-28
//! per-request `_meta` with `server/discover`.
//!
//! Era is decided before method
//! (`docs/specification/2026-07-28/basic/versioning.mdx` §Backward
//! Compatibility): a request whose `_meta` carries
//! `io.modelcontextprotocol/protocolVersion`, or any `server/discover`, is
//! served statelessly under 2026-07-28 rules; anything else is
//! handshake-era and needs the connection's `initialize` first.
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

mod capabilities;
mod decorate;
pub(crate) mod listen;
mod meta;
pub(crate) mod methods;

use switchboard_types::{Era, ProtocolVersion};

pub(crate) use meta::RequestMeta;

/// The handshake's counter-offer rule: a handshake revision the server
/// knows is echoed, anything else (a per-request revision too: it has no
/// handshake) gets the newest handshake revision.
pub(crate) fn negotiate(requested: &str) -> ProtocolVersion {
    match ProtocolVersion::parse(requested) {
        Some(v) if v.era() == Era::Handshake => v,
        _ => ProtocolVersion::LATEST_HANDSHAKE,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counter_offers_the_latest_handshake_revision() {
        assert_eq!(negotiate("2025-06-18"), ProtocolVersion::V2025_06_18);
        assert_eq!(negotiate("2024-11-05"), ProtocolVersion::V2024_11_05);
        for other in ["2026-07-28", "2024-10-07", "2026-01-01", "1.0.0", ""] {
            assert_eq!(negotiate(other), ProtocolVersion::V2025_11_25, "{other}");
        }
    }
}
