//! The tools that change the repository, offered only when writing is
//! enabled: `git_add`, `git_reset` (unstage), `git_commit`,
//! `git_create_branch` and `git_checkout`.
//!
//! Staging and unstaging take only paths the history may show (so an
//! ignored or hidden file is never staged). Committing and branching
//! change only `.git`. Checking out changes the work tree, so it is
//! refused unless *every* file it would change is one the model may write
//! ([`crate::GitResources::restrict_writes`]: never the configuration, the
//! prompt or skills folders, a dotfile or an unserved file): a branch is
//! not a way around the write policy.

use std::cell::RefCell;

use git2::build::CheckoutBuilder;
use git2::{BranchType, IndexAddOption, Signature};
use serde::Deserialize;
use serde_json::json;
use switchboard_server::{CallToolResult, Tool, ToolError};

use super::{checked_path, checked_rev, failed, git_failed, git_tool};
use crate::GitResources;
use crate::read::{Repo, resolve, short};
use crate::resources::Inner;

/// Paths named in one call at most.
const MAX_PATHS: usize = 1000;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PathsArgs {
    paths: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CommitArgs {
    message: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct BranchArgs {
    name: String,
    start: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CheckoutArgs {
    rev: String,
}

fn paths_schema(what: &str) -> serde_json::Value {
    json!({
        "type": "object",
        "properties": {"paths": {
            "type": "array", "minItems": 1, "maxItems": MAX_PATHS,
            "items": {"type": "string"}, "description": what
        }},
        "required": ["paths"],
        "additionalProperties": false
    })
}

fn hints(destructive: bool, idempotent: bool) -> switchboard_server::types::ToolAnnotations {
    switchboard_server::types::ToolAnnotations {
        read_only_hint: Some(false),
        destructive_hint: Some(destructive),
        idempotent_hint: Some(idempotent),
        open_world_hint: Some(false),
        ..Default::default()
    }
}

pub(super) fn tools(git: &GitResources) -> Vec<Tool> {
    let add = Tool::new("git_add")
        .title("Git add")
        .description(
            "Stages files or folders (paths relative to the repository): new and changed files are added, \
             deleted ones removed from the index. Ignored and hidden files are never staged.",
        )
        .input_schema(paths_schema("files or folders to stage"))
        .annotations(hints(false, true));
    let reset = Tool::new("git_reset")
        .title("Git reset (unstage)")
        .description(
            "Unstages files: their index entries go back to HEAD's. The working tree is not touched.",
        )
        .input_schema(paths_schema("files to unstage"))
        .annotations(hints(false, true));
    let commit = Tool::new("git_commit")
        .title("Git commit")
        .description(
            "Commits the staged changes on the current branch with this message. The author is the \
             repository's user.name and user.email, or \"switchboard\" when none is configured.",
        )
        .input_schema(json!({
            "type": "object",
            "properties": {"message": {"type": "string", "minLength": 1}},
            "required": ["message"],
            "additionalProperties": false
        }))
        .annotations(hints(false, false));
    let branch = Tool::new("git_create_branch")
        .title("Git create branch")
        .description("Creates a branch at start (default HEAD) without switching to it.")
        .input_schema(json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "the new branch's name"},
                "start": {"type": "string", "description": "commit id, branch, tag, HEAD~N (default HEAD)"}
            },
            "required": ["name"],
            "additionalProperties": false
        }))
        .annotations(hints(false, false));
    let checkout = Tool::new("git_checkout")
        .title("Git checkout")
        .description(
            "Switches the working tree to a branch (or detaches HEAD at a revision). Refused when it would \
             overwrite uncommitted changes, or change a file the model may not write (the server's \
             configuration, prompt and skills folders, dotfiles, unserved files).",
        )
        .input_schema(json!({
            "type": "object",
            "properties": {"rev": {"type": "string", "description": "a branch name, or a commit id/tag to detach at"}},
            "required": ["rev"],
            "additionalProperties": false
        }))
        .annotations(hints(true, true));
    vec![
        git_tool(git, add, |repo, _inner, args: PathsArgs| stage(repo, &args)),
        git_tool(git, reset, |repo, _inner, args: PathsArgs| unstage(repo, &args)),
        git_tool(git, commit, |repo, _inner, args: CommitArgs| commit_staged(repo, &args)),
        git_tool(git, branch, |repo, _inner, args: BranchArgs| create_branch(repo, &args)),
        git_tool(git, checkout, |repo, inner, args: CheckoutArgs| checkout_rev(repo, inner, &args)),
    ]
}

fn checked_paths(tool: &str, repo: &Repo, paths: &[String]) -> Result<Vec<String>, ToolError> {
    if paths.is_empty() || paths.len() > MAX_PATHS {
        return Err(ToolError::new(format!("{tool}: give 1 to {MAX_PATHS} paths")));
    }
    // "." is the whole repository (each file in it still passes the policy).
    paths.iter().map(|p| if p == "." { Ok(".".to_owned()) } else { checked_path(tool, repo, p) }).collect()
}

/// The pathspecs of checked paths: everything for ".".
fn pathspecs(paths: &[String]) -> Vec<String> {
    if paths.iter().any(|p| p == ".") { vec!["*".to_owned()] } else { paths.to_vec() }
}

fn stage(repo: &Repo, args: &PathsArgs) -> Result<CallToolResult, ToolError> {
    const TOOL: &str = "git_add";
    let fail = |e| git_failed(TOOL, e);
    let paths = pathspecs(&checked_paths(TOOL, repo, &args.paths)?);
    let mut index = repo.repo.index().map_err(fail)?;
    let staged = RefCell::new(Vec::new());
    // Every path libgit2 would stage passes the policy again (a folder's
    // files, one by one); libgit2 itself leaves ignored untracked files out.
    let mut only_served = |path: &std::path::Path, _: &[u8]| -> i32 {
        match path.to_str().filter(|p| (repo.permits)(p)) {
            Some(p) => {
                staged.borrow_mut().push(p.to_owned());
                0
            }
            None => 1,
        }
    };
    index.add_all(&paths, IndexAddOption::DEFAULT, Some(&mut only_served)).map_err(fail)?;
    index.update_all(&paths, Some(&mut only_served)).map_err(fail)?;
    index.write().map_err(fail)?;
    let mut staged = staged.into_inner();
    staged.sort();
    staged.dedup();
    if staged.is_empty() {
        return Ok(CallToolResult::text("Nothing to stage at those paths (no changes).\n"));
    }
    Ok(CallToolResult::text(format!("Staged {} paths:\n{}\n", staged.len(), staged.join("\n"))))
}

fn unstage(repo: &Repo, args: &PathsArgs) -> Result<CallToolResult, ToolError> {
    const TOOL: &str = "git_reset";
    let fail = |e| git_failed(TOOL, e);
    let paths = checked_paths(TOOL, repo, &args.paths)?;
    let git = &repo.repo;
    // Only the staged changes the policy shows are unstaged (a folder's
    // hidden files keep whatever the user staged).
    let head = git.head().ok().and_then(|h| h.peel_to_commit().ok());
    let head_tree = head.as_ref().map(|c| c.tree()).transpose().map_err(fail)?;
    let mut options = git2::DiffOptions::new();
    if !paths.iter().any(|p| p == ".") {
        options.disable_pathspec_match(true);
        for path in &paths {
            options.pathspec(path);
        }
    }
    let diff = git.diff_tree_to_index(head_tree.as_ref(), None, Some(&mut options)).map_err(fail)?;
    let mut files: Vec<String> = diff
        .deltas()
        .filter(|d| repo.permits_delta(d))
        .flat_map(|d| [d.old_file().path(), d.new_file().path()])
        .flatten()
        .filter_map(|p| p.to_str().map(str::to_owned))
        .collect();
    files.sort();
    files.dedup();
    if files.is_empty() {
        return Ok(CallToolResult::text("Nothing staged at those paths.\n"));
    }
    match &head {
        Some(head) => git.reset_default(Some(head.as_object()), &files).map_err(fail)?,
        None => {
            // No commit yet: unstaging is removing from the index.
            let mut index = git.index().map_err(fail)?;
            for file in &files {
                index.remove_path(std::path::Path::new(file)).map_err(fail)?;
            }
            index.write().map_err(fail)?;
        }
    }
    Ok(CallToolResult::text(format!("Unstaged {} paths:\n{}\n", files.len(), files.join("\n"))))
}

fn commit_staged(repo: &Repo, args: &CommitArgs) -> Result<CallToolResult, ToolError> {
    const TOOL: &str = "git_commit";
    let fail = |e| git_failed(TOOL, e);
    let message = args.message.trim();
    if message.is_empty() || message.contains('\0') {
        return Err(ToolError::new(
            "git_commit: give a message (one line, or a subject, a blank line and a body)",
        ));
    }
    let git = &repo.repo;
    let mut index = git.index().map_err(fail)?;
    if index.has_conflicts() {
        return Err(ToolError::new(
            "git_commit: the index has conflicts; resolve them first (see git_status)",
        ));
    }
    let tree = git.find_tree(index.write_tree().map_err(fail)?).map_err(fail)?;
    let parent = git.head().ok().and_then(|h| h.peel_to_commit().ok());
    if parent.as_ref().is_some_and(|p| p.tree_id() == tree.id()) {
        return Err(ToolError::new("git_commit: nothing staged; stage changes with git_add first"));
    }
    let signature = match git.signature() {
        Ok(s) => s,
        Err(_) => Signature::now("switchboard", "switchboard@localhost").map_err(fail)?,
    };
    let parents: Vec<&git2::Commit<'_>> = parent.iter().collect();
    let id = git
        .commit(Some("HEAD"), &signature, &signature, &format!("{message}\n"), &tree, &parents)
        .map_err(fail)?;
    let subject = message.lines().next().unwrap_or("");
    Ok(CallToolResult::text(format!("Committed {} {subject}\n", short(git, id))))
}

fn create_branch(repo: &Repo, args: &BranchArgs) -> Result<CallToolResult, ToolError> {
    const TOOL: &str = "git_create_branch";
    let name = args.name.as_str();
    if name.starts_with('-') || !git2::Branch::name_is_valid(name).unwrap_or(false) {
        return Err(ToolError::new(format!(
            "git_create_branch: {name:?} is not a valid branch name (no spaces, '..', '~', '^', ':', and not \
             starting with '-')"
        )));
    }
    let git = &repo.repo;
    let start = checked_rev(TOOL, args.start.as_deref().unwrap_or("HEAD"))?;
    let commit = resolve(git, start).map_err(|e| failed(TOOL, e))?;
    git.branch(name, &commit, false).map_err(|e| git_failed(TOOL, e))?;
    Ok(CallToolResult::text(format!("Created branch {name} at {}\n", short(git, commit.id()))))
}

fn checkout_rev(repo: &Repo, inner: &Inner, args: &CheckoutArgs) -> Result<CallToolResult, ToolError> {
    const TOOL: &str = "git_checkout";
    let fail = |e| git_failed(TOOL, e);
    let git = &repo.repo;
    let rev = checked_rev(TOOL, &args.rev)?;
    let branch = git.find_branch(rev, BranchType::Local).ok();
    let target = match &branch {
        Some(b) => b.get().peel_to_commit().map_err(fail)?,
        None => resolve(git, rev).map_err(|e| failed(TOOL, e))?,
    };
    let head_tree = git.head().ok().and_then(|h| h.peel_to_tree().ok());
    let target_tree = target.tree().map_err(fail)?;
    let diff = git.diff_tree_to_tree(head_tree.as_ref(), Some(&target_tree), None).map_err(fail)?;
    let (mut refused, mut named) = (0usize, Vec::new());
    for delta in diff.deltas() {
        // A checkout never makes or changes a symlink: a link the model
        // chose would point a later write or a command somewhere the rules
        // never judged.
        let links = [delta.old_file().mode(), delta.new_file().mode()].contains(&git2::FileMode::Link);
        for path in [delta.old_file().path(), delta.new_file().path()].into_iter().flatten() {
            let Some(path) = path.to_str() else {
                refused += 1;
                continue;
            };
            if links || !(inner.writes)(path) {
                refused += 1;
                // Name only what the model may see.
                if (repo.permits)(path) && named.len() < 20 {
                    named.push(path.to_owned());
                }
            }
        }
    }
    if refused > 0 {
        let shown = if named.is_empty() { String::new() } else { format!(": {}", named.join(", ")) };
        return Err(ToolError::new(format!(
            "git_checkout: refused: switching to {rev} would change {refused} files the model may not write \
             (the server's configuration, prompt or skills folders, dotfiles, unserved files, or symlinks){shown}. \
             Nothing was changed."
        )));
    }
    let mut options = CheckoutBuilder::new();
    options.safe();
    git.checkout_tree(target.as_object(), Some(&mut options)).map_err(|e| {
        ToolError::new(format!(
            "git_checkout: {} (commit, stash or discard the local changes to those files first; nothing was \
             changed)",
            e.message()
        ))
    })?;
    match branch.as_ref().and_then(|b| b.get().name().ok().map(str::to_owned)) {
        Some(refname) => git.set_head(&refname).map_err(fail)?,
        None => git.set_head_detached(target.id()).map_err(fail)?,
    }
    let at = short(git, target.id());
    Ok(CallToolResult::text(match branch {
        Some(_) => format!("Switched to branch {rev} at {at}\n"),
        None => format!("HEAD is now detached at {at}\n"),
    }))
}
