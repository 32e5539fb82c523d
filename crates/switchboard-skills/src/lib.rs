//! A folder of [Agent Skills](https://agentskills.io/specification) served
//! over MCP through the skills extension, `io.modelcontextprotocol/skills`.
//!
//! A skill is a directory with a `SKILL.md` (YAML front matter with at
//! least `name` and `description`, then instructions) and any supporting
//! files. Hosts load skills into the model's context on demand; serving
//! them from the MCP server that also serves the tools they describe ships
//! both together. This crate turns a `skills/` folder into exactly what the
//! extension defines, and nothing that the folder's access policy hides:
//!
//! - **Resources** under `skill://<skill-path>/<file-path>`: every file of
//!   every skill, listed by `resources/list` and read by `resources/read`.
//!   A `SKILL.md` is `text/markdown` with the skill's `name` and
//!   `description` as its resource metadata.
//! - **`skills/list`** (paginated, an entry never split across pages) and
//!   **`skills/get`** (one entry by its `SKILL.md` URI; `-32602` for a URI
//!   that is not a served skill): each entry is the skill's `uri`, its front
//!   matter verbatim as JSON, and `resources`, every file once as `{uri,
//!   digest, size}` with `digest` = `sha256:{64 lowercase hex}` of its bytes.
//!   From 2026-07-28 both results carry the list cache hints (`ttlMs`,
//!   `cacheScope`).
//! - **`resources/directory/read`** (advertised as `directoryRead: true`):
//!   the direct children of a skill's directory or of any folder inside it,
//!   files with their resource metadata and folders as `inode/directory`
//!   resources; `-32602` for anything else.
//!
//! Why files go through [`ServedTree`]: a skills folder sits inside a
//! project, next to `.env` files and ignored build output. A skill file is
//! served only if the folder's one access policy serves it as a `file://`
//! resource too (`.gitignore`d, hidden and excluded files never; files above
//! `max_file_size` are left out of skills), and every read asks the policy
//! again at that moment. A file the policy hides is absent from the listing,
//! the skill entries and directory reads, and reads exactly like a file that
//! does not exist.
//!
//! Why a [`SkillSet`] is loaded whole and swapped whole ([`Skills`]): the
//! digests in `skills/list` and `skills/get`, the resource list and the
//! directory reads must describe the same files; a reload builds the next
//! set off to the side, then swaps it in and tells clients what changed
//! (`notifications/resources/list_changed` when files came or went,
//! `notifications/resources/updated` for each file whose content changed).
//! The extension defines no notification of its own.
//!
//! What is a problem (a [`SkillsError`] placed at the file, line and column
//! it is about): a `SKILL.md` without front matter, without a `name` that
//! equals its folder's name and follows the naming rules (1 to 64 lowercase
//! letters, digits and single hyphens inside), or without a `description`;
//! a `SKILL.md` directly in the skills folder; a folder name that is not a
//! plain URI segment; front matter `metadata` keys under the reserved
//! `io.modelcontextprotocol/` prefix; a skill of more than 512 files or
//! 16 MiB. A skill with a problem is left out; the rest load
//! ([`SkillSet::load`] returns both, and the caller decides whether a
//! problem stops it).
//!
//! # Which draft
//!
//! SEP-2640 "Skills Extension" (Extensions Track, draft, PR
//! modelcontextprotocol/modelcontextprotocol#2640,
//! `seps/2640-skills-extension.md`): the `skills/list` + `skills/get` design
//! with `resources/directory/read` (SEP commit 2e04c48d, 2026-06-09), as
//! pinned by the official conformance suite 0.2.0-alpha.12 (scenarios
//! `sep-2640-skills-enumeration`, `-manifest` and `-directory`). Where the
//! suite checks what the draft text we read (spec commit 01b12e05) does not
//! say yet, the suite wins: every `resources` entry carries `size`, the
//! 512-file and 16 MiB limits, and `skills/get` results carry the cache
//! hints on 2026-07-28. Nested skills are served (an enclosing skill lists
//! their files too); archives and `"resources": "dynamic"` are not produced.

mod frontmatter;
mod options;
mod serve;
mod set;

use std::path::PathBuf;

pub use options::SkillsOptions;
pub use serve::{Changes, Skills};
pub use set::{SkillInfo, SkillSet};
pub use switchboard_files::ServedTree;

/// The extension's identifier (`capabilities.extensions`).
pub const EXTENSION_ID: &str = "io.modelcontextprotocol/skills";

/// The URI scheme of skill files.
pub const SCHEME: &str = "skill";

/// The MIME type of a directory resource.
pub const DIRECTORY_MIME: &str = "inode/directory";

/// What goes wrong with a skills folder or one of its skills.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SkillsError {
    /// The skills folder itself cannot be served.
    #[error("the skills folder {}: {reason}", path.display())]
    Folder {
        /// The folder as given.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// A skill is left out: what is wrong, at its place.
    #[error("{}:{line}:{column}: {message}", path.display())]
    Skill {
        /// The file (a `SKILL.md`, or a file of the skill).
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column (characters).
        column: usize,
        /// What is wrong, and how to fix it.
        message: String,
    },
    /// The server refused a registration.
    #[error(transparent)]
    Server(#[from] switchboard_server::Error),
}

impl SkillsError {
    pub(crate) fn skill(
        path: impl Into<PathBuf>,
        line: usize,
        column: usize,
        message: impl Into<String>,
    ) -> Self {
        SkillsError::Skill { path: path.into(), line, column, message: message.into() }
    }
}
