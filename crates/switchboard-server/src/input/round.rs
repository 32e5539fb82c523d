//! One request's round trips in the per-request era: the answers the
//! client sent, what its verified `requestState` carried, the questions
//! the handler asked, and how a round ends (an `InputRequiredResult`, a
//! protocol fault, or the handler's own answer).

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};
use switchboard_types::{ClientCapabilities, ErrorObject};

use super::state_codec::{Binding, STATE_VERSION, SealedState, StateCodec, nonce, unix_now};
use super::{InputError, InputRequest};
use crate::output::Output;

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
