//! `compact`: compact the key-value history at the revision the user asked
//! for (`plan::compact` decides it from the cluster's current and last
//! compacted revisions), through the leader, after the health gate passes;
//! then wait for every member's in-use size to settle and report it.

use super::change::{self, Acted, Change, Decided};
use crate::error::{Error, ExitStatus, Result};
use crate::etcd::{clock, EtcdOps};
use crate::exec::signals::{self, Notices};
use crate::exec::{wait, RunControl};
use crate::look::ClusterLook;
use crate::plan::compact::{self, Decision, Keep};
use crate::plan::gate::{self};
use crate::reach::Dial;
use crate::report::{CompactReport, CompactedMember, NotRefreshed};
use crate::session::Session;
use crate::settings::command::{Compact as CompactArgs, CompactAt};
use crate::settings::{Consent, Global};

pub async fn run(global: &Global, args: &CompactArgs) -> Result<ExitStatus> {
    change::run(global, Compact { args }).await
}

struct Compact<'a> {
    args: &'a CompactArgs,
}

/// The compaction decided on, with the session and the look it was
/// decided on.
struct At {
    session: Session,
    look: ClusterLook,
    leader: Dial,
    revision: i64,
    current: i64,
}

impl Change for Compact<'_> {
    type Plan = At;
    type Report = CompactReport;

    fn verb(&self) -> &'static str {
        "compact"
    }

    fn consent(&self) -> Consent {
        self.args.consent
    }

    async fn decide(&self, global: &Global) -> Result<Decided<At, CompactReport>> {
        let args = self.args;
        let session = crate::session::open(&global.reach, args.cluster.as_deref()).await?;
        let (ops, target) = (&session.clients, &session.target);
        let look = crate::etcd::take::look(ops, target).await?;
        // A compaction takes no member out of service, so the gate's quorum
        // margin (one or two voters) does not apply (settled so); everything
        // else does.
        let verdict = gate::evaluate(&look, &args.gate);
        super::gate_passes(&verdict)?;
        let leader = verdict
            .leader
            .and_then(|id| look.member_by_id(id))
            .ok_or_else(|| Error::refused("the members agree on no leader"))?;
        let leader_dial = leader
            .dial
            .clone()
            .ok_or_else(|| Error::refused("the leader has no client URL to dial"))?;
        let (current, compacted) = crate::etcd::take::revisions(ops, &look, &leader_dial).await?;
        let mut written_at = None;
        let keep = match &args.at {
            CompactAt::Revision(r) => Keep::Revision(*r),
            CompactAt::Last(n) => Keep::Last(*n),
            CompactAt::Within { age, leases_prefix } => {
                let age = *age;
                let (revision, at) =
                    dated(ops, &leader_dial, leases_prefix, (compacted, current), age).await?;
                written_at = at;
                Keep::Dated {
                    revision,
                    age: crate::quantity::format_duration_parts(age),
                }
            }
        };
        let (revision, nothing) =
            match compact::decide(keep, current, compacted).map_err(Error::usage)? {
                Decision::At(r) => (r, None),
                Decision::Nothing(why) => (compacted, Some(why)),
            };
        let mut report = CompactReport {
            cluster: target.cluster.clone(),
            dry_run: args.consent.dry_run,
            revision,
            current_revision: current,
            compacted_before: compacted,
            physical: args.physical,
            written_at: written_at
                .and_then(|t| jiff::Timestamp::from_second(t).ok().map(|t| t.to_string())),
            leader: leader.name.clone(),
            members: sizes(&look, None),
            in_use_not_refreshed: None,
            nothing_to_compact: nothing,
        };
        if report.nothing_to_compact.is_some() {
            // What was asked to go is gone already: nothing is sent, exit 0.
            report.members = Vec::new();
            return Ok(Decided::Nothing(report));
        }
        let plan = At {
            session,
            look,
            leader: leader_dial,
            revision,
            current,
        };
        Ok(Decided::Act { plan, report })
    }

    async fn confirm(&self, plan: &At) -> Result<bool> {
        crate::output::prompt::confirm_async(format!(
            "Compact every revision before {} (current {})?",
            plan.revision, plan.current
        ))
        .await
    }

    // A signal never kills the process mid-compaction: the compaction in
    // flight is finished and reported; only the wait for sizes to settle
    // is cut short.
    fn notices(&self) -> Notices {
        Notices {
            first: "reporting once the compaction in flight is done, without waiting for sizes to settle".into(),
            hint: Some("to stop waiting for the compaction".into()),
            second: "no longer waiting; the compaction may or may not have been applied".into(),
        }
    }

    fn untouched(&self, _plan: &At) -> String {
        "nothing was compacted".into()
    }

    async fn act(
        &self,
        plan: At,
        report: &mut CompactReport,
        control: &RunControl,
    ) -> Result<Acted> {
        let (session, look) = (&plan.session, &plan.look);
        let ops = &session.clients;
        let revision = plan.revision;
        let Some(compacted) = signals::unless_abandoned(
            control,
            ops.compact(&plan.leader, revision, self.args.physical),
        )
        .await
        else {
            return Ok(Acted::Abandoned);
        };
        compacted.map_err(|e| Error::etcd(format!("compact at revision {revision}"), e))?;
        let dials: Vec<_> = look.members.iter().filter_map(|m| m.dial.clone()).collect();
        // A signal only cuts the wait short; the compaction is done.
        let refused = wait::refresh_and_settle(ops, &plan.leader, &dials, control)
            .await
            .unwrap_or(None);
        let after = crate::etcd::take::look(ops, &session.target).await?;
        report.members = sizes(look, Some(&after));
        if let Some(why) = refused {
            let members = crate::plan::compact::not_refreshed(look, &after);
            for m in report
                .members
                .iter_mut()
                .filter(|m| members.contains(&m.name))
            {
                m.in_use_after = None;
            }
            if !members.is_empty() {
                report.in_use_not_refreshed = Some(NotRefreshed { members, why });
            }
        }
        Ok(Acted::Done)
    }
}

/// For `--keep-duration`: the newest revision written at least `age` ago,
/// dated by the Leases under `prefix`, and when it was written (`None`
/// when it predates every Lease). Refused (exit 2) when nothing dates
/// the revisions.
async fn dated<O: EtcdOps>(
    ops: &O,
    leader: &crate::reach::Dial,
    prefix: &str,
    (compacted, current): (i64, i64),
    age: std::time::Duration,
) -> Result<(i64, Option<i64>)> {
    let shown = crate::quantity::format_duration_parts(age);
    let clock = |e| Error::etcd(format!("date revisions by the Leases under {prefix}"), e);
    if clock::time_at(ops, leader, prefix, current)
        .await
        .map_err(clock)?
        .is_none()
    {
        return Err(Error::usage(format!(
            "--keep-duration {shown}: etcd records no time per revision, and no Lease under {prefix} dates them (a Kubernetes API server writes them there); use --keep N or --revision N, or point --leases-prefix at them"
        )));
    }
    let now = jiff::Timestamp::now().as_second();
    let before = now - i64::try_from(age.as_secs()).unwrap_or(i64::MAX / 2);
    let low = compacted.max(1);
    match clock::revision_before(ops, leader, prefix, (low, current), before)
        .await
        .map_err(clock)?
    {
        Some(found) => Ok(found),
        // Even the oldest revision kept is younger: nothing to compact.
        None => Ok((compacted, None)),
    }
}

/// Each answering member's sizes in `before`, and its in-use size in
/// `after` when given.
fn sizes(before: &ClusterLook, after: Option<&ClusterLook>) -> Vec<CompactedMember> {
    before
        .members
        .iter()
        .filter_map(|m| {
            let status = m.status()?;
            let in_use_after = after.and_then(|a| {
                a.members
                    .iter()
                    .find(|n| n.name == m.name)
                    .and_then(|n| n.status())
                    .map(|s| s.db_size_in_use)
            });
            Some(CompactedMember {
                name: m.name.clone(),
                db_size: status.db_size,
                in_use_before: status.db_size_in_use,
                in_use_after,
            })
        })
        .collect()
}
