//! A connection's answer must be written within the request time bound:
//! a client that stops reading (or reads a byte now and then) would
//! otherwise keep its answer, and its share of the memory budget, for as
//! long as it likes. The bound runs from the first byte of an answer
//! written after a request was read; past it, the next write fails and
//! the server closes the connection, dropping the answer.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::Sleep;

/// A stream whose writes fail once an answer has taken `limit` to write.
pub(crate) struct WriteDeadline<S> {
    inner: S,
    limit: Duration,
    /// When the answer being written must be out; `None` between answers
    /// (reading a request ends the answer before it).
    due: Option<Pin<Box<Sleep>>>,
}

impl<S> WriteDeadline<S> {
    pub(crate) fn new(inner: S, limit: Duration) -> Self {
        WriteDeadline { inner, limit, due: None }
    }

    /// Ready with an error once the answer is late. Writing bytes starts
    /// the clock (a flush with nothing written does not: the server
    /// flushes while it waits for a request's body); while it runs, the
    /// task is woken when it runs out.
    fn poll_late(&mut self, cx: &mut Context<'_>, writing: bool) -> Poll<io::Error> {
        if writing && self.due.is_none() {
            self.due = Some(Box::pin(tokio::time::sleep(self.limit)));
        }
        let Some(due) = &mut self.due else { return Poll::Pending };
        match due.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(io::Error::new(
                io::ErrorKind::TimedOut,
                "the answer was not read within the time bound",
            )),
            Poll::Pending => Poll::Pending,
        }
    }

    /// Runs a write (of bytes, if `writing`) unless the answer is late.
    fn write_with<T>(
        &mut self,
        cx: &mut Context<'_>,
        writing: bool,
        write: impl FnOnce(&mut S, &mut Context<'_>) -> Poll<io::Result<T>>,
    ) -> Poll<io::Result<T>> {
        if let Poll::Ready(late) = self.poll_late(cx, writing) {
            return Poll::Ready(Err(late));
        }
        write(&mut self.inner, cx)
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for WriteDeadline<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let read = Pin::new(&mut self.inner).poll_read(cx, buf);
        if matches!(read, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.due = None;
        }
        read
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for WriteDeadline<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.write_with(cx, !data.is_empty(), |s, cx| Pin::new(s).poll_write(cx, data))
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let writing = data.iter().any(|d| !d.is_empty());
        self.write_with(cx, writing, |s, cx| Pin::new(s).poll_write_vectored(cx, data))
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.write_with(cx, false, |s, cx| Pin::new(s).poll_flush(cx))
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// The deadline as a point in time, for tests.
#[cfg(test)]
impl<S> WriteDeadline<S> {
    fn due(&self) -> Option<tokio::time::Instant> {
        self.due.as_ref().map(|d| d.deadline())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::time::Instant;

    #[tokio::test]
    async fn an_answer_not_read_in_time_fails_its_next_write_and_a_request_restarts_the_clock() {
        let (client, server) = tokio::io::duplex(1024);
        let mut server = WriteDeadline::new(server, Duration::from_millis(200));
        let mut client = client;
        client.write_all(b"GET").await.expect("request");
        let mut request = [0; 3];
        server.read_exact(&mut request).await.expect("read");
        // A flush with nothing written does not start the clock.
        server.flush().await.expect("flush");
        assert_eq!(server.due(), None);
        // The client reads nothing: the pipe fills, then the deadline passes.
        let started = Instant::now();
        let mut written = 0;
        let failed = loop {
            match server.write(&[b'x'; 512]).await {
                Ok(n) => written += n,
                Err(e) => break e,
            }
        };
        assert_eq!(failed.kind(), io::ErrorKind::TimedOut);
        assert_eq!(written, 1024);
        assert!(started.elapsed() >= Duration::from_millis(200));
        // A reading client: the next request restarts the clock.
        let mut answer = vec![0; 1024];
        client.read_exact(&mut answer).await.expect("answer");
        client.write_all(b"GET").await.expect("request");
        server.read_exact(&mut request).await.expect("read");
        assert_eq!(server.due(), None);
        server.write_all(b"ok").await.expect("in time");
        assert!(server.due().is_some());
    }
}
