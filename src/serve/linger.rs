//! Closing a connection without losing its last answer (a lingering
//! close). A client that sends a refused body to its end before it reads
//! (as most do) is still sending when the server has answered 413 and
//! closes; a socket closed with bytes still coming answers them with a
//! reset, the client's write fails (a broken pipe) and it never reads its
//! answer. So closing shuts the server's side first (the client reads the
//! answer and its end), then reads and drops what the client still sends,
//! until it closes its side too, up to `LINGER_BYTES` and for at most the
//! request time bound: a client that sends on past either is reset.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::Sleep;

/// The most a closing connection reads and drops.
pub(crate) const LINGER_BYTES: usize = 4 << 20;

/// A stream whose shutdown lingers: its writing side shut, it reads until
/// the peer's end, `bytes` or `time`.
pub(crate) struct Linger<S> {
    inner: S,
    bytes: usize,
    time: Duration,
    /// When the lingering ends; `None` until the writing side is shut.
    until: Option<Pin<Box<Sleep>>>,
}

impl<S> Linger<S> {
    pub(crate) fn new(inner: S, bytes: usize, time: Duration) -> Self {
        Linger { inner, bytes, time, until: None }
    }
}

impl<S: AsyncRead + Unpin> Linger<S> {
    /// Reads and drops until the peer's end, an error, the byte bound or
    /// the time bound.
    fn poll_drain(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        let mut dropped = [0; 8 << 10];
        loop {
            if self.bytes == 0
                || self.until.as_mut().is_some_and(|t| t.as_mut().poll(cx).is_ready())
            {
                return Poll::Ready(());
            }
            let wanted = self.bytes.min(dropped.len());
            let mut buf = ReadBuf::new(&mut dropped[..wanted]);
            match ready!(Pin::new(&mut self.inner).poll_read(cx, &mut buf)) {
                Ok(()) if !buf.filled().is_empty() => self.bytes -= buf.filled().len(),
                _ => return Poll::Ready(()),
            }
        }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Linger<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<S: AsyncRead + AsyncWrite + Unpin> AsyncWrite for Linger<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, data)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write_vectored(cx, data)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if self.until.is_none() {
            ready!(Pin::new(&mut self.inner).poll_shutdown(cx))?;
            self.until = Some(Box::pin(tokio::time::sleep(self.time)));
        }
        self.poll_drain(cx).map(Ok)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::time::Instant;

    #[tokio::test]
    async fn a_shutdown_reads_what_comes_until_the_peer_ends() {
        let (mut client, server) = tokio::io::duplex(64);
        let mut server = Linger::new(server, 1 << 20, Duration::from_secs(60));
        let sender = tokio::spawn(async move {
            // The server's end comes first, then the client sends on.
            let mut end = Vec::new();
            client.read_to_end(&mut end).await.expect("the server's end");
            client.write_all(&[b'-'; 10_000]).await.expect("read by the lingering server");
            client.shutdown().await.expect("the client's end");
        });
        server.shutdown().await.expect("lingered");
        sender.await.expect("the client was not reset");
        assert_eq!(server.bytes, (1 << 20) - 10_000);
    }

    #[tokio::test]
    async fn the_lingering_ends_at_its_byte_bound_or_its_time_bound() {
        let (mut client, server) = tokio::io::duplex(64);
        let mut server = Linger::new(server, 1000, Duration::from_secs(60));
        let flood =
            tokio::spawn(async move { while client.write_all(&[b'-'; 64]).await.is_ok() {} });
        server.shutdown().await.expect("lingered");
        assert_eq!(server.bytes, 0);
        drop(server);
        flood.await.expect("the flood ends with the connection");

        let (_silent, server) = tokio::io::duplex(64);
        let mut server = Linger::new(server, 1000, Duration::from_millis(100));
        let started = Instant::now();
        server.shutdown().await.expect("lingered");
        assert!(started.elapsed() >= Duration::from_millis(100));
        assert_eq!(server.bytes, 1000);
    }
}
