//! What etcd itself gets wrong, by release: one table of known defects a
//! maintenance tool must know about, each with the releases it affects, the
//! release that fixed it in each line and the etcd pull requests that did.
//!
//! The rows come from etcd's own CHANGELOG files (`CHANGELOG/CHANGELOG-3.x.md`
//! in etcd-io/etcd), checked against the merged pull requests, and for the
//! security advisories against the advisories themselves (GitHub's
//! GHSA records and the CVE records; their fixes were merged from private
//! forks, so they have no public pull request). `doctor` reports every row
//! that affects a member, with the release to upgrade to; the rows that
//! touch defragmentation also change what the sweep does
//! (`Defect::touches`), and an advisory is critical where its condition is
//! known to hold (`Defect::applies`). Where a line never got a fix it is
//! listed with none: etcd 3.4 reached its end of life with 3.4.45
//! ([`END_OF_LIFE`]), and the advisories published after that name 3.5 and
//! later only, though 3.4.45's code has the same flaw (read in its source).

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

    /// The release line: `(3, 5)`.
    pub fn line(self) -> (u32, u32) {
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
    /// Who may do what: a security advisory; `doctor` reports it.
    Security,
    /// What a member reports about itself: the tool reads around it.
    Reporting,
}

/// When a defect can bite: always, or only in a setup the tool can often
/// tell (`doctor` is critical where it holds, warns where it cannot tell,
/// and says nothing where it does not hold).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Applies {
    Always,
    /// Authentication is enabled on the cluster.
    WithAuth,
    /// The members serve clients over TLS.
    WithTls,
    /// Every one of these flags is set on the member.
    WithFlags(&'static [&'static str]),
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
    /// The security advisory (`CVE-…`, `GHSA-…`) when it is one, else empty.
    pub advisory: &'static str,
    pub applies: Applies,
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
        advisory: "",
        applies: Applies::Always,
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
        advisory: "",
        applies: Applies::Always,
        affected: &[
            range((3, 4, 0), Some((3, 4, 35)), 18843),
            range((3, 5, 0), Some((3, 5, 17)), 18842),
        ],
    },
    Defect {
        code: "crash-during-defrag-revision",
        summary: "a member that crashes or is killed during Defragment can come back with a revision that differs from the other members'",
        touches: Touches::Defrag,
        advisory: "",
        applies: Applies::Always,
        affected: &[range((3, 5, 0), Some((3, 5, 6)), 14733)],
    },
    Defect {
        code: "defrag-unsets-backend-options",
        summary: "Defragment reopens the backend without the options the member was started with",
        touches: Touches::Defrag,
        advisory: "",
        applies: Applies::Always,
        affected: &[
            range((3, 4, 0), Some((3, 4, 19)), 13713),
            range((3, 5, 0), Some((3, 5, 3)), 13701),
        ],
    },
    Defect {
        code: "inconsistent-revision-after-crash",
        summary: "under load, a member killed at the wrong moment can lose committed transactions that the other members keep (etcd recommends 3.5.4 or later)",
        touches: Touches::Data,
        advisory: "",
        applies: Applies::Always,
        affected: &[range((3, 5, 0), Some((3, 5, 3)), 13908)],
    },
    Defect {
        code: "learner-promotion-not-persisted",
        summary: "a learner's promotion is not written to the backend, so after a restart or an upgrade the member can be a learner again",
        touches: Touches::Promotion,
        advisory: "",
        applies: Applies::Always,
        affected: &[
            range((3, 5, 0), Some((3, 5, 20)), 19563),
            range((3, 5, 20), Some((3, 5, 24)), 20797),
        ],
    },
    Defect {
        code: "promotion-replay-fails-bootstrap",
        summary: "a member replaying a learner promotion the backend does not hold fails to start",
        touches: Touches::Promotion,
        advisory: "",
        applies: Applies::Always,
        affected: &[range((3, 6, 0), Some((3, 6, 4)), 20387)],
    },
    Defect {
        code: "member-update-promotes-learner",
        summary: "MemberUpdate of a learner (a peer URL change) silently promotes it to voter",
        touches: Touches::Promotion,
        advisory: "",
        applies: Applies::Always,
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
        advisory: "",
        applies: Applies::Always,
        affected: &[
            range((3, 4, 0), Some((3, 4, 24)), 15097),
            range((3, 5, 0), Some((3, 5, 7)), 15096),
        ],
    },
    Defect {
        code: "promote-fails-with-auth",
        summary: "MemberPromote is refused when authentication is on",
        touches: Touches::Promotion,
        advisory: "",
        applies: Applies::Always,
        affected: &[
            range((3, 5, 0), Some((3, 5, 28)), 21494),
            range((3, 6, 0), Some((3, 6, 6)), 20874),
        ],
    },
    // The security advisories of 2026 (etcd's CHANGELOGs; the advisories).
    Defect {
        code: "auth-bypass-unauthenticated-apis",
        summary: "with authentication on, callers without permission can list the members, raise or clear alarms, use leases and compact",
        touches: Touches::Security,
        advisory: "CVE-2026-33413",
        applies: Applies::WithAuth,
        affected: &[
            range((3, 4, 0), Some((3, 4, 42)), 0),
            range((3, 5, 0), Some((3, 5, 28)), 0),
            range((3, 6, 0), Some((3, 6, 9)), 0),
        ],
    },
    Defect {
        code: "auth-bypass-nested-txn",
        summary: "with authentication on, a user limited to some keys can read and write any key through nested transactions",
        touches: Touches::Security,
        advisory: "CVE-2026-33343",
        applies: Applies::WithAuth,
        affected: &[
            range((3, 4, 0), Some((3, 4, 42)), 0),
            range((3, 5, 0), Some((3, 5, 28)), 0),
            range((3, 6, 0), Some((3, 6, 9)), 0),
        ],
    },
    Defect {
        code: "auth-bypass-txn-prevkv-lease",
        summary: "with authentication on, a Put inside a transaction with PrevKv or a lease skips the read and lease permission checks",
        touches: Touches::Security,
        advisory: "CVE-2026-44283",
        applies: Applies::WithAuth,
        affected: &[
            range((3, 4, 0), Some((3, 4, 44)), 21683),
            range((3, 5, 0), Some((3, 5, 30)), 21682),
            range((3, 6, 0), Some((3, 6, 11)), 21681),
        ],
    },
    Defect {
        code: "crl-not-enforced-on-grpc",
        summary: "with --listen-client-http-urls, --client-crl-file is not checked on the gRPC listener: a client whose certificate was revoked still gets in",
        touches: Touches::Security,
        advisory: "GHSA-3wh4-j44w-pg92",
        applies: Applies::WithFlags(&["--listen-client-http-urls", "--client-crl-file"]),
        affected: &[
            range((3, 4, 25), None, 0),
            range((3, 5, 8), Some((3, 5, 32)), 22021),
            range((3, 6, 0), Some((3, 6, 13)), 22025),
        ],
    },
    Defect {
        code: "watch-permission-leak",
        summary: "with authentication on, a user allowed to read one key can watch every key after it",
        touches: Touches::Security,
        advisory: "GHSA-xg4h-6gfc-h4m8",
        applies: Applies::WithAuth,
        affected: &[
            range((3, 4, 0), None, 0),
            range((3, 5, 0), Some((3, 5, 33)), 0),
            range((3, 6, 0), Some((3, 6, 14)), 0),
            range((3, 7, 0), Some((3, 7, 1)), 0),
        ],
    },
    Defect {
        code: "tls-handshake-no-deadline",
        summary: "a TLS handshake has no deadline: connections that never send a ClientHello pile up until the member runs out of memory",
        touches: Touches::Security,
        advisory: "GHSA-6vch-q96h-7gc3",
        applies: Applies::WithTls,
        affected: &[
            range((3, 4, 0), None, 0),
            range((3, 5, 0), Some((3, 5, 33)), 22160),
            range((3, 6, 0), Some((3, 6, 14)), 22142),
            range((3, 7, 0), Some((3, 7, 1)), 22141),
        ],
    },
    Defect {
        code: "status-reports-zero-quota",
        summary: "Status reports a quota (dbSizeQuota) of 0 when the member runs with the default 2 GiB; this tool reads the quota from the member's /metrics instead",
        touches: Touches::Reporting,
        advisory: "",
        applies: Applies::Always,
        affected: &[range((3, 6, 0), Some((3, 6, 6)), 20790)],
    },
];

/// A release line etcd no longer fixes: its last release, and when.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EndOfLife {
    pub last: Release,
    /// `YYYY-MM-DD`.
    pub date: &'static str,
}

/// The lines that reached their end of life (CHANGELOG-3.4: "this release
/// marks the end of support (EOL) for v3.4. No further patches will be
/// issued.").
pub const END_OF_LIFE: &[EndOfLife] = &[EndOfLife {
    last: Release::new(3, 4, 45),
    date: "2026-06-01",
}];

/// The end of life of `release`'s line, if it reached it.
pub fn end_of_life(release: Release) -> Option<EndOfLife> {
    END_OF_LIFE
        .iter()
        .copied()
        .find(|e| e.last.line() == release.line())
}

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
    /// What to do: `upgrade to 3.4.38 or later (etcd PR 20659)`, or with
    /// the advisory for one (`(CVE-2026-33413)`).
    pub fn advice(&self, running: Release) -> String {
        let why = match (self.defect.advisory, self.pr) {
            ("", pr) => format!("etcd PR {pr}"),
            (advisory, _) => advisory.to_string(),
        };
        match (self.upgrade_to, self.same_line) {
            (Some(to), true) => format!("upgrade to {to} or later ({why})"),
            (Some(to), false) => format!(
                "{}.{} has no fix: upgrade (one minor release at a time) to {to} or later ({why})",
                running.major, running.minor
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
    /// Their names, in the same order.
    pub names: Vec<String>,
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
                Some(a) => {
                    a.members.push(who);
                    a.names.push(name.to_string());
                }
                None => found.push(Affecting {
                    hit,
                    release,
                    members: vec![who],
                    names: vec![name.to_string()],
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
    fn the_2026_advisories_bound_where_their_records_put_them() {
        let cases: &[(&str, &[(&str, bool)])] = &[
            (
                "auth-bypass-unauthenticated-apis",
                &[
                    ("3.4.41", true),
                    ("3.4.42", false),
                    ("3.5.23", true),
                    ("3.5.27", true),
                    ("3.5.28", false),
                    ("3.6.5", true),
                    ("3.6.8", true),
                    ("3.6.9", false),
                    ("3.7.0", false),
                ],
            ),
            (
                "auth-bypass-txn-prevkv-lease",
                &[
                    ("3.4.43", true),
                    ("3.4.44", false),
                    ("3.5.29", true),
                    ("3.5.30", false),
                    ("3.6.10", true),
                    ("3.6.11", false),
                ],
            ),
            (
                "crl-not-enforced-on-grpc",
                &[
                    ("3.4.24", false),
                    ("3.4.25", true),
                    ("3.4.45", true),
                    ("3.5.7", false),
                    ("3.5.8", true),
                    ("3.5.31", true),
                    ("3.5.32", false),
                    ("3.6.12", true),
                    ("3.6.13", false),
                    ("3.7.0-rc.0", false),
                ],
            ),
            (
                "watch-permission-leak",
                &[
                    ("3.4.45", true),
                    ("3.5.32", true),
                    ("3.5.33", false),
                    ("3.6.13", true),
                    ("3.6.14", false),
                    ("3.7.0", true),
                    ("3.7.1", false),
                ],
            ),
            (
                "tls-handshake-no-deadline",
                &[
                    ("3.4.23", true),
                    ("3.5.35", false),
                    ("3.6.16", false),
                    ("3.7.0", true),
                    ("3.7.3", false),
                ],
            ),
            (
                "status-reports-zero-quota",
                &[
                    ("3.5.35", false),
                    ("3.6.0", true),
                    ("3.6.5", true),
                    ("3.6.6", false),
                    ("3.7.0", false),
                ],
            ),
        ];
        for (code, versions) in cases {
            for (version, affected) in *versions {
                assert_eq!(has(version, code).is_some(), *affected, "{code} {version}");
            }
        }
        // Advice names the advisory, and 3.4 (past its end of life) is
        // sent to the 3.5 release that has the fix.
        let hit = has("3.6.5", "auth-bypass-nested-txn").expect("3.6.5");
        assert_eq!(
            hit.advice(Release::new(3, 6, 5)),
            "upgrade to 3.6.9 or later (CVE-2026-33343)"
        );
        let hit = has("3.4.45", "watch-permission-leak").expect("3.4.45");
        assert_eq!(
            hit.advice(Release::new(3, 4, 45)),
            "3.4 has no fix: upgrade (one minor release at a time) to 3.5.33 or later (GHSA-xg4h-6gfc-h4m8)"
        );
        assert_eq!(
            end_of_life(Release::new(3, 4, 23)),
            Some(EndOfLife {
                last: Release::new(3, 4, 45),
                date: "2026-06-01"
            })
        );
        assert_eq!(end_of_life(Release::new(3, 5, 0)), None);
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
                "promote-unstarted-learner",
                "auth-bypass-unauthenticated-apis",
                "auth-bypass-nested-txn",
                "auth-bypass-txn-prevkv-lease",
                "watch-permission-leak",
                "tls-handshake-no-deadline"
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
                "promote-fails-with-auth",
                "auth-bypass-unauthenticated-apis",
                "auth-bypass-nested-txn",
                "auth-bypass-txn-prevkv-lease",
                "watch-permission-leak",
                "tls-handshake-no-deadline"
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
                    assert!(
                        a.pr > 0 || !d.advisory.is_empty(),
                        "{}: a fix names its PR or its advisory",
                        d.code
                    );
                }
            }
        }
        let mut seen = std::collections::BTreeSet::new();
        assert!(DEFECTS.iter().all(|d| seen.insert(d.code)));
    }
}
