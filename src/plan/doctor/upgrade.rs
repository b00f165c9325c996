//! `doctor --upgrade-to VERSION`: what stands between a cluster and an etcd
//! release. Every finding is a blocker (critical: the upgrade would fail or
//! is unsupported) or a warning, with its remedy. Pure over what doctor
//! read; table-tested.
//!
//! The rules, and where etcd says so (etcd-io/website, the upgrade guides;
//! etcd-io/etcd, the CHANGELOGs and the server's flags):
//! - one minor release at a time ("Upgrades that skip a minor version are
//!   not supported and will likely fail", `upgrades/upgrading-etcd.md`);
//!   etcd itself does not refuse it cleanly, and a 3.7 member cannot apply
//!   the v2 entries a 3.5 leader still proposes;
//! - patch floors ([`FLOORS`]);
//! - with authentication on, no rolling upgrade from 3.4 to 3.5: 3.5
//!   changed the WAL format of auth entries (etcd PR 11943;
//!   `upgrades/upgrade_3_5.md`);
//! - the flags a release no longer accepts ([`REMOVED_FLAGS`]): a member
//!   started with one exits at once (3.7 exits 2 on an unknown flag).

use std::collections::BTreeMap;

use super::{Finding, Severity};
use crate::defects::Release;
use crate::look::{ClusterLook, MemberMetrics, OperatorSays};
use crate::plan::gate::GateVerdict;

/// What `--upgrade-to` names: a minor line (`3.6`) or an exact release
/// (`3.6.16`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UpgradeTarget {
    pub major: u32,
    pub minor: u32,
    /// `None` for a minor line.
    pub patch: Option<u32>,
}

impl UpgradeTarget {
    /// Parses `3.6`, `v3.6`, `3.6.16`; `None` for anything else.
    pub fn parse(text: &str) -> Option<UpgradeTarget> {
        let core = text.trim().trim_start_matches('v');
        let mut parts = core.split('.');
        let major = parts.next()?.parse().ok()?;
        let minor = parts.next()?.parse().ok()?;
        let patch = match parts.next() {
            Some(p) => Some(p.parse().ok()?),
            None => None,
        };
        if parts.next().is_some() || major != 3 {
            return None;
        }
        Some(UpgradeTarget {
            major,
            minor,
            patch,
        })
    }

    fn line(self) -> (u32, u32) {
        (self.major, self.minor)
    }
}

impl std::fmt::Display for UpgradeTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.patch {
            Some(p) => write!(f, "{}.{}.{p}", self.major, self.minor),
            None => write!(f, "{}.{}", self.major, self.minor),
        }
    }
}

/// A patch floor: before moving to `to`, every member of the line below
/// runs `at_least` or later.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Floor {
    pub to: (u32, u32),
    pub at_least: Release,
    /// Why, and where etcd says so.
    pub why: &'static str,
}

/// The patch floors etcd's upgrade guides set (3.4 → 3.5 has none).
pub const FLOORS: &[Floor] = &[
    Floor {
        to: (3, 6),
        at_least: Release::new(3, 5, 32),
        why: "etcd's 3.5 → 3.6 guide (upgrades/upgrade_3_6.md, since 2026-08-03; it was 3.5.20, 3.5.24, then 3.5.26): 3.5.20–3.5.26 fix learner promotions lost from the v3 store and members removed long ago coming back (\"zombie members\"), 3.5.32 adds --v2-deprecation=write-only-skip-check and an etcdutl check v2store that reads the WAL",
    },
    Floor {
        to: (3, 7),
        at_least: Release::new(3, 6, 11),
        why: "etcd's 3.6 → 3.7 guide (upgrades/upgrade_3_7.md): \"Earlier 3.6 patch releases may not be compatible with a rolling upgrade to 3.7\"",
    },
];

/// A flag a release no longer accepts, and what replaces it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RemovedFlag {
    /// The first release line without it.
    pub gone_in: (u32, u32),
    pub flag: &'static str,
    /// What to use instead (empty: nothing).
    pub instead: &'static str,
}

const fn gone(gone_in: (u32, u32), flag: &'static str, instead: &'static str) -> RemovedFlag {
    RemovedFlag {
        gone_in,
        flag,
        instead,
    }
}

/// The flags etcd dropped, read from the server's flag sets of 3.5.35,
/// 3.6.16 and 3.7.3 (and CHANGELOG-3.6 and -3.7: "Removed all deprecated
/// experimental flags", PR 19959; v2 discovery, PR 20109). The new names
/// exist from 3.6.0, and 3.5 knows none of them: a member keeps the old
/// name while it runs 3.5 and must switch before 3.7.
pub const REMOVED_FLAGS: &[RemovedFlag] = &[
    gone((3, 6), "--enable-v2", ""),
    gone((3, 6), "--experimental-enable-v2v3", ""),
    gone((3, 6), "--proxy", ""),
    gone((3, 6), "--proxy-failure-wait", ""),
    gone((3, 6), "--proxy-refresh-interval", ""),
    gone((3, 6), "--proxy-dial-timeout", ""),
    gone((3, 6), "--proxy-write-timeout", ""),
    gone((3, 6), "--proxy-read-timeout", ""),
    gone(
        (3, 7),
        "--experimental-bootstrap-defrag-threshold-megabytes",
        "--bootstrap-defrag-threshold-megabytes",
    ),
    gone(
        (3, 7),
        "--experimental-compact-hash-check-enabled",
        "--feature-gates=CompactHashCheck=true",
    ),
    gone(
        (3, 7),
        "--experimental-compact-hash-check-time",
        "--compact-hash-check-time",
    ),
    gone(
        (3, 7),
        "--experimental-compaction-batch-limit",
        "--compaction-batch-limit",
    ),
    gone(
        (3, 7),
        "--experimental-compaction-sleep-interval",
        "--compaction-sleep-interval",
    ),
    gone(
        (3, 7),
        "--experimental-corrupt-check-time",
        "--corrupt-check-time",
    ),
    gone(
        (3, 7),
        "--experimental-distributed-tracing-address",
        "--distributed-tracing-address",
    ),
    gone(
        (3, 7),
        "--experimental-distributed-tracing-instance-id",
        "--distributed-tracing-instance-id",
    ),
    gone(
        (3, 7),
        "--experimental-distributed-tracing-sampling-rate",
        "--distributed-tracing-sampling-rate",
    ),
    gone(
        (3, 7),
        "--experimental-distributed-tracing-service-name",
        "--distributed-tracing-service-name",
    ),
    gone(
        (3, 7),
        "--experimental-downgrade-check-time",
        "--downgrade-check-time",
    ),
    gone(
        (3, 7),
        "--experimental-enable-distributed-tracing",
        "--enable-distributed-tracing",
    ),
    gone(
        (3, 7),
        "--experimental-enable-lease-checkpoint",
        "--feature-gates=LeaseCheckpoint=true",
    ),
    gone(
        (3, 7),
        "--experimental-enable-lease-checkpoint-persist",
        "--feature-gates=LeaseCheckpointPersist=true",
    ),
    gone(
        (3, 7),
        "--experimental-initial-corrupt-check",
        "--feature-gates=InitialCorruptCheck=true",
    ),
    gone((3, 7), "--experimental-memory-mlock", "--memory-mlock"),
    gone(
        (3, 7),
        "--experimental-peer-skip-client-san-verification",
        "--peer-skip-client-san-verification",
    ),
    gone(
        (3, 7),
        "--experimental-snapshot-catchup-entries",
        "--snapshot-catchup-entries",
    ),
    gone(
        (3, 7),
        "--experimental-stop-grpc-service-on-defrag",
        "--feature-gates=StopGRPCServiceOnDefrag=true",
    ),
    gone(
        (3, 7),
        "--experimental-txn-mode-write-with-shared-buffer",
        "--feature-gates=TxnModeWriteWithSharedBuffer=…",
    ),
    gone(
        (3, 7),
        "--experimental-warning-apply-duration",
        "--warning-apply-duration",
    ),
    gone(
        (3, 7),
        "--experimental-warning-unary-request-duration",
        "--warning-unary-request-duration",
    ),
    gone(
        (3, 7),
        "--experimental-watch-progress-notify-interval",
        "--watch-progress-notify-interval",
    ),
    gone(
        (3, 7),
        "--discovery",
        "--discovery-endpoints and --discovery-token (v3 discovery), or --initial-cluster",
    ),
    gone((3, 7), "--discovery-proxy", ""),
];

/// What the upgrade check reads.
#[derive(Debug, Clone, Copy)]
pub struct UpgradeFacts<'a> {
    pub look: &'a ClusterLook,
    pub verdict: &'a GateVerdict,
    /// Member name → its `/metrics` figures (the cluster version).
    pub metrics: &'a BTreeMap<String, MemberMetrics>,
    /// Member name → its Pod's etcd arguments (plugin mode; `None`: not
    /// known).
    pub pod_args: Option<&'a BTreeMap<String, Vec<String>>>,
    /// Authentication is on (`None`: not known).
    pub auth: Option<bool>,
    /// What the operator says (plugin mode).
    pub operator: Option<&'a OperatorSays>,
    /// Member name → its Pod's etcd image (plugin mode).
    pub pod_images: &'a BTreeMap<String, String>,
    /// The cluster as remedies name it (`my-etcd -n prod`, or empty).
    pub cluster_args: &'a str,
}

fn upgrade(severity: Severity, check: &str, message: String, remedy: String) -> Finding {
    Finding {
        severity,
        check: format!("upgrade/{check}"),
        member: None,
        message,
        remedy,
        acknowledged: false,
    }
}

/// Members by release, as `name (release)`, of those whose release
/// `pick` takes.
fn named(look: &ClusterLook, pick: impl Fn(Release) -> bool) -> Vec<String> {
    look.members
        .iter()
        .filter_map(|m| Some((m, m.status()?.release()?)))
        .filter(|(_, r)| pick(*r))
        .map(|(m, r)| format!("{} ({r})", m.name))
        .collect()
}

/// Everything that stands in the way of `to`, worst first; one `ok`
/// finding when nothing does.
pub fn check(to: UpgradeTarget, facts: &UpgradeFacts<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    out.extend(path(to, facts.look));
    out.extend(floors(to, facts.look));
    out.extend(auth_wal(to, facts));
    out.extend(in_progress(facts));
    out.extend(health(facts));
    out.extend(flags(to, facts));
    out.extend(operator(to, facts));
    if out.iter().all(|f| f.severity == Severity::Ok) {
        out.push(upgrade(
            Severity::Ok,
            "ready",
            format!("nothing this tool checks stands in the way of etcd {to}"),
            String::new(),
        ));
    }
    out.sort_by_key(|f| std::cmp::Reverse(f.severity));
    out
}

/// One minor at a time, and never down.
fn path(to: UpgradeTarget, look: &ClusterLook) -> Vec<Finding> {
    let mut out = Vec::new();
    let skips = named(look, |r| to.line() > (r.major, r.minor + 1));
    if !skips.is_empty() {
        out.push(upgrade(
            Severity::Critical,
            "skips-a-minor",
            format!(
                "{} would skip a minor release to reach {to}: etcd upgrades one minor at a time, and a member two minors ahead cannot apply what an older leader proposes",
                skips.join(", ")
            ),
            "upgrade to the next minor release first (its latest patch), then check again".into(),
        ));
    }
    let down = named(look, |r| {
        (r.major, r.minor) > to.line()
            || to
                .patch
                .is_some_and(|p| (r.major, r.minor) == to.line() && r.patch > p)
    });
    if !down.is_empty() {
        out.push(upgrade(
            Severity::Critical,
            "downgrade",
            format!("{} already run a later release than {to}: that is a downgrade, not an upgrade", down.join(", ")),
            "to go back a minor release use etcd's downgrade (etcdctl downgrade validate, then enable), never a rolling replace".into(),
        ));
    }
    out
}

/// Patch floors for the step into `to`'s line.
fn floors(to: UpgradeTarget, look: &ClusterLook) -> Vec<Finding> {
    FLOORS
        .iter()
        .filter(|f| f.to == to.line())
        .filter_map(|f| {
            let below = named(look, |r| r.line() == f.at_least.line() && r < f.at_least);
            (!below.is_empty()).then(|| {
                upgrade(
                    Severity::Critical,
                    "patch-floor",
                    format!(
                        "{} run{} below {}, the least etcd supports upgrading to {}.{} from: {}",
                        below.join(", "),
                        if below.len() == 1 { "s" } else { "" },
                        f.at_least,
                        f.to.0,
                        f.to.1,
                        f.why
                    ),
                    format!(
                        "upgrade every {}.{} member to {} or later (the latest {}.{} patch) first, one member at a time",
                        f.at_least.major, f.at_least.minor, f.at_least, f.at_least.major, f.at_least.minor
                    ),
                )
            })
        })
        .collect()
}

/// 3.4 → 3.5 with authentication on.
fn auth_wal(to: UpgradeTarget, facts: &UpgradeFacts<'_>) -> Vec<Finding> {
    let from_34 = named(facts.look, |r| r.line() == (3, 4));
    if to.line() != (3, 5) || from_34.is_empty() || facts.auth == Some(false) {
        return vec![];
    }
    let (severity, known) = match facts.auth {
        Some(true) => (Severity::Critical, "authentication is on"),
        _ => (
            Severity::Warning,
            "if authentication is on (this tool could not tell)",
        ),
    };
    vec![upgrade(
        severity,
        "auth-wal-format",
        format!(
            "{} run 3.4 and {known}: etcd does not support a rolling upgrade from 3.4 to 3.5 with authentication on, because 3.5 changed the WAL format of auth entries (etcd PR 11943)",
            from_34.join(", ")
        ),
        "move to 3.5 without a rolling upgrade (a new 3.5 cluster restored from `kubectl etcd snapshot save`), as etcd's 3.5 upgrade guide says".into(),
    )]
}

/// An upgrade or downgrade not finished: mixed releases, the cluster or
/// storage version behind the members, a downgrade enabled.
fn in_progress(facts: &UpgradeFacts<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    let look = facts.look;
    let releases: Vec<(String, Release)> = look
        .members
        .iter()
        .filter_map(|m| Some((m.name.clone(), m.status()?.release()?)))
        .collect();
    let lines: std::collections::BTreeSet<(u32, u32)> =
        releases.iter().map(|(_, r)| r.line()).collect();
    let distinct: std::collections::BTreeSet<Release> = releases.iter().map(|(_, r)| *r).collect();
    if distinct.len() > 1 {
        let all: Vec<String> = releases.iter().map(|(n, r)| format!("{n} {r}")).collect();
        let severity = if lines.len() > 1 {
            Severity::Critical
        } else {
            Severity::Warning
        };
        out.push(upgrade(
            severity,
            "mixed-versions",
            format!("the members run different releases: {}", all.join(", ")),
            if lines.len() > 1 {
                "finish the upgrade in progress (every member on one minor release, and the cluster version caught up) before starting another".into()
            } else {
                "bring every member to one release first, so that each one's fixes are known".into()
            },
        ));
    }
    let lowest_line = lines.first().copied();
    let cluster: std::collections::BTreeSet<(u32, u32)> = facts
        .metrics
        .values()
        .filter_map(|m| m.cluster_version)
        .collect();
    if let (Some(cv), Some(low)) = (cluster.first(), lowest_line) {
        if *cv < low {
            out.push(upgrade(
                Severity::Critical,
                "cluster-version",
                format!(
                    "the cluster version is {}.{} while every member runs {}.{} or later: the last upgrade has not finished (etcd raises it once every member runs the new release)",
                    cv.0, cv.1, low.0, low.1
                ),
                "wait until the members report the new cluster version (etcd_cluster_version in their /metrics, or `etcdctl endpoint status`) before the next upgrade".into(),
            ));
        }
    }
    for m in &look.members {
        let Some(s) = m.status() else { continue };
        if let (Some(storage), Some(r)) = (
            s.storage_version.as_deref().and_then(Release::parse),
            s.release(),
        ) {
            // Said, not held against the upgrade: a 3.6 member reports
            // 3.5 until its first snapshot after the cluster version is
            // decided (a new cluster with few writes does, as the test
            // bed's 3.6.16 showed).
            if storage.line() < r.line() {
                out.push(upgrade(
                    Severity::Ok,
                    "storage-version",
                    format!(
                        "{}: its storage version is {}.{} while it runs {r}: etcd moves it up at the member's next snapshot after the cluster version is decided (every --snapshot-count entries)",
                        m.name, storage.major, storage.minor
                    ),
                    String::new(),
                ));
            }
        }
        if let Some(target) = &s.downgrading_to {
            out.push(upgrade(
                Severity::Critical,
                "downgrade-in-progress",
                format!("{} reports a downgrade to {target} in progress", m.name),
                "finish the downgrade or cancel it (etcdctl downgrade cancel) before upgrading"
                    .into(),
            ));
        }
    }
    out
}

/// The gate, alarms and learners, as an upgrade meets them.
fn health(facts: &UpgradeFacts<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    if !facts.verdict.passed() {
        let reasons: Vec<String> = facts
            .verdict
            .reasons
            .iter()
            .map(ToString::to_string)
            .collect();
        out.push(upgrade(
            Severity::Critical,
            "health",
            format!(
                "the health gate refuses: {}; a rolling upgrade restarts every member, and on an unhealthy cluster a restart can cost quorum",
                reasons.join("; ")
            ),
            "fix what the gate names first (kubectl etcd status --check)".into(),
        ));
    }
    if !facts.look.alarms.is_empty() {
        let alarms: Vec<String> = facts
            .look
            .alarms
            .iter()
            .map(|a| format!("{} on member {:x}", a.kind.as_str(), a.member_id))
            .collect();
        out.push(upgrade(
            Severity::Critical,
            "alarm",
            format!("alarms are raised: {}", alarms.join(", ")),
            format!(
                "clear them first (kubectl etcd doctor {} says how)",
                facts.cluster_args
            )
            .trim_end()
            .to_string(),
        ));
    }
    let learners: Vec<&str> = facts
        .look
        .members
        .iter()
        .filter(|m| m.is_learner())
        .map(|m| m.name.as_str())
        .collect();
    if !learners.is_empty() {
        out.push(upgrade(
            Severity::Warning,
            "learner",
            format!(
                "{} {} a learner: upgrades from 3.5 to 3.6 failed with \"too many learner member\" where promotions were not persisted",
                learners.join(", "),
                if learners.len() == 1 { "is" } else { "are" }
            ),
            "promote or remove learners before the upgrade (kubectl etcd member promote)"
                .into(),
        ));
    }
    out
}

/// Flags the members run with that `to` no longer accepts.
fn flags(to: UpgradeTarget, facts: &UpgradeFacts<'_>) -> Vec<Finding> {
    let gone: Vec<&RemovedFlag> = REMOVED_FLAGS
        .iter()
        .filter(|f| f.gone_in <= to.line())
        .filter(|f| {
            // Only the step that crosses where it went: members already
            // past it were started without it.
            !named(facts.look, |r| r.line() < f.gone_in).is_empty()
        })
        .collect();
    if gone.is_empty() {
        return vec![];
    }
    let Some(args) = facts.pod_args else {
        let list: Vec<&str> = gone.iter().map(|f| f.flag).collect();
        return vec![upgrade(
            Severity::Warning,
            "flags",
            format!(
                "the members' flags could not be read (they are read from the member Pods in plugin mode): etcd {to} does not start with any of {}",
                list.join(", ")
            ),
            "check each member's command line, environment (ETCD_… variables) and config file for them before upgrading".into(),
        )];
    };
    let mut out = Vec::new();
    for (member, argv) in args {
        let used: Vec<String> = gone
            .iter()
            .filter(|f| {
                argv.iter()
                    .any(|a| a == f.flag || a.starts_with(&format!("{}=", f.flag)))
            })
            .map(|f| {
                if f.instead.is_empty() {
                    f.flag.to_string()
                } else {
                    format!("{} (now {})", f.flag, f.instead)
                }
            })
            .collect();
        if !used.is_empty() {
            out.push(Finding {
                severity: Severity::Critical,
                check: "upgrade/flags".into(),
                member: Some(member.clone()),
                message: format!(
                    "{member} is started with {}, which etcd {to} no longer accepts: it would not start",
                    used.join(", ")
                ),
                remedy: "change its flags to the new names before the upgrade (the new names need etcd 3.6 or later; 3.5 knows only the old ones)".into(),
                acknowledged: false,
            });
        }
    }
    out
}

/// The release an image's tag names (`…/etcd:v3.6.16`, `…:3.6.16-0`).
fn image_release(image: &str) -> Option<Release> {
    let tag = image.rsplit_once(':')?.1;
    if tag.contains('/') {
        return None;
    }
    Release::parse(tag.split('@').next()?)
}

/// Where the operator upgrades (its `spec.version`), and member Pods whose
/// image names another release than the member runs: a Pod changed and
/// not restarted yet, or a rollout halfway.
fn operator(to: UpgradeTarget, facts: &UpgradeFacts<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    for m in &facts.look.members {
        let (Some(image), Some(running)) = (
            facts.pod_images.get(&m.name),
            m.status().and_then(|s| s.release()),
        ) else {
            continue;
        };
        if let Some(named) = image_release(image).filter(|r| *r != running) {
            out.push(Finding {
                severity: Severity::Warning,
                check: "upgrade/pod-image".into(),
                member: Some(m.name.clone()),
                message: format!(
                    "{}'s Pod has image {image} ({named}) while the member runs {running}: the Pod was changed and has not restarted, or a rollout is halfway",
                    m.name
                ),
                remedy: "let the change finish (or roll it back) before starting another".into(),
                acknowledged: false,
            });
        }
    }
    out.extend(operator_version(to, facts));
    out
}

/// The operator's `spec.version`, when it is below the target.
fn operator_version(to: UpgradeTarget, facts: &UpgradeFacts<'_>) -> Vec<Finding> {
    let Some(version) = facts.operator.and_then(|o| o.version.as_deref()) else {
        return vec![];
    };
    let Some(at) = Release::parse(version) else {
        return vec![];
    };
    if at.line() >= to.line() {
        return vec![];
    }
    vec![upgrade(
        Severity::Ok,
        "operator",
        format!(
            "the operator keeps the members at {version} (status.observed.version, else spec.version): it rolls them to a new release when spec.version changes"
        ),
        String::new(),
    )]
}

#[cfg(test)]
mod tests;
