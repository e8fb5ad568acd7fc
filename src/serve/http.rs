//! The routes, and what every response carries: security headers, and for
//! the API a time bound and a bound on how many requests run at once.

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, Request, State};
use axum::http::{HeaderValue, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use tokio::sync::Semaphore;

use super::admission::{Admission, Share};
use super::error::ApiError;
use super::hosts::Hosts;
use super::limits::{BODY_LIMIT, INLINE_TRACE};
use super::reply;
use super::request;
use super::work::{self, Budget};

/// What every handler shares: the bounds. The server keeps no session.
pub(crate) struct Server {
    timeout: Duration,
    /// API requests being read or run, by the bytes of their bodies.
    admission: Admission,
    /// Long traces running on the blocking pool.
    long_runs: Semaphore,
    /// What answers not yet written hold, all connections together.
    held: reply::Budgets,
}

type Shared = Arc<Server>;

/// The server's routes, answering the names `hosts` allows.
pub(crate) fn router(timeout: Duration, hosts: Hosts) -> Router {
    let cores = std::thread::available_parallelism().map_or(2, usize::from);
    let server = Arc::new(Server {
        timeout,
        admission: Admission::new(),
        long_runs: Semaphore::new(cores),
        held: reply::Budgets::new(timeout, crate::platform::spool::free_space()),
    });
    // A 405 says in JSON, as every error does, which method the path takes.
    let only = |method: &'static str| move || async move { ApiError::MethodNotAllowed(method) };
    let api = Router::new()
        .route("/api/run", post(api_run))
        .route("/api/state", post(api_state))
        .method_not_allowed_fallback(only("POST"))
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .layer(middleware::from_fn_with_state(server.clone(), bounded));
    Router::new()
        .route("/healthz", get(|| async { "ok" }))
        .merge(super::pages::routes())
        .method_not_allowed_fallback(only("GET"))
        .merge(api)
        .fallback(|| async { ApiError::NotFound })
        .layer(middleware::from_fn_with_state(hosts, super::hosts::check))
        .layer(middleware::from_fn(security_headers))
        .with_state(server)
}

/// Every response: no framing, no sniffing, scripts and styles from this
/// server only (none inline), no referrer.
async fn security_headers(request: Request, next: Next) -> Response {
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    let fixed = [
        (
            header::CONTENT_SECURITY_POLICY,
            "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; \
             connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
        ),
        (header::X_FRAME_OPTIONS, "DENY"),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::REFERRER_POLICY, "no-referrer"),
    ];
    for (name, value) in fixed {
        headers.insert(name, HeaderValue::from_static(value));
    }
    headers.entry(header::CACHE_CONTROL).or_insert(HeaderValue::from_static("no-store"));
    response
}

/// An API request is admitted by its body's bytes as they come (see
/// `admission`), and must be read and answered within the time bound: past
/// it, 503 (a slow client included).
async fn bounded(State(server): State<Shared>, request: Request, next: Next) -> Response {
    let said = request.headers().get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok());
    let declared = said.and_then(|v| v.parse::<usize>().ok());
    // Refused as declared, without waiting for bytes that would be refused.
    if declared.is_some_and(|length| length > BODY_LIMIT) {
        return ApiError::BodyTooBig.into_response();
    }
    let share = Share::default();
    let request = request.map(|body| server.admission.admit(body, declared, &share));
    // The share is kept until the answer is built.
    let answer = async move {
        let response = next.run(request).await;
        drop(share);
        response
    };
    match tokio::time::timeout(server.timeout, answer).await {
        Ok(response) => response,
        Err(_) => ApiError::TooSlow(server.timeout).into_response(),
    }
}

async fn api_run(
    State(server): State<Shared>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let body = body.map_err(ApiError::from_body)?;
    let (trace, job, autopilot) = request::run(&body)?;
    // The trace is a copy: the body need not wait with it for its run.
    drop(body);
    let budget = Budget::starting_now(server.timeout);
    let mut reply =
        server.compute(trace.len(), move || work::run(&trace, job, autopilot, budget)).await?;
    let output = std::mem::take(&mut reply.output);
    reply::json(&server.held, &reply, vec![("output", output)]).await
}

async fn api_state(
    State(server): State<Shared>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let body = body.map_err(ApiError::from_body)?;
    let (trace, autopilot) = request::state(&body)?;
    // The trace is a copy: the body need not wait with it for its run.
    drop(body);
    let budget = Budget::starting_now(server.timeout);
    let reply = server.compute(trace.len(), move || work::state(&trace, autopilot, budget)).await?;
    match reply {
        Ok(mut state) => {
            let large = vec![
                ("trace", std::mem::take(&mut state.trace)),
                ("transcript", std::mem::take(&mut state.transcript)),
            ];
            reply::json(&server.held, &state, large).await
        }
        Err(mut rejected) => {
            let error = std::mem::take(&mut rejected.error);
            reply::json(&server.held, &rejected, vec![("error", error)]).await
        }
    }
}

impl Server {
    /// Runs `work`: a short trace at once (it takes microseconds), a long
    /// one on the blocking pool, a few at a time, so the server's own
    /// threads keep answering.
    async fn compute<T: Send + 'static>(
        &self,
        size: usize,
        work: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
    ) -> Result<T, ApiError> {
        if size <= INLINE_TRACE {
            return work();
        }
        let _running = self
            .long_runs
            .acquire()
            .await
            .map_err(|_| ApiError::Internal("the server is stopping".into()))?;
        tokio::task::spawn_blocking(work)
            .await
            .map_err(|e| ApiError::Internal(format!("the run failed: {e}")))?
    }
}
