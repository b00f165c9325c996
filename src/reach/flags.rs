//! Standalone mode: `--endpoints`, `--cacert/--cert/--key`, `--user/--password`
//! (or the matching `ETCDCTL_*` variables, which clap already merged) → `Target`.
//!
//! Validation happens here, before any connection, so that a mistake is a
//! usage error (exit 2) that names the flag rather than a confusing TLS or
//! connection failure later.

use crate::cli::GlobalArgs;
use crate::error::{Error, Result};
use crate::reach::tls::ClientIdentity;
use crate::reach::{
    Credentials, Dial, Endpoint, QuotaFallback, QuotaSource, Scheme, Target, TlsMaterial,
};

/// Builds the standalone target. `read` loads a file named by a flag (the
/// real one is `std::fs::read`); tests pass an in-memory table.
pub fn target_from_flags(
    args: &GlobalArgs,
    read: impl Fn(&str) -> std::io::Result<Vec<u8>>,
) -> Result<Target> {
    let raw: Vec<&str> = args
        .endpoints
        .iter()
        .map(|s| s.trim())
        .filter(|s| !s.is_empty())
        .collect();
    if raw.is_empty() {
        return Err(Error::usage(
            "no etcd endpoints: pass --endpoints URL[,URL…] or set ETCDCTL_ENDPOINTS",
        ));
    }

    let load = |flag: &'static str, path: &str| -> Result<Vec<u8>> {
        let bytes = read(path).map_err(|source| Error::ReadFile {
            flag,
            path: path.to_string(),
            source,
        })?;
        if !String::from_utf8_lossy(&bytes).contains("-----BEGIN ") {
            return Err(Error::usage(format!(
                "{flag}: {path} is not a PEM file (no -----BEGIN line)"
            )));
        }
        Ok(bytes)
    };

    let identity = match (&args.cert, &args.key) {
        (Some(cert), Some(key)) => Some(ClientIdentity {
            cert_pem: load("--cert", cert)?,
            key_pem: load("--key", key)?,
        }),
        (Some(_), None) => return Err(Error::usage("--cert needs --key (the client private key)")),
        (None, Some(_)) => return Err(Error::usage("--key needs --cert (the client certificate)")),
        (None, None) => None,
    };
    let tls = match &args.cacert {
        Some(path) => Some(TlsMaterial {
            ca_pem: load("--cacert", path)?,
            identity,
            ca_origin: path.clone(),
        }),
        None if identity.is_some() => {
            return Err(Error::usage(
                "--cert/--key need --cacert: the server certificate is always verified",
            ))
        }
        None => None,
    };

    let default_scheme = if tls.is_some() {
        Scheme::Https
    } else {
        Scheme::Http
    };
    let mut dials: Vec<Dial> = Vec::new();
    for text in raw {
        let endpoint = Endpoint::parse(text, default_scheme)?;
        match (endpoint.scheme, tls.is_some()) {
            (Scheme::Https, false) => {
                return Err(Error::usage(format!(
                    "--endpoints: {endpoint} uses https but no --cacert was given; pass the CA that signed the members' certificates (verification is never switched off)"
                )))
            }
            (Scheme::Http, true) => {
                return Err(Error::usage(format!(
                    "--endpoints: {endpoint} is plaintext http but --cacert was given; use https:// (or drop the TLS flags)"
                )))
            }
            _ => {}
        }
        let dial = Dial::new(endpoint);
        if !dials.contains(&dial) {
            dials.push(dial);
        }
    }

    let credentials = match (&args.user, &args.password) {
        (Some(user), Some(password)) => Some(Credentials {
            user: user.clone(),
            password: password.clone(),
        }),
        (Some(user), None) => match user.split_once(':') {
            Some((name, password)) if !name.is_empty() => Some(Credentials {
                user: name.to_string(),
                password: password.to_string(),
            }),
            _ => {
                return Err(Error::usage(format!(
                    "--user {user}: no password; pass --password (or ETCDCTL_PASSWORD) or --user NAME:PASSWORD"
                )))
            }
        },
        (None, Some(_)) => return Err(Error::usage("--password needs --user")),
        (None, None) => None,
    };
    if let Some(c) = &credentials {
        if c.user.is_empty() {
            return Err(Error::usage("--user: empty user name"));
        }
    }

    let quota = match args.quota_backend_bytes {
        Some(0) => return Err(Error::usage("--quota-backend-bytes must be greater than 0")),
        Some(bytes) => QuotaFallback {
            bytes,
            source: QuotaSource::Flag,
        },
        None => QuotaFallback::default(),
    };

    Ok(Target {
        known: Vec::new(),
        dials,
        discover: !args.no_discover,
        tls,
        credentials,
        quota,
        cluster: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::Cli;
    use clap::Parser;

    const PEM: &[u8] = b"-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";

    fn files(path: &str) -> std::io::Result<Vec<u8>> {
        match path {
            "ca.pem" | "client.pem" | "client-key.pem" => Ok(PEM.to_vec()),
            "notpem.txt" => Ok(b"hello".to_vec()),
            _ => Err(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                "No such file or directory",
            )),
        }
    }

    fn target(argv: &[&str]) -> Result<Target> {
        let mut full = vec!["kubectl-etcd"];
        full.extend_from_slice(argv);
        full.push("members");
        let cli = Cli::try_parse_from(full).map_err(|e| Error::usage(e.to_string()))?;
        target_from_flags(&cli.global, files)
    }

    fn usage_message(argv: &[&str]) -> String {
        match target(argv) {
            Err(Error::Usage(m)) => m,
            Err(Error::ReadFile { flag, path, .. }) => format!("read {flag} {path}"),
            other => panic!("{argv:?}: expected a usage error, got {other:?}"),
        }
    }

    #[test]
    fn valid_flag_sets_build_a_target() {
        let t = target(&[
            "--endpoints",
            "127.0.0.1:2379,127.0.0.1:2379,http://127.0.0.2:2379",
        ])
        .ok()
        .map(|t| {
            t.dials
                .iter()
                .map(|d| d.endpoint.to_string())
                .collect::<Vec<_>>()
        });
        assert_eq!(
            t,
            Some(vec![
                "http://127.0.0.1:2379".to_string(),
                "http://127.0.0.2:2379".to_string()
            ])
        );

        let t = target(&[
            "--endpoints=127.0.0.1:2379",
            "--cacert=ca.pem",
            "--cert=client.pem",
            "--key=client-key.pem",
            "--user=root:secret:with:colons",
            "--no-discover",
            "--quota-backend-bytes=8Gi",
        ]);
        let t = match t {
            Ok(t) => t,
            Err(e) => panic!("{e}"),
        };
        assert_eq!(t.dials[0].endpoint.scheme, Scheme::Https);
        assert!(t.tls.as_ref().is_some_and(|tls| tls.identity.is_some()));
        assert_eq!(
            t.credentials,
            Some(Credentials {
                user: "root".into(),
                password: "secret:with:colons".into()
            })
        );
        assert!(!t.discover);
        assert_eq!(
            t.quota,
            QuotaFallback {
                bytes: 8 << 30,
                source: QuotaSource::Flag
            }
        );
    }

    #[test]
    fn bad_flag_sets_name_the_flag() {
        let cases: &[(&[&str], &str)] = &[
            (&[], "--endpoints"),
            (&["--endpoints", "https://127.0.0.1:2379"], "no --cacert"),
            (
                &["--endpoints", "http://127.0.0.1:2379", "--cacert", "ca.pem"],
                "plaintext http",
            ),
            (
                &[
                    "--endpoints",
                    "127.0.0.1:2379",
                    "--cacert",
                    "ca.pem",
                    "--cert",
                    "client.pem",
                ],
                "--cert needs --key",
            ),
            (
                &[
                    "--endpoints",
                    "127.0.0.1:2379",
                    "--cacert",
                    "ca.pem",
                    "--key",
                    "client-key.pem",
                ],
                "--key needs --cert",
            ),
            (
                &[
                    "--endpoints",
                    "127.0.0.1:2379",
                    "--cert",
                    "client.pem",
                    "--key",
                    "client-key.pem",
                ],
                "need --cacert",
            ),
            (
                &["--endpoints", "127.0.0.1:2379", "--cacert", "missing.pem"],
                "read --cacert missing.pem",
            ),
            (
                &["--endpoints", "127.0.0.1:2379", "--cacert", "notpem.txt"],
                "not a PEM file",
            ),
            (
                &["--endpoints", "127.0.0.1:2379", "--user", "root"],
                "--user root: no password",
            ),
            (
                &["--endpoints", "127.0.0.1:2379", "--password", "x"],
                "--password needs --user",
            ),
            (&["--endpoints", "127.0.0.1"], "missing port"),
            (
                &[
                    "--endpoints",
                    "127.0.0.1:2379",
                    "--quota-backend-bytes",
                    "0",
                ],
                "--quota-backend-bytes",
            ),
        ];
        for (argv, want) in cases {
            let message = usage_message(argv);
            assert!(
                message.contains(want),
                "{argv:?}: {message:?} lacks {want:?}"
            );
        }
    }
}
