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
    assert!(p[0].message.contains("bool"), "{}", p[0]);
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
