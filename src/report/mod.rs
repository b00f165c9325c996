//! Reports: the one `Serialize` structure per command that the table, JSON
//! and YAML renderers all print. Built purely from a snapshot and a verdict.
//!
//! Field names are camelCase and stable (documented in `docs/output.md`);
//! sizes are bytes; member ids are 16 zero-padded lower-case hex digits, the
//! form EtcdMember `status.memberID`, tables and `move-leader` use (etcd's
//! own JSON prints them in decimal). Reasons and results are typed enums
//! whose stable strings are what JSON shows.
//!
//! Each command's report lives in its own file; this module keeps what
//! several of them share (the member id form, a member's outcome and
//! reason, alarm rows and actions, in-use figures not refreshed) and
//! re-exports every report type, so `crate::report::X` is the path for all.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::look::ClusterLook;
use crate::plan::defrag::SkipReason;
pub use crate::reach::ClusterRef;

pub mod alarm;
pub mod compact;
pub mod defrag;
pub mod doctor;
/// `defrag -A` / `defrag -l`: a row per cluster around its `DefragReport`.
pub mod fleet;
pub mod members;
pub mod move_leader;
pub mod snapshot;
pub mod status;
pub mod traffic;
pub mod usage;

pub use alarm::{AlarmDisarmReport, AlarmListReport};
pub use compact::{CompactReport, CompactedMember};
pub use defrag::{
    DefragReport, HashCheck, HashVerdict, LeaderReport, MemberHash, MemberResult, OperatorRun,
    StopReason, Stopped,
};
pub use doctor::{DoctorReport, FleetDoctorReport};
pub use fleet::{FleetCluster, FleetOutcome, FleetReport, FleetTotals};
pub use members::{MemberChangeReport, MemberListRow, MembersReport, QuorumView};
pub use move_leader::MoveLeaderReport;
pub use snapshot::{SnapshotContents, SnapshotSaveReport, SnapshotStatusReport};
pub use status::{
    ClusterStatus, DefragActivity, GateView, MemberRow, MultiStatusReport, PolicyNext, Quota,
    RunSummary, StatusReport,
};
pub use traffic::{Change, ServerSupport, TrafficReport, ValueSupport};
pub use usage::UsageReport;

/// One kubeconfig context of a command over several (`--context` more
/// than once, `--all-contexts`): the API server it names, how many
/// clusters were listed there, or why none could be.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ContextRow {
    pub name: String,
    /// The API server the context's cluster names.
    pub server: Option<String>,
    /// The clusters listed there; `null` when the context could not be
    /// reached.
    pub clusters: Option<usize>,
    /// Why its clusters could not be listed.
    pub error: Option<String>,
}

impl ContextRow {
    /// The contexts whose clusters could not be listed: each is one row of
    /// a table, and counts as a cluster needing attention.
    pub fn unreached(rows: &[ContextRow]) -> impl Iterator<Item = &ContextRow> {
        rows.iter().filter(|c| c.error.is_some())
    }
}

/// One raised alarm.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AlarmRow {
    pub member: String,
    pub member_id: String,
    pub alarm: String,
}

impl AlarmRow {
    /// Every alarm in the look, with the member's name. Pure.
    pub fn all(look: &ClusterLook) -> Vec<AlarmRow> {
        look.alarms
            .iter()
            .map(|a| AlarmRow {
                member: look.name_of(a.member_id),
                member_id: member_id(a.member_id),
                alarm: a.kind.as_str().to_string(),
            })
            .collect()
    }
}

/// In-use figures that are not known: etcd recomputes a member's in-use
/// size when it commits its backend, and after a compaction the tool's
/// refresh (a Lease granted and revoked) was refused, so members whose
/// figure did not move still show the size from before the compaction.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NotRefreshed {
    pub members: Vec<String>,
    /// Why the refresh was refused (etcd's words).
    pub why: String,
}

/// A member's outcome (the EtcdDefrag `outcome` values). Its serde names
/// are the one spelling: [`Outcome::as_str`] writes them and
/// [`Outcome::parse`] reads them back, so a status row written by one run
/// is read as the same outcome by the next.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Outcome {
    /// Not reached (the run stopped first), or planned in a dry run.
    Pending,
    Skipped,
    Defragmented,
    Failed,
}

impl Outcome {
    /// The stable string (the variant's serde name).
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Pending => "Pending",
            Outcome::Skipped => "Skipped",
            Outcome::Defragmented => "Defragmented",
            Outcome::Failed => "Failed",
        }
    }

    /// The outcome whose stable string `text` is; `None` for any other
    /// text. Read through the serde names, so every variant is known here
    /// the moment it is declared.
    pub fn parse(text: &str) -> Option<Outcome> {
        by_serde_name(text)
    }
}

/// Why a member ended as it did. The strings are the EtcdDefrag
/// `status.members[].reason` values (and ours, in the same style); as with
/// [`Outcome`], the serde names are the one spelling, written by
/// [`MemberReason::as_str`] and read back by [`MemberReason::parse`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum MemberReason {
    /// Skipped: the rule did not trigger.
    BelowThreshold,
    /// Skipped: learners are reported, not defragmented.
    Learner,
    /// Skipped: not named by `--member`.
    NotSelected,
    /// Skipped: an earlier attempt's Defragment of it was in flight when
    /// that attempt stopped, and it now has nothing to reclaim.
    AlreadyReclaimed,
    /// Failed: the Defragment RPC failed or timed out.
    #[serde(rename = "RPCError")]
    RpcError,
    /// Defragmented, but the size afterwards could not be read.
    AfterSizeUnavailable,
    /// Failed: planned, but no longer a member of the cluster.
    MemberGone,
    /// Failed: the member has no client URL to dial.
    NoEndpoint,
    /// Skipped: it did not answer Status (the detail has its probe error);
    /// its sizes are not known.
    Unreachable,
    /// Skipped: the kubelet would restart it mid-defrag (the detail has
    /// its probe, the numbers and the flag that overrides it).
    ProbeBudget,
    /// Skipped: its data volume lacks the free space a defrag needs (the
    /// detail has the numbers and where they were read).
    NoDiskRoom,
}

impl MemberReason {
    /// The stable string (the variant's serde name).
    pub fn as_str(self) -> &'static str {
        match self {
            MemberReason::BelowThreshold => "BelowThreshold",
            MemberReason::Learner => "Learner",
            MemberReason::NotSelected => "NotSelected",
            MemberReason::AlreadyReclaimed => "AlreadyReclaimed",
            MemberReason::RpcError => "RPCError",
            MemberReason::AfterSizeUnavailable => "AfterSizeUnavailable",
            MemberReason::MemberGone => "MemberGone",
            MemberReason::NoEndpoint => "NoEndpoint",
            MemberReason::Unreachable => "Unreachable",
            MemberReason::ProbeBudget => "ProbeBudget",
            MemberReason::NoDiskRoom => "NoDiskRoom",
        }
    }

    /// The reason whose stable string `text` is; `None` for any other text
    /// (the empty string of a row without a reason included).
    pub fn parse(text: &str) -> Option<MemberReason> {
        by_serde_name(text)
    }
}

impl From<SkipReason> for MemberReason {
    fn from(r: SkipReason) -> Self {
        match r {
            SkipReason::BelowThreshold => MemberReason::BelowThreshold,
            SkipReason::Learner => MemberReason::Learner,
            SkipReason::NotSelected => MemberReason::NotSelected,
            SkipReason::AlreadyReclaimed => MemberReason::AlreadyReclaimed,
            SkipReason::Unreachable => MemberReason::Unreachable,
            SkipReason::ProbeBudget => MemberReason::ProbeBudget,
            SkipReason::NoDiskRoom => MemberReason::NoDiskRoom,
        }
    }
}

impl fmt::Display for MemberReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The variant of a unit-only enum whose serde name is `text`, as serde
/// itself reads it; `None` for any other text.
fn by_serde_name<T: serde::de::DeserializeOwned>(text: &str) -> Option<T> {
    use serde::de::IntoDeserializer;
    let text: serde::de::value::StrDeserializer<'_, serde::de::value::Error> =
        text.into_deserializer();
    T::deserialize(text).ok()
}

/// A member id as users see it elsewhere (EtcdMember `status.memberID`):
/// 16 lower-case hex digits, zero-padded.
pub fn member_id(id: u64) -> String {
    format!("{id:016x}")
}

/// What became of one alarm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum AlarmResult {
    #[serde(rename = "disarmed")]
    Disarmed,
    /// `alarm disarm --dry-run`.
    #[serde(rename = "would disarm")]
    WouldDisarm,
    /// Left raised, on purpose (the `why` says).
    #[serde(rename = "kept")]
    Kept,
    /// The disarm RPC failed.
    #[serde(rename = "failed")]
    Failed,
}

impl AlarmResult {
    pub fn as_str(self) -> &'static str {
        match self {
            AlarmResult::Disarmed => "disarmed",
            AlarmResult::WouldDisarm => "would disarm",
            AlarmResult::Kept => "kept",
            AlarmResult::Failed => "failed",
        }
    }
}

/// One alarm and what was done about it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AlarmAction {
    pub member: String,
    pub member_id: String,
    pub alarm: String,
    pub result: AlarmResult,
    pub why: String,
    /// The disarm failed because etcd refused the user the role it needs
    /// (configuration: `alarm disarm` ends with exit 2, as a bad flag).
    #[serde(skip)]
    pub denied: bool,
}
