//! A folder served as `file:///` resources.
//!
//! - `resources/list` lists the files found in the folder at start-up
//!   (hidden ones skipped), through a [`ResourceSource`]: the list is computed
//!   once and never registered resource by resource.
//! - Reads go to the `#[resource("file:///{+path}")]` template, which reads
//!   the file when asked, so files created later can be read too. Every URI
//!   goes through [`FileRoot`], which refuses anything outside the folder
//!   (`..`, its percent-encoded forms, absolute paths, symlinks leading out).
//!
//! Text files are returned as text, anything else as a base64 blob. Serve the
//! current directory, or the one given, over stdio:
//!
//! ```text
//! cargo run -p example-files -- path/to/folder
//! ```

use std::io;
use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

use switchboard_server::types::ResourceContents;
use switchboard_server::types::resources::Resource;
use switchboard_server::{
    FileAccessError, FileRoot, HandlerError, ReadRequest, RequestContext, ResourceSource, Server, SourceRead,
    base64_encode, tools,
};

/// The most files listed; a huge folder is still served, just not listed whole.
const MAX_LISTED: usize = 10_000;

/// The served folder.
#[derive(Debug)]
struct Folder {
    root: FileRoot,
}

#[tools]
impl Folder {
    /// A file in the served folder, by its path inside it.
    #[resource("file:///{+path}")]
    async fn file(&self, path: String, request: &ReadRequest) -> Result<ResourceContents, HandlerError> {
        let file = self.root.resolve(&request.uri).map_err(|e| match e {
            FileAccessError::NotFound | FileAccessError::NotAFileUri => HandlerError::NotFound,
            FileAccessError::Forbidden(why) => HandlerError::invalid_params(format!("{path}: {why}")),
            other => HandlerError::internal(other.to_string()),
        })?;
        if file.is_dir() {
            return Err(HandlerError::invalid_params(format!("{path} is a directory")));
        }
        let bytes = tokio::fs::read(&file).await?;
        let mime_type = mime_type(&file);
        Ok(match String::from_utf8(bytes) {
            Ok(text) => ResourceContents::text(&request.uri, mime_type, text),
            Err(binary) => ResourceContents::blob(&request.uri, mime_type, base64_encode(binary.as_bytes())),
        })
    }
}

/// The files found at start-up, listed by `resources/list`.
#[derive(Debug)]
struct Listing(Vec<Resource>);

impl ResourceSource for Listing {
    fn len(&self) -> usize {
        self.0.len()
    }

    fn list(&self, range: Range<usize>) -> Vec<Resource> {
        self.0[range].to_vec()
    }

    fn read(&self, _uri: &str, _ctx: RequestContext) -> Option<SourceRead> {
        None // The `file:///{+path}` template reads.
    }
}

/// Every regular file under `dir`, hidden entries and symlinks skipped.
fn walk(root: &FileRoot, dir: &Path, out: &mut Vec<Resource>) -> io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let kind = entry.file_type()?;
        if name.starts_with('.') || out.len() >= MAX_LISTED {
            continue;
        }
        if kind.is_dir() {
            walk(root, &entry.path(), out)?;
        } else if kind.is_file() {
            let path = entry.path();
            let Some(uri) = root.uri_for(&path) else { continue };
            let mut resource = Resource::new(uri, name);
            resource.mime_type = mime_type(&path);
            resource.size = entry.metadata().ok().map(|m| m.len());
            out.push(resource);
        }
    }
    Ok(())
}

/// A MIME type from the extension, for the common cases.
fn mime_type(path: &Path) -> Option<String> {
    let mime = match path.extension()?.to_str()? {
        "txt" => "text/plain",
        "md" => "text/markdown",
        "rs" => "text/x-rust",
        "toml" => "application/toml",
        "json" => "application/json",
        "html" => "text/html",
        "png" => "image/png",
        _ => return None,
    };
    Some(mime.to_owned())
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::args().nth(1).unwrap_or_else(|| ".".to_owned());
    let root = FileRoot::new(&dir).map_err(|e| format!("cannot serve {dir}: {e}"))?;
    let mut files = Vec::new();
    walk(&root, root.path(), &mut files)?;
    files.sort_by(|a, b| a.uri.cmp(&b.uri));

    let folder = Arc::new(Folder { root });
    let mut builder = Server::builder("files", "1.0.0").resource_source(Arc::new(Listing(files)));
    for template in folder.resource_templates() {
        builder = builder.resource_template(template);
    }
    builder.build()?.serve_stdio().await?;
    Ok(())
}
