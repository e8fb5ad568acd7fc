//! The pages and their scripts and styles, embedded in the binary: nothing
//! is fetched at run time, and it works offline.

use axum::Router;
use axum::extract::Path;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use super::error::ApiError;
use super::http::Server;

type Shared = std::sync::Arc<Server>;

/// The files under `/assets/`, with their content types.
const ASSETS: [(&str, &str, &str); 0] = [];

pub(crate) fn routes() -> Router<Shared> {
    Router::new().route("/assets/{file}", get(asset))
}

async fn asset(Path(file): Path<String>) -> Response {
    match ASSETS.iter().find(|(name, _, _)| *name == file) {
        Some((_, kind, body)) => {
            let mut response = body.into_response();
            let headers = response.headers_mut();
            headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(kind));
            headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
            response
        }
        None => ApiError::NotFound.into_response(),
    }
}
