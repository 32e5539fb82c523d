//! The extensions a server offers (SEP-2133): [`OfferedExtension`], as the
//! builder records them, checked when the server is built.

use serde_json::Value;
use switchboard_types::ProtocolVersion;

/// One extension the server offers (SEP-2133), as recorded by
/// [`ServerBuilder::extension`](crate::ServerBuilder::extension) and
/// checked when the server is built.
///
/// Spec: `seps/2133-extensions.md` §Negotiation;
/// `docs/specification/2026-07-28/basic/versioning.mdx` §Extension Negotiation.
#[derive(Debug, Clone)]
pub(crate) struct OfferedExtension {
    /// `{vendor-prefix}/{extension-name}`.
    pub id: String,
    /// The settings object (`{}` for none).
    pub settings: Value,
    /// The oldest revision whose clients are told; `None`: every revision.
    pub since: Option<ProtocolVersion>,
}

impl OfferedExtension {
    /// Whether clients of `version` are told about this extension.
    pub(crate) fn offered_to(&self, version: ProtocolVersion) -> bool {
        self.since.is_none_or(|first| version >= first)
    }

    /// Checks every offer (identifier syntax, object settings, no
    /// identifier twice), so a bad one fails `build()` instead of reaching
    /// clients.
    pub(crate) fn check_all(offers: &[OfferedExtension]) -> crate::Result<()> {
        let mut seen = std::collections::HashSet::with_capacity(offers.len());
        for offer in offers {
            let invalid = |reason| crate::Error::InvalidExtension { id: offer.id.clone(), reason };
            switchboard_types::extensions::validate_id(&offer.id).map_err(invalid)?;
            if !offer.settings.is_object() {
                return Err(invalid("the settings must be a JSON object (`{}` for none)"));
            }
            if !seen.insert(offer.id.as_str()) {
                return Err(crate::Error::DuplicateExtension(offer.id.clone()));
            }
        }
        Ok(())
    }
}
