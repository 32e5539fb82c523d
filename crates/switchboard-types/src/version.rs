//! Protocol revisions.
//!
//! Spec: `docs/specification/<rev>/basic/lifecycle.mdx` §Version Negotiation
//! (legacy) and `docs/specification/2026-07-28/basic/versioning.mdx` (modern).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// One revision of the MCP specification.
///
/// Ordered by date, so `v >= ProtocolVersion::V2025_06_18` reads as "this
/// client knows what 2025-06-18 introduced".
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ProtocolVersion {
    /// 2024-11-05: the first revision (HTTP+SSE, no batching rules).
    V2024_11_05,
    /// 2025-03-26: Streamable HTTP, batching, tool annotations, audio.
    V2025_03_26,
    /// 2025-06-18: structured output, `resource_link`, `title`, no batching.
    V2025_06_18,
    /// 2025-11-25: icons, JSON Schema 2020-12 default, input validation as `isError`.
    V2025_11_25,
    /// 2026-07-28: stateless, per-request `_meta`, `server/discover`.
    V2026_07_28,
}

impl ProtocolVersion {
    /// Every revision this crate models, newest first. Servers return this
    /// list unchanged in `server/discover` and in `-32022` errors.
    pub const ALL: [ProtocolVersion; 5] =
        [Self::V2026_07_28, Self::V2025_11_25, Self::V2025_06_18, Self::V2025_03_26, Self::V2024_11_05];

    /// The newest revision negotiated through `initialize`.
    pub const LATEST_LEGACY: ProtocolVersion = Self::V2025_11_25;

    /// The newest revision overall.
    pub const LATEST: ProtocolVersion = Self::V2026_07_28;

    /// The wire spelling, e.g. `"2025-06-18"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::V2024_11_05 => "2024-11-05",
            Self::V2025_03_26 => "2025-03-26",
            Self::V2025_06_18 => "2025-06-18",
            Self::V2025_11_25 => "2025-11-25",
            Self::V2026_07_28 => "2026-07-28",
        }
    }

    /// Parses the wire spelling; `None` for anything this crate does not model.
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "2024-11-05" => Self::V2024_11_05,
            "2025-03-26" => Self::V2025_03_26,
            "2025-06-18" => Self::V2025_06_18,
            "2025-11-25" => Self::V2025_11_25,
            "2026-07-28" => Self::V2026_07_28,
            _ => return None,
        })
    }

    /// True for revisions that use the `initialize` handshake.
    pub const fn is_legacy(self) -> bool {
        !matches!(self, Self::V2026_07_28)
    }

    /// True for 2025-03-26, the only revision in which JSON-RPC batches are
    /// allowed (`docs/specification/2025-03-26/basic/index.mdx` §Batching).
    pub const fn allows_batches(self) -> bool {
        matches!(self, Self::V2025_03_26)
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
        assert!(ProtocolVersion::LATEST_LEGACY.is_legacy());
        assert!(!ProtocolVersion::LATEST.is_legacy());
        assert!(ProtocolVersion::V2025_03_26.allows_batches());
        assert!(!ProtocolVersion::V2025_06_18.allows_batches());
        assert!("1.0.0".parse::<ProtocolVersion>().is_err());
    }
}
