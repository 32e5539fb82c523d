//! The methods of no primitive: `ping`, `server/discover` and
//! `logging/setLevel`.
//!
//! Spec: `docs/specification/<rev>/basic/utilities/ping.mdx`,
//! `docs/specification/<rev>/server/utilities/logging.mdx`. `server/discover`
//! describes the whole server (every area's capability), so its handler is
//! the one that reads the whole [`Core`].

use std::sync::Arc;

use serde_json::{Map, Value};
use switchboard_types::ErrorObject;
use switchboard_types::logging::SetLevelParams;
use switchboard_types::methods::EmptyResult;
use switchboard_types::notifications::EmptyParams;

use crate::context::RequestContext;
use crate::core::Core;
use crate::params::Lazy;
use crate::session::Session;

pub(crate) async fn ping(
    _: (),
    _: &Arc<Session>,
    _: &RequestContext,
    _: Lazy<'_, EmptyParams>,
) -> Result<EmptyResult, ErrorObject> {
    Ok(Map::new())
}

pub(crate) async fn discover(
    core: &Core,
    _: &Arc<Session>,
    _: &RequestContext,
    _: Lazy<'_, EmptyParams>,
) -> Result<Map<String, Value>, ErrorObject> {
    core.discover()
}

pub(crate) async fn set_level(
    _: (),
    session: &Arc<Session>,
    _: &RequestContext,
    params: SetLevelParams,
) -> Result<EmptyResult, ErrorObject> {
    session.set_log_level(params.level);
    Ok(Map::new())
}
