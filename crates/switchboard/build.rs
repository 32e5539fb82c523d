//! Link settings of the release binary that make start-up cheaper (release
//! builds on x86_64 Linux, whose default linker is rust-lld).
//!
//! - **Hot functions together:** `hot-symbols.txt` lists the functions
//!   start-up and the first requests run, and the linker places them first in
//!   `.text`, so the process touches about 2.5 MB of code pages instead of
//!   6 MB. `bench/hot-symbols.sh` regenerates the list; names it lists that
//!   the binary lacks are ignored. Set `SWITCHBOARD_NO_SYMBOL_ORDER=1` to link
//!   without it (for a linker that does not know `--symbol-ordering-file`).
//! - **Packed relative relocations** (`-z pack-relative-relocs`, DT_RELR):
//!   the position-independent binary carries some 45,000 relative
//!   relocations that the dynamic loader applies before `main`; as RELA
//!   entries they are a 1 MB table read at every start (about a sixth of the
//!   instructions before the first answer), packed they take a few
//!   kilobytes. The loader must know DT_RELR (glibc 2.36 or later), so this
//!   is on only when the building machine's glibc is that recent (a binary
//!   built there needs its glibc anyway); `SWITCHBOARD_NO_RELR=1` turns it off.

fn main() {
    println!("cargo:rerun-if-changed=hot-symbols.txt");
    println!("cargo:rerun-if-env-changed=SWITCHBOARD_NO_SYMBOL_ORDER");
    println!("cargo:rerun-if-env-changed=SWITCHBOARD_NO_RELR");
    let release = std::env::var("PROFILE").is_ok_and(|p| p == "release");
    let target = std::env::var("TARGET").unwrap_or_default();
    if !release || target != "x86_64-unknown-linux-gnu" {
        return;
    }
    if std::env::var_os("SWITCHBOARD_NO_RELR").is_none() && glibc_knows_relr() {
        println!("cargo:rustc-link-arg-bin=switchboard=-Wl,-z,pack-relative-relocs");
    }
    if std::env::var_os("SWITCHBOARD_NO_SYMBOL_ORDER").is_some() {
        return;
    }
    let list = std::path::Path::new(&std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"))
        .join("hot-symbols.txt");
    if !list.exists() {
        return;
    }
    println!("cargo:rustc-link-arg-bin=switchboard=-Wl,--symbol-ordering-file={}", list.display());
    println!("cargo:rustc-link-arg-bin=switchboard=-Wl,--no-warn-symbol-ordering");
}

/// Whether this machine's glibc (`getconf GNU_LIBC_VERSION`: `glibc 2.36`)
/// applies packed relative relocations (DT_RELR, glibc 2.36 and later).
fn glibc_knows_relr() -> bool {
    let Ok(output) = std::process::Command::new("getconf").arg("GNU_LIBC_VERSION").output() else {
        return false;
    };
    let text = String::from_utf8_lossy(&output.stdout);
    let Some(version) = text.trim().strip_prefix("glibc ") else { return false };
    let mut parts = version.split('.').map(|p| p.parse::<u32>().unwrap_or(0));
    let (major, minor) = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
    (major, minor) >= (2, 36)
}
