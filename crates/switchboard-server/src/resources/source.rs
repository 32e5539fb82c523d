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
//!
//! [`ResourceSource::list`] hands back owned resources: simple, and enough
//! for most sources. A source on a hot path can also implement
//! [`ResourceSource::list_into`], which writes each item into the page as
//! it is produced, so one reused `Resource` can serve a whole page (a
//! hundred items are otherwise a few hundred small allocations, which were
//! half of a computed page's instructions under glibc's allocator).

use std::ops::Range;

use futures::future::BoxFuture;
use switchboard_types::resources::Resource;
use switchboard_types::{ProtocolVersion, ResourceContents};

use crate::context::RequestContext;
use crate::handler_error::HandlerError;
use crate::resources::list_page::PageWriter;

/// A read in progress.
pub type SourceRead = BoxFuture<'static, Result<Vec<ResourceContents>, HandlerError>>;

/// A family of resources listed and read on demand.
pub trait ResourceSource: Send + Sync + 'static {
    /// How many resources the source has now.
    fn len(&self) -> usize;

    /// How many resources the source has, waiting only until it is known
    /// whether there is one at `position`: a source still being filled
    /// (a folder's first scan) may answer as soon as more than `position`
    /// of its items are settled, with that many; the items at positions
    /// below the answer do not move while it is filled. `resources/list`
    /// asks this with the position just past the page it fills, so a
    /// page waits for its own items, not for the whole source. The
    /// default is [`len`](Self::len).
    fn len_past(&self, position: usize) -> usize {
        let _ = position;
        self.len()
    }

    /// Whether the source has none.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The resources at positions `range` (`range.end <= len()`), metadata only.
    fn list(&self, range: Range<usize>) -> Vec<Resource>;

    /// Pushes the resources at positions `range` onto `page`, in order.
    /// Each is written out by [`ResourcePage::push`] before it returns, so
    /// an implementation may reuse one `Resource` for every item. The
    /// default calls [`list`](Self::list).
    fn list_into(&self, range: Range<usize>, page: &mut ResourcePage<'_>) {
        for resource in self.list(range) {
            page.push(&resource);
        }
    }

    /// Reads `uri` if this source serves it; `None` lets the server try
    /// the resource templates next.
    fn read(&self, uri: &str, ctx: RequestContext) -> Option<SourceRead>;
}

impl std::fmt::Debug for dyn ResourceSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ResourceSource({} resources)", self.len())
    }
}

/// The part of a `resources/list` page that one source fills
/// ([`ResourceSource::list_into`]).
pub struct ResourcePage<'a> {
    page: &'a mut PageWriter,
    version: ProtocolVersion,
    room: usize,
}

impl<'a> ResourcePage<'a> {
    /// Room for `room` items of `page`, written for `version`.
    pub(crate) fn new(page: &'a mut PageWriter, version: ProtocolVersion, room: usize) -> Self {
        Self { page, version, room }
    }

    /// Writes `resource` as the page's next item, shaped for the client's
    /// protocol revision. Items past the range the source was asked for
    /// are dropped (with a warning): the cursor after this page counts
    /// exactly that range.
    #[inline]
    pub fn push(&mut self, resource: &Resource) {
        if self.room == 0 {
            tracing::warn!(uri = %resource.uri, "a ResourceSource pushed more items than it was asked for; dropped");
            return;
        }
        self.room -= 1;
        self.page.resource(resource, self.version);
    }

    /// How many more items the page takes from this source.
    pub fn remaining(&self) -> usize {
        self.room
    }
}

impl std::fmt::Debug for ResourcePage<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResourcePage").field("version", &self.version).field("remaining", &self.room).finish()
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
