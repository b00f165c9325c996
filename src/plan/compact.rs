//! `compact`: which revision to compact at, from what the user asked and
//! what the cluster says (its current and its last compacted revision).
//! Pure: the command reads the revisions and does the compaction.

use std::fmt;

/// What the user asked to keep.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Keep {
    /// `--revision N`: compact everything before revision N.
    Revision(i64),
    /// `--keep N`: keep the last N revisions (compact at current − N).
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
