//! Per-address rate limiting of `POST /api/login`, on top of the global
//! PIN-check throttle: one client guessing PINs cannot take every PIN
//! check for itself, and gets `429` with `Retry-After` instead of a queue.
//!
//! The key is the peer's IP address from axum's `ConnectInfo<SocketAddr>`
//! (the daemon's server, [`super::server`], gives it to each request as
//! `into_make_service_with_connect_info` would). Headers
//! such as `X-Forwarded-For` are not believed: the daemon is reached
//! directly on the lane's network, and any client could write them. A
//! request without `ConnectInfo` (a server on a Unix socket, a test calling
//! the router directly) is not refused: all such requests share one
//! bucket.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use axum::extract::ConnectInfo;
use axum::http::{HeaderValue, Request, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::MethodRouter;
use tower_governor::governor::GovernorConfigBuilder;
use tower_governor::key_extractor::KeyExtractor;
use tower_governor::{GovernorError, GovernorLayer};

use super::ApiError;

/// Login attempts one address may make at once.
pub const LOGIN_BURST: u32 = 5;

/// After the burst, one more attempt per this long.
pub const LOGIN_PERIOD: Duration = Duration::from_secs(2);

/// Addresses remembered before the ones with a full quota again are
/// forgotten.
const ADDRESSES_KEPT: usize = 1024;

/// The answer's message when an address is over its quota.
pub const TOO_MANY: &str = "too many tries: wait a moment";

/// Keys requests by the peer's IP address (IPv4-mapped IPv6 as IPv4), or
/// `None` when the server did not record one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PeerAddress;

impl KeyExtractor for PeerAddress {
    type Key = Option<IpAddr>;

    fn extract<T>(&self, req: &Request<T>) -> Result<Self::Key, GovernorError> {
        Ok(req
            .extensions()
            .get::<ConnectInfo<SocketAddr>>()
            .map(|ConnectInfo(addr)| addr.ip().to_canonical()))
    }
}

/// The answer to a request the limiter refused: the API's JSON error shape.
fn refused(error: GovernorError) -> Response {
    match error {
        GovernorError::TooManyRequests { wait_time, .. } => {
            let mut res = ApiError::new(StatusCode::TOO_MANY_REQUESTS, TOO_MANY).into_response();
            // The limiter rounds the wait down to whole seconds.
            res.headers_mut().insert(
                header::RETRY_AFTER,
                HeaderValue::from(wait_time.saturating_add(1)),
            );
            res
        }
        GovernorError::UnableToExtractKey => ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "cannot tell who is asking",
        )
        .into_response(),
        GovernorError::Other { code, msg, .. } => {
            ApiError::new(code, msg.unwrap_or_else(|| "request refused".to_owned())).into_response()
        }
    }
}

/// `route` behind the per-address login limit, and a function that
/// forgets the addresses that have their full quota again once many are
/// remembered (call it now and then: it does nothing while there are few).
pub fn limit_login<S>(route: MethodRouter<S>) -> (MethodRouter<S>, Arc<dyn Fn() + Send + Sync>)
where
    S: Clone + Send + Sync + 'static,
{
    let Some(config) = GovernorConfigBuilder::default()
        .period(LOGIN_PERIOD)
        .burst_size(LOGIN_BURST)
        .key_extractor(PeerAddress)
        .finish()
    else {
        // Only a zero burst or period gives no config; both are constants.
        return (route, Arc::new(|| {}));
    };
    let limiter = Arc::clone(config.limiter());
    let tidy = move || {
        if limiter.len() > ADDRESSES_KEPT {
            limiter.retain_recent();
        }
    };
    let layer = GovernorLayer::new(config).error_handler(refused);
    (route.route_layer(layer), Arc::new(tidy))
}
