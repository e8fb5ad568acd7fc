//! API answers as they are sent: the large texts of an answer (a
//! transcript, a trace, a message) are held as the run left them and
//! escaped into JSON a piece at a time as the client reads, never held
//! escaped (escaping a byte such as `\x01` makes six), and every answer
//! holds its share of one memory budget for all connections until its last
//! byte is written or its connection is closed.

use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::body::{Body, Bytes};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use http_body::Frame;
use serde::Serialize;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::error::ApiError;

/// What all answers waiting to be written may hold together, in KiB: with
/// answers at the 4 MiB transcript cap, about 40 at once. An answer that
/// finds it spent waits (within the request's time bound) for one to be
/// written or closed.
pub(crate) const HELD_KIB: usize = 160 << 10;

/// Text escaped into one frame: at most six times this once escaped.
const PIECE: usize = 16 << 10;

/// The budget answers are held against (see `HELD_KIB`).
pub(crate) fn budget() -> Arc<Semaphore> {
    Arc::new(Semaphore::new(HELD_KIB))
}

/// The JSON object `small` (a struct of small fields) with the `large`
/// string fields added after them, once `budget` has room for it all.
pub(crate) async fn json(
    budget: &Arc<Semaphore>,
    small: &impl Serialize,
    large: Vec<(&'static str, String)>,
) -> Result<Response, ApiError> {
    let head = serde_json::to_vec(small).map_err(|e| ApiError::Internal(e.to_string()))?;
    let Some(open) = head.strip_suffix(b"}") else {
        return Err(ApiError::Internal("an answer is not a JSON object".into()));
    };
    // Short texts are escaped at once, with the small fields: most answers
    // are one frame.
    let mut parts = VecDeque::new();
    let mut raw = open.to_vec();
    let mut fields = open != b"{";
    for (name, text) in large {
        if std::mem::replace(&mut fields, true) {
            raw.push(b',');
        }
        raw.extend_from_slice(format!("\"{name}\":\"").as_bytes());
        if text.len() <= PIECE {
            raw.extend_from_slice(&escape(&text));
        } else {
            parts.push_back(Part::Raw(Bytes::from(std::mem::take(&mut raw))));
            parts.push_back(Part::Text { text, at: 0 });
        }
        raw.push(b'"');
    }
    raw.push(b'}');
    parts.push_back(Part::Raw(Bytes::from(raw)));
    let held: usize = parts.iter().map(Part::held).sum();
    let kib = u32::try_from(held.div_ceil(1024).clamp(1, HELD_KIB)).unwrap_or(u32::MAX);
    let permit = budget
        .clone()
        .acquire_many_owned(kib)
        .await
        .map_err(|_| ApiError::Internal("the server is stopping".into()))?;
    let body = Body::new(Streamed { parts, _permit: permit });
    Ok(([(header::CONTENT_TYPE, "application/json")], body).into_response())
}

enum Part {
    Raw(Bytes),
    /// A string's text, escaped as it is sent; `at` is how much was sent.
    Text {
        text: String,
        at: usize,
    },
}

impl Part {
    fn held(&self) -> usize {
        match self {
            Part::Raw(bytes) => bytes.len(),
            Part::Text { text, .. } => text.len(),
        }
    }
}

/// The body of an answer: its parts, and its share of the budget, given
/// back when the body is dropped (written, or its connection gone).
struct Streamed {
    parts: VecDeque<Part>,
    _permit: OwnedSemaphorePermit,
}

impl http_body::Body for Streamed {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        let Some(part) = self.parts.front_mut() else { return Poll::Ready(None) };
        let data = match part {
            Part::Raw(bytes) => {
                let bytes = std::mem::take(bytes);
                self.parts.pop_front();
                bytes
            }
            Part::Text { text, at } => {
                let piece = next_piece(text, *at);
                *at += piece.len();
                let escaped = escape(piece);
                if *at == text.len() {
                    self.parts.pop_front();
                }
                escaped
            }
        };
        Poll::Ready(Some(Ok(Frame::data(data))))
    }

    fn is_end_stream(&self) -> bool {
        self.parts.is_empty()
    }
}

/// The next piece of `text` after `at`: about `PIECE` bytes, ending on a
/// character's boundary.
fn next_piece(text: &str, at: usize) -> &str {
    let mut end = (at + PIECE).min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[at..end]
}

/// A piece of a string as JSON writes it between the quotes. Escapes are
/// per character, so the pieces of a string escape to the string escaped.
fn escape(piece: &str) -> Bytes {
    let quoted = serde_json::to_vec(piece).unwrap_or_else(|_| b"\"\"".to_vec());
    let inner = quoted.get(1..quoted.len().saturating_sub(1)).unwrap_or_default();
    Bytes::copy_from_slice(inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize)]
    struct Small {
        status: u8,
    }

    async fn sent(response: Response) -> Vec<u8> {
        axum::body::to_bytes(response.into_body(), usize::MAX).await.expect("a body").to_vec()
    }

    #[tokio::test]
    async fn answers_are_json_escaped_piece_by_piece_and_hold_the_budget_until_sent() {
        let budget = budget();
        let mut text = String::new();
        for k in 0..40_000u32 {
            text.push(char::from_u32(k % 0x800).unwrap_or('x'));
            text.push_str("\x01\"\\é\n");
        }
        let response = json(&budget, &Small { status: 1 }, vec![("output", text.clone())])
            .await
            .expect("within the budget");
        let held = text.len().div_ceil(1024) + 1;
        assert!(budget.available_permits() <= HELD_KIB - held + 1);
        let body = sent(response).await;
        let value: serde_json::Value = serde_json::from_slice(&body).expect("JSON");
        assert_eq!(value["status"], 1);
        assert_eq!(value["output"].as_str(), Some(text.as_str()));
        assert_eq!(budget.available_permits(), HELD_KIB);
        let only = |fields| async {
            let answer = json(&budget, &serde_json::json!({}), fields).await.expect("json");
            sent(answer).await
        };
        assert_eq!(only(vec![("a", String::new())]).await, b"{\"a\":\"\"}");
        // Long and short fields, in turn.
        let long = "\u{1}".repeat(PIECE + 1);
        let fields = vec![("a", long.clone()), ("b", "\"".into()), ("c", long.clone())];
        let three: serde_json::Value = serde_json::from_slice(&only(fields).await).expect("JSON");
        assert_eq!(three, serde_json::json!({"a": long, "b": "\"", "c": long}));
    }
}
