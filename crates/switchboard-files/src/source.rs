//! The served files listed on demand: a [`ResourceSource`] over the index.
//!
//! Registering each file as a resource with the server cost about a
//! kilobyte per file (the catalog's entry, its cached renderings and a read
//! handler), 300 MB for a 200,000-file monorepo. The source renders a page
//! from the index when a client asks for it, so a served file costs its
//! served path and an [`Entry`](crate::index::Entry). Reads go through the
//! `file:///{+path}` template ([`FileResources::template`]), which checks
//! the policy at the moment of use.
//!
//! A list asked for while the first index is still being built waits for
//! the positions its page needs (at most [`FIRST_INDEX_WAIT`]): the first
//! scan files the tree in index order and publishes how many positions
//! are settled ([`ResourceSource::len_past`]), so the first page of a
//! 200,000-file tree is answered once its hundred files are walked, and
//! a list is never silently shorter than the folder. Past the wait it
//! answers with what is indexed and a `list_changed` follows when the
//! index is done.
//!
//! Pages are positions in path order (component by component:
//! [`switchboard_tree::cmp_served`]). A walk from one page to the next
//! resumes from the last path it returned instead of counting from the
//! start, so full pagination costs O(page) per page.

use std::ops::{Bound, Range};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use switchboard_server::types::content::Annotations;
use switchboard_server::types::resources::Resource;
use switchboard_server::{RequestContext, ResourcePage, ResourceSource, SourceRead};

use crate::FileResources;
use crate::index::{Entry, ServedKey};

/// How long a list waits for the first index of the folder at most.
pub const FIRST_INDEX_WAIT: Duration = Duration::from_secs(30);

impl FileResources {
    /// The listing of `served` as `resources/list` shows it.
    fn listing(served: &str, entry: &Entry, resource: &mut Resource) {
        resource.uri = Self::uri_of(served);
        resource.name.clear();
        resource.name.push_str(served);
        resource.mime_type = Some(entry.mime().to_owned());
        resource.size = Some(entry.size);
        resource.annotations = entry.modified().map(|modified| Annotations {
            last_modified: Some(humantime::format_rfc3339_seconds(modified).to_string()),
            ..Annotations::default()
        });
    }

    /// Calls `visit` with the files at positions `range`, in path order.
    fn each_in(&self, range: Range<usize>, mut visit: impl FnMut(&str, &Entry)) {
        let index = self.index();
        let mut resume = self.inner.resume.lock().unwrap_or_else(|p| p.into_inner());
        let version = self.inner.version.load(std::sync::atomic::Ordering::Acquire);
        let iter: Box<dyn Iterator<Item = (&ServedKey, &Entry)>> = match resume.as_ref() {
            Some((at, after, v)) if *at == range.start && *v == version => {
                Box::new(index.range((Bound::Excluded(after), Bound::Unbounded)))
            }
            _ => Box::new(index.iter().skip(range.start)),
        };
        let mut last = None;
        for (served, entry) in iter.take(range.len()) {
            visit(served.as_str(), entry);
            last = Some(served);
        }
        *resume = last.map(|l| (range.end, l.clone(), version));
    }
}

impl ResourceSource for FileResources {
    fn len(&self) -> usize {
        self.len_past_waiting(usize::MAX, FIRST_INDEX_WAIT)
    }

    fn len_past(&self, position: usize) -> usize {
        self.len_past_waiting(position, FIRST_INDEX_WAIT)
    }

    fn list(&self, range: Range<usize>) -> Vec<Resource> {
        let mut out = Vec::with_capacity(range.len());
        self.each_in(range, |served, entry| {
            let mut resource = Resource::new(String::new(), String::new());
            Self::listing(served, entry, &mut resource);
            out.push(resource);
        });
        out
    }

    fn list_into(&self, range: Range<usize>, page: &mut ResourcePage<'_>) {
        let mut resource = Resource::new(String::new(), String::new());
        self.each_in(range, |served, entry| {
            Self::listing(served, entry, &mut resource);
            page.push(&resource);
        });
    }

    fn read(&self, _uri: &str, _ctx: RequestContext) -> Option<SourceRead> {
        // The `file:///{+path}` template reads every served file.
        None
    }
}

/// The files a running server lists, swapped when a reload serves other
/// files (a client's roots moved the folder): the server holds one source
/// for its whole life.
#[derive(Clone, Default)]
pub struct FileSource {
    current: Arc<RwLock<Option<FileResources>>>,
}

impl std::fmt::Debug for FileSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FileSource").field("files", &self.current().map(|c| c.len())).finish()
    }
}

impl FileSource {
    /// Lists `files` from now on; true when that is not what was listed.
    pub fn set(&self, files: Option<FileResources>) -> bool {
        let mut current = self.current.write().unwrap_or_else(|p| p.into_inner());
        let same = match (current.as_ref(), files.as_ref()) {
            (Some(a), Some(b)) => Arc::ptr_eq(&a.inner, &b.inner),
            (None, None) => true,
            _ => false,
        };
        *current = files;
        !same
    }

    fn current(&self) -> Option<FileResources> {
        self.current.read().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

impl ResourceSource for FileSource {
    fn len(&self) -> usize {
        self.current().map_or(0, |f| ResourceSource::len(&f))
    }

    fn len_past(&self, position: usize) -> usize {
        self.current().map_or(0, |f| f.len_past(position))
    }

    fn list(&self, range: Range<usize>) -> Vec<Resource> {
        self.current().map_or_else(Vec::new, |f| f.list(range))
    }

    fn list_into(&self, range: Range<usize>, page: &mut ResourcePage<'_>) {
        if let Some(files) = self.current() {
            files.list_into(range, page);
        }
    }

    fn read(&self, _uri: &str, _ctx: RequestContext) -> Option<SourceRead> {
        None
    }
}
