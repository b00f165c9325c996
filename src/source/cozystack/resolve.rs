//! Plugin mode, the pure half: EtcdCluster + EtcdMembers + Pods + Secrets →
//! the members to dial, TLS, credentials and quota (docs/contract.md#members-to-dial
//! and the three sections after it). `source::cozystack::fetch` does the reading; this module only
//! decides, so every rule here is table-tested without an API server.
//!
//! Invariants: a member with a deletion timestamp or `spec.dormant` is never
//! dialed; the CA always comes from the server Secret and is required (no
//! fallback to skipping verification); credentials are sent only once the
//! operator has turned auth on (`status.authEnabled`).

use std::collections::BTreeMap;

pub use super::objects::{auth_active, secret_names, ClusterObjects, SecretData, SecretRole};
use crate::k8s::crd::{EtcdCluster, EtcdMember, HEADLESS_SERVICE_ANNOTATION};
use crate::reach::tls::ClientIdentity;
use crate::reach::{
    ClusterRef, Credentials, QuotaFallback, QuotaSource, Scheme, TlsMaterial, DEFAULT_QUOTA_BYTES,
};
use crate::source::{Resolved, ResolvedMember};

/// Resolves the cluster. Errors are complete sentences naming the object
/// and, for Secrets, the missing key.
pub fn resolve(objects: &ClusterObjects) -> Result<Resolved, String> {
    let ns = &objects.namespace;
    let cluster_name = objects.cluster.metadata.name.clone().unwrap_or_default();
    let what = format!("EtcdCluster {ns}/{cluster_name}");
    let members = members_to_dial(objects, &cluster_name, &what)?;
    let mut notes = Vec::new();
    let secrets = Secrets::new(objects, &what);
    let (scheme, tls) = tls_of(&secrets, &mut notes)?;
    let credentials = credentials_of(&secrets)?;
    let quota = quota_of(objects);
    Ok(Resolved {
        cluster: ClusterRef::new(ns.clone(), cluster_name),
        scheme,
        members,
        tls,
        credentials,
        quota,
        notes,
    })
}

/// The members to dial: active (not being deleted) and running (not
/// dormant), sorted by name.
fn members_to_dial(
    objects: &ClusterObjects,
    cluster_name: &str,
    what: &str,
) -> Result<Vec<ResolvedMember>, String> {
    let ns = &objects.namespace;
    let mut members = Vec::new();
    let mut skipped = Vec::new();
    let mut sorted: Vec<&EtcdMember> = objects.members.iter().collect();
    sorted.sort_by(|a, b| a.metadata.name.cmp(&b.metadata.name));
    for m in sorted {
        let name = m.metadata.name.clone().unwrap_or_default();
        if m.metadata.deletion_timestamp.is_some() {
            skipped.push(format!("{name} (being deleted)"));
            continue;
        }
        if m.spec.dormant == Some(true) {
            skipped.push(format!("{name} (dormant)"));
            continue;
        }
        let service = m
            .metadata
            .annotations
            .as_ref()
            .and_then(|a| a.get(HEADLESS_SERVICE_ANNOTATION))
            .filter(|s| !s.is_empty())
            .cloned()
            .unwrap_or_else(|| {
                if m.spec.cluster_name.is_empty() {
                    cluster_name.to_string()
                } else {
                    m.spec.cluster_name.to_string()
                }
            });
        let pod = m.pod_name().unwrap_or_default();
        let member_id = m
            .status
            .as_ref()
            .and_then(|s| s.member_id.as_deref())
            .and_then(|id| u64::from_str_radix(id, 16).ok());
        members.push(ResolvedMember {
            member_id,
            dns_name: format!("{name}.{service}.{ns}.svc"),
            pod_ip: objects.pod_ips.get(&pod).cloned(),
            probes: objects.probes.get(&pod).cloned(),
            pod,
            name,
        });
    }
    if members.is_empty() {
        let detail = if skipped.is_empty() {
            "no EtcdMember carries its label".to_string()
        } else {
            format!("only {}", skipped.join(", "))
        };
        return Err(format!(
            "{what} has no running members ({detail}); nothing to connect to"
        ));
    }
    Ok(members)
}

/// The Secrets an EtcdCluster's spec names, read for one resolve; errors
/// name the cluster, the Secret and the key.
struct Secrets<'a> {
    objects: &'a ClusterObjects,
    roles: Vec<(String, SecretRole)>,
    what: &'a str,
}

impl<'a> Secrets<'a> {
    fn new(objects: &'a ClusterObjects, what: &'a str) -> Secrets<'a> {
        Secrets {
            roles: secret_names(&objects.cluster),
            objects,
            what,
        }
    }

    /// The name of the Secret in `role`, when the spec names one.
    fn name(&self, role: SecretRole) -> Option<String> {
        self.roles
            .iter()
            .find(|(_, r)| *r == role)
            .map(|(n, _)| n.clone())
    }

    fn data(&self, name: &str, role: SecretRole) -> Result<&'a BTreeMap<String, Vec<u8>>, String> {
        let (what, ns) = (self.what, &self.objects.namespace);
        match self.objects.secrets.get(name) {
            Some(Some(data)) => Ok(data),
            _ => Err(format!("{what}: {} {ns}/{name} not found", role.describe())),
        }
    }

    fn key(
        &self,
        data: &BTreeMap<String, Vec<u8>>,
        name: &str,
        key: &str,
        role: SecretRole,
    ) -> Result<Vec<u8>, String> {
        let (what, ns) = (self.what, &self.objects.namespace);
        match data.get(key) {
            Some(v) if !v.is_empty() => Ok(v.clone()),
            _ => Err(format!(
                "{what}: {} {ns}/{name} has no {key:?} key",
                role.describe()
            )),
        }
    }
}

/// TLS: the server Secret's CA, and the client identity (the
/// operator-client Secret, else the server keypair, which carries
/// clientAuth on these clusters).
fn tls_of(
    secrets: &Secrets<'_>,
    notes: &mut Vec<String>,
) -> Result<(Scheme, Option<TlsMaterial>), String> {
    let (what, ns, objects) = (secrets.what, &secrets.objects.namespace, secrets.objects);
    let (scheme, tls) = match secrets.name(SecretRole::Server) {
        None => (Scheme::Http, None),
        Some(server) => {
            let data = secrets.data(&server, SecretRole::Server)?;
            let ca = secrets.key(data, &server, "ca.crt", SecretRole::Server)?;
            if !String::from_utf8_lossy(&ca).contains("-----BEGIN CERTIFICATE-----") {
                return Err(format!(
                    "{what}: \"ca.crt\" in server TLS Secret {ns}/{server} is not a PEM certificate"
                ));
            }
            let identity = match secrets.name(SecretRole::OperatorClient) {
                None => None,
                Some(client) => match objects.secrets.get(&client) {
                    Some(Some(cdata)) => Some(ClientIdentity {
                        cert_pem: secrets.key(
                            cdata,
                            &client,
                            "tls.crt",
                            SecretRole::OperatorClient,
                        )?,
                        key_pem: secrets.key(
                            cdata,
                            &client,
                            "tls.key",
                            SecretRole::OperatorClient,
                        )?,
                    }),
                    _ => {
                        // The server keypair carries clientAuth and is a valid
                        // client identity on these clusters
                        // (docs/contract.md#the-server-keypair-as-a-client).
                        notes.push(format!(
                            "operator-client TLS Secret {ns}/{client} not found; presenting the server certificate from {ns}/{server} as the client identity"
                        ));
                        Some(ClientIdentity {
                            cert_pem: secrets.key(data, &server, "tls.crt", SecretRole::Server)?,
                            key_pem: secrets.key(data, &server, "tls.key", SecretRole::Server)?,
                        })
                    }
                },
            };
            (
                Scheme::Https,
                Some(TlsMaterial {
                    ca_pem: ca,
                    identity,
                    ca_origin: format!("Secret {ns}/{server}"),
                }),
            )
        }
    };
    Ok((scheme, tls))
}

/// Auth: the root credentials, sent only once the operator has turned
/// auth on.
fn credentials_of(secrets: &Secrets<'_>) -> Result<Option<Credentials>, String> {
    let (what, objects) = (secrets.what, secrets.objects);
    let credentials = match secrets.name(SecretRole::RootCredentials) {
        None if auth_active(&objects.cluster) => {
            return Err(format!(
                "{what}: auth is enabled but spec.auth.rootCredentialsSecretRef names no Secret"
            ))
        }
        None => None,
        Some(name) => {
            let data = secrets.data(&name, SecretRole::RootCredentials)?;
            let password = secrets.key(data, &name, "password", SecretRole::RootCredentials)?;
            Some(Credentials {
                user: "root".to_string(),
                password: String::from_utf8_lossy(&password).into_owned(),
            })
        }
    };
    Ok(credentials)
}

/// The quota for members that do not report their own (etcd < 3.6): the
/// one the operator observed, else the spec's, else etcd's default.
fn quota_of(objects: &ClusterObjects) -> QuotaFallback {
    let observed = objects
        .cluster
        .status
        .as_ref()
        .and_then(|s| s.observed.as_ref())
        .and_then(|o| o.options.as_ref())
        .and_then(|o| o.quota_backend_bytes);
    let specified = objects
        .cluster
        .spec
        .options
        .as_ref()
        .and_then(|o| o.quota_backend_bytes);
    match observed.filter(|q| *q > 0).or(specified.filter(|q| *q > 0)) {
        Some(q) => QuotaFallback {
            bytes: u64::try_from(q).unwrap_or(DEFAULT_QUOTA_BYTES),
            source: QuotaSource::Cluster,
        },
        None => QuotaFallback::default(),
    }
}

/// The reference a report carries for an EtcdCluster.
impl From<&EtcdCluster> for crate::reach::ClusterRef {
    fn from(cluster: &EtcdCluster) -> Self {
        crate::reach::ClusterRef::new(
            cluster.metadata.namespace.clone().unwrap_or_default(),
            cluster.metadata.name.clone().unwrap_or_default(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::k8s::crd::*;

    const PEM: &[u8] = b"-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";

    fn cluster(tls: Option<ClientTls>, auth: Option<(bool, bool)>) -> EtcdCluster {
        let mut c = EtcdCluster::new(
            "etcd",
            EtcdClusterSpec {
                tls: tls.map(|client| ClusterTls {
                    client: Some(client),
                }),
                auth: auth.map(|(enabled, _)| ClusterAuth {
                    enabled: Some(enabled),
                    root_credentials_secret_ref: Some(NameRef {
                        name: "root".into(),
                    }),
                }),
                ..Default::default()
            },
        );
        c.status = Some(EtcdClusterStatus {
            auth_enabled: auth.map(|(_, on)| on),
            ..Default::default()
        });
        c
    }

    fn member(name: &str, f: impl FnOnce(&mut EtcdMember)) -> EtcdMember {
        let mut m = EtcdMember::new(
            name,
            EtcdMemberSpec {
                cluster_name: "etcd".into(),
                dormant: None,
            },
        );
        f(&mut m);
        m
    }

    fn secret(keys: &[(&str, &[u8])]) -> SecretData {
        Some(
            keys.iter()
                .map(|(k, v)| (k.to_string(), v.to_vec()))
                .collect(),
        )
    }

    fn objects(cluster: EtcdCluster, secrets: Vec<(&str, SecretData)>) -> ClusterObjects {
        ClusterObjects {
            namespace: "ns".into(),
            cluster,
            members: vec![
                member("etcd-bbbbb", |_| {}),
                member("etcd-aaaaa", |_| {}),
                member("etcd-ccccc", |_| {}),
            ],
            pod_ips: [("etcd-aaaaa".to_string(), "10.1.0.5".to_string())].into(),
            probes: Default::default(),
            placement: Vec::new(),
            secrets: secrets
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
        }
    }

    fn byo(mtls: bool) -> ClientTls {
        ClientTls {
            server_secret_ref: Some(NameRef { name: "srv".into() }),
            operator_client_secret_ref: mtls.then(|| NameRef { name: "cli".into() }),
            cert_manager: None,
        }
    }

    #[test]
    fn plaintext_cluster_resolves_members_in_name_order() {
        let r = resolve(&objects(cluster(None, None), vec![])).unwrap();
        assert_eq!(r.scheme, Scheme::Http);
        assert!(r.tls.is_none() && r.credentials.is_none());
        let names: Vec<_> = r.members.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["etcd-aaaaa", "etcd-bbbbb", "etcd-ccccc"]);
        assert_eq!(r.members[0].dns_name, "etcd-aaaaa.etcd.ns.svc");
        assert_eq!(r.members[0].pod_ip.as_deref(), Some("10.1.0.5"));
        assert_eq!(r.members[1].pod_ip, None);
        assert_eq!(r.quota, QuotaFallback::default());
        assert_eq!(r.cluster, ClusterRef::new("ns", "etcd"));
    }

    #[test]
    fn tls_modes_pick_the_right_secrets() {
        let server = secret(&[("ca.crt", PEM), ("tls.crt", b"S"), ("tls.key", b"SK")]);
        let client = secret(&[("tls.crt", b"C"), ("tls.key", b"CK")]);

        let r = resolve(&objects(
            cluster(Some(byo(false)), None),
            vec![("srv", server.clone())],
        ))
        .unwrap();
        let tls = r.tls.unwrap();
        assert_eq!(r.scheme, Scheme::Https);
        assert!(tls.identity.is_none());
        assert_eq!(tls.ca_origin, "Secret ns/srv");

        let r = resolve(&objects(
            cluster(Some(byo(true)), None),
            vec![("srv", server.clone()), ("cli", client.clone())],
        ))
        .unwrap();
        assert_eq!(r.tls.unwrap().identity.unwrap().cert_pem, b"C");

        let cm = ClientTls {
            server_secret_ref: None,
            operator_client_secret_ref: None,
            cert_manager: Some(CertManager {
                server_issuer_ref: Some(serde_json::json!({"name": "ca"})),
                operator_client_issuer_ref: Some(serde_json::json!({"name": "ca"})),
            }),
        };
        let names: Vec<_> = secret_names(&cluster(Some(cm.clone()), None))
            .into_iter()
            .map(|(n, _)| n)
            .collect();
        assert_eq!(names, ["etcd-server-tls", "etcd-operator-client-tls"]);
        let r = resolve(&objects(
            cluster(Some(cm), None),
            vec![
                ("etcd-server-tls", server.clone()),
                ("etcd-operator-client-tls", client),
            ],
        ))
        .unwrap();
        assert!(r.tls.unwrap().identity.is_some());

        // The operator-client Secret is gone: fall back to the server keypair, and say so.
        let r = resolve(&objects(
            cluster(Some(byo(true)), None),
            vec![("srv", server), ("cli", None)],
        ))
        .unwrap();
        assert_eq!(r.tls.unwrap().identity.unwrap().cert_pem, b"S");
        assert_eq!(r.notes.len(), 1);
    }

    #[test]
    fn missing_secrets_and_keys_are_named() {
        type Case<'a> = (EtcdCluster, Vec<(&'a str, SecretData)>, &'a str);
        let cases: Vec<Case> = vec![
            (
                cluster(Some(byo(false)), None),
                vec![],
                "server TLS Secret ns/srv not found",
            ),
            (
                cluster(Some(byo(false)), None),
                vec![("srv", secret(&[("tls.crt", b"x")]))],
                "ns/srv has no \"ca.crt\" key",
            ),
            (
                cluster(Some(byo(false)), None),
                vec![("srv", secret(&[("ca.crt", b"junk")]))],
                "not a PEM certificate",
            ),
            (
                cluster(Some(byo(true)), None),
                vec![
                    ("srv", secret(&[("ca.crt", PEM)])),
                    ("cli", secret(&[("tls.crt", b"C")])),
                ],
                "operator-client TLS Secret ns/cli has no \"tls.key\" key",
            ),
            (
                cluster(Some(byo(false)), Some((true, true))),
                vec![
                    ("srv", secret(&[("ca.crt", PEM)])),
                    ("root", secret(&[("username", b"root")])),
                ],
                "root credentials Secret ns/root has no \"password\" key",
            ),
            (
                cluster(Some(byo(false)), Some((true, true))),
                vec![("srv", secret(&[("ca.crt", PEM)]))],
                "root credentials Secret ns/root not found",
            ),
        ];
        for (c, secrets, want) in cases {
            let err = resolve(&objects(c, secrets)).err().unwrap_or_default();
            assert!(err.contains(want), "{err:?} lacks {want:?}");
            assert!(err.starts_with("EtcdCluster ns/etcd"), "{err}");
        }
    }

    #[test]
    fn credentials_only_once_auth_is_on() {
        let server = secret(&[("ca.crt", PEM)]);
        let root = secret(&[("username", b"admin"), ("password", b"pw")]);
        let r = resolve(&objects(
            cluster(Some(byo(false)), Some((true, false))),
            vec![("srv", server.clone()), ("root", root.clone())],
        ))
        .unwrap();
        assert!(r.credentials.is_none(), "bootstrap window: anonymous");
        let r = resolve(&objects(
            cluster(Some(byo(false)), Some((true, true))),
            vec![("srv", server), ("root", root)],
        ))
        .unwrap();
        assert_eq!(
            r.credentials,
            Some(Credentials {
                user: "root".into(),
                password: "pw".into()
            })
        );
    }

    #[test]
    fn dormant_deleted_and_migrated_members() {
        let mut objs = objects(cluster(None, None), vec![]);
        objs.members = vec![
            member("etcd-aaaaa", |m| m.spec.dormant = Some(true)),
            member("etcd-bbbbb", |m| {
                m.metadata.deletion_timestamp = Some(
                    k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(Default::default()),
                )
            }),
            member("etcd-ccccc", |m| {
                m.metadata.annotations = Some(
                    [(
                        HEADLESS_SERVICE_ANNOTATION.to_string(),
                        "etcd-headless".to_string(),
                    )]
                    .into(),
                )
            }),
        ];
        let r = resolve(&objs).unwrap();
        assert_eq!(r.members.len(), 1);
        assert_eq!(r.members[0].dns_name, "etcd-ccccc.etcd-headless.ns.svc");

        objs.members.truncate(2);
        let err = resolve(&objs).err().unwrap_or_default();
        assert!(err.contains("has no running members"), "{err}");
        assert!(
            err.contains("etcd-aaaaa (dormant)") && err.contains("etcd-bbbbb (being deleted)"),
            "{err}"
        );
    }

    #[test]
    fn quota_prefers_observed_then_spec() {
        let mut c = cluster(None, None);
        c.spec.options = Some(ClusterOptions {
            quota_backend_bytes: Some(4 << 30),
            ..Default::default()
        });
        let r = resolve(&objects(c.clone(), vec![])).unwrap();
        assert_eq!(
            r.quota,
            QuotaFallback {
                bytes: 4 << 30,
                source: QuotaSource::Cluster
            }
        );
        c.status = Some(EtcdClusterStatus {
            observed: Some(Observed {
                replicas: Some(3),
                options: Some(ClusterOptions {
                    quota_backend_bytes: Some(8 << 30),
                    ..Default::default()
                }),
                ..Default::default()
            }),
            ..Default::default()
        });
        assert_eq!(resolve(&objects(c, vec![])).unwrap().quota.bytes, 8 << 30);
    }
}
