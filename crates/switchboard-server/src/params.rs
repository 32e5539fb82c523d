//! Reading a method's params and writing its result map: the helpers
//! every method handler uses. [`FromParams`] is the one rule by which a
//! core handler receives its params (`dispatch/rows.rs`): parsed before it
//! runs, borrowed from the request where the type borrows, or [`Lazy`].

use std::marker::PhantomData;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use switchboard_types::ErrorObject;

/// Parses a method's params into its type; failures are `-32602` with
/// serde's explanation. Absent params read as `{}`.
pub(crate) fn parse_params<'a, T: Deserialize<'a>>(params: Option<&'a RawValue>) -> Result<T, ErrorObject> {
    serde_json::from_str(params.map_or("{}", RawValue::get)).map_err(ErrorObject::invalid_params)
}

/// How a core handler receives its method's params from the request's raw
/// params.
pub(crate) trait FromParams<'a>: Sized {
    /// The params, or the `-32602` that refuses them.
    fn from_params(raw: Option<&'a RawValue>) -> Result<Self, ErrorObject>;
}

/// Params parsed before the handler runs ([`parse_params`]): a type that
/// borrows (as `tools/call`'s name does) borrows from the request, so the
/// hot path copies nothing it does not keep.
impl<'a, T: Deserialize<'a>> FromParams<'a> for T {
    fn from_params(raw: Option<&'a RawValue>) -> Result<Self, ErrorObject> {
        parse_params(raw)
    }
}

/// A method's params as `T`, left unparsed until the handler asks
/// ([`Lazy::parse`]): for a handler that must refuse a request for another
/// reason first (a `tasks/*` request from a client without the capability
/// is `-32601` or `-32021` whatever its params), or one that never reads
/// them (`ping`).
pub(crate) struct Lazy<'a, T> {
    raw: Option<&'a RawValue>,
    of: PhantomData<fn() -> T>,
}

impl<'a, T: Deserialize<'a>> Lazy<'a, T> {
    /// The params, or the `-32602` that refuses them.
    pub(crate) fn parse(self) -> Result<T, ErrorObject> {
        parse_params(self.raw)
    }
}

impl<'a, T> FromParams<'a> for Lazy<'a, T> {
    fn from_params(raw: Option<&'a RawValue>) -> Result<Self, ErrorObject> {
        Ok(Lazy { raw, of: PhantomData })
    }
}

/// Serializes a result struct into the map the decorators work on.
pub(crate) fn to_map<T: Serialize>(value: &T) -> Result<Map<String, Value>, ErrorObject> {
    match serde_json::to_value(value) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(ErrorObject::internal("a result must be a JSON object")),
        Err(e) => Err(ErrorObject::internal(e)),
    }
}
