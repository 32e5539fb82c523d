//! The routes beside the MCP endpoint: `/metrics`, the health probes
//! (`/healthz`, `/readyz`) and the OAuth protected-resource metadata.

use crate::app::App;
use crate::security;

/// `GET /metrics`: the text of [`HttpOptions::metrics`](crate::HttpOptions::metrics), behind the
/// same guard as the MCP endpoint (Host/Origin and token, [`crate::guard`]).
pub(crate) async fn metrics(
    axum::extract::State(app): axum::extract::State<App>,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    match &app.options.metrics {
        Some(text) => (
            [(
                axum::http::header::CONTENT_TYPE,
                "application/openmetrics-text; version=1.0.0; charset=utf-8",
            )],
            (text.0)(),
        )
            .into_response(),
        None => axum::http::StatusCode::NOT_FOUND.into_response(),
    }
}

/// `GET /healthz`: liveness. The process answers, so it is alive: `200`.
/// Like `/readyz`, open to any caller (load balancers and orchestrators
/// probe by address): it says nothing but that.
pub(crate) async fn healthz() -> axum::response::Response {
    use axum::response::IntoResponse;
    ([(axum::http::header::CONTENT_TYPE, "application/json")], r#"{"alive":true}"#).into_response()
}

/// `GET /readyz`: readiness. With a shared state store
/// ([`HttpOptions::state`](crate::HttpOptions::state)), `200` only while the store answers, else
/// `503` with `Retry-After` (an instance that started during an outage is
/// not sent the requests that need the store until it is back); without
/// one, always `200`.
pub(crate) async fn readyz(axum::extract::State(app): axum::extract::State<App>) -> axum::response::Response {
    use axum::response::IntoResponse;
    let json = |body: &'static str| ([(axum::http::header::CONTENT_TYPE, "application/json")], body);
    let reachable = match &app.state {
        None => true,
        Some(state) => state.get("readyz").await.is_ok(),
    };
    if let Some(readiness) = &app.options.readiness {
        let mut body = if reachable {
            serde_json::json!({"ready": true})
        } else {
            serde_json::json!({"ready": false, "reason": "state store unavailable"})
        };
        if let (Some(body), serde_json::Value::Object(more)) = (body.as_object_mut(), (readiness.0)()) {
            body.extend(more);
        }
        let status =
            if reachable { axum::http::StatusCode::OK } else { axum::http::StatusCode::SERVICE_UNAVAILABLE };
        let response = (status, [(axum::http::header::CONTENT_TYPE, "application/json")], body.to_string())
            .into_response();
        return if reachable { response } else { security::with_retry_after(response) };
    }
    if reachable {
        return json(r#"{"ready":true}"#).into_response();
    }
    security::with_retry_after(
        (
            axum::http::StatusCode::SERVICE_UNAVAILABLE,
            json(r#"{"ready":false,"reason":"state store unavailable"}"#),
        )
            .into_response(),
    )
}

/// `GET /.well-known/oauth-protected-resource…`: the RFC 9728 document.
pub(crate) async fn protected_resource_metadata(
    axum::extract::State(app): axum::extract::State<App>,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    match &app.options.auth {
        Some(auth) => ([(axum::http::header::CONTENT_TYPE, "application/json")], auth.metadata().to_string())
            .into_response(),
        None => axum::http::StatusCode::NOT_FOUND.into_response(),
    }
}
