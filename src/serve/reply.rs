//! API answers as they are sent: the large texts of an answer (a
//! transcript, a trace, a message) are escaped into JSON a piece at a time
//! as the client reads, never held escaped (escaping a byte such as `\x01`
//! makes six). A text over `SPOOLED` bytes waits on a temporary file, not
//! in memory: a client that never reads then holds a few pieces, not its
//! 4 MiB transcript, so the server's memory does not grow with the number
//! of such clients (issue 21's 256 admitted answers each held theirs).
//! Every answer holds its share of a memory budget and of a disk budget,
//! for all connections together, until its last byte is written or its
//! connection is closed.

use std::collections::VecDeque;
use std::fs::File;
use std::io::{self, Read, Write};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use http_body::Frame;
use serde::Serialize;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::error::{ApiError, retry_after};
use crate::platform::spool::{FreeSpace, Spool};

/// What all answers waiting to be written may hold in memory together, in
/// KiB: at least 600 answers (a spooled text counts `SPOOLED`). An answer
/// that finds it spent waits (within the request's time bound) for one to
/// be written or closed.
pub(crate) const HELD_KIB: usize = 160 << 10;

/// What all answers may hold on temporary files together, in KiB, at
/// most: 512 transcripts at the 4 MiB cap; and never more than half of
/// what the temporary folder had free when the server started (a small
/// `TMPDIR` filled by one client's unread answers failed everybody's long
/// answers, with a 500). An answer that would pass it is refused at once
/// (503, `Retry-After`): waiting, it would hold its text in memory.
pub(crate) const ON_DISK_KIB: usize = 2 << 20;

/// Text escaped into one frame: at most six times this once escaped.
const PIECE: usize = 16 << 10;

/// What a spooled text holds in memory while it is sent: a piece read and
/// that piece escaped, and what the connection queues to write (at most its
/// 64 KiB buffer and a frame). A longer text is spooled; a shorter one
/// would cost more there than where it is.
const SPOOLED: usize = 64 * 1024 + 13 * PIECE;

/// The budgets answers are held against (see `HELD_KIB`, `ON_DISK_KIB`).
pub(crate) struct Budgets {
    memory: Arc<Semaphore>,
    disk: Arc<Semaphore>,
    /// The disk budget's size, in KiB.
    disk_kib: usize,
    /// The unit the temporary folder gives space in: a text on disk counts
    /// its length rounded up to it.
    block: usize,
    /// The time bound: how long an answer refused for want of room waits
    /// before it is asked again (`Retry-After`).
    timeout: Duration,
}

impl Budgets {
    /// The budgets of a server with this time bound, whose temporary folder
    /// has `free` space now (`None`: not known, `ON_DISK_KIB` then).
    pub(crate) fn new(timeout: Duration, free: Option<FreeSpace>) -> Budgets {
        let disk_kib = free.map_or(ON_DISK_KIB, |free| {
            usize::try_from(free.bytes / 2 / 1024).map_or(ON_DISK_KIB, |kib| kib.min(ON_DISK_KIB))
        });
        let block = free.and_then(|f| usize::try_from(f.block).ok()).unwrap_or(1).clamp(1, 1 << 20);
        Budgets {
            memory: Arc::new(Semaphore::new(HELD_KIB)),
            disk: Arc::new(Semaphore::new(disk_kib)),
            disk_kib,
            block,
            timeout,
        }
    }

    /// What a text of `len` bytes takes on disk, in bytes.
    fn on_disk(&self, len: usize) -> usize {
        len.div_ceil(self.block).saturating_mul(self.block)
    }
}

fn kib(bytes: usize, most: usize) -> u32 {
    u32::try_from(bytes.div_ceil(1024).clamp(1, most)).unwrap_or(u32::MAX)
}

/// The JSON object `small` (a struct of small fields) with the `large`
/// string fields added after them, once the budgets have room for it all.
pub(crate) async fn json(
    budgets: &Budgets,
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
            parts.push_back(Part::text(text));
        }
        raw.push(b'"');
    }
    raw.push(b'}');
    parts.push_back(Part::Raw(Bytes::from(raw)));
    let on_disk: usize = parts.iter().map(|p| budgets.on_disk(p.on_disk())).sum();
    let disk = match on_disk {
        0 => None,
        bytes => {
            let wanted = bytes.div_ceil(1024);
            if wanted > budgets.disk_kib {
                // It would never fit, however long it waited.
                return Err(ApiError::NoRoom(budgets.disk_kib.div_ceil(1024)));
            }
            let wanted = u32::try_from(wanted).unwrap_or(u32::MAX);
            match budgets.disk.clone().try_acquire_many_owned(wanted) {
                Ok(permit) => Some(permit),
                Err(_) => return Err(ApiError::Busy(retry_after(budgets.timeout))),
            }
        }
    };
    let mut spooled = VecDeque::with_capacity(parts.len());
    for part in parts {
        spooled.push_back(part.spooled().map_err(|e| ApiError::from_spool(&e, budgets.timeout))?);
    }
    let held: usize = spooled.iter().map(Part::held).sum();
    let memory = budgets
        .memory
        .clone()
        .acquire_many_owned(kib(held, HELD_KIB))
        .await
        .map_err(|_| ApiError::Internal("the server is stopping".into()))?;
    let body = Body::new(Streamed { parts: spooled, _permits: (memory, disk) });
    Ok(([(header::CONTENT_TYPE, "application/json")], body).into_response())
}

enum Part {
    Raw(Bytes),
    /// A string's text, escaped as it is sent; `at` is how much was sent.
    Text {
        text: String,
        at: usize,
    },
    /// A long string's text on a temporary file, read and escaped as it is
    /// sent; `carry` is the start of a character cut off by the last piece.
    Spooled {
        file: File,
        left: u64,
        carry: Vec<u8>,
    },
}

impl Part {
    fn text(text: String) -> Part {
        Part::Text { text, at: 0 }
    }

    /// What the part would hold on disk once spooled.
    fn on_disk(&self) -> usize {
        match self {
            Part::Text { text, .. } if text.len() > SPOOLED => text.len(),
            _ => 0,
        }
    }

    /// The part, a long text moved to a temporary file.
    fn spooled(self) -> io::Result<Part> {
        match self {
            Part::Text { text, .. } if text.len() > SPOOLED => {
                let mut spool = Spool::with_bound(0);
                spool.write_all(text.as_bytes())?;
                let left = spool.len();
                drop(text);
                Ok(Part::Spooled { file: spool.into_file()?, left, carry: Vec::new() })
            }
            part => Ok(part),
        }
    }

    /// What the part holds in memory.
    fn held(&self) -> usize {
        match self {
            Part::Raw(bytes) => bytes.len(),
            Part::Text { text, .. } => text.len(),
            Part::Spooled { .. } => SPOOLED,
        }
    }
}

/// The body of an answer: its parts, and its shares of the budgets, given
/// back when the body is dropped (written, or its connection gone).
struct Streamed {
    parts: VecDeque<Part>,
    _permits: (OwnedSemaphorePermit, Option<OwnedSemaphorePermit>),
}

impl http_body::Body for Streamed {
    type Data = Bytes;
    /// A temporary file that could not be read: the connection is closed.
    type Error = io::Error;

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
            Part::Spooled { file, left, carry } => {
                let (escaped, end) = match next_spooled_piece(file, left, carry) {
                    Ok(piece) => piece,
                    Err(e) => return Poll::Ready(Some(Err(e))),
                };
                if end {
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

/// The next piece of a spooled text, escaped, and whether it was the last
/// (a 16 KiB read of a file just written: from the page cache, as quick as
/// the escaping; no reason to hand it to the blocking pool). The text was a
/// `String`, so a piece can end only inside a character,
/// whose start is carried to the next piece.
fn next_spooled_piece(
    file: &mut File,
    left: &mut u64,
    carry: &mut Vec<u8>,
) -> io::Result<(Bytes, bool)> {
    let mut bytes = std::mem::take(carry);
    let wanted = PIECE.min(usize::try_from(*left).unwrap_or(PIECE));
    let start = bytes.len();
    bytes.resize(start + wanted, 0);
    file.read_exact(&mut bytes[start..])?;
    *left -= wanted as u64;
    let text = match std::str::from_utf8(&bytes) {
        Ok(text) => text,
        Err(e) if e.error_len().is_none() && *left > 0 => {
            *carry = bytes[e.valid_up_to()..].to_vec();
            std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or_default()
        }
        Err(_) => return Err(io::Error::other("a spooled answer is not UTF-8")),
    };
    Ok((escape(text), *left == 0))
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

    const TIMEOUT: Duration = Duration::from_millis(2500);

    fn budgets() -> Budgets {
        Budgets::new(TIMEOUT, None)
    }

    async fn sent(response: Response) -> Vec<u8> {
        axum::body::to_bytes(response.into_body(), usize::MAX).await.expect("a body").to_vec()
    }

    #[tokio::test]
    async fn answers_are_json_escaped_piece_by_piece_and_hold_the_budget_until_sent() {
        let budgets = budgets();
        // Over `SPOOLED`: on a temporary file, pieces cut inside characters.
        let mut text = String::new();
        for k in 0..40_000u32 {
            text.push(char::from_u32(k % 0x800).unwrap_or('x'));
            text.push_str("\x01\"\\é\n");
        }
        assert!(text.len() > SPOOLED);
        let response = json(&budgets, &Small { status: 1 }, vec![("output", text.clone())])
            .await
            .expect("within the budget");
        // In memory, the spooled text counts `SPOOLED`, not its length.
        let held = HELD_KIB - budgets.memory.available_permits();
        assert!(held * 1024 >= SPOOLED && held * 1024 <= SPOOLED + 2048, "{held} KiB");
        assert_eq!(ON_DISK_KIB - budgets.disk.available_permits(), text.len().div_ceil(1024));
        let body = sent(response).await;
        let value: serde_json::Value = serde_json::from_slice(&body).expect("JSON");
        assert_eq!(value["status"], 1);
        assert_eq!(value["output"].as_str(), Some(text.as_str()));
        assert_eq!(budgets.memory.available_permits(), HELD_KIB);
        assert_eq!(budgets.disk.available_permits(), ON_DISK_KIB);
        let budget = &budgets;
        let only = |fields| async {
            let answer = json(budget, &serde_json::json!({}), fields).await.expect("json");
            sent(answer).await
        };
        assert_eq!(only(vec![("a", String::new())]).await, b"{\"a\":\"\"}");
        // Long and short fields, in turn.
        let long = "\u{1}".repeat(PIECE + 1);
        let fields = vec![("a", long.clone()), ("b", "\"".into()), ("c", long.clone())];
        let three: serde_json::Value = serde_json::from_slice(&only(fields).await).expect("JSON");
        assert_eq!(three, serde_json::json!({"a": long, "b": "\"", "c": long}));
    }

    #[tokio::test]
    async fn an_answer_past_the_disk_budget_is_refused_at_once_with_when_to_retry() {
        let budgets = budgets();
        let long = "x".repeat(SPOOLED + 1);
        let all = u32::try_from(ON_DISK_KIB).expect("fits");
        let taken = budgets.disk.clone().try_acquire_many_owned(all).expect("free");
        let refused = json(&budgets, &Small { status: 0 }, vec![("output", long.clone())]).await;
        assert_eq!(refused.err(), Some(ApiError::Busy(3)), "the time bound, rounded up");
        let response = ApiError::Busy(3).into_response();
        assert_eq!(response.status(), 503);
        assert_eq!(response.headers().get("retry-after").map(|v| v.as_bytes()), Some(&b"3"[..]));
        // A short answer waits on no file: still served.
        let short = json(&budgets, &Small { status: 0 }, vec![("output", "x".into())]).await;
        assert!(short.is_ok());
        drop(taken);
        let answer = json(&budgets, &Small { status: 0 }, vec![("output", long)]).await;
        assert!(answer.is_ok());
    }

    #[tokio::test]
    async fn the_disk_budget_is_half_the_free_space_at_start_counted_in_its_blocks() {
        let free = FreeSpace { bytes: 3 * SPOOLED as u64, block: 64 << 10 };
        let budgets = Budgets::new(TIMEOUT, Some(free));
        assert_eq!(budgets.disk_kib, 3 * SPOOLED / 2 / 1024);
        // 1 byte past `SPOOLED`, five 64 KiB blocks: one fits, not two.
        let long = "x".repeat(SPOOLED + 1);
        let first = json(&budgets, &Small { status: 0 }, vec![("output", long.clone())]).await;
        assert_eq!(budgets.disk_kib - budgets.disk.available_permits(), 5 * 64);
        let second = json(&budgets, &Small { status: 0 }, vec![("output", long.clone())]).await;
        assert_eq!(second.err(), Some(ApiError::Busy(3)));
        drop(first);
        // Longer than the whole budget: never, however long it waits.
        let longer = "x".repeat(2 * SPOOLED);
        let never = json(&budgets, &Small { status: 0 }, vec![("output", longer)]).await;
        assert_eq!(never.err(), Some(ApiError::NoRoom(1)));
        assert_eq!(Budgets::new(TIMEOUT, None).disk_kib, ON_DISK_KIB);
        let huge = FreeSpace { bytes: u64::MAX, block: 4096 };
        assert_eq!(Budgets::new(TIMEOUT, Some(huge)).disk_kib, ON_DISK_KIB);
    }
}
