//! Beside other processors of the same cluster (issue 37): what they say
//! about the next member, right before its Defragment — their runs, and a
//! policy tick due while it would defragment, waited out (a child of
//! `sweep`, so it reaches the sweep's own state).

use std::time::Duration;

use super::super::events::RunEvent;
use super::Sweep;
use crate::etcd::EtcdOps;
use crate::plan::defrag::PlannedMember;
use crate::plan::gate;
use crate::report::StopReason;

/// How long after a policy's tick its run is looked for: the operator
/// stamps it within its next reconcile, and its defrag controller starts
/// on it at once.
const TICK_GRACE: Duration = Duration::from_secs(5);

/// Added to twice the next member's predicted defrag, for a tick to count
/// as inside it.
const TICK_MARGIN: Duration = Duration::from_secs(5);

/// Ticks waited out before one step, before the tick refuses it (a
/// schedule faster than one member's defrag).
const MAX_TICK_WAITS: u32 = 3;

impl<O: EtcdOps> Sweep<'_, O> {
    /// What other processors say about defragmenting `next` now
    /// (`RunInput::others`): the gate reasons their runs give. A policy
    /// tick due within twice the member's predicted defrag (and
    /// [`TICK_MARGIN`]) is waited out until [`TICK_GRACE`] after it, when
    /// its run, if it stamped one, is there to see; after
    /// [`MAX_TICK_WAITS`] such waits the tick is the reason.
    pub(super) async fn outside(
        &self,
        next: &PlannedMember,
    ) -> Result<Vec<gate::GateReason>, StopReason> {
        let Some(others) = self.others.as_deref() else {
            return Ok(Vec::new());
        };
        let (predicted, _) = crate::plan::defrag::predict(next.in_use, &self.measured);
        let window = Duration::from_secs_f64(2.0 * predicted) + TICK_MARGIN;
        let mut waits = 0;
        loop {
            let read = others.active().await;
            let now = jiff::Timestamp::now();
            let tick = read
                .as_ref()
                .ok()
                .and_then(|o| gate::tick_within(o, now, window));
            let Some(gate::DueTick {
                policy,
                at,
                overdue,
            }) = tick
            else {
                return Ok(gate::others(&read));
            };
            let reason = gate::GateReason::PolicyTickDue {
                policy,
                at,
                window,
                overdue,
            };
            if waits >= MAX_TICK_WAITS {
                return Ok(vec![reason]);
            }
            waits += 1;
            let wait = Duration::try_from(at.duration_since(now))
                .unwrap_or_default()
                .saturating_add(TICK_GRACE);
            self.observer
                .event(RunEvent::GateRefused {
                    reasons: vec![reason],
                    retry_in: Some(wait),
                })
                .await;
            self.control.sleep(wait).await.map_err(|h| h.reason(None))?;
        }
    }
}
