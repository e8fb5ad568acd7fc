//! Which names a server on loopback answers to. A web page from anywhere
//! can make the browser it runs in send requests to 127.0.0.1: through a
//! name of its own that it makes resolve to 127.0.0.1 (DNS rebinding: the
//! browser then takes the server for that site's, and lets the page read
//! its answers), or by a plain cross-origin POST. So on a loopback address
//! a request is answered only when its `Host` names `localhost`, the
//! address, or a name given with `--allow-host`, and when it comes from a
//! page (`Origin`), only from a page of one of those names; anything else
//! gets 403 saying why. On any other address (`--bind 0.0.0.0`) the
//! server is meant to be reached by whatever names its network gives it,
//! and every name is answered.

use std::net::IpAddr;

use axum::extract::{Request, State};
use axum::http::{Uri, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::error::ApiError;

/// The names answered: every one, or these (lower case, IPv6 addresses
/// without brackets, no final dot).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Hosts {
    Any,
    Only(Vec<String>),
}

impl Hosts {
    /// What a server bound to `bind` answers, with the names of
    /// `--allow-host` (as `cli::values` wrote them).
    pub(crate) fn new(bind: IpAddr, allowed: &[String]) -> Hosts {
        if !bind.to_canonical().is_loopback() {
            return Hosts::Any;
        }
        let mut names = vec!["localhost".to_string(), bind.to_string()];
        names.extend(allowed.iter().cloned());
        Hosts::Only(names)
    }

    /// Why a request with this `Host` (or URI authority) and `Origin` is
    /// refused, if it is.
    fn refusal(&self, host: Option<&str>, origin: Option<&str>) -> Option<String> {
        let Hosts::Only(names) = self else { return None };
        let answered = |name: &str| names.iter().any(|n| *n == name);
        let Some(host) = host else {
            return Some(
                "this server answers only requests that name it in a Host header".to_string(),
            );
        };
        let name = host_name(host);
        if !answered(&name) {
            return Some(format!(
                "this server answers only the names {}, not '{}': another site could reach it \
                 under its own name (DNS rebinding); to use this name, start it with \
                 --allow-host {}",
                names.join(", "),
                shown(&name),
                shown(&name),
            ));
        }
        let origin = origin?;
        let from = origin.parse::<Uri>().ok().and_then(|uri| uri.host().map(host_name));
        match from {
            Some(name) if answered(&name) => None,
            _ => Some(format!(
                "this server answers pages of the names {} only, not a page of '{}' (another \
                 site's page may not use it); to let pages of a name use it, start it with \
                 --allow-host NAME",
                names.join(", "),
                shown(origin),
            )),
        }
    }
}

/// The name in a `Host` header or a URI's host: lower case, an IPv6
/// address without brackets, the port and a final dot dropped.
fn host_name(host: &str) -> String {
    let host = host.trim().to_ascii_lowercase();
    let name = match host.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or_default(),
        None => host.rsplit_once(':').map_or(host.as_str(), |(name, _port)| name),
    };
    name.strip_suffix('.').unwrap_or(name).to_string()
}

/// A name as a message quotes it: at most 64 characters.
fn shown(name: &str) -> String {
    match name.char_indices().nth(64) {
        Some((cut, _)) => format!("{}...", &name[..cut]),
        None => name.to_string(),
    }
}

/// Every request: answered if its names are, else 403.
pub(crate) async fn check(State(hosts): State<Hosts>, request: Request, next: Next) -> Response {
    let refusal = {
        let header = |name| request.headers().get(name).and_then(|v| v.to_str().ok());
        // An absolute URI's authority is the request's host (RFC 9112 3.2.2).
        let host = request.uri().authority().map(|a| a.host()).or_else(|| header(header::HOST));
        hosts.refusal(host, header(header::ORIGIN))
    };
    match refusal {
        None => next.run(request).await,
        Some(why) => ApiError::Forbidden(why).into_response(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loopback() -> Hosts {
        Hosts::new(IpAddr::from([127, 0, 0, 1]), &["mybox.local".to_string()])
    }

    #[test]
    fn on_loopback_only_its_names_are_answered_whatever_the_port() {
        let hosts = loopback();
        for host in ["localhost:8080", "LocalHost", "localhost.:1", "127.0.0.1:8080", "mybox.local"]
        {
            assert_eq!(hosts.refusal(Some(host), None), None, "{host}");
        }
        let why = hosts.refusal(Some("evil.example:8080"), None).expect("refused");
        assert!(why.contains("'evil.example'") && why.contains("--allow-host evil.example"));
        assert!(why.contains("localhost, 127.0.0.1, mybox.local"), "{why}");
        for host in ["127.0.0.2", "localhost.evil.example", "[::1]:8080", ""] {
            assert!(hosts.refusal(Some(host), None).is_some(), "{host}");
        }
        assert!(hosts.refusal(None, None).expect("refused").contains("Host header"));
        let long = "x".repeat(1000);
        assert!(hosts.refusal(Some(&long), None).expect("refused").len() < 400);
    }

    #[test]
    fn on_loopback_only_pages_of_its_names_may_use_it() {
        let hosts = loopback();
        let from = |origin| hosts.refusal(Some("127.0.0.1:8080"), Some(origin));
        assert_eq!(from("http://127.0.0.1:8080"), None);
        assert_eq!(from("http://localhost:3000"), None);
        assert_eq!(from("https://mybox.local"), None);
        let why = from("https://evil.example").expect("refused");
        assert!(why.contains("'https://evil.example'") && why.contains("--allow-host"), "{why}");
        assert!(from("null").is_some());
    }

    #[test]
    fn on_ipv6_loopback_its_address_in_brackets_and_elsewhere_any_name() {
        let v6 = Hosts::new("::1".parse().expect("an address"), &[]);
        assert_eq!(v6.refusal(Some("[::1]:8080"), Some("http://[::1]:8080")), None);
        assert!(v6.refusal(Some("127.0.0.1"), None).is_some());
        let any = Hosts::new(IpAddr::from([0, 0, 0, 0]), &[]);
        assert_eq!(any, Hosts::Any);
        assert_eq!(any.refusal(Some("evil.example"), Some("https://evil.example")), None);
        assert_eq!(any.refusal(None, None), None);
        assert_eq!(Hosts::new(IpAddr::from([192, 168, 1, 2]), &[]), Hosts::Any);
    }
}
