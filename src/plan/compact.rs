//! `compact`: which revision to compact at, from what the user asked and
//! what the cluster says (its current and its last compacted revision).
//! Pure: the command reads the revisions and does the compaction.

use std::fmt;

use crate::look::ClusterLook;

/// What the user asked to keep.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Keep {
    /// `--revision N`: compact everything before revision N.
    Revision(i64),
    /// `--keep N`: keep the N revisions before the current one (compact at
    /// current − N; 0 keeps only the current revision).
    Last(i64),
    /// `--keep-duration D`: the newest revision written before D ago
    /// (found by the command), and D as the user wrote it.
    Dated { revision: i64, age: String },
}

/// Why a compaction is refused (nothing is sent to etcd).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// The revision is at or below the one already compacted.
    AlreadyCompacted { requested: i64, compacted: i64 },
    /// The revision is past the cluster's current revision.
    Future { requested: i64, current: i64 },
    /// Every revision still kept is younger than `--keep-duration`.
    TooYoung { age: String, compacted: i64 },
    /// `--keep N` reaches back past what is already compacted.
    NothingToCompact {
        keep: i64,
        current: i64,
        compacted: i64,
    },
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::AlreadyCompacted {
                requested,
                compacted,
            } => write!(
                f,
                "--revision {requested}: the cluster is already compacted up to revision {compacted}; pick a revision above it"
            ),
            Refusal::Future { requested, current } => write!(
                f,
                "--revision {requested}: the current revision is {current}; a compaction cannot reach past it"
            ),
            Refusal::TooYoung { age, compacted } => write!(
                f,
                "--keep-duration {age}: every revision still kept (from {compacted} on) is younger than {age}, so nothing would be compacted"
            ),
            Refusal::NothingToCompact {
                keep,
                current,
                compacted,
            } => write!(
                f,
                "--keep {keep}: the current revision is {current} and revisions up to {compacted} are already compacted, so nothing would be compacted"
            ),
        }
    }
}

impl Refusal {
    /// Whether what was asked to go is gone already: the history is as
    /// short as asked (or shorter), so there is nothing to compact. That is
    /// no error: the command says so and exits 0, so a scheduled
    /// `compact --keep N` on an idle cluster succeeds.
    pub fn nothing_to_compact(&self) -> bool {
        !matches!(self, Refusal::Future { .. })
    }
}

/// What a compaction request comes to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Compact at this revision.
    At(i64),
    /// Nothing to compact; the text says why (`nothing to compact: already
    /// compacted at revision N…`).
    Nothing(String),
}

/// What to do for `keep`, given the cluster's current revision and the
/// one compacted up to: compact at a revision, nothing (already done), or
/// a refusal (a revision past the current one). Pure.
pub fn decide(keep: Keep, current: i64, compacted: i64) -> Result<Decision, Refusal> {
    match revision(keep, current, compacted) {
        Ok(r) => Ok(Decision::At(r)),
        Err(refusal) if refusal.nothing_to_compact() => {
            let mut why = format!("nothing to compact: already compacted at revision {compacted}");
            if compacted >= current {
                why.push_str(", the current revision");
            } else {
                why.push_str(&match refusal {
                    Refusal::AlreadyCompacted { requested, .. } => format!(
                        "; every revision before --revision {requested} is gone already (current revision {current})"
                    ),
                    Refusal::TooYoung { age, .. } => format!(
                        "; every revision kept since is younger than --keep-duration {age} (current revision {current})"
                    ),
                    Refusal::NothingToCompact { keep, .. } => format!(
                        "; only the {} before the current one ({current}) {} kept, within --keep {keep}",
                        crate::quantity::revisions(current - compacted),
                        if current - compacted == 1 { "is" } else { "are" }
                    ),
                    Refusal::Future { .. } => String::new(),
                });
            }
            Ok(Decision::Nothing(why))
        }
        Err(refusal) => Err(refusal),
    }
}

/// The revision to compact at.
pub fn revision(keep: Keep, current: i64, compacted: i64) -> Result<i64, Refusal> {
    let requested = match keep {
        Keep::Revision(r) => r,
        Keep::Dated { revision, age } => {
            if revision <= compacted {
                return Err(Refusal::TooYoung { age, compacted });
            }
            revision
        }
        Keep::Last(n) => {
            let r = current.saturating_sub(n);
            if r <= compacted {
                return Err(Refusal::NothingToCompact {
                    keep: n,
                    current,
                    compacted,
                });
            }
            r
        }
    };
    if requested > current {
        return Err(Refusal::Future { requested, current });
    }
    if requested <= compacted {
        return Err(Refusal::AlreadyCompacted {
            requested,
            compacted,
        });
    }
    Ok(requested)
}

/// Members whose in-use figure did not move between `before` a
/// compaction and `after` it, when etcd could not be made to recompute it:
/// such a figure is the one from before the compaction, not a fact about
/// now (etcd recomputes it only when the member commits its backend).
/// Members that answered only one of the two looks are left out.
pub fn not_refreshed(before: &ClusterLook, after: &ClusterLook) -> Vec<String> {
    before
        .members
        .iter()
        .filter_map(|m| {
            let was = m.status()?.db_size_in_use;
            let now = after
                .members
                .iter()
                .find(|n| n.name == m.name)?
                .status()?
                .db_size_in_use;
            (was == now).then(|| m.name.clone())
        })
        .collect()
}

#[cfg(test)]
mod not_refreshed_tests {
    use super::*;
    use crate::look::{MemberLook, MemberStatus, Probe};

    fn look(in_use: &[(&str, Option<u64>)]) -> ClusterLook {
        ClusterLook {
            members: in_use
                .iter()
                .zip(1u64..)
                .map(|(&(name, used), id)| {
                    let probe = match used {
                        Some(u) => Probe::Answered(MemberStatus {
                            member_id: id,
                            db_size_in_use: u,
                            ..Default::default()
                        }),
                        None => Probe::NotProbed("silent".into()),
                    };
                    MemberLook::listed_for_test(name, id, false, probe)
                })
                .collect(),
            member_list_known: true,
            alarms: vec![],
            alarm_list_error: None,
        }
    }

    #[test]
    fn a_figure_that_did_not_move_is_not_known() {
        let before = look(&[("a", Some(240)), ("b", Some(240)), ("c", Some(240))]);
        // The leader committed and shows the truth; the idle followers
        // still show the size from before; a silent member is left out.
        let after = look(&[("a", Some(21)), ("b", Some(240)), ("c", None)]);
        assert_eq!(not_refreshed(&before, &after), ["b"]);
        assert!(not_refreshed(&before, &look(&[("a", Some(1)), ("b", Some(2))])).is_empty());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dated_revision_is_kept_from_unless_already_compacted() {
        let dated = |revision| Keep::Dated {
            revision,
            age: "2h".into(),
        };
        assert_eq!(revision(dated(40), 100, 10), Ok(40));
        assert_eq!(
            revision(dated(10), 100, 10),
            Err(Refusal::TooYoung {
                age: "2h".into(),
                compacted: 10
            })
        );
        assert_eq!(
            Refusal::TooYoung { age: "2h".into(), compacted: 10 }.to_string(),
            "--keep-duration 2h: every revision still kept (from 10 on) is younger than 2h, so nothing would be compacted"
        );
    }

    #[test]
    fn the_revision_asked_for_or_why_not() {
        use Keep::*;
        let table: Vec<(Keep, i64, i64, Result<i64, Refusal>)> = vec![
            (Revision(50), 100, 10, Ok(50)),
            (Revision(100), 100, 10, Ok(100)),
            (Revision(11), 100, 10, Ok(11)),
            (
                Revision(10),
                100,
                10,
                Err(Refusal::AlreadyCompacted {
                    requested: 10,
                    compacted: 10,
                }),
            ),
            (
                Revision(5),
                100,
                10,
                Err(Refusal::AlreadyCompacted {
                    requested: 5,
                    compacted: 10,
                }),
            ),
            (
                Revision(101),
                100,
                10,
                Err(Refusal::Future {
                    requested: 101,
                    current: 100,
                }),
            ),
            (Last(0), 100, 10, Ok(100)),
            (Last(30), 100, 10, Ok(70)),
            (Last(89), 100, 10, Ok(11)),
            (
                Last(90),
                100,
                10,
                Err(Refusal::NothingToCompact {
                    keep: 90,
                    current: 100,
                    compacted: 10,
                }),
            ),
            (
                Last(1000),
                100,
                0,
                Err(Refusal::NothingToCompact {
                    keep: 1000,
                    current: 100,
                    compacted: 0,
                }),
            ),
            // A fresh cluster: nothing compacted yet (etcd reports 0).
            (Revision(1), 1, 0, Ok(1)),
        ];
        for (keep, current, compacted, want) in table {
            assert_eq!(
                revision(keep.clone(), current, compacted),
                want,
                "{keep:?} current {current} compacted {compacted}"
            );
        }
    }

    #[test]
    fn nothing_to_compact_is_no_error_and_says_so() {
        use Keep::*;
        let dated = |revision| Dated {
            revision,
            age: "2h".into(),
        };
        let nothing = |text: &str| Ok(Decision::Nothing(text.to_string()));
        let table: Vec<(Keep, i64, i64, Result<Decision, Refusal>)> = vec![
            (Last(10), 100, 10, Ok(Decision::At(90))),
            // Compacted up to the current revision: nothing, whatever asked.
            (
                Last(0),
                100,
                100,
                nothing("nothing to compact: already compacted at revision 100, the current revision"),
            ),
            (
                Last(10),
                100,
                100,
                nothing("nothing to compact: already compacted at revision 100, the current revision"),
            ),
            (
                Revision(100),
                100,
                100,
                nothing("nothing to compact: already compacted at revision 100, the current revision"),
            ),
            (
                dated(100),
                100,
                100,
                nothing("nothing to compact: already compacted at revision 100, the current revision"),
            ),
            // Less kept than asked for: nothing, with the numbers.
            (
                Last(10),
                100,
                95,
                nothing("nothing to compact: already compacted at revision 95; only the 5 revisions before the current one (100) are kept, within --keep 10"),
            ),
            (
                Revision(90),
                100,
                95,
                nothing("nothing to compact: already compacted at revision 95; every revision before --revision 90 is gone already (current revision 100)"),
            ),
            (
                dated(95),
                100,
                95,
                nothing("nothing to compact: already compacted at revision 95; every revision kept since is younger than --keep-duration 2h (current revision 100)"),
            ),
            // Past the current revision stays a usage error.
            (
                Revision(101),
                100,
                100,
                Err(Refusal::Future {
                    requested: 101,
                    current: 100,
                }),
            ),
        ];
        for (keep, current, compacted, want) in table {
            assert_eq!(
                decide(keep.clone(), current, compacted),
                want,
                "{keep:?} current {current} compacted {compacted}"
            );
        }
    }

    #[test]
    fn refusals_name_the_flag_and_the_numbers() {
        let text = Refusal::AlreadyCompacted {
            requested: 5,
            compacted: 10,
        }
        .to_string();
        assert!(
            text.starts_with("--revision 5:") && text.contains("10"),
            "{text}"
        );
        let text = Refusal::NothingToCompact {
            keep: 90,
            current: 100,
            compacted: 10,
        }
        .to_string();
        assert!(
            text.starts_with("--keep 90:") && text.contains("100"),
            "{text}"
        );
    }
}
