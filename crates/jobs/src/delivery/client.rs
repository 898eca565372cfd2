//! The HTTP client deliveries go out through, safe against server-side request forgery:
//! no redirects, no proxies, bounded time, a capped read of the answer, and no connection
//! to a non-public address unless the operator allows it. The address check runs on the
//! addresses the name resolves to, inside the resolver the connection uses, so a name
//! that resolves differently at registration and at delivery (DNS rebinding) gains
//! nothing; hosts written as IP literals never reach a resolver and are checked before
//! sending.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use reqwest::{Client, RequestBuilder, Url};

/// The most of an answer that is read and kept.
pub const EXCERPT_BYTES: usize = 1024;

/// Why an address may not be connected to; `None` for a public unicast address.
pub fn refusal(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => refusal_v4(v4),
        IpAddr::V6(v6) => refusal_v6(v6),
    }
}

fn refusal_v4(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, c, _] = ip.octets();
    Some(match (a, b, c) {
        _ if ip.is_unspecified() => "an unspecified address",
        _ if ip.is_broadcast() => "the broadcast address",
        (0, _, _) => "a 'this network' address",
        (127, _, _) => "a loopback address",
        (10, _, _) | (192, 168, _) => "a private address",
        (172, b, _) if (16..32).contains(&b) => "a private address",
        (100, b, _) if (64..128).contains(&b) => "a shared (CGNAT) address",
        (169, 254, _) => "a link-local address (cloud metadata lives there)",
        (192, 0, 0) => "an IETF protocol assignment",
        (192, 0, 2) | (198, 51, 100) | (203, 0, 113) => "a documentation address",
        (192, 88, 99) => "a 6to4 relay address",
        (198, 18..=19, _) => "a benchmarking address",
        (224..=239, _, _) => "a multicast address",
        (240..=255, _, _) => "a reserved address",
        _ => return None,
    })
}

fn refusal_v6(ip: Ipv6Addr) -> Option<&'static str> {
    if let Some(v4) = ip.to_ipv4_mapped() {
        return refusal_v4(v4).map(|_| "an IPv4-mapped non-public address");
    }
    let segments = ip.segments();
    Some(match segments {
        _ if ip.is_unspecified() => "an unspecified address",
        _ if ip.is_loopback() => "a loopback address",
        // ::/96, the deprecated IPv4-compatible form.
        [0, 0, 0, 0, 0, 0, _, _] => "an IPv4-compatible address",
        // NAT64 (64:ff9b::/96, 64:ff9b:1::/48) reaches IPv4 hosts, private ones included.
        [0x64, 0xff9b, ..] => "a NAT64 address",
        [0x100, 0, 0, 0, ..] => "a discard-only address",
        // 2001::/23: IETF protocol assignments (Teredo, benchmarking, ORCHID, …).
        [0x2001, s, ..] if s < 0x200 => "an IETF protocol assignment",
        [0x2001, 0xdb8, ..] => "a documentation address",
        [s, ..] if s & 0xfff0 == 0x3ff0 => "a documentation address",
        // 6to4 embeds an IPv4 address, private ones included.
        [0x2002, ..] => "a 6to4 address",
        [s, ..] if s & 0xfe00 == 0xfc00 => "a unique local (private) address",
        [s, ..] if s & 0xffc0 == 0xfe80 => "a link-local address",
        [s, ..] if s & 0xffc0 == 0xfec0 => "a site-local address",
        [s, ..] if s & 0xff00 == 0xff00 => "a multicast address",
        _ => return None,
    })
}

/// A delivery refused before any connection.
#[derive(Debug)]
pub struct Refused(pub String);

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Refused {}

/// The system resolver, keeping only the addresses [`refusal`] lets through.
struct PublicOnly;

impl Resolve for PublicOnly {
    fn resolve(&self, name: Name) -> Resolving {
        Box::pin(async move {
            let host = name.as_str().to_owned();
            let resolved: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            let (public, refused): (Vec<SocketAddr>, Vec<SocketAddr>) = resolved
                .into_iter()
                .partition(|address| refusal(address.ip()).is_none());
            match (public.is_empty(), refused.is_empty()) {
                (false, _) => Ok(Box::new(public.into_iter()) as Addrs),
                // Which address a name resolves to inside the network is not told: the
                // error is shown to the webhook's owner, who is not to map the network.
                (true, false) => Err(Box::new(Refused(format!(
                    "refused: {host} resolves only to non-public addresses (private address refused)"
                ))) as _),
                (true, true) => Err(format!("{host} resolves to no address").into()),
            }
        })
    }
}

/// Builds the delivery client: no redirects (a 3xx is an answer, and following it could
/// lead anywhere), no proxy, no retries of its own, bounded connect and total time.
pub fn build(
    allow_private: bool,
    connect_timeout: Duration,
    timeout: Duration,
) -> reqwest::Result<Client> {
    // reqwest has no TLS provider of its own here (issue 33): without one, building panics.
    switchboard_storage::tls::install_ring();
    let builder = Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .retry(reqwest::retry::never())
        .connect_timeout(connect_timeout)
        .timeout(timeout)
        .user_agent(concat!("Switchboard-Webhooks/", env!("CARGO_PKG_VERSION")));
    if allow_private {
        builder.build()
    } else {
        builder.dns_resolver(Arc::new(PublicOnly)).build()
    }
}

/// Checks a URL's host when it is an IP literal (names are checked by the resolver).
pub fn check_literal(url: &Url) -> Result<(), Refused> {
    let host = url
        .host_str()
        .ok_or_else(|| Refused("refused: the URL has no host".into()))?;
    // The URL parser has already normalised IPv4 spellings (`2130706433`, `0x7f.1`) to
    // dotted quads and wrapped IPv6 literals in brackets.
    let literal = host.trim_start_matches('[').trim_end_matches(']');
    let Ok(ip) = literal.parse::<IpAddr>() else {
        return Ok(());
    };
    match refusal(ip) {
        Some(why) => Err(Refused(format!("refused: {ip} is {why}"))),
        None => Ok(()),
    }
}

/// What came back from one request.
#[derive(Debug)]
pub struct Answer {
    /// The status.
    pub status: reqwest::StatusCode,
    /// The `Retry-After` header, if any.
    pub retry_after: Option<String>,
    /// The first bytes of the body (at most [`EXCERPT_BYTES`]), as text.
    pub excerpt: String,
}

/// Sends `request`, reading at most [`EXCERPT_BYTES`] of the answer (the rest is never
/// read); the error text follows the cause chain, so a refused address says so.
pub async fn send(request: RequestBuilder) -> Result<Answer, String> {
    let response = request.send().await.map_err(|e| describe(&e))?;
    let status = response.status();
    let retry_after = response
        .headers()
        .get(reqwest::header::RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let mut body = response.bytes_stream();
    let mut excerpt = Vec::with_capacity(EXCERPT_BYTES);
    while excerpt.len() < EXCERPT_BYTES {
        match body.next().await {
            Some(Ok(chunk)) => {
                let room = EXCERPT_BYTES - excerpt.len();
                excerpt.extend_from_slice(&chunk[..chunk.len().min(room)]);
            }
            // The status is what counts; a body cut short leaves a shorter excerpt.
            Some(Err(_)) | None => break,
        }
    }
    Ok(Answer {
        status,
        retry_after,
        excerpt: String::from_utf8_lossy(&excerpt).into_owned(),
    })
}

/// An error and its causes, most specific last: `error sending request: …: refused: …`.
fn describe(error: &reqwest::Error) -> String {
    let kind = if error.is_timeout() {
        "timed out"
    } else if error.is_connect() {
        "could not connect"
    } else {
        "request failed"
    };
    let mut text = kind.to_owned();
    let mut source: Option<&dyn std::error::Error> = std::error::Error::source(error);
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn refused(text: &str) -> bool {
        refusal(text.parse().unwrap()).is_some()
    }

    #[test]
    fn non_public_addresses_are_refused() {
        for address in [
            "127.0.0.1",
            "127.8.9.1",
            "0.0.0.0",
            "0.1.2.3",
            "10.0.0.1",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "100.64.0.1",
            "100.127.255.255",
            "169.254.169.254",
            "192.0.0.8",
            "192.0.2.1",
            "198.51.100.1",
            "203.0.113.1",
            "192.88.99.1",
            "198.18.0.1",
            "198.19.255.1",
            "224.0.0.1",
            "239.255.255.250",
            "240.0.0.1",
            "255.255.255.255",
            "::",
            "::1",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
            "::ffff:169.254.169.254",
            "::127.0.0.1",
            "64:ff9b::a00:1",
            "64:ff9b:1::1",
            "100::1",
            "2001::1",
            "2001:db8::1",
            "3fff::1",
            "2002:7f00:1::1",
            "fc00::1",
            "fd12:3456::1",
            "fe80::1",
            "febf::1",
            "fec0::1",
            "ff02::1",
        ] {
            assert!(refused(address), "{address} should be refused");
        }
    }

    #[test]
    fn a_refusal_names_what_the_address_is() {
        // Each special range says what it is (the refusal's text reaches the webhook's
        // owner), even where a wider range would refuse it too.
        for (address, reason) in [
            ("0.0.0.0", "an unspecified address"),
            ("255.255.255.255", "the broadcast address"),
            ("192.88.99.1", "a 6to4 relay address"),
            ("::", "an unspecified address"),
            ("::1", "a loopback address"),
            ("2001::1", "an IETF protocol assignment"),
            ("2001:1ff::1", "an IETF protocol assignment"),
            ("2001:db8::1", "a documentation address"),
        ] {
            assert_eq!(refusal(address.parse().unwrap()), Some(reason), "{address}");
        }
    }

    #[test]
    fn public_addresses_pass() {
        for address in [
            "1.1.1.1",
            "8.8.8.8",
            "172.32.0.1",
            "100.128.0.1",
            "192.0.1.1",
            "198.20.0.1",
            "2606:4700:4700::1111",
            "2a00:1450:4001::1",
            // 2001::/23 is IETF's; the rest of 2001::/16 is ordinary unicast.
            "2001:200::1",
            "2001:4860:4860::8888",
            "::ffff:8.8.8.8",
        ] {
            assert!(!refused(address), "{address} should pass");
        }
    }

    #[test]
    fn ip_literals_are_checked_before_sending() {
        for url in [
            "http://127.0.0.1:8080/",
            "http://[::ffff:127.0.0.1]:80/",
            "http://[::1]/",
            "http://169.254.169.254/latest/meta-data/",
            "http://2130706433/",
            "http://0x7f.1/",
        ] {
            assert!(check_literal(&Url::parse(url).unwrap()).is_err(), "{url}");
        }
        assert!(check_literal(&Url::parse("https://example.com/").unwrap()).is_ok());
        assert!(check_literal(&Url::parse("http://8.8.8.8/").unwrap()).is_ok());
    }

    /// A one-connection HTTP server on a loopback port: it reads the request's head,
    /// writes each part of `answer` a moment apart (so they reach the client as separate
    /// reads), then holds the connection open, answering nothing more, until the returned
    /// sender is dropped.
    fn receiver(answer: Vec<Vec<u8>>) -> (SocketAddr, std::sync::mpsc::Sender<()>) {
        use std::io::{BufRead, BufReader, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        let (release, released) = std::sync::mpsc::channel::<()>();
        std::thread::spawn(move || {
            let Ok((mut stream, _)) = listener.accept() else {
                return;
            };
            let mut head = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            while head.read_line(&mut line).unwrap_or(0) > 2 {
                line.clear();
            }
            for part in answer {
                if stream
                    .write_all(&part)
                    .and_then(|()| stream.flush())
                    .is_err()
                {
                    return;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
            let _ = released.recv();
        });
        (address, release)
    }

    #[tokio::test]
    async fn an_answer_is_read_no_further_than_its_excerpt() {
        // An answer whose body never ends: the first EXCERPT_BYTES are kept, across two
        // reads, and the delivery is done without waiting for the rest (a receiver cannot
        // hold a worker until the time limit by streaming).
        let (address, _release) = receiver(vec![
            b"HTTP/1.1 200 OK\r\nRetry-After: 7\r\nConnection: close\r\n\r\n".to_vec(),
            vec![b'a'; EXCERPT_BYTES - 24],
            vec![b'b'; 100],
            vec![b'c'; 100],
        ]);
        let client = build(true, Duration::from_secs(5), Duration::from_secs(60)).unwrap();
        let sent = send(client.post(format!("http://{address}/hook")));
        let answer = tokio::time::timeout(Duration::from_secs(20), sent)
            .await
            .expect("the rest of the body is not waited for")
            .unwrap();
        assert_eq!(answer.status, 200);
        assert_eq!(answer.retry_after.as_deref(), Some("7"));
        assert_eq!(
            answer.excerpt,
            format!("{}{}", "a".repeat(EXCERPT_BYTES - 24), "b".repeat(24))
        );
    }

    #[tokio::test]
    async fn a_redirect_is_an_answer_and_is_not_followed() {
        let (elsewhere, _elsewhere_release) = receiver(vec![
            b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".to_vec(),
        ]);
        let (address, _release) = receiver(vec![
            format!(
                "HTTP/1.1 302 Found\r\nLocation: http://{elsewhere}/\r\nContent-Length: 0\r\n\r\n"
            )
            .into_bytes(),
        ]);
        let client = build(true, Duration::from_secs(5), Duration::from_secs(20)).unwrap();
        let answer = send(client.post(format!("http://{address}/hook")))
            .await
            .unwrap();
        assert_eq!(answer.status, 302);
        assert_eq!(answer.excerpt, "");
    }

    #[tokio::test]
    async fn a_name_resolving_only_to_private_addresses_is_refused_saying_why() {
        // localhost is the loopback address: the delivery client never connects to it,
        // and its error says so (the webhook's owner reads it in the delivery log).
        let (address, _release) = receiver(vec![
            b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".to_vec(),
        ]);
        let client = build(false, Duration::from_secs(5), Duration::from_secs(20)).unwrap();
        let error = send(client.post(format!("http://localhost:{}/hook", address.port())))
            .await
            .unwrap_err();
        assert!(error.starts_with("could not connect: "), "{error}");
        assert!(
            error.ends_with(
                ": refused: localhost resolves only to non-public addresses (private address refused)"
            ),
            "{error}"
        );
        // Each cause is named once, however many layers repeat it.
        assert_eq!(error.matches("refused: localhost").count(), 1, "{error}");
    }

    #[tokio::test]
    async fn a_receiver_that_never_answers_times_out() {
        let (address, _release) = receiver(vec![]);
        let client = build(true, Duration::from_secs(5), Duration::from_secs(1)).unwrap();
        let sent = send(client.post(format!("http://{address}/hook")));
        let error = tokio::time::timeout(Duration::from_secs(20), sent)
            .await
            .expect("the client's own time limit ends the wait")
            .unwrap_err();
        assert!(error.starts_with("timed out"), "{error}");
    }
}
