//! `switchboard schema`: the JSON Schema of `switchboard.toml`, for editors.

use crate::output::print;

/// `switchboard schema`: prints the JSON Schema of `switchboard.toml`
/// (derived from the types the parser fills). Editors that read a
/// `#:schema ./switchboard.schema.json` first line (taplo, Even Better
/// TOML) then complete keys and flag mistakes as you type.
pub(crate) fn run() -> anyhow::Result<()> {
    print(&format!("{:#}\n", switchboard_config::json_schema()))
}
