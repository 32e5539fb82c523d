//! Running one read call for a tool: the caller's session settings, the
//! request's cancellation, the limits, the continuation cursor, and the
//! engine's errors turned into messages a model can act on.

use serde_json::{Map, Value};
use switchboard_server::{CallToolResult, RequestContext, ToolError};

use crate::spec::{DatabaseSpec, SUBJECT_CLAIM};
use crate::{Call, Error, Statement};

use super::cursor::{self, Binding};
use super::live::{Attached, Live};
use super::result;

/// The limits of one read call.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    /// Rows at most.
    pub max_rows: u64,
    /// Bytes of rows at most.
    pub max_bytes: u64,
}

/// The transaction-local settings of `spec.session` for this caller; a
/// call without an authenticated caller is refused when there are any.
pub(crate) fn settings(
    spec: &DatabaseSpec,
    ctx: &RequestContext,
) -> Result<Vec<(String, String)>, ToolError> {
    if spec.session.is_empty() {
        return Ok(Vec::new());
    }
    let Some(principal) = ctx.principal() else {
        return Err(ToolError::new(format!(
            "the database {} serves each caller under their own identity, and this request has none; connect with an access token",
            spec.name
        )));
    };
    spec.session
        .iter()
        .map(|(setting, claim)| match claim.as_str() {
            SUBJECT_CLAIM => Ok((setting.clone(), principal.subject.clone())),
            other => Err(ToolError::new(format!("the session claim {other:?} is not available"))),
        })
        .collect()
}

/// An engine error as a message the model can act on.
pub(crate) fn advice(database: &str, error: &Error) -> String {
    let hint = match error {
        Error::Connect(_) => "the database is unreachable now; try again later".to_owned(),
        Error::MultipleStatements => "send one statement per call".to_owned(),
        Error::Refused(_) | Error::ReadOnly => {
            "this tool only reads: the database refused what the statement does".to_owned()
        }
        Error::Prepare(_) => format!("check the tables and columns in the resource db://{database}/schema"),
        Error::Timeout(_) => {
            "narrow the query (a WHERE on an indexed column, fewer joins, a LIMIT) and try again".to_owned()
        }
        Error::Cancelled => "the request was cancelled; nothing more was done".to_owned(),
        Error::Param { .. } => "fix that argument and call again".to_owned(),
        Error::TooManyRows { .. } => "narrow the statement's arguments to fewer rows".to_owned(),
        Error::CountChanged { .. } => {
            "the rows changed since the user confirmed: call the tool again to ask anew".to_owned()
        }
        Error::PrivilegedRole(_) | Error::Execute(_) => "the database reported this error".to_owned(),
    };
    format!("{error} ({hint})")
}

/// One read call of a tool.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ReadRequest<'a> {
    /// The tool's name.
    pub tool: &'a str,
    /// What to run.
    pub statement: Statement<'a>,
    /// The parameters' values (defaults applied).
    pub params: &'a Map<String, Value>,
    /// The continuation cursor given, if any.
    pub cursor: Option<&'a str>,
}

/// Runs a read call and answers with its rows, a next cursor when more
/// exist, or an `isError` result that says what to do.
pub(crate) async fn read(
    live: &Live,
    attached: &Attached,
    request: ReadRequest<'_>,
    limits: Limits,
    ctx: &RequestContext,
) -> Result<CallToolResult, ToolError> {
    let ReadRequest { tool, statement, params, cursor } = request;
    let server = attached.server()?;
    let database = live.name();
    let binding = Binding { database, tool, sql: statement.sql, params };
    let skip = match cursor {
        Some(cursor) => cursor::open(server, &binding, cursor).map_err(ToolError::new)?,
        None => 0,
    };
    let settings = settings(&live.resolved.spec, ctx)?;
    let call = Call {
        statement,
        params,
        skip,
        max_rows: limits.max_rows,
        max_bytes: limits.max_bytes,
        settings: &settings,
        cancel: ctx.cancellation_token(),
    };
    let rows = live.db.query(call).await.map_err(|e| ToolError::new(advice(database, &e)))?;
    if rows.truncated && rows.rows.is_empty() {
        return Err(ToolError::new(format!(
            "the next row is larger than this call's limit of {} bytes: select fewer or shorter columns (substr, length) for it",
            limits.max_bytes
        )));
    }
    let next = rows.truncated.then(|| cursor::issue(server, &binding, skip + rows.rows.len() as u64));
    Ok(result::rows(database, rows, next, limits.max_bytes))
}
