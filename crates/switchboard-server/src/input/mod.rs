//! Asking the client for input in the middle of a request: elicitation,
//! sampling and roots, through one handler API that works in both eras.
//!
//! A handler calls [`RequestContext::input`](crate::RequestContext::input)
//! (or `elicit`, `sample`, `list_roots`, `inputs`) and gets the client's
//! answer. How the answer arrives depends on the revision:
//!
//! - **Handshake era** (2024-11-05 … 2025-11-25): a live server-to-client
//!   request over the session (`sampling/createMessage`, `elicitation/create`,
//!   `roots/list`), awaited in place.
//! - **Per-request era** (2026-07-28): multi round-trip requests
//!   (`docs/specification/2026-07-28/basic/patterns/mrtr.mdx`). The server
//!   may not send requests, so the first time a handler asks for an answer
//!   the client has not given, the call fails with [`InputError::Pending`];
//!   the handler propagates it with `?`, and the dispatcher answers the
//!   request with an `InputRequiredResult` listing every pending question
//!   (`inputRequests`) and a signed `requestState`. The client retries with
//!   `inputResponses`; the handler runs again from the top, and this time
//!   the same calls return the answers.
//!
//! Handlers therefore stay straight-line code. What a handler learned in
//! earlier rounds survives in the `requestState`: every answer it consumed,
//! and whatever it stored with `remember`. The state is authenticated with
//! HMAC-SHA256 under a key derived from the server key that instances share
//! (the cursor key, [`ServerOptions::cursor_key`](crate::ServerOptions)),
//! and bound to the principal, the method, a digest of the request's
//! parameters and an expiry, as the spec's security section asks. It is
//! integrity-protected, not secret: the client can read it, so never put
//! secrets in `remember`. A state that fails any check is `-32602`.
//!
//! The other rules of the pattern are kept here too: questions go only to
//! clients that declared the capability (otherwise the request ends with
//! `-32021` naming it, when the handler cannot go on without it), missing
//! answers are asked again in a new `InputRequiredResult` rather than
//! failing, answers the handler never asked for are ignored, and an
//! `InputRequiredResult` is only ever the answer to `tools/call`,
//! `prompts/get` or `resources/read`.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};
use switchboard_types::{ClientCapabilities, ErrorObject};

use crate::output::Output;

/// One question for the client: an `elicitation/create`,
/// `sampling/createMessage` or `roots/list` request
/// (`docs/specification/2026-07-28/basic/patterns/mrtr.mdx` §InputRequests).
#[derive(Debug, Clone, PartialEq)]
pub struct InputRequest {
    kind: Kind,
    params: Value,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Elicitation,
    Sampling,
    Roots,
}

impl Kind {
    fn method(self) -> &'static str {
        match self {
            Kind::Elicitation => "elicitation/create",
            Kind::Sampling => "sampling/createMessage",
            Kind::Roots => "roots/list",
        }
    }

    /// The client capability the question needs.
    fn capability(self) -> &'static str {
        match self {
            Kind::Elicitation => "elicitation",
            Kind::Sampling => "sampling",
            Kind::Roots => "roots",
        }
    }

    /// Whether `answer` has the shape of this request's result (the
    /// `ElicitResult`, `CreateMessageResult` or `ListRootsResult` essentials).
    fn accepts(self, answer: &Value) -> bool {
        match self {
            Kind::Elicitation => answer.get("action").is_some_and(Value::is_string),
            Kind::Sampling => {
                answer.get("content").is_some() && answer.get("role").is_some_and(Value::is_string)
            }
            Kind::Roots => answer.get("roots").is_some_and(Value::is_array),
        }
    }
}

impl InputRequest {
    /// A form elicitation: `message` shown to the user and the flat object
    /// schema of the answer.
    pub fn elicit(message: impl Into<String>, requested_schema: Value) -> Self {
        Self::elicitation(json!({"message": message.into(), "requestedSchema": requested_schema}))
    }

    /// An elicitation with the given `ElicitRequestParams` as sent.
    pub fn elicitation(params: Value) -> Self {
        Self { kind: Kind::Elicitation, params }
    }

    /// A sampling request with the given `CreateMessageRequestParams`.
    pub fn sampling(params: Value) -> Self {
        Self { kind: Kind::Sampling, params }
    }

    /// A sampling request for one user message, answered in at most
    /// `max_tokens` tokens.
    pub fn sample_text(text: impl Into<String>, max_tokens: u32) -> Self {
        Self::sampling(json!({
            "messages": [{"role": "user", "content": {"type": "text", "text": text.into()}}],
            "maxTokens": max_tokens,
        }))
    }

    /// A request for the client's roots.
    pub fn list_roots() -> Self {
        Self { kind: Kind::Roots, params: json!({}) }
    }

    /// The question a server-to-client request is, by its JSON-RPC method
    /// (`elicitation/create`, `sampling/createMessage`, `roots/list`) and
    /// params as sent; `None` for any other method. For relaying questions
    /// a handler did not write itself, such as an upstream server's.
    pub fn from_request(method: &str, params: Value) -> Option<Self> {
        let kind =
            [Kind::Elicitation, Kind::Sampling, Kind::Roots].into_iter().find(|k| k.method() == method)?;
        Some(Self { kind, params })
    }

    /// A digest of the question (its method and params, object keys sorted,
    /// `_meta` left out) that is the same every time the same question is
    /// asked: a key for [`RequestContext::input`](crate::RequestContext::input)
    /// when a relayed question must find its answer again on a retry.
    pub fn fingerprint(&self) -> String {
        let mut hasher = Sha256::new();
        hasher.update(self.kind.method().as_bytes());
        let salient = match &self.params {
            Value::Object(map) => Value::Object(without(map, &["_meta"])),
            other => other.clone(),
        };
        feed_canonical(&mut hasher, &salient);
        URL_SAFE_NO_PAD.encode(hasher.finalize())
    }

    /// The JSON-RPC method of the question.
    pub fn method(&self) -> &'static str {
        self.kind.method()
    }

    /// The client capability it needs: `"elicitation"`, `"sampling"` or
    /// `"roots"`.
    pub fn capability(&self) -> &'static str {
        self.kind.capability()
    }

    /// Its parameters.
    pub fn params(&self) -> &Value {
        &self.params
    }

    /// Whether a client with `caps` may be asked this question.
    pub fn is_declared_by(&self, caps: &ClientCapabilities) -> bool {
        match self.kind {
            Kind::Elicitation => caps.elicitation.is_some(),
            Kind::Sampling => caps.sampling.is_some(),
            Kind::Roots => caps.roots.is_some(),
        }
    }

    /// The request object as it appears in `inputRequests`.
    fn wire(&self) -> Value {
        json!({"method": self.kind.method(), "params": self.params})
    }
}

/// Why a question got no answer. Propagate it with `?`: the dispatcher
/// turns [`InputError::Pending`] into an `InputRequiredResult` and
/// [`InputError::NotDeclared`] into `-32021` (2026-07-28) whatever error
/// type the handler converted it into.
#[derive(Debug, Clone)]
pub enum InputError {
    /// 2026-07-28: the client has not answered yet; it will be asked in the
    /// `InputRequiredResult` that ends this round.
    Pending,
    /// The client did not declare the capability the question needs
    /// (`"elicitation"`, `"sampling"` or `"roots"`); check first with
    /// [`RequestContext::can_ask`](crate::RequestContext::can_ask) to do
    /// without.
    NotDeclared {
        /// The missing capability.
        capability: &'static str,
    },
    /// The question could not be asked or the client answered with an
    /// error (handshake era), or the request does not allow questions.
    Failed(ErrorObject),
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InputError::Pending => f.write_str("waiting for the client's input"),
            InputError::NotDeclared { capability } => {
                write!(f, "the client did not declare the {capability} capability")
            }
            InputError::Failed(e) => write!(f, "{}", e.message),
        }
    }
}

impl std::error::Error for InputError {}

/// The per-request-era input state of one request: the client's answers,
/// what the verified `requestState` carried, and what the handler asked.
pub(crate) struct InputRound {
    responses: Map<String, Value>,
    resumed: bool,
    binding: Binding,
    codec: Arc<StateCodec>,
    ttl: Duration,
    progress: Mutex<Progress>,
}

#[derive(Default)]
struct Progress {
    /// Answers from earlier rounds and this one, by key.
    answers: Map<String, Value>,
    /// The handler's own data carried between rounds.
    memo: Map<String, Value>,
    /// Questions asked and not answered, in the order asked.
    pending: Vec<(String, InputRequest)>,
    /// A protocol fault found while answering: a capability the client did
    /// not declare, or an answer of the wrong shape.
    fault: Option<ErrorObject>,
}

/// What a `requestState` is bound to: the method, the request's params
/// (through their digest) and the principal.
pub(crate) struct Binding {
    method: String,
    params: Option<Box<RawValue>>,
    principal: Option<String>,
}

impl Binding {
    fn digest(&self) -> String {
        let params: Map<String, Value> =
            self.params.as_ref().and_then(|raw| serde_json::from_str(raw.get()).ok()).unwrap_or_default();
        params_digest(&params)
    }
}

impl fmt::Debug for InputRound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("InputRound")
            .field("method", &self.binding.method)
            .field("resumed", &self.resumed)
            .field("responses", &self.responses.len())
            .finish_non_exhaustive()
    }
}

impl InputRound {
    /// Reads `inputResponses` and `requestState` from the params of a
    /// 2026-07-28 `method` request and checks the state. A state that fails
    /// verification, or responses that are not an object of objects, are
    /// `-32602`. A first call (neither field) costs one scan of the params
    /// that skips everything else; the params digest is computed only when
    /// a state is checked or issued.
    pub(crate) fn open(
        method: &str,
        params: Option<&RawValue>,
        principal: Option<&str>,
        codec: Arc<StateCodec>,
        ttl: Duration,
    ) -> Result<Self, ErrorObject> {
        #[derive(Deserialize)]
        struct RoundFields<'a> {
            #[serde(rename = "inputResponses", default, borrow)]
            responses: Option<&'a RawValue>,
            #[serde(rename = "requestState", default, borrow)]
            state: Option<&'a RawValue>,
        }
        let fields: RoundFields<'_> = match params {
            // Neither name appears anywhere: nothing to read (the common
            // first call costs a substring search, not a parse).
            Some(raw) if !raw.get().contains("inputResponses") && !raw.get().contains("requestState") => {
                RoundFields { responses: None, state: None }
            }
            Some(raw) => serde_json::from_str(raw.get())
                .map_err(|_| ErrorObject::invalid_params("params must be an object"))?,
            None => RoundFields { responses: None, state: None },
        };
        let responses = match fields.responses.map(|r| serde_json::from_str::<Value>(r.get())) {
            None | Some(Ok(Value::Null)) => Map::new(),
            Some(Ok(Value::Object(map))) => {
                if let Some((key, _)) = map.iter().find(|(_, v)| !v.is_object()) {
                    return Err(ErrorObject::invalid_params(format!(
                        "inputResponses[{key:?}] must be an object (the client's result for that input request)"
                    )));
                }
                map
            }
            Some(_) => return Err(ErrorObject::invalid_params("inputResponses must be an object")),
        };
        let binding = Binding {
            method: method.to_owned(),
            params: params.map(ToOwned::to_owned),
            principal: principal.map(str::to_owned),
        };
        let mut progress = Progress::default();
        let resumed = match fields.state.map(|r| serde_json::from_str::<Value>(r.get())) {
            None | Some(Ok(Value::Null)) => false,
            Some(Ok(Value::String(token))) => {
                let state = codec.open(&token, &binding, unix_now()).map_err(|why| {
                    ErrorObject::invalid_params(format!(
                        "requestState {why}; start the request again without requestState and inputResponses"
                    ))
                })?;
                progress.answers = state.answers;
                progress.memo = state.memo;
                true
            }
            Some(_) => return Err(ErrorObject::invalid_params("requestState must be a string")),
        };
        Ok(Self { responses, resumed, binding, codec, ttl, progress: Mutex::new(progress) })
    }

    pub(crate) fn resumed(&self) -> bool {
        self.resumed
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Progress> {
        self.progress.lock().expect("input round lock poisoned")
    }

    /// Answers the questions from this request's responses and earlier
    /// rounds; records the rest as pending.
    pub(crate) fn answer(
        &self,
        caps: &ClientCapabilities,
        questions: Vec<(String, InputRequest)>,
    ) -> Result<BTreeMap<String, Value>, InputError> {
        let mut progress = self.lock();
        if let Some((_, q)) = questions.iter().find(|(_, q)| !q.is_declared_by(caps)) {
            let capability = q.capability();
            progress.fault.get_or_insert_with(|| {
                ErrorObject::missing_client_capability(
                    format!("this request needs the client's {capability} capability ({})", q.method()),
                    json!({ capability: {} }),
                )
            });
            return Err(InputError::NotDeclared { capability });
        }
        let mut answers = BTreeMap::new();
        let mut missing = Vec::new();
        for (key, question) in questions {
            let answer = self.responses.get(&key).or_else(|| progress.answers.get(&key)).cloned();
            match answer {
                Some(answer) if !question.kind.accepts(&answer) => {
                    let e = ErrorObject::invalid_params(format!(
                        "inputResponses[{key:?}] is not a result of {}",
                        question.method()
                    ));
                    progress.fault.get_or_insert_with(|| e.clone());
                    return Err(InputError::Failed(e));
                }
                Some(answer) => {
                    progress.answers.insert(key.clone(), answer.clone());
                    answers.insert(key, answer);
                }
                None => missing.push((key, question)),
            }
        }
        if missing.is_empty() {
            return Ok(answers);
        }
        for (key, question) in missing {
            progress.pending.retain(|(k, _)| *k != key);
            progress.pending.push((key, question));
        }
        Err(InputError::Pending)
    }

    pub(crate) fn recall(&self, key: &str) -> Option<Value> {
        self.lock().memo.get(key).cloned()
    }

    pub(crate) fn remember(&self, key: &str, value: Value) {
        self.lock().memo.insert(key.to_owned(), value);
    }

    /// What ends a round whose handler failed: an `InputRequiredResult`
    /// when it has questions pending, the protocol fault it met, or `None`
    /// (the handler's own failure stands).
    pub(crate) fn conclude(&self) -> Option<Result<Map<String, Value>, ErrorObject>> {
        let progress = self.lock();
        if let Some(fault) = &progress.fault {
            return Some(Err(fault.clone()));
        }
        if progress.pending.is_empty() {
            return None;
        }
        let requests: Map<String, Value> =
            progress.pending.iter().map(|(k, q)| (k.clone(), q.wire())).collect();
        let state = SealedState {
            v: STATE_VERSION,
            m: self.binding.method.clone(),
            d: self.binding.digest(),
            p: self.binding.principal.clone(),
            e: unix_now().saturating_add(self.ttl.as_secs().max(1)),
            n: nonce(),
            answers: progress.answers.clone(),
            memo: progress.memo.clone(),
        };
        let mut result = Map::new();
        result.insert("inputRequests".into(), Value::Object(requests));
        result.insert("requestState".into(), Value::String(self.codec.seal(&state)));
        Some(Ok(result))
    }
}

/// The answer to a request after its handler ran: when the handler failed
/// (an error, or a tool's `isError` result) while its round has questions
/// pending or met a protocol fault, the round decides instead. One place,
/// so every method that allows input ends the same way.
pub(crate) fn settle(
    round: Option<&InputRound>,
    result: Result<Output, ErrorObject>,
) -> Result<Output, ErrorObject> {
    let Some(round) = round else { return result };
    let failed = match &result {
        Err(_) => true,
        Ok(output) => output.is_tool_error(),
    };
    if !failed {
        return result;
    }
    match round.conclude() {
        Some(Ok(input_required)) => Ok(Output::InputRequired(input_required)),
        Some(Err(fault)) => Err(fault),
        None => result,
    }
}

/// The wire form of a `requestState` before it is signed.
#[derive(Serialize, Deserialize)]
struct SealedState {
    v: u8,
    /// Method.
    m: String,
    /// Digest of the request's parameters.
    d: String,
    /// Principal.
    p: Option<String>,
    /// Expiry, seconds since the Unix epoch.
    e: u64,
    /// Makes every state distinct.
    n: u64,
    #[serde(rename = "a", default)]
    answers: Map<String, Value>,
    #[serde(rename = "k", default)]
    memo: Map<String, Value>,
}

const STATE_VERSION: u8 = 1;

/// Signs and checks `requestState` values.
pub(crate) struct StateCodec {
    keyed: Hmac<Sha256>,
}

impl StateCodec {
    /// A codec whose key is derived from the server key (so a state is
    /// accepted by every instance that shares it, and a cursor can never
    /// pass for a state or the reverse).
    pub(crate) fn new(server_key: [u8; 32]) -> Self {
        let mut derive =
            <Hmac<Sha256> as Mac>::new_from_slice(&server_key).expect("HMAC takes any key length");
        derive.update(b"switchboard/mrtr/requestState/v1");
        let key = derive.finalize().into_bytes();
        Self { keyed: <Hmac<Sha256> as Mac>::new_from_slice(&key).expect("HMAC takes any key length") }
    }

    fn seal(&self, state: &SealedState) -> String {
        let body = serde_json::to_vec(state).expect("a state serializes; qed");
        let mut mac = self.keyed.clone();
        mac.update(&body);
        let tag = mac.finalize().into_bytes();
        format!("{}.{}", URL_SAFE_NO_PAD.encode(&body), URL_SAFE_NO_PAD.encode(tag))
    }

    fn open(&self, token: &str, binding: &Binding, now: u64) -> Result<SealedState, &'static str> {
        let (body, tag) = token.split_once('.').ok_or("is not a state this server issued")?;
        let body = URL_SAFE_NO_PAD.decode(body).map_err(|_| "is not a state this server issued")?;
        let tag = URL_SAFE_NO_PAD.decode(tag).map_err(|_| "is not a state this server issued")?;
        let mut mac = self.keyed.clone();
        mac.update(&body);
        mac.verify_slice(&tag).map_err(|_| "failed its integrity check")?;
        let state: SealedState =
            serde_json::from_slice(&body).map_err(|_| "is not a state this server issued")?;
        if state.v != STATE_VERSION {
            return Err("is from another version of this server");
        }
        if state.m != binding.method || state.d != binding.digest() {
            return Err("belongs to another request (method or parameters differ)");
        }
        if state.p != binding.principal {
            return Err("belongs to another caller");
        }
        if state.e < now {
            return Err("has expired");
        }
        Ok(state)
    }
}

/// SHA-256 of the request's parameters without the round's own fields
/// (`_meta`, `inputResponses`, `requestState`), object keys sorted, so a
/// retry with the same arguments in another key order still matches.
fn params_digest(params: &Map<String, Value>) -> String {
    let mut hasher = Sha256::new();
    let salient = without(params, &["_meta", "inputResponses", "requestState"]);
    feed_canonical(&mut hasher, &Value::Object(salient));
    URL_SAFE_NO_PAD.encode(hasher.finalize())
}

/// `map` without the members named in `left_out`.
fn without(map: &Map<String, Value>, left_out: &[&str]) -> Map<String, Value> {
    map.iter().filter(|(k, _)| !left_out.contains(&k.as_str())).map(|(k, v)| (k.clone(), v.clone())).collect()
}

/// Feeds `value` to `hasher` with object keys sorted, so two spellings of
/// the same JSON that differ only in key order hash alike.
fn feed_canonical(hasher: &mut Sha256, value: &Value) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            hasher.update(b"{");
            for key in keys {
                feed_canonical(hasher, &Value::String(key.clone()));
                hasher.update(b":");
                feed_canonical(hasher, &map[key]);
                hasher.update(b",");
            }
            hasher.update(b"}");
        }
        Value::Array(items) => {
            hasher.update(b"[");
            for item in items {
                feed_canonical(hasher, item);
                hasher.update(b",");
            }
            hasher.update(b"]");
        }
        scalar => hasher.update(scalar.to_string().as_bytes()),
    }
}

fn unix_now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

fn nonce() -> u64 {
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes).expect("the operating system's random source is available");
    u64::from_le_bytes(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round(
        params: Value,
        principal: Option<&str>,
        codec: &Arc<StateCodec>,
    ) -> Result<InputRound, ErrorObject> {
        let raw = RawValue::from_string(params.to_string()).unwrap();
        InputRound::open("tools/call", Some(&raw), principal, Arc::clone(codec), Duration::from_secs(60))
    }

    fn all_caps() -> ClientCapabilities {
        serde_json::from_value(json!({"elicitation": {}, "sampling": {}, "roots": {}})).unwrap()
    }

    fn state_of(result: Map<String, Value>) -> String {
        result["requestState"].as_str().unwrap().to_owned()
    }

    #[test]
    fn a_relayed_question_is_read_from_its_method_and_keeps_its_fingerprint() {
        let ask = |params: Value| InputRequest::from_request("elicitation/create", params).unwrap();
        let a = ask(json!({"message": "Sure?", "requestedSchema": {"type": "object", "properties": {}}}));
        let reordered =
            ask(json!({"requestedSchema": {"properties": {}, "type": "object"}, "message": "Sure?",
                                   "_meta": {"progressToken": 7}}));
        assert_eq!(a.fingerprint(), reordered.fingerprint(), "key order and _meta do not matter");
        assert_ne!(a.fingerprint(), ask(json!({"message": "Really?"})).fingerprint());
        let roots = InputRequest::from_request("roots/list", json!({})).unwrap();
        assert_eq!(roots.method(), "roots/list");
        assert_ne!(
            roots.fingerprint(),
            InputRequest::from_request("sampling/createMessage", json!({})).unwrap().fingerprint()
        );
        assert!(InputRequest::from_request("tools/call", json!({})).is_none());
    }

    #[test]
    fn a_question_is_pending_then_answered_then_carried() {
        let codec = Arc::new(StateCodec::new([3; 32]));
        let first = round(json!({"name": "t", "arguments": {"a": 1}}), None, &codec).unwrap();
        let ask = || vec![("who".to_owned(), InputRequest::elicit("Who?", json!({"type": "object"})))];
        assert!(matches!(first.answer(&all_caps(), ask()), Err(InputError::Pending)));
        let result = first.conclude().unwrap().unwrap();
        assert_eq!(result["inputRequests"]["who"]["method"], "elicitation/create");
        let state = state_of(result);

        // Round 2 answers "who" and asks "why": the state now carries "who".
        let second = round(
            json!({"arguments": {"a": 1}, "name": "t", "requestState": state,
                   "inputResponses": {"who": {"action": "accept", "content": {"n": "A"}}, "extra": {}}}),
            None,
            &codec,
        )
        .unwrap();
        assert!(second.resumed());
        assert_eq!(second.answer(&all_caps(), ask()).unwrap()["who"]["content"]["n"], "A");
        let why = vec![("why".to_owned(), InputRequest::sample_text("Why?", 10))];
        assert!(matches!(second.answer(&all_caps(), why.clone()), Err(InputError::Pending)));
        let next = state_of(second.conclude().unwrap().unwrap());
        assert_ne!(next, state);

        // Round 3 gives only "why"; "who" comes from the state.
        let third = round(
            json!({"name": "t", "arguments": {"a": 1}, "requestState": next,
                   "inputResponses": {"why": {"role": "assistant", "content": {"type": "text", "text": "because"}}}}),
            None,
            &codec,
        )
        .unwrap();
        assert_eq!(third.answer(&all_caps(), ask()).unwrap()["who"]["content"]["n"], "A");
        assert!(third.answer(&all_caps(), why).is_ok());
        assert!(third.conclude().is_none(), "nothing pending, no fault");
    }

    #[test]
    fn states_are_bound_to_key_params_principal_and_time() {
        let codec = Arc::new(StateCodec::new([3; 32]));
        let first = round(json!({"name": "t", "arguments": {"a": 1}}), Some("alice"), &codec).unwrap();
        let _ = first.answer(&all_caps(), vec![("k".into(), InputRequest::list_roots())]);
        let state = state_of(first.conclude().unwrap().unwrap());
        let retry = |params: Value, principal, codec: &Arc<StateCodec>| {
            let mut params = params;
            params["requestState"] = Value::String(state.clone());
            round(params, principal, codec).map(|_| ())
        };
        assert!(retry(json!({"name": "t", "arguments": {"a": 1}}), Some("alice"), &codec).is_ok());
        assert!(
            retry(json!({"arguments": {"a": 1}, "name": "t", "_meta": {"x": 1}}), Some("alice"), &codec)
                .is_ok()
        );
        assert!(retry(json!({"name": "t", "arguments": {"a": 2}}), Some("alice"), &codec).is_err(), "params");
        assert!(retry(json!({"name": "u", "arguments": {"a": 1}}), Some("alice"), &codec).is_err(), "tool");
        assert!(
            retry(json!({"name": "t", "arguments": {"a": 1}}), Some("bob"), &codec).is_err(),
            "principal"
        );
        assert!(retry(json!({"name": "t", "arguments": {"a": 1}}), None, &codec).is_err(), "anonymous");
        let other = Arc::new(StateCodec::new([4; 32]));
        assert!(retry(json!({"name": "t", "arguments": {"a": 1}}), Some("alice"), &other).is_err(), "key");

        let mut tampered = state.clone();
        tampered.push_str("-TAMPERED");
        let e = round(
            json!({"name": "t", "arguments": {"a": 1}, "requestState": tampered}),
            Some("alice"),
            &codec,
        )
        .err()
        .unwrap();
        assert_eq!(e.code, switchboard_types::ErrorCode::INVALID_PARAMS);

        let binding = Binding { method: "tools/call".into(), params: None, principal: None };
        let expired = SealedState {
            v: STATE_VERSION,
            m: binding.method.clone(),
            d: binding.digest(),
            p: None,
            e: 10,
            n: 0,
            answers: Map::new(),
            memo: Map::new(),
        };
        assert_eq!(codec.open(&codec.seal(&expired), &binding, 11).err(), Some("has expired"));
        assert!(codec.open(&codec.seal(&expired), &binding, 10).is_ok());
    }

    #[test]
    fn undeclared_capabilities_and_wrong_shapes_are_faults() {
        let codec = Arc::new(StateCodec::new([3; 32]));
        let r = round(json!({"name": "t"}), None, &codec).unwrap();
        let sampling_only: ClientCapabilities = serde_json::from_value(json!({"sampling": {}})).unwrap();
        let e = r
            .answer(&sampling_only, vec![("q".into(), InputRequest::elicit("?", json!({"type": "object"})))]);
        assert!(matches!(e, Err(InputError::NotDeclared { capability: "elicitation" })));
        let fault = r.conclude().unwrap().unwrap_err();
        assert_eq!(fault.code, switchboard_types::ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY);
        assert_eq!(fault.data.unwrap()["requiredCapabilities"], json!({"elicitation": {}}));

        let r = round(json!({"name": "t", "inputResponses": {"q": {"nope": 1}}}), None, &codec).unwrap();
        assert!(r.answer(&all_caps(), vec![("q".into(), InputRequest::list_roots())]).is_err());
        assert_eq!(r.conclude().unwrap().unwrap_err().code, switchboard_types::ErrorCode::INVALID_PARAMS);

        for bad in
            [json!({"inputResponses": 3}), json!({"inputResponses": {"a": 1}}), json!({"requestState": 5})]
        {
            assert!(round(bad.clone(), None, &codec).is_err(), "{bad}");
        }
    }

    #[test]
    fn memos_survive_rounds() {
        let codec = Arc::new(StateCodec::new([9; 32]));
        let first = round(json!({"name": "t"}), None, &codec).unwrap();
        first.remember("step", json!(2));
        let _ = first.answer(&all_caps(), vec![("k".into(), InputRequest::list_roots())]);
        let state = state_of(first.conclude().unwrap().unwrap());
        let second = round(json!({"name": "t", "requestState": state}), None, &codec).unwrap();
        assert_eq!(second.recall("step"), Some(json!(2)));
    }
}
