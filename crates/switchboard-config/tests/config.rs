//! Loading switchboard.toml: the embedded default, a file in the folder, an
//! explicit file, and every problem placed by line and column.

use std::path::Path;

use switchboard_config::{Config, DEFAULT, Problem};

fn problems(text: &str) -> Vec<Problem> {
    Config::parse(text, Some(Path::new("switchboard.toml")), Path::new(".")).unwrap_err()
}

#[test]
fn the_embedded_default_parses_and_serves_the_folder_read_only() {
    let dir = tempfile::tempdir().unwrap();
    let config = Config::load(dir.path(), None).unwrap();
    assert!(config.path().is_none());
    assert!(config.files.enabled && config.files.watch);
    assert!(config.prompts.builtin);
    assert!(config.server.instructions.as_deref().unwrap().contains("search"));
    let name = dir.path().file_name().unwrap().to_str().unwrap();
    assert_eq!(config.server.name.as_deref(), Some(name));
    assert!(Config::parse(DEFAULT, None, dir.path()).is_ok());
}

#[test]
fn a_file_in_the_folder_wins_over_the_default_and_explicit_wins_over_both() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("switchboard.toml"), "[server]\nname = \"here\"\n").unwrap();
    let config = Config::load(dir.path(), None).unwrap();
    assert_eq!(config.server.name.as_deref(), Some("here"));
    assert_eq!(config.path().unwrap(), dir.path().join("switchboard.toml"));
    let other = dir.path().join("other.toml");
    std::fs::write(&other, "[server]\nname = \"other\"\n").unwrap();
    let config = Config::load(dir.path(), Some(&other)).unwrap();
    assert_eq!(config.server.name.as_deref(), Some("other"));
    let missing = Config::load(dir.path(), Some(&dir.path().join("nope.toml"))).unwrap_err();
    assert!(missing[0].to_string().contains("nope.toml:1:1: cannot read it"), "{}", missing[0]);
}

#[test]
fn syntax_errors_name_line_and_column() {
    let p = problems("[server]\nname = \"x\"\ntitle = \n");
    assert_eq!((p[0].line, p[0].column), (3, 9), "{}", p[0]);
    assert!(p[0].to_string().starts_with("switchboard.toml:3:9: "), "{}", p[0]);
}

#[test]
fn unknown_keys_and_wrong_types_are_placed_and_named() {
    let p = problems("[server]\nname = \"x\"\n\n[files]\nmax_file_sise = 10\n");
    assert_eq!(p[0].line, 5, "{}", p[0]);
    assert!(p[0].message.contains("max_file_sise"), "{}", p[0]);
    let p = problems("[files]\nwatch = \"yes\"\n");
    assert_eq!(p[0].line, 2, "{}", p[0]);
    assert!(p[0].message.contains("must be true or false"), "{}", p[0]);
    let p = problems("[sever]\nname = \"x\"\n");
    assert_eq!(p[0].line, 1);
    assert!(p[0].message.contains("sever"), "{}", p[0]);
}

#[test]
fn prompts_dir_is_found_or_configured() {
    let dir = tempfile::tempdir().unwrap();
    let config = Config::load(dir.path(), None).unwrap();
    assert_eq!(config.prompts_dir(), None);
    std::fs::create_dir_all(dir.path().join(".switchboard/prompts")).unwrap();
    assert_eq!(config.prompts_dir(), Some(dir.path().join(".switchboard/prompts")));
    std::fs::create_dir_all(dir.path().join("prompts")).unwrap();
    assert_eq!(config.prompts_dir(), Some(dir.path().join("prompts")));
    let custom = Config::parse("[prompts]\ndir = \"p\"\n", None, dir.path()).unwrap();
    assert_eq!(custom.prompts_dir(), Some(dir.path().join("p")));
    let off = Config::parse("[prompts]\nenabled = false\n", None, dir.path()).unwrap();
    assert_eq!(off.prompts_dir(), None);
}

#[test]
fn problem_at_places_a_span() {
    let text = "[server]\nname = \"x\"\n";
    let config = Config::parse(text, Some(Path::new("c.toml")), Path::new(".")).unwrap();
    let p = config.problem_at(9..13, "bad name");
    assert_eq!(p.to_string(), "c.toml:2:1: bad name");
}

/// (line, column) of each problem, in order.
fn positions(problems: &[Problem]) -> Vec<(usize, usize)> {
    problems.iter().map(|p| (p.line, p.column)).collect()
}

#[test]
fn every_problem_of_the_file_is_reported_in_one_pass_at_its_place() {
    let dir = tempfile::tempdir().unwrap();
    let text = "\
[server]
nmae = \"x\"

[files]
max_file_size = \"1MB\"
exclude = [\"*.lock\", \"[bad\"]

[limits]
handler_timeout = \"soon\"

[[tools.command]]
name = \"bad name\"
command = [\"surely-not-installed-program\", \"{missing}\"]
colour = true

[[tools.command]]
name = \"read_file\"
command = [\"sh\"]

[[tools.http]]
name = \"h\"
url = \"http://127.0.0.1/\"
method = \"TRACE\"
headers = { \"bad header\" = \"x\" }
";
    let problems = Config::parse(text, Some(Path::new("switchboard.toml")), dir.path()).unwrap_err();
    let shown: Vec<String> = problems.iter().map(ToString::to_string).collect();
    assert_eq!(
        positions(&problems),
        vec![
            (2, 1),
            (5, 17),
            (6, 22),
            (9, 19),
            (12, 8),
            (13, 12),
            (13, 44),
            (14, 1),
            (17, 8),
            (23, 10),
            (24, 13)
        ],
        "{shown:#?}"
    );
    let expect = [
        "unknown key `nmae` in [server]; did you mean `name`?",
        "`max_file_size` must be a whole number of bytes, like `1048576`; found the text \"1MB\"",
        "\"[bad\" in `exclude` is not a valid glob",
        "`handler_timeout` must be a duration, like `\"30s\"`; found the text \"soon\"",
        "the name is not valid",
        "program \"surely-not-installed-program\" is not on PATH",
        "placeholder {missing} in command",
        "unknown key `colour` in [[tools.command]]",
        "tool name \"read_file\" is already taken by a built-in file tool",
        "unsupported method \"TRACE\"",
        "header \"bad header\": not a valid header name",
    ];
    for (problem, expected) in problems.iter().zip(expect) {
        assert!(problem.message.contains(expected), "{problem}\n  should say: {expected}");
    }
}

#[test]
fn messages_are_plain_words_without_rust_types() {
    let dir = tempfile::tempdir().unwrap();
    let text = "[files]\nmax_file_size = \"1MB\"\nexclude = \"*.lock\"\nroots = { path = \".\" }\n\
                [limits]\nmax_in_flight = -3\ntool_calls_per_minute = 1.5\ntool_calls_burst = 5000000000\n\
                [tools.builtin]\nread = \"yes\"\n";
    let problems = Config::parse(text, Some(Path::new("switchboard.toml")), dir.path()).unwrap_err();
    assert_eq!(problems.len(), 7, "{problems:#?}");
    for problem in &problems {
        let m = &problem.message;
        for jargon in ["expected u", "expected i", "sequence", " map", "invalid type", "usize", "u64", "u32"]
        {
            assert!(!m.contains(jargon), "{jargon:?} in: {m}");
        }
        assert!(m.contains("like `") && m.contains("; found "), "no example or no finding: {m}");
    }
}

#[test]
fn a_missing_key_is_placed_on_its_table_and_an_enum_lists_its_values() {
    let dir = tempfile::tempdir().unwrap();
    let text = "[[tools.http]]\nurl = \"http://127.0.0.1/\"\nbody = \"xml\"\n";
    let problems = Config::parse(text, Some(Path::new("switchboard.toml")), dir.path()).unwrap_err();
    assert_eq!(positions(&problems), vec![(1, 1), (3, 8)], "{problems:#?}");
    assert!(
        problems[0].message.contains("[[tools.http]] needs `name`, like `name = \"weather\"`"),
        "{}",
        problems[0]
    );
    assert_eq!(problems[1].message, "`body` must be one of `\"json\"`; found the text \"xml\"");
}

#[test]
fn folder_problems_are_placed_on_their_entries() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("docs")).unwrap();
    let text = "[[files.roots]]\npath = \"nope\"\n[[files.roots]]\npath = \".\"\n\
                [[files.roots]]\npath = \"docs\"\nmount = \"\"\n";
    let problems = Config::parse(text, Some(Path::new("switchboard.toml")), dir.path()).unwrap_err();
    assert_eq!(positions(&problems), vec![(2, 8), (7, 9)], "{problems:#?}");
    assert!(problems[0].message.contains("the root folder \"nope\" cannot be served"), "{}", problems[0]);
    assert!(problems[1].message.contains("two roots share this mount"), "{}", problems[1]);
}

#[test]
fn a_relative_program_is_found_in_the_served_folder() {
    use std::os::unix::fs::PermissionsExt as _;
    let dir = tempfile::tempdir().unwrap();
    let text = "[[tools.command]]\nname = \"run\"\ncommand = [\"./run.sh\"]\n";
    let problems = Config::parse(text, None, dir.path()).unwrap_err();
    assert_eq!(positions(&problems), vec![(3, 12)]);
    assert!(problems[0].message.contains("does not exist"), "{}", problems[0]);
    let script = dir.path().join("run.sh");
    std::fs::write(&script, "#!/bin/sh\necho hi\n").unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    assert!(Config::parse(text, None, dir.path()).is_ok());
}

/// A TOML file as the JSON value a schema validator reads.
fn as_json(text: &str) -> serde_json::Value {
    toml::from_str(text).unwrap()
}

#[test]
fn the_schema_accepts_the_example_and_the_default_and_refuses_a_typo() {
    let schema = switchboard_config::json_schema();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/switchboard.toml");
    let example = std::fs::read_to_string(example).unwrap();
    assert!(validator.is_valid(&as_json(&example)), "examples/switchboard.toml");
    assert!(validator.is_valid(&as_json(DEFAULT)), "the embedded default");
    let typo = example.replace("max_file_size", "max_filesize");
    let errors: Vec<String> = validator.iter_errors(&as_json(&typo)).map(|e| e.to_string()).collect();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].contains("max_filesize"), "{errors:?}");
}

#[test]
fn a_skills_folder_that_cannot_be_served_is_placed_on_dir() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".hidden-skills")).unwrap();
    std::fs::write(dir.path().join("notes.md"), "not a folder").unwrap();
    for (written, expected) in
        [("missing", "cannot be read"), ("notes.md", "is a file"), (".hidden-skills", "is not served")]
    {
        let text = format!("[server]\nname = \"x\"\n\n[skills]\ndir = \"{written}\"\n");
        let p = Config::parse(&text, Some(Path::new("switchboard.toml")), dir.path()).unwrap_err();
        assert_eq!((p[0].line, p[0].column), (5, 7), "{}", p[0]);
        assert!(p[0].message.contains(expected), "{}", p[0]);
    }
    let p = Config::parse("[skills]\ndirr = \"skills\"\n", Some(Path::new("switchboard.toml")), dir.path())
        .unwrap_err();
    assert!(p[0].message.contains("did you mean `dir`"), "{}", p[0]);
    std::fs::create_dir(dir.path().join("skills")).unwrap();
    let config = Config::parse("[skills]\ndir = \"skills\"\n", None, dir.path()).unwrap();
    assert_eq!(config.skills.dir_in(config.dir()), Some(dir.path().join("skills")));
    let default = Config::load(dir.path(), None).unwrap();
    assert_eq!(
        default.skills.dir_in(default.dir()),
        Some(dir.path().join("skills")),
        "zero-config finds skills/"
    );
}

/// `[[databases]]` and `[[tools.sql]]`: each problem the file alone shows,
/// at its line: the entry's own (a bad name, two places), an unknown key,
/// an SQLite file outside the served folder, a name used twice, a tool on
/// no database, a write tool on a read database, a tool named like a
/// database's query tool. (A `params` entry without its placeholder needs
/// the database's own reading of the statement: `check` finds it.)
#[test]
fn database_and_sql_tool_problems_are_placed_at_their_keys() {
    let dir = tempfile::tempdir().unwrap();
    let served = dir.path().join("served");
    std::fs::create_dir_all(&served).unwrap();
    let text = r#"[[databases]]
name = "Shop"
path = "shop.sqlite"

[[databases]]
name = "local"
path = "../outside.sqlite"

[[databases]]
name = "local"
url = "postgres://app@db/shop"
url_env = "SHOP_URL"

[[databases]]
name = "pg"
url = "postgres://app@db/shop"
pool_sise = 3

[[tools.sql]]
name = "a"
database = "nowhere"
sql = "SELECT 1"

[[tools.sql]]
name = "b"
database = "local"
access = "write"
sql = "DELETE FROM t"

[[tools.sql]]
name = "local_query"
database = "local"
sql = "SELECT :x"
"#;
    let p = Config::parse(text, Some(Path::new("switchboard.toml")), &served).unwrap_err();
    let at = |line: usize, needle: &str| {
        assert!(
            p.iter().any(|p| p.line == line && p.message.contains(needle)),
            "no problem at line {line} with {needle:?}: {p:#?}"
        )
    };
    at(2, "a database name is 1 to 48 of a-z");
    at(7, "outside the served folder");
    at(10, "already used by the database on line 6");
    at(9, "give only one of `url`, `url_env` and `path`");
    at(17, "pool_sise");
    at(21, "no database named \"nowhere\"");
    at(27, "a write tool on the read database \"local\"");
    at(6, "query tool \"local_query\" is already taken by the tool on line 31");
}

#[test]
fn a_password_in_a_database_url_is_refused_without_repeating_it() {
    let p = problems("[[databases]]\nname = \"shop\"\nurl = \"postgres://app:hunter2@db/shop\"\n");
    assert_eq!(p.len(), 1, "{p:#?}");
    assert_eq!(p[0].line, 3);
    assert!(p[0].message.contains("password_env") && !p[0].message.contains("hunter2"), "{}", p[0]);
}
