//! A Landlock sandbox for the programs switchboard runs for command tools.
//!
//! Why: a model that can write files can change what a command runs
//! (`cargo test` compiles the tests it wrote, `make` reads its Makefile).
//! Refusing the write is not always possible, so what runs is contained
//! instead: it may write only the served folder and a private temporary
//! folder, read only the folder, the system and the toolchains, and
//! (unless allowed) not use TCP, connect to abstract UNIX sockets made
//! outside the sandbox or signal processes outside it.
//!
//! How, without `unsafe`: Landlock restricts the calling thread and what it
//! starts afterwards, so the restriction must be applied in the child
//! between fork and exec. `pre_exec` would need `unsafe`; instead the
//! child is a *launcher*: a binary that, first thing in `main`, applies the
//! ruleset to itself ([`launch_if_asked`]) and `exec`s the program, which
//! inherits the restriction. The server side describes a [`Policy`] and
//! builds the launcher's command line with [`Launcher::command`].
//!
//! A framework binary enables it in two steps:
//!
//! ```no_run
//! // 1. First thing in main, before any thread or runtime starts:
//! if let Some(code) = switchboard_sandbox::launch_if_asked() {
//!     std::process::exit(code);
//! }
//! // 2. Where a command is started, run it through the launcher (here
//! //    this very binary) under a policy.
//! let launcher = switchboard_sandbox::Launcher::current_exe().unwrap();
//! let folder = std::path::Path::new("/srv/project");
//! let temp = tempfile::tempdir().unwrap();
//! let policy = switchboard_sandbox::Policy::new(folder, temp.path());
//! let command = launcher.command(&policy, "cargo".as_ref(), &["test".into()]).unwrap();
//! ```
//!
//! Where Landlock is missing (another OS, an old kernel, Landlock not
//! enabled at boot), [`Support::detect`] says so and the launcher refuses
//! to run the program ([`SandboxError::Unavailable`]): a caller that wants
//! the program to run unsandboxed must not use the launcher.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The first argument that makes a binary act as the launcher.
pub const SUBCOMMAND: &str = "__sandbox-exec";

/// Exit status of the launcher when the sandbox cannot be applied or the
/// program cannot be run (as shells do for "cannot execute").
pub const EXIT_CANNOT_RUN: i32 = 126;
/// Exit status of the launcher when the program does not exist.
pub const EXIT_NOT_FOUND: i32 = 127;

/// What can go wrong describing, launching or applying a sandbox.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    /// A path of the policy is not UTF-8 (the policy travels as JSON).
    #[error("the sandbox policy cannot be passed to the launcher: {0}")]
    Encode(serde_json::Error),
    /// The launcher was called with arguments it does not understand.
    #[error("usage: {SUBCOMMAND} POLICY -- PROGRAM [ARGS...] ({0})")]
    Usage(String),
    /// This system has no Landlock, so nothing can be contained.
    #[error("Landlock is not available here ({0}); the program was not run")]
    Unavailable(String),
    /// Landlock refused the ruleset.
    #[error("cannot apply the sandbox: {0}")]
    Landlock(String),
    /// `exec` failed.
    #[error("cannot run {program:?}: {source}")]
    Exec {
        /// The program.
        program: String,
        /// Why.
        source: std::io::Error,
    },
}

/// What a sandboxed program may do. Paths that do not exist are skipped
/// when the ruleset is built.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Policy {
    /// Folders (and everything beneath) and files it may read and execute.
    pub read: Vec<PathBuf>,
    /// Folders and files it may read, write, create and remove in.
    pub write: Vec<PathBuf>,
    /// Whether TCP `connect` and `bind` are allowed.
    pub network: bool,
    /// Paths inside writable folders that stay read-only: each existing
    /// one is bind-mounted read-only over itself in a private mount
    /// namespace before Landlock applies (Landlock grants whole subtrees
    /// and cannot carve a file out of a writable folder). Landlock then
    /// forbids the program to change mounts, and a mount point cannot be
    /// renamed or removed, so give top-level entries of a writable folder
    /// (a file or folder inside a writable folder whose parent is not
    /// held can be sidestepped by renaming that parent). Where no mount
    /// namespace can be made (no user namespaces for a user other than
    /// root), the program still runs, with a warning on its stderr.
    #[serde(default)]
    pub read_only: Vec<PathBuf>,
    /// Files the program may not read although their folder is readable:
    /// what the server never serves to the model (a database file, which
    /// would read around `exclude`; the file the secrets come from). Each
    /// existing one has an empty read-only file bound over it in the same
    /// private mount namespace, after the read-only holds, so the program
    /// reads nothing from it and cannot write it (Landlock cannot carve a file out of a readable
    /// folder either). Where no mount namespace can be made, the program
    /// still runs, with a warning on its stderr.
    #[serde(default)]
    pub hidden: Vec<PathBuf>,
}

/// System paths every command may read, each for a reason:
///
/// - `/usr`, `/bin`, `/sbin`, `/lib*`: programs and their shared libraries;
///   nothing runs without them;
/// - `/opt`: toolchains installed outside the package manager;
/// - the `/etc` files programs need to start and resolve names, users,
///   certificates and time zones (`ld.so.cache`, `passwd`, `group`,
///   `nsswitch.conf`, `hosts`, `resolv.conf`, `ssl/`, `localtime`, the
///   system `gitconfig`…) — not all of `/etc`, which holds `shadow` and
///   host keys that root could read;
/// - of `/proc`, the program's own `/proc/self` (resolved when the
///   sandbox is applied, so the processes it starts do not get theirs)
///   and the machine-wide files runtimes read (`cpuinfo`, `meminfo`,
///   `stat`, `loadavg`, `uptime`, `version`, `filesystems`, `sys/`) —
///   not the folders of other processes: the `environ` of switchboard
///   itself, its parent, would otherwise be readable (measured on Linux
///   6.18: Landlock's ptrace rule does not stop it);
/// - `/sys/fs/cgroup` and `/sys/devices/system/cpu`: how many CPUs the
///   program may use (cargo, rustc, make -j);
/// - `/dev/random`, `/dev/urandom`: randomness. Not the rest of `/dev`,
///   where root could read raw disks.
pub const SYSTEM_READ: &[&str] = &[
    "/usr",
    "/bin",
    "/sbin",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/opt",
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/passwd",
    "/etc/group",
    "/etc/nsswitch.conf",
    "/etc/hosts",
    "/etc/host.conf",
    "/etc/resolv.conf",
    "/etc/gai.conf",
    "/etc/services",
    "/etc/protocols",
    "/etc/ssl",
    "/etc/ca-certificates",
    "/etc/pki",
    "/etc/localtime",
    "/etc/timezone",
    "/etc/os-release",
    "/etc/alternatives",
    "/etc/gitconfig",
    "/etc/mime.types",
    "/etc/locale.alias",
    "/proc/self",
    "/proc/cpuinfo",
    "/proc/meminfo",
    "/proc/stat",
    "/proc/loadavg",
    "/proc/uptime",
    "/proc/version",
    "/proc/filesystems",
    "/proc/sys",
    "/sys/fs/cgroup",
    "/sys/devices/system/cpu",
    "/dev/random",
    "/dev/urandom",
];

/// Device files every command may write (and read): output thrown away
/// and zeros. Not `/dev/tty`: through switchboard's terminal (run by hand,
/// `switchboard call`) a command could type into the user's shell
/// (`TIOCSTI`); its own output goes to pipes anyway.
pub const DEVICES: &[&str] = &["/dev/null", "/dev/zero", "/dev/full"];

/// The toolchains and settings under the user's home that commands need,
/// given a way to read environment variables: cargo's binaries, registry
/// and configuration (`$CARGO_HOME` or `~/.cargo`, but not its
/// `credentials.toml`), `$RUSTUP_HOME` or `~/.rustup`, `$PYENV_ROOT` or
/// `~/.pyenv`, `$NVM_DIR` or `~/.nvm`, `$VOLTA_HOME` or `~/.volta`,
/// `~/.local/bin` and `~/.local/lib` (`pip --user`), and git's settings
/// (`~/.gitconfig`, `$XDG_CONFIG_HOME/git` or `~/.config/git`: git stops
/// with an error when `HOME` is set and `~/.gitconfig` exists but cannot
/// be read). Nothing else of the home folder (keys, tokens, history).
pub fn toolchain_reads(var: impl Fn(&str) -> Option<OsString>) -> Vec<PathBuf> {
    let home = var("HOME").filter(|h| !h.is_empty()).map(PathBuf::from);
    let or_home = |name: &str, rel: &str| -> Option<PathBuf> {
        var(name).filter(|v| !v.is_empty()).map(PathBuf::from).or_else(|| home.as_ref().map(|h| h.join(rel)))
    };
    let mut paths = Vec::new();
    if let Some(cargo) = or_home("CARGO_HOME", ".cargo") {
        for part in ["bin", "registry", "git", "config.toml", "config", "env"] {
            paths.push(cargo.join(part));
        }
    }
    paths.extend(or_home("RUSTUP_HOME", ".rustup"));
    paths.extend(or_home("PYENV_ROOT", ".pyenv"));
    paths.extend(or_home("NVM_DIR", ".nvm"));
    paths.extend(or_home("VOLTA_HOME", ".volta"));
    paths.extend(or_home("XDG_CONFIG_HOME", ".config").map(|c| c.join("git")));
    if let Some(home) = &home {
        paths.extend([".local/bin", ".local/lib", ".gitconfig"].map(|rel| home.join(rel)));
    }
    paths
}

/// The folders a program lives in, so that a program outside the system
/// folders (a toolchain under `~`) can be run: where `program` is found
/// (on `path`, or relative to `cwd` when it holds a `/`) and, when that is
/// a symlink, the folder of its target.
pub fn program_dirs(program: &OsStr, path: Option<&OsStr>, cwd: &Path) -> Vec<PathBuf> {
    let program = Path::new(program);
    let found = if program.components().count() > 1 {
        Some(cwd.join(program)).filter(|p| p.is_file())
    } else {
        path.and_then(|path| {
            std::env::split_paths(path).map(|dir| cwd.join(dir).join(program)).find(|p| p.is_file())
        })
    };
    let Some(found) = found else { return Vec::new() };
    let mut dirs: Vec<PathBuf> = found.parent().map(Path::to_path_buf).into_iter().collect();
    if let Some(target_dir) = found.canonicalize().ok().and_then(|t| t.parent().map(Path::to_path_buf))
        && !dirs.contains(&target_dir)
    {
        dirs.push(target_dir);
    }
    dirs
}

impl Policy {
    /// The policy of a command working in `folder` with the private
    /// temporary folder `temp`: writes to those two and [`DEVICES`];
    /// reads of [`SYSTEM_READ`] and the [`toolchain_reads`] of this
    /// process's environment; no network.
    pub fn new(folder: &Path, temp: &Path) -> Self {
        let mut write = vec![folder.to_path_buf(), temp.to_path_buf()];
        write.extend(DEVICES.iter().map(PathBuf::from));
        let mut read: Vec<PathBuf> = SYSTEM_READ.iter().map(PathBuf::from).collect();
        read.extend(toolchain_reads(|name| std::env::var_os(name)));
        Self { read, write, network: false, read_only: Vec::new(), hidden: Vec::new() }
    }

    /// Adds files the program may not read (see [`Policy::hidden`]).
    pub fn with_hidden(mut self, paths: impl IntoIterator<Item = PathBuf>) -> Self {
        self.hidden.extend(paths);
        self
    }

    /// Adds paths held read-only (see [`Policy::read_only`]).
    pub fn with_read_only(mut self, paths: impl IntoIterator<Item = PathBuf>) -> Self {
        self.read_only.extend(paths);
        self
    }

    /// Adds paths it may read.
    pub fn with_read(mut self, paths: impl IntoIterator<Item = PathBuf>) -> Self {
        self.read.extend(paths);
        self
    }

    /// Adds paths it may write.
    pub fn with_write(mut self, paths: impl IntoIterator<Item = PathBuf>) -> Self {
        self.write.extend(paths);
        self
    }

    /// Allows (or not) TCP.
    pub fn with_network(mut self, network: bool) -> Self {
        self.network = network;
        self
    }
}

/// The program that applies a policy and then becomes the command: a
/// binary whose `main` starts with [`launch_if_asked`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Launcher {
    program: PathBuf,
}

impl Launcher {
    /// The launcher at `program`.
    pub fn new(program: impl Into<PathBuf>) -> Self {
        Self { program: program.into() }
    }

    /// This very binary as the launcher.
    pub fn current_exe() -> std::io::Result<Self> {
        std::env::current_exe().map(Self::new)
    }

    /// The launcher's path.
    pub fn program(&self) -> &Path {
        &self.program
    }

    /// A command that runs `program` with `args` under `policy`. Set its
    /// working folder, environment and pipes as for `program` itself: the
    /// launcher keeps them when it becomes the program.
    pub fn command(
        &self,
        policy: &Policy,
        program: &OsStr,
        args: &[OsString],
    ) -> Result<std::process::Command, SandboxError> {
        let encoded = serde_json::to_string(policy).map_err(SandboxError::Encode)?;
        let mut command = std::process::Command::new(&self.program);
        command.arg(SUBCOMMAND).arg(encoded).arg("--").arg(program).args(args);
        Ok(command)
    }
}

/// What this system's Landlock can hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Support {
    /// File reads and writes (Landlock ABI 1).
    pub filesystem: bool,
    /// TCP connect and bind (ABI 4).
    pub tcp: bool,
    /// Abstract UNIX sockets and signals scoped to the sandbox (ABI 6).
    pub scopes: bool,
}

impl Support {
    /// Asks the kernel (without restricting anything).
    pub fn detect() -> Self {
        imp::detect()
    }

    /// One line for people: what is held and what is missing.
    pub fn describe(&self) -> String {
        if !self.filesystem {
            return "Landlock is not available (an older kernel, Landlock not enabled at boot, or not \
                    Linux): command tools cannot be sandboxed"
                .to_owned();
        }
        let mut missing = Vec::new();
        if !self.tcp {
            missing.push("TCP (commands keep the network)");
        }
        if !self.scopes {
            missing.push("abstract UNIX sockets and signals");
        }
        if missing.is_empty() {
            "Landlock: files, TCP, abstract UNIX sockets and signals".to_owned()
        } else {
            format!("Landlock: files only; this kernel cannot restrict {}", missing.join(", "))
        }
    }
}

/// Call first in `main`, before any thread starts. When this process was
/// started as the launcher (`BINARY __sandbox-exec POLICY -- PROGRAM
/// ARGS…`), applies the policy and becomes the program: it returns only
/// when that failed, with the exit status to end with (after printing why
/// on stderr). Otherwise returns `None` at once.
pub fn launch_if_asked() -> Option<i32> {
    let mut args = std::env::args_os().skip(1);
    if args.next().as_deref() != Some(OsStr::new(SUBCOMMAND)) {
        return None;
    }
    let error = exec(args);
    eprintln!("switchboard sandbox: {error}");
    Some(match &error {
        SandboxError::Exec { source, .. } if source.kind() == std::io::ErrorKind::NotFound => EXIT_NOT_FOUND,
        _ => EXIT_CANNOT_RUN,
    })
}

/// The launcher: `args` are `POLICY -- PROGRAM ARGS…`. Returns only on
/// failure.
pub fn exec(args: impl IntoIterator<Item = OsString>) -> SandboxError {
    let mut args = args.into_iter();
    let (Some(policy), Some(dashes), Some(program)) = (args.next(), args.next(), args.next()) else {
        return SandboxError::Usage("missing arguments".to_owned());
    };
    if dashes != "--" {
        return SandboxError::Usage("the policy must be followed by --".to_owned());
    }
    let policy: Policy = match policy.to_str().map(serde_json::from_str) {
        Some(Ok(policy)) => policy,
        Some(Err(e)) => return SandboxError::Usage(format!("the policy is not valid: {e}")),
        None => return SandboxError::Usage("the policy is not UTF-8".to_owned()),
    };
    if let Err(reason) = imp::hold_read_only(&policy.read_only, &policy.hidden) {
        eprintln!(
            "switchboard sandbox: warning: {reason}; they stay writable (and hidden files readable) for this program"
        );
    }
    if let Err(e) = imp::restrict(&policy) {
        return e;
    }
    if let Err(e) = imp::drop_capabilities() {
        return e;
    }
    imp::exec(&program, args)
}

#[cfg(target_os = "linux")]
mod imp {
    use std::ffi::OsString;
    use std::path::{Path, PathBuf};

    use landlock::{
        ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, Ruleset, RulesetAttr, RulesetCreatedAttr,
        RulesetStatus, Scope, path_beneath_rules,
    };

    use super::{Policy, SandboxError, Support};

    /// The Landlock ABI the rules are written for: 7 (Linux 6.15), the
    /// newest tested. On an older kernel what it lacks is dropped (best
    /// effort), which [`Support::detect`] reports at start; newer rights
    /// (UDP in ABI 9) are not asked for until they are tested.
    const TARGET: ABI = ABI::V7;

    pub(super) fn detect() -> Support {
        let hard = || Ruleset::default().set_compatibility(CompatLevel::HardRequirement);
        let filesystem = hard().handle_access(AccessFs::from_all(ABI::V1)).and_then(|r| r.create()).is_ok();
        let tcp = hard().handle_access(AccessNet::from_all(ABI::V4)).and_then(|r| r.create()).is_ok();
        let scopes = hard().scope(Scope::from_all(ABI::V6)).and_then(|r| r.create()).is_ok();
        Support { filesystem, tcp, scopes }
    }

    pub(super) fn restrict(policy: &Policy) -> Result<(), SandboxError> {
        let failed = |e: landlock::RulesetError| SandboxError::Landlock(e.to_string());
        let mut ruleset = Ruleset::default().handle_access(AccessFs::from_all(TARGET)).map_err(failed)?;
        if !policy.network {
            ruleset = ruleset.handle_access(AccessNet::from_all(TARGET)).map_err(failed)?;
        }
        let status = ruleset
            .scope(Scope::from_all(TARGET))
            .map_err(failed)?
            .create()
            .map_err(failed)?
            .add_rules(path_beneath_rules(&policy.read, AccessFs::from_read(TARGET)))
            .map_err(failed)?
            // Everything but making device nodes (a raw disk or /dev/kmsg
            // in the folder would read or write around every rule).
            .add_rules(path_beneath_rules(
                &policy.write,
                AccessFs::from_all(TARGET) & !(AccessFs::MakeChar | AccessFs::MakeBlock),
            ))
            .map_err(failed)?
            .restrict_self()
            .map_err(failed)?;
        if status.ruleset == RulesetStatus::NotEnforced {
            return Err(SandboxError::Unavailable(Support::detect().describe()));
        }
        Ok(())
    }

    /// Bind-mounts each existing path of `paths` read-only over itself,
    /// then an empty read-only file over each existing file of `hidden`, in a new mount
    /// namespace (with a user namespace first when this user may not make
    /// one alone), private so nothing reaches the host's.
    pub(super) fn hold_read_only(paths: &[PathBuf], hidden: &[PathBuf]) -> Result<(), String> {
        use nix::mount::{MsFlags, mount};
        use nix::sched::{CloneFlags, unshare};
        let existing: Vec<&PathBuf> = paths.iter().filter(|p| p.exists()).collect();
        let hidden: Vec<&PathBuf> = hidden.iter().filter(|p| p.is_file()).collect();
        if existing.is_empty() && hidden.is_empty() {
            return Ok(());
        }
        let shown =
            existing.iter().chain(&hidden).map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ");
        let failed =
            |what: &str, e: &dyn std::fmt::Display| format!("cannot hold {shown} read-only ({what}: {e})");
        if unshare(CloneFlags::CLONE_NEWNS).is_err() {
            let (uid, gid) = (nix::unistd::getuid(), nix::unistd::getgid());
            unshare(CloneFlags::CLONE_NEWUSER | CloneFlags::CLONE_NEWNS)
                .map_err(|e| failed("no mount namespace", &e))?;
            // Refusing setgroups is what lets an unprivileged user write gid_map.
            let _ = std::fs::write("/proc/self/setgroups", "deny");
            std::fs::write("/proc/self/uid_map", format!("{uid} {uid} 1"))
                .map_err(|e| failed("uid_map", &e))?;
            std::fs::write("/proc/self/gid_map", format!("{gid} {gid} 1"))
                .map_err(|e| failed("gid_map", &e))?;
        }
        let none: Option<&str> = None;
        mount(none, "/", none, MsFlags::MS_REC | MsFlags::MS_PRIVATE, none)
            .map_err(|e| failed("private mounts", &e))?;
        for path in existing {
            mount(Some(path.as_path()), path.as_path(), none, MsFlags::MS_BIND | MsFlags::MS_REC, none)
                .map_err(|e| failed("bind", &e))?;
            let flags = MsFlags::MS_BIND | MsFlags::MS_REMOUNT | MsFlags::MS_RDONLY | kept_flags(path);
            mount(none, path.as_path(), none, flags, none).map_err(|e| failed("read-only remount", &e))?;
        }
        if !hidden.is_empty() {
            hide(&hidden).map_err(|e| failed("hide", &e))?;
        }
        Ok(())
    }

    /// Binds an empty, read-only regular file over each of `hidden`: a
    /// read finds nothing and a write fails (`EROFS`). Not `/dev/null`: a
    /// device node takes writes even on a read-only mount, and the program
    /// would believe it had written. The empty file is made in the private
    /// temporary folder and unlinked once bound (the mounts keep it).
    fn hide(hidden: &[&PathBuf]) -> Result<(), String> {
        use nix::mount::{MsFlags, mount};
        let empty = std::env::temp_dir().join(format!(".switchboard-hidden-{}", std::process::id()));
        std::fs::File::create(&empty).map_err(|e| format!("{}: {e}", empty.display()))?;
        let none: Option<&str> = None;
        let result = hidden.iter().try_for_each(|path| {
            mount(Some(empty.as_path()), path.as_path(), none, MsFlags::MS_BIND, none)
                .map_err(|e| format!("bind over {}: {e}", path.display()))?;
            let flags = MsFlags::MS_BIND | MsFlags::MS_REMOUNT | MsFlags::MS_RDONLY | kept_flags(&empty);
            mount(none, path.as_path(), none, flags, none)
                .map_err(|e| format!("read-only over {}: {e}", path.display()))
        });
        let _ = std::fs::remove_file(&empty);
        result
    }

    /// The flags of the mount `path` is on that a remount inside a user
    /// namespace must keep (the kernel locks them).
    fn kept_flags(path: &Path) -> nix::mount::MsFlags {
        use nix::mount::MsFlags;
        use nix::sys::statvfs::{FsFlags, statvfs};
        let Ok(stat) = statvfs(path) else { return MsFlags::empty() };
        let flags = stat.flags();
        [
            (FsFlags::ST_NOSUID, MsFlags::MS_NOSUID),
            (FsFlags::ST_NODEV, MsFlags::MS_NODEV),
            (FsFlags::ST_NOEXEC, MsFlags::MS_NOEXEC),
            (FsFlags::ST_NOATIME, MsFlags::MS_NOATIME),
            (FsFlags::ST_NODIRATIME, MsFlags::MS_NODIRATIME),
            (FsFlags::ST_RELATIME, MsFlags::MS_RELATIME),
        ]
        .into_iter()
        .filter(|(fs, _)| flags.contains(*fs))
        .fold(MsFlags::empty(), |all, (_, ms)| all | ms)
    }

    /// Drops every capability, for good: the bounding set first (so an
    /// `exec` as root gains none back), then the ambient, inheritable,
    /// effective and permitted sets. Root keeps its uid but none of what
    /// lets it step around Landlock or the read-only mounts
    /// (`CAP_DAC_READ_SEARCH` for `open_by_handle_at`, `CAP_MKNOD`,
    /// `CAP_NET_RAW`, `CAP_SYS_ADMIN`…). A user without capabilities
    /// cannot shrink its bounding set, and needs not: under
    /// `no_new_privs` (which Landlock set) its `exec` gains nothing.
    pub(super) fn drop_capabilities() -> Result<(), SandboxError> {
        use caps::CapSet;
        let failed = |what: &str, e: caps::errors::CapsError| {
            SandboxError::Landlock(format!("cannot drop the capabilities ({what}: {e})"))
        };
        if let Err(e) = caps::clear(None, CapSet::Bounding) {
            let holds_any = caps::read(None, CapSet::Permitted).map(|set| !set.is_empty()).unwrap_or(true);
            if nix::unistd::geteuid().is_root() || holds_any {
                return Err(failed("bounding set", e));
            }
        }
        for (set, what) in [
            (CapSet::Ambient, "ambient"),
            (CapSet::Inheritable, "inheritable"),
            (CapSet::Effective, "effective"),
            (CapSet::Permitted, "permitted"),
        ] {
            caps::clear(None, set).map_err(|e| failed(what, e))?;
        }
        Ok(())
    }

    pub(super) fn exec(program: &OsString, args: impl Iterator<Item = OsString>) -> SandboxError {
        use std::os::unix::process::CommandExt as _;
        let source = std::process::Command::new(program).args(args).exec();
        SandboxError::Exec { program: program.to_string_lossy().into_owned(), source }
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    use std::ffi::OsString;

    use super::{Policy, SandboxError, Support};

    pub(super) fn detect() -> Support {
        Support { filesystem: false, tcp: false, scopes: false }
    }

    pub(super) fn hold_read_only(
        paths: &[std::path::PathBuf],
        hidden: &[std::path::PathBuf],
    ) -> Result<(), String> {
        if paths.is_empty() && hidden.is_empty() {
            Ok(())
        } else {
            Err("read-only and hidden paths need Linux".to_owned())
        }
    }

    pub(super) fn restrict(_: &Policy) -> Result<(), SandboxError> {
        Err(SandboxError::Unavailable("Landlock exists only on Linux".to_owned()))
    }

    pub(super) fn drop_capabilities() -> Result<(), SandboxError> {
        Ok(())
    }

    pub(super) fn exec(program: &OsString, _: impl Iterator<Item = OsString>) -> SandboxError {
        SandboxError::Exec {
            program: program.to_string_lossy().into_owned(),
            source: std::io::ErrorKind::Unsupported.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_launcher_command_carries_the_policy_and_the_program() {
        let policy = Policy::new(Path::new("/srv/p"), Path::new("/tmp/t")).with_network(true);
        let command =
            Launcher::new("/bin/sb").command(&policy, OsStr::new("git"), &["status".into()]).unwrap();
        let args: Vec<&OsStr> = command.get_args().collect();
        assert_eq!(command.get_program(), "/bin/sb");
        assert_eq!(args[0], SUBCOMMAND);
        let decoded: Policy = serde_json::from_str(args[1].to_str().unwrap()).unwrap();
        assert_eq!(decoded, policy);
        assert_eq!(&args[2..], ["--", "git", "status"]);
    }

    #[test]
    fn toolchains_come_from_the_environment_or_the_home_folder_but_not_cargo_credentials() {
        let env = |name: &str| match name {
            "HOME" => Some(OsString::from("/home/u")),
            "RUSTUP_HOME" => Some(OsString::from("/opt/rustup")),
            _ => None,
        };
        let paths = toolchain_reads(env);
        assert!(paths.contains(&PathBuf::from("/home/u/.cargo/registry")));
        assert!(paths.contains(&PathBuf::from("/opt/rustup")));
        assert!(paths.contains(&PathBuf::from("/home/u/.gitconfig")));
        assert!(!paths.iter().any(|p| p.ends_with("credentials.toml") || p == Path::new("/home/u/.cargo")));
        assert!(!paths.contains(&PathBuf::from("/home/u")));
    }

    #[test]
    fn the_launcher_refuses_bad_arguments() {
        assert!(matches!(exec(Vec::<OsString>::new()), SandboxError::Usage(_)));
        let args = ["{}", "x", "true"].map(OsString::from);
        assert!(matches!(exec(args), SandboxError::Usage(_)));
    }

    #[test]
    fn support_is_described() {
        let none = Support { filesystem: false, tcp: false, scopes: false };
        assert!(none.describe().contains("not available"));
        let partial = Support { filesystem: true, tcp: false, scopes: true };
        assert!(partial.describe().contains("TCP"));
    }
}
