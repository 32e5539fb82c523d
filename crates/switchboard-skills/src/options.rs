//! `[skills]` of `switchboard.toml`.

use std::path::{Path, PathBuf};

use serde::Deserialize;

/// The folder looked for when `dir` is not set.
const DEFAULT_DIR: &str = "skills";

/// `[skills]`: a folder of skills (each a folder with a `SKILL.md`) served
/// through the skills extension.
///
/// ```toml
/// [skills]
/// dir = "skills"    # default: skills/ when the served folder has one
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct SkillsOptions {
    /// Serve skills at all.
    pub enabled: bool,
    /// The skills folder, relative to the served folder; it must be served
    /// by the `[files]` rules (not hidden, ignored or excluded).
    #[schemars(example = &"skills")]
    pub dir: Option<PathBuf>,
}

impl Default for SkillsOptions {
    fn default() -> Self {
        Self { enabled: true, dir: None }
    }
}

impl SkillsOptions {
    /// The skills folder in use for the served folder `base`, if any: the
    /// configured one (whether or not it exists: that is a problem to
    /// report), else `skills/` when `base` has that folder.
    ///
    /// ```
    /// use switchboard_skills::SkillsOptions;
    /// let dir = tempfile::tempdir().unwrap();
    /// assert_eq!(SkillsOptions::default().dir_in(dir.path()), None);
    /// std::fs::create_dir(dir.path().join("skills")).unwrap();
    /// assert_eq!(SkillsOptions::default().dir_in(dir.path()), Some(dir.path().join("skills")));
    /// let off = SkillsOptions { enabled: false, dir: None };
    /// assert_eq!(off.dir_in(dir.path()), None);
    /// ```
    pub fn dir_in(&self, base: &Path) -> Option<PathBuf> {
        if !self.enabled {
            return None;
        }
        match &self.dir {
            Some(dir) => Some(base.join(dir)),
            None => Some(base.join(DEFAULT_DIR)).filter(|d| d.is_dir()),
        }
    }
}
