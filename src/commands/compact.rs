//! `compact`: compact the key-value history at the revision the user asked
//! for (`plan::compact` decides it from the cluster's current and last
//! compacted revisions), through the leader, after the health gate passes;
//! then wait for every member's in-use size to settle and report it.

use crate::cli::{CompactArgs, GlobalArgs, OutputFormat};
use crate::error::{Error, ExitStatus, Result};
use crate::etcd::EtcdOps;
use crate::exec::{wait, RunControl};
use crate::output;
use crate::plan::compact::{self, Keep};
use crate::plan::gate::{self, GateOptions};
use crate::report::{CompactReport, CompactedMember};
use crate::snapshot::{self, ClusterSnapshot};

pub async fn run(global: &GlobalArgs, args: &CompactArgs) -> Result<ExitStatus> {
    let keep = match (args.revision, args.keep) {
        (Some(r), _) => Keep::Revision(r),
        (None, Some(n)) => Keep::Last(n),
        (None, None) => return Err(Error::usage("pass --revision N or --keep N")),
    };
    output::prompt::require_consent(args.yes, args.dry_run, "compact")?;
    let session = crate::reach::session::open(global, args.cluster.cluster.as_deref()).await?;
    let (ops, target) = (&session.clients, &session.target);
    let snap = snapshot::take(ops, target).await?;
    let verdict = gate::evaluate(&snap, &GateOptions::from(&args.gate));
    if let Some(refused) = super::gate_refusal(&verdict) {
        return Ok(refused);
    }
    let leader = verdict
        .leader
        .and_then(|id| snap.member_by_id(id))
        .ok_or_else(|| Error::Refused("the members agree on no leader".into()))?;
    let leader_dial = leader
        .dial
        .clone()
        .ok_or_else(|| Error::Refused("the leader has no client URL to dial".into()))?;
    let current = snap
        .members
        .iter()
        .filter_map(|m| m.status().map(|s| s.revision))
        .max()
        .unwrap_or(0);
    let compacted = ops
        .hash_kv(&leader_dial, 0)
        .await
        .map_err(|e| Error::etcd("read the compacted revision (HashKV)", e))?
        .compact_revision
        // etcd says -1 before the first compaction.
        .max(0);
    let revision = compact::revision(keep, current, compacted).map_err(Error::usage)?;

    let mut report = CompactReport {
        cluster: target.cluster.clone(),
        dry_run: args.dry_run,
        revision,
        current_revision: current,
        compacted_before: compacted,
        physical: args.physical,
        leader: leader.name.clone(),
        members: sizes(&snap, None),
    };
    if !args.dry_run {
        if !args.yes
            && !output::prompt::confirm_async(format!(
                "Compact every revision before {revision} (current {current})?"
            ))
            .await?
        {
            return Ok(super::failed("not confirmed; nothing changed"));
        }
        ops.compact(&leader_dial, revision, args.physical)
            .await
            .map_err(|e| Error::etcd(format!("compact at revision {revision}"), e))?;
        let dials: Vec<_> = snap.members.iter().filter_map(|m| m.dial.clone()).collect();
        // Interrupting only cuts the wait short; the compaction is done.
        let _ = wait::settle(ops, &dials, &RunControl::default()).await;
        let after = snapshot::take(ops, target).await?;
        report.members = sizes(&snap, Some(&after));
    }
    let text = match global.output {
        OutputFormat::Table | OutputFormat::Wide => output::table::compact(&report),
        format => output::render_data(&report, format)?,
    };
    output::emit(&text)?;
    Ok(ExitStatus::Success)
}

/// Each answering member's sizes in `before`, and its in-use size in
/// `after` when given.
fn sizes(before: &ClusterSnapshot, after: Option<&ClusterSnapshot>) -> Vec<CompactedMember> {
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
