//! `usage` and `snapshot usage`: which key prefixes hold the space and which
//! take the writes. Pure: the command feeds records (from paginated Ranges
//! and a Watch, or from a snapshot's `key` bucket) into a [`Tally`], which
//! groups them by prefix and ranks the groups; [`churn_finding`] decides
//! whether the writes explain the free space doctor reports, and what to do.
//!
//! Sizes are the bytes etcd stores per revision in its `key` bucket: the
//! 17-byte revision key plus the record (the `mvccpb.KeyValue` as etcd
//! marshals it). A live Range and a snapshot therefore count the same live
//! key as the same number of bytes, so the two rankings can be compared
//! record for record.

use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

use serde::Serialize;

use crate::keyprint::{fingerprint, PrintMap};
use crate::quantity::{format_bytes, format_duration_parts};

/// A revision key in etcd's `key` bucket: main (8 bytes), `_`, sub (8
/// bytes); a tombstone's has one more byte (`t`).
pub const REVISION_KEY: u64 = 17;

/// Where the Kubernetes API server keeps its objects by default
/// (`--etcd-prefix`).
pub const KUBERNETES_ROOT: &str = "/registry/";

/// How keys are grouped into prefixes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Grouping {
    /// The Kubernetes layout: `/registry/<resource>/` (or
    /// `/registry/<group>/<resource>/` when the first segment is an API
    /// group, i.e. holds a dot); other keys by their first segment.
    Kubernetes,
    /// The first N `/`-separated segments below the prefix.
    Depth(usize),
}

/// What is read and how it is grouped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// Only keys starting with this are read (empty: every key).
    pub prefix: Vec<u8>,
    pub grouping: Grouping,
}

impl Layout {
    /// The default layout for a prefix and an optional `--depth`: the
    /// Kubernetes layout for the whole keyspace, one segment below an
    /// explicit prefix.
    pub fn new(prefix: &str, depth: Option<usize>) -> Layout {
        let grouping = match depth {
            Some(n) => Grouping::Depth(n.max(1)),
            None if prefix.is_empty() => Grouping::Kubernetes,
            None => Grouping::Depth(1),
        };
        Layout {
            prefix: prefix.as_bytes().to_vec(),
            grouping,
        }
    }

    /// The group (a prefix of `key`) that `key` counts towards.
    pub fn group_of<'k>(&self, key: &'k [u8]) -> &'k [u8] {
        let below = if key.starts_with(&self.prefix) {
            self.prefix.len()
        } else {
            0
        };
        match self.grouping {
            Grouping::Depth(n) => cut(key, below, n),
            Grouping::Kubernetes => {
                let root = KUBERNETES_ROOT.as_bytes();
                if key.starts_with(root) && below <= root.len() {
                    let first = cut(key, root.len(), 1);
                    let segment = first.get(root.len()..).unwrap_or_default();
                    // An API group's name holds a dot (`cert-manager.io`):
                    // the resource is the segment after it.
                    if segment.ends_with(b"/") && segment.contains(&b'.') {
                        cut(key, root.len(), 2)
                    } else {
                        first
                    }
                } else {
                    cut(key, below, 1)
                }
            }
        }
    }
}

/// `key` up to and including the `n`-th `/` that ends a non-empty segment
/// after byte `from`; the whole key when it has fewer.
fn cut(key: &[u8], from: usize, n: usize) -> &[u8] {
    let mut seen = 0;
    let mut segment_len = 0;
    for (i, &b) in key.iter().enumerate().skip(from) {
        if b == b'/' {
            if segment_len > 0 {
                seen += 1;
                if seen == n {
                    return key.get(..=i).unwrap_or(key);
                }
            }
            segment_len = 0;
        } else {
            segment_len += 1;
        }
    }
    key
}

/// The bytes of a protobuf varint.
fn varint_len(v: u64) -> u64 {
    let bits = 64 - u64::from(v.leading_zeros());
    bits.div_ceil(7).max(1)
}

/// A length-delimited field (tag, length, bytes); absent when empty, as
/// etcd's marshaller leaves it out.
fn bytes_field(len: u64) -> u64 {
    if len == 0 {
        0
    } else {
        1 + varint_len(len) + len
    }
}

/// An int64 field; absent when zero.
fn int_field(v: i64) -> u64 {
    if v == 0 {
        0
    } else {
        1 + varint_len(v as u64)
    }
}

/// What etcd stores for one revision of a key, in bytes: the revision key
/// and the marshalled `mvccpb.KeyValue` {key, create_revision,
/// mod_revision, version, value, lease}.
pub fn record_bytes(
    key_len: u64,
    value_len: u64,
    create_revision: i64,
    mod_revision: i64,
    version: i64,
    lease: i64,
) -> u64 {
    REVISION_KEY
        + bytes_field(key_len)
        + int_field(create_revision)
        + int_field(mod_revision)
        + int_field(version)
        + bytes_field(value_len)
        + int_field(lease)
}

/// bbolt's page size on the machines etcd runs on (the OS page size: 4 KiB
/// on x86-64 and most arm64). A snapshot carries its own.
pub const PAGE: u64 = 4096;

/// What one live record costs in 4 KiB pages, as etcd packs its `key`
/// bucket: records are appended in revision order with bbolt's fill
/// percent at 0.9 (etcd's sequential puts, and its defrag's copy), every
/// leaf element has a 16-byte header, a page has a 16-byte header, holds at
/// least two elements, and spans as many pages as its contents need. The
/// share of that page a record takes, for a run of records of its size:
/// independent of order, so a live read and a snapshot agree.
pub fn page_cost(record: u64) -> u64 {
    const HEADER: u64 = 16;
    const ELEMENT: u64 = 16;
    let threshold = PAGE * 9 / 10;
    let element = ELEMENT + record;
    let per_page = ((threshold - HEADER) / element).max(2);
    let span = (HEADER + per_page * element).div_ceil(PAGE);
    (span * PAGE).div_ceil(per_page)
}

/// What the tally keeps of one group while records arrive.
#[derive(Debug, Default)]
struct Acc {
    keys: u64,
    bytes: u64,
    pages: u64,
    history_revisions: u64,
    history_bytes: u64,
    puts: u64,
    deletes: u64,
    written_bytes: u64,
    /// Writes per key within the window.
    written: HashMap<Vec<u8>, u64>,
}

impl Acc {
    fn live(&mut self, bytes: u64) {
        self.keys += 1;
        self.bytes += bytes;
        self.pages += page_cost(bytes);
    }

    fn history(&mut self, bytes: u64) {
        self.history_revisions += 1;
        self.history_bytes += bytes;
    }
}

/// Records grouped by prefix.
#[derive(Debug)]
pub struct Tally {
    layout: Layout,
    groups: BTreeMap<Vec<u8>, Acc>,
}

/// One group, ranked.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GroupUsage {
    pub prefix: String,
    /// Live keys (their newest revision is not a deletion).
    pub keys: u64,
    /// What their newest revisions take in the `key` bucket.
    pub bytes: u64,
    /// The pages those records fill, as etcd packs them ([`page_cost`]):
    /// what the prefix costs on disk once compacted and defragmented.
    pub page_bytes: u64,
    /// Older revisions and deletions still kept (from a snapshot only):
    /// what a compaction at its revision would drop.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub history_revisions: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub history_bytes: Option<u64>,
    /// Writes seen in the window (live only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub churn: Option<Churn>,
}

/// The writes to one group within the sampling window.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Churn {
    pub puts: u64,
    pub deletes: u64,
    /// Revisions written per second (puts and deletes).
    pub writes_per_second: f64,
    /// Bytes of new revisions stored per second.
    pub bytes_per_second: f64,
    /// Distinct keys written.
    pub keys_written: u64,
    /// The key written most often, and how often.
    pub hottest_key: String,
    pub hottest_writes: u64,
}

impl Tally {
    pub fn new(layout: Layout) -> Tally {
        Tally {
            layout,
            groups: BTreeMap::new(),
        }
    }

    fn acc(&mut self, key: &[u8]) -> &mut Acc {
        let group = self.layout.group_of(key);
        self.group(group)
    }

    /// A group's accumulator, made when it is first seen.
    fn group(&mut self, group: &[u8]) -> &mut Acc {
        if !self.groups.contains_key(group) {
            self.groups.insert(group.to_vec(), Acc::default());
        }
        // why: inserted just above when missing.
        self.groups.get_mut(group).unwrap_or_else(|| unreachable!())
    }

    /// A live key, and the bytes of its newest revision.
    pub fn live(&mut self, key: &[u8], bytes: u64) {
        self.acc(key).live(bytes);
    }

    /// A revision kept that is not a live key's newest: an older version, a
    /// deletion, or a deleted key's revisions.
    pub fn history(&mut self, key: &[u8], bytes: u64) {
        self.acc(key).history(bytes);
    }

    /// A write seen by the Watch: a put (`bytes` of new record) or a
    /// deletion.
    pub fn write(&mut self, key: &[u8], bytes: u64, deleted: bool) {
        let acc = self.acc(key);
        if deleted {
            acc.deletes += 1;
        } else {
            acc.puts += 1;
        }
        acc.written_bytes += bytes;
        *acc.written.entry(key.to_vec()).or_default() += 1;
    }

    /// Adds what `other` counted (the same layout): the Watch's writes
    /// beside the Range's keys.
    pub fn absorb(&mut self, other: Tally) {
        for (group, acc) in other.groups {
            let mine = self.groups.entry(group).or_default();
            mine.keys += acc.keys;
            mine.bytes += acc.bytes;
            mine.pages += acc.pages;
            mine.history_revisions += acc.history_revisions;
            mine.history_bytes += acc.history_bytes;
            mine.puts += acc.puts;
            mine.deletes += acc.deletes;
            mine.written_bytes += acc.written_bytes;
            for (key, n) in acc.written {
                *mine.written.entry(key).or_default() += n;
            }
        }
    }

    /// The live keys and bytes counted so far, and the writes.
    pub fn totals(&self) -> (u64, u64, u64) {
        self.groups.values().fold((0, 0, 0), |(k, b, w), a| {
            (k + a.keys, b + a.bytes, w + a.puts + a.deletes)
        })
    }

    /// The pages the live records fill ([`page_cost`]).
    pub fn page_bytes(&self) -> u64 {
        self.groups.values().map(|a| a.pages).sum()
    }

    /// The groups, largest first (by pages, bytes, keys, then name). With
    /// `history`, the history columns are filled; with a `window`, the
    /// churn.
    pub fn rows(&self, history: bool, window: Option<Duration>) -> Vec<GroupUsage> {
        let seconds = window.map(|w| w.as_secs_f64().max(0.001));
        let mut rows: Vec<GroupUsage> = self
            .groups
            .iter()
            .map(|(prefix, acc)| {
                let hottest = acc
                    .written
                    .iter()
                    .max_by(|a, b| a.1.cmp(b.1).then_with(|| b.0.cmp(a.0)));
                GroupUsage {
                    prefix: shown(prefix),
                    keys: acc.keys,
                    bytes: acc.bytes,
                    page_bytes: acc.pages,
                    history_revisions: history.then_some(acc.history_revisions),
                    history_bytes: history.then_some(acc.history_bytes),
                    churn: seconds.map(|s| Churn {
                        puts: acc.puts,
                        deletes: acc.deletes,
                        writes_per_second: (acc.puts + acc.deletes) as f64 / s,
                        bytes_per_second: acc.written_bytes as f64 / s,
                        keys_written: acc.written.len() as u64,
                        hottest_key: hottest.map(|(k, _)| shown(k)).unwrap_or_default(),
                        hottest_writes: hottest.map(|(_, n)| *n).unwrap_or_default(),
                    }),
                }
            })
            .collect();
        rows.sort_by(|a, b| {
            b.page_bytes
                .cmp(&a.page_bytes)
                .then_with(|| b.bytes.cmp(&a.bytes))
                .then_with(|| b.keys.cmp(&a.keys))
                .then_with(|| a.prefix.cmp(&b.prefix))
        });
        rows
    }
}

/// A snapshot's `key` bucket folded into a [`Tally`]: records arrive in
/// revision order, so each key's newest is held back until the end; every
/// record it replaces is history, and so is a newest that is a deletion.
///
/// Keys are held as fingerprints (`keyprint`), each with its group's
/// number and its newest record's size.
#[derive(Debug)]
pub struct Revisions {
    tally: Tally,
    newest: PrintMap<Newest>,
    groups: Vec<Vec<u8>>,
    group_numbers: HashMap<Vec<u8>, u32>,
}

/// A key's newest record so far.
#[derive(Debug, Clone, Copy)]
struct Newest {
    bytes: u64,
    group: u32,
    tombstone: bool,
}

impl Revisions {
    pub fn new(layout: Layout) -> Revisions {
        Revisions {
            tally: Tally::new(layout),
            newest: HashMap::default(),
            groups: Vec::new(),
            group_numbers: HashMap::new(),
        }
    }

    /// One entry of the `key` bucket: the user key, its bytes, and whether
    /// it is a deletion. Keys outside the layout's prefix are skipped.
    pub fn record(&mut self, key: &[u8], bytes: u64, tombstone: bool) {
        if !key.starts_with(&self.tally.layout.prefix) {
            return;
        }
        let print = fingerprint(key);
        if let Some(slot) = self.newest.get_mut(&print) {
            let before = slot.bytes;
            (slot.bytes, slot.tombstone) = (bytes, tombstone);
            self.tally.history(key, before);
            return;
        }
        let group = self.tally.layout.group_of(key);
        let group = match self.group_numbers.get(group) {
            Some(&n) => n,
            None => {
                let n = u32::try_from(self.groups.len()).unwrap_or(u32::MAX);
                self.groups.push(group.to_vec());
                self.group_numbers.insert(group.to_vec(), n);
                n
            }
        };
        self.newest.insert(
            print,
            Newest {
                bytes,
                group,
                tombstone,
            },
        );
    }

    /// The tally, once every record was seen.
    pub fn finish(mut self) -> Tally {
        for n in std::mem::take(&mut self.newest).into_values() {
            let Some(group) = self.groups.get(n.group as usize) else {
                continue;
            };
            let acc = self.tally.group(group);
            if n.tombstone {
                acc.history(n.bytes);
            } else {
                acc.live(n.bytes);
            }
        }
        self.tally
    }
}

/// A key or prefix as text: UTF-8 as is, other bytes escaped.
pub fn shown(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(s) => s.to_string(),
        Err(_) => bytes.escape_ascii().to_string(),
    }
}

/// The groups by churn, busiest first (writes, then bytes written); groups
/// without writes are left out.
pub fn by_churn(rows: &[GroupUsage]) -> Vec<&GroupUsage> {
    let mut busy: Vec<&GroupUsage> = rows
        .iter()
        .filter(|r| r.churn.as_ref().is_some_and(|c| c.puts + c.deletes > 0))
        .collect();
    busy.sort_by(|a, b| {
        let (ca, cb) = (a.churn.as_ref(), b.churn.as_ref());
        let writes = |c: Option<&Churn>| c.map(|c| c.puts + c.deletes).unwrap_or_default();
        let bytes = |c: Option<&Churn>| c.map(|c| c.bytes_per_second).unwrap_or_default();
        writes(cb)
            .cmp(&writes(ca))
            .then_with(|| bytes(cb).total_cmp(&bytes(ca)))
            .then_with(|| a.prefix.cmp(&b.prefix))
    });
    busy
}

/// The range end that covers every key starting with `prefix` (etcd's
/// `GetPrefixRangeEnd`): the prefix with its last byte below 0xff
/// incremented and what follows dropped; `[0]` (every key) for an empty
/// prefix or one of only 0xff bytes.
pub fn prefix_end(prefix: &[u8]) -> Vec<u8> {
    let mut end = prefix.to_vec();
    while let Some(last) = end.pop() {
        if last < 0xff {
            end.push(last + 1);
            return end;
        }
    }
    vec![0]
}

/// The Range (or Watch) key and range end for every key under `prefix`:
/// etcd refuses an empty key, so the whole keyspace is `[\0, \0)`, its
/// "from this key on".
pub fn key_range(prefix: &[u8]) -> (Vec<u8>, Vec<u8>) {
    if prefix.is_empty() {
        (vec![0], vec![0])
    } else {
        (prefix.to_vec(), prefix_end(prefix))
    }
}

/// The most keys a Range page asks for.
pub const MAX_PAGE_KEYS: u64 = 10_000;

/// How many keys the next Range page asks for: pages of about `target`
/// bytes, from the bytes per key seen so far, between 16 and
/// [`MAX_PAGE_KEYS`] keys.
pub fn next_page_limit(bytes_so_far: u64, keys_so_far: u64, target: u64) -> i64 {
    if keys_so_far == 0 {
        return 1000;
    }
    let per_key = (bytes_so_far / keys_so_far).max(1);
    (target / per_key).clamp(16, MAX_PAGE_KEYS) as i64
}

/// What a doctor run knows about the writes when it looks at free space.
#[derive(Debug, Clone, PartialEq)]
pub struct ChurnSample {
    pub window: Duration,
    /// The groups that were written, busiest first.
    pub busiest: Vec<GroupUsage>,
    pub total_writes: u64,
    pub total_bytes_per_second: f64,
}

/// How often the history is compacted: the EtcdCluster's
/// auto-compaction when it is periodic, else the Kubernetes API server's
/// default (`--etcd-compaction-interval`, 5 minutes).
pub const KUBERNETES_COMPACTION: Duration = Duration::from_secs(300);

/// Whether the writes explain `free` bytes of free space, and what to do.
/// `cluster` is how a printed command names the cluster (` NAME -n NS`, or
/// empty).
/// The history written within one compaction interval is freed by the next
/// compaction: when that is at least a tenth of the free space, the writes
/// keep re-creating it (a defrag's gain is gone within hours), and the
/// busiest prefix is named with the remedy for its kind. `None` when the
/// sample saw no write.
pub fn churn_finding(
    sample: &ChurnSample,
    free: u64,
    interval: Duration,
    cluster: &str,
) -> Option<(bool, String, String)> {
    let top = sample.busiest.first()?;
    let churn = top.churn.as_ref()?;
    let freed = sample.total_bytes_per_second * interval.as_secs_f64();
    let share = if sample.total_writes == 0 {
        0.0
    } else {
        (churn.puts + churn.deletes) as f64 * 100.0 / sample.total_writes as f64
    };
    let explains = freed >= free as f64 / 10.0;
    let rate = format!(
        "{:.1} writes/s, {}/s",
        churn.writes_per_second,
        format_bytes(churn.bytes_per_second.round() as u64)
    );
    let window = format_duration_parts(sample.window);
    let message = if explains {
        format!(
            "{} takes {share:.0}% of the writes ({rate} over {window}); at {}/s in all, each {} between compactions leaves about {} of history to free, against {} free now: the writes keep re-creating the free space",
            top.prefix,
            format_bytes(sample.total_bytes_per_second.round() as u64),
            format_duration_parts(interval),
            format_bytes(freed.round() as u64),
            format_bytes(free),
        )
    } else {
        format!(
            "the writes do not explain the {} free: {}/s in all over {window} frees about {} per {} between compactions (busiest: {}, {rate}); the space more likely came from a one-off deletion or the first compaction of a long history",
            format_bytes(free),
            format_bytes(sample.total_bytes_per_second.round() as u64),
            format_bytes(freed.round() as u64),
            format_duration_parts(interval),
            top.prefix,
        )
    };
    let remedy = if explains {
        remedy_for(top, sample.window, cluster)
    } else {
        format!("kubectl etcd usage{cluster} shows which prefixes hold the space")
    };
    Some((explains, message, remedy))
}

/// The remedy that fits the busiest prefix: Events, Leases, or one writer
/// rewriting the same objects.
pub fn remedy_for(top: &GroupUsage, window: Duration, cluster: &str) -> String {
    let churn = top.churn.clone().unwrap_or(Churn {
        puts: 0,
        deletes: 0,
        writes_per_second: 0.0,
        bytes_per_second: 0.0,
        keys_written: 0,
        hottest_key: String::new(),
        hottest_writes: 0,
    });
    let resource = kubernetes_resource(&top.prefix);
    match resource.as_deref() {
        Some("events") | Some("events.k8s.io/events") => "Events churn: give them their own etcd (kube-apiserver --etcd-servers-overrides=/events#<their etcd's URLs>) or keep them for less time (--event-ttl, 1h by default), and find the component emitting most of them (kubectl get events -A --sort-by=.count)".to_string(),
        Some("leases") | Some("coordination.k8s.io/leases") => {
            let holders = churn.keys_written;
            let per_holder = if churn.keys_written == 0 {
                0.0
            } else {
                (churn.puts + churn.deletes) as f64 / churn.keys_written as f64
            };
            let every = if per_holder > 0.0 {
                format!(
                    "each renewed every {:.1}s",
                    window.as_secs_f64() / per_holder
                )
            } else {
                "renewed".to_string()
            };
            format!(
                "Lease renewals: {holders} Leases written in {}, {every} (node heartbeats renew every 10s; leader elections every --leader-elect-retry-period, 2s by default); fewer nodes per cluster or longer retry periods write less (busiest: {} ×{})",
                format_duration_parts(window),
                churn.hottest_key,
                churn.hottest_writes
            )
        }
        _ => {
            let per_key = if churn.keys_written == 0 {
                0.0
            } else {
                (churn.puts + churn.deletes) as f64 / churn.keys_written as f64
            };
            format!(
                "{} keys under {} were written {per_key:.1} times each in {} (busiest: {} ×{}): find the writer (the API server's audit log, or the objects' managedFields) and make it write only on change; kubectl etcd usage{cluster} --prefix {} --window 60s narrows it down",
                churn.keys_written,
                top.prefix,
                format_duration_parts(window),
                churn.hottest_key,
                churn.hottest_writes,
                top.prefix
            )
        }
    }
}

/// The resource a Kubernetes prefix holds (`events`,
/// `coordination.k8s.io/leases`), when it is one.
fn kubernetes_resource(prefix: &str) -> Option<String> {
    let rest = prefix.strip_prefix(KUBERNETES_ROOT)?;
    let mut parts = rest.split('/').filter(|s| !s.is_empty());
    let first = parts.next()?;
    if first.contains('.') {
        Some(format!("{first}/{}", parts.next()?))
    } else {
        Some(first.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_grouped_the_way_kubernetes_lays_them_out() {
        let k8s = Layout::new("", None);
        let cases: &[(&str, &str)] = &[
            ("/registry/pods/default/nginx", "/registry/pods/"),
            ("/registry/events/kube-system/a.17f", "/registry/events/"),
            ("/registry/leases/kube-node-lease/n1", "/registry/leases/"),
            (
                "/registry/cert-manager.io/certificates/ns/c",
                "/registry/cert-manager.io/certificates/",
            ),
            (
                "/registry/apiregistration.k8s.io/apiservices/v1.apps",
                "/registry/apiregistration.k8s.io/apiservices/",
            ),
            ("/registry/ranges/serviceips", "/registry/ranges/"),
            ("/registry/health", "/registry/health"),
            ("/other/thing/x", "/other/"),
            ("compact_rev_key", "compact_rev_key"),
            ("a/b/c", "a/"),
        ];
        for (key, group) in cases {
            assert_eq!(shown(k8s.group_of(key.as_bytes())), *group, "key {key}");
        }
    }

    #[test]
    fn depth_counts_segments_below_the_prefix() {
        let cases: &[(&str, Option<usize>, &str, &str)] = &[
            ("", Some(1), "/registry/pods/a", "/registry/"),
            ("", Some(2), "/registry/pods/a", "/registry/pods/"),
            ("", Some(3), "/registry/pods/ns/a", "/registry/pods/ns/"),
            (
                "/registry/events/",
                None,
                "/registry/events/ns1/e1",
                "/registry/events/ns1/",
            ),
            (
                "/registry/events/ns1/",
                None,
                "/registry/events/ns1/e1",
                "/registry/events/ns1/e1",
            ),
            (
                "/registry/",
                None,
                "/registry/cert-manager.io/x/y",
                "/registry/cert-manager.io/",
            ),
            ("", Some(2), "//a//b/c", "//a//b/"),
            ("", Some(5), "/a/b", "/a/b"),
        ];
        for (prefix, depth, key, group) in cases {
            let layout = Layout::new(prefix, *depth);
            assert_eq!(
                shown(layout.group_of(key.as_bytes())),
                *group,
                "prefix {prefix:?} depth {depth:?} key {key}"
            );
        }
    }

    #[test]
    fn record_bytes_is_the_marshalled_key_value_plus_the_revision_key() {
        // key "a" (3), create 5 (2), mod 5 (2), version 1 (2), value "xyz" (5)
        assert_eq!(record_bytes(1, 3, 5, 5, 1, 0), 17 + 3 + 2 + 2 + 2 + 5);
        // an empty value and no lease are left out; 300 needs two varint bytes
        assert_eq!(record_bytes(1, 0, 300, 300, 1, 0), 17 + 3 + 3 + 3 + 2);
        // a 200-byte value has a two-byte length; a lease id is a field too
        assert_eq!(
            record_bytes(10, 200, 1, 1, 1, 0x694d_8a3c_0d54_a00b),
            17 + 12 + 2 + 2 + 2 + 203 + 10
        );
        // a tombstone as etcd stores it holds only the key
        assert_eq!(record_bytes(4, 0, 0, 0, 0, 0), 17 + 6);
    }

    #[test]
    fn page_costs_follow_how_bbolt_packs_records() {
        // 2 KiB records: two per page (bbolt's minimum) overflow into a
        // second page, so each costs a whole page.
        assert_eq!(page_cost(2050), 4096);
        // 200-byte records: 16 fit under the 90% fill, in one page.
        assert_eq!(page_cost(200), 256);
        // a record over a page: two per page, spanning three pages.
        assert_eq!(page_cost(6000), 6144);
        // tiny records: the page is 90% used.
        assert_eq!(page_cost(40), 4096_u64.div_ceil(3670 / 56));
    }

    #[test]
    fn varints_have_the_protobuf_lengths() {
        for (v, len) in [
            (0, 1),
            (1, 1),
            (127, 1),
            (128, 2),
            (16_383, 2),
            (16_384, 3),
            (u64::MAX, 10),
        ] {
            assert_eq!(varint_len(v), len, "{v}");
        }
    }

    #[test]
    fn rows_rank_by_bytes_and_churn_ranks_by_writes() {
        let mut t = Tally::new(Layout::new("", None));
        t.live(b"/registry/pods/a/p1", 500);
        t.live(b"/registry/pods/a/p2", 500);
        t.live(b"/registry/events/a/e1", 300);
        t.live(b"/registry/leases/n/l1", 100);
        for _ in 0..10 {
            t.write(b"/registry/leases/n/l1", 100, false);
        }
        t.write(b"/registry/events/a/e1", 300, false);
        t.write(b"/registry/events/a/e0", 20, true);
        let rows = t.rows(false, Some(Duration::from_secs(2)));
        let order: Vec<&str> = rows.iter().map(|r| r.prefix.as_str()).collect();
        assert_eq!(
            order,
            ["/registry/pods/", "/registry/events/", "/registry/leases/"]
        );
        assert_eq!(rows[0].keys, 2);
        assert_eq!(rows[0].history_bytes, None);
        let busy: Vec<&str> = by_churn(&rows).iter().map(|r| r.prefix.as_str()).collect();
        assert_eq!(busy, ["/registry/leases/", "/registry/events/"]);
        let leases = rows[2].churn.clone().unwrap_or_else(|| unreachable!());
        assert_eq!(
            (leases.puts, leases.deletes, leases.keys_written),
            (10, 0, 1)
        );
        assert_eq!(leases.writes_per_second, 5.0);
        assert_eq!(leases.bytes_per_second, 500.0);
        assert_eq!(
            (leases.hottest_key.as_str(), leases.hottest_writes),
            ("/registry/leases/n/l1", 10)
        );
        let events = rows[1].churn.clone().unwrap_or_else(|| unreachable!());
        assert_eq!(
            (events.puts, events.deletes, events.keys_written),
            (1, 1, 2)
        );
    }

    #[test]
    fn history_is_counted_apart_from_live_keys() {
        let mut t = Tally::new(Layout::new("", Some(1)));
        t.live(b"/a/1", 40);
        t.history(b"/a/1", 40);
        t.history(b"/a/2", 30);
        let rows = t.rows(true, None);
        assert_eq!(rows.len(), 1);
        assert_eq!((rows[0].keys, rows[0].bytes), (1, 40));
        assert_eq!(
            (rows[0].history_revisions, rows[0].history_bytes),
            (Some(2), Some(70))
        );
        assert_eq!(rows[0].churn, None);
    }

    #[test]
    fn a_snapshot_keeps_each_keys_newest_live_and_the_rest_as_history() {
        let mut r = Revisions::new(Layout::new("/a/", None));
        r.record(b"/a/x/1", 10, false);
        r.record(b"/a/x/1", 12, false); // rewritten: the 10 is history
        r.record(b"/a/y/1", 20, false);
        r.record(b"/a/y/1", 5, true); // deleted: both are history
        r.record(b"/b/z", 99, false); // outside the prefix
        let rows = r.finish().rows(true, None);
        type Row<'a> = (&'a str, u64, u64, Option<u64>, Option<u64>);
        let got: Vec<Row> = rows
            .iter()
            .map(|g| {
                (
                    g.prefix.as_str(),
                    g.keys,
                    g.bytes,
                    g.history_revisions,
                    g.history_bytes,
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                ("/a/x/", 1, 12, Some(1), Some(10)),
                ("/a/y/", 0, 0, Some(2), Some(25))
            ]
        );
    }

    #[test]
    fn a_key_deleted_and_written_again_is_live_and_keeps_its_history() {
        let mut r = Revisions::new(Layout::new("", Some(1)));
        r.record(b"/a/1", 10, false);
        r.record(b"/a/1", 5, true);
        r.record(b"/a/1", 11, false);
        r.record(b"/a/2", 7, false);
        let rows = r.finish().rows(true, None);
        assert_eq!(rows.len(), 1);
        assert_eq!((rows[0].keys, rows[0].bytes), (2, 18));
        assert_eq!(
            (rows[0].history_revisions, rows[0].history_bytes),
            (Some(2), Some(15))
        );
    }

    #[test]
    fn prefix_ends_follow_etcd() {
        assert_eq!(prefix_end(b"/registry/"), b"/registry0".to_vec());
        assert_eq!(prefix_end(b"a\xff"), b"b".to_vec());
        assert_eq!(prefix_end(b"\xff\xff"), vec![0]);
        assert_eq!(prefix_end(b""), vec![0]);
        assert_eq!(key_range(b""), (vec![0], vec![0]));
        assert_eq!(key_range(b"/a/"), (b"/a/".to_vec(), b"/a0".to_vec()));
    }

    #[test]
    fn pages_aim_at_a_byte_size() {
        assert_eq!(next_page_limit(0, 0, 4 << 20), 1000);
        assert_eq!(next_page_limit(1000 * 1000, 1000, 4 << 20), 4194);
        assert_eq!(next_page_limit(10 << 30, 10, 4 << 20), 16);
        assert_eq!(next_page_limit(10, 10, 4 << 20), 10_000);
    }

    fn sample(prefix: &str, puts: u64, keys_written: u64, bytes_per_second: f64) -> ChurnSample {
        let window = Duration::from_secs(10);
        ChurnSample {
            window,
            busiest: vec![GroupUsage {
                prefix: prefix.into(),
                keys: 0,
                bytes: 0,
                page_bytes: 0,
                history_revisions: None,
                history_bytes: None,
                churn: Some(Churn {
                    puts,
                    deletes: 0,
                    writes_per_second: puts as f64 / 10.0,
                    bytes_per_second,
                    keys_written,
                    hottest_key: format!("{prefix}x"),
                    hottest_writes: puts / keys_written.max(1),
                }),
            }],
            total_writes: puts,
            total_bytes_per_second: bytes_per_second,
        }
    }

    #[test]
    fn churn_explains_free_space_when_a_compaction_interval_of_writes_is_a_tenth_of_it() {
        let s = sample("/registry/events/", 1000, 1000, 100_000.0);
        // 100 kB/s × 300 s = 30 MB ≥ 10% of 100 MB
        let (explains, message, remedy) =
            churn_finding(&s, 100_000_000, KUBERNETES_COMPACTION, " db")
                .unwrap_or_else(|| unreachable!());
        assert!(explains, "{message}");
        assert!(
            message.starts_with("/registry/events/ takes 100% of the writes"),
            "{message}"
        );
        assert!(
            remedy.contains("--etcd-servers-overrides=/events#"),
            "{remedy}"
        );
        assert!(remedy.contains("--event-ttl"), "{remedy}");
        // the same writes against 1 GB free do not explain it
        let (explains, message, remedy) =
            churn_finding(&s, 1_000_000_000, KUBERNETES_COMPACTION, " db")
                .unwrap_or_else(|| unreachable!());
        assert!(!explains);
        assert!(message.contains("do not explain"), "{message}");
        assert_eq!(
            remedy,
            "kubectl etcd usage db shows which prefixes hold the space"
        );
        // nothing written: nothing to say
        let mut quiet = s.clone();
        quiet.busiest.clear();
        assert_eq!(churn_finding(&quiet, 1, KUBERNETES_COMPACTION, "db"), None);
    }

    #[test]
    fn remedies_fit_the_prefix() {
        let leases = sample("/registry/leases/", 50, 10, 50_000.0);
        let remedy = remedy_for(&leases.busiest[0], leases.window, "");
        assert!(
            remedy.starts_with("Lease renewals: 10 Leases written in 10s, each renewed every 2.0s"),
            "{remedy}"
        );
        let crd = sample("/registry/example.com/widgets/", 200, 2, 50_000.0);
        let remedy = remedy_for(&crd.busiest[0], crd.window, " db -n prod");
        assert!(
            remedy.starts_with(
                "2 keys under /registry/example.com/widgets/ were written 100.0 times each"
            ),
            "{remedy}"
        );
        assert!(remedy.contains("kubectl etcd usage db -n prod --prefix /registry/example.com/widgets/ --window 60s"), "{remedy}");
        let plain = sample("/app/", 20, 1, 1000.0);
        let remedy = remedy_for(&plain.busiest[0], plain.window, "");
        assert!(
            remedy.contains("kubectl etcd usage --prefix /app/"),
            "{remedy}"
        );
        assert_eq!(
            kubernetes_resource("/registry/events.k8s.io/events/"),
            Some("events.k8s.io/events".into())
        );
        assert_eq!(kubernetes_resource("/app/"), None);
    }
}
