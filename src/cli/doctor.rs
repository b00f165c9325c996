//! `doctor`'s flags, `--serve`'s among them.

use std::time::Duration;

use clap::{Args, ValueEnum};

use super::{parse_duration, parse_metrics_address, parse_timeout, ClusterArg, GateArgs};

/// The heading of `--serve`'s flags in `doctor --help`.
const SERVE: &str = "Serving metrics (--serve)";

/// `doctor --fail-on` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FailOn {
    Warning,
    Critical,
    Never,
}

#[derive(Debug, Args)]
pub struct DoctorArgs {
    #[command(flatten)]
    pub cluster: ClusterArg,

    /// Every EtcdCluster in every namespace.
    #[arg(short = 'A', long, conflicts_with = "cluster")]
    pub all_namespaces: bool,

    /// Exit 1 when any finding is at least this severe.
    #[arg(long, value_enum, default_value_t = FailOn::Critical)]
    pub fail_on: FailOn,

    /// When a member needs a defrag: how long to count the writes, to name
    /// the prefix whose churn makes the free space (0: do not sample).
    #[arg(long, value_parser = parse_duration, value_name = "DURATION", default_value = "5s")]
    pub churn_window: Duration,

    /// Also check what stands in the way of upgrading to this etcd release
    /// (a minor line such as 3.6, or an exact release such as 3.6.16):
    /// patch floors, skipped minors, an unfinished upgrade or downgrade,
    /// flags the release no longer accepts, health. Blockers are critical.
    #[arg(long, value_name = "VERSION")]
    pub upgrade_to: Option<String>,

    /// Acknowledge a finding by its check id (the CHECK column, e.g.
    /// known-defect/v3.5-data-inconsistency): it stays listed, marked
    /// acknowledged, and no longer counts for --fail-on or for the
    /// severity --serve exposes. Repeat it, or separate ids with commas;
    /// KUBECTL_ETCD_ACKNOWLEDGE sets it for a CronJob or Deployment (the
    /// flag replaces it).
    #[arg(long, value_name = "CHECK", value_delimiter = ',', env = "KUBECTL_ETCD_ACKNOWLEDGE", value_parser = parse_check_id)]
    pub acknowledge: Vec<String>,

    #[command(flatten)]
    pub gate: GateArgs,

    /// Keep examining, and serve what is found as Prometheus metrics
    /// (/metrics) with probes (/healthz, /readyz) over HTTP on this
    /// IP:PORT, e.g. 0.0.0.0:9464 in a Pod. Every cluster in scope (-A:
    /// every namespace) is examined every --interval; stops on Ctrl-C or
    /// SIGTERM. Nothing is printed and the exit is 0, so --fail-on and
    /// -o are refused with it.
    #[arg(long, value_parser = parse_metrics_address, value_name = "ADDR", help_heading = SERVE, conflicts_with_all = ["fail_on"])]
    pub serve: Option<std::net::SocketAddr>,

    /// With --serve: how often each cluster is examined (each cluster on
    /// its own clock, with up to a tenth more at random).
    #[arg(long, requires = "serve", default_value = "1m", value_parser = parse_timeout, value_name = "DURATION", help_heading = SERVE)]
    pub interval: Duration,

    /// With --serve: how long one examination may take before it is given
    /// up and the cluster shown as not examined.
    #[arg(long, requires = "serve", default_value = "1m", value_parser = parse_timeout, value_name = "DURATION", help_heading = SERVE)]
    pub examine_timeout: Duration,

    /// With --serve and --endpoints: the NAMESPACE/NAME to serve the
    /// cluster under, as `doctor -A` lists it (its kind from --kind), e.g.
    /// kube-system/etcd for a control plane's own etcd examined on its
    /// node with the node's certificates, so that alerts name the cluster
    /// as the plugin does and their advice runs as printed.
    #[arg(long, requires = "serve", value_parser = parse_serve_as, value_name = "NAMESPACE/NAME", help_heading = SERVE, conflicts_with_all = ["cluster", "all_namespaces"])]
    pub serve_as: Option<(String, String)>,

    /// With --serve: how many clusters are examined at once, 1 to 64.
    #[arg(long, requires = "serve", default_value_t = 4, value_parser = clap::value_parser!(u16).range(1..=64), value_name = "N", help_heading = SERVE)]
    pub max_concurrent: u16,
}

/// `--serve-as NAMESPACE/NAME`: two names of Kubernetes' object-name form
/// (lower-case letters, digits, `-` and `.`, at most 253).
/// `--acknowledge CHECK`: a check id as doctor names them, one or two
/// words of letters, digits, `-`, `_` and `.` joined by `/`.
fn parse_check_id(text: &str) -> Result<String, String> {
    let word = |s: &str| {
        !s.is_empty()
            && s.len() <= 64
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    };
    let text = text.trim();
    let ok = match text.split_once('/') {
        Some((family, rest)) => word(family) && word(rest),
        None => word(text),
    };
    if ok {
        Ok(text.to_string())
    } else {
        Err(format!(
            "{text:?} is not a check id: use the CHECK column of `kubectl etcd doctor` (e.g. known-defect/v3.5-data-inconsistency)"
        ))
    }
}

fn parse_serve_as(text: &str) -> Result<(String, String), String> {
    let name_like = |s: &str| {
        !s.is_empty()
            && s.len() <= 253
            && s.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'.')
            && s.bytes().next().is_some_and(|b| b.is_ascii_alphanumeric())
    };
    match text.split_once('/') {
        Some((namespace, name)) if name_like(namespace) && name_like(name) => {
            Ok((namespace.to_string(), name.to_string()))
        }
        _ => Err("expected NAMESPACE/NAME, e.g. kube-system/etcd".to_string()),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::parse_serve_as;

    #[test]
    fn serve_as_is_namespace_slash_name() {
        assert_eq!(
            parse_serve_as("kube-system/etcd"),
            Ok(("kube-system".to_string(), "etcd".to_string()))
        );
        for bad in [
            "etcd",
            "/etcd",
            "kube-system/",
            "a/b/c",
            "Kube/etcd",
            "a/-b",
            "a b/c",
        ] {
            assert!(parse_serve_as(bad).is_err(), "{bad}");
        }
    }
}
