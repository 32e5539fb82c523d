//! Lays out switchboard's hot functions together (release builds on x86_64 Linux,
//! whose default linker is rust-lld): `hot-symbols.txt` lists the functions
//! start-up and the first requests run, and the linker places them first in
//! `.text`, so the process touches about 2.5 MB of code pages instead of
//! 6 MB. `bench/hot-symbols.sh` regenerates the list; names it lists that
//! the binary lacks are ignored. Set `SWITCHBOARD_NO_SYMBOL_ORDER=1` to link
//! without it (for a linker that does not know `--symbol-ordering-file`).

fn main() {
    println!("cargo:rerun-if-changed=hot-symbols.txt");
    println!("cargo:rerun-if-env-changed=SWITCHBOARD_NO_SYMBOL_ORDER");
    let release = std::env::var("PROFILE").is_ok_and(|p| p == "release");
    let target = std::env::var("TARGET").unwrap_or_default();
    if !release
        || target != "x86_64-unknown-linux-gnu"
        || std::env::var_os("SWITCHBOARD_NO_SYMBOL_ORDER").is_some()
    {
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
