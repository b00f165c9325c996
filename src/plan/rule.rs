//! The EtcdDefrag rule (docs/contract.md#the-rule): the same flag
//! combinations are refused with the same meaning as the CRD's CEL rules,
//! and a member triggers under exactly the same comparisons (`>` on free
//! space, `>=` on min-reclaim, the quota fraction computed as `N / 100.0`
//! then multiplied, as IEEE doubles).
//!
//! One departure, on purpose (issue 45): a threshold the rule leaves out
//! scales with the member's quota. The operator's defaults (freeSpaceAbove
//! 200Mi, minReclaim 32Mi) are sized for its 2 GiB default quota; on a
//! 64 MiB quota 200Mi of free space can never exist, so the default rule
//! never fired and a cluster ran into NOSPACE with a third of its quota
//! reclaimable. Absent thresholds are therefore a tenth of the quota for
//! free space and a twentieth for min-reclaim, never more than the
//! operator's figures (which big quotas keep: 10% of 2 GiB is the
//! operator's 200 MiB, near enough). For comparison: OpenShift's etcd
//! operator defragments at 45% fragmentation once the file passes 100 MB,
//! and etcd-defrag's documented example rule is `dbQuotaUsage > 0.8 ||
//! dbSize - dbSizeInUse > 200 MiB`. The same rule serves the one-shot sweep
//! (and so the CronJob manifest, which gives no threshold), `--watch` and
//! `doctor`'s fragmentation check.

use std::fmt;

use serde::Serialize;

/// The operator's default `freeSpaceAbove` (200Mi): ours on a quota of
/// 2000 MiB or more, or an unknown one ([`default_free_space_above`]).
pub const DEFAULT_FREE_SPACE_ABOVE: u64 = 200 * 1024 * 1024;
/// The operator's default `minReclaim` (32Mi): ours on a quota of 640 MiB
/// or more, or an unknown one ([`default_min_reclaim`]).
pub const DEFAULT_MIN_RECLAIM: u64 = 32 * 1024 * 1024;

/// The free space above which a member triggers when the rule gives no
/// `freeSpaceAbove`: a tenth of its quota, at most 200 MiB (`quota` 0:
/// unknown, 200 MiB).
pub fn default_free_space_above(quota: u64) -> u64 {
    share_of(quota, 10, DEFAULT_FREE_SPACE_ABOVE)
}

/// The `minReclaim` when the rule gives none: a twentieth of the quota, at
/// most 32 MiB (`quota` 0: unknown, 32 MiB).
pub fn default_min_reclaim(quota: u64) -> u64 {
    share_of(quota, 20, DEFAULT_MIN_RECLAIM)
}

/// `quota / divisor`, at least 1 byte and at most `operators` (the
/// operator's fixed figure), which an unknown quota (0) gets.
fn share_of(quota: u64, divisor: u64, operators: u64) -> u64 {
    match quota {
        0 => operators,
        q => (q / divisor).clamp(1, operators),
    }
}

/// A validated rule. Absent thresholds take the defaults at evaluation.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DefragRule {
    pub all: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub free_space_above: Option<u64>,
    /// Whole percent, 1..=100.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quota_usage_above: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_reclaim: Option<u64>,
}

/// Parses `80%` into 80. Accepts 1%..100% (the union of the CRD revisions;
/// 100% is legal under the oldest). The `%` is required, as in the CRD.
pub fn parse_percent(text: &str) -> Result<u8, String> {
    let help =
        || format!("invalid value {text:?}: expected a whole percentage from 1% to 100%, e.g. 80%");
    let digits = match text.strip_suffix('%') {
        Some(digits) => digits,
        // `80` as people write it: the form with its sign, when it is one.
        None if parse_percent(&format!("{text}%")).is_ok() => {
            return Err(format!(
                "invalid value {text:?}: write {text}% (a percentage takes its %, as in the EtcdDefrag rule)"
            ))
        }
        None => return Err(help()),
    };
    if digits.is_empty()
        || digits.len() > 3
        || !digits.bytes().all(|b| b.is_ascii_digit())
        || digits.starts_with('0')
    {
        return Err(help());
    }
    match digits.parse::<u8>() {
        Ok(n) if (1..=100).contains(&n) => Ok(n),
        _ => Err(help()),
    }
}

impl DefragRule {
    /// Checks the combinations the CRD's CEL rules refuse. Messages name
    /// the CLI flags.
    pub fn validate(self) -> Result<DefragRule, String> {
        if self.all
            && (self.free_space_above.is_some()
                || self.quota_usage_above.is_some()
                || self.min_reclaim.is_some())
        {
            return Err("--all cannot be combined with --free-space-above/--quota-usage-above/--min-reclaim".into());
        }
        if self.free_space_above == Some(0) {
            return Err("--free-space-above must be greater than 0".into());
        }
        if self.min_reclaim == Some(0) {
            return Err("--min-reclaim must be greater than 0".into());
        }
        if self.min_reclaim.is_some() && self.quota_usage_above.is_none() {
            return Err("--min-reclaim is only meaningful with --quota-usage-above".into());
        }
        if let (Some(min), Some(free)) = (self.min_reclaim, self.free_space_above) {
            if min > free {
                return Err("--min-reclaim must not exceed --free-space-above".into());
            }
        }
        Ok(self)
    }

    /// Decides one member. `quota` is the effective quota in bytes.
    pub fn evaluate(&self, db_size: u64, in_use: u64, quota: u64) -> RuleOutcome {
        if self.all {
            return RuleOutcome::Trigger(Trigger::All);
        }
        let free = self
            .free_space_above
            .unwrap_or_else(|| default_free_space_above(quota));
        let min_reclaim = self
            .min_reclaim
            .unwrap_or_else(|| default_min_reclaim(quota));
        // Signed, as the operator computes it: a negative value never triggers.
        let reclaimable = i128::from(db_size) - i128::from(in_use);
        if reclaimable > i128::from(free) {
            return RuleOutcome::Trigger(Trigger::FreeSpace);
        }
        if let Some(pct) = self.quota_usage_above {
            let fraction = f64::from(pct) / 100.0;
            if quota > 0
                && (db_size as f64) > fraction * (quota as f64)
                && reclaimable >= i128::from(min_reclaim)
            {
                return RuleOutcome::Trigger(Trigger::QuotaUsage);
            }
        }
        RuleOutcome::Skip
    }
}

impl fmt::Display for DefragRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use crate::quantity::format_bytes;
        if self.all {
            return write!(f, "all members");
        }
        match self.free_space_above {
            Some(free) => write!(f, "reclaimable > {}", format_bytes(free))?,
            None => write!(
                f,
                "reclaimable > 10% of the quota (at most {})",
                format_bytes(DEFAULT_FREE_SPACE_ABOVE)
            )?,
        }
        if let Some(p) = self.quota_usage_above {
            match self.min_reclaim {
                Some(min) => write!(
                    f,
                    ", or size > {p}% of quota with reclaimable ≥ {}",
                    format_bytes(min)
                )?,
                None => write!(
                    f,
                    ", or size > {p}% of quota with reclaimable ≥ 5% of it (at most {})",
                    format_bytes(DEFAULT_MIN_RECLAIM)
                )?,
            }
        }
        Ok(())
    }
}

/// Why a member triggers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Trigger {
    All,
    FreeSpace,
    QuotaUsage,
    /// Not the rule's: NOSPACE is raised and this member's defrag helps
    /// bring the cluster back under its quota
    /// (`plan::defrag::recover_nospace`).
    Nospace,
}

/// The rule's verdict for one member.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleOutcome {
    Trigger(Trigger),
    Skip,
}

#[cfg(test)]
mod tests {
    use super::*;

    const MI: u64 = 1024 * 1024;

    fn rule(all: bool, free: Option<u64>, pct: Option<u8>, min: Option<u64>) -> DefragRule {
        DefragRule {
            all,
            free_space_above: free,
            quota_usage_above: pct,
            min_reclaim: min,
        }
    }

    #[test]
    fn validation_matches_the_crd() {
        let ok = [
            rule(false, None, None, None),
            rule(true, None, None, None),
            rule(false, Some(1), None, None),
            rule(false, None, Some(80), Some(32 * MI)),
            rule(false, Some(200 * MI), Some(80), Some(200 * MI)),
            // Not checked against the 200Mi default when freeSpaceAbove is absent.
            rule(false, None, Some(80), Some(500 * MI)),
        ];
        for r in ok {
            assert_eq!(r.validate(), Ok(r));
        }
        let bad: [(DefragRule, &str); 6] = [
            (rule(true, Some(1), None, None), "--all cannot be combined"),
            (rule(true, None, Some(80), None), "--all cannot be combined"),
            (
                rule(false, Some(0), None, None),
                "--free-space-above must be greater than 0",
            ),
            (
                rule(false, None, Some(80), Some(0)),
                "--min-reclaim must be greater than 0",
            ),
            (
                rule(false, None, None, Some(MI)),
                "only meaningful with --quota-usage-above",
            ),
            (
                rule(false, Some(MI), Some(80), Some(2 * MI)),
                "must not exceed --free-space-above",
            ),
        ];
        for (r, want) in bad {
            let e = r.validate().err().unwrap_or_default();
            assert!(e.contains(want), "{r:?}: {e}");
        }
    }

    /// Issue 45: absent thresholds scale with the quota, never past the
    /// operator's; a given threshold is used as given.
    #[test]
    fn absent_thresholds_scale_with_the_quota() {
        let default = DefragRule::default();
        let cases: [(u64, u64, u64, RuleOutcome); 8] = [
            // 24 MiB reclaimable on a 64 MiB quota (the trial's): above 6.4 MiB.
            (
                64 * MI,
                40 * MI,
                16 * MI,
                RuleOutcome::Trigger(Trigger::FreeSpace),
            ),
            // 32 of 36 MiB on a 256 MiB quota: above 25.6 MiB.
            (
                256 * MI,
                36 * MI,
                4 * MI,
                RuleOutcome::Trigger(Trigger::FreeSpace),
            ),
            // 5 MiB on 64 MiB: below a tenth.
            (64 * MI, 30 * MI, 25 * MI, RuleOutcome::Skip),
            // 2 GiB: 200 MiB, as the operator.
            (2048 * MI, 300 * MI, 100 * MI, RuleOutcome::Skip),
            (
                2048 * MI,
                300 * MI,
                99 * MI,
                RuleOutcome::Trigger(Trigger::FreeSpace),
            ),
            // 8 GiB: still 200 MiB, not 819 MiB.
            (
                8192 * MI,
                500 * MI,
                299 * MI,
                RuleOutcome::Trigger(Trigger::FreeSpace),
            ),
            // Unknown quota: 200 MiB.
            (0, 150 * MI, 10 * MI, RuleOutcome::Skip),
            (
                0,
                250 * MI,
                10 * MI,
                RuleOutcome::Trigger(Trigger::FreeSpace),
            ),
        ];
        for (quota, size, used, want) in cases {
            assert_eq!(
                default.evaluate(size, used, quota),
                want,
                "{quota} {size} {used}"
            );
        }
        assert_eq!(default_free_space_above(64 * MI), 64 * MI / 10);
        assert_eq!(default_free_space_above(8192 * MI), 200 * MI);
        assert_eq!(default_min_reclaim(64 * MI), 64 * MI / 20);
        assert_eq!(default_min_reclaim(8192 * MI), 32 * MI);
        // Given, it is used as given, whatever the quota.
        let given = rule(false, Some(200 * MI), None, None);
        assert_eq!(given.evaluate(64 * MI, 10 * MI, 64 * MI), RuleOutcome::Skip);
        // The quota arm's min-reclaim scales too: 3.2 MiB on 64 MiB.
        let quota = rule(false, Some(60 * MI), Some(80), None);
        assert_eq!(
            quota.evaluate(60 * MI, 56 * MI, 64 * MI),
            RuleOutcome::Trigger(Trigger::QuotaUsage)
        );
        assert_eq!(
            default.to_string(),
            "reclaimable > 10% of the quota (at most 200 MiB)"
        );
    }

    #[test]
    fn percentages() {
        assert_eq!(parse_percent("80%"), Ok(80));
        assert_eq!(parse_percent("1%"), Ok(1));
        assert_eq!(parse_percent("100%"), Ok(100));
        for bad in [
            "0%", "101%", "80", "%", "08%", "-5%", "80.5%", " 80%", "1000%",
        ] {
            assert!(parse_percent(bad).is_err(), "{bad}");
        }
        // A percentage written without its sign is told the form to write.
        assert_eq!(
            parse_percent("80"),
            Err("invalid value \"80\": write 80% (a percentage takes its %, as in the EtcdDefrag rule)".into())
        );
        assert!(parse_percent("101")
            .unwrap_err()
            .contains("from 1% to 100%"));
    }

    #[test]
    fn evaluation_is_bit_exact() {
        let default = DefragRule::default();
        // Strictly greater than 200Mi.
        assert_eq!(default.evaluate(200 * MI + 10, 10, 0), RuleOutcome::Skip);
        assert_eq!(
            default.evaluate(200 * MI + 11, 10, 0),
            RuleOutcome::Trigger(Trigger::FreeSpace)
        );
        // Negative reclaimable never triggers (but `all` does).
        assert_eq!(default.evaluate(10, 20, 100), RuleOutcome::Skip);
        assert_eq!(
            rule(true, None, None, None).evaluate(10, 20, 100),
            RuleOutcome::Trigger(Trigger::All)
        );
        // Quota arm: size > 80% of quota and reclaimable >= 32Mi (>=).
        let quota = rule(false, None, Some(80), None);
        let q = 1000 * MI;
        assert_eq!(
            quota.evaluate(801 * MI, 801 * MI - 32 * MI, q),
            RuleOutcome::Trigger(Trigger::QuotaUsage)
        );
        assert_eq!(
            quota.evaluate(801 * MI, 801 * MI - 32 * MI + 1, q),
            RuleOutcome::Skip
        );
        assert_eq!(
            quota.evaluate(800 * MI, 700 * MI, q),
            RuleOutcome::Skip,
            "strictly greater than 80%"
        );
        assert_eq!(
            quota.evaluate(900 * MI, 700 * MI, 0),
            RuleOutcome::Skip,
            "quota 0 disables the arm"
        );
        // The fraction is N/100.0 first: 0.29 * 100 is 28.999999999999996, so 29 > it.
        let odd = rule(false, Some(1000), Some(29), Some(1));
        assert_eq!(
            odd.evaluate(29, 0, 100),
            RuleOutcome::Trigger(Trigger::QuotaUsage)
        );
    }
}
