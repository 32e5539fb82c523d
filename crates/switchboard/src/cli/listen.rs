//! `--http PORT | HOST:PORT | IP:PORT`: where `serve` and `proxy` listen,
//! and `--allow-origin ORIGIN`: which browser pages may call them.
//!
//! The command line is checked when it is parsed (a wrong form is a usage
//! error); a host name is resolved only when the command runs, so a name
//! that does not resolve is an I/O failure like an address that cannot be
//! bound.

use std::net::{Ipv4Addr, SocketAddr, ToSocketAddrs as _};

use anyhow::Context as _;

/// What `--http` names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ListenAddr {
    /// An address given as such (a bare port is 127.0.0.1:PORT).
    Addr(SocketAddr),
    /// A host name and a port, resolved by [`ListenAddr::resolve`].
    Name { host: String, port: u16 },
}

impl ListenAddr {
    /// Parses `PORT`, `IP:PORT`, `[IPv6]:PORT` or `HOST:PORT` (clap's value
    /// parser: the message follows clap's "invalid value" line).
    pub(crate) fn parse(text: &str) -> Result<Self, String> {
        const FORMS: &str = "give PORT (on 127.0.0.1), HOST:PORT or IP:PORT, e.g. 8080, localhost:8080, \
                             127.0.0.1:8080 or [::1]:8080";
        if let Ok(port) = text.parse::<u16>() {
            return Ok(Self::Addr(SocketAddr::from((Ipv4Addr::LOCALHOST, port))));
        }
        if let Ok(addr) = text.parse::<SocketAddr>() {
            return Ok(Self::Addr(addr));
        }
        if text.starts_with('[') {
            return Err(format!(
                "{text:?} is not an address; an IPv6 address goes in brackets, then the port, e.g. [::1]:8080"
            ));
        }
        let Some((host, port)) = text.rsplit_once(':') else {
            return Err(format!("no port; {FORMS}"));
        };
        let port =
            port.parse::<u16>().map_err(|_| format!("{port:?} is not a port (0 to 65535); {FORMS}"))?;
        if host.is_empty() {
            return Err(format!("no host before the port; {FORMS}"));
        }
        if host.contains(':') || host.starts_with('[') {
            return Err(format!(
                "{host:?} is not an address; an IPv6 address goes in brackets, e.g. [::1]:{port}"
            ));
        }
        if !host.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.' || c == '_') {
            return Err(format!("{host:?} is not a host name; {FORMS}"));
        }
        Ok(Self::Name { host: host.to_owned(), port })
    }

    /// The address to bind: the address given, or the name's first
    /// loopback address, else its first address.
    pub(crate) fn resolve(&self) -> anyhow::Result<SocketAddr> {
        match self {
            Self::Addr(addr) => Ok(*addr),
            Self::Name { host, port } => {
                let addrs: Vec<SocketAddr> = (host.as_str(), *port)
                    .to_socket_addrs()
                    .with_context(|| format!("resolving the --http host name {host:?}"))?
                    .collect();
                let chosen = pick(&addrs)
                    .with_context(|| format!("the --http host name {host:?} resolves to no address"))?;
                if addrs.len() > 1 {
                    tracing::info!(%host, ?addrs, %chosen, "the host name resolves to several addresses");
                }
                Ok(chosen)
            }
        }
    }
}

impl std::fmt::Display for ListenAddr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Addr(addr) => write!(f, "{addr}"),
            Self::Name { host, port } => write!(f, "{host}:{port}"),
        }
    }
}

/// The first loopback address, else the first.
fn pick(addrs: &[SocketAddr]) -> Option<SocketAddr> {
    addrs.iter().find(|a| a.ip().is_loopback()).or(addrs.first()).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_parses() {
        let v4 = |port| ListenAddr::Addr(SocketAddr::from((Ipv4Addr::LOCALHOST, port)));
        assert_eq!(ListenAddr::parse("8080"), Ok(v4(8080)));
        assert_eq!(ListenAddr::parse("0"), Ok(v4(0)));
        assert_eq!(ListenAddr::parse("127.0.0.1:9"), Ok(v4(9)));
        assert_eq!(ListenAddr::parse("[::1]:80"), Ok(ListenAddr::Addr("[::1]:80".parse().unwrap())));
        assert_eq!(
            ListenAddr::parse("localhost:8080"),
            Ok(ListenAddr::Name { host: "localhost".into(), port: 8080 })
        );
        assert_eq!(
            ListenAddr::parse("mcp.example.com:443"),
            Ok(ListenAddr::Name { host: "mcp.example.com".into(), port: 443 })
        );
        for bad in [
            "",
            "localhost",
            "localhost:",
            ":80",
            "localhost:99999",
            "::1:80",
            "[x]:1",
            "a b:1",
            "65536",
            "[::1",
            "[::1]",
        ] {
            assert!(ListenAddr::parse(bad).is_err(), "{bad:?} was accepted");
        }
    }

    #[test]
    fn a_name_binds_its_first_loopback_address() {
        let a = |s: &str| s.parse::<SocketAddr>().unwrap();
        assert_eq!(pick(&[a("192.0.2.1:1"), a("[::1]:1"), a("127.0.0.1:1")]), Some(a("[::1]:1")));
        assert_eq!(pick(&[a("192.0.2.1:1"), a("192.0.2.2:1")]), Some(a("192.0.2.1:1")));
        assert_eq!(pick(&[]), None);
        let local = ListenAddr::parse("localhost:0").unwrap().resolve().unwrap();
        assert!(local.ip().is_loopback() && local.port() == 0, "{local}");
    }
}

/// Checks an `--allow-origin` value: `http://` or `https://`, a host and an
/// optional port, nothing after (an `Origin` header never has a path). `*`
/// is refused: every origin is named on purpose (clap's value parser).
pub(crate) fn parse_origin(text: &str) -> Result<String, String> {
    let origin = text.trim().trim_end_matches('/');
    let authority = origin.strip_prefix("https://").or_else(|| origin.strip_prefix("http://"));
    match authority {
        Some(authority)
            if !authority.is_empty()
                && !authority.contains(['/', '?', '#', '@', '*'])
                && !authority.contains(char::is_whitespace) =>
        {
            Ok(origin.to_ascii_lowercase())
        }
        _ => Err(format!(
            "give a browser origin, scheme://host[:port], e.g. https://app.example.com or \
             http://localhost:5173 (no path, no wildcard); got {text:?}"
        )),
    }
}

#[cfg(test)]
mod origin_tests {
    use super::parse_origin;

    #[test]
    fn origins_are_scheme_host_and_port_only() {
        assert_eq!(parse_origin("https://App.example.com/").unwrap(), "https://app.example.com");
        assert_eq!(parse_origin("http://localhost:5173").unwrap(), "http://localhost:5173");
        for bad in ["*", "app.example.com", "https://", "https://a.example/path", "ftp://a.example", "null"] {
            assert!(parse_origin(bad).is_err(), "{bad}");
        }
    }
}
