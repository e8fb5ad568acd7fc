//! `tictac serve`: the game (`/`) and the oracle playground (`/oracle`) in
//! a web browser, and the JSON API they use (`/api/run`, `/api/state`).
//! The server keeps no session: each request carries the whole trace.

mod admission;
mod connections;
mod deadline;
mod error;
mod hosts;
mod http;
mod limits;
mod linger;
mod pages;
mod reply;
mod request;
mod work;

use std::io::Write;
use std::net::SocketAddr;
use std::time::Duration;

use crate::cli::ServeOptions;
use crate::status::Status;
pub(crate) use error::ServeError;

/// How long requests still running at Ctrl-C or SIGTERM may take to end
/// (beyond the request time bound).
const GRACE: Duration = Duration::from_secs(1);

/// Serves until Ctrl-C or SIGTERM; the first line printed is
/// `tictac: serving on http://ADDR:PORT/`.
pub(crate) fn run(options: &ServeOptions, out: &mut dyn Write) -> Result<Status, ServeError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(ServeError::Runtime)?;
    runtime.block_on(serve(options, out))?;
    // Requests past the grace period are dropped with the runtime.
    runtime.shutdown_background();
    Ok(Status::Ran)
}

async fn serve(options: &ServeOptions, out: &mut dyn Write) -> Result<(), ServeError> {
    let wanted = SocketAddr::new(options.bind, options.port);
    let listener =
        tokio::net::TcpListener::bind(wanted).await.map_err(|e| ServeError::Listen(wanted, e))?;
    let address = listener.local_addr().map_err(ServeError::Address)?;
    writeln!(out, "tictac: serving on http://{address}/")?;
    out.flush()?;

    let hosts = hosts::Hosts::new(address.ip(), &options.allowed_hosts);
    let app = http::router(options.timeout, hosts);
    let (timeout, grace) = (options.timeout, options.timeout + GRACE);
    connections::serve(listener, app, crate::platform::signals::server_stop(), timeout, grace)
        .await;
    writeln!(out, "tictac: stopped")?;
    Ok(())
}
