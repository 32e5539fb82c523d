//! The guard in front of the MCP endpoint and `/metrics`: the DNS-rebinding
//! checks (`Host`, `Origin`), then the bearer token, before the handler runs
//! and so before a byte of the body is read.
//!
//! A tower layer (as jsonrpsee's `HostFilterLayer`) wrapped around exactly
//! the routes it guards (`router_with_store`), so no handler calls the
//! checks itself and none can forget them; the health probes and the OAuth
//! metadata stay open. A refusal is the answer: `403` from
//! [`security::check`], `401`/`403` with `WWW-Authenticate` from
//! [`AuthOptions::authenticate`](crate::AuthOptions). The principal a token
//! names reaches the handler in the request's extensions ([`principal`]).
//!
//! Written as a service rather than `axum::middleware::from_fn` so that
//! without authorization (the loopback default) the guarded call is the
//! handler's own future: no boxing or cloning on the hot path.

use std::convert::Infallible;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::extract::Request;
use axum::http::{Extensions, StatusCode};
use axum::response::Response;
use futures::future::{BoxFuture, Either, Ready, ready};
use switchboard_server::Principal;
use switchboard_types::ErrorObject;
use tower::{Layer, Service};

use crate::options::HttpOptions;
use crate::security::{self, error_response};

/// Wraps a route's service in a [`Guard`].
#[derive(Clone)]
pub(crate) struct GuardLayer {
    options: Arc<HttpOptions>,
}

impl GuardLayer {
    pub(crate) fn new(options: Arc<HttpOptions>) -> Self {
        Self { options }
    }
}

impl<S> Layer<S> for GuardLayer {
    type Service = Guard<S>;

    fn layer(&self, inner: S) -> Guard<S> {
        Guard { inner, options: Arc::clone(&self.options) }
    }
}

/// A guarded route: see the module docs.
#[derive(Clone)]
pub(crate) struct Guard<S> {
    inner: S,
    options: Arc<HttpOptions>,
}

/// The principal the request's token named, set by the guard.
#[derive(Clone)]
struct Authenticated(Principal);

/// The future of a guarded call: a refusal, the route's own future (no
/// authorization), or the token check followed by the route.
type GuardFuture<F> =
    Either<Ready<Result<Response, Infallible>>, Either<F, BoxFuture<'static, Result<Response, Infallible>>>>;

impl<S> Service<Request> for Guard<S>
where
    S: Service<Request, Response = Response, Error = Infallible> + Clone + Send + 'static,
    S::Future: Send + 'static,
{
    type Response = Response;
    type Error = Infallible;
    type Future = GuardFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: Request) -> Self::Future {
        if let Err(refusal) = security::check(request.headers(), &self.options) {
            return Either::Left(ready(Ok(refusal)));
        }
        if self.options.auth.is_none() {
            return Either::Right(Either::Left(self.inner.call(request)));
        }
        // The service that was made ready serves this request; a clone
        // stays for the next one (tower's rule for services moved into a
        // future).
        let clone = self.inner.clone();
        let ready_inner = std::mem::replace(&mut self.inner, clone);
        let options = Arc::clone(&self.options);
        Either::Right(Either::Right(Box::pin(async move {
            let mut inner = ready_inner;
            let Some(auth) = &options.auth else { return inner.call(request).await };
            match auth.authenticate(request.headers()).await {
                Ok(principal) => {
                    request.extensions_mut().insert(Authenticated(principal));
                    inner.call(request).await
                }
                Err(refusal) => Ok(refusal),
            }
        })))
    }
}

/// The principal the guard authenticated, taken out of the request's
/// extensions (`None` without authorization). A guarded handler asks here;
/// with authorization on and no principal, the route was mounted without
/// its guard, and the request is refused rather than served anonymously.
pub(crate) fn principal(
    extensions: &mut Extensions,
    options: &HttpOptions,
) -> Result<Option<Principal>, Response> {
    match (extensions.remove::<Authenticated>(), &options.auth) {
        (Some(Authenticated(principal)), _) => Ok(Some(principal)),
        (None, None) => Ok(None),
        (None, Some(_)) => Err(error_response(
            StatusCode::INTERNAL_SERVER_ERROR,
            None,
            ErrorObject::internal("this route is not behind the authorization guard"),
        )),
    }
}
