//! A serialized reply together with its [`Outcome`].
//!
//! Transports decide things from how a request ended: Streamable HTTP
//! answers `404`, `400` or `503` for some errors. The dispatcher knows the
//! outcome when it writes the reply, so it hands both over; a transport
//! never parses the bytes again. The outcome is set by the constructors
//! here, the only place replies are built, from the same value that is
//! serialized: the two cannot disagree.
//!
//! The `*_within` constructors enforce the response size cap
//! (`ServerOptions::max_response_size`) while writing: serialization stops
//! at the cap, so an oversized result never takes its full size a second
//! time as bytes, and the reply becomes the error that says so.

use serde::Serialize;
use switchboard_types::jsonrpc::{
    ErrorResponseRef, JSONRPC_VERSION, ResultResponseRef, encode_error, encode_result,
};
use switchboard_types::{ErrorCode, ErrorObject, RequestId};

/// How a request ended, as far as a transport needs to know.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Outcome {
    /// A result.
    Ok,
    /// A `tools/call` result with `isError: true`: the tool failed, the
    /// protocol did not.
    ToolError,
    /// A JSON-RPC error response.
    Error {
        /// Its code.
        code: ErrorCode,
        /// It is the state-store outage answer
        /// ([`store_unavailable`](crate::store::store_unavailable)), which
        /// is worth retrying shortly.
        store_unavailable: bool,
    },
    /// A 2025-03-26 batch: one array of responses, each with its own outcome.
    Batch,
}

impl Outcome {
    /// The outcome of answering with `error`.
    pub fn of_error(error: &ErrorObject) -> Self {
        Outcome::Error { code: error.code, store_unavailable: crate::store::is_store_unavailable(error) }
    }

    /// The error code, for an error response.
    pub fn error_code(self) -> Option<ErrorCode> {
        match self {
            Outcome::Error { code, .. } => Some(code),
            _ => None,
        }
    }

    /// Whether the reply is the state-store outage answer.
    pub fn is_store_unavailable(self) -> bool {
        matches!(self, Outcome::Error { store_unavailable: true, .. })
    }
}

/// One reply as sent (a JSON-RPC response, or a batch of them) and its
/// [`Outcome`]. It dereferences to its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    bytes: Vec<u8>,
    outcome: Outcome,
}

impl Reply {
    /// A success response around `result`; `tool_error` for a `tools/call`
    /// result that reports a tool error.
    pub(crate) fn result<T: Serialize>(id: &RequestId, result: &T, tool_error: bool) -> Self {
        let outcome = if tool_error { Outcome::ToolError } else { Outcome::Ok };
        Reply { bytes: encode_result(id, result), outcome }
    }

    /// A success response around an already serialized result object.
    pub(crate) fn raw_result(id: &RequestId, result: &[u8]) -> Self {
        let mut bytes = Vec::with_capacity(result.len() + 48);
        bytes.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
        serde_json::to_writer(&mut bytes, id).expect("ids serialize; qed");
        bytes.extend_from_slice(b",\"result\":");
        bytes.extend_from_slice(result);
        bytes.push(b'}');
        Reply { bytes, outcome: Outcome::Ok }
    }

    /// An error response (`id` is `None` when the request's id is unknown).
    pub(crate) fn error(id: Option<&RequestId>, error: &ErrorObject) -> Self {
        Reply { bytes: encode_error(id, error), outcome: Outcome::of_error(error) }
    }

    /// [`Reply::result`], or [`Reply::too_large`] once it passes `cap` bytes.
    pub(crate) fn result_within<T: Serialize>(
        id: &RequestId,
        result: &T,
        tool_error: bool,
        cap: usize,
    ) -> Self {
        let outcome = if tool_error { Outcome::ToolError } else { Outcome::Ok };
        let response = ResultResponseRef { jsonrpc: JSONRPC_VERSION, id, result };
        match write_within(&response, cap) {
            Some(bytes) => Reply { bytes, outcome },
            None => Reply::too_large(id, cap),
        }
    }

    /// [`Reply::raw_result`], or [`Reply::too_large`] past `cap` bytes.
    pub(crate) fn raw_result_within(id: &RequestId, result: &[u8], cap: usize) -> Self {
        if result.len() > cap {
            return Reply::too_large(id, cap);
        }
        let reply = Reply::raw_result(id, result);
        if reply.bytes.len() > cap { Reply::too_large(id, cap) } else { reply }
    }

    /// [`Reply::error`], or [`Reply::too_large`] past `cap` bytes (an error
    /// with a large `data`).
    pub(crate) fn error_within(id: &RequestId, error: &ErrorObject, cap: usize) -> Self {
        let response = ErrorResponseRef { jsonrpc: JSONRPC_VERSION, id: Some(id), error };
        match write_within(&response, cap) {
            Some(bytes) => Reply { bytes, outcome: Outcome::of_error(error) },
            None => Reply::too_large(id, cap),
        }
    }

    /// The error that replaces a response over `cap` bytes.
    fn too_large(id: &RequestId, cap: usize) -> Self {
        tracing::warn!(%id, max = cap, "response over the size limit replaced by an error");
        Reply::error(
            Some(id),
            &ErrorObject::internal(format!(
                "the response is larger than this server sends ({cap} bytes); ask for less (a page, \
                 a range, a narrower query)"
            )),
        )
    }

    /// The array of a batch's responses.
    pub(crate) fn batch(responses: &[Reply]) -> Self {
        let mut bytes = Vec::with_capacity(responses.iter().map(|r| r.bytes.len() + 1).sum::<usize>() + 1);
        bytes.push(b'[');
        for (i, r) in responses.iter().enumerate() {
            if i > 0 {
                bytes.push(b',');
            }
            bytes.extend_from_slice(&r.bytes);
        }
        bytes.push(b']');
        Reply { bytes, outcome: Outcome::Batch }
    }

    /// How the request ended.
    pub fn outcome(&self) -> Outcome {
        self.outcome
    }

    /// The serialized reply.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The serialized reply, owned.
    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }
}

/// `value` as JSON, unless it passes `cap` bytes: writing stops there.
fn write_within(value: &impl Serialize, cap: usize) -> Option<Vec<u8>> {
    /// A buffer that refuses to grow past its cap.
    struct Within {
        bytes: Vec<u8>,
        cap: usize,
    }
    // serde_json writes a token at a time: these stay inlined, as `Vec`'s
    // own `Write` is, so the cap costs a comparison per token.
    impl std::io::Write for Within {
        #[inline]
        fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
            self.write_all(data).map(|()| data.len())
        }

        #[inline]
        fn write_all(&mut self, data: &[u8]) -> std::io::Result<()> {
            // `bytes` never grows past `cap`, so this cannot underflow.
            if data.len() > self.cap - self.bytes.len() {
                return Err(over_the_cap());
            }
            self.bytes.extend_from_slice(data);
            Ok(())
        }

        #[inline]
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    #[cold]
    fn over_the_cap() -> std::io::Error {
        std::io::Error::other("over the response size cap")
    }
    let mut within = Within { bytes: Vec::with_capacity(128.min(cap)), cap };
    serde_json::to_writer(&mut within, value).ok()?;
    Some(within.bytes)
}

impl std::ops::Deref for Reply {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.bytes
    }
}

impl From<Reply> for Vec<u8> {
    fn from(reply: Reply) -> Self {
        reply.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id() -> RequestId {
        RequestId::from(7)
    }

    #[test]
    fn results_are_ok_or_tool_errors() {
        let map = serde_json::json!({"content": []});
        assert_eq!(Reply::result(&id(), &map, false).outcome(), Outcome::Ok);
        assert_eq!(Reply::result(&id(), &map, true).outcome(), Outcome::ToolError);
        let raw = Reply::raw_result(&id(), b"{}");
        assert_eq!(raw.outcome(), Outcome::Ok);
        assert_eq!(raw.bytes(), br#"{"jsonrpc":"2.0","id":7,"result":{}}"#);
    }

    #[test]
    fn errors_carry_their_code_and_whether_the_store_is_down() {
        let reply = Reply::error(Some(&id()), &ErrorObject::method_not_found("nope"));
        assert_eq!(reply.outcome().error_code(), Some(ErrorCode::METHOD_NOT_FOUND));
        assert!(!reply.outcome().is_store_unavailable());
        let down = crate::store::store_unavailable(&crate::store::StateError("down".into()), false);
        let reply = Reply::error(Some(&id()), &down);
        assert_eq!(
            reply.outcome(),
            Outcome::Error { code: ErrorCode::INTERNAL_ERROR, store_unavailable: true }
        );
    }

    #[test]
    fn a_batch_is_its_responses_in_one_array() {
        let parts = [Reply::raw_result(&id(), b"{}"), Reply::error(None, &ErrorObject::invalid_request("x"))];
        let batch = Reply::batch(&parts);
        assert_eq!(batch.outcome(), Outcome::Batch);
        let value: serde_json::Value = serde_json::from_slice(&batch).unwrap();
        assert_eq!(value.as_array().map(Vec::len), Some(2));
    }

    #[test]
    fn the_cap_is_enforced_while_writing_for_results_raw_results_and_errors() {
        let id = RequestId::Number(1);
        let small = serde_json::json!({"text": "ok"});
        assert_eq!(Reply::result_within(&id, &small, false, 1024), Reply::result(&id, &small, false));
        let big = serde_json::json!({"text": "x".repeat(10_000)});
        let raw = serde_json::to_vec(&big).unwrap();
        let data = ErrorObject::internal("failed").with_data(big.clone());
        for reply in [
            Reply::result_within(&id, &big, true, 1024),
            Reply::raw_result_within(&id, &raw, 1024),
            Reply::error_within(&id, &data, 1024),
        ] {
            assert_eq!(reply.outcome().error_code(), Some(ErrorCode::INTERNAL_ERROR));
            let text = String::from_utf8(reply.into_bytes()).unwrap();
            assert!(text.contains("larger than this server sends (1024 bytes)"), "{text}");
        }
        // Exactly at the cap is allowed; one byte less is not.
        let exact = Reply::result(&id, &small, false).len();
        assert_eq!(Reply::result_within(&id, &small, false, exact).outcome(), Outcome::Ok);
        assert_ne!(Reply::result_within(&id, &small, false, exact - 1).outcome(), Outcome::Ok);
        assert_eq!(
            Reply::raw_result_within(&id, b"{}", Reply::raw_result(&id, b"{}").len()).outcome(),
            Outcome::Ok
        );
    }
}
