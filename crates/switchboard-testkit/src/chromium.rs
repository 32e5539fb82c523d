//! A real Chromium for tests that render in a browser (MCP Apps views).
//!
//! Tests drive the browser themselves (puppeteer-core pointed at
//! [`executable`]); this module only makes sure there is one. If no
//! Chromium or Chrome is found and the tests run as root, Debian's
//! `chromium` package is installed with `apt-get` once per machine
//! (`crate::apt`: concurrent test binaries wait for each other's
//! installations, of any package);
//! otherwise the test panics saying how to install it. Tests never skip
//! silently. No browser build is downloaded from anywhere else: the one
//! used is the distribution's.
//!
//! ```no_run
//! let chromium = switchboard_testkit::chromium::executable();
//! // e.g. PUPPETEER_EXECUTABLE_PATH=/usr/bin/chromium node driver.mjs
//! # let _ = chromium;
//! ```

use std::path::PathBuf;

use crate::apt;

/// The names a Chromium or Chrome binary goes by on `PATH`.
const NAMES: [&str; 4] = ["chromium", "chromium-browser", "google-chrome-stable", "google-chrome"];
/// Where Debian's package puts the binary (found even without `PATH`).
const DEBIAN_BINARY: &str = "/usr/bin/chromium";

const HOW_TO_INSTALL: &str = "Chromium is needed by these tests and is not installed: \
     install it (Debian: `sudo apt-get install -y chromium`, Ubuntu: `sudo snap install chromium`, \
     macOS: `brew install --cask chromium`) or set SWITCHBOARD_CHROMIUM to a Chromium or Chrome binary";

/// The Chromium (or Chrome) binary to run: `SWITCHBOARD_CHROMIUM` if set,
/// else one on `PATH`, else `/usr/bin/chromium`, installing Debian's
/// `chromium` with apt-get first (as root, once per machine) if none is
/// there. Panics, saying how to install it, if there is still none.
pub fn executable() -> PathBuf {
    if let Some(chosen) = std::env::var_os("SWITCHBOARD_CHROMIUM") {
        let chosen = PathBuf::from(chosen);
        assert!(chosen.is_file(), "SWITCHBOARD_CHROMIUM names {}, which is not a file", chosen.display());
        return chosen;
    }
    apt::Package { name: "chromium", how_to_install: HOW_TO_INSTALL, find: find_binary }.ensure()
}

/// A Chromium or Chrome binary on `PATH`, or Debian's.
fn find_binary() -> Option<PathBuf> {
    let dirs: Vec<PathBuf> =
        std::env::var_os("PATH").map(|paths| std::env::split_paths(&paths).collect()).unwrap_or_default();
    let on_path = dirs.iter().flat_map(|dir| NAMES.iter().map(move |name| dir.join(name)));
    on_path.chain([PathBuf::from(DEBIAN_BINARY)]).find(|path| path.is_file())
}
