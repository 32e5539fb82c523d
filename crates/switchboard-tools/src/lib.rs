//! Tools for `switchboard` that need no Rust from the user: programs and HTTP
//! endpoints declared in the configuration file, and built-in file tools
//! over the served root.
//!
//! The `switchboard` configuration loader embeds [`CommandToolSpec`] (`[[tools.command]]`),
//! [`HttpToolSpec`] (`[[tools.http]]`) and [`FileToolsOptions`]; this crate
//! turns them into [`switchboard_server::Tool`]s with [`command_tool`], [`http_tool`]
//! and [`file_tools`]. Load-time problems (a bad schema, an unknown
//! placeholder, a `cwd` outside the root, a bad URL template or method) are
//! [`ToolsError`]s naming the tool; problems of one call are tool execution
//! errors (`isError: true`) whose text says what to change.
//! [`CommandToolSpec::problems`] and [`HttpToolSpec::problems`] list every
//! load-time problem of a spec at once, each with its place in the tool's
//! table ([`SpecProblem`]), for a checker that reports them all.
//!
//! ```
//! use switchboard_tools::{CommandToolSpec, FileToolsOptions, command_tool, file_tools};
//! use switchboard_tree::{FilesOptions, ServedTree};
//!
//! let root = std::env::temp_dir();
//! let spec: CommandToolSpec = serde_json::from_value(serde_json::json!({
//!     "name": "greet",
//!     "command": ["echo", "hello", "{name}"],
//!     "timeout": "5s",
//!     "input_schema": {"type": "object", "properties": {"name": {"type": "string"}}},
//! }))
//! .unwrap();
//! let tree = ServedTree::new(&root, &FilesOptions::default()).unwrap();
//! let tool = command_tool(&spec, &tree).unwrap();
//! assert_eq!(tool.name(), "greet");
//! let files = file_tools(&tree, &FileToolsOptions::default());
//! assert_eq!(files.len(), 5); // search, read_file and the folder tools; writing is off by default
//! ```
//!
//! # Command argv templates
//!
//! `command` is the argv. The first element is the program, looked up in
//! `PATH`, and must be literal. In the other elements:
//!
//! - an element that is exactly `{name}` is replaced by argument `name`: a
//!   string, number or boolean gives one element, an array one element per
//!   item, and an absent (or `null`) argument drops the element;
//! - an element with `{name}` inside other text interpolates a string,
//!   number or boolean (an array there is refused), and is dropped when the
//!   argument is absent;
//! - `{{` and `}}` are literal braces.
//!
//! Every placeholder must name a property of `input_schema` (checked at
//! load). Arguments that name files (`"format": "path"`, or a name such as
//! `file` or `src_dir`) are resolved through the served tree and passed as
//! absolute paths; one that names an ignored, hidden, `.git` or outside
//! path is refused (see `paths.rs` for the exact rule). Nothing goes through a shell. A substituted value that would
//! start an element with `-` is refused, so option injection such as
//! `--upload-pack=…` fails, unless the spec sets `allow_leading_dash = true`
//! or a literal `--` comes earlier in the template. NUL bytes are refused.
//!
//! # Running a command
//!
//! The environment is cleared, then `PATH` and the `env` allow-list are
//! passed through from `switchboard`'s own environment and `set_env` is applied.
//! stdin is `/dev/null`; the program runs in its own process group, which
//! is killed (SIGKILL) on timeout or when the request is cancelled. At most
//! `max_output` bytes of output are kept (stdout first, then stderr); the
//! rest is counted, and the result ends with a notice giving the total
//! size (or, with `on_large_output = "error"`, is an error saying it). A
//! non-zero exit, a timeout or a kill by a signal make the result
//! `isError: true`; `structuredContent` is
//! `{exitCode, stdout, stderr, truncated, timedOut, totalBytes}`. When the
//! call carries a progress token, output lines become progress
//! notifications (at most 4 a second; progress = lines so far, the message
//! = the last line).
//!
//! # The sandbox
//!
//! [`sandboxed_command_tool`] with a [`CommandSandbox`] runs the program
//! through a launcher (see the `switchboard-sandbox` crate) that applies a
//! Landlock policy first: writes only to the served folder and a private
//! temporary folder (`TMPDIR`, `TMP`, `TEMP`; removed after the call),
//! reads only the folder, the system and the toolchains, no TCP unless the
//! spec says `network = true`. Where Landlock is missing, calls are
//! refused. [`files_run_by`] lists the files a spec runs directly, for the
//! served tree's protected paths: a model that may write files must not
//! be able to rewrite them.
//!
//! # HTTP tools
//!
//! `url` is an RFC 6570 template whose variables must be properties of
//! `input_schema`; the arguments it does not use are sent as a JSON object
//! body when `body = "json"` (and ignored otherwise). Header values may use
//! `${VAR}` from `switchboard`'s environment, read at load (an unset variable is a
//! load error). A JSON object response becomes `structuredContent` (with its
//! text copy); anything else is text. A non-2xx status is `isError: true`
//! with the status and the start of the body; connection failures and
//! timeouts are tool errors saying so. No `outputSchema` is declared. A
//! body over `max_response` gives its first part and a notice with the
//! total size (or an error, with `on_large_output = "error"`).
//! [`HttpCaller`] is that request path on its own, for other kinds of
//! HTTP tools (`switchboard-openapi` sends every operation through it).
//!
//! # File tools
//!
//! What they may read and write is decided by the served tree
//! ([`switchboard_tree::ServedTree`]), the same policy the `file://`
//! resources follow: ignored, hidden, excluded and `.git` entries are
//! never listed, found, read or searched, a glob only narrows, and writes
//! never touch dotfiles, ignore files, `.git`, the configuration in use or
//! the prompt folders. A path that is not served is refused the same way
//! whether or not something is there.
//!
//! - `search` (ripgrep's matching crates): `path:line:column: text`; a long
//!   line is shown as windows around its first matches with `…` markers.
//! - `read_file`: a whole file up to `max_read_bytes`, or a 1-based
//!   inclusive line range (an `end_line` past the end reads to the end, a
//!   `start_line` past it is an error); PNG, JPEG, GIF and WebP (known by
//!   their bytes) as image content up to `max_image_bytes`; several files
//!   with `paths`, each marked with its path and refused on its own.
//! - `list_directory`, `find_files`, `file_info` (on by default, `list`):
//!   a folder's served entries to a depth (mounted roots appear as folders
//!   of `""`), served files by glob, and one entry's kind, size, times,
//!   MIME type, lines and what the tree allows with it. Listings are
//!   bounded and say how many entries they left out.
//! - With `write = true`: `write_file`, `edit_file` (edits in order, all
//!   or nothing, a unified diff, `dry_run`), `create_directory` and
//!   `move_file` (files only; never over an existing file). Writes are
//!   atomic (a temporary file renamed over the target, its permissions
//!   kept).
//! - With `delete = true`: `delete_file` (a file, or an empty folder).

mod argv;
mod command;
mod environment;
mod error;
mod files;
mod http;
mod large;
mod paths;
mod sandboxed;
mod spec;

pub use command::{command_tool, files_run_by, files_run_by_argv, sandboxed_command_tool};
pub use environment::{env_var, parse_env_file, set_env_file_values};
pub use error::{Segment, SpecProblem, ToolsError};
pub use files::file_tools;
pub use http::{
    HttpAnswer, HttpCaller, HttpLimits, OutgoingRequest, header, http_tool, template_value, until_cancelled,
};
pub use large::{LargeOutput, Total, refusal, truncation_notice};
pub use sandboxed::{CommandSandbox, SandboxOptions};
pub use spec::{
    BodyMode, CommandToolSpec, FileToolsOptions, HttpToolSpec, TaskMode, default_http_timeout,
    default_max_response, duration_schema,
};
pub use switchboard_sandbox::{Launcher, Support};
