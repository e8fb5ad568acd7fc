//! The pages and their scripts and styles, embedded in the binary: nothing
//! is fetched at run time, and it works offline. The pages are the static
//! site's too (dist/site.sh): they link each other and their assets by
//! relative addresses (`index.html`, `oracle.html`, `assets/...`), which
//! are served here beside `/` and `/oracle`.

use std::sync::LazyLock;

use axum::Router;
use axum::extract::Path;
use axum::http::{HeaderValue, header};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;

use super::error::ApiError;
use super::http::Server;

type Shared = std::sync::Arc<Server>;

const GAME: &str = include_str!("assets/game.html");
const ORACLE: &str = include_str!("assets/oracle.html");

/// The pages' backend of the engine (`tictac.engine` posts to the API),
/// with this server's version, and its bound on a body with the words of
/// its refusal (a body over it is not sent); the static site has its own
/// `engine.js`.
static ENGINE: LazyLock<String> = LazyLock::new(|| {
    include_str!("assets/engine.js")
        .replacen("@VERSION@", env!("CARGO_PKG_VERSION"), 1)
        .replacen("@BODY_LIMIT@", &super::limits::BODY_LIMIT.to_string(), 1)
        .replacen("@BODY_TOO_BIG@", &ApiError::BodyTooBig.to_string(), 1)
});

/// The files under `/assets/`: name, content type, text.
const ASSETS: [(&str, &str, &str); 5] = [
    ("style.css", "text/css; charset=utf-8", include_str!("assets/style.css")),
    ("common.js", "text/javascript; charset=utf-8", include_str!("assets/common.js")),
    ("game.js", "text/javascript; charset=utf-8", include_str!("assets/game.js")),
    ("oracle.js", "text/javascript; charset=utf-8", include_str!("assets/oracle.js")),
    ("icon.svg", "image/svg+xml", include_str!("assets/icon.svg")),
];

pub(crate) fn routes() -> Router<Shared> {
    Router::new()
        .route("/", get(|| async { Html(GAME) }))
        .route("/index.html", get(|| async { Html(GAME) }))
        .route("/oracle", get(|| async { Html(ORACLE) }))
        .route("/oracle.html", get(|| async { Html(ORACLE) }))
        .route("/assets/{file}", get(asset))
}

async fn asset(Path(file): Path<String>) -> Response {
    let engine = ("engine.js", "text/javascript; charset=utf-8", ENGINE.as_str());
    match ASSETS.iter().chain([&engine]).find(|(name, _, _)| *name == file) {
        Some((_, kind, body)) => {
            let mut response = (*body).into_response();
            let headers = response.headers_mut();
            headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(kind));
            headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
            response
        }
        None => ApiError::NotFound.into_response(),
    }
}
