//! What each protocol revision allows, as data: one [`Revision`] row per
//! [`ProtocolVersion`], in [`REVISIONS`].
//!
//! # Why a table
//!
//! A server that speaks every revision must decide, for each client, which
//! methods exist, which fields and content types may go on the wire, which
//! error code says "resource not found", whether a JSON-RPC batch is
//! accepted, and how the client states its version (a handshake, or `_meta`
//! on every request). Written as date comparisons (`version >= 2025-06-18`,
//! `!version.is_legacy()`) those decisions were spread over the shaping,
//! routing and transport code of several crates. A new revision then meant
//! finding and re-reading every comparison, and a comparison that was not
//! found gave the new revision the rules of an old one without any error.
//!
//! Here each decision is a named field of a row. The code that shapes
//! output, routes methods, picks the not-found code, checks HTTP requests and
//! sizes its per-revision caches reads the field
//! (`version.rules().content.audio`, `version.rules().removed_methods`,
//! `version.era()`, [`ProtocolVersion::COUNT`]). The rules of a revision are
//! all in its row, next to the link to its changelog, so a reviewer can
//! check a row against the changelog.
//!
//! Every field states the revision as a whole. It is not a difference from
//! the row before. For example, 2026-07-28's `removed_methods` lists every
//! method of 2024-11-05 that 2026-07-28 does not have. A later revision
//! lists those again, plus any it removes itself. So a row can be read
//! without the rows before it.
//!
//! # Adding a revision
//!
//! 1. Add a `ProtocolVersion` variant (in date order) and its row at the end
//!    of [`REVISIONS`], with a changelog link. Then fill in each field from
//!    the changelog.
//! 2. Add its golden fixtures under `tests/fixtures/<revision>/` and the
//!    server's golden tests.
//!
//! The tests of this module fail for a variant without a row, for rows out
//! of order, for a row without a fixtures directory, and for a hand-written
//! list of supported versions anywhere in the workspace's sources. The lists
//! the servers send (`server/discover`, `-32022` errors, HTTP `400` bodies)
//! are [`ProtocolVersion::SUPPORTED`], built from this table.
//!
//! Where a row cites a file, the path is in the specification repository
//! (`github.com/modelcontextprotocol/modelcontextprotocol`).

use crate::ErrorCode;

/// One revision of the MCP specification.
///
/// Ordered by date. Decide what a client gets from the revision's row
/// ([`ProtocolVersion::rules`]), not by comparing dates: a comparison gives
/// a new revision the rules of an old one without any error. The order is
/// for rules that are about dates themselves, such as "offered from
/// revision X on".
///
/// A variant's discriminant is its row's index in [`REVISIONS`].
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

/// How a client tells the server which revision it speaks and what it can
/// do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Era {
    /// An `initialize` request and a `notifications/initialized`
    /// notification at the start of a connection (stdio) or session (HTTP).
    /// The negotiated version and capabilities hold until it ends. The server
    /// reaches the client with JSON-RPC requests of its own (sampling,
    /// roots, elicitation). Spec: `docs/specification/<rev>/basic/lifecycle.mdx`.
    Handshake,
    /// No handshake. Every request carries the version, the client's
    /// capabilities and its info in `params._meta`. The server asks the
    /// client for input only with an `InputRequiredResult`. Spec:
    /// `docs/specification/2026-07-28/basic/versioning.mdx`.
    PerRequest,
}

/// The roots an `outputSchema` (and so a `structuredContent` value) may
/// have.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OutputRoots {
    /// Only `"type": "object"`. A tool whose output schema has another root
    /// is listed without `outputSchema`, and its results go without
    /// `structuredContent`. The JSON text copy in `content` stays.
    Object,
    /// Any JSON value.
    Any,
}

/// The HTTP transport of a revision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct HttpRules {
    /// Streamable HTTP, one endpoint (2025-03-26 on). The revisions before it
    /// have the two-endpoint HTTP+SSE transport only.
    pub streamable: bool,
    /// SSE polling: a response stream opens with a priming event (an event
    /// id and no data), so the client can resume it (2025-11-25's
    /// `basic/transports.mdx` §Resumability and Redelivery). 2026-07-28 has
    /// no resumable streams, so this is false there.
    pub sse_priming: bool,
}

/// The content block types a revision has beyond `text`, `image` and
/// embedded `resource`, which every revision has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ContentTypes {
    /// `audio` (2025-03-26 on). Before that revision it is replaced by a
    /// text note.
    pub audio: bool,
    /// `resource_link` (2025-06-18 on). Before that revision it is replaced
    /// by a text block with the link.
    pub resource_link: bool,
}

/// The optional members of definitions and results that a revision has.
/// A member the client's revision lacks is not sent, so a client with a
/// strict parser for its own schema never sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Fields {
    /// `Tool.annotations` (2025-03-26 on).
    pub tool_annotations: bool,
    /// `title` on tools, resources, templates, prompts, prompt arguments
    /// and `Implementation` (2025-06-18 on).
    pub title: bool,
    /// `_meta` on definitions, content blocks, resource contents and
    /// `CallToolResult` (2025-06-18 on).
    pub meta: bool,
    /// `Annotations.lastModified` (2025-06-18 on).
    pub last_modified: bool,
    /// `Tool.outputSchema` and `CallToolResult.structuredContent`, and the
    /// roots they may have: none before 2025-06-18, object roots only in
    /// 2025-06-18 and 2025-11-25, any JSON value from 2026-07-28.
    pub structured_output: Option<OutputRoots>,
    /// `icons` on definitions, resource links and `Implementation`
    /// (2025-11-25 on).
    pub icons: bool,
    /// `Implementation.description` and `Implementation.websiteUrl`
    /// (2025-11-25 on).
    pub implementation_details: bool,
    /// `Tool.execution` (`taskSupport` for the experimental tasks of
    /// 2025-11-25). Only 2025-11-25 has it: 2026-07-28 moved tasks into an
    /// extension and removed the member.
    pub tool_execution: bool,
    /// `message` on progress notifications (2025-03-26 on).
    pub progress_message: bool,
}

/// The optional members of the server's capabilities object that a
/// revision has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CapabilityMembers {
    /// `completions` (2025-03-26 on, `schema/2025-03-26/schema.ts`
    /// `ServerCapabilities`). 2024-11-05 has `completion/complete` but no
    /// capability for it.
    pub completions: bool,
    /// `extensions` (SEP-2133), in every revision. It is a named member only
    /// from 2026-07-28 (`schema/2026-07-28/schema.ts`; sent in
    /// `server/discover`, `docs/specification/2026-07-28/basic/versioning.mdx`
    /// §Extension Negotiation). But SEP-2133 (`seps/2133-extensions.md`
    /// §Negotiation) negotiates extensions in `initialize`: its example
    /// speaks 2025-06-18, and MCP Apps
    /// (`ext-apps/specification/2026-01-26/apps.mdx` §Capability Negotiation)
    /// speaks 2024-11-05. Every handshake-era schema says the capabilities
    /// object is "not a closed set: any server can define its own,
    /// additional capabilities", so the member breaks no older client's
    /// schema.
    pub extensions: bool,
}

/// The rules of one protocol revision. See the [module docs](self).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Revision {
    /// The revision. [`REVISIONS`] is ordered by it.
    pub version: ProtocolVersion,
    /// The wire spelling, e.g. `"2025-06-18"`.
    pub name: &'static str,
    /// The revision's changelog in the specification repository, which
    /// lists what changed from the revision before. `None` for 2024-11-05,
    /// the first revision.
    pub changelog: Option<&'static str>,
    /// How a client of this revision states its version and capabilities.
    pub era: Era,
    /// JSON-RPC batches (arrays of messages) are accepted. Only 2025-03-26
    /// allows them (`docs/specification/2025-03-26/basic/index.mdx`
    /// §Batching). 2025-06-18 removed them.
    pub batches: bool,
    /// The HTTP transport.
    pub http: HttpRules,
    /// Methods of 2024-11-05 (the first revision) that this revision does
    /// not have. A request for one is `-32601` (HTTP `404`).
    pub removed_methods: &'static [&'static str],
    /// Requests a server answers in this revision that 2024-11-05 did not
    /// have. 2025-11-25 lists its experimental tasks
    /// (`docs/specification/2025-11-25/basic/utilities/tasks.mdx`); the
    /// 2026-07-28 `tasks/*` belong to the Tasks extension, not the revision.
    pub added_methods: &'static [&'static str],
    /// The error code of "resource not found" on `resources/read`. It is
    /// `-32002` before 2026-07-28 (a SHOULD), and `-32602` from 2026-07-28
    /// (a MUST, `docs/specification/2026-07-28/server/resources.mdx` §Error
    /// Handling).
    pub resource_not_found: ErrorCode,
    /// Content block types.
    pub content: ContentTypes,
    /// Optional members of definitions and results.
    pub fields: Fields,
    /// Optional members of the server's capabilities.
    pub capabilities: CapabilityMembers,
}

impl Revision {
    /// True if this revision removed `method`, a method of 2024-11-05.
    pub fn removes(&self, method: &str) -> bool {
        self.removed_methods.contains(&method)
    }

    /// True if this revision added `method`, a request 2024-11-05 did not
    /// have.
    pub fn adds(&self, method: &str) -> bool {
        self.added_methods.contains(&method)
    }
}

/// The methods 2026-07-28 removed (its changelog; conformance
/// `stateless.ts` §Methods & Routing checks exactly these five).
const REMOVED_IN_2026_07_28: &[&str] =
    &["initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe"];

/// Every revision, oldest first; row `i` is the variant with discriminant
/// `i`, so [`ProtocolVersion::rules`] is an index.
pub static REVISIONS: [Revision; 5] = [
    Revision {
        version: ProtocolVersion::V2024_11_05,
        name: "2024-11-05",
        changelog: None,
        era: Era::Handshake,
        batches: false,
        http: HttpRules { streamable: false, sse_priming: false },
        removed_methods: &[],
        added_methods: &[],
        resource_not_found: ErrorCode::RESOURCE_NOT_FOUND,
        content: ContentTypes { audio: false, resource_link: false },
        fields: Fields {
            tool_annotations: false,
            title: false,
            meta: false,
            last_modified: false,
            structured_output: None,
            icons: false,
            implementation_details: false,
            tool_execution: false,
            progress_message: false,
        },
        capabilities: CapabilityMembers { completions: false, extensions: true },
    },
    Revision {
        version: ProtocolVersion::V2025_03_26,
        name: "2025-03-26",
        changelog: Some("docs/specification/2025-03-26/changelog.mdx"),
        era: Era::Handshake,
        batches: true,
        http: HttpRules { streamable: true, sse_priming: false },
        removed_methods: &[],
        added_methods: &[],
        resource_not_found: ErrorCode::RESOURCE_NOT_FOUND,
        content: ContentTypes { audio: true, resource_link: false },
        fields: Fields {
            tool_annotations: true,
            title: false,
            meta: false,
            last_modified: false,
            structured_output: None,
            icons: false,
            implementation_details: false,
            tool_execution: false,
            progress_message: true,
        },
        capabilities: CapabilityMembers { completions: true, extensions: true },
    },
    Revision {
        version: ProtocolVersion::V2025_06_18,
        name: "2025-06-18",
        changelog: Some("docs/specification/2025-06-18/changelog.mdx"),
        era: Era::Handshake,
        batches: false,
        http: HttpRules { streamable: true, sse_priming: false },
        removed_methods: &[],
        added_methods: &[],
        resource_not_found: ErrorCode::RESOURCE_NOT_FOUND,
        content: ContentTypes { audio: true, resource_link: true },
        fields: Fields {
            tool_annotations: true,
            title: true,
            meta: true,
            last_modified: true,
            structured_output: Some(OutputRoots::Object),
            icons: false,
            implementation_details: false,
            tool_execution: false,
            progress_message: true,
        },
        capabilities: CapabilityMembers { completions: true, extensions: true },
    },
    Revision {
        version: ProtocolVersion::V2025_11_25,
        name: "2025-11-25",
        changelog: Some("docs/specification/2025-11-25/changelog.mdx"),
        era: Era::Handshake,
        batches: false,
        http: HttpRules { streamable: true, sse_priming: true },
        removed_methods: &[],
        added_methods: &["tasks/get", "tasks/result", "tasks/list", "tasks/cancel"],
        resource_not_found: ErrorCode::RESOURCE_NOT_FOUND,
        content: ContentTypes { audio: true, resource_link: true },
        fields: Fields {
            tool_annotations: true,
            title: true,
            meta: true,
            last_modified: true,
            structured_output: Some(OutputRoots::Object),
            icons: true,
            implementation_details: true,
            tool_execution: true,
            progress_message: true,
        },
        capabilities: CapabilityMembers { completions: true, extensions: true },
    },
    Revision {
        version: ProtocolVersion::V2026_07_28,
        name: "2026-07-28",
        changelog: Some("docs/specification/2026-07-28/changelog.mdx"),
        era: Era::PerRequest,
        batches: false,
        http: HttpRules { streamable: true, sse_priming: false },
        removed_methods: REMOVED_IN_2026_07_28,
        added_methods: &["server/discover", "subscriptions/listen"],
        resource_not_found: ErrorCode::INVALID_PARAMS,
        content: ContentTypes { audio: true, resource_link: true },
        fields: Fields {
            tool_annotations: true,
            title: true,
            meta: true,
            last_modified: true,
            structured_output: Some(OutputRoots::Any),
            icons: true,
            implementation_details: true,
            tool_execution: false,
            progress_message: true,
        },
        capabilities: CapabilityMembers { completions: true, extensions: true },
    },
];

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use super::*;

    /// Every variant, listed by hand. The `match` is exhaustive, so a new
    /// variant does not compile until it is listed here too, and then
    /// `every_variant_has_its_row_in_order` fails until its row exists.
    fn listed(v: ProtocolVersion) -> usize {
        match v {
            ProtocolVersion::V2024_11_05 => 0,
            ProtocolVersion::V2025_03_26 => 1,
            ProtocolVersion::V2025_06_18 => 2,
            ProtocolVersion::V2025_11_25 => 3,
            ProtocolVersion::V2026_07_28 => 4,
        }
    }

    const VARIANTS: [ProtocolVersion; 5] = [
        ProtocolVersion::V2024_11_05,
        ProtocolVersion::V2025_03_26,
        ProtocolVersion::V2025_06_18,
        ProtocolVersion::V2025_11_25,
        ProtocolVersion::V2026_07_28,
    ];

    #[test]
    fn every_variant_has_its_row_in_order() {
        for (i, v) in VARIANTS.into_iter().enumerate() {
            assert_eq!(listed(v), i, "VARIANTS lists {v:?} out of order");
        }
        assert_eq!(REVISIONS.len(), VARIANTS.len(), "one row per ProtocolVersion variant");
        for (i, row) in REVISIONS.iter().enumerate() {
            assert_eq!(row.version, VARIANTS[i], "row {i} is out of order");
            assert_eq!(row.version.index(), i);
            assert!(std::ptr::eq(row.version.rules(), row));
            // The variant's name spells its date: `V2025_06_18` is "2025-06-18".
            let spelled = format!("{:?}", row.version).trim_start_matches('V').replace('_', "-");
            assert_eq!(row.name, spelled, "row {i}'s wire name");
        }
        assert!(REVISIONS.windows(2).all(|w| w[0].name < w[1].name), "rows are in date order");
    }

    #[test]
    fn every_row_after_the_first_links_its_changelog() {
        assert_eq!(REVISIONS[0].changelog, None);
        for row in &REVISIONS[1..] {
            assert_eq!(
                row.changelog,
                Some(format!("docs/specification/{}/changelog.mdx", row.name).as_str())
            );
        }
    }

    #[test]
    fn the_lists_and_constants_come_from_the_table() {
        let newest_first: Vec<ProtocolVersion> = REVISIONS.iter().rev().map(|r| r.version).collect();
        assert_eq!(ProtocolVersion::ALL.to_vec(), newest_first);
        let names: Vec<&str> = REVISIONS.iter().rev().map(|r| r.name).collect();
        assert_eq!(ProtocolVersion::SUPPORTED.to_vec(), names);
        assert_eq!(ProtocolVersion::COUNT, REVISIONS.len());
        assert_eq!(ProtocolVersion::LATEST, REVISIONS[REVISIONS.len() - 1].version);
        let handshake = REVISIONS.iter().rev().find(|r| r.era == Era::Handshake).unwrap();
        assert_eq!(ProtocolVersion::LATEST_HANDSHAKE, handshake.version);
        let streamable = REVISIONS.iter().find(|r| r.http.streamable).unwrap();
        assert_eq!(ProtocolVersion::HTTP_DEFAULT, streamable.version);
        for row in &REVISIONS {
            assert_eq!(ProtocolVersion::parse(row.name), Some(row.version));
            assert_eq!(row.version.as_str(), row.name);
            assert_eq!(row.version.era(), row.era);
            assert_eq!(row.version.allows_batches(), row.batches);
        }
    }

    /// The table read one field at a time, each column checked against
    /// the changelogs.
    #[test]
    fn rows_say_what_each_revision_changed() {
        let column = |f: fn(&Revision) -> bool| REVISIONS.iter().map(f).collect::<Vec<_>>();
        let (f, t) = (false, true);
        assert_eq!(column(|r| r.era == Era::PerRequest), [f, f, f, f, t]);
        assert_eq!(column(|r| r.batches), [f, t, f, f, f]);
        assert_eq!(column(|r| r.http.streamable), [f, t, t, t, t]);
        assert_eq!(column(|r| r.http.sse_priming), [f, f, f, t, f]);
        assert_eq!(column(|r| r.content.audio), [f, t, t, t, t]);
        assert_eq!(column(|r| r.content.resource_link), [f, f, t, t, t]);
        assert_eq!(column(|r| r.fields.tool_annotations), [f, t, t, t, t]);
        assert_eq!(column(|r| r.fields.progress_message), [f, t, t, t, t]);
        assert_eq!(column(|r| r.capabilities.completions), [f, t, t, t, t]);
        assert_eq!(column(|r| r.capabilities.extensions), [t, t, t, t, t]);
        for field in [
            |r: &Revision| r.fields.title,
            |r: &Revision| r.fields.meta,
            |r: &Revision| r.fields.last_modified,
            |r: &Revision| r.fields.structured_output.is_some(),
        ] {
            assert_eq!(column(field), [f, f, t, t, t]);
        }
        assert_eq!(column(|r| r.fields.icons), [f, f, f, t, t]);
        assert_eq!(column(|r| r.fields.implementation_details), [f, f, f, t, t]);
        assert_eq!(column(|r| r.fields.tool_execution), [f, f, f, t, f]);
        assert_eq!(column(|r| r.fields.structured_output == Some(OutputRoots::Any)), [f, f, f, f, t]);
        assert_eq!(column(|r| r.resource_not_found == ErrorCode::INVALID_PARAMS), [f, f, f, f, t]);
        assert_eq!(column(|r| r.removes("ping")), [f, f, f, f, t]);
        assert_eq!(column(|r| r.adds("server/discover")), [f, f, f, f, t]);
        assert_eq!(column(|r| r.adds("tasks/result")), [f, f, f, t, f]);
        for row in &REVISIONS {
            // A handshake revision has the handshake; a per-request one does not.
            assert_eq!(row.removes("initialize"), row.era == Era::PerRequest, "{}", row.name);
            assert!(row.removed_methods.iter().all(|m| !row.adds(m)));
        }
    }

    fn workspace() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
    }

    #[test]
    fn every_row_has_golden_fixtures() {
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
        for row in &REVISIONS {
            assert!(fixtures.join(row.name).is_dir(), "tests/fixtures/{} is missing", row.name);
        }
        for entry in std::fs::read_dir(&fixtures).unwrap() {
            let name = entry.unwrap().file_name().into_string().unwrap();
            let dated = name.len() == 10 && name.starts_with("20");
            assert!(
                !dated || ProtocolVersion::parse(&name).is_some(),
                "fixtures for {name}, which has no row"
            );
        }
    }

    fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                sources(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }

    /// No crate of the workspace writes its own list of supported
    /// versions: a hand-written list would miss the next row. A list is two
    /// revisions next to each other, newest first, as string literals, or
    /// the wire names collected from `ProtocolVersion::ALL` (use
    /// `ProtocolVersion::SUPPORTED`). Only `src/` is read: tests may name
    /// the revisions they exercise.
    #[test]
    fn supported_version_lists_everywhere_come_from_the_table() {
        let root = workspace();
        let mut files = Vec::new();
        for krate in std::fs::read_dir(root.join("crates")).unwrap().flatten() {
            sources(&krate.path().join("src"), &mut files);
        }
        assert!(files.len() > 20, "the workspace's sources were found");
        let pairs: Vec<String> =
            REVISIONS.windows(2).map(|w| format!("\"{}\",\"{}\"", w[1].name, w[0].name)).collect();
        let mut found = Vec::new();
        for file in files {
            if file.ends_with("switchboard-types/src/revision.rs") {
                continue;
            }
            let text: String = std::fs::read_to_string(&file)
                .unwrap_or_default()
                .chars()
                .filter(|c| !c.is_whitespace())
                .collect();
            let collected = text.contains("ALL.iter().map(|v|v.as_str())");
            if collected || pairs.iter().any(|p| text.contains(p.as_str())) {
                found.push(file.strip_prefix(&root).unwrap_or(&file).display().to_string());
            }
        }
        assert!(found.is_empty(), "write ProtocolVersion::SUPPORTED instead of a list in {found:?}");
    }
}
