//! What etcd itself gets wrong, by release: one table of known defects a
//! maintenance tool must know about, each with the releases it affects, the
//! release that fixed it in each line and the etcd pull requests that did.
//!
//! The rows come from etcd's own CHANGELOG files (`CHANGELOG/CHANGELOG-3.x.md`
//! in etcd-io/etcd), checked against the merged pull requests. `doctor`
//! reports every row that affects a member, with the release to upgrade to;
//! the rows that touch defragmentation also change what the sweep does
//! (`Defect::touches`).

use serde::Serialize;

/// A release as etcd numbers it: `3.4.23`. Pre-release suffixes
/// (`3.6.0-rc.0`) count as the release they lead to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Release {
    pub major: u32,
    pub minor: u32,
    pub patch: u32,
}

impl Release {
    pub const fn new(major: u32, minor: u32, patch: u32) -> Release {
        Release {
            major,
            minor,
            patch,
        }
    }

    /// Parses the `version` a member reports in Status (`3.5.35`). `None`
    /// for anything else.
    pub fn parse(text: &str) -> Option<Release> {
        let text = text.trim().trim_start_matches('v');
        let core = text.split(['-', '+']).next()?;
        let mut parts = core.split('.');
        let major = parts.next()?.parse().ok()?;
        let minor = parts.next()?.parse().ok()?;
        let patch = parts.next().unwrap_or("0").parse().ok()?;
        if parts.next().is_some() {
            return None;
        }
        Some(Release::new(major, minor, patch))
    }

    fn line(self) -> (u32, u32) {
        (self.major, self.minor)
    }
}

impl std::fmt::Display for Release {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

/// What a defect can hurt, and so which command must act on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Touches {
    /// Defragmentation itself: the sweep acts on it.
    Defrag,
    /// Learner promotion: `member promote` warns before it promotes.
    Promotion,
    /// The data of a member that crashes or restarts: `doctor` reports it.
    Data,
}

/// The releases of one line (`3.5`) a defect affects: from `first` up to,
/// not including, `fixed` (`None`: never fixed in that line).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Affected {
    pub first: Release,
    pub fixed: Option<Release>,
    /// The etcd pull request that fixed it in this line (0: none).
    pub pr: u32,
}

/// One known defect of etcd.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Defect {
    /// Stable identifier, for JSON and scripts.
    pub code: &'static str,
    /// What goes wrong, in a sentence.
    pub summary: &'static str,
    pub touches: Touches,
    pub affected: &'static [Affected],
}

const fn range(first: (u32, u32, u32), fixed: Option<(u32, u32, u32)>, pr: u32) -> Affected {
    Affected {
        first: Release::new(first.0, first.1, first.2),
        fixed: match fixed {
            Some((a, b, c)) => Some(Release::new(a, b, c)),
            None => None,
        },
        pr,
    }
}

/// Every known defect, oldest line first within each row.
pub const DEFECTS: &[Defect] = &[
    Defect {
        code: "apply-snapshot-during-defrag",
        summary: "a snapshot from the leader applied while the member defragments can corrupt its data",
        touches: Touches::Defrag,
        affected: &[
            range((3, 4, 0), Some((3, 4, 38)), 20659),
            range((3, 5, 0), Some((3, 5, 23)), 20653),
            range((3, 6, 0), Some((3, 6, 5)), 20650),
        ],
    },
    Defect {
        code: "defrag-error-panics",
        summary: "an error inside Defragment (a full disk, say) panics the member instead of failing the call",
        touches: Touches::Defrag,
        affected: &[
            range((3, 4, 0), Some((3, 4, 35)), 18843),
            range((3, 5, 0), Some((3, 5, 17)), 18842),
        ],
    },
    Defect {
        code: "crash-during-defrag-revision",
        summary: "a member that crashes or is killed during Defragment can come back with a revision that differs from the other members'",
        touches: Touches::Defrag,
        affected: &[range((3, 5, 0), Some((3, 5, 6)), 14733)],
    },
    Defect {
        code: "defrag-unsets-backend-options",
        summary: "Defragment reopens the backend without the options the member was started with",
        touches: Touches::Defrag,
        affected: &[
            range((3, 4, 0), Some((3, 4, 19)), 13713),
            range((3, 5, 0), Some((3, 5, 3)), 13701),
        ],
    },
    Defect {
        code: "inconsistent-revision-after-crash",
        summary: "under load, a member killed at the wrong moment can lose committed transactions that the other members keep (etcd recommends 3.5.4 or later)",
        touches: Touches::Data,
        affected: &[range((3, 5, 0), Some((3, 5, 3)), 13908)],
    },
    Defect {
        code: "learner-promotion-not-persisted",
        summary: "a learner's promotion is not written to the backend, so after a restart or an upgrade the member can be a learner again",
        touches: Touches::Promotion,
        affected: &[
            range((3, 5, 0), Some((3, 5, 20)), 19563),
            range((3, 5, 20), Some((3, 5, 24)), 20797),
        ],
    },
    Defect {
        code: "promotion-replay-fails-bootstrap",
        summary: "a member replaying a learner promotion the backend does not hold fails to start",
        touches: Touches::Promotion,
        affected: &[range((3, 6, 0), Some((3, 6, 4)), 20387)],
    },
    Defect {
        code: "member-update-promotes-learner",
        summary: "MemberUpdate of a learner (a peer URL change) silently promotes it to voter",
        touches: Touches::Promotion,
        affected: &[
            range((3, 4, 0), None, 0),
            range((3, 5, 0), Some((3, 5, 31)), 21737),
            range((3, 6, 0), Some((3, 6, 12)), 21736),
        ],
    },
    Defect {
        code: "promote-unstarted-learner",
        summary: "a learner that has not started yet can be promoted, which can cost the cluster its quorum",
        touches: Touches::Promotion,
        affected: &[
            range((3, 4, 0), Some((3, 4, 24)), 15097),
            range((3, 5, 0), Some((3, 5, 7)), 15096),
        ],
    },
    Defect {
        code: "promote-fails-with-auth",
        summary: "MemberPromote is refused when authentication is on",
        touches: Touches::Promotion,
        affected: &[
            range((3, 5, 0), Some((3, 5, 28)), 21494),
            range((3, 6, 0), Some((3, 6, 6)), 20874),
        ],
    },
];

/// One defect affecting one release, with what to upgrade to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hit {
    pub defect: &'static Defect,
    /// The release of the member's own line that fixes it, or, when its
    /// line never got the fix, the next line's (`None`: no line has it).
    pub upgrade_to: Option<Release>,
    /// Whether `upgrade_to` is in the member's own line.
    pub same_line: bool,
    /// The pull request of that fix (0 when there is none).
    pub pr: u32,
}

impl Hit {
    /// What to do: `upgrade to 3.4.38 or later (etcd PR 20659)`.
    pub fn advice(&self, running: Release) -> String {
        match (self.upgrade_to, self.same_line) {
            (Some(to), true) => format!("upgrade to {to} or later (etcd PR {})", self.pr),
            (Some(to), false) => format!(
                "{}.{} has no fix: upgrade (one minor release at a time) to {to} or later (etcd PR {})",
                running.major, running.minor, self.pr
            ),
            (None, _) => format!("no etcd release fixes it yet ({running} is affected)"),
        }
    }
}

/// The defects that affect `release`, in table order.
pub fn affecting(release: Release) -> Vec<Hit> {
    DEFECTS
        .iter()
        .filter_map(|defect| {
            let rows: Vec<&Affected> = defect
                .affected
                .iter()
                .filter(|a| a.first.line() == release.line())
                .collect();
            let hit = rows
                .iter()
                .find(|a| release >= a.first && a.fixed.is_none_or(|f| release < f))?;
            // The last fix of the line covers every earlier range of it.
            let last = rows.iter().filter_map(|a| a.fixed.map(|f| (f, a.pr))).max();
            // A line that never got the fix: the next line that did.
            let next = || {
                defect
                    .affected
                    .iter()
                    .filter(|a| a.first.line() > release.line())
                    .find_map(|a| a.fixed.map(|f| (f, a.pr)))
            };
            Some(match (hit.fixed, last) {
                (Some(_), Some((fixed, pr))) => Hit {
                    defect,
                    upgrade_to: Some(fixed),
                    same_line: true,
                    pr,
                },
                _ => Hit {
                    defect,
                    upgrade_to: next().map(|(f, _)| f),
                    same_line: false,
                    pr: next().map_or(0, |(_, pr)| pr),
                },
            })
        })
        .collect()
}

/// One defect and the members it affects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Affecting {
    /// The defect as it affects the first of `members`.
    pub hit: Hit,
    /// That member's release, which `hit.advice` is given for.
    pub release: Release,
    /// Every member it affects, as `name (release)`.
    pub members: Vec<String>,
}

/// The defects that affect any of `members` (name, the version it reports),
/// each once with every member it affects, in the order they are first met.
/// Unparseable versions are not assumed affected.
pub fn among<'a>(members: impl IntoIterator<Item = (&'a str, &'a str)>) -> Vec<Affecting> {
    let mut found: Vec<Affecting> = Vec::new();
    for (name, version) in members {
        let Some(release) = Release::parse(version) else {
            continue;
        };
        for hit in affecting(release) {
            let who = format!("{name} ({release})");
            match found
                .iter_mut()
                .find(|a| a.hit.defect.code == hit.defect.code)
            {
                Some(a) => a.members.push(who),
                None => found.push(Affecting {
                    hit,
                    release,
                    members: vec![who],
                }),
            }
        }
    }
    found
}

/// Whether `version` (as a member reports it) has the defect `code`.
/// Unparseable versions are not assumed affected.
pub fn has(version: &str, code: &str) -> Option<Hit> {
    let release = Release::parse(version)?;
    affecting(release)
        .into_iter()
        .find(|h| h.defect.code == code)
}

/// The code of the applySnapshot/Defragment race, which the gate acts on.
pub const APPLY_SNAPSHOT_DURING_DEFRAG: &str = "apply-snapshot-during-defrag";

#[cfg(test)]
mod tests {
    use super::*;

    fn codes(version: &str) -> Vec<&'static str> {
        affecting(Release::parse(version).expect("version"))
            .iter()
            .map(|h| h.defect.code)
            .collect()
    }

    #[test]
    fn releases_parse_as_members_report_them() {
        for (text, want) in [
            ("3.4.23", Some(Release::new(3, 4, 23))),
            ("v3.6.16", Some(Release::new(3, 6, 16))),
            ("3.6.0-rc.0", Some(Release::new(3, 6, 0))),
            ("3.7", Some(Release::new(3, 7, 0))),
            ("", None),
            ("not.a.version", None),
            ("3.5.1.2", None),
        ] {
            assert_eq!(Release::parse(text), want, "{text}");
        }
    }

    #[test]
    fn each_boundary_is_where_the_changelog_puts_it() {
        let apply = APPLY_SNAPSHOT_DURING_DEFRAG;
        for (version, affected) in [
            ("3.4.23", true), // Debian 12
            ("3.4.37", true),
            ("3.4.38", false),
            ("3.5.22", true),
            ("3.5.23", false),
            ("3.5.35", false),
            ("3.6.0", true),
            ("3.6.4", true),
            ("3.6.5", false),
            ("3.6.16", false),
            ("3.7.0", false),
            ("3.7.3", false),
            ("3.3.27", false),
        ] {
            assert_eq!(has(version, apply).is_some(), affected, "{version}");
        }
        for (version, affected) in [
            ("3.4.34", true),
            ("3.4.35", false),
            ("3.5.16", true),
            ("3.5.17", false),
            ("3.6.0", false),
        ] {
            assert_eq!(
                has(version, "defrag-error-panics").is_some(),
                affected,
                "{version}"
            );
        }
    }

    #[test]
    fn a_line_with_two_fixes_is_sent_to_the_last() {
        // 3.5.20 fixed one path, 3.5.24 the other: both sides of 3.5.20
        // go to 3.5.24.
        for version in ["3.5.10", "3.5.19", "3.5.20", "3.5.23"] {
            let hit = has(version, "learner-promotion-not-persisted").expect(version);
            assert_eq!(hit.upgrade_to, Some(Release::new(3, 5, 24)), "{version}");
            assert_eq!(hit.pr, 20797);
            assert!(hit.same_line);
        }
        assert!(has("3.5.24", "learner-promotion-not-persisted").is_none());
    }

    #[test]
    fn a_line_without_a_fix_is_sent_to_the_next_line() {
        let hit = has("3.4.23", "member-update-promotes-learner").expect("3.4 has it");
        assert!(!hit.same_line);
        assert_eq!(hit.upgrade_to, Some(Release::new(3, 5, 31)));
        assert_eq!(
            hit.advice(Release::new(3, 4, 23)),
            "3.4 has no fix: upgrade (one minor release at a time) to 3.5.31 or later (etcd PR 21737)"
        );
        let hit = has("3.5.30", "member-update-promotes-learner").expect("3.5.30 has it");
        assert_eq!(
            hit.advice(Release::new(3, 5, 30)),
            "upgrade to 3.5.31 or later (etcd PR 21737)"
        );
    }

    #[test]
    fn the_test_beds_releases() {
        assert_eq!(
            codes("3.4.23"),
            [
                "apply-snapshot-during-defrag",
                "defrag-error-panics",
                "member-update-promotes-learner",
                "promote-unstarted-learner"
            ]
        );
        assert!(codes("3.5.35").is_empty());
        assert!(codes("3.6.16").is_empty());
        assert!(codes("3.7.3").is_empty());
        assert_eq!(
            codes("3.5.0"),
            [
                "apply-snapshot-during-defrag",
                "defrag-error-panics",
                "crash-during-defrag-revision",
                "defrag-unsets-backend-options",
                "inconsistent-revision-after-crash",
                "learner-promotion-not-persisted",
                "member-update-promotes-learner",
                "promote-unstarted-learner",
                "promote-fails-with-auth"
            ]
        );
    }

    #[test]
    fn among_groups_members_by_defect_in_the_order_met() {
        let found = among([
            ("a", "3.4.23"),
            ("b", "3.7.3"),
            ("c", "3.4.37"),
            ("d", "junk"),
        ]);
        let race = &found[0];
        assert_eq!(race.hit.defect.code, APPLY_SNAPSHOT_DURING_DEFRAG);
        assert_eq!(race.members, ["a (3.4.23)", "c (3.4.37)"]);
        assert_eq!(race.release, Release::new(3, 4, 23));
        // 3.4.37 has the panic fix: only a.
        let panics = found
            .iter()
            .find(|f| f.hit.defect.code == "defrag-error-panics")
            .expect("3.4.23 has it");
        assert_eq!(panics.members, ["a (3.4.23)"]);
        assert!(among([("b", "3.7.3")]).is_empty());
    }

    #[test]
    fn every_row_is_well_formed() {
        for d in DEFECTS {
            assert!(!d.affected.is_empty(), "{}", d.code);
            for a in d.affected {
                if let Some(fixed) = a.fixed {
                    assert!(fixed > a.first, "{}", d.code);
                    assert_eq!(fixed.line(), a.first.line(), "{}", d.code);
                    assert!(a.pr > 0, "{}: a fix names its PR", d.code);
                }
            }
        }
        let mut seen = std::collections::BTreeSet::new();
        assert!(DEFECTS.iter().all(|d| seen.insert(d.code)));
    }
}
