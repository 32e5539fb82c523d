//! PostgreSQL values to and from the JSON form of [`crate::value`].
//!
//! tokio-postgres asks for every result column in the binary format. We
//! decode that format ourselves ([`Cell`] accepts any type and is handed
//! the raw bytes) rather than through postgres-types' typed impls, so one
//! code path covers every type, a value never fails for want of a Rust
//! type, and numeric keeps every digit. Whether a column can be decoded is
//! decided from its type when the statement is described, before anything
//! runs ([`check_decodable`]): a type we do not read is refused up front
//! with the fix (`::text`), never a decode error halfway through a result.
//!
//! Parameters go the other way ([`encode_param`]): the JSON value is
//! checked against the described type, then sent in the binary format for
//! the simple types and in the text format (the server's own input
//! function parses it) for dates, times, numeric, uuid, arrays and the rest.

use std::error::Error as StdError;

use bytes::BytesMut;
use serde_json::{Value, json};
use tokio_postgres::types::{Format, FromSql, IsNull, Kind, ToSql, Type, to_sql_checked};

use crate::value;

type BoxError = Box<dyn StdError + Sync + Send>;

/// Type OIDs (pg_type.dat); stable across PostgreSQL versions.
mod oid {
    pub const BOOL: u32 = 16;
    pub const BYTEA: u32 = 17;
    pub const CHAR: u32 = 18;
    pub const NAME: u32 = 19;
    pub const INT8: u32 = 20;
    pub const INT2: u32 = 21;
    pub const INT4: u32 = 23;
    pub const TEXT: u32 = 25;
    pub const OID: u32 = 26;
    pub const JSON: u32 = 114;
    pub const XML: u32 = 142;
    pub const CIDR: u32 = 650;
    pub const FLOAT4: u32 = 700;
    pub const FLOAT8: u32 = 701;
    pub const UNKNOWN: u32 = 705;
    pub const INET: u32 = 869;
    pub const BPCHAR: u32 = 1042;
    pub const VARCHAR: u32 = 1043;
    pub const DATE: u32 = 1082;
    pub const TIME: u32 = 1083;
    pub const TIMESTAMP: u32 = 1114;
    pub const TIMESTAMPTZ: u32 = 1184;
    pub const INTERVAL: u32 = 1186;
    pub const TIMETZ: u32 = 1266;
    pub const NUMERIC: u32 = 1700;
    pub const UUID: u32 = 2950;
    pub const JSONB: u32 = 3802;
    pub const VOID: u32 = 2278;
    pub const XID: u32 = 28;
    pub const CID: u32 = 29;
    pub const XID8: u32 = 5069;
    pub const MACADDR: u32 = 829;
    pub const MACADDR8: u32 = 774;
}

/// Types outside the core set whose binary form is their text (extensions
/// and core types alike), by name.
const TEXT_LIKE_NAMES: &[&str] = &["citext", "xml", "pg_node_tree"];

/// The type a value of `ty` is read as: a domain is read as its base type.
fn base(ty: &Type) -> &Type {
    match ty.kind() {
        Kind::Domain(inner) => base(inner),
        _ => ty,
    }
}

fn is_text_like(ty: &Type) -> bool {
    matches!(ty.oid(), oid::TEXT | oid::VARCHAR | oid::BPCHAR | oid::NAME | oid::UNKNOWN | oid::XML)
        || matches!(ty.kind(), Kind::Enum(_))
        || TEXT_LIKE_NAMES.contains(&ty.name())
}

/// Whether values of `ty` are decoded (see the module documentation).
pub(crate) fn decodable(ty: &Type) -> bool {
    let ty = base(ty);
    if is_text_like(ty) {
        return true;
    }
    match ty.kind() {
        Kind::Array(element) => decodable(element),
        _ => matches!(
            ty.oid(),
            oid::BOOL
                | oid::BYTEA
                | oid::CHAR
                | oid::INT8
                | oid::INT2
                | oid::INT4
                | oid::OID
                | oid::JSON
                | oid::JSONB
                | oid::CIDR
                | oid::INET
                | oid::FLOAT4
                | oid::FLOAT8
                | oid::DATE
                | oid::TIME
                | oid::TIMETZ
                | oid::TIMESTAMP
                | oid::TIMESTAMPTZ
                | oid::INTERVAL
                | oid::NUMERIC
                | oid::UUID
                | oid::VOID
                | oid::XID
                | oid::CID
                | oid::XID8
                | oid::MACADDR
                | oid::MACADDR8
        ),
    }
}

/// Refuses a statement with a column we do not decode, saying how to fix it.
pub(crate) fn check_decodable(columns: &[tokio_postgres::Column]) -> Result<(), crate::Error> {
    match columns.iter().find(|c| !decodable(c.type_())) {
        None => Ok(()),
        Some(column) => Err(crate::Error::Execute(format!(
            "column {:?} has type {}, which switchboard does not convert to JSON; cast it in the query, e.g. {}::text",
            column.name(),
            column.type_().name(),
            column.name()
        ))),
    }
}

/// The JSON Schema of the JSON form of `ty`'s values (`null` included).
pub(crate) fn schema(ty: &Type) -> Value {
    let ty = base(ty);
    if let Kind::Array(element) = ty.kind() {
        return json!({"type": ["array", "null"], "items": schema(element)});
    }
    if let Kind::Enum(labels) = ty.kind() {
        let mut values: Vec<Value> = labels.iter().map(|l| Value::String(l.clone())).collect();
        values.push(Value::Null);
        return json!({"type": ["string", "null"], "enum": values});
    }
    if is_text_like(ty) {
        return value::string_schema(None);
    }
    match ty.oid() {
        oid::BOOL => json!({"type": ["boolean", "null"]}),
        oid::INT2 | oid::INT4 | oid::OID | oid::XID | oid::CID => value::integer_schema(false),
        oid::INT8 | oid::XID8 => value::integer_schema(true),
        oid::FLOAT4 | oid::FLOAT8 => value::float_schema(),
        oid::NUMERIC => value::numeric_schema(),
        oid::BYTEA => value::bytes_schema(),
        oid::DATE => value::string_schema(Some("date")),
        oid::TIMESTAMPTZ => value::string_schema(Some("date-time")),
        oid::UUID => value::string_schema(Some("uuid")),
        oid::JSON | oid::JSONB => json!({}),
        oid::VOID => json!({"type": "null"}),
        _ => value::string_schema(None),
    }
}

/// The JSON Schema of what a caller may give for a parameter of `ty`.
pub(crate) fn param_schema(ty: &Type) -> Value {
    let ty = base(ty);
    match ty.oid() {
        oid::INT8 => json!({"type": ["integer", "string", "null"], "pattern": "^-?[0-9]+$"}),
        oid::NUMERIC => json!({"type": ["number", "string", "null"]}),
        oid::FLOAT4 | oid::FLOAT8 => json!({"type": ["number", "null"]}),
        _ => schema(ty),
    }
}

/// One result value, decoded from its binary form as it is read.
#[derive(Debug)]
pub(crate) struct Cell(pub Value);

impl<'a> FromSql<'a> for Cell {
    fn from_sql(ty: &Type, raw: &'a [u8]) -> Result<Self, BoxError> {
        decode(ty, raw).map(Cell).map_err(Into::into)
    }

    fn from_sql_null(_: &Type) -> Result<Self, BoxError> {
        Ok(Cell(Value::Null))
    }

    fn accepts(_: &Type) -> bool {
        true
    }
}

/// One result value's size as it arrived (its binary form), read without
/// decoding it: what a row costs before it is turned into JSON.
#[derive(Debug)]
pub(crate) struct WireSize(pub u64);

impl<'a> FromSql<'a> for WireSize {
    fn from_sql(_: &Type, raw: &'a [u8]) -> Result<Self, BoxError> {
        Ok(WireSize(raw.len() as u64))
    }

    fn from_sql_null(_: &Type) -> Result<Self, BoxError> {
        Ok(WireSize(0))
    }

    fn accepts(_: &Type) -> bool {
        true
    }
}

/// No value's JSON form is smaller than its binary form divided by this.
/// The tightest cases are fixed-width numbers and array headers: an `int8`
/// of 8 bytes can be `0` (1 byte), and a one-element `int8[]` of 32 bytes
/// is `[0]` (3 bytes); 16 leaves room over every type decoded here.
pub(crate) const WIRE_PER_JSON_BYTE: u64 = 16;

/// Decodes one non-NULL value of `ty` from the binary format.
pub(crate) fn decode(ty: &Type, raw: &[u8]) -> Result<Value, String> {
    let ty = base(ty);
    if let Kind::Array(element) = ty.kind() {
        return decode_array(element, raw);
    }
    if is_text_like(ty) {
        return text(raw).map(Value::String);
    }
    let mut r = Reader { raw, at: 0 };
    let value = match ty.oid() {
        oid::BOOL => Value::Bool(r.u8()? != 0),
        oid::CHAR => Value::String(String::from_utf8_lossy(raw).into_owned()),
        oid::INT2 => Value::from(r.i16()?),
        oid::INT4 => Value::from(r.i32()?),
        oid::OID | oid::XID | oid::CID => Value::from(r.u32()?),
        oid::XID8 => value::integer(i64::try_from(r.u64()?).unwrap_or(i64::MAX)),
        oid::MACADDR | oid::MACADDR8 => {
            Value::String(raw.iter().map(|b| format!("{b:02x}")).collect::<Vec<_>>().join(":"))
        }
        oid::INT8 => value::integer(r.i64()?),
        oid::FLOAT4 => value::float(f64::from(f32::from_bits(r.u32()?))),
        oid::FLOAT8 => value::float(f64::from_bits(r.u64()?)),
        oid::NUMERIC => Value::String(numeric(&mut r)?),
        oid::BYTEA => value::bytes(raw),
        oid::JSON => serde_json::from_str(&text(raw)?).map_err(|e| format!("json: {e}"))?,
        oid::JSONB => {
            let (version, body) = raw.split_first().ok_or("jsonb: empty")?;
            if *version != 1 {
                return Err(format!("jsonb: unknown version {version}"));
            }
            serde_json::from_str(&text(body)?).map_err(|e| format!("jsonb: {e}"))?
        }
        oid::UUID => Value::String(uuid(raw)?),
        oid::DATE => Value::String(date(r.i32()?)),
        oid::TIME => Value::String(time_of_day(r.i64()?)),
        oid::TIMETZ => {
            let micros = r.i64()?;
            // PostgreSQL stores the zone as seconds *west* of UTC.
            let offset = -r.i32()?;
            Value::String(format!("{}{}", time_of_day(micros), offset_text(offset)))
        }
        oid::TIMESTAMP => Value::String(timestamp(r.i64()?, "")),
        oid::TIMESTAMPTZ => Value::String(timestamp(r.i64()?, "Z")),
        oid::INTERVAL => {
            let micros = r.i64()?;
            let days = r.i32()?;
            let months = r.i32()?;
            Value::String(interval(months, days, micros))
        }
        oid::INET | oid::CIDR => Value::String(inet(raw, ty.oid() == oid::CIDR)?),
        // `SELECT pg_sleep(1)`: a function returning nothing.
        oid::VOID => Value::Null,
        _ => return Err(format!("type {} is not converted to JSON; cast it to text", ty.name())),
    };
    Ok(value)
}

fn text(raw: &[u8]) -> Result<String, String> {
    String::from_utf8(raw.to_vec()).map_err(|_| "text that is not UTF-8".to_owned())
}

/// Big-endian reads with a clear error on a short value.
struct Reader<'a> {
    raw: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take<const N: usize>(&mut self) -> Result<[u8; N], String> {
        let bytes = self.raw.get(self.at..self.at + N).ok_or("a value shorter than its type")?;
        self.at += N;
        let mut out = [0u8; N];
        out.copy_from_slice(bytes);
        Ok(out)
    }
    fn u8(&mut self) -> Result<u8, String> {
        Ok(self.take::<1>()?[0])
    }
    fn i16(&mut self) -> Result<i16, String> {
        Ok(i16::from_be_bytes(self.take()?))
    }
    fn u16(&mut self) -> Result<u16, String> {
        Ok(u16::from_be_bytes(self.take()?))
    }
    fn i32(&mut self) -> Result<i32, String> {
        Ok(i32::from_be_bytes(self.take()?))
    }
    fn u32(&mut self) -> Result<u32, String> {
        Ok(u32::from_be_bytes(self.take()?))
    }
    fn i64(&mut self) -> Result<i64, String> {
        Ok(i64::from_be_bytes(self.take()?))
    }
    fn u64(&mut self) -> Result<u64, String> {
        Ok(u64::from_be_bytes(self.take()?))
    }
    fn bytes(&mut self, n: usize) -> Result<&[u8], String> {
        let bytes = self.raw.get(self.at..self.at + n).ok_or("a value shorter than its length")?;
        self.at += n;
        Ok(bytes)
    }
}

/// Binary numeric (base-10000 digits, a weight, a sign, a display scale)
/// to its exact decimal text.
fn numeric(r: &mut Reader<'_>) -> Result<String, String> {
    let ndigits = usize::try_from(r.i16()?).map_err(|_| "numeric: negative digit count")?;
    let weight = i32::from(r.i16()?);
    let sign = r.u16()?;
    let scale = usize::from(r.u16()?);
    let digits: Vec<i16> = (0..ndigits).map(|_| r.i16()).collect::<Result<_, _>>()?;
    match sign {
        0xC000 => return Ok("NaN".into()),
        0xD000 => return Ok("Infinity".into()),
        0xF000 => return Ok("-Infinity".into()),
        _ => {}
    }
    // The group with exponent `e` (value digit × 10000^e) is at index weight − e.
    let group = |exponent: i32| -> i16 {
        let index = weight - exponent;
        usize::try_from(index).ok().and_then(|i| digits.get(i)).copied().unwrap_or(0)
    };
    let mut out = String::new();
    if sign == 0x4000 {
        out.push('-');
    }
    if weight < 0 {
        out.push('0');
    } else {
        out.push_str(&group(weight).to_string());
        for exponent in (0..weight).rev() {
            out.push_str(&format!("{:04}", group(exponent)));
        }
    }
    if scale > 0 {
        out.push('.');
        let mut fraction = String::new();
        let mut exponent = -1;
        while fraction.len() < scale {
            fraction.push_str(&format!("{:04}", group(exponent)));
            exponent -= 1;
        }
        fraction.truncate(scale);
        out.push_str(&fraction);
    }
    Ok(out)
}

fn uuid(raw: &[u8]) -> Result<String, String> {
    if raw.len() != 16 {
        return Err("uuid: not 16 bytes".into());
    }
    let hex: String = raw.iter().map(|b| format!("{b:02x}")).collect();
    Ok(format!("{}-{}-{}-{}-{}", &hex[0..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..32]))
}

const MICROS_PER_DAY: i64 = 86_400_000_000;
/// Days from 1970-01-01 to PostgreSQL's epoch, 2000-01-01.
const PG_EPOCH_DAYS: i64 = 10_957;

/// Year, month, day of a day count from 1970-01-01 (proleptic Gregorian;
/// H. Hinnant's civil_from_days).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// ISO 8601: `2024-02-29`; years outside 0000–9999 with a sign
/// (astronomical numbering: 1 BC is `0000`).
fn date_text(days_since_1970: i64) -> String {
    let (year, month, day) = civil_from_days(days_since_1970);
    if (0..=9999).contains(&year) {
        format!("{year:04}-{month:02}-{day:02}")
    } else {
        format!("{year:+05}-{month:02}-{day:02}")
    }
}

fn date(days: i32) -> String {
    match days {
        i32::MAX => "infinity".into(),
        i32::MIN => "-infinity".into(),
        _ => date_text(i64::from(days) + PG_EPOCH_DAYS),
    }
}

/// `HH:MM:SS` with `.ffffff` (trailing zeros dropped) when not whole.
fn time_of_day(micros: i64) -> String {
    let seconds = micros / 1_000_000;
    let fraction = micros % 1_000_000;
    let mut out = format!("{:02}:{:02}:{:02}", seconds / 3600, seconds / 60 % 60, seconds % 60);
    if fraction != 0 {
        let digits = format!(".{fraction:06}");
        out.push_str(digits.trim_end_matches('0'));
    }
    out
}

fn offset_text(seconds_east: i32) -> String {
    let sign = if seconds_east < 0 { '-' } else { '+' };
    let s = seconds_east.abs();
    if s % 60 == 0 {
        format!("{sign}{:02}:{:02}", s / 3600, s / 60 % 60)
    } else {
        format!("{sign}{:02}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
    }
}

/// RFC 3339 (`zone` is `Z` for timestamptz, empty for a timestamp without one).
fn timestamp(micros: i64, zone: &str) -> String {
    match micros {
        i64::MAX => "infinity".into(),
        i64::MIN => "-infinity".into(),
        _ => {
            let days = micros.div_euclid(MICROS_PER_DAY);
            let of_day = micros.rem_euclid(MICROS_PER_DAY);
            format!("{}T{}{zone}", date_text(days + PG_EPOCH_DAYS), time_of_day(of_day))
        }
    }
}

/// ISO 8601 duration: `P1Y2M3DT4H5M6.5S`, `PT0S` for zero; each part keeps
/// its own sign as PostgreSQL's parts are independent (`P-1DT2H`).
fn interval(months: i32, days: i32, micros: i64) -> String {
    let mut out = String::from("P");
    let (years, months) = (months / 12, months % 12);
    if years != 0 {
        out.push_str(&format!("{years}Y"));
    }
    if months != 0 {
        out.push_str(&format!("{months}M"));
    }
    if days != 0 {
        out.push_str(&format!("{days}D"));
    }
    if micros != 0 {
        out.push('T');
        let sign = if micros < 0 { "-" } else { "" };
        let m = micros.unsigned_abs();
        let (hours, minutes, seconds, fraction) =
            (m / 3_600_000_000, m / 60_000_000 % 60, m / 1_000_000 % 60, m % 1_000_000);
        if hours != 0 {
            out.push_str(&format!("{sign}{hours}H"));
        }
        if minutes != 0 {
            out.push_str(&format!("{sign}{minutes}M"));
        }
        if seconds != 0 || fraction != 0 {
            let fraction = if fraction == 0 {
                String::new()
            } else {
                format!(".{fraction:06}").trim_end_matches('0').to_owned()
            };
            out.push_str(&format!("{sign}{seconds}{fraction}S"));
        }
    }
    if out == "P" {
        out.push_str("T0S");
    }
    out
}

/// inet/cidr: family, bits, is_cidr, length, address.
fn inet(raw: &[u8], cidr: bool) -> Result<String, String> {
    let mut r = Reader { raw, at: 0 };
    let family = r.u8()?;
    let bits = r.u8()?;
    let _is_cidr = r.u8()?;
    let len = usize::from(r.u8()?);
    let address = r.bytes(len)?;
    let (text, full) = match (family, address.len()) {
        (2, 4) => (std::net::Ipv4Addr::new(address[0], address[1], address[2], address[3]).to_string(), 32),
        (3, 16) => {
            let mut octets = [0u8; 16];
            octets.copy_from_slice(address);
            (std::net::Ipv6Addr::from(octets).to_string(), 128)
        }
        _ => return Err("inet: unknown address family".into()),
    };
    Ok(if cidr || bits != full { format!("{text}/{bits}") } else { text })
}

/// A binary array: dimensions, then the elements in row-major order,
/// nested into JSON arrays by dimension.
fn decode_array(element: &Type, raw: &[u8]) -> Result<Value, String> {
    let mut r = Reader { raw, at: 0 };
    let ndim = usize::try_from(r.i32()?).map_err(|_| "array: negative dimensions")?;
    let _has_nulls = r.i32()?;
    let _element_oid = r.u32()?;
    let mut dims = Vec::with_capacity(ndim);
    for _ in 0..ndim {
        dims.push(usize::try_from(r.i32()?).map_err(|_| "array: negative length")?);
        let _lower_bound = r.i32()?;
    }
    if ndim == 0 {
        return Ok(Value::Array(Vec::new()));
    }
    let total: usize = dims.iter().product();
    let mut flat = Vec::with_capacity(total.min(raw.len()));
    for _ in 0..total {
        let len = r.i32()?;
        if len < 0 {
            flat.push(Value::Null);
        } else {
            let bytes = r.bytes(len as usize)?;
            flat.push(decode(element, bytes)?);
        }
    }
    Ok(nest(&mut flat.into_iter(), &dims))
}

fn nest(values: &mut impl Iterator<Item = Value>, dims: &[usize]) -> Value {
    match dims.split_first() {
        None => values.next().unwrap_or(Value::Null),
        Some((len, rest)) => Value::Array((0..*len).map(|_| nest(values, rest)).collect()),
    }
}

/// A parameter's value, encoded before the call runs (so a wrong value is
/// an error naming the parameter, not a failure inside the driver).
#[derive(Debug)]
pub(crate) struct Encoded {
    bytes: Option<Vec<u8>>,
    format: Format,
}

impl ToSql for Encoded {
    fn to_sql(&self, _: &Type, out: &mut BytesMut) -> Result<IsNull, BoxError> {
        match &self.bytes {
            None => Ok(IsNull::Yes),
            Some(bytes) => {
                out.extend_from_slice(bytes);
                Ok(IsNull::No)
            }
        }
    }

    fn accepts(_: &Type) -> bool {
        true
    }

    fn encode_format(&self, _: &Type) -> Format {
        self.format
    }

    to_sql_checked!();
}

/// Checks `value` against `ty` and encodes it. The error says what the
/// parameter expects.
pub(crate) fn encode_param(ty: &Type, value: &Value) -> Result<Encoded, String> {
    let binary = |bytes: Vec<u8>| Ok(Encoded { bytes: Some(bytes), format: Format::Binary });
    let as_text = |text: String| Ok(Encoded { bytes: Some(text.into_bytes()), format: Format::Text });
    if value.is_null() {
        return Ok(Encoded { bytes: None, format: Format::Binary });
    }
    let ty = base(ty);
    if let Kind::Array(element) = ty.kind() {
        return match value {
            Value::Array(_) => as_text(array_literal(element, value)?),
            _ => Err(format!("expected an array of {}", element.name())),
        };
    }
    match ty.oid() {
        oid::BOOL => match value {
            Value::Bool(b) => binary(vec![u8::from(*b)]),
            _ => Err("expected true or false".into()),
        },
        oid::INT2 => {
            let n = i16::try_from(integer_arg(value)?).map_err(|_| "out of range for int2")?;
            binary(n.to_be_bytes().to_vec())
        }
        oid::INT4 => {
            let n = i32::try_from(integer_arg(value)?).map_err(|_| "out of range for int4")?;
            binary(n.to_be_bytes().to_vec())
        }
        oid::OID => {
            let n = u32::try_from(integer_arg(value)?).map_err(|_| "out of range for oid")?;
            binary(n.to_be_bytes().to_vec())
        }
        oid::INT8 => binary(integer_arg(value)?.to_be_bytes().to_vec()),
        oid::FLOAT4 => binary((float_arg(value)? as f32).to_be_bytes().to_vec()),
        oid::FLOAT8 => binary(float_arg(value)?.to_be_bytes().to_vec()),
        oid::NUMERIC => match value {
            Value::Number(n) => as_text(n.to_string()),
            Value::String(s) if is_decimal(s) => as_text(s.clone()),
            _ => Err("expected a number or a decimal string such as \"12.50\"".into()),
        },
        oid::BYTEA => match value {
            Value::String(s) => {
                use base64::Engine;
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(s)
                    .map_err(|_| "expected base64 (standard alphabet, padded)")?;
                binary(bytes)
            }
            _ => Err("expected a base64 string".into()),
        },
        oid::JSON => binary(value.to_string().into_bytes()),
        oid::JSONB => {
            let mut bytes = vec![1u8];
            bytes.extend_from_slice(value.to_string().as_bytes());
            binary(bytes)
        }
        oid::UUID => match value {
            Value::String(s) if is_uuid(s) => as_text(s.clone()),
            _ => Err("expected a UUID string such as \"123e4567-e89b-12d3-a456-426614174000\"".into()),
        },
        _ if is_text_like(ty) => match value {
            Value::String(s) => binary(s.clone().into_bytes()),
            _ => Err("expected a string".into()),
        },
        // Dates, times, intervals, addresses and every other type: the
        // server's own input function reads the string.
        _ => match value {
            Value::String(s) => as_text(s.clone()),
            _ => Err(format!("expected a string in PostgreSQL's input form for {}", ty.name())),
        },
    }
}

fn integer_arg(value: &Value) -> Result<i64, String> {
    match value {
        Value::Number(n) => n.as_i64().ok_or_else(|| "expected an integer".to_owned()),
        Value::String(s) => {
            s.parse::<i64>().map_err(|_| "expected an integer (or a string of digits)".to_owned())
        }
        _ => Err("expected an integer".into()),
    }
}

fn float_arg(value: &Value) -> Result<f64, String> {
    match value {
        Value::Number(n) => n.as_f64().ok_or_else(|| "expected a number".to_owned()),
        Value::String(s) => match s.as_str() {
            "NaN" => Ok(f64::NAN),
            "Infinity" => Ok(f64::INFINITY),
            "-Infinity" => Ok(f64::NEG_INFINITY),
            _ => Err("expected a number (or \"NaN\", \"Infinity\", \"-Infinity\")".into()),
        },
        _ => Err("expected a number".into()),
    }
}

fn is_decimal(s: &str) -> bool {
    if matches!(s, "NaN" | "Infinity" | "-Infinity") {
        return true;
    }
    let digits = s.strip_prefix('-').unwrap_or(s);
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, "0"));
    !whole.is_empty()
        && !fraction.is_empty()
        && whole.bytes().all(|b| b.is_ascii_digit())
        && fraction.bytes().all(|b| b.is_ascii_digit())
}

fn is_uuid(s: &str) -> bool {
    let hex: Vec<char> = s.chars().filter(|c| *c != '-').collect();
    hex.len() == 32 && hex.iter().all(char::is_ascii_hexdigit) && s.len() <= 36
}

/// A JSON array as a PostgreSQL array literal (`{"a","b\"c",NULL}`),
/// each element checked against the element type as a parameter would be.
fn array_literal(element: &Type, value: &Value) -> Result<String, String> {
    match value {
        Value::Array(items) => {
            let parts: Vec<String> =
                items.iter().map(|item| array_literal(element, item)).collect::<Result<_, _>>()?;
            Ok(format!("{{{}}}", parts.join(",")))
        }
        Value::Null => Ok("NULL".into()),
        other => {
            let encoded = encode_param(element, other)?;
            let text = match other {
                // bytea's text input is hex, not base64.
                Value::String(_) if base(element).oid() == oid::BYTEA => {
                    let bytes = encoded.bytes.unwrap_or_default();
                    format!("\\x{}", bytes.iter().map(|b| format!("{b:02x}")).collect::<String>())
                }
                Value::String(s) => s.clone(),
                Value::Bool(b) => b.to_string(),
                _ => other.to_string(),
            };
            Ok(format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\"")))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numeric_bytes(weight: i16, sign: u16, scale: u16, digits: &[i16]) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend((digits.len() as i16).to_be_bytes());
        out.extend(weight.to_be_bytes());
        out.extend(sign.to_be_bytes());
        out.extend(scale.to_be_bytes());
        for d in digits {
            out.extend(d.to_be_bytes());
        }
        out
    }

    fn numeric_text(weight: i16, sign: u16, scale: u16, digits: &[i16]) -> String {
        let raw = numeric_bytes(weight, sign, scale, digits);
        numeric(&mut Reader { raw: &raw, at: 0 }).unwrap()
    }

    #[test]
    fn numeric_is_exact() {
        assert_eq!(numeric_text(0, 0, 2, &[12, 5000]), "12.50");
        assert_eq!(numeric_text(1, 0x4000, 0, &[1, 2]), "-10002");
        assert_eq!(numeric_text(-1, 0, 5, &[12]), "0.00120");
        assert_eq!(numeric_text(-2, 0, 8, &[12]), "0.00000012");
        assert_eq!(numeric_text(2, 0, 0, &[1]), "100000000");
        assert_eq!(numeric_text(0, 0, 0, &[]), "0");
        assert_eq!(numeric_text(0, 0xC000, 0, &[]), "NaN");
    }

    #[test]
    fn dates_and_times() {
        assert_eq!(date(0), "2000-01-01");
        assert_eq!(date(-1), "1999-12-31");
        assert_eq!(date(60), "2000-03-01");
        assert_eq!(timestamp(0, "Z"), "2000-01-01T00:00:00Z");
        assert_eq!(timestamp(-1, ""), "1999-12-31T23:59:59.999999");
        assert_eq!(timestamp(1_500_000, "Z"), "2000-01-01T00:00:01.5Z");
        assert_eq!(time_of_day(3_723_000_000), "01:02:03");
        assert_eq!(offset_text(-19_800), "-05:30");
        assert_eq!(interval(14, 3, 3_723_500_000), "P1Y2M3DT1H2M3.5S");
        assert_eq!(interval(0, -1, 7_200_000_000), "P-1DT2H");
        assert_eq!(interval(0, 0, 0), "PT0S");
    }

    #[test]
    fn params_check_their_types() {
        assert!(encode_param(&Type::INT4, &json!("x")).is_err());
        assert!(encode_param(&Type::INT2, &json!(70000)).is_err());
        assert!(encode_param(&Type::INT8, &json!("9007199254740993")).is_ok());
        assert!(encode_param(&Type::NUMERIC, &json!("1.5; DROP TABLE t")).is_err());
        assert!(encode_param(&Type::TEXT, &json!(1)).is_err());
        assert!(encode_param(&Type::UUID, &json!("nope")).is_err());
        assert_eq!(
            array_literal(&Type::TEXT, &json!(["a", "b\"c", null, ["\\"]])).unwrap(),
            r#"{"a","b\"c",NULL,{"\\"}}"#
        );
    }
}
