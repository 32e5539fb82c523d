//! `switchboard init [DIR]`: a commented starter `switchboard.toml`.
//!
//! As written, the file does what switchboard does with no file at all (the
//! embedded default); every other section and key is there, commented
//! out, with its default and what it does.

use std::io::Write as _;
use std::path::Path;

use anyhow::Context as _;

use crate::exit;

/// The starter file.
pub(crate) const TEMPLATE: &str = include_str!("init.toml");

/// Writes `dir/switchboard.toml`; an existing one is replaced only with `force`.
pub(crate) fn run(dir: &Path, force: bool) -> anyhow::Result<()> {
    if !dir.is_dir() {
        return Err(exit::io(anyhow::anyhow!("{} is not a folder", dir.display())));
    }
    let path = dir.join(switchboard_config::FILE_NAME);
    let mut options = std::fs::OpenOptions::new();
    options.write(true);
    if force {
        options.create(true).truncate(true);
    } else {
        // Created only if absent, in one step: nothing is ever overwritten.
        options.create_new(true);
    }
    let mut file = match options.open(&path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            return Err(exit::io(anyhow::anyhow!(
                "{} already exists; `switchboard init --force` replaces it",
                path.display()
            )));
        }
        Err(e) => {
            return Err(exit::io(anyhow::Error::new(e).context(format!("creating {}", path.display()))));
        }
    };
    file.write_all(TEMPLATE.as_bytes())
        .and_then(|()| file.flush())
        .with_context(|| format!("writing {}", path.display()))
        .map_err(exit::io)?;
    let shown = dir.display();
    crate::output::print(&format!(
        "wrote {}\n  switchboard check {shown}    validate it\n  switchboard list {shown}     what it serves\n  \
         switchboard serve {shown}    serve it\n",
        path.display()
    ))
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use switchboard_config::Config;

    use super::TEMPLATE;

    /// As written, the starter file serves what no file at all serves.
    #[test]
    fn the_template_behaves_like_the_embedded_default() {
        let dir = Path::new("/tmp");
        let init =
            Config::parse(TEMPLATE, Some(Path::new("switchboard.toml")), dir).expect("the template parses");
        let default = Config::parse(switchboard_config::DEFAULT, None, dir).expect("the default parses");
        assert_eq!(init.server, default.server);
        assert_eq!(init.files, default.files);
        assert_eq!(init.git, default.git);
        assert_eq!(init.prompts, default.prompts);
        assert_eq!(init.limits, default.limits);
        assert_eq!(init.http, default.http);
        let (a, b) = (&init.tools, &default.tools);
        assert_eq!(
            (a.builtin.search, a.builtin.read, a.builtin.write, a.builtin.max_read_bytes),
            (b.builtin.search, b.builtin.read, b.builtin.write, b.builtin.max_read_bytes)
        );
        assert!(a.command.is_empty() && a.http.is_empty());
    }

    /// Every commented-out key is real: uncommenting the sections that can
    /// stand together still parses (the one alternative, jwks_file, aside).
    #[test]
    fn the_commented_keys_parse_when_uncommented() {
        let uncommented: String = TEMPLATE
            .lines()
            .map(|line| {
                let body = line.strip_prefix("# ").unwrap_or(line);
                // Keys and table headers only; prose stays commented.
                let is_toml = body.starts_with('[')
                    || body.split_once(" = ").is_some_and(|(key, _)| {
                        !key.is_empty()
                            && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
                    });
                if line.starts_with("# ") && is_toml { body.to_owned() } else { line.to_owned() }
            })
            .collect::<Vec<_>>()
            .join("\n");
        // Keys that appear both commented and set (watch, builtin) would be
        // duplicates: drop the set lines the uncommented ones repeat.
        let mut seen = std::collections::HashSet::new();
        let mut table = String::new();
        let mut deduplicated = Vec::new();
        for line in uncommented.lines() {
            if line.starts_with('[') {
                table = line.to_owned();
                seen.clear();
            }
            if let Some((key, _)) = line.split_once(" = ")
                && !line.starts_with('#')
                && !seen.insert(format!("{table}{key}"))
            {
                continue;
            }
            deduplicated.push(line);
        }
        // What the examples name must exist, as `check` requires: the
        // second root (../docs), the skills folder and the header's environment variable (the
        // example's WEATHER_TOKEN is swapped for one every process has).
        let text = deduplicated.join("\n").replace("${WEATHER_TOKEN}", "${PATH}");
        let tmp = tempfile::tempdir().unwrap();
        let (project, docs) = (tmp.path().join("project"), tmp.path().join("docs"));
        std::fs::create_dir_all(&project).unwrap();
        std::fs::create_dir_all(&docs).unwrap();
        std::fs::create_dir_all(project.join("skills")).unwrap();
        Config::parse(&text, Some(&project.join("switchboard.toml")), &project)
            .unwrap_or_else(|problems| panic!("{problems:?}\n{text}"));
    }
}
