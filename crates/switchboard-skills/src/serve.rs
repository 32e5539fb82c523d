//! [`Skills`]: the skills in force on a server, registered as the
//! extension's capability, methods and resources, and swapped on reload.

use std::ops::Range;
use std::sync::Arc;

use arc_swap::ArcSwap;
use serde_json::{Map, Value, json};
use switchboard_files::TreeError;
use switchboard_server::types::ErrorObject;
use switchboard_server::types::ResourceContents;
use switchboard_server::types::resources::Resource;
use switchboard_server::{
    HandlerError, ListKind, Method, RequestContext, ResourceSource, Server, ServerBuilder, SourceRead,
    base64_encode,
};

use crate::EXTENSION_ID;
use crate::set::{Origin, SkillSet};

/// Entries of one `skills/list` page, and children of one directory page.
const PAGE_SIZE: usize = 50;

/// The skills a server serves now: registered once with
/// [`Skills::register`], replaced with [`Skills::replace`]. Cheap to clone.
///
/// ```
/// use switchboard_server::Server;
/// use switchboard_skills::{SkillSet, Skills};
///
/// let (set, problems) = SkillSet::from_memory([(
///     "greeting/SKILL.md",
///     "---\nname: greeting\ndescription: Greet the user by name\n---\nSay hello.\n",
/// )]);
/// assert!(problems.is_empty());
/// let skills = Skills::new(set);
/// let server = skills.register(Server::builder("demo", "1")).build().unwrap();
/// # let _ = server;
/// assert_eq!(skills.current().len(), 1);
/// ```
#[derive(Clone)]
pub struct Skills {
    current: Arc<ArcSwap<SkillSet>>,
}

impl std::fmt::Debug for Skills {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Skills").field("current", &self.current.load()).finish()
    }
}

/// What a [`Skills::replace`] changed, by file URI.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Changes {
    /// Files that appeared.
    pub added: Vec<String>,
    /// Files that disappeared.
    pub removed: Vec<String>,
    /// Files whose content (digest) changed.
    pub modified: Vec<String>,
}

impl Changes {
    /// Whether nothing changed.
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.removed.is_empty() && self.modified.is_empty()
    }
}

impl Skills {
    /// Serves `set`.
    pub fn new(set: SkillSet) -> Self {
        Self { current: Arc::new(ArcSwap::from_pointee(set)) }
    }

    /// The skills in force.
    pub fn current(&self) -> Arc<SkillSet> {
        self.current.load_full()
    }

    /// Registers the extension on `builder`: the capability
    /// (`io.modelcontextprotocol/skills` with `directoryRead: true`, for
    /// every revision), the skill files as resources, and the methods
    /// `skills/list`, `skills/get` and `resources/directory/read`.
    pub fn register(&self, builder: ServerBuilder) -> ServerBuilder {
        let list = self.clone();
        let get = self.clone();
        let dir = self.clone();
        builder
            .extension(EXTENSION_ID, json!({"directoryRead": true}))
            .resource_source(Arc::new(SkillFiles { skills: self.clone() }))
            .method(
                Method::new("skills/list", move |params: Value, _ctx: RequestContext| {
                    let result = list_skills(&list.current(), &params);
                    async move { result }
                })
                .cacheable(),
            )
            .method(
                Method::new("skills/get", move |params: Value, _ctx: RequestContext| {
                    let result = get_skill(&get.current(), &params);
                    async move { result }
                })
                .cacheable(),
            )
            .method(
                Method::new("resources/directory/read", move |params: Value, _ctx: RequestContext| {
                    let result = read_directory(&dir.current(), &params);
                    async move { result }
                })
                .cacheable(),
            )
    }

    /// Serves `set` from now on, and tells `server`'s clients what changed:
    /// `notifications/resources/list_changed` when files came or went,
    /// `notifications/resources/updated` (to subscribers) for each file
    /// whose content changed.
    pub fn replace(&self, set: SkillSet, server: &Server) -> Changes {
        let old = self.current.swap(Arc::new(set));
        let new = self.current();
        let (before, after) = (old.digests(), new.digests());
        let mut changes = Changes::default();
        for (uri, digest) in &after {
            match before.get(uri) {
                None => changes.added.push((*uri).to_owned()),
                Some(previous) if previous != digest => changes.modified.push((*uri).to_owned()),
                Some(_) => {}
            }
        }
        changes.removed =
            before.keys().filter(|uri| !after.contains_key(*uri)).map(|u| (*u).to_owned()).collect();
        if !changes.added.is_empty() || !changes.removed.is_empty() {
            server.notify_list_changed(ListKind::Resources);
        }
        for uri in &changes.modified {
            server.notify_resource_updated(uri.clone());
        }
        changes
    }
}

/// The skill files as a resource source: listed after the registered
/// resources, read from the set in force.
struct SkillFiles {
    skills: Skills,
}

impl ResourceSource for SkillFiles {
    fn len(&self) -> usize {
        self.skills.current().files.len()
    }

    fn list(&self, range: Range<usize>) -> Vec<Resource> {
        let set = self.skills.current();
        // The set may have been replaced since `len`: stay inside this one.
        let end = range.end.min(set.files.len());
        let start = range.start.min(end);
        set.files[start..end].iter().map(|f| f.resource.clone()).collect()
    }

    fn read(&self, uri: &str, _ctx: RequestContext) -> Option<SourceRead> {
        let set = self.skills.current();
        let file = set.files.get(*set.file_index.get(uri)?)?.clone();
        let tree = set.tree.clone();
        Some(Box::pin(async move {
            let mime = file.resource.mime_type.clone();
            let bytes: Arc<[u8]> = match (&file.origin, tree) {
                (Origin::Memory(bytes), _) => Arc::clone(bytes),
                (Origin::Tree(served), Some(tree)) => {
                    let served = served.clone();
                    let uri = file.uri.clone();
                    tokio::task::spawn_blocking(move || read_served(&tree, &served, &uri))
                        .await
                        .map_err(|e| HandlerError::internal(format!("reading the file failed: {e}")))??
                }
                (Origin::Tree(_), None) => return Err(HandlerError::NotFound),
            };
            let contents = match std::str::from_utf8(&bytes) {
                Ok(text) if !text.contains('\0') => ResourceContents::text(file.uri, mime, text),
                _ => ResourceContents::blob(file.uri, mime, base64_encode(&bytes)),
            };
            Ok(vec![contents])
        }))
    }
}

/// A skill file read now, if the folder's policy still serves it: a file
/// that became hidden or ignored reads like one that does not exist.
fn read_served(
    tree: &switchboard_files::ServedTree,
    served: &str,
    uri: &str,
) -> Result<Arc<[u8]>, HandlerError> {
    let located = match tree.readable(served) {
        Ok(located) => located,
        Err(TreeError::NotServed) => return Err(HandlerError::NotFound),
        Err(e) => return Err(HandlerError::invalid_params(format!("{uri}: {e}"))),
    };
    let bytes = std::fs::read(&located.path).map_err(|e| HandlerError::internal(format!("{uri}: {e}")))?;
    if bytes.len() as u64 > tree.max_file_size() {
        return Err(HandlerError::invalid_params(format!(
            "{uri} grew above the {}-byte limit for reads (files.max_file_size)",
            tree.max_file_size()
        )));
    }
    Ok(Arc::from(bytes))
}

/// `params.cursor` as an offset: absent is 0; anything but a cursor this
/// server handed out for `kind` is `-32602`.
fn cursor(params: &Value, kind: &str) -> Result<usize, ErrorObject> {
    match params.get("cursor") {
        None | Some(Value::Null) => Ok(0),
        Some(Value::String(c)) => c
            .strip_prefix(kind)
            .and_then(|rest| rest.strip_prefix(':'))
            .and_then(|n| n.parse().ok())
            .ok_or_else(|| {
                ErrorObject::invalid_params(format!("invalid cursor {c:?}: start the list again without one"))
            }),
        Some(_) => Err(ErrorObject::invalid_params("`cursor` must be a string")),
    }
}

/// `params.uri`, required.
fn uri_param(params: &Value) -> Result<&str, ErrorObject> {
    params
        .get("uri")
        .and_then(Value::as_str)
        .ok_or_else(|| ErrorObject::invalid_params("`uri` is required: the URI of a skill's SKILL.md"))
}

/// One page of `items` from `start`, with the cursor of the next page.
fn page<T>(items: &[T], start: usize, kind: &str) -> (Range<usize>, Option<String>) {
    let start = start.min(items.len());
    let end = (start + PAGE_SIZE).min(items.len());
    (start..end, (end < items.len()).then(|| format!("{kind}:{end}")))
}

fn list_skills(set: &SkillSet, params: &Value) -> Result<Map<String, Value>, ErrorObject> {
    let (range, next) = page(&set.skills, cursor(params, "skills")?, "skills");
    let mut result = Map::new();
    result.insert("skills".into(), set.skills[range].iter().map(|s| s.entry.clone()).collect());
    if let Some(next) = next {
        result.insert("nextCursor".into(), next.into());
    }
    Ok(result)
}

fn get_skill(set: &SkillSet, params: &Value) -> Result<Map<String, Value>, ErrorObject> {
    let uri = uri_param(params)?;
    let Some(entry) = set.entry(uri) else {
        return Err(ErrorObject::invalid_params(format!("no skill is served at {uri}"))
            .with_data(json!({"uri": uri})));
    };
    let mut result = Map::new();
    result.insert("skill".into(), entry.clone());
    Ok(result)
}

fn read_directory(set: &SkillSet, params: &Value) -> Result<Map<String, Value>, ErrorObject> {
    let uri = uri_param(params)?;
    let key = uri.strip_suffix('/').unwrap_or(uri);
    let Some(children) = set.dirs.get(key) else {
        return Err(ErrorObject::invalid_params(format!(
            "{uri} is not a directory resource of a served skill"
        ))
        .with_data(json!({"uri": uri})));
    };
    let (range, next) = page(children, cursor(params, "dir")?, "dir");
    let mut result = Map::new();
    result.insert("resources".into(), children[range].iter().map(|c| set.child_json(c)).collect());
    if let Some(next) = next {
        result.insert("nextCursor".into(), next.into());
    }
    Ok(result)
}

#[cfg(test)]
mod tests {
    use super::*;
    use switchboard_testkit::TestClient;

    fn skill_md(name: &str) -> String {
        format!("---\nname: {name}\ndescription: The {name} skill\n---\n# {name}\n")
    }

    fn set(names: &[&str]) -> SkillSet {
        let mut files: Vec<(String, String)> = Vec::new();
        for name in names {
            files.push((format!("{name}/SKILL.md"), skill_md(name)));
            files.push((format!("{name}/references/guide.md"), format!("guide of {name}")));
        }
        let (set, problems) = SkillSet::from_memory(files);
        assert!(problems.is_empty(), "{problems:?}");
        set
    }

    #[tokio::test]
    async fn the_extension_methods_and_resources_answer() {
        let skills = Skills::new(set(&["alpha", "beta"]));
        let server = skills.register(Server::builder("t", "1")).build().unwrap();
        let mut client = TestClient::connect_legacy(&server, "2025-11-25").await;
        let listed = client.request("skills/list", json!({})).await.unwrap();
        assert_eq!(listed["skills"].as_array().unwrap().len(), 2);
        assert_eq!(listed["skills"][0]["uri"], "skill://alpha/SKILL.md");
        assert!(listed.get("nextCursor").is_none());
        let got = client.request("skills/get", json!({"uri": "skill://beta/SKILL.md"})).await.unwrap();
        assert_eq!(got["skill"], listed["skills"][1]);
        let unknown =
            client.request("skills/get", json!({"uri": "skill://nope/SKILL.md"})).await.unwrap_err();
        assert_eq!(unknown.code(), Some(-32602));
        let dir = client.request("resources/directory/read", json!({"uri": "skill://alpha"})).await.unwrap();
        let kinds: Vec<(&str, &str)> = dir["resources"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| (r["uri"].as_str().unwrap(), r["mimeType"].as_str().unwrap()))
            .collect();
        assert_eq!(
            kinds,
            [("skill://alpha/SKILL.md", "text/markdown"), ("skill://alpha/references", "inode/directory")]
        );
        for not_a_dir in ["skill://alpha/SKILL.md", "skill://nope", "file:///etc"] {
            let e = client.request("resources/directory/read", json!({"uri": not_a_dir})).await.unwrap_err();
            assert_eq!(e.code(), Some(-32602), "{not_a_dir}");
        }
        let read = client.read_resource("skill://alpha/references/guide.md").await.unwrap();
        assert_eq!(read["contents"][0]["text"], "guide of alpha");
        let resources = client.list_all("resources/list", "resources").await.unwrap();
        assert_eq!(resources.len(), 4);
        assert_eq!(resources[0]["name"], "alpha");
        assert_eq!(resources[0]["description"], "The alpha skill");
    }

    #[tokio::test]
    async fn lists_page_whole_entries_and_refuse_foreign_cursors() {
        let names: Vec<String> = (0..PAGE_SIZE + 3).map(|i| format!("s{i:03}")).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let skills = Skills::new(set(&names));
        let server = skills.register(Server::builder("t", "1")).build().unwrap();
        let mut client = TestClient::connect_modern(&server);
        let first = client.request("skills/list", json!({})).await.unwrap();
        assert_eq!(first["skills"].as_array().unwrap().len(), PAGE_SIZE);
        assert!(first["ttlMs"].is_number() && first["cacheScope"].is_string(), "{first}");
        let cursor = first["nextCursor"].as_str().unwrap().to_owned();
        let second = client.request("skills/list", json!({"cursor": cursor})).await.unwrap();
        assert_eq!(second["skills"].as_array().unwrap().len(), 3);
        assert!(second.get("nextCursor").is_none());
        let bad = client.request("skills/list", json!({"cursor": "dir:1"})).await.unwrap_err();
        assert_eq!(bad.code(), Some(-32602));
        let got = client.request("skills/get", json!({"uri": "skill://s000/SKILL.md"})).await.unwrap();
        assert!(got["ttlMs"].is_number() && got.get("nextCursor").is_none(), "{got}");
    }

    #[tokio::test]
    async fn a_replacement_is_announced_by_what_changed() {
        let skills = Skills::new(set(&["alpha"]));
        let server = skills.register(Server::builder("t", "1")).build().unwrap();
        let mut client = TestClient::connect_legacy(&server, "2025-06-18").await;
        client.request("resources/subscribe", json!({"uri": "skill://alpha/SKILL.md"})).await.unwrap();
        let (edited, problems) = SkillSet::from_memory([
            ("alpha/SKILL.md", "---\nname: alpha\ndescription: Edited\n---\n".to_owned()),
            ("alpha/references/guide.md", "guide of alpha".to_owned()),
        ]);
        assert!(problems.is_empty());
        let changes = skills.replace(edited, &server);
        assert_eq!(changes.modified, ["skill://alpha/SKILL.md"]);
        assert!(changes.added.is_empty() && changes.removed.is_empty());
        let updated = client.next_notification("notifications/resources/updated").await.unwrap();
        assert_eq!(updated["params"]["uri"], "skill://alpha/SKILL.md");
        let got = client.request("skills/get", json!({"uri": "skill://alpha/SKILL.md"})).await.unwrap();
        assert_eq!(got["skill"]["frontmatter"]["description"], "Edited");
        let changes = skills.replace(set(&["alpha", "beta"]), &server);
        assert_eq!(changes.added.len(), 2);
        client.next_notification("notifications/resources/list_changed").await.unwrap();
    }
}
