//! What a protocol revision is called and what it allows, read from its row
//! in [`REVISIONS`]; the revisions themselves are listed in the `revision`
//! module, beside their table.
//!
//! Spec: `docs/specification/<rev>/basic/lifecycle.mdx` §Version Negotiation
//! (handshake revisions) and `docs/specification/2026-07-28/basic/versioning.mdx`
//! (per-request revisions).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

pub use crate::revision::ProtocolVersion;
use crate::revision::{Era, REVISIONS, Revision};

impl ProtocolVersion {
    /// How many revisions there are: the length of [`REVISIONS`], and the
    /// size of anything kept per revision (index it with
    /// [`ProtocolVersion::index`]).
    pub const COUNT: usize = REVISIONS.len();

    /// Every revision this crate models, newest first.
    pub const ALL: [ProtocolVersion; Self::COUNT] = {
        let mut all = [Self::V2024_11_05; Self::COUNT];
        let mut i = 0;
        while i < Self::COUNT {
            all[i] = REVISIONS[Self::COUNT - 1 - i].version;
            i += 1;
        }
        all
    };

    /// The wire names of [`ProtocolVersion::ALL`], newest first. Servers
    /// return this list unchanged in `server/discover` and in `-32022`
    /// errors (and HTTP in its `400` bodies).
    pub const SUPPORTED: [&'static str; Self::COUNT] = {
        let mut names = [""; Self::COUNT];
        let mut i = 0;
        while i < Self::COUNT {
            names[i] = Self::ALL[i].as_str();
            i += 1;
        }
        names
    };

    /// The newest revision negotiated through `initialize`
    /// ([`Era::Handshake`]): the counter-offer to an unknown version.
    pub const LATEST_HANDSHAKE: ProtocolVersion = {
        let mut i = Self::COUNT;
        while matches!(REVISIONS[i - 1].era, Era::PerRequest) {
            i -= 1;
        }
        REVISIONS[i - 1].version
    };

    /// [`ProtocolVersion::LATEST_HANDSHAKE`], by its older name.
    pub const LATEST_LEGACY: ProtocolVersion = Self::LATEST_HANDSHAKE;

    /// The newest revision overall.
    pub const LATEST: ProtocolVersion = REVISIONS[Self::COUNT - 1].version;

    /// The revision an HTTP server assumes for a request that names none
    /// when nothing else tells: the oldest with Streamable HTTP, 2025-03-26
    /// (`docs/specification/2025-06-18/basic/transports.mdx` §Protocol
    /// Version Header).
    pub const HTTP_DEFAULT: ProtocolVersion = {
        let mut i = 0;
        while !REVISIONS[i].http.streamable {
            i += 1;
        }
        REVISIONS[i].version
    };

    /// What this revision allows: its row of [`REVISIONS`].
    pub const fn rules(self) -> &'static Revision {
        &REVISIONS[self.index()]
    }

    /// The position of this revision in [`REVISIONS`] (oldest first), for
    /// arrays of [`ProtocolVersion::COUNT`] elements.
    pub const fn index(self) -> usize {
        self as usize
    }

    /// How clients of this revision state their version: with `initialize`
    /// or on every request.
    pub const fn era(self) -> Era {
        self.rules().era
    }

    /// The wire spelling, e.g. `"2025-06-18"`.
    pub const fn as_str(self) -> &'static str {
        self.rules().name
    }

    /// Parses the wire spelling; `None` for anything this crate does not model.
    pub fn parse(s: &str) -> Option<Self> {
        REVISIONS.iter().find(|r| r.name == s).map(|r| r.version)
    }

    /// True for 2025-03-26, the only revision in which JSON-RPC batches are
    /// allowed (the row's [`Revision::batches`]).
    pub const fn allows_batches(self) -> bool {
        self.rules().batches
    }
}

impl fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Error returned when parsing an unknown revision string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownVersion(pub String);

impl fmt::Display for UnknownVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown MCP protocol version {:?}", self.0)
    }
}

impl std::error::Error for UnknownVersion {}

impl FromStr for ProtocolVersion {
    type Err = UnknownVersion;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s).ok_or_else(|| UnknownVersion(s.to_owned()))
    }
}

impl Serialize for ProtocolVersion {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ProtocolVersion {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        Self::parse(&s).ok_or_else(|| serde::de::Error::custom(UnknownVersion(s.into_owned())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_every_revision() {
        for v in ProtocolVersion::ALL {
            assert_eq!(ProtocolVersion::parse(v.as_str()), Some(v));
            let json = serde_json::to_string(&v).unwrap();
            assert_eq!(serde_json::from_str::<ProtocolVersion>(&json).unwrap(), v);
        }
    }

    #[test]
    fn orders_by_date_and_knows_eras() {
        assert!(ProtocolVersion::V2024_11_05 < ProtocolVersion::V2026_07_28);
        assert_eq!(ProtocolVersion::LATEST_HANDSHAKE.era(), Era::Handshake);
        assert_eq!(ProtocolVersion::LATEST.era(), Era::PerRequest);
        assert!(ProtocolVersion::V2025_03_26.allows_batches());
        assert!(!ProtocolVersion::V2025_06_18.allows_batches());
        assert!("1.0.0".parse::<ProtocolVersion>().is_err());
    }
}
