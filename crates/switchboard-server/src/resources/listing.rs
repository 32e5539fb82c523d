//! One page of a list method (`tools/list`, `prompts/list`,
//! `resources/list`, `resources/templates/list`), written straight from
//! each item's cached JSON. The lists of three areas page the same way, so
//! the pager is one generic function over a [`Listed`] item; each area says
//! how its entries are listed with `listed!`.

use arc_swap::ArcSwap;
use switchboard_types::ErrorObject;
use switchboard_types::ProtocolVersion;
use switchboard_types::pagination::PaginatedParams;

use crate::catalog::{Catalog, CursorCodec};
use crate::context::RequestContext;
use crate::output::Output;
use crate::resources::list_page::PageWriter;
use crate::session::caller::permits;
use crate::session::events::ListKind;
use crate::shared::Shared;

/// What paging reads of the shared part: the cursor codec and the options
/// (the page size).
#[derive(Clone, Copy)]
pub(crate) struct Paging<'a> {
    pub cursors: &'a ArcSwap<CursorCodec>,
    pub options: &'a crate::options::ServerOptions,
}

impl<'a> From<&'a Shared> for Paging<'a> {
    fn from(shared: &'a Shared) -> Self {
        Paging { cursors: &shared.cursors, options: &shared.options }
    }
}

/// An item of a list method's catalog: who may see it, and its JSON as
/// listed, cached per revision.
pub(crate) trait Listed {
    /// Its list's cursor kind.
    const KIND: ListKind;
    /// The key of its list result's array (`"tools"`).
    const KEY: &'static str;
    /// The scopes a caller needs to see it.
    fn scopes(&self) -> &[String];
    /// Its cached JSON for `version`.
    fn listed(&self, version: ProtocolVersion) -> &str;
}

/// One page of a list method: pages the catalog after the cursor, keeping
/// what the caller may see, and writes the result straight from each
/// item's cached JSON for the request's revision (no per-request
/// rendering or `Value` copies).
pub(crate) fn list<'a, T: Listed>(
    paging: impl Into<Paging<'a>>,
    ctx: &RequestContext,
    catalog: &Catalog<T>,
    params: PaginatedParams,
) -> Result<Output, ErrorObject> {
    let paging = paging.into();
    let version = ctx.protocol_version();
    let set = catalog.load();
    let (page, next) = set.page_of(
        params.cursor.as_deref(),
        paging.options.page_size,
        &paging.cursors.load(),
        T::KIND,
        |e| permits(ctx.principal(), e.scopes()),
    )?;
    let bytes = page.iter().map(|e| e.value.listed(version).len() + 1).sum();
    let mut out = PageWriter::new(T::KEY, bytes);
    for entry in &page {
        out.item(entry.value.listed(version).as_bytes());
    }
    Ok(out.finish(next))
}

/// `Entry: Kind in "key";`, one [`Listed`] each: every catalog entry
/// keeps its scopes and its cached JSON under the same names. Each area
/// invokes it for its own entries.
macro_rules! listed {
    ($($entry:ty: $kind:ident in $key:literal;)*) => {
        $(impl $crate::resources::listing::Listed for $entry {
            const KIND: $crate::session::events::ListKind = $crate::session::events::ListKind::$kind;
            const KEY: &'static str = $key;
            fn scopes(&self) -> &[String] {
                &self.scopes
            }
            fn listed(&self, version: ::switchboard_types::ProtocolVersion) -> &str {
                self.rendered(version)
            }
        })*
    };
}

pub(crate) use listed;
