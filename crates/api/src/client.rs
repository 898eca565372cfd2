//! The client's address, for failed-login counting, rate limits and the audit trail: the
//! peer of the TCP connection, or — when that peer is one of the configured trusted
//! proxies (`SWITCHBOARD_TRUSTED_PROXIES`) — the rightmost address of the forwarding
//! header that is not itself a trusted proxy. A header from anyone else is ignored, so a
//! client cannot choose the address it is counted under.

use std::net::{IpAddr, SocketAddr};

use axum::extract::{ConnectInfo, FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::{Extensions, HeaderMap};
use ipnet::IpNet;

/// The client's IP address as text (`unknown` when the server was not given connection
/// information, as in some tests).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientAddress(pub String);

impl<S: Send + Sync> FromRequestParts<S> for ClientAddress {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        Ok(ClientAddress(of(parts)))
    }
}

/// Which header the trusted proxies write the client's address into. Only the one the
/// proxy itself appends to can be read: a header the proxy passes through untouched is
/// entirely the client's to write.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ForwardedHeader {
    /// `X-Forwarded-For: client, proxy1, proxy2` (nginx, HAProxy, most load balancers).
    #[default]
    XForwardedFor,
    /// RFC 7239 `Forwarded: for=client, for=proxy1`.
    Forwarded,
}

impl ForwardedHeader {
    /// Reads `x-forwarded-for` or `forwarded`.
    pub fn parse(name: &str) -> Option<ForwardedHeader> {
        match name.to_ascii_lowercase().as_str() {
            "x-forwarded-for" => Some(ForwardedHeader::XForwardedFor),
            "forwarded" => Some(ForwardedHeader::Forwarded),
            _ => None,
        }
    }
}

/// The address [`resolve`] settled on, kept in the request's extensions.
#[derive(Clone, Copy, Debug)]
struct Resolved(IpAddr);

/// Settles the request's client address once, before rate limits, lockout and the audit
/// trail read it (see [`crate::middleware::admission`]).
pub fn resolve(trusted_proxies: &[IpNet], header: ForwardedHeader, request: &mut Request) {
    if let Some(ConnectInfo(peer)) = request.extensions().get::<ConnectInfo<SocketAddr>>() {
        let client = client_ip(peer.ip(), request.headers(), trusted_proxies, header);
        request.extensions_mut().insert(Resolved(client));
    }
}

/// The client address of a request's parts.
pub fn of(parts: &Parts) -> String {
    address(&parts.extensions)
}

/// The client address recorded in a request's extensions: the resolved one, else the TCP
/// peer, else `unknown`.
pub fn address(extensions: &Extensions) -> String {
    if let Some(Resolved(ip)) = extensions.get::<Resolved>() {
        return ip.to_string();
    }
    extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map(|ConnectInfo(address)| address.ip().to_canonical().to_string())
        .unwrap_or_else(|| "unknown".to_owned())
}

/// The key the client of a request (its `extensions`) is counted under: [`limit_key`]
/// of its address, read from the address itself rather than from its text.
pub fn limit_key_of(extensions: &Extensions) -> String {
    match extensions.get::<Resolved>() {
        Some(Resolved(ip)) => ip_limit_key(*ip),
        None => extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map_or_else(|| "unknown".to_owned(), |info| ip_limit_key(info.0.ip())),
    }
}

/// The key a client is counted under by the rate limits and the lockout: an IPv4 address
/// itself, an IPv6 address by its /64 — a site is given a /64 and picks addresses in it
/// at will (privacy addresses change by the hour), so counting by full address would give
/// one client 2^64 budgets. Anything that is not an address (`unknown`) is its own key.
/// The audit trail keeps the full address.
pub fn limit_key(address: &str) -> String {
    address
        .parse::<IpAddr>()
        .map_or_else(|_| address.to_owned(), ip_limit_key)
}

/// [`limit_key`] of an address.
fn ip_limit_key(ip: IpAddr) -> String {
    match ip.to_canonical() {
        IpAddr::V6(v6) => {
            let network = u128::from(v6) & !((1u128 << 64) - 1);
            format!("{}/64", std::net::Ipv6Addr::from(network))
        }
        IpAddr::V4(v4) => v4.to_string(),
    }
}

/// The client of a connection from `peer`: `peer` itself unless it is a trusted proxy;
/// then the hops of `header` are walked from the right (the hop nearest to us, written by
/// the proxy) and the first one that is not a trusted proxy is the client. A hop that
/// cannot be read (`unknown`, an obfuscated name) ends the walk at the last trusted
/// address: nothing left of it can be believed.
pub fn client_ip(
    peer: IpAddr,
    headers: &HeaderMap,
    trusted: &[IpNet],
    header: ForwardedHeader,
) -> IpAddr {
    let peer = peer.to_canonical();
    let is_trusted = |ip: &IpAddr| trusted.iter().any(|net| net.contains(ip));
    if !is_trusted(&peer) {
        return peer;
    }
    let mut client = peer;
    for hop in hops(headers, header).into_iter().rev() {
        let Some(ip) = hop else {
            return client;
        };
        client = ip.to_canonical();
        if !is_trusted(&client) {
            return client;
        }
    }
    client
}

/// The hops of the forwarding header, leftmost (farthest) first, every instance of the
/// header in order; `None` for a hop that is not an IP address.
fn hops(headers: &HeaderMap, header: ForwardedHeader) -> Vec<Option<IpAddr>> {
    let name = match header {
        ForwardedHeader::XForwardedFor => "x-forwarded-for",
        ForwardedHeader::Forwarded => "forwarded",
    };
    let mut hops = Vec::new();
    for value in headers.get_all(name) {
        let Ok(value) = value.to_str() else {
            // Bytes no proxy writes: believe nothing of this header.
            hops.push(None);
            continue;
        };
        for element in value.split(',') {
            let hop = match header {
                ForwardedHeader::XForwardedFor => Some(element.trim()),
                ForwardedHeader::Forwarded => element.split(';').find_map(|pair| {
                    let (key, value) = pair.split_once('=')?;
                    key.trim()
                        .eq_ignore_ascii_case("for")
                        .then_some(value.trim())
                }),
            };
            hops.push(hop.and_then(parse_node));
        }
    }
    hops
}

/// An address as proxies write it: `192.0.2.1`, `192.0.2.1:4711`, `2001:db8::1`,
/// `"[2001:db8::1]:4711"`.
fn parse_node(node: &str) -> Option<IpAddr> {
    let node = node.trim().trim_matches('"');
    if let Ok(ip) = node.parse::<IpAddr>() {
        return Some(ip);
    }
    if let Some(rest) = node.strip_prefix('[') {
        return rest.split(']').next()?.parse().ok();
    }
    node.parse::<SocketAddr>().ok().map(|a| a.ip())
}

/// Reads `SWITCHBOARD_TRUSTED_PROXIES`: CIDRs or single addresses, separated by commas
/// or spaces.
pub fn parse_trusted(list: &str) -> Result<Vec<IpNet>, String> {
    list.split([',', ' '])
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|item| {
            item.parse::<IpNet>()
                .or_else(|_| item.parse::<IpAddr>().map(IpNet::from))
                .map_err(|_| format!("{item:?} is not a CIDR (10.0.0.0/8) or an IP address"))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(name: &'static str, values: &[&'static str]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for v in values {
            map.append(name, v.parse().expect("a header value"));
        }
        map
    }

    fn ip(s: &str) -> IpAddr {
        s.parse().expect("an address")
    }

    #[test]
    fn the_rightmost_untrusted_hop_is_the_client() {
        let trusted = parse_trusted("10.0.0.0/8, 192.168.1.1").expect("CIDRs");
        let xff = ForwardedHeader::XForwardedFor;
        // A client-written spoof stays left of the address the proxy appended.
        let h = headers("x-forwarded-for", &["6.6.6.6, 203.0.113.7", "10.1.2.3"]);
        assert_eq!(
            client_ip(ip("10.0.0.1"), &h, &trusted, xff),
            ip("203.0.113.7")
        );
        // An untrusted peer's header is ignored.
        assert_eq!(
            client_ip(ip("198.51.100.1"), &h, &trusted, xff),
            ip("198.51.100.1")
        );
        // The other header is not read.
        let f = headers("forwarded", &["for=6.6.6.6"]);
        assert_eq!(client_ip(ip("10.0.0.1"), &f, &trusted, xff), ip("10.0.0.1"));
        // An unreadable hop stops the walk at the last trusted address.
        let h = headers("x-forwarded-for", &["6.6.6.6, unknown, 10.9.9.9"]);
        assert_eq!(client_ip(ip("10.0.0.1"), &h, &trusted, xff), ip("10.9.9.9"));
        let f = headers(
            "forwarded",
            &["for=6.6.6.6, for=\"[2001:db8::17]:4711\";proto=https, For=192.168.1.1:80"],
        );
        let fwd = ForwardedHeader::Forwarded;
        assert_eq!(
            client_ip(ip("::ffff:10.0.0.1"), &f, &trusted, fwd),
            ip("2001:db8::17")
        );
        assert!(parse_trusted("10.0.0.0/33").is_err());
    }

    #[test]
    fn ipv6_clients_are_counted_by_their_64() {
        assert_eq!(limit_key("2001:db8:1:2::17"), "2001:db8:1:2::/64");
        assert_eq!(
            limit_key("2001:db8:1:2:ffff:ffff:ffff:ffff"),
            limit_key("2001:db8:1:2::1")
        );
        assert_ne!(limit_key("2001:db8:1:3::1"), limit_key("2001:db8:1:2::1"));
        assert_eq!(limit_key("203.0.113.7"), "203.0.113.7");
        assert_eq!(limit_key("::ffff:203.0.113.7"), "203.0.113.7");
        assert_eq!(limit_key("unknown"), "unknown");
    }
}
