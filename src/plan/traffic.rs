//! The client Service's `spec.trafficDistribution` (docs/contract.md#traffic-distribution),
//! the pure half: which values exist and which API server releases keep
//! them, who owns the field according to `managedFields`, and the decision
//! table the operator and this tool share so that the Service never flaps
//! between them.
//!
//! Invariants: the only input is the EtcdCluster annotation; our writes use
//! the operator's field manager, so whatever one of us applies the other
//! sees as its own; a value nobody applied through that manager (a hand
//! edit with no annotation) is never touched.

use serde::Serialize;

pub use crate::contract::{
    client_service_name, FieldOwner, TrafficValue, ANNOTATION, FIELD_MANAGER,
};

/// `major.minor` of the API server, from `/version`. Providers decorate
/// the minor (`"34+"`), so only leading digits count; `gitVersion`
/// (`v1.34.4-gke.1`) is the fallback.
pub fn parse_server_version(major: &str, minor: &str, git_version: &str) -> Option<(u32, u32)> {
    fn digits(s: &str) -> Option<u32> {
        let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
        s[..end].parse().ok()
    }
    if let (Some(ma), Some(mi)) = (digits(major), digits(minor)) {
        return Some((ma, mi));
    }
    let mut parts = git_version.trim_start_matches('v').split('.');
    Some((digits(parts.next()?)?, digits(parts.next()?)?))
}

/// Whether a server of `version` keeps `value` with default feature gates.
/// `None` when the version is unknown. Gates can move this either way, which
/// is why `set` reads the result back instead of trusting this.
pub fn expected_support(value: TrafficValue, version: Option<(u32, u32)>) -> Option<bool> {
    Some(at_least(version?, value.since_minor()))
}

/// On a server of `version` that deprecates `value`: from which 1.x
/// release, and the value it names instead (`PreferClose` from 1.35:
/// `PreferSameZone`). `None` when it does not, or the version is unknown.
pub fn deprecated_on(
    value: TrafficValue,
    version: Option<(u32, u32)>,
) -> Option<(u32, TrafficValue)> {
    let (since, instead) = value.deprecated()?;
    at_least(version?, since).then_some((since, instead))
}

/// The value `traffic set` writes for `asked` on a server of `version`,
/// and why when it is another: the same routing under the name that
/// server gives it. `PreferClose` and `PreferSameZone` are one setting
/// to kube-proxy (KEP-3015 renamed the first to the second): before 1.34
/// a server does not keep `PreferSameZone` with its default gates (1.30
/// keeps `PreferClose` only with `ServiceTrafficDistribution` on), and
/// from 1.35 it answers `PreferClose` with a deprecation warning.
/// `PreferSameNode` has no older name. Both the annotation and the field
/// get the value written, so the operator applies the same. Pure.
pub fn for_server(
    asked: TrafficValue,
    version: Option<(u32, u32)>,
) -> (TrafficValue, Option<String>) {
    let Some(version) = version else {
        return (asked, None);
    };
    match asked {
        TrafficValue::PreferClose => match deprecated_on(asked, Some(version)) {
            Some((since, instead)) => (
                instead,
                Some(format!(
                    "Kubernetes 1.{since} and later name PreferClose {instead} (the old name is deprecated), and this API server is {}.{}",
                    version.0, version.1
                )),
            ),
            None => (asked, None),
        },
        TrafficValue::PreferSameZone
            if !at_least(version, TrafficValue::PreferSameZone.since_minor()) =>
        {
            (
                TrafficValue::PreferClose,
                Some(format!(
                    "before Kubernetes 1.{} PreferSameZone is named PreferClose, and this API server is {}.{}",
                    TrafficValue::PreferSameZone.since_minor(),
                    version.0,
                    version.1
                )),
            )
        }
        _ => (asked, None),
    }
}

/// Whether `major.minor` is 1.`since` or later.
fn at_least((major, minor): (u32, u32), since: u32) -> bool {
    major > 1 || (major == 1 && minor >= since)
}

/// Whether the operator's field manager is among `owners`.
pub fn owned_by_us(owners: &[FieldOwner]) -> bool {
    owners.iter().any(|o| o.manager == FIELD_MANAGER)
}

/// What to do to the Service in one evaluation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "action", content = "value", rename_all = "camelCase")]
pub enum ServiceAction {
    /// No request at all.
    Nothing,
    /// Server-side apply of the value under our manager, forced.
    Apply(TrafficValue),
    /// Re-apply under our manager without the field: the value goes unless
    /// another manager also owns it.
    Release,
}

/// The traffic decision (docs/contract.md#the-traffic-decision) for `annotation` (`None`: absent),
/// the Service's current value and whether our manager owns it. Also says
/// whether the annotation was invalid (the operator warns, the reconcile
/// goes on with the field released).
pub fn decide(annotation: Option<&str>, current: Option<&str>, owned: bool) -> Decision {
    let release_if_owned = if owned {
        ServiceAction::Release
    } else {
        ServiceAction::Nothing
    };
    match annotation {
        None => Decision {
            action: release_if_owned,
            invalid_annotation: false,
        },
        Some(text) => match TrafficValue::parse(text) {
            None => Decision {
                action: release_if_owned,
                invalid_annotation: true,
            },
            Some(v) if current == Some(v.as_str()) && owned => Decision {
                action: ServiceAction::Nothing,
                invalid_annotation: false,
            },
            Some(v) => Decision {
                action: ServiceAction::Apply(v),
                invalid_annotation: false,
            },
        },
    }
}

/// The server-side-apply managers other than ours that hold the field and
/// that `take_from` does not name: a forced apply would take the field
/// from each, and its next apply would fail with a conflict, so each needs
/// consent by name. Managers of `Update` writes (hand edits: `kubectl
/// edit`, `replace`) are not counted: their next write does not conflict,
/// and taking a hand edit back is what `set` is for.
pub fn unconsented(owners: &[FieldOwner], take_from: &[String]) -> Vec<String> {
    let mut out: Vec<String> = owners
        .iter()
        .filter(|o| o.operation == "Apply" && o.manager != FIELD_MANAGER)
        .filter(|o| !take_from.contains(&o.manager))
        .map(|o| o.manager.clone())
        .collect();
    out.sort();
    out.dedup();
    out
}

/// See [`decide`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decision {
    pub action: ServiceAction,
    pub invalid_annotation: bool,
}

/// How the annotation, the value and its owners relate, for `show`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Assessment {
    /// No annotation, no value.
    Unset,
    /// The annotation's value is on the Service and held by our manager.
    InStep,
    /// The annotation asks for a value the Service does not have (or that
    /// our manager does not hold): the next reconcile or `set` applies it.
    PendingApply,
    /// Our manager holds the field but the annotation is gone: the next
    /// reconcile or `clear` releases it.
    PendingRelease,
    /// A value with no annotation that our manager does not hold: set by
    /// hand or by another manager, and left alone.
    HandSet,
    /// The annotation is not one of the three values.
    InvalidAnnotation,
}

impl Assessment {
    pub fn of(annotation: Option<&str>, current: Option<&str>, owned: bool) -> Assessment {
        let decision = decide(annotation, current, owned);
        if decision.invalid_annotation {
            return Assessment::InvalidAnnotation;
        }
        match (decision.action, current) {
            (ServiceAction::Apply(_), _) => Assessment::PendingApply,
            (ServiceAction::Release, _) => Assessment::PendingRelease,
            (ServiceAction::Nothing, _) if annotation.is_some() => Assessment::InStep,
            (ServiceAction::Nothing, Some(_)) => Assessment::HandSet,
            (ServiceAction::Nothing, None) => Assessment::Unset,
        }
    }

    /// One sentence for the table.
    pub fn describe(self) -> &'static str {
        match self {
            Assessment::Unset => "unset: no annotation and no value",
            Assessment::InStep => {
                "in step: the annotation's value is on the Service, held by the operator's field manager"
            }
            Assessment::PendingApply => {
                "pending: the annotation's value is not (or not by the operator's field manager) on the Service; `traffic set` or the operator applies it"
            }
            Assessment::PendingRelease => {
                "pending: the operator's field manager holds the value but the annotation is gone; `traffic clear` or the operator releases it"
            }
            Assessment::HandSet => {
                "set by hand or by another manager: no annotation, and the operator's field manager does not hold the value; left alone"
            }
            Assessment::InvalidAnnotation => {
                "invalid annotation: not PreferClose, PreferSameZone or PreferSameNode; the operator warns and leaves the field unset"
            }
        }
    }
}

/// After an apply of `wanted`: did the server keep it? A server that does
/// not know the field (before 1.31, or with its gate off) answers 200 and
/// drops it.
pub fn kept(wanted: TrafficValue, returned: Option<&str>) -> bool {
    returned == Some(wanted.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_writes_the_name_the_server_gives_the_value() {
        use TrafficValue::*;
        for (asked, version, written, said) in [
            (PreferClose, Some((1, 37)), PreferSameZone, true),
            (PreferClose, Some((1, 35)), PreferSameZone, true),
            (PreferClose, Some((1, 34)), PreferClose, false),
            (PreferClose, Some((1, 31)), PreferClose, false),
            (PreferSameZone, Some((1, 33)), PreferClose, true),
            (PreferSameZone, Some((1, 31)), PreferClose, true),
            // 1.30 keeps PreferClose only with its gate on, never PreferSameZone.
            (PreferSameZone, Some((1, 30)), PreferClose, true),
            (PreferSameZone, Some((1, 34)), PreferSameZone, false),
            (PreferSameNode, Some((1, 33)), PreferSameNode, false),
            (PreferSameNode, Some((1, 37)), PreferSameNode, false),
            (PreferClose, None, PreferClose, false),
            (PreferSameZone, Some((2, 0)), PreferSameZone, false),
        ] {
            let (got, why) = for_server(asked, version);
            assert_eq!(
                (got, why.is_some()),
                (written, said),
                "{asked} on {version:?}"
            );
        }
        let (_, why) = for_server(PreferClose, Some((1, 37)));
        assert_eq!(
            why.unwrap(),
            "Kubernetes 1.35 and later name PreferClose PreferSameZone (the old name is deprecated), and this API server is 1.37"
        );
    }

    use Assessment as S;
    use ServiceAction::{Apply, Nothing, Release};
    use TrafficValue::*;

    /// (annotation, current value, owned by us, action, invalid annotation)
    type Row = (
        Option<&'static str>,
        Option<&'static str>,
        bool,
        ServiceAction,
        bool,
    );

    #[test]
    fn decision_table_of_contract_section_6_3() {
        let cases: &[Row] = &[
            (None, None, false, Nothing, false),
            (None, Some("PreferClose"), false, Nothing, false), // hand-set: left alone
            (None, Some("PreferClose"), true, Release, false),
            (None, None, true, Release, false), // owned but dropped: still release
            (Some("preferclose"), None, false, Nothing, true), // case matters
            (Some(""), Some("PreferClose"), true, Release, true), // empty is invalid
            (
                Some(" PreferClose"),
                Some("PreferClose"),
                false,
                Nothing,
                true,
            ),
            (
                Some("PreferClose"),
                Some("PreferClose"),
                true,
                Nothing,
                false,
            ),
            (
                Some("PreferClose"),
                Some("PreferClose"),
                false,
                Apply(PreferClose),
                false,
            ), // hand edit took ownership
            (
                Some("PreferClose"),
                Some("PreferSameZone"),
                true,
                Apply(PreferClose),
                false,
            ), // hand edit of the value
            (
                Some("PreferSameNode"),
                None,
                false,
                Apply(PreferSameNode),
                false,
            ),
            (
                Some("PreferSameZone"),
                None,
                true,
                Apply(PreferSameZone),
                false,
            ), // dropped by an old server: apply again
        ];
        for (a, c, o, action, invalid) in cases {
            let d = decide(*a, *c, *o);
            assert_eq!(
                (d.action, d.invalid_annotation),
                (*action, *invalid),
                "{a:?} {c:?} {o}"
            );
        }
    }

    #[test]
    fn assessment_for_show() {
        let cases: &[(Option<&str>, Option<&str>, bool, Assessment)] = &[
            (None, None, false, S::Unset),
            (None, Some("PreferClose"), false, S::HandSet),
            (None, Some("PreferClose"), true, S::PendingRelease),
            (Some("PreferClose"), Some("PreferClose"), true, S::InStep),
            (
                Some("PreferClose"),
                Some("PreferClose"),
                false,
                S::PendingApply,
            ),
            (Some("PreferClose"), None, false, S::PendingApply),
            (
                Some("Nearby"),
                Some("PreferClose"),
                false,
                S::InvalidAnnotation,
            ),
        ];
        for (a, c, o, want) in cases {
            assert_eq!(Assessment::of(*a, *c, *o), *want, "{a:?} {c:?} {o}");
        }
    }

    #[test]
    fn values_parse_exactly() {
        for v in TrafficValue::ALL {
            assert_eq!(TrafficValue::parse(v.as_str()), Some(v));
        }
        for bad in ["", "preferClose", "PreferClose ", "PreferZone", "Local"] {
            assert_eq!(TrafficValue::parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn server_versions_and_support() {
        let cases = [
            ("1", "34", "v1.34.4", Some((1, 34))),
            ("1", "30+", "v1.30.14-eks-1", Some((1, 30))),
            ("", "", "v1.31.2+k3s1", Some((1, 31))),
            ("", "", "garbage", None),
        ];
        for (major, minor, git, want) in cases {
            assert_eq!(parse_server_version(major, minor, git), want, "{git}");
        }
        let support = |v, ver| expected_support(v, Some(ver));
        assert_eq!(support(PreferClose, (1, 30)), Some(false));
        assert_eq!(support(PreferClose, (1, 31)), Some(true));
        assert_eq!(support(PreferSameZone, (1, 33)), Some(false));
        assert_eq!(support(PreferSameZone, (1, 34)), Some(true));
        assert_eq!(support(PreferSameNode, (1, 34)), Some(true));
        assert_eq!(support(PreferSameNode, (2, 0)), Some(true));
        assert_eq!(expected_support(PreferClose, None), None);
        assert_eq!(deprecated_on(PreferClose, Some((1, 34))), None);
        assert_eq!(
            deprecated_on(PreferClose, Some((1, 35))),
            Some((35, PreferSameZone))
        );
        assert_eq!(
            deprecated_on(PreferClose, Some((2, 0))),
            Some((35, PreferSameZone))
        );
        assert_eq!(deprecated_on(PreferClose, None), None);
        assert_eq!(deprecated_on(PreferSameZone, Some((1, 37))), None);
    }

    #[test]
    fn ownership_is_the_field_managers() {
        let owner = |manager: &str| FieldOwner {
            manager: manager.into(),
            operation: "Apply".into(),
            time: None,
        };
        assert!(owned_by_us(&[owner("kubectl-edit"), owner(FIELD_MANAGER)]));
        assert!(!owned_by_us(&[owner("kubectl-edit")]));
        assert!(!owned_by_us(&[]));
    }

    /// Issue 45: taking the field from another server-side-apply manager
    /// needs that manager named; hand edits (Update) and our own hold do
    /// not.
    #[test]
    fn only_named_apply_managers_may_be_displaced() {
        let owner = |manager: &str, operation: &str| FieldOwner {
            manager: manager.into(),
            operation: operation.into(),
            time: None,
        };
        let named = |list: &[&str]| list.iter().map(|m| m.to_string()).collect::<Vec<_>>();
        type Case<'a> = (&'a str, Vec<FieldOwner>, Vec<String>, Vec<&'a str>);
        let cases: Vec<Case> = vec![
            ("nobody", vec![], named(&[]), vec![]),
            (
                "ours",
                vec![owner(FIELD_MANAGER, "Apply")],
                named(&[]),
                vec![],
            ),
            (
                "a hand edit",
                vec![owner("kubectl-edit", "Update")],
                named(&[]),
                vec![],
            ),
            (
                "argo, not named",
                vec![owner("argocd-controller", "Apply")],
                named(&[]),
                vec!["argocd-controller"],
            ),
            (
                "argo, named",
                vec![owner("argocd-controller", "Apply")],
                named(&["argocd-controller"]),
                vec![],
            ),
            (
                "another named, argo not",
                vec![owner("argocd-controller", "Apply"), owner("flux", "Apply")],
                named(&["flux"]),
                vec!["argocd-controller"],
            ),
            (
                "shared with ours",
                vec![
                    owner(FIELD_MANAGER, "Apply"),
                    owner("platform-apply", "Apply"),
                ],
                named(&[]),
                vec!["platform-apply"],
            ),
        ];
        for (name, owners, take_from, want) in cases {
            assert_eq!(unconsented(&owners, &take_from), want, "{name}");
        }
    }

    #[test]
    fn a_dropped_value_is_not_kept() {
        assert!(kept(PreferClose, Some("PreferClose")));
        assert!(!kept(PreferClose, None));
        assert!(!kept(PreferSameZone, Some("PreferClose")));
    }
}
