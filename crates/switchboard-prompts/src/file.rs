//! One prompt file: parsed, its templates compiled and checked, ready to
//! render and to register.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use minijinja::{AutoEscape, Environment, UndefinedBehavior};
use switchboard_server::types::{GetPromptResult, PromptArgument, PromptMessage};
use switchboard_server::{HandlerError, Prompt, RequestContext, complete_from};

use crate::PromptError;
use crate::front_matter::{ArgumentSpec, split};

/// A parsed, compiled prompt file. Cheap to clone.
#[derive(Clone)]
pub struct PromptFile {
    inner: Arc<Inner>,
}

struct Inner {
    name: String,
    path: PathBuf,
    title: Option<String>,
    description: Option<String>,
    arguments: Vec<ArgumentSpec>,
    messages: Vec<Message>,
    env: Environment<'static>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    User,
    Assistant,
}

struct Message {
    role: Role,
    /// The template's name in the environment.
    template: String,
    /// The file line of the template's first line.
    line: usize,
}

impl std::fmt::Debug for PromptFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PromptFile")
            .field("name", &self.inner.name)
            .field("path", &self.inner.path)
            .field("messages", &self.inner.messages.len())
            .finish_non_exhaustive()
    }
}

impl PromptFile {
    /// Parses and checks the prompt file `path` whose contents are `text`;
    /// on problems, the first (see [`PromptFile::parse_all`]).
    pub fn parse(path: &Path, text: &str) -> Result<Self, PromptError> {
        Self::parse_all(path, text).map_err(|mut errors| errors.swap_remove(0))
    }

    /// Parses and checks the prompt file `path` whose contents are `text`,
    /// finding every problem in one pass, each at its line: the name, each
    /// argument, each message's template and each undeclared variable (a
    /// front matter that does not parse stops there: nothing after it can
    /// be read). The error list is never empty.
    pub fn parse_all(path: &Path, text: &str) -> Result<Self, Vec<PromptError>> {
        let split = split(path, text).map_err(|e| vec![e])?;
        let front = split.front;
        let mut errors = Vec::new();
        let name = match front.name {
            Some(name) => name,
            None => path.file_stem().and_then(|s| s.to_str()).map(str::to_owned).unwrap_or_else(|| {
                errors.push(PromptError::new(path, 1, 1, "the file name is not valid UTF-8; set `name`"));
                String::new()
            }),
        };
        if name.trim().is_empty() && errors.is_empty() {
            let (line, column) = front_place(text, split.body_line, "name");
            errors.push(PromptError::new(path, line, column, "the prompt name is empty"));
        }
        let mut seen = std::collections::HashSet::new();
        for argument in &front.arguments {
            let (line, column) = front_place(text, split.body_line, &argument.name);
            if !is_identifier(&argument.name) {
                errors.push(PromptError::new(
                    path,
                    line,
                    column,
                    format!(
                        "argument name {:?} must be letters, digits and underscores, not starting with a digit",
                        argument.name
                    ),
                ));
            } else if !seen.insert(argument.name.as_str()) {
                errors.push(PromptError::new(
                    path,
                    line,
                    column,
                    format!("argument {:?} is declared twice", argument.name),
                ));
            }
        }

        let mut env = Environment::new();
        env.set_undefined_behavior(UndefinedBehavior::Lenient);
        env.set_auto_escape_callback(|_| AutoEscape::None);
        let mut messages = Vec::new();
        for (i, (role, line, source)) in messages_of(split.body, split.body_line).into_iter().enumerate() {
            let template = format!("{}#{i}", path.display());
            if let Err(e) = env.add_template_owned(template.clone(), source.clone()) {
                errors.push(template_error(path, line, &e));
                continue;
            }
            let compiled = match env.get_template(&template) {
                Ok(compiled) => compiled,
                Err(e) => {
                    errors.push(template_error(path, line, &e));
                    continue;
                }
            };
            let mut undeclared: Vec<String> = compiled
                .undeclared_variables(false)
                .into_iter()
                .filter(|v| !seen.contains(v.as_str()) && env.globals().all(|(g, _)| g != v))
                .collect();
            undeclared.sort_by_key(|v| find(&source, v));
            for variable in undeclared {
                let (l, c) = find(&source, &variable).map_or((line, 1), |(l, c)| (line + l - 1, c));
                errors.push(PromptError::new(
                    path,
                    l,
                    c,
                    format!(
                        "the template uses `{variable}`, which is not a declared argument; \
                         declare it under `arguments` in the front matter"
                    ),
                ));
            }
            messages.push(Message { role, template, line });
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        Ok(Self {
            inner: Arc::new(Inner {
                name,
                path: path.to_path_buf(),
                title: front.title,
                description: front.description,
                arguments: front.arguments,
                messages,
                env,
            }),
        })
    }

    /// The prompt's name.
    pub fn name(&self) -> &str {
        &self.inner.name
    }

    /// The file it came from.
    pub fn path(&self) -> &Path {
        &self.inner.path
    }

    /// Renders the messages with `args` (declared arguments only; required
    /// ones must be present, which the server checks before a handler runs).
    pub fn render(&self, args: &BTreeMap<String, String>) -> Result<Vec<PromptMessage>, PromptError> {
        let context = minijinja::Value::from(args.clone());
        let mut out = Vec::with_capacity(self.inner.messages.len());
        for message in &self.inner.messages {
            let template = self
                .inner
                .env
                .get_template(&message.template)
                .map_err(|e| template_error(&self.inner.path, message.line, &e))?;
            let text =
                template.render(&context).map_err(|e| template_error(&self.inner.path, message.line, &e))?;
            let text = text.trim_matches(['\n', '\r']).to_owned();
            out.push(match message.role {
                Role::User => PromptMessage::user(text),
                Role::Assistant => PromptMessage::assistant(text),
            });
        }
        Ok(out)
    }

    /// The prompt to register: definition, renderer and completers.
    pub fn to_prompt(&self) -> Prompt {
        let mut prompt = Prompt::new(self.inner.name.clone());
        if let Some(title) = &self.inner.title {
            prompt = prompt.title(title.clone());
        }
        if let Some(description) = &self.inner.description {
            prompt = prompt.description(description.clone());
        }
        for argument in &self.inner.arguments {
            prompt = prompt.argument_def(PromptArgument {
                name: argument.name.clone(),
                title: argument.title.clone(),
                description: argument.description.clone(),
                required: Some(argument.required),
            });
            if !argument.completions.is_empty() {
                prompt = prompt.complete(argument.name.clone(), complete_from(argument.completions.clone()));
            }
        }
        let this = self.clone();
        prompt.raw_handler(move |args: BTreeMap<String, String>, _ctx: RequestContext| {
            let rendered = this.render(&args);
            let description = this.inner.description.clone();
            async move {
                let messages =
                    rendered.map_err(|e| HandlerError::internal(format!("rendering the prompt: {e}")))?;
                Ok(GetPromptResult { description, messages })
            }
        })
    }
}

/// The messages of a body: (role, file line of the first template line, source).
fn messages_of(body: &str, body_line: usize) -> Vec<(Role, usize, String)> {
    let mut messages = Vec::new();
    let mut role = Role::User;
    let mut start = body_line;
    let mut current = String::new();
    let mut explicit = false;
    for (i, line) in body.split_inclusive('\n').enumerate() {
        let marker = match line.trim() {
            "<!-- user -->" => Some(Role::User),
            "<!-- assistant -->" => Some(Role::Assistant),
            _ => None,
        };
        match marker {
            Some(next) => {
                if explicit || !current.trim().is_empty() {
                    messages.push((role, start, std::mem::take(&mut current)));
                }
                current.clear();
                role = next;
                explicit = true;
                start = body_line + i + 1;
            }
            None => current.push_str(line),
        }
    }
    if explicit || !current.trim().is_empty() || messages.is_empty() {
        messages.push((role, start, current));
    }
    messages
}

fn template_error(path: &Path, first_line: usize, e: &minijinja::Error) -> PromptError {
    let line = e.line().map_or(first_line, |l| first_line + l - 1);
    let detail = e.detail().map(str::to_owned).unwrap_or_else(|| e.kind().to_string());
    PromptError::new(path, line, 1, format!("template: {detail}"))
}

/// Where `word` is first written in the front matter of `text` (which
/// ends before `body_line`), for placing a problem of the front matter;
/// line 1 when it is not found there.
fn front_place(text: &str, body_line: usize, word: &str) -> (usize, usize) {
    find(text, word).filter(|(line, _)| *line > 1 && *line < body_line).unwrap_or((1, 1))
}

/// The 1-based (line, column) of the first `needle` in `text` as a whole word.
fn find(text: &str, needle: &str) -> Option<(usize, usize)> {
    for (i, line) in text.lines().enumerate() {
        let mut from = 0;
        while let Some(at) = line[from..].find(needle) {
            let start = from + at;
            let end = start + needle.len();
            let before = line[..start].chars().next_back();
            let after = line[end..].chars().next();
            let boundary = |c: Option<char>| c.is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
            if boundary(before) && boundary(after) {
                return Some((i + 1, line[..start].chars().count() + 1));
            }
            from = end;
        }
    }
    None
}

fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}
