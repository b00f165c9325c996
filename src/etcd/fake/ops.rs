//! The fake's answers to every `EtcdOps` call, from its `State`.

use super::*;

fn revision_unavailable(detail: &str) -> FailureCause {
    FailureCause::RevisionUnavailable {
        detail: detail.to_string(),
    }
}

impl EtcdOps for FakeCluster {
    async fn status(&self, dial: &Dial) -> Result<MemberStatus, RpcError> {
        self.call(Op::Status, dial, PROBE_TIMEOUT, |s, i| Ok(s.status_of(i)))
            .await
    }

    async fn member_list(&self, dial: &Dial) -> Result<Vec<ListedMember>, RpcError> {
        self.call(Op::MemberList, dial, PROBE_TIMEOUT, |s, _| {
            Ok(s.member_list())
        })
        .await
    }

    async fn alarm_list(&self, dial: &Dial) -> Result<Vec<Alarm>, RpcError> {
        self.call(Op::AlarmList, dial, PROBE_TIMEOUT, |s, _| {
            Ok(s.alarms.clone())
        })
        .await
    }

    async fn alarm_disarm(&self, dial: &Dial, alarm: &Alarm) -> Result<(), RpcError> {
        let alarm = alarm.clone();
        self.call(Op::AlarmDisarm, dial, PROBE_TIMEOUT, move |s, _| {
            s.alarms.retain(|a| *a != alarm);
            Ok(())
        })
        .await
    }

    /// Starts the member's defragmentation and waits for it, at most
    /// `limit`; the server finishes it either way. Withheld (and not
    /// recorded as a call) when `may_send` says no.
    async fn defragment(
        &self,
        dial: &Dial,
        limit: Duration,
        may_send: &(dyn Fn() -> bool + Sync),
    ) -> Result<(), RpcError> {
        if !may_send() {
            return Err(rpc_error(Op::Defragment, dial, FailureCause::Withheld));
        }
        let begun = self.begin(Op::Defragment, dial, limit);
        tokio::time::sleep(begun.wait).await;
        let takes = {
            let now = Instant::now();
            let mut s = self.lock();
            s.tick(now);
            match (begun.fail, begun.member) {
                (Some(cause), _) => {
                    s.end(begun.call, false);
                    return Err(rpc_error(Op::Defragment, dial, cause));
                }
                (None, None) => {
                    s.end(begun.call, false);
                    return Err(rpc_error(Op::Defragment, dial, FailureCause::Refused));
                }
                (None, Some(i)) => {
                    let name = s.members[i].name.clone();
                    let others: Vec<(String, String)> = s
                        .members
                        .iter()
                        .filter(|m| m.busy_until.is_some() && m.name != name)
                        .map(|m| (m.name.clone(), name.clone()))
                        .collect();
                    s.overlaps.extend(others);
                    if s.members[i].id == s.leader {
                        s.led_while_defragmented.push(name.clone());
                    }
                    let takes = s.members[i].defrag_time;
                    s.members[i].busy_until = Some(now + takes);
                    takes
                }
            }
        };
        let left = limit.saturating_sub(begun.wait);
        let answered = takes <= left;
        tokio::time::sleep(if answered { takes } else { left }).await;
        let mut s = self.lock();
        s.tick(Instant::now());
        s.end(begun.call, answered);
        if answered {
            Ok(())
        } else {
            Err(rpc_error(
                Op::Defragment,
                dial,
                FailureCause::Timeout { after: limit },
            ))
        }
    }

    async fn move_leader(&self, leader: &Dial, to: u64) -> Result<(), RpcError> {
        self.call(Op::MoveLeader, leader, PROBE_TIMEOUT, move |s, i| {
            if s.members[i].id != s.leader {
                return Err(FailureCause::Other("etcdserver: not leader".into()));
            }
            let Some(t) = s.members.iter().position(|m| m.id == to && !m.removed) else {
                return Err(FailureCause::Other(
                    "etcdserver: bad leader transferee".into(),
                ));
            };
            let name = s.members[t].name.clone();
            s.apply(Change::LeaderTo(name));
            Ok(())
        })
        .await
    }

    async fn backend_quota(&self, _dial: &Dial) -> Option<u64> {
        self.lock().metrics_quota
    }

    async fn metrics(&self, dial: &Dial) -> Result<std::sync::Arc<str>, String> {
        Err(format!(
            "the scripted fake serves no /metrics ({})",
            dial.endpoint
        ))
    }

    async fn raft_progress(&self, leader: &Dial) -> Result<BTreeMap<u64, String>, String> {
        let s = self.lock();
        let asked = s
            .members
            .iter()
            .find(|m| m.endpoint == leader.endpoint)
            .ok_or("no such member")?;
        if asked.id != s.leader {
            return Err("the member asked is not the leader".into());
        }
        Ok(s.members
            .iter()
            .filter(|m| !m.removed)
            .map(|m| {
                let state = s.progress.get(&m.name).cloned();
                (m.id, state.unwrap_or_else(|| "StateReplicate".into()))
            })
            .collect())
    }

    async fn snapshots_in_flight(
        &self,
        dial: &Dial,
        _read: crate::etcd::Read,
    ) -> Result<u64, String> {
        let s = self.lock();
        let m = s
            .members
            .iter()
            .find(|m| m.endpoint == dial.endpoint)
            .ok_or("no such member")?;
        Ok(s.snapshots.get(&m.name).copied().unwrap_or(0))
    }

    async fn refresh_sizes(&self, dial: &Dial) -> Result<(), RpcError> {
        self.call(Op::RefreshSizes, dial, PROBE_TIMEOUT, |s, _| {
            // etcd refuses a new Lease while NOSPACE is raised.
            if s.alarms.iter().any(|a| a.kind == AlarmKind::Nospace) {
                return Err(FailureCause::Other(
                    "etcdserver: mvcc: database space exceeded".into(),
                ));
            }
            for m in &mut s.members {
                if std::mem::take(&mut m.late_compaction) {
                    m.shown_in_use = m.shown_in_use.map(|v| v.saturating_sub(3 * MI));
                } else {
                    m.shown_in_use = None;
                }
            }
            Ok(())
        })
        .await
    }

    async fn compact(&self, dial: &Dial, revision: i64, _physical: bool) -> Result<(), RpcError> {
        self.call(Op::Compact, dial, PROBE_TIMEOUT, move |s, _| {
            if revision <= s.compact_revision {
                return Err(revision_unavailable(
                    "mvcc: required revision has been compacted",
                ));
            }
            s.compact_revision = revision;
            Ok(())
        })
        .await
    }

    async fn hash_kv(&self, dial: &Dial, revision: i64) -> Result<KvHash, RpcError> {
        self.call(Op::HashKv, dial, PROBE_TIMEOUT, move |s, i| {
            let m = &s.members[i];
            let hashed = if revision == 0 { m.revision } else { revision };
            // Like etcd 3.4: an explicit revision at or below the
            // compaction point is refused; revision 0 always works.
            if revision != 0 && revision <= s.compact_revision {
                return Err(revision_unavailable(
                    "mvcc: required revision has been compacted",
                ));
            }
            if hashed > m.revision {
                return Err(revision_unavailable(
                    "mvcc: required revision is a future revision",
                ));
            }
            Ok(KvHash {
                hash: m.hash,
                compact_revision: s.compact_revision,
                revision: hashed,
            })
        })
        .await
    }

    /// The fake keeps no keys.
    async fn range_prefix(
        &self,
        dial: &Dial,
        _prefix: &str,
        _revision: i64,
        _limit: i64,
    ) -> Result<Vec<crate::etcd::StoredKey>, RpcError> {
        self.call(Op::MemberList, dial, PROBE_TIMEOUT, |_, _| Ok(Vec::new()))
            .await
    }

    /// A page of the keys [`FakeCluster::hold_keys`] set.
    async fn range_page(
        &self,
        dial: &Dial,
        start: &[u8],
        end: &[u8],
        _revision: i64,
        limit: i64,
        keys_only: bool,
    ) -> Result<crate::etcd::RangePage, RpcError> {
        self.call(Op::Range, dial, PROBE_TIMEOUT, |s, _| {
            let mut keys = (0..s.keys)
                .map(|i| format!("/fake/{i:08}").into_bytes())
                .filter(|k| k.as_slice() >= start && (end == [0] || k.as_slice() < end));
            let limit = usize::try_from(limit).unwrap_or(0);
            let page: Vec<crate::etcd::KeySize> = keys
                .by_ref()
                .take(limit)
                .map(|key| crate::etcd::KeySize {
                    key,
                    value_len: (!keys_only).then_some(100),
                    create_revision: 1,
                    mod_revision: 1,
                    version: 1,
                    lease: 0,
                })
                .collect();
            Ok(crate::etcd::RangePage {
                keys: page,
                more: keys.next().is_some(),
                revision: 1,
            })
        })
        .await
    }

    /// The fake keeps no keys: a Watch that sees no write.
    async fn watch_changes(
        &self,
        dial: &Dial,
        _start: &[u8],
        _end: &[u8],
        _from_revision: i64,
    ) -> Result<crate::etcd::ChangeStream, RpcError> {
        self.call(Op::Watch, dial, PROBE_TIMEOUT, |_, _| Ok(()))
            .await?;
        Ok(Box::pin(futures::stream::pending()))
    }

    /// One chunk naming the member: the fake keeps no backend.
    async fn snapshot(&self, dial: &Dial) -> Result<SnapshotStream, RpcError> {
        let blob = self
            .call(Op::Snapshot, dial, PROBE_TIMEOUT, |s, i| {
                Ok(format!("backend of {}", s.members[i].name).into_bytes())
            })
            .await?;
        let chunk = SnapshotChunk { blob, remaining: 0 };
        Ok(Box::pin(futures::stream::iter([Ok(chunk)])))
    }

    /// Not modelled: membership growth is proven against real etcd only.
    async fn member_add(
        &self,
        dial: &Dial,
        _peer_urls: &[String],
        _learner: bool,
    ) -> Result<(u64, Vec<ListedMember>), RpcError> {
        self.call(Op::MemberAdd, dial, PROBE_TIMEOUT, |_, _| {
            Err(FailureCause::Other(
                "MemberAdd is not modelled by the fake".into(),
            ))
        })
        .await
    }

    async fn member_promote(&self, dial: &Dial, id: u64) -> Result<Vec<ListedMember>, RpcError> {
        self.call(Op::MemberPromote, dial, PROBE_TIMEOUT, move |s, _| {
            let m = s.members.iter_mut().find(|m| m.id == id && !m.removed);
            match m {
                Some(m) => m.learner = false,
                None => return Err(FailureCause::Other("member not found".into())),
            }
            Ok(s.member_list())
        })
        .await
    }

    async fn member_remove(&self, dial: &Dial, id: u64) -> Result<Vec<ListedMember>, RpcError> {
        self.call(Op::MemberRemove, dial, PROBE_TIMEOUT, move |s, _| {
            match s.members.iter_mut().find(|m| m.id == id && !m.removed) {
                Some(m) => m.removed = true,
                None => return Err(FailureCause::Other("member not found".into())),
            }
            Ok(s.member_list())
        })
        .await
    }
}
