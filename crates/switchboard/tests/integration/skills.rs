//! A skills folder served by the real binary through the skills extension
//! (SEP-2640, `io.modelcontextprotocol/skills`): enumeration, the manifest,
//! file and directory reads, the folder's access policy on every path, and
//! live edits, over stdio and HTTP, at a handshake revision and 2026-07-28.

use crate::common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::{Switchboard, WAIT};
use serde_json::{Value, json};

/// In every file the policy must keep out of skills.
const SECRET: &str = "TOKEN-4f1e-never-served";

const PDF_SKILL: &str = "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\n\
                         license: Apache-2.0\nmetadata:\n  version: \"2.1.0\"\n---\n\n# PDF processing\n\n\
                         See references/FORMS.md.\n";
const NOTES_SKILL: &str = "---\nname: release-notes\ndescription: Write release notes from the git history\n---\n\nRead git://log.\n";

fn put(dir: &Path, rel: &str, text: &str) {
    let path = dir.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A project with two skills, and secrets inside one of them: a dotfile,
/// an ignored file and an ignored folder.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    git2::Repository::init(root).unwrap();
    put(root, "README.md", "# Demo\n");
    put(root, ".gitignore", "*.log\nsecrets/\n");
    put(root, "skills/pdf-processing/SKILL.md", PDF_SKILL);
    put(root, "skills/pdf-processing/references/FORMS.md", "# Forms\n");
    put(root, "skills/pdf-processing/scripts/extract.py", "print('text')\n");
    put(root, "skills/pdf-processing/.env", &format!("KEY={SECRET}\n"));
    put(root, "skills/pdf-processing/debug.log", &format!("{SECRET}\n"));
    put(root, "skills/pdf-processing/secrets/key.txt", &format!("{SECRET}\n"));
    put(root, "skills/release-notes/SKILL.md", NOTES_SKILL);
    dir
}

/// The `_meta` a 2026-07-28 request carries.
fn modern(mut params: Value) -> Value {
    params["_meta"] = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                             "io.modelcontextprotocol/clientCapabilities": {}});
    params
}

/// The hidden, ignored and ignored-folder files, as skill:// and file:// URIs.
const UNSERVED: [&str; 6] = [
    "skill://pdf-processing/.env",
    "skill://pdf-processing/debug.log",
    "skill://pdf-processing/secrets/key.txt",
    "file:///skills/pdf-processing/.env",
    "file:///skills/pdf-processing/debug.log",
    "file:///skills/pdf-processing/secrets/key.txt",
];

/// Asserts what a client of either revision sees through every skills path
/// (`call` answers a method with its params as a whole response).
fn assert_served(mut call: impl FnMut(&str, Value) -> Value, revision_2026: bool) {
    let listed = call("skills/list", json!({}));
    assert!(!listed.to_string().contains(SECRET), "{listed}");
    let listed = &listed["result"];
    let skills = listed["skills"].as_array().unwrap_or_else(|| panic!("{listed}"));
    let uris: Vec<&str> = skills.iter().map(|s| s["uri"].as_str().unwrap()).collect();
    assert_eq!(uris, ["skill://pdf-processing/SKILL.md", "skill://release-notes/SKILL.md"]);
    assert_eq!(
        skills[0]["frontmatter"],
        json!({"name": "pdf-processing", "description": "Extract, fill, and assemble PDF documents",
               "license": "Apache-2.0", "metadata": {"version": "2.1.0"}})
    );
    let files: Vec<&str> =
        skills[0]["resources"].as_array().unwrap().iter().map(|r| r["uri"].as_str().unwrap()).collect();
    assert_eq!(
        files,
        [
            "skill://pdf-processing/SKILL.md",
            "skill://pdf-processing/references/FORMS.md",
            "skill://pdf-processing/scripts/extract.py"
        ],
        "no hidden or ignored file is part of the skill"
    );
    assert_eq!(skills[0]["resources"][0]["size"], PDF_SKILL.len());
    let digest = skills[0]["resources"][0]["digest"].as_str().unwrap();
    assert!(digest.starts_with("sha256:") && digest.len() == 71, "{digest}");
    assert_eq!(listed["ttlMs"].is_number(), revision_2026, "cache hints on 2026-07-28 only: {listed}");

    let got = call("skills/get", json!({"uri": "skill://pdf-processing/SKILL.md"}));
    assert_eq!(got["result"]["skill"], skills[0]);
    let unknown = call("skills/get", json!({"uri": "skill://pdf-processing/references/FORMS.md"}));
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");

    let manifest = call("resources/read", json!({"uri": "skill://pdf-processing/SKILL.md"}));
    assert_eq!(manifest["result"]["contents"][0]["text"], PDF_SKILL);
    assert_eq!(manifest["result"]["contents"][0]["mimeType"], "text/markdown");
    let file = call("resources/read", json!({"uri": "skill://pdf-processing/references/FORMS.md"}));
    assert_eq!(file["result"]["contents"][0]["text"], "# Forms\n");

    let root = call("resources/directory/read", json!({"uri": "skill://pdf-processing"}));
    let children: Vec<(&str, &str)> = root["result"]["resources"]
        .as_array()
        .unwrap_or_else(|| panic!("{root}"))
        .iter()
        .map(|r| (r["uri"].as_str().unwrap(), r["mimeType"].as_str().unwrap()))
        .collect();
    assert_eq!(
        children,
        [
            ("skill://pdf-processing/SKILL.md", "text/markdown"),
            ("skill://pdf-processing/references", "inode/directory"),
            ("skill://pdf-processing/scripts", "inode/directory"),
        ]
    );
    let scripts = call("resources/directory/read", json!({"uri": "skill://pdf-processing/scripts"}));
    assert_eq!(scripts["result"]["resources"][0]["uri"], "skill://pdf-processing/scripts/extract.py");
    for not_a_directory in
        ["skill://pdf-processing/SKILL.md", "skill://pdf-processing/secrets", "skill://nope"]
    {
        let e = call("resources/directory/read", json!({"uri": not_a_directory}));
        assert_eq!(e["error"]["code"], -32602, "{not_a_directory}: {e}");
    }

    // The SKILL.md resources carry the skill's name and description.
    let resources = call("resources/list", json!({}));
    assert!(!resources.to_string().contains(SECRET));
    let all = resources["result"]["resources"].as_array().unwrap();
    let manifest = all.iter().find(|r| r["uri"] == "skill://pdf-processing/SKILL.md").expect("listed");
    assert_eq!(manifest["name"], "pdf-processing");
    assert_eq!(manifest["description"], "Extract, fill, and assemble PDF documents");
    for uri in UNSERVED {
        assert!(all.iter().all(|r| r["uri"] != uri), "{uri} is listed");
        let read = call("resources/read", json!({"uri": uri}));
        assert!(read.get("error").is_some(), "{uri} was read: {read}");
        assert!(!read.to_string().contains(SECRET), "{uri}: {read}");
    }
}

#[test]
fn zero_config_serves_the_skills_folder_over_stdio_at_both_revisions_and_follows_edits() {
    let dir = project();
    let root = dir.path();
    let mut switchboard = Switchboard::start(&["serve", "."], root);
    // 2025-11-25, the handshake this connection made.
    assert_served(|method, params| switchboard.request(method, params), false);
    // 2026-07-28 requests on the same connection, each with its own _meta.
    let discovered = switchboard.result("server/discover", modern(json!({})));
    assert_eq!(
        discovered["capabilities"]["extensions"]["io.modelcontextprotocol/skills"],
        json!({"directoryRead": true})
    );
    assert_served(|method, params| switchboard.request(method, modern(params)), true);

    // A skill edited live: subscribers hear resources/updated, and every
    // path shows the new version.
    switchboard.result("resources/subscribe", json!({"uri": "skill://release-notes/SKILL.md"}));
    switchboard.drain();
    let edited = NOTES_SKILL.replace("from the git history", "from git://log, newest first");
    put(root, "skills/release-notes/SKILL.md", &edited);
    switchboard.notification("notifications/resources/updated", Some("skill://release-notes/SKILL.md"));
    let got = switchboard.result("skills/get", json!({"uri": "skill://release-notes/SKILL.md"}));
    assert_eq!(
        got["skill"]["frontmatter"]["description"],
        "Write release notes from git://log, newest first"
    );
    let read = switchboard.result("resources/read", json!({"uri": "skill://release-notes/SKILL.md"}));
    assert_eq!(read["contents"][0]["text"], edited);

    // A new skill: it is enumerated, and resources/list_changed announced.
    put(
        root,
        "skills/triage/SKILL.md",
        "---\nname: triage\ndescription: Sort new issues\n---\nLabel them.\n",
    );
    wait_for(&mut switchboard, |l| l["skills"].as_array().is_some_and(|s| s.len() == 3));
    switchboard.notification("notifications/resources/list_changed", None);
    let resources = switchboard.result("resources/list", json!({}));
    assert!(resources.to_string().contains("skill://triage/SKILL.md"), "{resources}");

    // Zero-config: a skill that stops loading is left out with a note.
    put(root, "skills/triage/SKILL.md", "---\nname: not-triage\ndescription: Sort\n---\n");
    switchboard.wait_stderr("must equal the skill's folder name");
    let listed = wait_for(&mut switchboard, |l| l["skills"].as_array().is_some_and(|s| s.len() == 2));
    assert!(listed.to_string().contains("release-notes"), "{listed}");
    switchboard.finish();
}

/// Polls `skills/list` (bounded by [`WAIT`]) until `done` holds.
fn wait_for(switchboard: &mut Switchboard, done: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + WAIT;
    loop {
        let listed = switchboard.result("skills/list", json!({}));
        if done(&listed) {
            return listed;
        }
        assert!(Instant::now() < deadline, "skills/list never changed: {listed}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// One POST to `url`: the status, the session id it hands out (if any)
/// and the JSON body (null when there is none).
fn post(
    rt: &tokio::runtime::Runtime,
    client: &reqwest::Client,
    url: &str,
    body: &Value,
    session: Option<&str>,
    version: &str,
) -> (u16, Option<String>, Value) {
    let mut r = client
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", version);
    if let Some(method) = body["method"].as_str() {
        r = r.header("mcp-method", method);
    }
    if let (Some("resources/read"), Some(uri)) = (body["method"].as_str(), body["params"]["uri"].as_str()) {
        r = r.header("mcp-name", uri);
    }
    if let Some(s) = session {
        r = r.header("mcp-session-id", s);
    }
    rt.block_on(async {
        let response = r.body(body.to_string()).send().await.expect("switchboard answers");
        let status = response.status().as_u16();
        let session = response.headers().get("mcp-session-id").map(|v| v.to_str().unwrap().to_owned());
        let text = response.text().await.expect("a body");
        let json =
            if text.is_empty() { Value::Null } else { serde_json::from_str(&text).expect("a JSON body") };
        (status, session, json)
    })
}

#[test]
fn over_http_at_a_handshake_revision_and_2026_07_28() {
    let dir = project();
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    let (mut child, url) = rt.block_on(common::start_http(
        &["serve", "--http", "127.0.0.1:0", "--sse", "never", "."],
        Some(dir.path()),
        &[],
    ));
    let client = reqwest::Client::new();
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "e2e", "version": "1"}}});
    let (_, session, init) = post(&rt, &client, &url, &init, None, "2025-06-18");
    let session = session.expect("a session id");
    assert_eq!(
        init["result"]["capabilities"]["extensions"]["io.modelcontextprotocol/skills"],
        json!({"directoryRead": true}),
        "{init}"
    );
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(post(&rt, &client, &url, &initialized, Some(&session), "2025-06-18").0, 202);

    let mut id = 0;
    // A session at 2025-06-18.
    assert_served(
        |method, params| {
            id += 1;
            let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
            post(&rt, &client, &url, &body, Some(&session), "2025-06-18").2
        },
        false,
    );
    // 2026-07-28: every request on its own, no session.
    let mut call_2026 = |method: &str, params: Value| {
        id += 1;
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": modern(params)});
        post(&rt, &client, &url, &body, None, "2026-07-28").2
    };
    assert_served(&mut call_2026, true);

    // An edit shows over HTTP too.
    let edited = NOTES_SKILL.replace("Write release notes", "Draft release notes");
    put(dir.path(), "skills/release-notes/SKILL.md", &edited);
    let deadline = Instant::now() + WAIT;
    loop {
        let got = call_2026("skills/get", json!({"uri": "skill://release-notes/SKILL.md"}));
        if got["result"]["skill"]["frontmatter"]["description"] == "Draft release notes from the git history"
        {
            break;
        }
        assert!(Instant::now() < deadline, "the edit never showed: {got}");
        std::thread::sleep(Duration::from_millis(50));
    }
    rt.block_on(child.kill()).unwrap();
}

#[test]
fn with_a_configuration_file_bad_skills_are_problems_placed_at_their_files() {
    let dir = project();
    let root = dir.path();
    put(root, "switchboard.toml", "[skills]\ndir = \"skills\"\n");
    let (ok, stdout, stderr) = common::run(&["check", "."], root);
    assert!(ok, "{stderr}");
    assert!(stdout.contains("resource templates, 2 skills"), "{stdout}");

    put(root, "skills/bad/SKILL.md", "---\nname: Bad\ndescription: d\n---\n");
    let (ok, _, stderr) = common::run(&["check", "."], root);
    assert!(!ok);
    assert!(
        stderr.contains("skills/bad/SKILL.md:2:1: `name: Bad` breaks the skill naming rules"),
        "{stderr}"
    );
    std::fs::remove_dir_all(root.join("skills/bad")).unwrap();

    put(
        root,
        "switchboard.toml",
        "[server]\nname = \"x\"\n\n[skills]\ndir = \"skills/pdf-processing/secrets\"\n",
    );
    let (ok, _, stderr) = common::run(&["check", "."], root);
    assert!(!ok);
    assert!(stderr.contains("switchboard.toml:5:7: the skills folder"), "{stderr}");
    assert!(stderr.contains("is not served"), "{stderr}");
}

#[test]
fn with_a_configuration_file_a_broken_edit_keeps_the_last_good_skills_and_the_folder_is_never_written() {
    let dir = project();
    let root = dir.path();
    put(root, "switchboard.toml", "[tools.builtin]\nwrite = true\n");
    let mut switchboard = Switchboard::start(&["serve", "."], root);
    put(root, "skills/release-notes/SKILL.md", "---\ndescription: no name any more\n---\n");
    switchboard.wait_stderr("skills not reloaded; the last good skills stay in force");
    let got = switchboard.result("skills/get", json!({"uri": "skill://release-notes/SKILL.md"}));
    assert_eq!(got["skill"]["frontmatter"]["description"], "Write release notes from the git history");
    let written = switchboard.result(
        "tools/call",
        json!({"name": "write_file", "arguments": {"path": "skills/release-notes/SKILL.md", "content": "x"}}),
    );
    assert_eq!(written["isError"], true, "{written}");
    assert!(std::fs::read_to_string(root.join("skills/release-notes/SKILL.md")).unwrap().contains("no name"));
    switchboard.finish();
}

#[test]
fn list_shows_the_skills_with_only_the_files_the_folder_rules_serve() {
    let dir = project();
    let root = dir.path();
    let (ok, text, stderr) = common::run(&["list", "."], root);
    assert!(ok, "{stderr}");
    assert!(text.contains("Skills (2):"), "{text}");
    let line = text.lines().find(|l| l.trim_start().starts_with("pdf-processing")).expect("listed");
    assert!(line.contains("3 files"), "SKILL.md, FORMS.md, extract.py; no dotfile or ignored file: {line}");
    let (ok, json, stderr) = common::run(&["list", ".", "--json"], root);
    assert!(ok, "{stderr}");
    let listing: Value = serde_json::from_str(&json).unwrap();
    let skills = listing["skills"].as_array().expect("skills in the JSON listing");
    let names: Vec<&str> = skills.iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["pdf-processing", "release-notes"], "{json}");
    assert_eq!(skills[0]["uri"], "skill://pdf-processing/SKILL.md");
    assert!(!json.contains(SECRET), "nothing of the hidden files shows");
}
