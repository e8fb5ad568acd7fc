//! Admission of API requests by the bytes of their bodies, counted as the
//! bytes arrive. A request's `Content-Length` is only what it says: a
//! connection that declares 1 MiB and sends nothing holds nothing, so idle
//! connections cannot keep others waiting (attack E3: 70 of them stalled
//! every request for the 5 s time bound when the declared length was taken
//! up front).
//!
//! A body takes its KiB from the budget (`ADMITTED_KIB`) as each piece
//! comes. When the budget cannot give the next piece at once, the body asks
//! for all it will still need (its declared length, at most the body limit)
//! and waits for it, so the bodies waiting are completed one after the
//! other rather than each holding a part. If bodies partly read (or clients
//! that stopped sending) hold the whole budget, one waiting body at a time
//! goes on without it on the overdraft, one body limit more: some body can
//! always be read to its end, and the memory bodies hold stays bounded (64
//! MiB and one body). A whole body counts at least `LEAST_KIB`, which bounds
//! how many requests run at once (256). What a request took is given back
//! when its answer is built.
//!
//! Bodies that stop coming must not keep the others waiting (attack41 F3:
//! 300 bodies sent to 300 KiB and stalled held the budget, one of them the
//! overdraft, and every small request waited for `--timeout`). So a body
//! that sends nothing for `BODY_IDLE` while it is read is cut (408), giving
//! back what it held; and a small body (a declared length of at most
//! `SMALL_BODY`, the traces run inline) never waits: when the budget cannot
//! give its piece at once it goes on uncounted, bounded by the connections
//! (4,096 of 16 KiB) and run one at a time on each server thread.

use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, ready};
use std::time::Duration;

use axum::body::{Body, Bytes};
use http_body::{Frame, SizeHint};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Sleep;

use super::limits::{BODY_LIMIT, INLINE_TRACE};

/// What the bodies of the API requests admitted at once may hold together,
/// in KiB: 256 small requests, or 64 of 1 MiB.
const ADMITTED_KIB: usize = 64 << 10;
/// What a whole request counts at least.
const LEAST_KIB: usize = 256;
const LIMIT_KIB: usize = BODY_LIMIT / 1024;
/// A body that sends nothing for this long while it is read is cut.
pub(crate) const BODY_IDLE: Duration = Duration::from_secs(1);
/// A body declared this short never waits for the budget.
const SMALL_BODY: usize = INLINE_TRACE;

/// Why a body was cut: it stopped coming (`BODY_IDLE`).
#[derive(Debug, thiserror::Error)]
#[error("the request body stopped coming")]
pub(crate) struct Stalled;

impl Stalled {
    /// Whether `e`, or an error it wraps, is a body cut for stalling.
    pub(crate) fn caused(e: &(dyn std::error::Error + 'static)) -> bool {
        let mut cause = Some(e);
        while let Some(e) = cause {
            if e.is::<Stalled>() {
                return true;
            }
            cause = e.source();
        }
        false
    }
}

/// The shared budget, and the overdraft that keeps it from locking up.
pub(crate) struct Admission {
    budget: Arc<Semaphore>,
    overdraft: Arc<Semaphore>,
}

/// What one request holds: given back when the last of its clones (the
/// body's, the request's) is dropped.
#[derive(Clone, Default)]
pub(crate) struct Share(Arc<Mutex<Held>>);

#[derive(Default)]
struct Held {
    kib: usize,
    permits: Option<OwnedSemaphorePermit>,
    /// This request goes on without the budget.
    overdraft: Option<OwnedSemaphorePermit>,
}

enum Grant {
    Budget(OwnedSemaphorePermit),
    Overdraft(OwnedSemaphorePermit),
}

impl Admission {
    pub(crate) fn new() -> Admission {
        Admission {
            budget: Arc::new(Semaphore::new(ADMITTED_KIB)),
            overdraft: Arc::new(Semaphore::new(1)),
        }
    }

    /// `body`, counting its bytes as they come against the budget; `share`
    /// keeps them until it is dropped. `declared` is the request's
    /// `Content-Length`, if it gave one.
    pub(crate) fn admit(&self, body: Body, declared: Option<usize>, share: &Share) -> Body {
        let declared_kib = declared.unwrap_or(BODY_LIMIT).min(BODY_LIMIT).div_ceil(1024);
        Body::new(Counted {
            inner: body,
            budget: self.budget.clone(),
            overdraft: self.overdraft.clone(),
            share: share.clone(),
            bytes: 0,
            whole_kib: declared_kib.max(LEAST_KIB),
            small: declared.is_some_and(|length| length <= SMALL_BODY),
            waiting: None,
            idle: None,
        })
    }

    /// KiB of the budget free, for tests.
    #[cfg(test)]
    fn free_kib(&self) -> usize {
        self.budget.available_permits()
    }
}

impl Share {
    fn held(&self) -> std::sync::MutexGuard<'_, Held> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether the request now holds `kib`, taking what it lacks from the
    /// budget if the budget has it at once.
    fn try_grow(&self, kib: usize, budget: &Arc<Semaphore>) -> bool {
        let mut held = self.held();
        if held.overdraft.is_some() || held.kib >= kib {
            return true;
        }
        let Ok(more) = u32::try_from(kib - held.kib) else { return false };
        match budget.clone().try_acquire_many_owned(more) {
            Ok(permit) => {
                held.keep(Grant::Budget(permit));
                true
            }
            Err(_) => false,
        }
    }
}

impl Held {
    fn keep(&mut self, grant: Grant) {
        match grant {
            Grant::Budget(permit) => {
                self.kib += permit.num_permits();
                match &mut self.permits {
                    Some(permits) => permits.merge(permit),
                    None => self.permits = Some(permit),
                }
            }
            Grant::Overdraft(permit) => self.overdraft = Some(permit),
        }
    }
}

type Wait = Pin<Box<dyn Future<Output = Option<Grant>> + Send>>;

/// A request body that takes its share of the budget as it comes.
struct Counted {
    inner: Body,
    budget: Arc<Semaphore>,
    overdraft: Arc<Semaphore>,
    share: Share,
    bytes: usize,
    /// What the whole body will count, as its length was declared.
    whole_kib: usize,
    /// Declared at most `SMALL_BODY`: it goes on uncounted rather than wait.
    small: bool,
    /// A piece read (or the end) held back until its KiB are granted.
    waiting: Option<(Option<Frame<Bytes>>, Wait)>,
    /// When the body is cut if nothing comes; set while it is read.
    idle: Option<Pin<Box<Sleep>>>,
}

impl http_body::Body for Counted {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        let this = self.get_mut();
        if this.waiting.is_none() {
            let Poll::Ready(next) = Pin::new(&mut this.inner).poll_frame(cx) else {
                let idle = this.idle.get_or_insert_with(|| Box::pin(tokio::time::sleep(BODY_IDLE)));
                ready!(idle.as_mut().poll(cx));
                return Poll::Ready(Some(Err(axum::Error::new(Stalled))));
            };
            this.idle = None;
            let kib = match &next {
                Some(Ok(frame)) => {
                    this.bytes += frame.data_ref().map_or(0, Bytes::len);
                    this.bytes.min(BODY_LIMIT).div_ceil(1024)
                }
                None => this.bytes.min(BODY_LIMIT).div_ceil(1024).max(LEAST_KIB),
                Some(Err(_)) => return Poll::Ready(next),
            };
            if this.share.try_grow(kib, &this.budget) || this.small {
                return Poll::Ready(next);
            }
            // All it will still need, at once, or the overdraft.
            let whole = if next.is_none() { kib } else { this.whole_kib.max(kib) };
            let more = whole.saturating_sub(this.share.held().kib).min(LIMIT_KIB + LEAST_KIB);
            let (budget, overdraft) = (this.budget.clone(), this.overdraft.clone());
            let wait: Wait = Box::pin(async move {
                let more = u32::try_from(more).unwrap_or(u32::MAX);
                tokio::select! {
                    biased;
                    permit = budget.acquire_many_owned(more) => permit.ok().map(Grant::Budget),
                    permit = overdraft.acquire_owned() => permit.ok().map(Grant::Overdraft),
                }
            });
            this.waiting =
                Some((next.map(|frame| frame.expect("an error is passed on above")), wait));
        }
        let Some((_, wait)) = &mut this.waiting else { unreachable!("set above") };
        let grant = ready!(wait.as_mut().poll(cx));
        let Some((held_back, _)) = this.waiting.take() else { unreachable!("set above") };
        match grant {
            Some(grant) => this.share.held().keep(grant),
            None => {
                return Poll::Ready(Some(Err(axum::Error::new(io::Error::other(
                    "the server is stopping",
                )))));
            }
        }
        Poll::Ready(held_back.map(Ok))
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::body::to_bytes;

    #[tokio::test]
    async fn a_declared_length_takes_nothing_until_its_bytes_come() {
        let admission = Admission::new();
        let idle: Vec<Share> = (0..100).map(|_| Share::default()).collect();
        let bodies: Vec<Body> = idle
            .iter()
            .map(|share| admission.admit(Body::empty(), Some(BODY_LIMIT), share))
            .collect();
        assert_eq!(admission.free_kib(), ADMITTED_KIB, "nothing taken before a byte is read");
        // A body read whole counts its KiB, at least LEAST_KIB, until its share is dropped.
        let share = Share::default();
        let body = admission.admit(Body::from(vec![b'x'; 300 << 10]), Some(300 << 10), &share);
        assert_eq!(to_bytes(body, usize::MAX).await.expect("read").len(), 300 << 10);
        assert_eq!(admission.free_kib(), ADMITTED_KIB - 300);
        drop(share);
        assert_eq!(admission.free_kib(), ADMITTED_KIB);
        let share = Share::default();
        let body = admission.admit(Body::from("{}"), Some(2), &share);
        to_bytes(body, usize::MAX).await.expect("read");
        assert_eq!(admission.free_kib(), ADMITTED_KIB - LEAST_KIB);
        drop((share, bodies));
    }

    #[tokio::test]
    async fn bodies_that_hold_the_whole_budget_leave_one_body_at_a_time_the_overdraft() {
        let admission = Admission::new();
        let hog = Share::default();
        let everything = u32::try_from(ADMITTED_KIB).expect("fits");
        hog.held().keep(Grant::Budget(
            admission.budget.clone().try_acquire_many_owned(everything).expect("free"),
        ));
        let (first, second) = (Share::default(), Share::default());
        let one = admission.admit(Body::from(vec![b'x'; 5000]), None, &first);
        to_bytes(one, usize::MAX).await.expect("read on the overdraft");
        let two = admission.admit(Body::from(vec![b'x'; 5000]), None, &second);
        let waited =
            tokio::time::timeout(std::time::Duration::from_millis(100), to_bytes(two, usize::MAX));
        assert!(waited.await.is_err(), "the overdraft is taken");
        drop(first);
        let two = admission.admit(Body::from(vec![b'x'; 5000]), None, &second);
        to_bytes(two, usize::MAX).await.expect("the overdraft is given back");
        drop((second, hog));
        assert_eq!(admission.free_kib(), ADMITTED_KIB);
    }

    /// A body that never sends a byte.
    struct Silent;

    impl http_body::Body for Silent {
        type Data = Bytes;
        type Error = axum::Error;
        fn poll_frame(
            self: Pin<&mut Self>,
            _: &mut Context<'_>,
        ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
            Poll::Pending
        }
    }

    #[tokio::test]
    async fn a_small_body_never_waits_and_a_silent_one_is_cut_giving_back_what_it_held() {
        let admission = Admission::new();
        let (hog, late) = (Share::default(), Share::default());
        let everything = u32::try_from(ADMITTED_KIB).expect("fits");
        hog.held().keep(Grant::Budget(
            admission.budget.clone().try_acquire_many_owned(everything).expect("free"),
        ));
        let over = admission.overdraft.clone().try_acquire_owned().expect("free");
        late.held().keep(Grant::Overdraft(over));
        // Budget and overdraft taken: a small body is read at once, uncounted.
        let small = Share::default();
        let body = admission.admit(Body::from("{}"), Some(2), &small);
        let read = tokio::time::timeout(Duration::from_millis(500), to_bytes(body, usize::MAX));
        assert_eq!(&read.await.expect("at once").expect("read")[..], b"{}");
        let body = admission.admit(Body::from("{}"), Some(SMALL_BODY + 1), &Share::default());
        let waited = tokio::time::timeout(Duration::from_millis(100), to_bytes(body, usize::MAX));
        assert!(waited.await.is_err(), "a larger body waits");
        drop((hog, late, small));
        // A body that sends nothing is cut after BODY_IDLE, its share given back.
        let share = Share::default();
        let body = admission.admit(Body::new(Silent), None, &share);
        let started = tokio::time::Instant::now();
        let e = to_bytes(body, usize::MAX).await.expect_err("cut");
        assert!(started.elapsed() >= BODY_IDLE);
        assert!(Stalled::caused(&e), "{e:?}");
        drop(share);
        assert_eq!(admission.free_kib(), ADMITTED_KIB);
    }
}
