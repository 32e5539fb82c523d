//! A [`SkillSet`]: the skills of a folder at one moment, checked, with
//! everything the extension answers from them precomputed (entries,
//! resources, directory children).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};
use switchboard_files::{ServedTree, TreeError};
use switchboard_server::types::resources::Resource;

use crate::frontmatter::FrontMatter;
use crate::{DIRECTORY_MIME, SCHEME, SkillsError};

/// The file every skill has at its root.
const SKILL_MD: &str = "SKILL.md";

/// Files of one skill served at most (`SHOULD NOT` serve more: SEP-2640).
const MAX_FILES_PER_SKILL: usize = 512;

/// Bytes of one skill served at most (16 MiB, summed over its files).
const MAX_BYTES_PER_SKILL: u64 = 16 * 1024 * 1024;

/// Files of a skills folder looked at, at most (the walk stops there).
const MAX_FILES_WALKED: usize = 100_000;

/// Characters of a description at most (Agent Skills specification).
const MAX_DESCRIPTION: usize = 1024;

/// Where a file's bytes are read from when a client reads it.
#[derive(Debug, Clone)]
pub(crate) enum Origin {
    /// The served file at this served path, asked for again at read time.
    Tree(String),
    /// Bytes given at load time ([`SkillSet::from_memory`]).
    Memory(Arc<[u8]>),
}

/// One file of one or more skills (a nested skill's files belong to the
/// enclosing skill too), served once under its URI.
#[derive(Debug, Clone)]
pub(crate) struct FileEntry {
    pub uri: String,
    /// The resource metadata `resources/list` and directory reads show.
    pub resource: Resource,
    pub digest: String,
    pub size: u64,
    pub origin: Origin,
}

/// A child of a directory resource.
#[derive(Debug, Clone)]
pub(crate) enum Child {
    /// A file: its index in `SkillSet::files`.
    File(usize),
    /// A folder: its URI and name.
    Dir { uri: String, name: String },
}

/// One served skill.
#[derive(Debug, Clone)]
pub(crate) struct Skill {
    /// The skill path, `/`-separated, relative to the skills folder.
    pub path: String,
    /// `skill://<skill-path>/SKILL.md`.
    pub uri: String,
    pub name: String,
    pub description: String,
    /// The `skills/list` / `skills/get` entry.
    pub entry: Value,
    /// Indexes of its files in `SkillSet::files`, in URI order.
    pub files: Vec<usize>,
}

/// One skill, as [`SkillSet::skills`] describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillInfo {
    /// The skill's name (its folder's name).
    pub name: String,
    /// Its description.
    pub description: String,
    /// The URI of its `SKILL.md`.
    pub uri: String,
    /// How many files it has, `SKILL.md` included.
    pub files: usize,
}

/// The skills of a folder at one moment.
#[derive(Clone, Default)]
pub struct SkillSet {
    /// In URI order.
    pub(crate) skills: Vec<Skill>,
    pub(crate) skill_index: HashMap<String, usize>,
    /// Every file of every skill, in URI order.
    pub(crate) files: Vec<FileEntry>,
    pub(crate) file_index: HashMap<String, usize>,
    /// Directory URI → its children in URI order.
    pub(crate) dirs: HashMap<String, Vec<Child>>,
    /// The policy reads ask again (none for a set from memory).
    pub(crate) tree: Option<ServedTree>,
}

impl std::fmt::Debug for SkillSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SkillSet")
            .field("skills", &self.skills.iter().map(|s| &s.path).collect::<Vec<_>>())
            .field("files", &self.files.len())
            .finish_non_exhaustive()
    }
}

/// A file found in the skills folder, before skills are assembled.
struct Found {
    /// Its path relative to the skills folder, `/`-separated.
    rel: String,
    bytes: Vec<u8>,
    origin: Origin,
    /// Where it is, for problems.
    place: PathBuf,
}

impl SkillSet {
    /// Loads the skills of `dir` (absolute, or relative to the tree's
    /// served folder) through `tree`, the folder's access policy: only the
    /// files it serves are part of a skill. Returns the set of the skills
    /// without problems and the problems of the others; fails when the
    /// folder itself cannot be served. Blocking (it reads every file to
    /// digest it): call it off the async threads.
    pub fn load(tree: &ServedTree, dir: &Path) -> Result<(Self, Vec<SkillsError>), SkillsError> {
        let folder = |reason: String| SkillsError::Folder { path: dir.to_path_buf(), reason };
        let (canonical, served) = Self::locate_folder(tree, dir)?;
        let prefix = if served.is_empty() { String::new() } else { format!("{served}/") };
        let mut found = Vec::new();
        let mut problems = Vec::new();
        let mut walked = 0usize;
        let walk = tree.walk_files(&served, None, |located| {
            walked += 1;
            if walked > MAX_FILES_WALKED {
                return false;
            }
            let Some(rel) = located.served.strip_prefix(&prefix).map(str::to_owned) else { return true };
            match std::fs::read(&located.path) {
                Ok(bytes) => found.push(Found {
                    place: canonical.join(&rel),
                    rel,
                    bytes,
                    origin: Origin::Tree(located.served.clone()),
                }),
                Err(e) => {
                    problems.push(SkillsError::skill(&located.path, 1, 1, format!("cannot be read: {e}")))
                }
            }
            true
        });
        if let Err(e) = walk {
            return Err(folder(e.to_string()));
        }
        if walked > MAX_FILES_WALKED {
            return Err(folder(format!(
                "holds more than {MAX_FILES_WALKED} served files; point [skills] dir at the skills alone"
            )));
        }
        let (mut set, more) = assemble(found);
        problems.extend(more);
        set.tree = Some(tree.clone());
        Ok((set, problems))
    }

    /// Where the skills folder `dir` (absolute, or relative to the tree's
    /// served folder) is: its canonical path and its served path. Fails
    /// when it does not exist, is not a folder, or is not served by `tree`
    /// (outside the roots, hidden, ignored or excluded).
    pub fn locate_folder(tree: &ServedTree, dir: &Path) -> Result<(PathBuf, String), SkillsError> {
        let folder = |reason: String| SkillsError::Folder { path: dir.to_path_buf(), reason };
        let absolute = tree.base().join(dir);
        let canonical = absolute.canonicalize().map_err(|e| folder(format!("cannot be read ({e})")))?;
        let served = tree.served_path_of(&canonical).ok_or_else(|| {
            folder(
                "is outside the folders [files] serves (its roots); put it inside the served folder"
                    .to_owned(),
            )
        })?;
        match tree.locate(&served) {
            Ok(located) if located.kind == switchboard_tree::Kind::Dir => Ok((canonical, served)),
            Ok(_) => Err(folder("is a file, not a folder".to_owned())),
            Err(TreeError::NotServed) => Err(folder(
                "is not served: hidden, ignored (.gitignore) or excluded by [files] exclude".to_owned(),
            )),
            Err(e) => Err(folder(e.to_string())),
        }
    }

    /// The skills of files given in memory: `(path, bytes)` pairs, paths
    /// `/`-separated and relative to the skills folder (`pdf/SKILL.md`,
    /// `pdf/references/FORMS.md`). Paths with empty, `.` or `..` segments
    /// are problems. For built-in skills and tests; a folder on disk goes
    /// through [`SkillSet::load`] and its access policy.
    pub fn from_memory<P, B>(files: impl IntoIterator<Item = (P, B)>) -> (Self, Vec<SkillsError>)
    where
        P: Into<String>,
        B: Into<Vec<u8>>,
    {
        let mut found = Vec::new();
        let mut problems = Vec::new();
        for (path, bytes) in files {
            let rel: String = path.into();
            if rel.split('/').any(|s| s.is_empty() || s == "." || s == "..") {
                problems.push(SkillsError::skill(&rel, 1, 1, "not a plain relative path"));
                continue;
            }
            let bytes: Vec<u8> = bytes.into();
            let origin = Origin::Memory(Arc::from(bytes.as_slice()));
            found.push(Found { place: PathBuf::from(&rel), rel, bytes, origin });
        }
        let (set, more) = assemble(found);
        problems.extend(more);
        (set, problems)
    }

    /// How many skills are served.
    pub fn len(&self) -> usize {
        self.skills.len()
    }

    /// Whether no skill is served.
    pub fn is_empty(&self) -> bool {
        self.skills.is_empty()
    }

    /// The skills served, in URI order.
    pub fn skills(&self) -> Vec<SkillInfo> {
        self.skills
            .iter()
            .map(|s| SkillInfo {
                name: s.name.clone(),
                description: s.description.clone(),
                uri: s.uri.clone(),
                files: s.files.len(),
            })
            .collect()
    }

    /// Every skill file as a resource (what `resources/list` shows), in
    /// URI order.
    pub fn resources(&self) -> Vec<Resource> {
        self.files.iter().map(|f| f.resource.clone()).collect()
    }

    /// The URI → digest of every file, to compare two sets.
    pub(crate) fn digests(&self) -> BTreeMap<&str, &str> {
        self.files.iter().map(|f| (f.uri.as_str(), f.digest.as_str())).collect()
    }

    /// The `skills/list` / `skills/get` entry of the skill whose `SKILL.md`
    /// is `uri`.
    pub fn entry(&self, uri: &str) -> Option<&Value> {
        self.skill_index.get(uri).map(|&i| &self.skills[i].entry)
    }
}

/// `skill://` followed by `rel`'s segments, each percent-encoded where it
/// is not an unreserved character.
pub(crate) fn uri_of(rel: &str) -> String {
    let mut uri = format!("{SCHEME}://");
    for (i, segment) in rel.split('/').enumerate() {
        if i > 0 {
            uri.push('/');
        }
        for b in segment.bytes() {
            if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
                uri.push(char::from(b));
            } else {
                uri.push_str(&format!("%{b:02X}"));
            }
        }
    }
    uri
}

/// `sha256:` and the 64 lowercase hex digits of `bytes`' SHA-256.
pub(crate) fn digest(bytes: &[u8]) -> String {
    let hash = Sha256::digest(bytes);
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    for b in hash {
        out.push_str(&format!("{b:02x}"));
    }
    out
}

/// Whether `name` follows the Agent Skills naming rules: 1 to 64
/// characters, lowercase ASCII letters, digits and hyphens, no hyphen at
/// either end and never two in a row.
pub(crate) fn valid_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--")
}

/// Whether a folder name can be a skill-path segment as it is: unreserved
/// URI characters only (the first segment is a URI authority).
fn plain_segment(segment: &str) -> bool {
    !segment.is_empty()
        && segment.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~'))
}

/// Builds the set from the files found: finds the skills, checks each, and
/// indexes the good ones.
fn assemble(found: Vec<Found>) -> (SkillSet, Vec<SkillsError>) {
    let files: BTreeMap<String, Found> = found.into_iter().map(|f| (f.rel.clone(), f)).collect();
    let mut problems = Vec::new();
    let mut skills = Vec::new();
    for (rel, file) in &files {
        if rel == SKILL_MD {
            problems.push(SkillsError::skill(
                &file.place,
                1,
                1,
                "a SKILL.md directly in the skills folder belongs to no skill: move it into a folder named \
                 after the skill (skills/<name>/SKILL.md)",
            ));
            continue;
        }
        let Some(path) = rel.strip_suffix("/SKILL.md") else { continue };
        match check_skill(path, file, &files) {
            Ok(skill) => skills.push(skill),
            Err(found) => problems.extend(found),
        }
    }
    (index(skills, &files), problems)
}

/// A skill found at `path` (whose `SKILL.md` is `skill_md`), checked.
struct Checked {
    path: String,
    name: String,
    description: String,
    frontmatter: Map<String, Value>,
}

/// Checks one skill, finding every problem of its `SKILL.md` in one pass
/// (a folder name that cannot be a URI, text that is not UTF-8 or a front
/// matter that does not parse stop there: nothing after can be read).
fn check_skill(
    path: &str,
    skill_md: &Found,
    files: &BTreeMap<String, Found>,
) -> Result<Checked, Vec<SkillsError>> {
    let at = |(line, column): (usize, usize), message: String| {
        SkillsError::skill(&skill_md.place, line, column, message)
    };
    let folder = path.rsplit('/').next().unwrap_or(path);
    if let Some(bad) = path.split('/').find(|s| !plain_segment(s)) {
        return Err(vec![at(
            (1, 1),
            format!(
                "the folder name {bad:?} cannot be part of a skill URI: use letters, digits, '-', '.', '_' \
                 and '~' only"
            ),
        )]);
    }
    let text = std::str::from_utf8(&skill_md.bytes)
        .map_err(|e| vec![at((1, 1), format!("SKILL.md is not UTF-8 text ({e})"))])?;
    let fm = FrontMatter::parse(text).map_err(|(line, column, message)| vec![at((line, column), message)])?;
    let mut problems = Vec::new();
    let name = match fm.fields.get("name") {
        Some(Value::String(name)) => Some(name.clone()),
        Some(_) => {
            problems.push(at(fm.place_of("name"), "`name` must be text, like `name: pdf-processing`".into()));
            None
        }
        None => {
            problems.push(at((1, 1), format!("the front matter has no `name`; add `name: {folder}`")));
            None
        }
    };
    if let Some(name) = &name {
        if !valid_name(name) {
            problems.push(at(
                fm.place_of("name"),
                format!(
                    "`name: {name}` breaks the skill naming rules: 1 to 64 lowercase letters, digits and \
                     hyphens, no hyphen first, last or twice in a row (like `pdf-processing`)"
                ),
            ));
        } else if name != folder {
            problems.push(at(
                fm.place_of("name"),
                format!("`name: {name}` must equal the skill's folder name {folder:?}: rename one of them"),
            ));
        }
    }
    let description = match fm.fields.get("description") {
        Some(Value::String(d)) if !d.trim().is_empty() => Some(d.clone()),
        Some(Value::String(_)) | None => {
            problems.push(at(
                fm.place_of("description"),
                "the front matter needs a `description`: what the skill does and when to use it".into(),
            ));
            None
        }
        Some(_) => {
            problems.push(at(fm.place_of("description"), "`description` must be text".into()));
            None
        }
    };
    if description.as_ref().is_some_and(|d| d.chars().count() > MAX_DESCRIPTION) {
        problems.push(at(
            fm.place_of("description"),
            format!("`description` is longer than {MAX_DESCRIPTION} characters"),
        ));
    }
    if let Some(Value::Object(metadata)) = fm.fields.get("metadata")
        && let Some(key) = metadata.keys().find(|k| k.starts_with("io.modelcontextprotocol/"))
    {
        problems.push(at(
            fm.place_of("metadata"),
            format!(
                "`metadata` key {key:?}: keys under io.modelcontextprotocol/ are reserved for MCP extensions"
            ),
        ));
    }
    let own = format!("{path}/");
    let (count, bytes) = files
        .range(own.clone()..)
        .take_while(|(rel, _)| rel.starts_with(&own))
        .fold((0usize, 0u64), |(n, total), (_, f)| (n + 1, total + f.bytes.len() as u64));
    if count > MAX_FILES_PER_SKILL {
        problems.push(at(
            (1, 1),
            format!("the skill has {count} files; serve at most {MAX_FILES_PER_SKILL} per skill"),
        ));
    }
    if bytes > MAX_BYTES_PER_SKILL {
        problems.push(at(
            (1, 1),
            format!("the skill's files add up to {bytes} bytes; serve at most 16 MiB per skill"),
        ));
    }
    match (name, description) {
        (Some(name), Some(description)) if problems.is_empty() => {
            Ok(Checked { path: path.to_owned(), name, description, frontmatter: fm.fields })
        }
        _ => Err(problems),
    }
}

/// Indexes the good skills: their files (each once), entries and folders.
fn index(checked: Vec<Checked>, files: &BTreeMap<String, Found>) -> SkillSet {
    // Which skill each file shows under: the innermost one holding it.
    let roots: BTreeMap<&str, &Checked> = checked.iter().map(|c| (c.path.as_str(), c)).collect();
    let innermost = |rel: &str| -> Option<&Checked> {
        let mut dir = rel;
        // One step per path segment: ends at the top of the folder.
        while let Some((parent, _)) = dir.rsplit_once('/') {
            if let Some(skill) = roots.get(parent) {
                return Some(skill);
            }
            dir = parent;
        }
        None
    };
    let mut served: BTreeMap<String, (&str, &Found)> = BTreeMap::new();
    for (rel, found) in files {
        if innermost(rel).is_some() {
            served.insert(uri_of(rel), (rel.as_str(), found));
        }
    }
    let mut set = SkillSet::default();
    for (uri, (rel, found)) in &served {
        let Some(owner) = innermost(rel) else { continue };
        let within = &rel[owner.path.len() + 1..];
        let size = found.bytes.len() as u64;
        let mut resource = Resource::new(uri.clone(), within);
        if within == SKILL_MD {
            resource.name = owner.name.clone();
            resource.description = Some(owner.description.clone());
            resource.mime_type = Some("text/markdown".to_owned());
        } else {
            resource.mime_type = Some(mime_of(within, &found.bytes));
        }
        resource.size = Some(size);
        set.file_index.insert(uri.clone(), set.files.len());
        set.files.push(FileEntry {
            uri: uri.clone(),
            resource,
            digest: digest(&found.bytes),
            size,
            origin: found.origin.clone(),
        });
    }
    let mut dirs: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut skills: Vec<Skill> = checked
        .into_iter()
        .map(|c| {
            let own = format!("{}/", c.path);
            let mut indexes = Vec::new();
            for rel in files.range(own.clone()..).map(|(rel, _)| rel).take_while(|rel| rel.starts_with(&own)) {
                let Some(&i) = set.file_index.get(&uri_of(rel)) else { continue };
                indexes.push(i);
                // Each folder from the skill's root down to the file lists its child.
                let mut parent = c.path.clone();
                for segment in rel[own.len()..].split('/') {
                    let child = format!("{parent}/{segment}");
                    dirs.entry(parent).or_default().insert(child.clone());
                    parent = child;
                }
            }
            indexes.sort_by(|a, b| set.files[*a].uri.cmp(&set.files[*b].uri));
            let uri = uri_of(&format!("{}/{SKILL_MD}", c.path));
            let resources: Vec<Value> = indexes
                .iter()
                .map(|&i| json!({"uri": set.files[i].uri, "digest": set.files[i].digest, "size": set.files[i].size}))
                .collect();
            let entry = json!({"uri": uri, "frontmatter": Value::Object(c.frontmatter), "resources": resources});
            Skill { path: c.path, uri, name: c.name, description: c.description, entry, files: indexes }
        })
        .collect();
    skills.sort_by(|a, b| a.uri.cmp(&b.uri));
    set.skill_index = skills.iter().enumerate().map(|(i, s)| (s.uri.clone(), i)).collect();
    set.skills = skills;
    for (dir, children) in dirs {
        let mut listed = children
            .into_iter()
            .map(|child| {
                let uri = uri_of(&child);
                match set.file_index.get(&uri) {
                    Some(&i) => Child::File(i),
                    None => Child::Dir { name: child.rsplit('/').next().unwrap_or_default().to_owned(), uri },
                }
            })
            .collect::<Vec<_>>();
        listed.sort_by(|a, b| set.child_uri(a).cmp(set.child_uri(b)));
        set.dirs.insert(uri_of(&dir), listed);
    }
    set
}

impl SkillSet {
    pub(crate) fn child_uri<'a>(&'a self, child: &'a Child) -> &'a str {
        match child {
            Child::File(i) => &self.files[*i].uri,
            Child::Dir { uri, .. } => uri,
        }
    }

    /// A directory child as a resource object (folders as `inode/directory`).
    pub(crate) fn child_json(&self, child: &Child) -> Value {
        match child {
            Child::File(i) => serde_json::to_value(&self.files[*i].resource).unwrap_or(Value::Null),
            Child::Dir { uri, name } => json!({"uri": uri, "name": name, "mimeType": DIRECTORY_MIME}),
        }
    }
}

/// The MIME type of a skill file: by name (the table `file://` resources
/// use), else text or binary by content.
fn mime_of(name: &str, bytes: &[u8]) -> String {
    if let Some(mime) = switchboard_files::mime_from_name(Path::new(name)) {
        return mime.to_owned();
    }
    if std::str::from_utf8(bytes).is_ok() && !bytes.contains(&0) {
        "text/plain".to_owned()
    } else {
        "application/octet-stream".to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skill_md(name: &str, description: &str) -> String {
        format!("---\nname: {name}\ndescription: {description}\n---\n\n# {name}\n")
    }

    #[test]
    fn names_follow_the_agent_skills_rules() {
        for good in ["a", "pdf-processing", "x1", &"a".repeat(64)] {
            assert!(valid_name(good), "{good}");
        }
        for bad in ["", "-a", "a-", "a--b", "A", "a_b", "a.b", &"a".repeat(65), "é"] {
            assert!(!valid_name(bad), "{bad}");
        }
    }

    #[test]
    fn digests_are_sha256_in_lowercase_hex() {
        assert_eq!(digest(b""), "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        assert_eq!(uri_of("acme/billing/refunds/SKILL.md"), "skill://acme/billing/refunds/SKILL.md");
        assert_eq!(uri_of("a/my file.md"), "skill://a/my%20file.md");
    }

    #[test]
    fn skills_files_entries_and_folders_are_indexed() {
        let (set, problems) = SkillSet::from_memory([
            ("pdf/SKILL.md", skill_md("pdf", "Fill PDF forms")),
            ("pdf/references/FORMS.md", "# Forms\n".to_owned()),
            ("pdf/templates/regional/eu.md", "EU\n".to_owned()),
            ("acme/billing/refunds/SKILL.md", skill_md("refunds", "Refund policy")),
            ("README.md", "not a skill\n".to_owned()),
        ]);
        assert!(problems.is_empty(), "{problems:?}");
        let names: Vec<String> = set.skills().into_iter().map(|s| s.name).collect();
        assert_eq!(names, ["refunds", "pdf"], "URI order");
        let entry = set.entry("skill://pdf/SKILL.md").unwrap();
        assert_eq!(entry["frontmatter"], json!({"name": "pdf", "description": "Fill PDF forms"}));
        let uris: Vec<&str> =
            entry["resources"].as_array().unwrap().iter().map(|r| r["uri"].as_str().unwrap()).collect();
        assert_eq!(
            uris,
            [
                "skill://pdf/SKILL.md",
                "skill://pdf/references/FORMS.md",
                "skill://pdf/templates/regional/eu.md"
            ]
        );
        let md = &entry["resources"][0];
        assert_eq!(md["size"], skill_md("pdf", "Fill PDF forms").len());
        assert_eq!(md["digest"], digest(skill_md("pdf", "Fill PDF forms").as_bytes()));
        assert!(set.resources().iter().all(|r| r.uri != "skill://README.md"), "outside every skill");
        let root: Vec<Value> = set.dirs["skill://pdf"].iter().map(|c| set.child_json(c)).collect();
        assert_eq!(root[0]["name"], "pdf");
        assert_eq!(root[0]["mimeType"], "text/markdown");
        assert_eq!(root[0]["description"], "Fill PDF forms");
        assert_eq!(
            root[1],
            json!({"uri": "skill://pdf/references", "name": "references", "mimeType": DIRECTORY_MIME})
        );
        assert_eq!(root[2]["uri"], "skill://pdf/templates");
        assert_eq!(set.dirs["skill://pdf/templates"].len(), 1);
        assert!(set.dirs.contains_key("skill://pdf/templates/regional"));
        assert!(!set.dirs.contains_key("skill://acme/billing"), "prefix folders are no skill's");
    }

    #[test]
    fn nested_skills_are_their_own_and_part_of_the_enclosing_one() {
        let (set, problems) = SkillSet::from_memory([
            ("outer/SKILL.md", skill_md("outer", "Outer")),
            ("outer/inner/SKILL.md", skill_md("inner", "Inner")),
            ("outer/inner/notes.txt", "n".to_owned()),
        ]);
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(set.len(), 2);
        assert_eq!(set.entry("skill://outer/SKILL.md").unwrap()["resources"].as_array().unwrap().len(), 3);
        assert_eq!(
            set.entry("skill://outer/inner/SKILL.md").unwrap()["resources"].as_array().unwrap().len(),
            2
        );
        assert_eq!(set.files.len(), 3, "each file once");
        let inner_md = &set.files[set.file_index["skill://outer/inner/SKILL.md"]];
        assert_eq!(inner_md.resource.name, "inner");
        let notes = &set.files[set.file_index["skill://outer/inner/notes.txt"]];
        assert_eq!(notes.resource.name, "notes.txt", "named within the innermost skill");
    }

    #[test]
    fn bad_skills_are_left_out_with_placed_problems() {
        let (set, problems) = SkillSet::from_memory([
            ("good/SKILL.md", skill_md("good", "Good")),
            ("SKILL.md", skill_md("root", "At the root")),
            ("nofm/SKILL.md", "# No front matter\n".to_owned()),
            ("mismatch/SKILL.md", "---\ndescription: d\nname: other\n---\n".to_owned()),
            ("Upper/SKILL.md", skill_md("Upper", "Bad name")),
            ("nodesc/SKILL.md", "---\nname: nodesc\n---\n".to_owned()),
            (
                "reserved/SKILL.md",
                "---\nname: reserved\ndescription: d\nmetadata:\n  io.modelcontextprotocol/x: y\n---\n"
                    .to_owned(),
            ),
            ("sp ace/SKILL.md", skill_md("sp ace", "d")),
            ("../escape/SKILL.md", skill_md("escape", "d")),
        ]);
        assert_eq!(set.skills().into_iter().map(|s| s.name).collect::<Vec<_>>(), ["good"]);
        let messages: Vec<String> = problems.iter().map(ToString::to_string).collect();
        assert_eq!(problems.len(), 8, "{messages:#?}");
        let find = |needle: &str| {
            messages.iter().find(|m| m.contains(needle)).unwrap_or_else(|| panic!("{needle}: {messages:#?}"))
        };
        assert!(find("directly in the skills folder").starts_with("SKILL.md:1:1:"));
        assert!(find("must begin with YAML front matter").starts_with("nofm/SKILL.md:1:1:"));
        assert!(
            find("must equal the skill's folder name").starts_with("mismatch/SKILL.md:3:1:"),
            "placed on `name:`"
        );
        assert!(find("naming rules").starts_with("Upper/SKILL.md:2:1:"));
        assert!(find("needs a `description`").starts_with("nodesc/SKILL.md:1:1:"));
        assert!(find("reserved").starts_with("reserved/SKILL.md:4:1:"));
        find("cannot be part of a skill URI");
        find("not a plain relative path");
    }

    #[test]
    fn limits_are_enforced_per_skill() {
        let mut files = vec![("big/SKILL.md".to_owned(), skill_md("big", "Big").into_bytes())];
        files.extend((0..MAX_FILES_PER_SKILL).map(|i| (format!("big/f{i}.txt"), b"x".to_vec())));
        let (set, problems) = SkillSet::from_memory(files);
        assert!(set.is_empty());
        assert!(problems[0].to_string().contains("513 files"), "{problems:?}");
        let huge = vec![
            ("huge/SKILL.md".to_owned(), skill_md("huge", "Huge").into_bytes()),
            ("huge/blob.bin".to_owned(), vec![0u8; MAX_BYTES_PER_SKILL as usize]),
        ];
        let (set, problems) = SkillSet::from_memory(huge);
        assert!(set.is_empty());
        assert!(problems[0].to_string().contains("16 MiB"), "{problems:?}");
    }

    #[test]
    fn the_tree_decides_what_a_folder_serves() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("skills/pdf/references")).unwrap();
        std::fs::write(root.join("skills/pdf/SKILL.md"), skill_md("pdf", "PDF")).unwrap();
        std::fs::write(root.join("skills/pdf/references/FORMS.md"), "forms").unwrap();
        std::fs::write(root.join("skills/pdf/.env"), "TOKEN=secret").unwrap();
        std::fs::write(root.join("skills/pdf/build.log"), "ignored").unwrap();
        std::fs::write(root.join(".gitignore"), "*.log\n").unwrap();
        std::fs::create_dir(root.join(".git")).unwrap();
        let tree = ServedTree::new(root, &switchboard_files::FilesOptions::default()).unwrap();
        let (set, problems) = SkillSet::load(&tree, Path::new("skills")).unwrap();
        assert!(problems.is_empty(), "{problems:?}");
        let uris: Vec<String> = set.resources().into_iter().map(|r| r.uri).collect();
        assert_eq!(uris, ["skill://pdf/SKILL.md", "skill://pdf/references/FORMS.md"]);
        let hidden = SkillSet::load(&tree, Path::new(".git")).unwrap_err();
        assert!(hidden.to_string().contains("not served"), "{hidden}");
        let missing = SkillSet::load(&tree, Path::new("nowhere")).unwrap_err();
        assert!(missing.to_string().contains("cannot be read"), "{missing}");
    }
}
