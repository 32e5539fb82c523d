//! Reading a method's params and writing its result map: the two helpers
//! every method handler uses.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use switchboard_types::ErrorObject;

/// Parses a method's params into its type; failures are `-32602` with
/// serde's explanation. Absent params read as `{}`.
pub(crate) fn parse_params<T: DeserializeOwned>(params: Option<&RawValue>) -> Result<T, ErrorObject> {
    serde_json::from_str(params.map_or("{}", RawValue::get)).map_err(ErrorObject::invalid_params)
}

/// Serializes a result struct into the map the decorators work on.
pub(crate) fn to_map<T: Serialize>(value: &T) -> Result<Map<String, Value>, ErrorObject> {
    match serde_json::to_value(value) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(ErrorObject::internal("a result must be a JSON object")),
        Err(e) => Err(ErrorObject::internal(e)),
    }
}
