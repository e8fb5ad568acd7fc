//! What goes wrong with the server (an exit status), and with a request
//! (the HTTP status and JSON body that say so, `{"error": "..."}`).

use std::io;
use std::net::SocketAddr;
use std::time::Duration;

use axum::Json;
use axum::extract::rejection::BytesRejection;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::limits::Cut;
use crate::status::{Status, Stopped, closed_pipe};

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
    #[error("error: writing the output failed: {0}")]
    Write(#[from] io::Error),
}

impl Stopped for ServeError {
    fn closed(&self) -> Option<Status> {
        match self {
            ServeError::Write(e) => closed_pipe(e, Status::Ran),
            _ => None,
        }
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
    #[error(
        "the transcript is over 4 MiB, too long to send; run this trace with the command line (tictac -b FILE)"
    )]
    OutputTooBig,
    #[error("the request took longer than {} s; try again, or use the command line", .0.as_secs_f64())]
    TooSlow(Duration),
    /// Answers waiting for slow clients hold the server's disk budget.
    #[error("the server is busy with answers not yet read; try again in a few seconds")]
    Busy,
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
            ApiError::TooSlow(_) | ApiError::Busy => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::NotFound => StatusCode::NOT_FOUND,
            ApiError::MethodNotAllowed(_) => StatusCode::METHOD_NOT_ALLOWED,
            ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// A body that could not be read: too big, or cut off.
    pub(crate) fn from_body(rejection: BytesRejection) -> ApiError {
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
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = serde_json::json!({ "error": self.to_string() });
        let mut response = (self.status(), Json(body)).into_response();
        if self == ApiError::BodyTooBig {
            // The rest of the body is not read: the connection cannot carry
            // another request, and the client is told so.
            response.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
        }
        response
    }
}
