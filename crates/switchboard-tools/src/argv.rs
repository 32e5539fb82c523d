//! The argv template of command tools: parsed once at load (checking every
//! placeholder against the schema), expanded per call from validated
//! arguments with the injection checks described in the crate docs.

use serde_json::{Map, Value};

/// One piece of a template element.
#[derive(Debug, Clone, PartialEq)]
enum Piece {
    Literal(String),
    Placeholder(String),
}

/// One element of the argv template.
#[derive(Debug, Clone, PartialEq)]
enum Element {
    /// No placeholders.
    Literal(String),
    /// Exactly `{name}`.
    Whole(String),
    /// Text with placeholders inside.
    Mixed(Vec<Piece>),
}

/// A parsed argv template.
#[derive(Debug, Clone)]
pub(crate) struct ArgvTemplate {
    program: String,
    /// Each element, and whether a literal `--` came before it.
    elements: Vec<(Element, bool)>,
    allow_leading_dash: bool,
}

/// Why a template is unusable (the caller adds the tool's name).
#[derive(Debug)]
pub(crate) enum TemplateError {
    Syntax(String),
    Unknown(String),
}

fn parse_element(s: &str) -> Result<Vec<Piece>, String> {
    let mut pieces = Vec::new();
    let mut literal = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '{' if chars.peek() == Some(&'{') => {
                chars.next();
                literal.push('{');
            }
            '}' if chars.peek() == Some(&'}') => {
                chars.next();
                literal.push('}');
            }
            '{' => {
                let mut name = String::new();
                loop {
                    match chars.next() {
                        Some('}') => break,
                        Some(c) if c.is_alphanumeric() || c == '_' || c == '-' || c == '.' => name.push(c),
                        Some(c) => {
                            return Err(format!(
                                "{s:?}: character {c:?} in a placeholder (write {{{{ for a literal brace)"
                            ));
                        }
                        None => return Err(format!("{s:?}: unclosed {{ (write {{{{ for a literal brace)")),
                    }
                }
                if name.is_empty() {
                    return Err(format!("{s:?}: empty placeholder {{}}"));
                }
                if !literal.is_empty() {
                    pieces.push(Piece::Literal(std::mem::take(&mut literal)));
                }
                pieces.push(Piece::Placeholder(name));
            }
            '}' => return Err(format!("{s:?}: unmatched }} (write }}}} for a literal brace)")),
            c => literal.push(c),
        }
    }
    if !literal.is_empty() || pieces.is_empty() {
        pieces.push(Piece::Literal(literal));
    }
    Ok(pieces)
}

fn empty() -> TemplateError {
    TemplateError::Syntax(
        "command is empty; give at least the program, like [\"cargo\", \"test\"]".to_owned(),
    )
}

/// The program must be a literal, non-empty name or path.
fn check_program(program: &str) -> Result<(), TemplateError> {
    match parse_element(program).map_err(TemplateError::Syntax)?.as_slice() {
        [Piece::Literal(p)] if !p.is_empty() => Ok(()),
        _ => Err(TemplateError::Syntax(format!(
            "the program {program:?} must be a literal, non-empty name or path, like \"cargo\" or \"./run.sh\""
        ))),
    }
}

/// One argument element, parsed, with every placeholder in `properties`.
fn check_element(s: &str, properties: &[String]) -> Result<Vec<Piece>, TemplateError> {
    let pieces = parse_element(s).map_err(TemplateError::Syntax)?;
    for p in &pieces {
        if let Piece::Placeholder(name) = p
            && !properties.contains(name)
        {
            return Err(TemplateError::Unknown(name.clone()));
        }
    }
    Ok(pieces)
}

/// Every problem of `command` at once (what [`ArgvTemplate::parse`] stops
/// at first), each with the index of its element (`None`: the command as
/// a whole).
pub(crate) fn problems(command: &[String], properties: &[String]) -> Vec<(Option<usize>, TemplateError)> {
    let Some((program, rest)) = command.split_first() else {
        return vec![(None, empty())];
    };
    let program = check_program(program).err().map(|e| (Some(0), e));
    let elements = rest
        .iter()
        .enumerate()
        .filter_map(|(i, s)| check_element(s, properties).err().map(|e| (Some(i + 1), e)));
    program.into_iter().chain(elements).collect()
}

impl ArgvTemplate {
    /// Parses `command`, checking that every placeholder is in `properties`.
    pub(crate) fn parse(
        command: &[String],
        properties: &[String],
        allow_leading_dash: bool,
    ) -> Result<Self, TemplateError> {
        let (program, rest) = command.split_first().ok_or_else(empty)?;
        check_program(program)?;
        let mut elements = Vec::new();
        let mut after_double_dash = false;
        for s in rest {
            let pieces = check_element(s, properties)?;
            let element = match pieces.as_slice() {
                [Piece::Literal(l)] => Element::Literal(l.clone()),
                [Piece::Placeholder(n)] => Element::Whole(n.clone()),
                _ => Element::Mixed(pieces),
            };
            elements.push((element.clone(), after_double_dash));
            if element == Element::Literal("--".to_owned()) {
                after_double_dash = true;
            }
        }
        Ok(Self { program: program.clone(), elements, allow_leading_dash })
    }

    /// The program to run.
    pub(crate) fn program(&self) -> &str {
        &self.program
    }

    /// The arguments (after the program) for these validated arguments, or
    /// a message for the model saying which argument is refused and why.
    pub(crate) fn expand(&self, args: &Map<String, Value>) -> Result<Vec<String>, String> {
        let mut out = Vec::new();
        for (element, after_double_dash) in &self.elements {
            let dash_ok = self.allow_leading_dash || *after_double_dash;
            match element {
                Element::Literal(l) => out.push(l.clone()),
                Element::Whole(name) => match args.get(name) {
                    None | Some(Value::Null) => {}
                    Some(Value::Array(items)) => {
                        for item in items {
                            out.push(checked(name, scalar(name, item)?, dash_ok)?);
                        }
                    }
                    Some(v) => out.push(checked(name, scalar(name, v)?, dash_ok)?),
                },
                Element::Mixed(pieces) => {
                    let mut s = String::new();
                    let mut dropped = false;
                    for (i, piece) in pieces.iter().enumerate() {
                        match piece {
                            Piece::Literal(l) => s.push_str(l),
                            Piece::Placeholder(name) => match args.get(name) {
                                None | Some(Value::Null) => dropped = true,
                                Some(Value::Array(_)) => {
                                    return Err(format!(
                                        "argument {name:?} is a list, which can only fill a whole command \
                                         element, not part of one"
                                    ));
                                }
                                Some(v) => {
                                    let value = scalar(name, v)?;
                                    let value = if i == 0 { checked(name, value, dash_ok)? } else { value };
                                    s.push_str(&reject_nul(name, value)?);
                                }
                            },
                        }
                    }
                    if !dropped {
                        out.push(s);
                    }
                }
            }
        }
        Ok(out)
    }
}

/// A string, number or boolean as text.
fn scalar(name: &str, v: &Value) -> Result<String, String> {
    match v {
        Value::String(s) => Ok(s.clone()),
        Value::Number(n) => Ok(n.to_string()),
        Value::Bool(b) => Ok(b.to_string()),
        Value::Null => Err(format!("argument {name:?} has a null item; give strings, numbers or booleans")),
        Value::Array(_) | Value::Object(_) => Err(format!(
            "argument {name:?} must be a string, number or boolean (or a list of them) to go on a command line"
        )),
    }
}

fn reject_nul(name: &str, value: String) -> Result<String, String> {
    if value.contains('\0') {
        return Err(format!("argument {name:?} contains a NUL byte, which cannot be passed to a program"));
    }
    Ok(value)
}

/// Refuses NUL and, unless allowed, a leading `-` (option injection).
fn checked(name: &str, value: String, dash_ok: bool) -> Result<String, String> {
    let value = reject_nul(name, value)?;
    if value.starts_with('-') && !dash_ok {
        return Err(format!(
            "argument {name:?} starts with '-' ({value:?}), which the program could read as an option; \
             this tool does not accept values starting with '-'"
        ));
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn template(cmd: &[&str], props: &[&str]) -> Result<ArgvTemplate, TemplateError> {
        let cmd: Vec<String> = cmd.iter().map(|s| s.to_string()).collect();
        let props: Vec<String> = props.iter().map(|s| s.to_string()).collect();
        ArgvTemplate::parse(&cmd, &props, false)
    }

    fn args(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn expands_whole_mixed_lists_and_absent() {
        let t = template(
            &["git", "log", "{n}", "--grep={pat}", "{files}", "{{x}}", "{opt}"],
            &["n", "pat", "files", "opt"],
        )
        .unwrap();
        assert_eq!(t.program(), "git");
        let got = t.expand(&args(json!({"n": 3, "pat": "a b", "files": ["x", "y"]}))).unwrap();
        assert_eq!(got, ["log", "3", "--grep=a b", "x", "y", "{x}"]);
        let got = t.expand(&args(json!({"opt": true}))).unwrap();
        assert_eq!(got, ["log", "{x}", "true"]);
    }

    #[test]
    fn refuses_injection_and_nul() {
        let t = template(&["git", "fetch", "{remote}", "--", "{path}"], &["remote", "path"]).unwrap();
        let e = t.expand(&args(json!({"remote": "--upload-pack=touch /tmp/x"}))).unwrap_err();
        assert!(e.contains("starts with '-'"), "{e}");
        let e = t.expand(&args(json!({"remote": ["ok", "-x"]}))).unwrap_err();
        assert!(e.contains("\"remote\""), "{e}");
        // After a literal `--`, a leading dash is data.
        assert_eq!(t.expand(&args(json!({"path": "-weird"}))).unwrap(), ["fetch", "--", "-weird"]);
        let e = t.expand(&args(json!({"remote": "a\0b"}))).unwrap_err();
        assert!(e.contains("NUL"), "{e}");
        let mixed = template(&["cat", "{name}.txt"], &["name"]).unwrap();
        assert!(mixed.expand(&args(json!({"name": "-n"}))).is_err());
        let allowed = ArgvTemplate::parse(&["x".into(), "{a}".into()], &["a".into()], true).unwrap();
        assert_eq!(allowed.expand(&args(json!({"a": "-v"}))).unwrap(), ["-v"]);
    }

    #[test]
    fn load_time_errors() {
        assert!(matches!(template(&[], &[]), Err(TemplateError::Syntax(_))));
        assert!(matches!(template(&["{prog}"], &["prog"]), Err(TemplateError::Syntax(_))));
        assert!(matches!(template(&["ls", "{nope}"], &["a"]), Err(TemplateError::Unknown(n)) if n == "nope"));
        for bad in ["{a", "a}", "{}", "{a b}"] {
            assert!(matches!(template(&["ls", bad], &["a"]), Err(TemplateError::Syntax(_))), "{bad}");
        }
    }
}
