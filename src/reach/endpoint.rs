//! Parsing etcd client URLs the way etcdctl accepts them.

use std::fmt;

use crate::error::{Error, Result};

/// Transport security of an endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scheme {
    Http,
    Https,
}

/// A validated etcd client URL: scheme, host and port, nothing else.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Endpoint {
    pub scheme: Scheme,
    pub host: String,
    pub port: u16,
}

impl Endpoint {
    /// Parses one endpoint. `default_scheme` applies to `host:port` without a
    /// scheme (https when a CA was given, as etcdctl does). The error names
    /// the offending text and says what a valid one looks like.
    pub fn parse(text: &str, default_scheme: Scheme) -> Result<Endpoint> {
        let bad = |why: &str| {
            Error::usage(format!(
                "--endpoints: invalid endpoint {text:?}: {why} (expected e.g. https://10.0.0.1:2379 or 127.0.0.1:2379)"
            ))
        };
        let trimmed = text.trim();
        if trimmed.is_empty() {
            return Err(bad("empty"));
        }
        let with_scheme = if trimmed.contains("://") {
            trimmed.to_string()
        } else {
            let scheme = match default_scheme {
                Scheme::Http => "http",
                Scheme::Https => "https",
            };
            format!("{scheme}://{trimmed}")
        };
        let url = url::Url::parse(&with_scheme).map_err(|e| bad(&e.to_string()))?;
        let scheme = match url.scheme() {
            "http" => Scheme::Http,
            "https" => Scheme::Https,
            other => {
                return Err(bad(&format!(
                    "unsupported scheme {other:?}, use http or https"
                )))
            }
        };
        if !url.username().is_empty() || url.password().is_some() {
            return Err(bad(
                "credentials belong in --user/--password, not in the URL",
            ));
        }
        if url.query().is_some() || url.fragment().is_some() || !matches!(url.path(), "" | "/") {
            return Err(bad("a path, query or fragment is not allowed"));
        }
        let host = match url.host() {
            Some(url::Host::Domain(d)) => d.to_string(),
            Some(url::Host::Ipv4(ip)) => ip.to_string(),
            Some(url::Host::Ipv6(ip)) => format!("[{ip}]"),
            None => return Err(bad("missing host")),
        };
        let port = url
            .port()
            .ok_or_else(|| bad("missing port (etcd has no default port in a URL)"))?;
        if port == 0 {
            return Err(bad("port 0"));
        }
        Ok(Endpoint { scheme, host, port })
    }

    /// The URL form handed to the transport (`https://host:port`).
    pub fn url(&self) -> String {
        self.to_string()
    }

    /// The host without IPv6 brackets, as certificates name it.
    pub fn host_for_tls(&self) -> &str {
        self.host.trim_start_matches('[').trim_end_matches(']')
    }
}

impl fmt::Display for Endpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let scheme = match self.scheme {
            Scheme::Http => "http",
            Scheme::Https => "https",
        };
        write!(f, "{scheme}://{}:{}", self.host, self.port)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_parse_like_etcdctl() {
        let cases: &[(&str, Scheme, &str)] = &[
            ("127.0.0.1:2379", Scheme::Http, "http://127.0.0.1:2379"),
            ("127.0.0.1:2379", Scheme::Https, "https://127.0.0.1:2379"),
            (
                "http://10.0.0.1:2379",
                Scheme::Https,
                "http://10.0.0.1:2379",
            ),
            (
                "https://etcd-0.etcd.ns.svc:2379/",
                Scheme::Http,
                "https://etcd-0.etcd.ns.svc:2379",
            ),
            ("https://[::1]:2379", Scheme::Http, "https://[::1]:2379"),
            (" localhost:2379 ", Scheme::Http, "http://localhost:2379"),
        ];
        for (input, default, want) in cases {
            let got = Endpoint::parse(input, *default).map(|e| e.to_string());
            assert_eq!(got.ok().as_deref(), Some(*want), "{input}");
        }
    }

    #[test]
    fn malformed_endpoints_name_the_input() {
        for input in [
            "",
            "127.0.0.1",
            "https://127.0.0.1",
            "ftp://127.0.0.1:2379",
            "http://u:p@127.0.0.1:2379",
            "http://127.0.0.1:2379/v3",
            "http://127.0.0.1:99999",
            "http://:2379",
            "not a url",
        ] {
            match Endpoint::parse(input, Scheme::Http) {
                Err(Error::Usage(message)) => {
                    assert!(
                        message.starts_with("--endpoints: invalid endpoint"),
                        "{message}"
                    );
                    assert!(message.contains(&format!("{input:?}")), "{message}");
                }
                other => panic!("{input:?} gave {other:?}"),
            }
        }
    }

    #[test]
    fn ipv6_host_for_tls_drops_brackets() {
        let ep = Endpoint::parse("https://[::1]:2379", Scheme::Http).ok();
        assert_eq!(ep.as_ref().map(|e| e.host_for_tls()), Some("::1"));
    }
}
