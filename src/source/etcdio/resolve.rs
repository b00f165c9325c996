//! The etcd project's operator, the pure half: its EtcdCluster, its Pods
//! and its client TLS Secret → the members to dial, TLS and quota, and
//! what its objects say of the cluster. `source::etcdio` does the reading.
//!
//! What the operator publishes (read in its source, main at 77c7f10): a
//! StatefulSet `<name>` whose Pods `<name>-<i>` run etcd with `--name` set
//! to the Pod's name, behind a headless Service `<name>`, advertising
//! `http://<pod>.<name>.<ns>.svc.cluster.local:2379`; the members in
//! `status.members[]` (IDs in hex); the Secrets `<name>-{client,server,
//! peer}-tls` when `spec.tls` is set, while etcd itself still serves plain
//! HTTP unless `spec.etcdOptions` says otherwise. No auth, no client
//! Service.
//!
//! Invariants as for every kind: the CA comes from a Secret and is
//! required for a TLS member (never skipped verification).

use crate::look::OperatorSays;
use crate::plan::doctor::ClusterSpecFacts;
use crate::reach::tls::ClientIdentity;
use crate::reach::{ClusterRef, QuotaFallback, QuotaSource, Scheme, TlsMaterial};
use crate::source::{Resolved, ResolvedMember};

use super::objects::{client_tls_secret, ClusterObjects, EtcdCluster};
use crate::source::pods::flag_value;

/// Resolves the cluster. Errors are complete sentences naming the object.
pub fn resolve(objects: &ClusterObjects) -> Result<Resolved, String> {
    let ns = &objects.namespace;
    let name = objects.cluster.metadata.name.clone().unwrap_or_default();
    let what = format!("EtcdCluster {ns}/{name} ({})", super::objects::GROUP);
    let members = members_to_dial(objects, &name, &what)?;
    let mut notes = Vec::new();
    let scheme = served_scheme(objects);
    let tls = match scheme {
        Scheme::Https => Some(tls_of(objects, &name, &what)?),
        Scheme::Http => {
            if let Some(warning) = plaintext_beside_tls(objects) {
                notes.push(warning);
            }
            None
        }
    };
    Ok(Resolved {
        cluster: ClusterRef::new(ns.clone(), name),
        scheme,
        members,
        tls,
        credentials: None,
        quota: quota_of(&objects.cluster),
        notes,
    })
}

/// The members: those the operator lists in `status.members[]`, else (a
/// cluster it has not looked at yet) its Pods; sorted by name. A member's
/// Pod is named as the member (`--name=$(POD_NAME)`).
fn members_to_dial(
    objects: &ClusterObjects,
    name: &str,
    what: &str,
) -> Result<Vec<ResolvedMember>, String> {
    let ns = &objects.namespace;
    let listed: Vec<(String, Option<u64>)> = match objects.cluster.status.as_ref() {
        Some(s) if !s.members.is_empty() => s
            .members
            .iter()
            .filter(|m| !m.name.is_empty())
            .map(|m| (m.name.clone(), u64::from_str_radix(&m.id, 16).ok()))
            .collect(),
        _ => objects.pods.keys().map(|p| (p.clone(), None)).collect(),
    };
    let mut members: Vec<ResolvedMember> = listed
        .into_iter()
        .map(|(member, member_id)| {
            let facts = objects.pods.get(&member);
            ResolvedMember {
                dns_name: format!("{member}.{name}.{ns}.svc.cluster.local"),
                pod_ip: facts.and_then(|f| f.ip.clone()),
                probes: facts.and_then(|f| f.probes.clone()),
                pod: member.clone(),
                name: member,
                member_id,
            }
        })
        .collect();
    members.sort_by(|a, b| a.name.cmp(&b.name));
    members.dedup_by(|a, b| a.name == b.name);
    if members.is_empty() {
        return Err(format!(
            "{what} has no members yet (its status lists none and no Pod labelled {} exists); nothing to connect to",
            super::objects::pod_selector(name)
        ));
    }
    Ok(members)
}

/// The etcd arguments that decide how the client port is served: a
/// member Pod's (they are the operator's defaults with `spec.etcdOptions`
/// in place), else the spec's options alone.
fn client_args(objects: &ClusterObjects) -> Vec<String> {
    objects
        .pods
        .values()
        .map(|p| p.args.clone())
        .find(|a| !a.is_empty())
        .or_else(|| objects.cluster.spec.etcd_options.clone())
        .unwrap_or_default()
}

/// HTTPS when the members listen or advertise `https://` client URLs, else
/// plain HTTP (the operator's default today).
fn served_scheme(objects: &ClusterObjects) -> Scheme {
    let args = client_args(objects);
    let https = ["--listen-client-urls", "--advertise-client-urls"]
        .iter()
        .filter_map(|f| flag_value(&args, f))
        .any(|v| v.split(',').any(|u| u.trim().starts_with("https://")));
    if https {
        Scheme::Https
    } else {
        Scheme::Http
    }
}

/// The warning for members that serve plain HTTP while the operator made
/// TLS Secrets for them (its issues 372 and 373): the keyspace is open to
/// anyone on the cluster network. `None` when the spec asks for no TLS.
pub fn plaintext_beside_tls(objects: &ClusterObjects) -> Option<String> {
    objects.cluster.spec.tls.as_ref()?;
    let ns = &objects.namespace;
    let name = objects.cluster.metadata.name.clone().unwrap_or_default();
    Some(format!(
        "EtcdCluster {ns}/{name} asks for TLS (spec.tls; the operator made Secret {ns}/{}) but its members serve plain HTTP on their client port: anyone on the cluster network can read and write the keyspace. Until the operator serves TLS itself, add https client URLs and the server certificate's flags to spec.etcdOptions",
        client_tls_secret(&name)
    ))
}

/// TLS from the client Secret `<name>-client-tls`: its `ca.crt` verifies
/// the members, its keypair is the client identity.
fn tls_of(objects: &ClusterObjects, name: &str, what: &str) -> Result<TlsMaterial, String> {
    let ns = &objects.namespace;
    let secret = client_tls_secret(name);
    let data = match &objects.client_tls {
        Some(Some(data)) => data,
        _ => {
            return Err(format!(
                "{what}: its members serve HTTPS but client TLS Secret {ns}/{secret} not found"
            ))
        }
    };
    let key = |k: &str| match data.get(k) {
        Some(v) if !v.is_empty() => Ok(v.clone()),
        _ => Err(format!(
            "{what}: client TLS Secret {ns}/{secret} has no {k:?} key"
        )),
    };
    let ca = key("ca.crt")?;
    if !String::from_utf8_lossy(&ca).contains("-----BEGIN CERTIFICATE-----") {
        return Err(format!(
            "{what}: \"ca.crt\" in client TLS Secret {ns}/{secret} is not a PEM certificate"
        ));
    }
    Ok(TlsMaterial {
        ca_pem: ca,
        identity: Some(ClientIdentity {
            cert_pem: key("tls.crt")?,
            key_pem: key("tls.key")?,
        }),
        ca_origin: format!("Secret {ns}/{secret}"),
    })
}

/// The quota for members that do not report their own (etcd < 3.6):
/// `--quota-backend-bytes` in `spec.etcdOptions`, else etcd's default.
fn quota_of(cluster: &EtcdCluster) -> QuotaFallback {
    let options = cluster.spec.etcd_options.clone().unwrap_or_default();
    match flag_value(&options, "--quota-backend-bytes")
        .and_then(|v| v.parse::<u64>().ok())
        .filter(|q| *q > 0)
    {
        Some(bytes) => QuotaFallback {
            bytes,
            source: QuotaSource::Cluster,
        },
        None => QuotaFallback::default(),
    }
}

/// What the EtcdCluster's status says of the cluster.
pub fn operator_says(cluster: &EtcdCluster) -> OperatorSays {
    let status = cluster.status.as_ref();
    OperatorSays {
        available: status
            .and_then(|s| s.conditions.iter().find(|c| c.type_ == "Available"))
            .map(|c| (c.status == "True", c.reason.clone(), c.message.clone())),
        ready_members: status.and_then(|s| s.ready_replicas),
        replicas: cluster.spec.size,
        version: status
            .and_then(|s| s.current_version.clone())
            .filter(|v| !v.is_empty())
            .or_else(|| cluster.spec.version.clone()),
    }
}

/// What `doctor` checks of the spec: the compaction flags in
/// `spec.etcdOptions`, and plain HTTP served beside the TLS Secrets.
pub fn spec_facts(objects: &ClusterObjects) -> ClusterSpecFacts {
    let cluster = &objects.cluster;
    let options = cluster.spec.etcd_options.clone().unwrap_or_default();
    let name = cluster.metadata.name.clone().unwrap_or_default();
    ClusterSpecFacts {
        auto_compaction_mode: flag_value(&options, "--auto-compaction-mode").map(str::to_string),
        auto_compaction_retention: flag_value(&options, "--auto-compaction-retention")
            .map(str::to_string),
        plaintext_beside_tls: (served_scheme(objects) == Scheme::Http
            && cluster.spec.tls.is_some())
        .then(|| format!("{}/{}", objects.namespace, client_tls_secret(&name))),
    }
}

/// The reference a report carries for an EtcdCluster of this kind.
impl From<&EtcdCluster> for ClusterRef {
    fn from(cluster: &EtcdCluster) -> Self {
        ClusterRef::new(
            cluster.metadata.namespace.clone().unwrap_or_default(),
            cluster.metadata.name.clone().unwrap_or_default(),
        )
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::collections::BTreeMap;

    use super::super::objects::*;
    use super::*;
    use crate::source::pods::PodFacts;

    const PEM: &[u8] = b"-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";

    fn objects(
        spec: serde_json::Value,
        status: serde_json::Value,
        pods: &[(&str, &[&str])],
    ) -> ClusterObjects {
        let mut cluster: EtcdCluster = serde_json::from_value(serde_json::json!({
            "apiVersion": "operator.etcd.io/v1alpha1", "kind": "EtcdCluster",
            "metadata": {"name": "db", "namespace": "ns"},
            "spec": spec,
        }))
        .unwrap();
        cluster.status = serde_json::from_value(status).unwrap();
        ClusterObjects {
            namespace: "ns".into(),
            cluster,
            pods: pods
                .iter()
                .map(|(name, args)| {
                    (
                        name.to_string(),
                        PodFacts {
                            ip: Some(format!("10.0.0.{}", name.len())),
                            args: args.iter().map(|a| a.to_string()).collect(),
                            ..Default::default()
                        },
                    )
                })
                .collect(),
            client_tls: None,
        }
    }

    const DEFAULTS: &[&str] = &[
        "/usr/local/bin/etcd",
        "--name=$(POD_NAME)",
        "--listen-client-urls=http://0.0.0.0:2379",
        "--advertise-client-urls=http://$(POD_NAME).db.$(POD_NAMESPACE).svc.cluster.local:2379",
    ];

    #[test]
    fn members_come_from_the_status_else_the_pods() {
        let status = serde_json::json!({"members": [
            {"name": "db-1", "id": "8e9e05c52164694d", "isHealthy": true},
            {"name": "db-0", "id": "91bc3c398fb3c146", "isHealthy": true, "isLeader": true},
        ]});
        let listed = objects(
            serde_json::json!({"size": 2}),
            status,
            &[("db-0", DEFAULTS)],
        );
        let r = resolve(&listed).unwrap();
        let got: Vec<_> = r
            .members
            .iter()
            .map(|m| {
                (
                    m.name.as_str(),
                    m.member_id,
                    m.pod_ip.is_some(),
                    m.dns_name.as_str(),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                (
                    "db-0",
                    Some(0x91bc3c398fb3c146),
                    true,
                    "db-0.db.ns.svc.cluster.local"
                ),
                (
                    "db-1",
                    Some(0x8e9e05c52164694d),
                    false,
                    "db-1.db.ns.svc.cluster.local"
                ),
            ]
        );
        let early = objects(
            serde_json::json!({"size": 2}),
            serde_json::Value::Null,
            &[("db-1", DEFAULTS), ("db-0", DEFAULTS)],
        );
        let names: Vec<_> = resolve(&early)
            .unwrap()
            .members
            .into_iter()
            .map(|m| (m.name, m.member_id))
            .collect();
        assert_eq!(
            names,
            [("db-0".to_string(), None), ("db-1".to_string(), None)]
        );
        let none = objects(serde_json::json!({"size": 3}), serde_json::Value::Null, &[]);
        let err = resolve(&none).unwrap_err();
        assert!(
            err.contains("EtcdCluster ns/db (operator.etcd.io) has no members yet"),
            "{err}"
        );
        assert!(err.contains("app=db,controller=db"), "{err}");
    }

    #[test]
    fn plain_http_beside_tls_secrets_is_said_and_https_needs_the_client_secret() {
        // The operator's own defaults: plain HTTP, no TLS asked, nothing said.
        let plain = objects(
            serde_json::json!({"size": 1}),
            serde_json::Value::Null,
            &[("db-0", DEFAULTS)],
        );
        let r = resolve(&plain).unwrap();
        assert_eq!(
            (r.scheme, r.tls.is_none(), r.notes.len()),
            (Scheme::Http, true, 0)
        );

        // TLS asked: the Secrets exist, the members still serve HTTP.
        let asked = objects(
            serde_json::json!({"size": 1, "tls": {"provider": "auto"}}),
            serde_json::Value::Null,
            &[("db-0", DEFAULTS)],
        );
        let r = resolve(&asked).unwrap();
        assert_eq!(r.scheme, Scheme::Http);
        assert!(
            r.notes[0].contains("anyone on the cluster network can read and write"),
            "{:?}",
            r.notes
        );
        assert!(r.notes[0].contains("ns/db-client-tls"), "{:?}", r.notes);
        assert_eq!(
            spec_facts(&asked).plaintext_beside_tls.as_deref(),
            Some("ns/db-client-tls")
        );

        // Served over TLS (etcdOptions replacing the defaults): the client
        // Secret's CA and keypair, required.
        let https: &[&str] = &[
            "--listen-client-urls=https://0.0.0.0:2379",
            "--advertise-client-urls=https://$(POD_NAME).db.$(POD_NAMESPACE).svc.cluster.local:2379",
        ];
        let mut served = objects(
            serde_json::json!({"size": 1, "tls": {}}),
            serde_json::Value::Null,
            &[("db-0", https)],
        );
        let err = resolve(&served).unwrap_err();
        assert!(
            err.contains("client TLS Secret ns/db-client-tls not found"),
            "{err}"
        );
        let keys = |pairs: &[(&str, &[u8])]| {
            Some(
                pairs
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_vec()))
                    .collect::<BTreeMap<_, _>>(),
            )
        };
        served.client_tls = Some(keys(&[("ca.crt", PEM), ("tls.crt", b"c")]));
        let err = resolve(&served).unwrap_err();
        assert!(err.contains("has no \"tls.key\" key"), "{err}");
        served.client_tls = Some(keys(&[
            ("ca.crt", b"junk"),
            ("tls.crt", b"c"),
            ("tls.key", b"k"),
        ]));
        assert!(resolve(&served)
            .unwrap_err()
            .contains("not a PEM certificate"));
        served.client_tls = Some(keys(&[
            ("ca.crt", PEM),
            ("tls.crt", b"c"),
            ("tls.key", b"k"),
        ]));
        let r = resolve(&served).unwrap();
        let tls = r.tls.unwrap();
        assert_eq!(
            (r.scheme, tls.ca_origin.as_str()),
            (Scheme::Https, "Secret ns/db-client-tls")
        );
        assert!(r.notes.is_empty());
        assert_eq!(spec_facts(&served).plaintext_beside_tls, None);
        // Before any Pod exists, the spec's options decide.
        let spec_only = objects(
            serde_json::json!({"size": 1, "etcdOptions": ["--listen-client-urls=https://0.0.0.0:2379"]}),
            serde_json::json!({"members": [{"name": "db-0", "id": "1"}]}),
            &[],
        );
        assert!(resolve(&spec_only)
            .unwrap_err()
            .contains("db-client-tls not found"));
    }

    #[test]
    fn quota_and_compaction_come_from_the_etcd_options() {
        let cases: &[(&[&str], QuotaFallback, Option<&str>)] = &[
            (&[], QuotaFallback::default(), None),
            (
                &[
                    "--quota-backend-bytes=8589934592",
                    "--auto-compaction-mode=periodic",
                ],
                QuotaFallback {
                    bytes: 8 << 30,
                    source: QuotaSource::Cluster,
                },
                Some("periodic"),
            ),
            (
                &["--quota-backend-bytes 4294967296"],
                QuotaFallback {
                    bytes: 4 << 30,
                    source: QuotaSource::Cluster,
                },
                None,
            ),
            (
                &["--quota-backend-bytes=8Gi"],
                QuotaFallback::default(),
                None,
            ),
            (&["--quota-backend-bytes=0"], QuotaFallback::default(), None),
        ];
        for (options, quota, mode) in cases {
            let o = objects(
                serde_json::json!({"size": 1, "etcdOptions": options}),
                serde_json::Value::Null,
                &[("db-0", DEFAULTS)],
            );
            assert_eq!(resolve(&o).unwrap().quota, *quota, "{options:?}");
            assert_eq!(spec_facts(&o).auto_compaction_mode.as_deref(), *mode);
            assert_eq!(spec_facts(&o).plaintext_beside_tls, None);
        }
    }

    #[test]
    fn the_operator_says_what_its_status_holds() {
        let o = objects(
            serde_json::json!({"size": 3, "version": "v3.6.4"}),
            serde_json::json!({"readyReplicas": 2, "currentVersion": "3.6.5",
                "conditions": [{"type": "Available", "status": "False", "reason": "ClusterNotReady",
                                "message": "2 of 3 ready", "lastTransitionTime": "2026-01-01T00:00:00Z"}]}),
            &[],
        );
        let says = operator_says(&o.cluster);
        assert_eq!(
            says,
            OperatorSays {
                available: Some((false, "ClusterNotReady".into(), "2 of 3 ready".into())),
                ready_members: Some(2),
                replicas: Some(3),
                version: Some("3.6.5".into()),
            }
        );
        let fresh = objects(
            serde_json::json!({"size": 1, "version": "v3.6.4"}),
            serde_json::Value::Null,
            &[],
        );
        assert_eq!(
            operator_says(&fresh.cluster).version.as_deref(),
            Some("v3.6.4")
        );
    }

    #[test]
    fn flag_values_in_every_form() {
        let args: Vec<String> = ["--a=1", "--b", "2", "--c 3", "--a=4", "--ab=5"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(flag_value(&args, "--a"), Some("4"));
        assert_eq!(flag_value(&args, "--b"), Some("2"));
        assert_eq!(flag_value(&args, "--c"), Some("3"));
        assert_eq!(flag_value(&args, "--d"), None);
    }
}
