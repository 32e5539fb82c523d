//! What every 2026-07-28 result carries: `resultType`, the server's
//! identity in `_meta`, and cache hints on cacheable results.

use serde_json::{Map, Value};
use switchboard_types::lifecycle::CacheScope;

use crate::core::Core;

impl Core {
    /// [`Core::decorate_per_request`] for a result already serialized as a
    /// JSON object without `_meta`: the fields are spliced in after `{`.
    pub(crate) fn decorate_per_request_raw(
        &self,
        result: Vec<u8>,
        cache: Option<(std::time::Duration, CacheScope)>,
    ) -> Vec<u8> {
        let mut extra = Map::new();
        self.decorate_per_request(&mut extra, cache);
        let extra = serde_json::to_vec(&extra).expect("a map serializes; qed");
        let mut out = Vec::with_capacity(result.len() + extra.len());
        out.extend_from_slice(&extra[..extra.len() - 1]);
        if result.len() > 2 {
            out.push(b',');
            out.extend_from_slice(&result[1..]);
        } else {
            out.push(b'}');
        }
        out
    }

    /// Adds what every 2026-07-28 result carries: `resultType`, the server's
    /// identity in `_meta`, and cache hints on cacheable results.
    pub(crate) fn decorate_per_request(
        &self,
        result: &mut Map<String, Value>,
        cache: Option<(std::time::Duration, CacheScope)>,
    ) {
        self.decorate_as(result, "complete", cache);
    }

    /// Decorates a 2026-07-28 result as `result_type` (`"complete"`,
    /// `"input_required"`, the Tasks extension's `"task"`), with the
    /// server's identity and the cache hints given (never on
    /// `input_required` results, `caching.mdx`).
    pub(crate) fn decorate_as(
        &self,
        result: &mut Map<String, Value>,
        result_type: &'static str,
        cache: Option<(std::time::Duration, CacheScope)>,
    ) {
        result.insert("resultType".into(), Value::String(result_type.into()));
        if let Some((ttl, scope)) = cache {
            let ms = u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX);
            result.insert("ttlMs".into(), Value::from(ms));
            result.insert(
                "cacheScope".into(),
                serde_json::to_value(scope).expect("CacheScope serializes; qed"),
            );
        }
        let meta = result.entry("_meta").or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(meta) = meta {
            meta.insert(switchboard_types::meta::SERVER_INFO.into(), self.shared.per_request_info.clone());
        }
    }
}
