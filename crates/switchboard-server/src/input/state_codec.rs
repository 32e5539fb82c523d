//! The signed `requestState` of a multi round-trip request: what it is
//! bound to (method, a digest of the params, principal, expiry), its wire
//! form, and the HMAC-SHA256 codec that seals and checks it.

use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

/// What a `requestState` is bound to: the method, the request's params
/// (through their digest) and the principal.
pub(crate) struct Binding {
    pub(super) method: String,
    pub(super) params: Option<Box<RawValue>>,
    pub(super) principal: Option<String>,
}

impl Binding {
    pub(super) fn digest(&self) -> String {
        let params: Map<String, Value> =
            self.params.as_ref().and_then(|raw| serde_json::from_str(raw.get()).ok()).unwrap_or_default();
        params_digest(&params)
    }
}

/// The wire form of a `requestState` before it is signed.
#[derive(Serialize, Deserialize)]
pub(super) struct SealedState {
    pub(super) v: u8,
    /// Method.
    pub(super) m: String,
    /// Digest of the request's parameters.
    pub(super) d: String,
    /// Principal.
    pub(super) p: Option<String>,
    /// Expiry, seconds since the Unix epoch.
    pub(super) e: u64,
    /// Makes every state distinct.
    pub(super) n: u64,
    #[serde(rename = "a", default)]
    pub(super) answers: Map<String, Value>,
    #[serde(rename = "k", default)]
    pub(super) memo: Map<String, Value>,
}

pub(super) const STATE_VERSION: u8 = 1;

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

    pub(super) fn seal(&self, state: &SealedState) -> String {
        let body = serde_json::to_vec(state).expect("a state serializes; qed");
        let mut mac = self.keyed.clone();
        mac.update(&body);
        let tag = mac.finalize().into_bytes();
        format!("{}.{}", URL_SAFE_NO_PAD.encode(&body), URL_SAFE_NO_PAD.encode(tag))
    }

    pub(super) fn open(&self, token: &str, binding: &Binding, now: u64) -> Result<SealedState, &'static str> {
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
pub(super) fn without(map: &Map<String, Value>, left_out: &[&str]) -> Map<String, Value> {
    map.iter().filter(|(k, _)| !left_out.contains(&k.as_str())).map(|(k, v)| (k.clone(), v.clone())).collect()
}

/// Feeds `value` to `hasher` with object keys sorted, so two spellings of
/// the same JSON that differ only in key order hash alike.
pub(super) fn feed_canonical(hasher: &mut Sha256, value: &Value) {
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

pub(super) fn unix_now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

pub(super) fn nonce() -> u64 {
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes).expect("the operating system's random source is available");
    u64::from_le_bytes(bytes)
}
