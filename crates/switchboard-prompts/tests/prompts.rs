//! Prompt files through a real server and the in-memory client, and every
//! load error with its place in the file.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::json;
use switchboard_prompts::{PromptFile, SkipReason, builtin_prompts, load_dir, starts_with_front_matter};
use switchboard_server::Server;
use switchboard_testkit::TestClient;

const REVIEW: &str = "---
title: Review a change
description: Asks for a focused review of a diff.
arguments:
  - name: diff
    description: The unified diff to review
    required: true
  - name: focus
    title: Focus
    description: What to look at most
    completions: [security, performance, readability]
---
Please review this change{% if focus %}, paying most attention to {{ focus }}{% endif %}:

{{ diff }}
<!-- assistant -->
I will go through it file by file.
<!-- user -->
Start with the riskiest part.
";

fn parse(name: &str, text: &str) -> Result<PromptFile, switchboard_prompts::PromptError> {
    PromptFile::parse(Path::new(name), text)
}

fn err(name: &str, text: &str) -> switchboard_prompts::PromptError {
    parse(name, text).unwrap_err()
}

fn server_with(files: &[PromptFile]) -> Server {
    let mut builder = Server::builder("prompts", "1");
    for f in files {
        builder = builder.prompt(f.to_prompt());
    }
    builder.build().unwrap()
}

#[tokio::test]
async fn lists_and_renders_a_prompt_with_several_messages() {
    let file = parse("prompts/review.md", REVIEW).unwrap();
    assert_eq!(file.name(), "review");
    let server = server_with(&[file]);
    let mut client = TestClient::connect_legacy(&server, "2025-06-18").await;
    let listed = client.list_all("prompts/list", "prompts").await.unwrap();
    assert_eq!(
        listed[0],
        json!({
            "name": "review", "title": "Review a change", "description": "Asks for a focused review of a diff.",
            "arguments": [
                {"name": "diff", "description": "The unified diff to review", "required": true},
                {"name": "focus", "title": "Focus", "description": "What to look at most", "required": false}
            ]
        })
    );
    let got = client.get_prompt("review", json!({"diff": "-a\n+b", "focus": "security"})).await.unwrap();
    assert_eq!(got["description"], "Asks for a focused review of a diff.");
    let messages = got["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 3);
    assert_eq!(messages[0]["role"], "user");
    assert_eq!(
        messages[0]["content"]["text"],
        "Please review this change, paying most attention to security:\n\n-a\n+b"
    );
    assert_eq!(
        messages[1],
        json!({"role": "assistant", "content": {"type": "text", "text": "I will go through it file by file."}})
    );
    assert_eq!(messages[2]["content"]["text"], "Start with the riskiest part.");

    // The optional argument absent: the `if` is false.
    let got = client.get_prompt("review", json!({"diff": "x"})).await.unwrap();
    assert_eq!(got["messages"][0]["content"]["text"], "Please review this change:\n\nx");
    // The required one absent: the server's error, naming it.
    let e = client.get_prompt("review", json!({"focus": "security"})).await.unwrap_err();
    let switchboard_testkit::Error::Rpc(e) = e else { panic!("expected an RPC error") };
    assert_eq!(e.code.0, -32602);
    assert!(e.message.contains("diff"), "{}", e.message);
}

#[tokio::test]
async fn completes_arguments_from_their_declared_values() {
    let server = server_with(&[parse("review.md", REVIEW).unwrap()]);
    let mut client = TestClient::connect_legacy(&server, "2025-06-18").await;
    let done =
        client.complete(json!({"type": "ref/prompt", "name": "review"}), "focus", "per").await.unwrap();
    assert_eq!(done["completion"]["values"], json!(["performance"]));
    let all = client.complete(json!({"type": "ref/prompt", "name": "review"}), "focus", "").await.unwrap();
    assert_eq!(all["completion"]["values"].as_array().unwrap().len(), 3);
}

#[test]
fn toml_front_matter_and_no_front_matter() {
    let toml = "+++\ntitle = \"Hi\"\n[[arguments]]\nname = \"who\"\nrequired = true\n+++\nHello {{ who }}!\n";
    let file = parse("hello.md", toml).unwrap();
    let args = BTreeMap::from([("who".to_owned(), "Ada".to_owned())]);
    let out = file.render(&args).unwrap();
    assert_eq!(
        serde_json::to_value(&out).unwrap(),
        json!([{"role": "user", "content": {"type": "text", "text": "Hello Ada!"}}])
    );

    let plain = parse("notes/summarize.md", "Summarize the project in three sentences.\n").unwrap();
    assert_eq!(plain.name(), "summarize");
    let out = plain.render(&BTreeMap::new()).unwrap();
    assert_eq!(
        serde_json::to_value(&out).unwrap()[0]["content"]["text"],
        "Summarize the project in three sentences."
    );

    let named = parse("x.md", "---\nname: custom\n---\nBody\n").unwrap();
    assert_eq!(named.name(), "custom");
    // An assistant-first file: no empty user message before it.
    let primed = parse("p.md", "<!-- assistant -->\nHello.\n<!-- user -->\nHi.\n").unwrap();
    let out = serde_json::to_value(primed.render(&BTreeMap::new()).unwrap()).unwrap();
    assert_eq!(out[0]["role"], "assistant");
    assert_eq!(out.as_array().unwrap().len(), 2);
}

#[test]
fn load_errors_name_the_line_and_column_in_the_file() {
    // Bad YAML on file line 3.
    let e = err("a.md", "---\ntitle: x\narguments: [unclosed\n---\nbody\n");
    assert!(e.line >= 3, "{e}");
    assert!(e.to_string().starts_with("a.md:"), "{e}");
    // Unknown key on file line 3.
    let e = err("b.md", "---\ntitle: x\ndescripton: typo\n---\nbody\n");
    assert_eq!(e.line, 3, "{e}");
    assert!(e.message.contains("descripton"), "{e}");
    // TOML error on file line 3.
    let e = err("c.md", "+++\ntitle = \"x\"\ntitle = \"again\"\n+++\nbody\n");
    assert_eq!(e.line, 3, "{e}");
    // Template syntax error on body line 2 = file line 5 (3 front-matter lines + 1).
    let e = err("d.md", "---\ntitle: x\n---\nfine\n{% if %}\n");
    assert_eq!(e.line, 5, "{e}");
    assert!(e.message.starts_with("template:"), "{e}");
    // A syntax error in the second message: counted from its own start.
    let e = err("e.md", "hello\n<!-- assistant -->\nok\n{{ }}\n");
    assert_eq!(e.line, 4, "{e}");
    // An undeclared variable, placed where it is used.
    let e = err("f.md", "---\narguments:\n  - name: code\n---\nReview {{ code }}\nin {{ langauge }}\n");
    assert_eq!((e.line, e.column), (6, 7), "{e}");
    assert!(e.message.contains("langauge"), "{e}");
    // Unclosed front matter, bad argument names, duplicates.
    assert!(err("g.md", "---\ntitle: x\nbody\n").message.contains("never closed"));
    assert!(err("h.md", "---\narguments:\n  - name: 1x\n---\n").message.contains("1x"));
    assert!(err("i.md", "---\narguments:\n  - name: a\n  - name: a\n---\n").message.contains("twice"));
}

#[test]
fn load_dir_keeps_good_files_and_reports_bad_ones() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.md"), "---\n---\nAlpha\n").unwrap();
    std::fs::write(dir.path().join("b.md"), "---\nname: a\n---\nAlso a\n").unwrap();
    std::fs::write(dir.path().join("c.md"), "---\n---\n{% for %}\n").unwrap();
    std::fs::write(dir.path().join("notes.txt"), "not a prompt").unwrap();
    std::fs::create_dir_all(dir.path().join("sub")).unwrap();
    std::fs::write(dir.path().join("sub/d.md"), "nested: not loaded").unwrap();
    let loaded = load_dir(dir.path());
    let (prompts, errors) = (loaded.prompts, loaded.errors);
    assert_eq!(prompts.iter().map(PromptFile::name).collect::<Vec<_>>(), ["a"]);
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(
        errors[0].message.contains("already defined by") && errors[0].message.contains("a.md"),
        "{}",
        errors[0]
    );
    assert!(errors[1].path.ends_with("c.md"));
    let errors = load_dir(&dir.path().join("missing")).errors;
    assert!(errors[0].message.contains("cannot read the prompts folder"));
}

#[test]
fn only_markdown_with_front_matter_is_a_prompt_file() {
    assert!(starts_with_front_matter(b"---\ntitle: x\n---\n"));
    assert!(starts_with_front_matter(b"+++\r\n+++\r\n"));
    assert!(starts_with_front_matter(b"\xef\xbb\xbf---\n---\n"), "after a byte-order mark");
    assert!(starts_with_front_matter(b"---"), "a file of one fence line");
    assert!(!starts_with_front_matter(b"Write about {{ topic }}.\n"));
    assert!(!starts_with_front_matter(b"--- \n---\n"), "the fence is the whole line");
    assert!(!starts_with_front_matter(b"\n---\n---\n"), "on the first line");
    assert!(!starts_with_front_matter(b"----\n"));
    assert!(!starts_with_front_matter(b""));
}

#[test]
fn load_dir_skips_readmes_and_files_without_front_matter() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| std::fs::write(dir.path().join(name), text).unwrap();
    write("README.md", "---\n---\nA README is never a prompt, front matter or not.\n");
    write("readme.MD", "# lower case too\n");
    write("topic.md", "Write about {{ topic }}.\n");
    write("good.md", "---\ndescription: Good.\n---\nHello.\n");
    write("toml.MD", "+++\n+++\nAlso good.\n");
    write("unclosed.md", "---\ntitle: x\nbody\n");
    write("template.txt", "{{ topic }}\n");
    let loaded = load_dir(dir.path());
    assert_eq!(loaded.prompts.iter().map(PromptFile::name).collect::<Vec<_>>(), ["good", "toml"]);
    let skipped: Vec<(String, SkipReason)> = loaded
        .skipped
        .iter()
        .map(|s| (s.path.file_name().unwrap().to_string_lossy().into_owned(), s.reason))
        .collect();
    assert_eq!(
        skipped,
        [
            ("README.md".to_owned(), SkipReason::Readme),
            ("readme.MD".to_owned(), SkipReason::Readme),
            ("topic.md".to_owned(), SkipReason::NoFrontMatter),
        ]
    );
    let why = loaded.skipped[2].to_string();
    assert!(why.contains("topic.md: skipped, not a prompt file") && why.contains("`---`"), "{why}");
    // Front matter opened and never closed: a prompt file with an error.
    assert_eq!(loaded.errors.len(), 1, "{:?}", loaded.errors);
    assert!(
        loaded.errors[0].path.ends_with("unclosed.md") && loaded.errors[0].message.contains("never closed")
    );
}

#[test]
fn keep_last_good_puts_back_a_prompt_whose_edit_broke_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("notes.md");
    std::fs::write(&path, "---\n---\nVersion one.\n").unwrap();
    let first = load_dir(dir.path());
    assert!(first.errors.is_empty());
    std::fs::write(&path, "---\n---\n{% if %}\n").unwrap();
    std::fs::write(dir.path().join("other.md"), "---\n---\n{{ }}\n").unwrap();
    let mut second = load_dir(dir.path());
    let kept = second.keep_last_good(&first.prompts);
    assert_eq!(kept.len(), 1);
    assert_eq!((kept[0].0.line, kept[0].1.name()), (3, "notes"));
    assert_eq!(second.prompts.iter().map(PromptFile::name).collect::<Vec<_>>(), ["notes"]);
    let text = second.prompts[0].render(&BTreeMap::new()).unwrap();
    assert_eq!(serde_json::to_value(text).unwrap()[0]["content"]["text"], "Version one.");
    // A file that never loaded has nothing to keep: its error stays.
    assert_eq!(second.errors.len(), 1);
    assert!(second.errors[0].path.ends_with("other.md"));
}

#[tokio::test]
async fn builtin_code_review_is_the_spec_example() {
    let mut builder = Server::builder("b", "1");
    for p in builtin_prompts() {
        builder = builder.prompt(p);
    }
    let server = builder.build().unwrap();
    let mut client = TestClient::connect_legacy(&server, "2025-06-18").await;
    let names: Vec<String> = client
        .list_all("prompts/list", "prompts")
        .await
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(names, ["code_review", "explain_code", "write_tests"]);
    // With no language none is guessed (the spec's example says "Python").
    let got =
        client.get_prompt("code_review", json!({"code": "def hello():\n    print('world')"})).await.unwrap();
    assert_eq!(
        got["messages"][0]["content"]["text"],
        "Please review this code:\ndef hello():\n    print('world')"
    );
    let got = client.get_prompt("code_review", json!({"code": "x", "language": "  "})).await.unwrap();
    assert_eq!(
        got["messages"][0]["content"]["text"], "Please review this code:\nx",
        "a blank language is none"
    );
    let got =
        client.get_prompt("code_review", json!({"code": "fn f() {}", "language": " Rust "})).await.unwrap();
    assert_eq!(got["messages"][0]["content"]["text"], "Please review this Rust code:\nfn f() {}");
}
