//! Prompts whose arguments the client can complete as the user types.
//!
//! - `review(code, language?)` and `translate(text, from, to)` are plain
//!   async functions made prompts by `#[prompt]`.
//! - Their arguments are completed (`completion/complete`) with the prompt
//!   builder's `.complete(argument, completer)`: [`complete_from`] filters a
//!   fixed list by what was typed; [`completer_fn`] can do anything, here
//!   leave out the language already chosen as `from` when completing `to`.
//!
//! Run it over stdio with:
//!
//! ```text
//! cargo run -p example-prompts
//! ```

use switchboard_server::{
    CompletionRequest, HandlerError, RequestContext, Server, complete_from, completer_fn, prompt,
};

/// Programming languages `review` knows.
const LANGUAGES: &[&str] =
    &["C", "C++", "Go", "Haskell", "Java", "JavaScript", "Python", "Rust", "TypeScript"];

/// Human languages `translate` knows.
const TONGUES: &[&str] = &["English", "French", "German", "Portuguese", "Spanish"];

/// Asks for a code review.
#[prompt]
async fn review(
    #[arg(description = "The code to review.")] code: String,
    #[arg(description = "Its programming language.")] language: Option<String>,
) -> Result<String, HandlerError> {
    let language = language.unwrap_or_else(|| "this".to_owned());
    Ok(format!("Review {language} code for bugs and unclear names:\n\n{code}"))
}

/// Asks for a translation.
#[prompt]
async fn translate(
    #[arg(description = "What to translate.")] text: String,
    #[arg(description = "The language it is in.")] from: String,
    #[arg(description = "The language to translate to.")] to: String,
) -> Result<String, HandlerError> {
    if from == to {
        return Err(HandlerError::invalid_params("from and to must differ"));
    }
    Ok(format!("Translate from {from} to {to}:\n\n{text}"))
}

/// The tongues starting with what was typed, except the one chosen as `from`.
async fn target_tongues(
    request: CompletionRequest,
    _ctx: RequestContext,
) -> Result<Vec<String>, HandlerError> {
    let typed = request.value.to_lowercase();
    let from = request.context.get("from");
    Ok(TONGUES
        .iter()
        .filter(|t| t.to_lowercase().starts_with(&typed) && from.is_none_or(|f| f != *t))
        .map(|t| (*t).to_owned())
        .collect())
}

#[tokio::main]
async fn main() -> Result<(), switchboard_server::Error> {
    Server::builder("prompts", "1.0.0")
        .prompt(review_prompt().complete("language", complete_from(LANGUAGES.iter().copied())))
        .prompt(
            translate_prompt()
                .complete("from", complete_from(TONGUES.iter().copied()))
                .complete("to", completer_fn(target_tongues)),
        )
        .build()?
        .serve_stdio()
        .await
}
