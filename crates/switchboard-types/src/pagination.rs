//! Cursor-based pagination.
//!
//! Spec: `docs/specification/<rev>/server/utilities/pagination.mdx`. Cursors
//! are opaque; in 2026-07-28 an empty string is a valid cursor, so the end of
//! a list is an absent `nextCursor`, never `""`.

use serde::{Deserialize, Serialize};

use crate::meta::Meta;

/// Params of every `*/list` request.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PaginatedParams {
    /// Where to continue; absent for the first page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}
