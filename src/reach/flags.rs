//! Standalone mode: `--endpoints`, `--cacert/--cert/--key`, `--user/--password`
//! (or the matching `ETCDCTL_*` variables, which clap already merged) → `Target`.
//!
//! Validation happens here, before any connection, so that a mistake is a
//! usage error (exit 2) that names where the value came from — the flag, or
//! the variable behind it — rather than a confusing TLS or connection
//! failure later.
//!
//! Precedence, for every setting: a flag beats its `ETCDCTL_*` variable,
//! which beats the default. For the password that means the levels, not the
//! single settings: `--user NAME:PASSWORD` and `--password` are the flag
//! level, `ETCDCTL_USER=NAME:PASSWORD` and `ETCDCTL_PASSWORD` the variable
//! level ([`choose_credentials`]).

use crate::error::{Error, Result};
use crate::reach::tls::{ClientIdentity, Secret, UserSpec};
use crate::reach::{
    ConnectMode, Credentials, Dial, Endpoint, QuotaFallback, QuotaSource, Scheme, Target,
    TlsMaterial,
};

/// The global connection flags, settled from the command line by
/// `settings` (a flag already merged with its `ETCDCTL_*` variable): what
/// standalone mode builds its `Target` from, and what plugin mode needs to
/// reach the API server and the member Pods.
#[derive(Debug, Clone)]
pub struct Flags {
    pub endpoints: Vec<String>,
    pub cacert: Option<String>,
    pub cert: Option<String>,
    pub key: Option<String>,
    pub user: Option<UserSpec>,
    pub password: Option<Secret>,
    pub no_discover: bool,
    pub dial_timeout: std::time::Duration,
    pub command_timeout: std::time::Duration,
    pub quota_backend_bytes: Option<u64>,
    pub kubeconfig: Option<String>,
    /// `--context`, the first when given more than once.
    pub context: Option<String>,
    /// Which contexts a command over many clusters reads.
    pub contexts: Contexts,
    pub namespace: Option<String>,
    pub as_user: Option<String>,
    pub as_group: Vec<String>,
    /// kubectl's `--request-timeout` (`Some(ZERO)`: no limit).
    pub request_timeout: Option<std::time::Duration>,
    pub connect: ConnectMode,
    /// The kind of cluster `--kind` names (`None`: every kind).
    pub kind: Option<super::Kind>,
    /// In an agent on a control plane's node: the cluster its command is
    /// about. The command runs standalone (on the `ETCDCTL_*` the agent
    /// was given), and its reports name this cluster.
    pub agent_of: Option<super::ClusterRef>,
    /// In such an agent: what the tool that started it knew of the
    /// cluster ([`AGENT_FACTS_ENV`]).
    pub agent_facts: super::AgentFacts,
    /// Which of them came from their variable, so an error names it.
    pub from_env: FromEnv,
}

/// The variable an agent's Job sets to the cluster (`namespace/name`) its
/// command is about ([`Flags::agent_of`]).
pub const AGENT_OF_ENV: &str = "KUBECTL_ETCD_AGENT_OF";

/// The variable an agent's Job sets to [`super::AgentFacts`], as JSON.
pub const AGENT_FACTS_ENV: &str = "KUBECTL_ETCD_AGENT_FACTS";

/// The variable an agent's Job sets when its command serves its answer on
/// a port of the node instead of its log (`snapshot save`): the SHA-256
/// (hex) of the token the one connection it serves must present
/// (`agent::serve`).
pub const AGENT_SERVE_ENV: &str = "KUBECTL_ETCD_AGENT_SERVE_SHA256";

/// Which kubeconfig contexts plugin mode reads.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Contexts {
    /// The kubeconfig's current context, or the one `--context` names.
    #[default]
    One,
    /// `--context` given more than once: these, in the order given, each
    /// once.
    Named(Vec<String>),
    /// `--all-contexts`: every context of the kubeconfig, in its order.
    All,
}

impl Contexts {
    /// The contexts the flags name: several `--context`, or
    /// `--all-contexts`. Pure.
    pub fn of(given: &[String], all: bool) -> Contexts {
        let mut named: Vec<String> = Vec::new();
        for c in given {
            if !named.contains(c) {
                named.push(c.clone());
            }
        }
        match (all, named.len()) {
            (true, _) => Contexts::All,
            (false, 0 | 1) => Contexts::One,
            (false, _) => Contexts::Named(named),
        }
    }

    /// Whether more than one context may be read.
    pub fn several(&self) -> bool {
        !matches!(self, Contexts::One)
    }

    /// The flag that asked for several contexts, as typed.
    pub fn flag(&self) -> String {
        match self {
            Contexts::One => String::new(),
            Contexts::Named(names) => names
                .iter()
                .map(|n| format!("--context {n}"))
                .collect::<Vec<_>>()
                .join(" "),
            Contexts::All => "--all-contexts".into(),
        }
    }
}

/// The ids (clap's) of the global flags whose value came from their variable.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FromEnv(pub Vec<String>);

impl FromEnv {
    pub fn has(&self, id: &str) -> bool {
        self.0.iter().any(|i| i == id)
    }
}

/// The global flags that have an `ETCDCTL_*` variable: clap id, flag,
/// variable.
const SOURCES: &[(&str, &str, &str)] = &[
    ("endpoints", "--endpoints", "ETCDCTL_ENDPOINTS"),
    ("cacert", "--cacert", "ETCDCTL_CACERT"),
    ("cert", "--cert", "ETCDCTL_CERT"),
    ("key", "--key", "ETCDCTL_KEY"),
    ("user", "--user", "ETCDCTL_USER"),
    ("password", "--password", "ETCDCTL_PASSWORD"),
    ("dial_timeout", "--dial-timeout", "ETCDCTL_DIAL_TIMEOUT"),
    (
        "command_timeout",
        "--command-timeout",
        "ETCDCTL_COMMAND_TIMEOUT",
    ),
];

/// How to name the setting `id` in a message: its variable when the value
/// came from there, else its flag.
pub fn named(args: &Flags, id: &str) -> &'static str {
    match SOURCES.iter().find(|(i, _, _)| *i == id) {
        Some((_, _, var)) if args.from_env.has(id) => var,
        Some((_, flag, _)) => flag,
        None => "",
    }
}

/// A user without a password: who, and which setting named them (for the
/// prompt, or the refusal when nobody can be asked).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PasswordWanted {
    pub user: String,
    pub named_by: &'static str,
}

/// What the user and password settings amount to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CredentialChoice {
    None,
    Given(Credentials),
    /// A user and no password: ask on a terminal (etcdctl does), else refuse.
    Ask(PasswordWanted),
}

/// Each level of the user and password settings, as given.
#[derive(Debug, Clone, Default)]
pub struct CredentialLayers {
    pub flag_user: Option<UserSpec>,
    pub flag_password: Option<Secret>,
    pub env_user: Option<UserSpec>,
    pub env_password: Option<Secret>,
}

/// The credentials the layers amount to. A flag beats its variable: the
/// user is `--user`, else `ETCDCTL_USER`; the password is taken from the
/// highest level that gives one (`--user NAME:PASSWORD` or `--password`,
/// else `ETCDCTL_USER=NAME:PASSWORD` or `ETCDCTL_PASSWORD`), and two at the
/// same level are refused rather than one picked silently. A variable's
/// password is used for a `--user` only when `ETCDCTL_USER` names that same
/// user or is unset. Errors never contain a password.
pub fn choose_credentials(layers: &CredentialLayers) -> Result<CredentialChoice, String> {
    let (user, user_from_flag) = match (&layers.flag_user, &layers.env_user) {
        (Some(u), _) => (u, true),
        (None, Some(u)) => (u, false),
        (None, None) => {
            return match (&layers.flag_password, &layers.env_password) {
                (Some(_), _) => Err("--password needs --user NAME (or ETCDCTL_USER)".into()),
                (None, Some(_)) => Err(
                    "ETCDCTL_PASSWORD is set but no user is: pass --user NAME or set ETCDCTL_USER"
                        .into(),
                ),
                (None, None) => Ok(CredentialChoice::None),
            };
        }
    };
    let named_by = if user_from_flag {
        "--user"
    } else {
        "ETCDCTL_USER"
    };
    if user.name.is_empty() {
        return Err(format!("{named_by}: empty user name"));
    }
    let given = |password: &Secret| {
        Ok(CredentialChoice::Given(Credentials {
            user: user.name.clone(),
            password: password.expose().to_string(),
        }))
    };

    // The flag level.
    let flag_own = user.password.as_ref().filter(|_| user_from_flag);
    match (flag_own, &layers.flag_password) {
        (Some(_), Some(_)) => {
            return Err(format!(
                "--user {}:… and --password both give a password: give it once",
                user.name
            ))
        }
        (Some(p), None) | (None, Some(p)) => return given(p),
        (None, None) => {}
    }

    // The variable level, when it is about this user.
    let env_user = layers.env_user.as_ref();
    if env_user.is_some_and(|e| e.name != user.name) {
        return Ok(CredentialChoice::Ask(PasswordWanted {
            user: user.name.clone(),
            named_by,
        }));
    }
    match (
        env_user.and_then(|e| e.password.as_ref()),
        &layers.env_password,
    ) {
        (Some(_), Some(_)) => Err(
            "ETCDCTL_USER holds NAME:PASSWORD and ETCDCTL_PASSWORD is set too: set only one".into(),
        ),
        (Some(p), None) | (None, Some(p)) => given(p),
        (None, None) => Ok(CredentialChoice::Ask(PasswordWanted {
            user: user.name.clone(),
            named_by,
        })),
    }
}

/// The levels from the parsed flags (clap merged each variable into its
/// flag; `from_env` says which) and the variables themselves.
fn credential_layers(args: &Flags, env: &dyn Fn(&str) -> Option<String>) -> CredentialLayers {
    let set = |var: &str| env(var).filter(|v| !v.is_empty());
    let (flag_user, env_user) = if args.from_env.has("user") {
        (None, args.user.clone())
    } else {
        (
            args.user.clone(),
            set("ETCDCTL_USER").map(|v| UserSpec::parse(&v)),
        )
    };
    let (flag_password, env_password) = if args.from_env.has("password") {
        (None, args.password.clone())
    } else {
        (
            args.password.clone(),
            set("ETCDCTL_PASSWORD").map(Secret::new),
        )
    };
    CredentialLayers {
        flag_user,
        flag_password,
        env_user,
        env_password,
    }
}

/// The labels of a PEM file's blocks (`CERTIFICATE`, `PRIVATE KEY`, …).
fn pem_labels(bytes: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(bytes)
        .lines()
        .filter_map(|l| l.trim().strip_prefix("-----BEGIN "))
        .filter_map(|l| l.strip_suffix("-----"))
        .map(str::to_string)
        .collect()
}

fn holds_certificate(labels: &[String]) -> bool {
    labels
        .iter()
        .any(|l| l == "CERTIFICATE" || l == "TRUSTED CERTIFICATE")
}

fn holds_key(labels: &[String]) -> bool {
    labels.iter().any(|l| l.ends_with("PRIVATE KEY"))
}

/// What a file holds, in words, for a message about the wrong kind.
fn holds(labels: &[String]) -> String {
    if holds_key(labels) {
        "it holds a private key".into()
    } else {
        format!("its PEM blocks are {}", labels.join(", "))
    }
}

/// A file named by a setting, as read.
struct PemFile<'a> {
    /// The flag or variable that named it.
    name: &'a str,
    path: &'a str,
    bytes: &'a [u8],
}

/// Checks that the CA, client certificate and key files each hold what
/// their setting is for, and says when a certificate and key were swapped.
fn check_pem_kinds(
    ca: Option<PemFile<'_>>,
    identity: Option<(PemFile<'_>, PemFile<'_>)>,
) -> Result<(), String> {
    if let Some(PemFile { name, path, bytes }) = ca {
        let labels = pem_labels(bytes);
        if !holds_certificate(&labels) {
            return Err(format!(
                "{name} {path} holds no certificate ({}): pass the CA certificate that signed the members' server certificates",
                holds(&labels)
            ));
        }
    }
    if let Some((
        PemFile {
            name: cert_name,
            path: cert_path,
            bytes: cert,
        },
        PemFile {
            name: key_name,
            path: key_path,
            bytes: key,
        },
    )) = identity
    {
        let (cert_labels, key_labels) = (pem_labels(cert), pem_labels(key));
        let cert_ok = holds_certificate(&cert_labels);
        let key_ok = holds_key(&key_labels);
        if !cert_ok && !key_ok && holds_key(&cert_labels) && holds_certificate(&key_labels) {
            return Err(format!(
                "{cert_name} {cert_path} holds a private key and {key_name} {key_path} holds a certificate: the two are swapped; pass --cert {key_path} --key {cert_path}"
            ));
        }
        if !cert_ok {
            return Err(format!(
                "{cert_name} {cert_path} holds no certificate ({}): pass the client certificate",
                holds(&cert_labels)
            ));
        }
        if !key_ok {
            return Err(format!(
                "{key_name} {key_path} holds no private key (its PEM blocks are {}): pass the client certificate's private key",
                key_labels.join(", ")
            ));
        }
        if crate::reach::tls::pair_matches(cert, key) == Some(false) {
            return Err(format!(
                "{cert_name} {cert_path} and {key_name} {key_path} are not a pair: that key is not the private key of that certificate; pass the key made with the certificate (or the certificate issued for the key)"
            ));
        }
    }
    Ok(())
}

/// Builds the standalone target. `read` loads a file named by a flag (the
/// real one is `std::fs::read`), `env` reads a variable, and `ask` gets a
/// password for a user given without one (a prompt on a terminal, else a
/// refusal); tests pass tables.
pub fn target_from_flags(
    args: &Flags,
    read: impl Fn(&str) -> std::io::Result<Vec<u8>>,
    env: impl Fn(&str) -> Option<String>,
    ask: impl FnOnce(&PasswordWanted) -> Result<Secret>,
) -> Result<Target> {
    let endpoints_name = named(args, "endpoints");
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

    let tls = tls_from_flags(args, &read)?;
    let dials = dials_from(&raw, tls.is_some(), endpoints_name)?;

    let credentials =
        match choose_credentials(&credential_layers(args, &env)).map_err(Error::Usage)? {
            CredentialChoice::None => None,
            CredentialChoice::Given(c) => Some(c),
            CredentialChoice::Ask(wanted) => Some(Credentials {
                user: wanted.user.clone(),
                password: ask(&wanted)?.expose().to_string(),
            }),
        };

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
        cluster: args.agent_of.clone(),
        release_hint: None,
        probes_by_name: args.agent_facts.probes.clone(),
    })
}

/// `--cacert`, `--cert` and `--key` read and checked: a PEM file each, the
/// client pair complete, a CA whenever a client identity is given (the
/// server certificate is always verified).
fn tls_from_flags(
    args: &Flags,
    read: &impl Fn(&str) -> std::io::Result<Vec<u8>>,
) -> Result<Option<TlsMaterial>> {
    let load = |id: &str, path: &str| -> Result<Vec<u8>> {
        let name = named(args, id);
        let bytes = read(path).map_err(|source| Error::ReadFile {
            flag: name,
            path: path.to_string(),
            source,
        })?;
        if !String::from_utf8_lossy(&bytes).contains("-----BEGIN ") {
            return Err(Error::usage(format!(
                "{name}: {path} is not a PEM file (no -----BEGIN line)"
            )));
        }
        Ok(bytes)
    };

    let (cert_name, key_name) = (named(args, "cert"), named(args, "key"));
    let identity = match (&args.cert, &args.key) {
        (Some(cert), Some(key)) => Some((cert, load("cert", cert)?, key, load("key", key)?)),
        (Some(_), None) => {
            return Err(Error::usage(format!(
                "{cert_name} needs --key (the client private key)"
            )))
        }
        (None, Some(_)) => {
            return Err(Error::usage(format!(
                "{key_name} needs --cert (the client certificate)"
            )))
        }
        (None, None) => None,
    };
    let ca = match &args.cacert {
        Some(path) => Some((path, load("cacert", path)?)),
        None if identity.is_some() => {
            return Err(Error::usage(
                "--cert/--key need --cacert: the server certificate is always verified",
            ))
        }
        None => None,
    };
    check_pem_kinds(
        ca.as_ref().map(|(path, bytes)| PemFile {
            name: named(args, "cacert"),
            path,
            bytes,
        }),
        identity.as_ref().map(|(cert, cert_pem, key, key_pem)| {
            (
                PemFile {
                    name: cert_name,
                    path: cert,
                    bytes: cert_pem,
                },
                PemFile {
                    name: key_name,
                    path: key,
                    bytes: key_pem,
                },
            )
        }),
    )
    .map_err(Error::Usage)?;
    let tls = ca.map(|(path, ca_pem)| TlsMaterial {
        ca_pem,
        identity: identity.map(|(_, cert_pem, _, key_pem)| ClientIdentity { cert_pem, key_pem }),
        // The file and the setting that named it (`--cacert`, or the
        // etcdctl variable), for a member whose certificate it did not sign.
        ca_origin: format!("{path} ({})", named(args, "cacert")),
    });
    Ok(tls)
}

/// The endpoints as dials, each once, every one's scheme agreeing with
/// whether TLS flags were given.
fn dials_from(raw: &[&str], tls: bool, endpoints_name: &str) -> Result<Vec<Dial>> {
    let default_scheme = if tls { Scheme::Https } else { Scheme::Http };
    let mut dials: Vec<Dial> = Vec::new();
    for text in raw.iter().copied() {
        let endpoint = Endpoint::parse(text, default_scheme).map_err(|e| match e {
            Error::Usage(m) if endpoints_name != "--endpoints" => {
                Error::Usage(m.replacen("--endpoints", endpoints_name, 1))
            }
            other => other,
        })?;
        match (endpoint.scheme, tls) {
            (Scheme::Https, false) => {
                return Err(Error::usage(format!(
                    "{endpoints_name}: {endpoint} uses https but no --cacert was given; pass the CA that signed the members' certificates (verification is never switched off)"
                )))
            }
            (Scheme::Http, true) => {
                return Err(Error::usage(format!(
                    "{endpoints_name}: {endpoint} is plaintext http but --cacert was given; use https:// (or drop the TLS flags)"
                )))
            }
            _ => {}
        }
        let dial = Dial::new(endpoint);
        if !dials.contains(&dial) {
            dials.push(dial);
        }
    }
    Ok(dials)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::Cli;
    use clap::Parser;

    const PEM: &[u8] = b"-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
    const KEY: &[u8] = b"-----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----\n";

    fn files(path: &str) -> std::io::Result<Vec<u8>> {
        match path {
            "ca.pem" | "client.pem" => Ok(PEM.to_vec()),
            "client-key.pem" => Ok(KEY.to_vec()),
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
        target_from_flags(
            &crate::settings::Global::from(&cli.global).reach,
            files,
            |_| None,
            no_terminal,
        )
    }

    fn no_terminal(wanted: &PasswordWanted) -> Result<Secret> {
        Err(Error::usage(format!("no terminal to ask {}", wanted.user)))
    }

    /// `argv` as if every flag in `from_env` had come from its variable.
    fn target_from(argv: &[&str], from_env: &[&str]) -> Result<Target> {
        let mut full = vec!["kubectl-etcd"];
        full.extend_from_slice(argv);
        full.push("members");
        let mut cli = Cli::try_parse_from(full).map_err(|e| Error::usage(e.to_string()))?;
        cli.global.from_env = FromEnv(from_env.iter().map(|s| s.to_string()).collect());
        target_from_flags(
            &crate::settings::Global::from(&cli.global).reach,
            files,
            |_| None,
            no_terminal,
        )
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
                "no terminal to ask root",
            ),
            (
                &["--endpoints", "127.0.0.1:2379", "--password", "x"],
                "--password needs --user",
            ),
            (
                &["--endpoints", "127.0.0.1:2379", "--user", ":x"],
                "--user: empty user name",
            ),
            (
                &["--endpoints", "127.0.0.1:2379", "--cacert", "client-key.pem"],
                "--cacert client-key.pem holds no certificate (it holds a private key)",
            ),
            (
                &[
                    "--endpoints",
                    "127.0.0.1:2379",
                    "--cacert",
                    "ca.pem",
                    "--cert",
                    "client-key.pem",
                    "--key",
                    "client.pem",
                ],
                "--cert client-key.pem holds a private key and --key client.pem holds a certificate: the two are swapped; pass --cert client.pem --key client-key.pem",
            ),
            (
                &[
                    "--endpoints",
                    "127.0.0.1:2379",
                    "--cacert",
                    "ca.pem",
                    "--cert",
                    "client.pem",
                    "--key",
                    "ca.pem",
                ],
                "--key ca.pem holds no private key",
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

    #[test]
    fn a_value_from_a_variable_is_named_by_the_variable() {
        let cases: &[(&[&str], &[&str], &str)] = &[
            (
                &["--endpoints", "127.0.0.1:2379", "--cacert", "missing.pem"],
                &["cacert"],
                "read ETCDCTL_CACERT missing.pem",
            ),
            (
                &["--endpoints", "127.0.0.1:2379", "--cacert", "missing.pem"],
                &[],
                "read --cacert missing.pem",
            ),
            (
                &["--endpoints", "127.0.0.1"],
                &["endpoints"],
                "ETCDCTL_ENDPOINTS: invalid endpoint",
            ),
            (
                &["--endpoints", "127.0.0.1:2379", "--cacert", "notpem.txt"],
                &["cacert"],
                "ETCDCTL_CACERT: notpem.txt is not a PEM file",
            ),
            (
                &[
                    "--endpoints",
                    "127.0.0.1:2379",
                    "--cacert",
                    "ca.pem",
                    "--cert",
                    "client-key.pem",
                    "--key",
                    "client.pem",
                ],
                &["cert", "key"],
                "ETCDCTL_CERT client-key.pem holds a private key and ETCDCTL_KEY client.pem holds a certificate",
            ),
        ];
        for (argv, from_env, want) in cases {
            let message = match target_from(argv, from_env) {
                Err(Error::Usage(m)) => m,
                Err(Error::ReadFile { flag, path, .. }) => format!("read {flag} {path}"),
                other => panic!("{argv:?}: expected a usage error, got {other:?}"),
            };
            assert!(
                message.contains(want),
                "{argv:?} {from_env:?}: {message:?} lacks {want:?}"
            );
        }
    }

    /// Precedence of the user and password settings: a flag beats its
    /// variable, two passwords at one level are refused, a variable's
    /// password is not paired with a different `--user`.
    #[test]
    fn credential_precedence() {
        fn user(s: &str) -> Option<UserSpec> {
            Some(UserSpec::parse(s))
        }
        fn pw(s: &str) -> Option<Secret> {
            Some(Secret::new(s))
        }
        fn given(user: &str, password: &str) -> Result<CredentialChoice, String> {
            Ok(CredentialChoice::Given(Credentials {
                user: user.into(),
                password: password.into(),
            }))
        }
        fn ask(user: &str, named_by: &'static str) -> Result<CredentialChoice, String> {
            Ok(CredentialChoice::Ask(PasswordWanted {
                user: user.into(),
                named_by,
            }))
        }
        let layers = |flag_user, flag_password, env_user, env_password| CredentialLayers {
            flag_user,
            flag_password,
            env_user,
            env_password,
        };
        let refused = |text: &str| Err::<CredentialChoice, String>(text.to_string());
        let cases = vec![
            ("nothing", layers(None, None, None, None), Ok(CredentialChoice::None)),
            ("--user name:pw", layers(user("root:pw1"), None, None, None), given("root", "pw1")),
            (
                "--user name:pw beats ETCDCTL_PASSWORD",
                layers(user("root:pw1"), None, None, pw("pw2")),
                given("root", "pw1"),
            ),
            (
                "--user name:pw beats ETCDCTL_USER and ETCDCTL_PASSWORD",
                layers(user("root:pw1"), None, user("alice:pw3"), pw("pw2")),
                given("root", "pw1"),
            ),
            (
                "--password beats ETCDCTL_PASSWORD",
                layers(user("root"), pw("pw1"), None, pw("pw2")),
                given("root", "pw1"),
            ),
            (
                "--password beats the password in ETCDCTL_USER",
                layers(None, pw("pw1"), user("root:pw2"), None),
                given("root", "pw1"),
            ),
            (
                "--user beats ETCDCTL_USER",
                layers(user("root"), pw("pw1"), user("alice"), None),
                given("root", "pw1"),
            ),
            (
                "ETCDCTL_PASSWORD completes --user",
                layers(user("root"), None, None, pw("pw2")),
                given("root", "pw2"),
            ),
            (
                "ETCDCTL_PASSWORD completes --user naming ETCDCTL_USER's user",
                layers(user("root"), None, user("root"), pw("pw2")),
                given("root", "pw2"),
            ),
            (
                "ETCDCTL_PASSWORD is not another user's password",
                layers(user("root"), None, user("alice"), pw("pw2")),
                ask("root", "--user"),
            ),
            (
                "variables alone",
                layers(None, None, user("root"), pw("pw2")),
                given("root", "pw2"),
            ),
            (
                "ETCDCTL_USER=name:pw alone",
                layers(None, None, user("root:pw2"), None),
                given("root", "pw2"),
            ),
            ("--user without a password", layers(user("root"), None, None, None), ask("root", "--user")),
            (
                "ETCDCTL_USER without a password",
                layers(None, None, user("root"), None),
                ask("root", "ETCDCTL_USER"),
            ),
            (
                "two passwords on the command line",
                layers(user("root:pw1"), pw("pw2"), None, None),
                refused("--user root:… and --password both give a password: give it once"),
            ),
            (
                "two passwords in the variables",
                layers(None, None, user("root:pw1"), pw("pw2")),
                refused("ETCDCTL_USER holds NAME:PASSWORD and ETCDCTL_PASSWORD is set too: set only one"),
            ),
            (
                "--password without a user",
                layers(None, pw("pw1"), None, None),
                refused("--password needs --user NAME (or ETCDCTL_USER)"),
            ),
            (
                "ETCDCTL_PASSWORD without a user",
                layers(None, None, None, pw("pw1")),
                refused("ETCDCTL_PASSWORD is set but no user is: pass --user NAME or set ETCDCTL_USER"),
            ),
            (
                "empty name",
                layers(user(":pw1"), None, None, None),
                refused("--user: empty user name"),
            ),
        ];
        for (what, layers, want) in cases {
            let got = choose_credentials(&layers);
            assert_eq!(got, want, "{what}");
            if let Err(message) = got {
                for secret in ["pw1", "pw2", "pw3"] {
                    assert!(
                        !message.contains(secret),
                        "{what}: {message:?} shows a password"
                    );
                }
            }
        }
    }

    /// The parsed flags' `Debug` (what a stray `{:?}` would log) shows the
    /// user name, never a password.
    #[test]
    fn parsed_flags_debug_shows_no_password() {
        let cli = Cli::try_parse_from([
            "kubectl-etcd",
            "--user=root:pw-in-user",
            "--password=pw-in-flag",
            "status",
        ])
        .unwrap_or_else(|e| panic!("{e}"));
        let shown = format!("{cli:?}");
        assert!(shown.contains("root"), "{shown}");
        assert!(
            !shown.contains("pw-in-user") && !shown.contains("pw-in-flag"),
            "{shown}"
        );
    }
}
