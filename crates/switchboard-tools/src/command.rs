//! Command tools: run a configured program with an argv built from
//! validated arguments, in its own process group, with a cleared
//! environment, a timeout and an output cap, optionally in the sandbox
//! (see `sandboxed.rs`), reporting output lines as progress.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Map, Value, json};
use switchboard_server::{CallToolResult, ContentBlock, RequestContext, Tool, ToolError};
use tokio::io::{AsyncRead, AsyncReadExt};

use switchboard_tree::ServedTree;

use crate::argv::{ArgvTemplate, TemplateError};
use crate::error::{Segment, SpecProblem, ToolsError};
use crate::large::{self, LargeOutput, Total};
use crate::paths::PathArguments;
use crate::sandboxed::CommandSandbox;
use crate::spec::{self, CommandToolSpec};

/// How long to wait for the pipes to close after the group was killed.
const DRAIN_GRACE: Duration = Duration::from_secs(2);

/// How often, at most, output lines become a progress notification (4/s):
/// often enough for a client that resets its timeout on progress, rarely
/// enough that a chatty build does not flood the connection.
const PROGRESS_INTERVAL: Duration = Duration::from_millis(250);

/// The longest progress message, in bytes (the rest of the line is cut).
const PROGRESS_LINE_MAX: usize = 200;

/// Everything a call needs, shared by the calls of one tool.
#[derive(Debug)]
struct Runner {
    name: String,
    argv: ArgvTemplate,
    cwd: PathBuf,
    env: Vec<(String, String)>,
    timeout: Duration,
    max_output: usize,
    on_large_output: LargeOutput,
    /// Set when the program runs in the sandbox.
    sandbox: Option<RunSandbox>,
}

/// How one tool's program is contained.
#[derive(Debug)]
struct RunSandbox {
    sandbox: CommandSandbox,
    /// The served folder: written and read.
    folder: PathBuf,
    /// The program's own folders, read.
    program_dirs: Vec<PathBuf>,
    network: bool,
}

/// Builds the tool for `spec` over `tree`: `cwd` resolves against the
/// served folder, and path arguments must pass the tree's policy (see
/// the `paths` module). Fails when the schema, the command template or the
/// working directory is unusable. The program runs unsandboxed; a spec
/// with `sandbox = true` is refused (use [`sandboxed_command_tool`]).
pub fn command_tool(spec: &CommandToolSpec, tree: &ServedTree) -> Result<Tool, ToolsError> {
    sandboxed_command_tool(spec, tree, None)
}

/// [`command_tool`], running the program in `sandbox` when given. A spec
/// with `sandbox = true` and no sandbox given is refused. When `sandbox`
/// holds nothing on this system (no Landlock), every call is refused
/// with a message saying so: a tool meant to be contained never runs
/// uncontained unless its configuration says `sandbox = false`.
pub fn sandboxed_command_tool(
    spec: &CommandToolSpec,
    tree: &ServedTree,
    sandbox: Option<&CommandSandbox>,
) -> Result<Tool, ToolsError> {
    let tool = spec.name.clone();
    let (schema, properties) = spec::input_schema(&tool, spec.input_schema.as_ref())?;
    let argv =
        ArgvTemplate::parse(&spec.command, &properties, spec.allow_leading_dash).map_err(|e| match e {
            TemplateError::Syntax(reason) => ToolsError::BadCommand { tool: tool.clone(), reason },
            TemplateError::Unknown(placeholder) => {
                ToolsError::UnknownPlaceholder { tool: tool.clone(), placeholder, place: "command" }
            }
        })?;
    let cwd = resolve_cwd(&tool, &spec.cwd, tree.base())?;
    let paths = PathArguments::new(&schema, tree.clone(), spec.read_only == Some(true));
    spec::check_limits(&tool, spec.timeout, ("max_output", spec.max_output))?;
    if let Some(problem) = env_problems(&tool, spec).into_iter().next() {
        return Err(problem.error);
    }
    let mut env: Vec<(String, String)> = Vec::new();
    for name in std::iter::once("PATH").chain(spec.env.iter().map(String::as_str)) {
        if let Ok(value) = std::env::var(name) {
            env.push((name.to_owned(), value));
        }
    }
    env.extend(spec.set_env.iter().map(|(k, v)| (k.clone(), v.clone())));
    if spec.sandbox == Some(true) && sandbox.is_none() {
        return Err(ToolsError::InvalidSetting {
            tool,
            setting: "sandbox",
            reason: "no sandbox launcher is configured for command tools here".to_owned(),
        });
    }
    let sandbox = sandbox.map(|sandbox| RunSandbox {
        sandbox: sandbox.clone(),
        folder: tree.base().to_path_buf(),
        program_dirs: switchboard_sandbox::program_dirs(
            spec.command[0].as_ref(),
            // `set_env` comes last and wins, as in the program's environment.
            env.iter().rev().find(|(k, _)| k == "PATH").map(|(_, v)| v.as_ref()),
            &cwd,
        ),
        network: spec.network,
    });
    let runner = Arc::new(Runner {
        name: tool.clone(),
        argv,
        cwd,
        env,
        timeout: spec.timeout,
        max_output: spec.max_output,
        on_large_output: spec.on_large_output,
        sandbox,
    });
    let t = spec
        .metadata()
        .apply(Tool::new(&tool).input_schema(schema).output_schema(output_schema()))
        .task_support(spec.task.support());
    Ok(t.raw_handler(move |mut args: Value, ctx: RequestContext| {
        let runner = Arc::clone(&runner);
        let paths = paths.clone();
        async move {
            paths.resolve(&runner.name, &mut args)?;
            runner.run(args, ctx).await
        }
    }))
}

pub(crate) fn resolve_cwd(tool: &str, cwd: &Path, root: &Path) -> Result<PathBuf, ToolsError> {
    let bad =
        |reason: String| ToolsError::BadCwd { tool: tool.to_owned(), cwd: cwd.display().to_string(), reason };
    let root = root.canonicalize().map_err(|e| bad(format!("the served root is not usable: {e}")))?;
    let dir = root.join(cwd).canonicalize().map_err(|e| bad(format!("not an existing directory: {e}")))?;
    if !dir.starts_with(&root) {
        return Err(bad(format!("it is outside the served root {}", root.display())));
    }
    if !dir.is_dir() {
        return Err(bad("not a directory".to_owned()));
    }
    Ok(dir)
}

/// Variable names must be non-empty without `=` or NUL, values without NUL:
/// anything else cannot be put in a process environment. Every such
/// problem, placed on its entry.
pub(crate) fn env_problems(tool: &str, spec: &CommandToolSpec) -> Vec<SpecProblem> {
    let bad = |setting: &'static str, reason: String| ToolsError::InvalidSetting {
        tool: tool.to_owned(),
        setting,
        reason,
    };
    let bad_name = |name: &str| name.is_empty() || name.contains(['=', '\0']);
    let name_reason =
        |name: &str| format!("{name:?} is not a valid variable name; use one like \"RUST_LOG\"");
    let mut problems: Vec<SpecProblem> = (spec.env.iter().enumerate())
        .filter(|(_, n)| bad_name(n))
        .map(|(i, n)| SpecProblem::at(["env".into(), Segment::Index(i)], bad("env", name_reason(n))))
        .collect();
    for (name, value) in &spec.set_env {
        let at = ["set_env".into(), Segment::Key(name.clone())];
        if bad_name(name) {
            problems.push(SpecProblem::at(at, bad("set_env", name_reason(name))).on_key());
        } else if value.contains('\0') {
            problems.push(SpecProblem::at(
                at,
                bad("set_env", format!("the value of {name:?} contains a NUL byte")),
            ));
        }
    }
    problems
}

fn output_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "exitCode": {"type": ["integer", "null"], "description": "null when killed by a signal"},
            "stdout": {"type": "string"},
            "stderr": {"type": "string"},
            "truncated": {"type": "boolean"},
            "timedOut": {"type": "boolean"},
            "totalBytes": {"type": "integer", "description": "bytes the program wrote, stdout and stderr together"}
        },
        "required": ["exitCode", "stdout", "stderr", "truncated", "timedOut", "totalBytes"]
    })
}

/// Output kept from one stream, up to a cap; the rest is counted and dropped.
#[derive(Debug, Default)]
struct Capped {
    kept: Vec<u8>,
    /// Every byte read, kept or not.
    total: u64,
}

/// The complete output lines so far (stdout and stderr), for progress.
#[derive(Debug, Default)]
struct Lines {
    count: u64,
    /// The last complete, non-blank line, cut to [`PROGRESS_LINE_MAX`].
    last: String,
}

impl Lines {
    /// Counts the lines `chunk` completes; `partial` is the stream's line
    /// so far (kept up to [`PROGRESS_LINE_MAX`] bytes).
    fn add(&mut self, partial: &mut Vec<u8>, chunk: &[u8]) {
        for &byte in chunk {
            if byte == b'\n' {
                self.count += 1;
                let line = String::from_utf8_lossy(partial);
                if !line.trim().is_empty() {
                    self.last = line.trim().to_owned();
                }
                partial.clear();
            } else if partial.len() < PROGRESS_LINE_MAX {
                partial.push(byte);
            }
        }
    }
}

async fn drain(
    mut stream: impl AsyncRead + Unpin,
    cap: usize,
    into: Arc<Mutex<Capped>>,
    lines: Arc<Mutex<Lines>>,
) {
    let mut buf = [0u8; 8192];
    let mut partial = Vec::new();
    loop {
        match stream.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                {
                    let mut c = into.lock().unwrap_or_else(|p| p.into_inner());
                    let room = cap.saturating_sub(c.kept.len());
                    c.kept.extend_from_slice(&buf[..n.min(room)]);
                    c.total += n as u64;
                }
                lines.lock().unwrap_or_else(|p| p.into_inner()).add(&mut partial, &buf[..n]);
            }
        }
    }
}

/// Sends a progress notification when lines were completed since `sent`:
/// progress is the number of lines, the message the last one.
async fn report_progress(ctx: &RequestContext, lines: &Mutex<Lines>, sent: &mut u64) {
    let (count, last) = {
        let lines = lines.lock().unwrap_or_else(|p| p.into_inner());
        (lines.count, lines.last.clone())
    };
    if count > *sent {
        *sent = count;
        ctx.progress(count as f64, None, Some(&last)).await;
    }
}

fn take(c: &Mutex<Capped>) -> Capped {
    std::mem::take(&mut *c.lock().unwrap_or_else(|p| p.into_inner()))
}

enum Ending {
    Exited(std::process::ExitStatus),
    TimedOut,
    Cancelled,
}

impl Runner {
    async fn run(&self, args: Value, ctx: RequestContext) -> Result<CallToolResult, ToolError> {
        let args = match args {
            Value::Object(m) => m,
            _ => Map::new(),
        };
        let argv = self.argv.expand(&args).map_err(|e| ToolError::new(format!("{}: {e}", self.name)))?;
        let program = self.argv.program();
        // The private temporary folder lives until this call returns.
        let (mut command, temp) = match &self.sandbox {
            Some(sandbox) => {
                let (command, temp) = self.sandboxed(sandbox, program, &argv)?;
                (command, Some(temp))
            }
            None => {
                let mut command = tokio::process::Command::new(program);
                command.args(&argv);
                (command, None)
            }
        };
        command
            .current_dir(&self.cwd)
            .env_clear()
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        if let Some(temp) = &temp {
            for name in ["TMPDIR", "TMP", "TEMP"] {
                command.env(name, temp.path());
            }
        }
        // In a process group of its own, registered: `group` kills it and
        // everything it started when dropped (so a cancelled call, whose
        // future the server drops, kills them too), and so does
        // `switchboard_process::kill_all` when switchboard stops.
        let (mut child, mut group) = switchboard_process::spawn(&mut command).map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                ToolError::new(format!(
                    "{}: program {program:?} was not found (is it installed and on PATH?)",
                    self.name
                ))
            } else {
                ToolError::new(format!("{}: cannot start program {program:?}: {e}", self.name))
            }
        })?;
        let out = Arc::new(Mutex::new(Capped::default()));
        let err = Arc::new(Mutex::new(Capped::default()));
        let lines = Arc::new(Mutex::new(Lines::default()));
        let mut readers = Vec::new();
        if let Some(s) = child.stdout.take() {
            readers.push(tokio::spawn(drain(s, self.max_output, Arc::clone(&out), Arc::clone(&lines))));
        }
        if let Some(s) = child.stderr.take() {
            readers.push(tokio::spawn(drain(s, self.max_output, Arc::clone(&err), Arc::clone(&lines))));
        }
        let finished = async {
            let ended = async {
                let status = child.wait().await;
                for r in &mut readers {
                    let _ = r.await;
                }
                status
            };
            tokio::pin!(ended);
            let mut tick = tokio::time::interval(PROGRESS_INTERVAL);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            let mut sent = 0;
            loop {
                tokio::select! {
                    status = &mut ended => break status,
                    _ = tick.tick(), if ctx.progress_token().is_some() => {
                        report_progress(&ctx, &lines, &mut sent).await;
                    }
                }
            }
        };
        let ending = tokio::select! {
            status = finished => Ending::Exited(status.map_err(|e| ToolError::new(format!("{}: waiting for {program:?} failed: {e}", self.name)))?),
            () = tokio::time::sleep(self.timeout) => Ending::TimedOut,
            () = ctx.cancelled() => Ending::Cancelled,
        };
        if matches!(ending, Ending::Exited(_)) {
            // What the program left running in its group (`cmd &`) ends with
            // the call, as on a timeout. The leader was reaped, but its id
            // stays taken while any member lives; with none left the kill
            // finds nothing (another group taking that id in between would
            // need the pid counter to wrap within microseconds).
            group.kill();
        } else {
            group.kill();
            let _ = child.kill().await;
            for r in readers {
                let abort = r.abort_handle();
                if tokio::time::timeout(DRAIN_GRACE, r).await.is_err() {
                    abort.abort();
                }
            }
        }
        let (stdout, stderr) = (take(&out), take(&err));
        let output = self.shape(stdout, stderr);
        match ending {
            Ending::Cancelled => {
                Err(ToolError::new(format!("{}: cancelled; the program was killed", self.name)))
            }
            Ending::TimedOut => {
                let secs = self.timeout.as_secs_f64();
                let head = format!("{}: timed out after {secs} s; the program was killed", self.name);
                Ok(self.result(head, None, output, true))
            }
            Ending::Exited(status) => {
                let code = status.code();
                let head = match code {
                    Some(0) => "exit code 0".to_owned(),
                    Some(c) => format!("{}: the program exited with code {c}", self.name),
                    None => format!("{}: the program was killed by a signal ({status})", self.name),
                };
                Ok(self.result(head, code, output, false))
            }
        }
    }

    /// The launcher command that runs `program` with `argv` in `sandbox`,
    /// and the private temporary folder it may write (removed when
    /// dropped). Refused when this system's Landlock holds nothing.
    fn sandboxed(
        &self,
        sandbox: &RunSandbox,
        program: &str,
        argv: &[String],
    ) -> Result<(tokio::process::Command, tempfile::TempDir), ToolError> {
        if !sandbox.sandbox.support.filesystem {
            return Err(ToolError::new(format!(
                "{}: refused: this tool runs in the sandbox, and {}. Ask the user to run it on Linux with \
                 Landlock, or to set sandbox = false for this tool in switchboard.toml",
                self.name,
                sandbox.sandbox.support.describe()
            )));
        }
        let temp = tempfile::Builder::new().prefix("switchboard-command-").tempdir().map_err(|e| {
            ToolError::new(format!("{}: cannot create the private temporary folder: {e}", self.name))
        })?;
        let policy = switchboard_sandbox::Policy::new(&sandbox.folder, temp.path())
            .with_read(sandbox.program_dirs.iter().cloned())
            .with_read(sandbox.sandbox.read.iter().cloned())
            .with_write(sandbox.sandbox.write.iter().cloned())
            .with_read_only(sandbox.sandbox.read_only.iter().cloned())
            .with_hidden(sandbox.sandbox.hidden.iter().cloned())
            .with_network(sandbox.network);
        let args: Vec<std::ffi::OsString> = argv.iter().map(Into::into).collect();
        let command = sandbox
            .sandbox
            .launcher
            .command(&policy, program.as_ref(), &args)
            .map_err(|e| ToolError::new(format!("{}: {e}", self.name)))?;
        Ok((tokio::process::Command::from(command), temp))
    }

    /// Applies the shared cap: stdout first, stderr gets what is left.
    fn shape(&self, stdout: Capped, stderr: Capped) -> Output {
        let total = stdout.total + stderr.total;
        let out = String::from_utf8_lossy(&stdout.kept).into_owned();
        let room = self.max_output.saturating_sub(stdout.kept.len());
        let mut err_bytes = stderr.kept;
        err_bytes.truncate(room);
        let kept = stdout.kept.len() + err_bytes.len();
        Output { stdout: out, stderr: String::from_utf8_lossy(&err_bytes).into_owned(), kept, total }
    }

    /// The result: the output (with a notice when cut, or an error under
    /// `on_large_output = "error"`), the head line when it failed.
    fn result(&self, head: String, code: Option<i32>, output: Output, timed_out: bool) -> CallToolResult {
        let truncated = output.total > output.kept as u64;
        let refused = truncated && self.on_large_output == LargeOutput::Error;
        let is_error = timed_out || code != Some(0) || refused;
        let limit = ("max_output", self.max_output);
        let mut text = if is_error && !refused { format!("{head}\n") } else { String::new() };
        if refused {
            text.push_str(&large::refusal(&self.name, "output", Total::Exact(output.total), limit));
            if code != Some(0) {
                text.push_str(&format!("\n{head}"));
            }
        } else {
            text.push_str(&output.stdout);
            if !output.stderr.is_empty() {
                if !text.is_empty() && !text.ends_with('\n') {
                    text.push('\n');
                }
                text.push_str("--- stderr ---\n");
                text.push_str(&output.stderr);
            }
            if truncated {
                if !text.ends_with('\n') {
                    text.push('\n');
                }
                let total = Total::Exact(output.total);
                text.push_str(&large::truncation_notice("output", output.kept, total, limit));
            }
        }
        if text.is_empty() {
            text.push_str("(no output)");
        }
        let structured = json!({
            "exitCode": code,
            "stdout": output.stdout,
            "stderr": output.stderr,
            "truncated": truncated,
            "timedOut": timed_out,
            "totalBytes": output.total,
        });
        CallToolResult {
            content: vec![ContentBlock::text(text)],
            structured_content: Some(structured),
            is_error: is_error.then_some(true),
            meta: None,
        }
    }
}

/// What a run printed, cut to the cap.
struct Output {
    stdout: String,
    stderr: String,
    /// Bytes kept, stdout and stderr together.
    kept: usize,
    /// Bytes written, stdout and stderr together.
    total: u64,
}

/// The files of the served folder `root` that `spec` runs directly: its
/// program when that is a file of the folder (`./scripts/test.sh`, or a
/// name found on a `PATH` entry inside it), and each literal argument that
/// names a script by path (`["python3", "tools/gen.py"]`, `["node",
/// "./build.js"]`). They need not exist yet: the model must not create
/// them either.
///
/// The project makes them protected paths of the served tree, so no write
/// tool and no path argument of another command tool can change what a
/// command runs. A literal argument counts when it is a file (not a
/// folder) relative to the tool's working directory, or, when nothing
/// is there yet, when it looks like a file path (it holds a `/` or a
/// `.`); options (`-x`), placeholders and text with spaces (a shell
/// snippet) do not count. What the program itself then loads (`cargo
/// test` compiling `tests/`, `make` reading a Makefile) is not listed:
/// the sandbox contains that.
pub fn files_run_by(spec: &CommandToolSpec, root: &Path) -> Vec<PathBuf> {
    files_run_by_argv(&spec.command, &spec.cwd, root)
}

/// [`files_run_by`] for any argv started in `cwd` (relative to `root`):
/// the same rule for every program switchboard starts, a command tool's or
/// a stdio upstream server's.
pub fn files_run_by_argv(command: &[String], cwd: &Path, root: &Path) -> Vec<PathBuf> {
    let Ok(root) = root.canonicalize() else { return Vec::new() };
    let cwd = resolve_cwd("", cwd, &root).unwrap_or_else(|_| root.join(cwd));
    let Some((program, args)) = command.split_first() else { return Vec::new() };
    let mut files = Vec::new();
    if !program.contains('{') {
        match spec::find_program(program, &cwd) {
            Ok(found) => files.push(found),
            Err(_) if program.contains('/') => files.push(cwd.join(program)),
            Err(_) => {}
        }
    }
    files.extend(args.iter().filter(|arg| names_a_script(arg, &cwd)).map(|arg| cwd.join(arg)));
    files.into_iter().filter_map(|file| inside(&file, &root)).collect()
}

/// Whether the literal argument `arg` names a script run from `cwd`.
fn names_a_script(arg: &str, cwd: &Path) -> bool {
    if arg.is_empty()
        || arg.starts_with('-')
        || arg.contains(['{', '}', '='])
        || arg.contains(char::is_whitespace)
    {
        return false;
    }
    let path = cwd.join(arg);
    match path.metadata() {
        Ok(meta) => meta.is_file(),
        Err(_) => arg.contains(['/', '.']),
    }
}

/// `file` with `.` and `..` resolved (through its longest existing
/// ancestor), when that is inside `root`.
fn inside(file: &Path, root: &Path) -> Option<PathBuf> {
    let mut missing = Vec::new();
    let mut existing = file.to_path_buf();
    let resolved = loop {
        if let Ok(canonical) = existing.canonicalize() {
            break missing.iter().rev().fold(canonical, |path, name: &std::ffi::OsString| path.join(name));
        }
        let name = existing.file_name()?.to_os_string();
        if name == ".." {
            return None;
        }
        missing.push(name);
        existing = existing.parent()?.to_path_buf();
    };
    resolved.starts_with(root).then_some(resolved)
}

impl CommandToolSpec {
    /// Every problem of this tool at once, each placed on its key: what
    /// [`crate::command_tool`] refuses (name, schema, placeholders, `cwd`,
    /// limits, environment), and a program that cannot be found — on
    /// `PATH`, or for a path with a `/`, relative to the tool's working
    /// directory under `root` (the served folder), where it will run.
    pub fn problems(&self, root: &Path) -> Vec<SpecProblem> {
        let tool = self.name.as_str();
        let mut problems: Vec<SpecProblem> = spec::name_problem(tool).into_iter().collect();
        match spec::schema_checked(tool, self.input_schema.as_ref()) {
            Ok(properties) => problems.extend(self.command_problems(&properties)),
            Err(problem) => {
                problems.push(problem);
                if let Some(properties) = spec::declared_properties(self.input_schema.as_ref()) {
                    problems.extend(self.command_problems(&properties));
                }
            }
        }
        let cwd = match resolve_cwd(tool, &self.cwd, root) {
            Ok(cwd) => Some(cwd),
            Err(error) => {
                problems.push(SpecProblem::at(["cwd".into()], error));
                None
            }
        };
        if let (Some(cwd), Some(program)) = (cwd, self.command.first())
            && !program.contains('{')
            && let Err(reason) = spec::find_program(program, &cwd)
        {
            let error =
                ToolsError::MissingProgram { tool: tool.to_owned(), program: program.clone(), reason };
            problems.push(SpecProblem::at(["command".into(), Segment::Index(0)], error));
        }
        problems.extend(spec::limit_problems(tool, self.timeout, ("max_output", self.max_output)));
        problems.extend(env_problems(tool, self));
        problems
    }

    /// The argv template's problems, by element.
    fn command_problems(&self, properties: &[String]) -> impl Iterator<Item = SpecProblem> {
        let tool = self.name.clone();
        crate::argv::problems(&self.command, properties).into_iter().map(move |(index, e)| {
            let error = match e {
                crate::argv::TemplateError::Syntax(reason) => {
                    ToolsError::BadCommand { tool: tool.clone(), reason }
                }
                crate::argv::TemplateError::Unknown(placeholder) => {
                    ToolsError::UnknownPlaceholder { tool: tool.clone(), placeholder, place: "command" }
                }
            };
            SpecProblem::at(std::iter::once("command".into()).chain(index.map(Segment::Index)), error)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(command: &[&str]) -> CommandToolSpec {
        serde_json::from_value(json!({"name": "t", "command": command})).unwrap()
    }

    #[test]
    fn the_files_a_command_runs_are_its_program_and_script_arguments_not_folders_or_options() {
        let root = tempfile::tempdir().unwrap();
        let base = root.path().canonicalize().unwrap();
        std::fs::create_dir_all(base.join("src")).unwrap();
        std::fs::write(base.join("Makefile"), "all:\n").unwrap();
        let files = |command: &[&str]| files_run_by(&spec(command), &base);
        assert_eq!(files(&["./scripts/test.sh"]), [base.join("scripts/test.sh")]);
        assert_eq!(files(&["python3", "tools/gen.py", "{arg}"]), [base.join("tools/gen.py")]);
        assert_eq!(files(&["make", "-f", "Makefile"]), [base.join("Makefile")]);
        // A folder, an option, a word, a shell snippet and a path outside are not scripts.
        assert!(
            files(&["ls", "src", "--all", "test", "echo a/b c", "../outside.sh", "/etc/x.sh"]).is_empty()
        );
    }
}
