//! Resources computed on demand: a [`ResourceSource`] lists and reads
//! resources that are never registered one by one.
//!
//! Registering a resource costs a validated entry in the catalog (about a
//! kilobyte with its cached renderings); for a database table, an object
//! store or a generated family of a million URIs that is memory and
//! start-up time spent on items nobody may ever list. A source instead
//! answers "how many are there" and "give me items `a..b`", and reads by
//! URI. `resources/list` walks the registered resources first, then each
//! source in order (`docs/specification/<rev>/server/resources.mdx`,
//! pagination in `server/utilities/pagination.mdx`); cursors stay opaque
//! and signed. A source whose length changes between two pages may repeat
//! or skip items at the boundary, as offset paging does; announce such
//! changes with [`Server::notify_list_changed`](crate::Server::notify_list_changed).

use std::ops::Range;

use futures::future::BoxFuture;
use mcp_types::ResourceContents;

use crate::context::RequestContext;
use crate::handler_error::HandlerError;

/// A read in progress.
pub type SourceRead = BoxFuture<'static, Result<Vec<ResourceContents>, HandlerError>>;

/// A family of resources listed and read on demand.
pub trait ResourceSource: Send + Sync + 'static {
    /// How many resources the source has now.
    fn len(&self) -> usize;

    /// Whether the source has none.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The resources at positions `range` (`range.end <= len()`), metadata only.
    fn list(&self, range: Range<usize>) -> Vec<mcp_types::resources::Resource>;

    /// Reads `uri` if this source serves it; `None` lets the server try
    /// the resource templates next.
    fn read(&self, uri: &str, ctx: RequestContext) -> Option<SourceRead>;
}

impl std::fmt::Debug for dyn ResourceSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ResourceSource({} resources)", self.len())
    }
}

/// Cursor numbers at or above this mark a position inside the sources:
/// the source's index in bits 40..63, the offset in bits 0..40. Catalog
/// registration numbers never get near it.
pub(crate) const SOURCE_PHASE: u64 = 1 << 63;

pub(crate) fn encode_position(index: usize, offset: usize) -> u64 {
    SOURCE_PHASE | ((index as u64) << 40) | (offset as u64 & ((1 << 40) - 1))
}

pub(crate) fn decode_position(seq: u64) -> (usize, usize) {
    (((seq & !SOURCE_PHASE) >> 40) as usize, (seq & ((1 << 40) - 1)) as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_round_trip() {
        for (i, o) in [(0, 0), (3, 12345), (1 << 20, (1 << 40) - 1)] {
            let seq = encode_position(i, o);
            assert!(seq >= SOURCE_PHASE);
            assert_eq!(decode_position(seq), (i, o));
        }
    }
}
