//! What goes wrong with the server (an exit status), and with a request
//! (the HTTP status and JSON body that say so, `{"error": "..."}`).

use std::io;
use std::net::SocketAddr;
use std::time::Duration;

use axum::Json;
use axum::extract::rejection::BytesRejection;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::admission::{BODY_IDLE, Stalled};
use super::limits::Cut;
use crate::platform::spool;
use crate::status::WriteError;

/// Why the server could not start, or could not say that it did.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ServeError {
    /// The runtime (its threads) could not start.
    #[error("error: {0}")]
    Runtime(io::Error),
    #[error("error: cannot listen on {0}: {1}")]
    Listen(SocketAddr, io::Error),
    #[error("error: {0}")]
    Address(io::Error),
    /// The output went away, or writing it failed: the shared
    /// `status::WriteError`, its source (so not transparent: `app` finds it
    /// there).
    #[error("{0}")]
    Write(#[from] WriteError),
}

/// A failed write is the shared `WriteError`.
impl From<io::Error> for ServeError {
    fn from(e: io::Error) -> ServeError {
        WriteError::from(e).into()
    }
}

#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ApiError {
    /// Malformed JSON, unknown fields or values, options that do not go together.
    #[error("{0}")]
    BadRequest(String),
    #[error(
        "the request is over 1 MiB; run a trace this long with the command line (tictac -b FILE)"
    )]
    BodyTooBig,
    /// The body stopped coming (`admission::BODY_IDLE`), so it gave back
    /// what it held rather than keep other requests waiting.
    #[error("the request body stopped coming: nothing arrived for {} s", .0.as_secs_f64())]
    BodyStalled(Duration),
    #[error(
        "the transcript is over 4 MiB, too long to send; run this trace with the command line (tictac -b FILE)"
    )]
    OutputTooBig,
    #[error("the request took longer than {} s; try again, or use the command line", .0.as_secs_f64())]
    TooSlow(Duration),
    /// Answers waiting for slow clients hold the server's disk budget; the
    /// seconds after which to ask again (`Retry-After`).
    #[error("the server is busy with long answers not yet read; try again in {0} s")]
    Busy(u64),
    /// The temporary folder is full (something else filled it): a long
    /// answer cannot wait there. Short ones are still served.
    #[error(
        "the server's temporary folder is full, so a long answer cannot wait there; try again in {0} s"
    )]
    SpoolFull(u64),
    /// An answer longer than the whole disk budget (in MiB): a small
    /// temporary folder can never hold it.
    #[error(
        "the answer is longer than the server's temporary folder may hold ({0} MiB, half its free space when the server started); run this trace with the command line (tictac -b FILE)"
    )]
    NoRoom(usize),
    /// A request naming a host the server does not answer (`hosts`).
    #[error("{0}")]
    Forbidden(String),
    #[error("no such page")]
    NotFound,
    /// A path that exists, asked with another method (the `Allow` header
    /// lists those it takes).
    #[error("this path does not take that method (it takes {0})")]
    MethodNotAllowed(&'static str),
    #[error("internal error: {0}")]
    Internal(String),
}

impl ApiError {
    pub(crate) fn status(&self) -> StatusCode {
        match self {
            ApiError::BadRequest(_) => StatusCode::BAD_REQUEST,
            ApiError::BodyTooBig | ApiError::OutputTooBig => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::BodyStalled(_) => StatusCode::REQUEST_TIMEOUT,
            ApiError::TooSlow(_) | ApiError::Busy(_) | ApiError::SpoolFull(_) => {
                StatusCode::SERVICE_UNAVAILABLE
            }
            ApiError::NoRoom(_) => StatusCode::INSUFFICIENT_STORAGE,
            ApiError::Forbidden(_) => StatusCode::FORBIDDEN,
            ApiError::NotFound => StatusCode::NOT_FOUND,
            ApiError::MethodNotAllowed(_) => StatusCode::METHOD_NOT_ALLOWED,
            ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// A body that could not be read: too big, or cut off.
    pub(crate) fn from_body(rejection: BytesRejection) -> ApiError {
        if Stalled::caused(&rejection) {
            return ApiError::BodyStalled(BODY_IDLE);
        }
        match rejection.status() {
            StatusCode::PAYLOAD_TOO_LARGE => ApiError::BodyTooBig,
            _ => ApiError::BadRequest(format!("the request body could not be read: {rejection}")),
        }
    }

    /// A run stopped by a bound, or (it cannot happen with a trace in
    /// memory) by a read error.
    pub(crate) fn from_cut(e: &std::io::Error, timeout: Duration) -> ApiError {
        match Cut::of(e) {
            Some(Cut::TooBig) => ApiError::OutputTooBig,
            Some(Cut::TooLong) => ApiError::TooSlow(timeout),
            None => ApiError::Internal(e.to_string()),
        }
    }

    /// A temporary file that could not be written or read back: a full
    /// folder is a 503 to retry, anything else an internal error.
    pub(crate) fn from_spool(e: &io::Error, timeout: Duration) -> ApiError {
        if spool::is_full(e) {
            ApiError::SpoolFull(retry_after(timeout))
        } else {
            ApiError::Internal(format!("keeping the trace in a temporary file failed: {e}"))
        }
    }
}

/// When a request refused for want of room may be sent again, in whole
/// seconds: by then every answer held now has been read, or dropped by its
/// write deadline (`deadline`: the time bound from its first byte, which is
/// written as soon as it is ready).
pub(crate) fn retry_after(timeout: Duration) -> u64 {
    (timeout.as_secs() + u64::from(timeout.subsec_nanos() > 0)).max(1)
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = serde_json::json!({ "error": self.to_string() });
        let mut response = (self.status(), Json(body)).into_response();
        if let ApiError::Busy(seconds) | ApiError::SpoolFull(seconds) = self {
            response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        if matches!(self, ApiError::BodyTooBig | ApiError::BodyStalled(_)) {
            // The rest of the body is not read: the connection cannot carry
            // another request, and the client is told so.
            response.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
        }
        response
    }
}
