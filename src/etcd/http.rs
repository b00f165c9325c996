//! A member's HTTP side, on its client port: `/metrics` over one plain or
//! TLS connection of its own, or on the member's gRPC connection over TLS
//! (`get_on`), and the certificate chain the member served in a handshake
//! of its own (so `doctor` sees the certificate actually in use, even where
//! it came from a Secret that has since been renewed).
//!
//! TLS verification is the same as for gRPC: the target's CA, the member's
//! expected name, and our client certificate when we have one. HTTP/1.0 is
//! asked for so the body ends with the connection (no chunking to undo).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

use crate::look::MemberMetrics;
use crate::quantity::format_duration_parts;
use crate::reach::{Dial, Scheme, TlsMaterial};

/// The largest `/metrics` body read (etcd's is about 200 KB).
const MAX_BODY: usize = 8 << 20;

/// What one GET returned.
#[derive(Debug, Clone, Default)]
pub struct HttpAnswer {
    /// DER certificates the member presented, its own first (empty without
    /// TLS).
    pub peer_certificates: Vec<Vec<u8>>,
    pub body: String,
}

/// GETs `path` from the member behind `dial`, within `limit`.
pub async fn get(
    dial: &Dial,
    tls: Option<&TlsMaterial>,
    path: &str,
    limit: Duration,
) -> Result<HttpAnswer, String> {
    tokio::time::timeout(limit, get_inner(dial, tls, path))
        .await
        .map_err(|_| format!("no answer within {}", format_duration_parts(limit)))?
}

/// GETs `path` on `channel`, a member's gRPC connection over TLS: etcd
/// answers a request that is not gRPC (no `application/grpc` content type)
/// with its HTTP handlers on the same HTTP/2 connection, so the read needs
/// no handshake of its own. The body of a 200, at most `MAX_BODY` bytes.
pub async fn get_on(channel: tonic::transport::Channel, path: &str) -> Result<String, String> {
    use http_body_util::BodyExt;
    use tower::ServiceExt;
    let request = http::Request::get(path)
        .header(http::header::ACCEPT, "text/plain")
        .body(tonic::body::Body::empty())
        .map_err(|e| format!("request for {path}: {e}"))?;
    let response = channel
        .oneshot(request)
        .await
        .map_err(|e| format!("send: {}", crate::error::chain_text(&e)))?;
    let status = response.status();
    let body = http_body_util::Limited::new(response.into_body(), MAX_BODY)
        .collect()
        .await
        .map_err(|e| format!("read: {e}"))?
        .to_bytes();
    if status != http::StatusCode::OK {
        return Err(format!("{path} answered {status}"));
    }
    Ok(String::from_utf8_lossy(&body).into_owned())
}

async fn get_inner(
    dial: &Dial,
    tls: Option<&TlsMaterial>,
    path: &str,
) -> Result<HttpAnswer, String> {
    let address = (dial.endpoint.host.as_str(), dial.endpoint.port);
    let tcp = tokio::net::TcpStream::connect(address)
        .await
        .map_err(|e| format!("connect: {e}"))?;
    let host = dial.endpoint.host_for_tls().to_string();
    if dial.endpoint.scheme != Scheme::Https {
        let body = exchange(tcp, &host, path).await?;
        return Ok(HttpAnswer {
            peer_certificates: vec![],
            body,
        });
    }
    let tls = tls.ok_or("the member speaks TLS and no CA was given")?;
    let config = client_config(tls)?;
    let name = dial.tls_server_name.clone().unwrap_or(host.clone());
    let server_name =
        ServerName::try_from(name.clone()).map_err(|e| format!("server name {name}: {e}"))?;
    let stream = tokio_rustls::TlsConnector::from(Arc::new(config))
        .connect(server_name, tcp)
        .await
        .map_err(|e| format!("TLS handshake: {e}"))?;
    let peer_certificates = stream
        .get_ref()
        .1
        .peer_certificates()
        .map(|chain| chain.iter().map(|c| c.as_ref().to_vec()).collect())
        .unwrap_or_default();
    let body = exchange(stream, &host, path).await?;
    Ok(HttpAnswer {
        peer_certificates,
        body,
    })
}

/// Sends the request and reads the whole answer; the body of a 200.
async fn exchange<S: AsyncRead + AsyncWrite + Unpin>(
    mut stream: S,
    host: &str,
    path: &str,
) -> Result<String, String> {
    let request = format!("GET {path} HTTP/1.0\r\nHost: {host}\r\nAccept: text/plain\r\n\r\n");
    stream
        .write_all(request.as_bytes())
        .await
        .map_err(|e| format!("send: {e}"))?;
    // A TLS stream buffers like a BufWriter: without a flush, the request
    // can stay in rustls' buffer while we wait for an answer to it (doctor
    // -A lost a member's /metrics to the 5 s limit in 9 of 40 runs).
    stream.flush().await.map_err(|e| format!("send: {e}"))?;
    let mut answer = Vec::new();
    (&mut stream)
        .take(MAX_BODY as u64)
        .read_to_end(&mut answer)
        .await
        .map_err(|e| format!("read: {e}"))?;
    let text = String::from_utf8_lossy(&answer);
    let (head, body) = text
        .split_once("\r\n\r\n")
        .ok_or("the answer is not HTTP")?;
    let status = head.lines().next().unwrap_or_default();
    if status.split_whitespace().nth(1) != Some("200") {
        return Err(format!("{path} answered {status:?}"));
    }
    Ok(body.to_string())
}

fn client_config(tls: &TlsMaterial) -> Result<rustls::ClientConfig, String> {
    let roots = ca_roots(tls)?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS: {e}"))?
        .with_root_certificates(roots);
    match &tls.identity {
        None => Ok(builder.with_no_client_auth()),
        Some(id) => {
            let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(&id.cert_pem)
                .collect::<Result<_, _>>()
                .map_err(|e| format!("client certificate: {e}"))?;
            let key = PrivateKeyDer::from_pem_slice(&id.key_pem)
                .map_err(|_| "client key: not a PEM private key".to_string())?;
            builder
                .with_client_auth_cert(chain, key)
                .map_err(|e| format!("client certificate: {e}"))
        }
    }
}

/// The certificates of `tls`'s CA, the only roots a member's certificate
/// is verified against.
pub(crate) fn ca_roots(tls: &TlsMaterial) -> Result<rustls::RootCertStore, String> {
    let mut roots = rustls::RootCertStore::empty();
    for cert in CertificateDer::pem_slice_iter(&tls.ca_pem) {
        let cert = cert.map_err(|e| format!("CA from {}: {e}", tls.ca_origin))?;
        roots
            .add(cert)
            .map_err(|e| format!("CA from {}: {e}", tls.ca_origin))?;
    }
    Ok(roots)
}

/// The samples of a Prometheus exposition text: each series (its name
/// with its labels) and its value; comments and unparseable lines skipped.
fn samples(text: &str) -> impl Iterator<Item = (&str, f64)> {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|line| {
            let (series, value) = line.rsplit_once(' ')?;
            Some((series, value.parse::<f64>().ok()?))
        })
}

/// The figures `doctor` uses from a `/metrics` body, `now` in Unix seconds.
pub fn parse_metrics(text: &str, now: f64) -> MemberMetrics {
    let mut m = MemberMetrics::default();
    let mut buckets: Vec<(f64, f64)> = Vec::new();
    for (name, value) in samples(text) {
        if name == "etcd_disk_wal_fsync_duration_seconds_count" {
            m.wal_fsyncs = value as u64;
        } else if name == "etcd_server_leader_changes_seen_total" {
            m.leader_changes = value as u64;
        } else if name == "etcd_debugging_mvcc_keys_total" {
            m.keys = Some(value.max(0.0) as u64);
        } else if name == "etcd_debugging_mvcc_db_compaction_total_duration_milliseconds_count" {
            m.compactions = Some(value.max(0.0) as u64);
        } else if name == "etcd_server_quota_backend_bytes" {
            m.quota_bytes = (value >= 1.0).then_some(value as u64);
        } else if let Some(labels) = name.strip_prefix("etcd_cluster_version{") {
            // One series per version the member has seen; the current one
            // is set to 1.
            if value >= 1.0 {
                m.cluster_version = labels
                    .split(',')
                    .find_map(|l| l.trim_end_matches('}').strip_prefix("cluster_version=\""))
                    .and_then(|v| crate::defects::Release::parse(v.trim_end_matches('"')))
                    .map(|r| (r.major, r.minor));
            }
        } else if let Some(labels) = name.strip_prefix("grpc_server_handled_total{") {
            if labels.contains("grpc_method=\"MoveLeader\"") && labels.contains("grpc_code=\"OK\"")
            {
                m.move_leader_requests += value as u64;
            }
        } else if name == "process_start_time_seconds" {
            m.uptime_seconds = (now - value).max(0.0);
        } else if let Some(labels) =
            name.strip_prefix("etcd_disk_wal_fsync_duration_seconds_bucket{")
        {
            let le = labels
                .split(',')
                .find_map(|l| l.trim_end_matches('}').strip_prefix("le=\""))
                .map(|v| v.trim_end_matches('"'));
            let bound = match le {
                Some("+Inf") => f64::INFINITY,
                Some(v) => match v.parse() {
                    Ok(b) => b,
                    Err(_) => continue,
                },
                None => continue,
            };
            buckets.push((bound, value));
        }
    }
    m.wal_fsync_p99_seconds = percentile(&mut buckets, 0.99);
    m
}

/// The leader's raft progress for each member, from a `/debug/vars` body:
/// member id → progress state (`StateReplicate`, `StateProbe`,
/// `StateSnapshot`). etcd publishes raft's status there as `raft.status`
/// (3.4 to 3.7 alike); only a leader tracks progress, so a follower's map
/// is empty.
pub fn parse_raft_progress(body: &str) -> Result<BTreeMap<u64, String>, String> {
    let vars: serde_json::Value =
        serde_json::from_str(body).map_err(|e| format!("/debug/vars is not JSON: {e}"))?;
    let status = vars
        .get("raft.status")
        .ok_or("/debug/vars has no raft.status")?;
    if status.get("raftState").and_then(|s| s.as_str()) != Some("StateLeader") {
        return Err(format!(
            "the member asked is not the leader (raft state {})",
            status.get("raftState").unwrap_or(&serde_json::Value::Null)
        ));
    }
    let progress = status
        .get("progress")
        .and_then(|p| p.as_object())
        .ok_or("raft.status has no progress")?;
    let mut out = BTreeMap::new();
    for (id, p) in progress {
        let id =
            u64::from_str_radix(id, 16).map_err(|_| format!("raft.status: member id {id:?}"))?;
        let state = p
            .get("state")
            .and_then(|s| s.as_str())
            .ok_or_else(|| format!("raft.status: no state for {id:x}"))?;
        out.insert(id, state.to_string());
    }
    Ok(out)
}

/// Snapshots a member is receiving or applying, from its `/metrics`: the
/// sum of `etcd_network_snapshot_receive_inflights_total` (one series per
/// sending peer, none before the first snapshot) and
/// `etcd_server_snapshot_apply_in_progress_total` (always present, which
/// tells a body without it is not etcd's).
pub fn parse_snapshots_in_flight(text: &str) -> Result<u64, String> {
    let mut applying = None;
    let mut receiving = 0.0;
    for (name, value) in samples(text) {
        if name == "etcd_server_snapshot_apply_in_progress_total" {
            applying = Some(value);
        } else if name.starts_with("etcd_network_snapshot_receive_inflights_total{")
            || name == "etcd_network_snapshot_receive_inflights_total"
        {
            receiving += value;
        }
    }
    let applying =
        applying.ok_or("its /metrics has no etcd_server_snapshot_apply_in_progress_total")?;
    Ok((applying + receiving).max(0.0) as u64)
}

/// The server's feature gates and whether each is on, from its `/metrics`
/// (`etcd_server_feature_enabled{name="…",stage="…"} 0|1`, etcd 3.6 and
/// later; empty before).
pub fn parse_feature_gates(text: &str) -> BTreeMap<String, bool> {
    let mut gates = BTreeMap::new();
    for (series, value) in samples(text) {
        let Some(labels) = series.strip_prefix("etcd_server_feature_enabled{") else {
            continue;
        };
        let name = labels
            .trim_end_matches('}')
            .split(',')
            .find_map(|l| l.strip_prefix("name=\""))
            .map(|n| n.trim_end_matches('"'));
        if let Some(name) = name {
            gates.insert(name.to_string(), value >= 1.0);
        }
    }
    gates
}

/// Quantile `q` of a histogram from its cumulative `(le, count)` buckets,
/// interpolated linearly inside the bucket that holds it, as Prometheus'
/// `histogram_quantile` does. In the `+Inf` bucket: the largest finite
/// bound.
fn percentile(buckets: &mut [(f64, f64)], q: f64) -> Option<f64> {
    buckets.sort_by(|a, b| a.0.total_cmp(&b.0));
    let total = buckets.last()?.1;
    if total <= 0.0 {
        return None;
    }
    let rank = q * total;
    let (mut lower, mut below) = (0.0, 0.0);
    for &(le, count) in buckets.iter() {
        if count >= rank {
            if !le.is_finite() {
                return Some(lower);
            }
            let share = if count > below {
                (rank - below) / (count - below)
            } else {
                1.0
            };
            return Some(lower + (le - lower) * share);
        }
        if le.is_finite() {
            (lower, below) = (le, count);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The request reaches the server through a stream that buffers writes
    /// until flushed, as a TLS stream does (rustls keeps what the socket
    /// did not take): the server answers only once it has the whole
    /// request, so an exchange that does not flush waits for ever.
    #[tokio::test]
    async fn the_request_is_flushed_through_a_buffering_stream() {
        let (client, mut server) = tokio::io::duplex(64 * 1024);
        let answering = tokio::spawn(async move {
            let mut got = Vec::new();
            let mut buf = [0u8; 256];
            while !got.ends_with(b"\r\n\r\n") {
                let n = server.read(&mut buf).await.unwrap();
                assert!(n > 0, "the client closed before its request was whole");
                got.extend_from_slice(&buf[..n]);
            }
            server
                .write_all(b"HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nup 1\n")
                .await
                .unwrap();
            String::from_utf8(got).unwrap()
        });
        let body = tokio::time::timeout(
            Duration::from_secs(5),
            exchange(tokio::io::BufWriter::new(client), "m0", "/metrics"),
        )
        .await
        .expect("no answer: the request was never flushed to the server")
        .unwrap();
        assert_eq!(body, "up 1\n");
        let request = answering.await.unwrap();
        assert!(
            request.starts_with("GET /metrics HTTP/1.0\r\nHost: m0\r\n"),
            "{request}"
        );
    }

    const SAMPLE: &str = "# HELP etcd_server_leader_changes_seen_total x
# TYPE etcd_server_leader_changes_seen_total counter
etcd_server_leader_changes_seen_total 4
process_start_time_seconds 1.7e+09
etcd_disk_wal_fsync_duration_seconds_bucket{le=\"0.001\"} 10
etcd_disk_wal_fsync_duration_seconds_bucket{le=\"0.002\"} 50
etcd_disk_wal_fsync_duration_seconds_bucket{le=\"0.004\"} 98
etcd_disk_wal_fsync_duration_seconds_bucket{le=\"0.008\"} 99
etcd_disk_wal_fsync_duration_seconds_bucket{le=\"0.016\"} 100
etcd_disk_wal_fsync_duration_seconds_bucket{le=\"+Inf\"} 100
etcd_disk_wal_fsync_duration_seconds_sum 0.3
etcd_disk_wal_fsync_duration_seconds_count 100
# TYPE grpc_server_handled_total counter
grpc_server_handled_total{grpc_code=\"OK\",grpc_method=\"MoveLeader\",grpc_service=\"etcdserverpb.Maintenance\",grpc_type=\"unary\"} 3
grpc_server_handled_total{grpc_code=\"FailedPrecondition\",grpc_method=\"MoveLeader\",grpc_service=\"etcdserverpb.Maintenance\",grpc_type=\"unary\"} 2
grpc_server_handled_total{grpc_code=\"OK\",grpc_method=\"Status\",grpc_service=\"etcdserverpb.Maintenance\",grpc_type=\"unary\"} 40
# TYPE etcd_server_quota_backend_bytes gauge
etcd_server_quota_backend_bytes 9.5e+07
# TYPE etcd_cluster_version gauge
etcd_cluster_version{cluster_version=\"3.5\"} 0
etcd_cluster_version{cluster_version=\"3.6\"} 1
";

    #[test]
    fn the_leaders_progress_comes_from_debug_vars() {
        // As etcd 3.4.23 wrote it (raft's own JSON, inside expvar's).
        let leader = r#"{
"cmdline": ["etcd"],
"raft.status": {"id":"8e9e05c52164694d","term":2,"vote":"8e9e05c52164694d","commit":912,"lead":"8e9e05c52164694d","raftState":"StateLeader","applied":912,"progress":{"8e9e05c52164694d":{"match":912,"next":913,"state":"StateReplicate"},"91bc3c398fb3c146":{"match":0,"next":700,"state":"StateSnapshot"},"fd422379fda50e48":{"match":880,"next":881,"state":"StateProbe"}},"leadtransferee":"0"}
}"#;
        let progress = parse_raft_progress(leader).expect("progress");
        assert_eq!(progress.len(), 3);
        assert_eq!(progress[&0x8e9e05c52164694d], "StateReplicate");
        assert_eq!(progress[&0x91bc3c398fb3c146], "StateSnapshot");
        assert_eq!(progress[&0xfd422379fda50e48], "StateProbe");
        let follower = r#"{"raft.status": {"id":"91bc3c398fb3c146","term":2,"vote":"0","commit":912,"lead":"8e9e05c52164694d","raftState":"StateFollower","applied":912,"progress":{},"leadtransferee":"0"}}"#;
        let err = parse_raft_progress(follower).expect_err("a follower has no progress");
        assert!(err.contains("not the leader"), "{err}");
        assert!(parse_raft_progress("{}").is_err());
        assert!(parse_raft_progress("<html>").is_err());
    }

    #[test]
    fn feature_gates_come_from_etcd_server_feature_enabled() {
        // As etcd 3.7.3 wrote them.
        let text = "# TYPE etcd_server_feature_enabled gauge
etcd_server_feature_enabled{name=\"AllAlpha\",stage=\"ALPHA\"} 0
etcd_server_feature_enabled{name=\"StopGRPCServiceOnDefrag\",stage=\"ALPHA\"} 1
etcd_server_feature_enabled{name=\"TxnModeWriteWithSharedBuffer\",stage=\"BETA\"} 1
";
        let gates = parse_feature_gates(text);
        assert_eq!(gates.len(), 3);
        assert!(gates["StopGRPCServiceOnDefrag"]);
        assert!(!gates["AllAlpha"]);
        assert!(parse_feature_gates(SAMPLE).is_empty(), "3.5 has none");
    }

    #[test]
    fn snapshots_in_flight_add_receiving_and_applying() {
        let idle = "# TYPE etcd_server_snapshot_apply_in_progress_total gauge\netcd_server_snapshot_apply_in_progress_total 0\n";
        assert_eq!(parse_snapshots_in_flight(idle), Ok(0));
        let receiving = "etcd_network_snapshot_receive_inflights_total{From=\"8e9e05c52164694d\"} 1\netcd_server_snapshot_apply_in_progress_total 0\n";
        assert_eq!(parse_snapshots_in_flight(receiving), Ok(1));
        let both = "etcd_network_snapshot_receive_inflights_total{From=\"a\"} 0\netcd_server_snapshot_apply_in_progress_total 1\n";
        assert_eq!(parse_snapshots_in_flight(both), Ok(1));
        assert!(parse_snapshots_in_flight(SAMPLE).is_err());
    }

    #[test]
    fn the_figures_come_from_the_exposition_text() {
        let m = parse_metrics(SAMPLE, 1.7e9 + 3600.0);
        assert_eq!(m.leader_changes, 4);
        assert_eq!(m.uptime_seconds, 3600.0);
        assert_eq!(m.wal_fsyncs, 100);
        // Only the transfers carried out count, not the refused ones.
        assert_eq!(m.move_leader_requests, 3);
        // etcd 3.4 prints the gauge in exponent form.
        assert_eq!(m.quota_bytes, Some(95_000_000));
        // The series set to 1 is the version now.
        assert_eq!(m.cluster_version, Some((3, 6)));
        // Rank 99 of 100 is the last of the (0.004, 0.008] bucket's one.
        assert_eq!(m.wal_fsync_p99_seconds, Some(0.008));
        let p50 = {
            let mut b = vec![(0.001, 10.0), (0.002, 50.0), (f64::INFINITY, 100.0)];
            percentile(&mut b, 0.5)
        };
        assert_eq!(p50, Some(0.002));
        let mut b = vec![(0.001, 0.0), (0.002, 100.0), (f64::INFINITY, 100.0)];
        assert_eq!(percentile(&mut b, 0.99), Some(0.00199));
    }

    #[test]
    fn percentiles_from_cumulative_buckets() {
        let mut none: Vec<(f64, f64)> = vec![(0.1, 0.0), (f64::INFINITY, 0.0)];
        assert_eq!(percentile(&mut none, 0.99), None);
        let mut tail = vec![(0.1, 1.0), (f64::INFINITY, 100.0)];
        assert_eq!(percentile(&mut tail, 0.99), Some(0.1));
        assert_eq!(parse_metrics("garbage\n\n", 0.0), MemberMetrics::default());
        // A quota of 0 or below is no figure to plan on.
        let zero = parse_metrics("etcd_server_quota_backend_bytes 0\n", 0.0);
        assert_eq!(zero.quota_bytes, None);
    }
}
