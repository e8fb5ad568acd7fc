//! Accepting connections, with bounds a hostile client cannot get round:
//! at most `MAX_CONNECTIONS` open (more wait in the kernel's backlog), a
//! request head must arrive within the request time bound (an idle
//! keep-alive connection is closed then too), an answer must be written
//! within it too (`deadline`: a client that does not read is closed, and
//! its answer dropped), and a head is at most `HEAD_BUFFER` bytes. A
//! connection closes lingering (`linger`: what the client still sends
//! after its last answer is read and dropped, within bounds), so a refused
//! body's sender reads its 413. On stop, no new connection is taken and
//! open ones finish the request they are in.

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

use super::deadline::WriteDeadline;
use super::linger::{LINGER_BYTES, Linger};

pub(crate) const MAX_CONNECTIONS: usize = 4096;
const HEAD_BUFFER: usize = 64 << 10;

/// Serves `app` on `listener` until `stop` completes; then lets the open
/// connections end their requests for at most `grace`.
pub(crate) async fn serve(
    listener: TcpListener,
    app: Router,
    stop: impl Future<Output = ()>,
    timeout: Duration,
    grace: Duration,
) {
    let open = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    let graceful = GracefulShutdown::new();
    let mut http = http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(timeout)
        .max_buf_size(HEAD_BUFFER)
        .max_header_size(HEAD_BUFFER)
        // A client may send its request and then shut its side (as `nc -N`
        // and many scripts do); it still gets its answer.
        .half_close(true);
    let mut stop = std::pin::pin!(stop);
    loop {
        let permit = tokio::select! {
            permit = open.clone().acquire_owned() => permit,
            () = &mut stop => break,
        };
        let Ok(permit) = permit else { break };
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = &mut stop => break,
        };
        let stream = match accepted {
            Ok((stream, _)) => stream,
            // Out of file descriptors, or a connection reset before it was
            // taken: wait a little rather than spin.
            Err(_) => {
                tokio::time::sleep(Duration::from_millis(20)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let service = TowerToHyperService::new(app.clone());
        let stream = Linger::new(stream, LINGER_BYTES, timeout);
        let io = TokioIo::new(WriteDeadline::new(stream, timeout));
        let connection = graceful.watch(http.serve_connection(io, service));
        tokio::spawn(async move {
            let _ = connection.await;
            drop(permit);
        });
    }
    drop(listener);
    let _ = tokio::time::timeout(grace, graceful.shutdown()).await;
}
