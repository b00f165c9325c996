//! Command-line definition (clap derive only; no behaviour lives here).
//!
//! Global flags follow etcdctl's names and `ETCDCTL_*` variables so that an
//! operator's existing environment works unchanged; a flag always wins over
//! its variable. Durations take Go/etcdctl syntax (`500ms`, `5s`, `2m`).

pub mod agent;
mod doctor;

pub use doctor::{DoctorArgs, FailOn};

use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::logging::LogFormat;
use crate::output::OutputFormat;
use crate::reach::flags::FromEnv;
use crate::reach::ConnectMode;

/// Health-gated, follower-first etcd maintenance.
///
/// Works as a kubectl plugin (`kubectl etcd …`) and as a standalone CLI with
/// `--endpoints` (or `ETCDCTL_ENDPOINTS`). The given endpoints are seeds: every
/// member is discovered through MemberList unless `--no-discover` is set.
///
/// Exit codes: 0 done; 1 ran but refused or partly failed (for example the
/// health gate refused, or "no" at a prompt), with the reason on stderr; 2
/// usage, configuration or connection error (a user without the role a
/// call needs among them), nothing changed; 130 interrupted (Ctrl-C; `defrag`:
/// twice); 143 SIGTERM, 129 SIGHUP: stopped as on Ctrl-C, after the request
/// in flight, with what was done printed.
#[derive(Debug, Parser)]
#[command(
    name = "kubectl-etcd",
    bin_name = "kubectl etcd",
    version,
    max_term_width = 100
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,

    #[command(subcommand)]
    pub command: Command,
}

/// `defrag --help` headings: the command's own options first.
const RULE: &str = "Rule (EtcdDefrag spec.rule)";
const LEADER: &str = "Leader handling";
const RUN: &str = "Run and consent";
const WATCH: &str = "Controller (--watch)";
const VIA: &str = "Through the operator (--via-operator)";
const GATE: &str = "Health gate";

/// `--help` headings of the options every command accepts, after the
/// command's own.
const CONN: &str = "Connection";
const TLS: &str = "TLS and authentication";
const K8S: &str = "Kubernetes (plugin mode)";
const OUT: &str = "Output";

/// Flags every command accepts.
#[derive(Debug, Args)]
pub struct GlobalArgs {
    /// etcd client URLs to start from (comma-separated or repeated). A URL
    /// without a scheme uses https when --cacert is set, else http.
    #[arg(
        long,
        global = true, help_heading = CONN,
        env = "ETCDCTL_ENDPOINTS",
        value_delimiter = ',',
        value_name = "URL"
    )]
    pub endpoints: Vec<String>,

    /// CA bundle (PEM) that signed the members' server certificates.
    #[arg(long, global = true, help_heading = TLS, env = "ETCDCTL_CACERT", value_name = "FILE")]
    pub cacert: Option<String>,

    /// Client certificate (PEM) for mutual TLS; needs --key.
    #[arg(long, global = true, help_heading = TLS, env = "ETCDCTL_CERT", value_name = "FILE")]
    pub cert: Option<String>,

    /// Client private key (PEM) for mutual TLS; needs --cert.
    #[arg(long, global = true, help_heading = TLS, env = "ETCDCTL_KEY", value_name = "FILE")]
    pub key: Option<String>,

    /// etcd user name, or `name:password`. Without a password (here, in
    /// --password or in ETCDCTL_PASSWORD) it is asked for on a terminal.
    #[arg(long, global = true, help_heading = TLS, env = "ETCDCTL_USER", value_name = "NAME", hide_env_values = true)]
    pub user: Option<crate::secret::UserSpec>,

    /// Password for --user.
    #[arg(
        long,
        global = true, help_heading = TLS,
        env = "ETCDCTL_PASSWORD",
        value_name = "PASSWORD",
        hide_env_values = true,
        value_parser = parse_secret
    )]
    pub password: Option<crate::secret::Secret>,

    /// Use only the given endpoints; do not add members found in MemberList.
    #[arg(long, global = true, help_heading = CONN)]
    pub no_discover: bool,

    /// Time allowed to connect (TCP, TLS and authentication) to one member.
    #[arg(long, global = true, help_heading = CONN, env = "ETCDCTL_DIAL_TIMEOUT", default_value = "2s", value_parser = parse_timeout, value_name = "DURATION")]
    pub dial_timeout: Duration,

    /// Time allowed for one probe RPC (Status, MemberList, AlarmList) on one
    /// member; a member that does not answer in time is reported unreachable.
    #[arg(long, global = true, help_heading = CONN, env = "ETCDCTL_COMMAND_TIMEOUT", default_value = "5s", value_parser = parse_timeout, value_name = "DURATION")]
    pub command_timeout: Duration,

    /// Backend quota to assume for members that do not report one (etcd
    /// before 3.6). Kubernetes quantity, e.g. 8Gi. Default: etcd's 2Gi.
    #[arg(long, global = true, help_heading = CONN, value_parser = parse_quantity, value_name = "QUANTITY", allow_hyphen_values = true)]
    pub quota_backend_bytes: Option<u64>,

    /// Path to the kubeconfig file (plugin mode). Default: $KUBECONFIG
    /// (several paths are merged), else ~/.kube/config, else the in-cluster
    /// service account.
    #[arg(short = 'k', long, global = true, help_heading = K8S, value_name = "FILE")]
    pub kubeconfig: Option<String>,

    /// The kubeconfig context to use (plugin mode); more than once, for
    /// `status -A`, `doctor -A`, `defrag -A`/`-l` over each.
    #[arg(long, global = true, help_heading = K8S, value_name = "NAME")]
    pub context: Vec<String>,

    /// Every kubeconfig context, for `status -A`, `doctor -A`, `defrag -A`/`-l`.
    #[arg(long, global = true, help_heading = K8S, conflicts_with = "context")]
    pub all_contexts: bool,

    /// Namespace of the EtcdCluster. Default: the context's namespace, else
    /// `default`.
    #[arg(short = 'n', long, global = true, help_heading = K8S, value_name = "NAMESPACE")]
    pub namespace: Option<String>,

    /// An etcd member's Pod, as the etcd-operator's own Go plugin takes
    /// it: selects the Pod's EtcdCluster and, for `snapshot save` and
    /// `leave`, its member (plugin mode).
    #[arg(short = 'p', long = "pod", global = true, help_heading = K8S, value_name = "POD")]
    pub pod: Option<String>,

    /// The operator plugin's credentials Secret: refused, since the
    /// EtcdCluster names its own (or use --user).
    #[arg(
        short = 's',
        long = "credentials-secret",
        global = true,
        hide = true,
        value_name = "SECRET"
    )]
    pub credentials_secret: Option<String>,

    /// Act as this Kubernetes user (impersonation), e.g.
    /// system:serviceaccount:NS:NAME.
    #[arg(long = "as", global = true, help_heading = K8S, value_name = "USER")]
    pub as_user: Option<String>,

    /// Group to impersonate along with --as (repeatable).
    #[arg(long = "as-group", global = true, help_heading = K8S, value_name = "GROUP")]
    pub as_group: Vec<String>,

    /// How long to wait for the API server's answer to one request, as
    /// kubectl's flag: a duration (5s, 1m) or whole seconds (30); 0 waits
    /// as long as it takes. Default: 30 s to connect, then no limit. A
    /// watch or port-forward is bounded until it is answered, not after.
    #[arg(long, global = true, help_heading = K8S, value_parser = parse_request_timeout, value_name = "DURATION")]
    pub request_timeout: Option<Duration>,

    /// How to reach members in plugin mode: `direct` dials each member's Pod
    /// IP (or its in-cluster DNS name); `port-forward` tunnels to each member
    /// Pod through the API server; `auto` is direct inside a Pod, else
    /// port-forward. Certificates are always verified against the member's
    /// in-cluster DNS name.
    #[arg(long, global = true, help_heading = K8S, value_enum, default_value_t = ConnectMode::Auto)]
    pub connect: ConnectMode,

    /// The kind of cluster a name means (plugin mode). Default: every
    /// kind served; a name two kinds hold is refused until one is picked.
    #[arg(long, global = true, help_heading = K8S, value_enum, value_name = "KIND")]
    pub kind: Option<crate::reach::Kind>,

    #[command(flatten)]
    pub agent: agent::AgentArgs,

    /// Output format. etcdctl's ETCDCTL_WRITE_OUT is read too (its
    /// `simple` is the table; `fields` and `protobuf` have no counterpart).
    #[arg(short = 'o', long, global = true, help_heading = OUT, value_enum, env = "ETCDCTL_WRITE_OUT", default_value_t = OutputFormat::Table)]
    pub output: OutputFormat,

    /// More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins.
    #[arg(short = 'v', long, global = true, help_heading = OUT, action = clap::ArgAction::Count)]
    pub verbose: u8,

    /// How stderr is written: `text` for a person, `json` for a log
    /// collector (one JSON object per line: timestamp, level, message and
    /// the event's fields; messages and errors too).
    #[arg(long, global = true, help_heading = OUT, value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,

    /// Which of these flags took their value from an `ETCDCTL_*` variable
    /// (filled by [`parse`]), so that an error names the variable.
    #[arg(skip)]
    pub from_env: FromEnv,
}

/// Parses a command line (the first item is the program) and records which
/// global flags were filled from their `ETCDCTL_*` variable.
pub fn parse<I, T>(args: I) -> Result<Cli, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    use clap::{CommandFactory, FromArgMatches};
    let matches = Cli::command().try_get_matches_from(args)?;
    let mut cli = Cli::from_arg_matches(&matches)?;
    let command = Cli::command();
    cli.global.from_env = FromEnv(
        command
            .get_arguments()
            .filter(|a| a.get_env().is_some())
            .map(|a| a.get_id().as_str())
            .filter(|id| matches.value_source(id) == Some(clap::parser::ValueSource::EnvVariable))
            .map(str::to_string)
            .collect(),
    );
    cli.global.agent.read_env();
    if let (Command::Defrag(args), Some(("defrag", sub))) = (&mut cli.command, matches.subcommand())
    {
        args.given = sub
            .ids()
            .map(clap::Id::as_str)
            .filter(|id| sub.value_source(id) == Some(clap::parser::ValueSource::CommandLine))
            .map(str::to_string)
            .collect();
    }
    Ok(cli)
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// One row per member: size, in use, quota use, leader, raft progress,
    /// alarms and a health verdict.
    #[command(after_help = STATUS_EXAMPLES, help_template = with_examples(STATUS_EXAMPLES))]
    Status(StatusArgs),
    /// The member list: ids, names, peer and client URLs, learner flag.
    #[command(after_help = MEMBERS_EXAMPLES, help_template = with_examples(MEMBERS_EXAMPLES))]
    Members(MembersArgs),
    /// One report of what needs attention and what to do about it.
    ///
    /// Checks the health gate, alarms, fragmentation (with the defrag it
    /// would do), quota use, version skew, learners, history compaction,
    /// leader changes and WAL fsync latency (members' /metrics), and the
    /// certificates the members serve and the tool uses; on an EtcdCluster
    /// also auto-compaction settings, whether a defrag fits each member's
    /// volume, StopGRPCServiceOnDefrag in the members' Pods, and the
    /// trafficDistribution's prerequisites. When a member needs a defrag,
    /// the writes are sampled for --churn-window on a follower (a Watch) and
    /// the busiest prefix is named when its writes explain the free space,
    /// with the remedy for its kind (Events, Leases, one rewriting writer).
    /// Each finding has a severity (ok, warning, critical) and a one-line
    /// remedy. Exit 1 when a finding is at least --fail-on; what could not
    /// be read is listed, never guessed. With --serve it keeps examining
    /// and serves what it finds as Prometheus metrics.
    #[command(after_help = DOCTOR_EXAMPLES, help_template = with_examples(DOCTOR_EXAMPLES))]
    Doctor(DoctorArgs),
    /// Add a member or a learner, promote a learner, remove a member, with
    /// quorum checked first (etcdctl's `member` verbs).
    ///
    /// A change is refused when the voters that answer now could not reach
    /// quorum afterwards (adding a voter while members are down, removing a
    /// member that answers while another does not, the last voter), with the
    /// numbers; --force overrides it with a typed confirmation. On an
    /// EtcdCluster the operator owns membership: the command refuses and
    /// says to change the EtcdCluster instead, unless --force.
    #[command(subcommand, after_help = MEMBER_EXAMPLES, help_template = with_examples(MEMBER_EXAMPLES))]
    Member(MemberCommand),
    /// The etcd-operator plugin's `leave -p POD`: `member remove` of the
    /// Pod's member, with its checks.
    #[command(hide = true)]
    Leave(LeaveArgs),
    /// The etcd-operator plugin's `remove-member ID`: `member remove`.
    #[command(hide = true)]
    RemoveMember(MemberChangeArgs),
    /// The etcd-operator plugin's `add-member URL`: refused, with the
    /// `member add` that does it.
    #[command(hide = true)]
    AddMember {
        #[arg(value_name = "PEER_URL")]
        url: String,
    },
    /// Health-gated, follower-first defragmentation, one member at a time.
    ///
    /// Before every step the cluster is probed again and the health gate
    /// re-run; a member is touched only after the previous one answers again
    /// and has caught up. Followers go first (most reclaimable first), the
    /// leader last, in place or after a leadership transfer (--move-leader).
    /// The rule flags mirror EtcdDefrag's `spec.rule`, with the same defaults
    /// and the same refused combinations.
    ///
    /// Ctrl-C stops once the member being defragmented has answered again and
    /// prints what was done (exit 1); a second Ctrl-C stops waiting for that
    /// member too (it may still be defragmenting) and exits 130. SIGTERM and
    /// SIGHUP stop the same way and exit 143 and 129.
    #[command(after_help = DEFRAG_EXAMPLES, help_template = with_examples(DEFRAG_EXAMPLES))]
    Defrag(DefragArgs),
    /// List or disarm alarms (NOSPACE, CORRUPT), with member names.
    #[command(subcommand, after_help = ALARM_EXAMPLES, help_template = with_examples(ALARM_EXAMPLES))]
    Alarm(AlarmCommand),
    /// Transfer leadership to another voter (the most caught-up healthy one
    /// unless --to names it).
    #[command(after_help = MOVE_LEADER_EXAMPLES, help_template = with_examples(MOVE_LEADER_EXAMPLES), visible_alias = "forfeit-leadership")]
    MoveLeader(MoveLeaderArgs),
    /// Compact the key-value history: drop every revision before the one
    /// kept, through the leader, after the health gate passes.
    ///
    /// `--revision N` keeps revisions N and later; `--keep N` keeps the N
    /// before the current one. When what was asked to go is gone already,
    /// there is nothing to compact: said so, exit 0. A revision past the
    /// current one is refused, with the numbers. The space comes back only
    /// with a defrag afterwards
    /// (`kubectl etcd defrag`); the report shows each member's in-use size
    /// after, once it has settled.
    #[command(after_help = COMPACT_EXAMPLES, help_template = with_examples(COMPACT_EXAMPLES))]
    Compact(CompactArgs),
    /// Which key prefixes hold the space and which take the writes.
    ///
    /// Reads every key under --prefix from one healthy follower (the most
    /// caught-up one unless --member names another), in serializable Range
    /// pages of about 4 MiB at one revision, so the leader is never asked
    /// and no page holds the member for long; meanwhile a Watch
    /// from that revision counts the writes for --window. Keys are grouped
    /// the way the Kubernetes API server lays them out
    /// (/registry/<resource>/, /registry/<group>/<resource>/), or by --depth
    /// segments below --prefix. Bytes are what etcd stores per revision
    /// (the revision key and the record); the report says how long the read
    /// took and how the total compares with the member's in-use size (the
    /// difference is history kept until the next compaction, and page
    /// overhead). Ctrl-C or SIGTERM stops the read and reports what was
    /// read, marked incomplete.
    #[command(after_help = USAGE_EXAMPLES, help_template = with_examples(USAGE_EXAMPLES))]
    Usage(UsageArgs),
    /// Save a member's backend to a file (a backup etcdutl can restore), or
    /// describe a saved one.
    #[command(subcommand, after_help = SNAPSHOT_EXAMPLES, help_template = with_examples(SNAPSHOT_EXAMPLES))]
    Snapshot(SnapshotCommand),
    /// The client Service's spec.trafficDistribution, kept in step with the
    /// EtcdCluster annotation the operator reads.
    ///
    /// Writes are server-side applies of that one field under the operator's
    /// own field manager (etcd-operator-traffic-distribution), so the tool and
    /// an operator that supports the annotation never fight over it. Only the
    /// `<cluster>-client` Service is touched, never the headless one, and a
    /// missing Service is an error: the tool never creates one.
    ///
    /// For the value to matter: nodes need `topology.kubernetes.io/zone`,
    /// members should be spread across zones (and, for PreferSameNode,
    /// clients run on nodes that host members), and the service proxy must
    /// honour EndpointSlice hints (kube-proxy does). With no ready endpoint in
    /// the preferred topology, traffic falls back to the whole cluster.
    #[command(subcommand, after_help = TRAFFIC_EXAMPLES, help_template = with_examples(TRAFFIC_EXAMPLES))]
    Traffic(TrafficCommand),
    /// Print a shell completion script.
    Completion {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the version.
    Version,
}

// Examples shown under each command's --help. kubectl's own flags
// (--kubeconfig, --context, -n) go after `etcd`: kubectl refuses flags
// placed before a plugin's name.
const STATUS_EXAMPLES: &str = "Examples:
  kubectl etcd status                    # the only EtcdCluster in the current namespace
  kubectl etcd status my-etcd -n prod    # a named one
  kubectl etcd status -A                 # every EtcdCluster, probed concurrently
  kubectl etcd status -A --all-contexts  # and in every kubeconfig context, a CONTEXT column
  kubectl etcd status --check            # exit 1 when maintenance would be refused
  kubectl-etcd status --endpoints https://10.0.0.1:2379 --cacert ca.pem   # standalone, like etcdctl";
const MEMBERS_EXAMPLES: &str = "Examples:
  kubectl etcd members my-etcd
  kubectl etcd members -o json";
const DEFRAG_EXAMPLES: &str = "Examples:
  kubectl etcd defrag my-etcd --dry-run          # the plan: order, leader handling, each verdict
  kubectl etcd defrag my-etcd                    # asks, then sweeps one member at a time
  kubectl etcd defrag my-etcd --yes -o json      # a CronJob: no prompt, a JSON report
  kubectl etcd defrag my-etcd --all --move-leader always
  kubectl etcd defrag -A --dry-run               # every EtcdCluster's plan, nothing changed
  kubectl etcd defrag -A -l tier=prod --yes --max-concurrent 4   # a labelled fleet, 4 clusters at once
  kubectl etcd defrag --watch -n etcd            # the EtcdDefrag controller for namespace etcd
  kubectl etcd defrag my-etcd --via-operator --yes   # an EtcdDefrag for the operator's controller, followed live";
const DOCTOR_EXAMPLES: &str = "Examples:
  kubectl etcd doctor my-etcd                    # what needs attention, worst first
  kubectl etcd doctor -A --fail-on warning       # every cluster; exit 1 on any warning (CI)
  kubectl etcd doctor my-etcd -o wide            # the checks that passed too
  kubectl-etcd doctor --endpoints https://10.0.0.1:2379 --cacert ca.pem --cert c.pem --key k.pem";
const MEMBER_EXAMPLES: &str = "Examples:
  kubectl-etcd member add m4 --peer-urls https://10.0.0.4:2380 --learner --endpoints https://10.0.0.1:2379 --cacert ca.pem
  kubectl-etcd member promote m4 --endpoints https://10.0.0.1:2379 --cacert ca.pem   # once it has caught up
  kubectl-etcd member remove m2 --dry-run --endpoints https://10.0.0.1:2379 --cacert ca.pem   # the quorum arithmetic, nothing changed
  kubectl-etcd member remove 2f3f2a9b0c1d4e5f --endpoints https://10.0.0.1:2379 --cacert ca.pem   # one added but never started: by its id
  kubectl etcd member remove 8e9e05c52164694d my-etcd --force   # an operator-managed cluster: type the id to confirm";
const ALARM_EXAMPLES: &str = "Examples:
  kubectl etcd alarm list my-etcd
  kubectl etcd alarm disarm my-etcd --dry-run    # which NOSPACE alarms would be cleared
  kubectl etcd alarm disarm my-etcd              # NOSPACE only, on members back under quota";
const MOVE_LEADER_EXAMPLES: &str = "Examples:
  kubectl etcd move-leader my-etcd               # to the most caught-up healthy voter
  kubectl etcd move-leader my-etcd --to my-etcd-k9w4m --dry-run
  kubectl etcd move-leader my-etcd --to 8e9e05c52164694d   # by id, as status and members show it";
const COMPACT_EXAMPLES: &str = "Examples:
  kubectl etcd compact my-etcd --keep 10000 --dry-run   # which revision, and what is compacted now
  kubectl etcd compact my-etcd --keep 10000             # asks, then compacts through the leader
  kubectl etcd compact my-etcd --revision 123456 --physical --yes
  kubectl etcd compact my-etcd --keep-duration 6h --dry-run   # the revision written 6 hours ago
  kubectl-etcd compact --endpoints https://10.0.0.1:2379 --cacert ca.pem --keep 1000   # standalone";
const SNAPSHOT_EXAMPLES: &str = "Examples:
  kubectl etcd snapshot save backup.db my-etcd            # from the most caught-up healthy follower
  kubectl etcd snapshot save backup.db my-etcd --member my-etcd-k9w4m
  kubectl etcd snapshot status backup.db                  # hash, revision, keys, size; no cluster needed
  kubectl etcd snapshot usage backup.db                   # live bytes and history per prefix, offline
  kubectl-etcd snapshot save backup.db --endpoints https://10.0.0.1:2379 --cacert ca.pem   # standalone";
const USAGE_EXAMPLES: &str = "Examples:
  kubectl etcd usage my-etcd                                   # top prefixes by size and by writes (10s of writes)
  kubectl etcd usage my-etcd --prefix /registry/events/        # one resource, by namespace
  kubectl etcd usage my-etcd --window 60s -o json              # a longer sample of the writes
  kubectl etcd usage my-etcd --keys-only --window 0            # key counts only: the least work for the member
  kubectl etcd snapshot usage backup.db                        # the same from a snapshot, with the history it keeps";
const TRAFFIC_EXAMPLES: &str = "Examples:
  kubectl etcd traffic show my-etcd
  kubectl etcd traffic set PreferSameZone my-etcd --dry-run   # would this API server keep it?
  kubectl etcd traffic set PreferSameZone my-etcd
  kubectl etcd traffic clear my-etcd";

/// The help layout of clap's default template, with `examples` appended
/// as the template's own text. clap re-wraps `after_help` to the
/// terminal's width (the `wrap_help` feature, capped at
/// `max_term_width`), which would break a long example command across
/// lines; a template's literal text is printed exactly as written, so each
/// example stays one line that can be copied whatever the width (the
/// terminal may fold it on screen, but copies it whole). `after_help`
/// keeps the same examples for the man pages. The examples must not
/// contain `{`, which a template reads as a tag.
fn with_examples(examples: &str) -> String {
    format!(
        "{{before-help}}{{about-with-newline}}\n{{usage-heading}} {{usage}}\n\n{{all-args}}\n\n{examples}"
    )
}

/// `--move-leader` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum MoveLeaderArg {
    Auto,
    Always,
    Never,
}

#[derive(Debug, Args)]
pub struct DefragArgs {
    #[command(flatten)]
    pub cluster: ClusterArg,

    /// Defragment every member regardless of size (cannot be combined with
    /// the thresholds).
    #[arg(long, help_heading = RULE)]
    pub all: bool,

    /// Defragment a member whose reclaimable space (size − in use) is more
    /// than this. Default: 10% of the member's quota, at most 200Mi (the
    /// operator's fixed default, which a small quota never reaches).
    #[arg(long, value_parser = parse_quantity, allow_hyphen_values = true, value_name = "QUANTITY", help_heading = RULE)]
    pub free_space_above: Option<u64>,

    /// Also defragment a member whose size is more than this share of its
    /// quota, when at least --min-reclaim would come back. E.g. 80%.
    #[arg(long, value_parser = crate::plan::rule::parse_percent, allow_hyphen_values = true, value_name = "PERCENT", help_heading = RULE)]
    pub quota_usage_above: Option<u8>,

    /// With --quota-usage-above: the least reclaimable space worth a
    /// defragmentation. Default: 5% of the member's quota, at most 32Mi.
    #[arg(long, value_parser = parse_quantity, allow_hyphen_values = true, value_name = "QUANTITY", help_heading = RULE)]
    pub min_reclaim: Option<u64>,

    /// Only this member (repeatable). Others are reported as NotSelected.
    #[arg(long = "member", value_name = "NAME", help_heading = RULE)]
    pub members: Vec<String>,

    /// How to treat the leader: `auto` transfers leadership first only when
    /// its predicted in-place defrag time (from its in-use size and the
    /// throughput measured on this sweep's followers) exceeds
    /// --move-leader-above; `always` / `never` force the choice.
    #[arg(long, value_enum, default_value_t = MoveLeaderArg::Auto, help_heading = LEADER)]
    pub move_leader: MoveLeaderArg,

    /// Threshold for --move-leader auto.
    #[arg(long, default_value = "2s", value_parser = parse_duration, value_name = "DURATION", help_heading = LEADER)]
    pub move_leader_above: Duration,

    /// Print the plan (order, leader handling, each member's verdict and
    /// predicted reclaim) and change nothing.
    #[arg(long, help_heading = RUN)]
    pub dry_run: bool,

    /// Do not ask for confirmation (required when not on a terminal).
    #[arg(short = 'y', long, help_heading = RUN)]
    pub yes: bool,

    /// Compact at the current revision first, and wait until every member's
    /// in-use size has settled.
    #[arg(long, help_heading = RUN)]
    pub compact: bool,

    /// How long to wait for one member's Defragment. On timeout the member
    /// keeps defragmenting; the sweep waits for it to answer again before
    /// touching anyone else.
    #[arg(long, default_value = "5m", value_parser = parse_duration, value_name = "DURATION", help_heading = RUN)]
    pub timeout: Duration,

    /// When the health gate refuses, wait up to this long (with backoff) for
    /// it to pass instead of stopping with exit 1.
    #[arg(long, value_parser = parse_duration, value_name = "DURATION", help_heading = RUN)]
    pub wait_healthy: Option<Duration>,

    /// Defragment a member even when its Pod's liveness (or startup) probe
    /// fails while etcd defragments and the kubelet would restart it before
    /// the predicted defrag ends. Without it such a member is held back
    /// (Skipped, reason ProbeBudget). Plugin mode reads the probes; with
    /// --watch it applies to every run.
    #[arg(long, help_heading = RUN)]
    pub allow_probe_restart: bool,

    #[command(flatten)]
    pub gate: GateArgs,

    /// Run as the EtcdDefrag controller: process every EtcdDefrag in the
    /// namespace (-n, or all with -A) the way the etcd-operator's controller
    /// does, until Ctrl-C or SIGTERM. Uses --move-leader, --timeout and
    /// --max-raft-lag; the rule comes from each object. Run exactly one
    /// processor per cluster.
    #[arg(
        long,
        conflicts_with_all = ["all", "free_space_above", "quota_usage_above", "min_reclaim", "members", "dry_run", "compact", "wait_healthy"],
        help_heading = WATCH
    )]
    pub watch: bool,

    /// Hand the sweep to the etcd-operator's own defrag controller (v0.5.5
    /// on): create an EtcdDefrag from the rule flags, then follow it live
    /// and report it like a direct run. Needs only the Kubernetes API (no
    /// etcd credentials). The operator never moves leadership, never
    /// compacts and reads no probes, so those flags are refused.
    #[arg(
        long,
        conflicts_with_all = ["watch", "all_namespaces", "selector", "max_concurrent"],
        help_heading = VIA
    )]
    pub via_operator: bool,

    /// With --via-operator: the run's ttlSecondsAfterFinished, how long the
    /// finished EtcdDefrag is kept before the operator deletes it (0s: at
    /// once). Default 24h.
    #[arg(long, requires = "via_operator", value_parser = parse_duration, value_name = "DURATION", help_heading = VIA)]
    pub ttl_after_finished: Option<Duration>,

    /// With --via-operator: how long to wait for any processor to take up
    /// the new run (write its status) before it is deleted again and the
    /// command fails. Default 60s.
    #[arg(long, requires = "via_operator", value_parser = parse_duration, value_name = "DURATION", help_heading = VIA)]
    pub claim_timeout: Option<Duration>,

    /// Every EtcdCluster in every namespace (a fleet sweep), or with --watch
    /// every namespace's EtcdDefrags.
    #[arg(short = 'A', long, conflicts_with = "cluster", help_heading = FLEET)]
    pub all_namespaces: bool,

    /// A fleet sweep of the EtcdClusters matching this label selector (in
    /// the namespace, or every namespace with -A), e.g. `tier=prod`.
    #[arg(short = 'l', long, value_name = "SELECTOR", conflicts_with_all = ["cluster", "watch"], help_heading = FLEET)]
    pub selector: Option<String>,

    /// In a fleet sweep (-A or -l): how many clusters are swept at once,
    /// 1 to 64 (members of one cluster are always defragmented one at a
    /// time). Default 2.
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=64), value_name = "N", help_heading = FLEET)]
    pub max_concurrent: Option<u16>,

    /// With --watch: start even though another processor (e.g. the
    /// operator's defrag controller) wrote EtcdDefrag status in the last 15
    /// minutes. Two processors both defragment: stop the other one first.
    /// Never overrides an installed processor (a role that lets someone
    /// else write EtcdDefrag status, as the operator's from v0.5.5 does).
    #[arg(long, requires = "watch", help_heading = WATCH)]
    pub force_takeover: bool,

    /// With --watch: how often to ask again whether another EtcdDefrag
    /// processor has been installed (the operator upgraded to a release
    /// with its own controller); the watcher then stops after the member
    /// in flight and exits 2.
    #[arg(long, requires = "watch", default_value = "60s", value_parser = parse_duration, value_name = "DURATION", help_heading = WATCH)]
    pub recheck_processors: Duration,

    /// With --watch: how long the Lease `kubectl-etcd-watch` (which elects
    /// the one active watcher) stays ours without a renewal. A watcher that
    /// cannot renew for this long stops acting before another takes over.
    #[arg(long, requires = "watch", default_value = "15s", value_parser = parse_duration, value_name = "DURATION", help_heading = WATCH)]
    pub lease_duration: Duration,

    /// With --watch: serve Prometheus metrics (/metrics) and probes
    /// (/healthz, /readyz) over HTTP on this IP:PORT, e.g. 127.0.0.1:9090
    /// or 0.0.0.0:9090 in a Pod. Default: no server.
    #[arg(long, requires = "watch", value_parser = parse_metrics_address, value_name = "ADDR", help_heading = WATCH)]
    pub metrics_address: Option<std::net::SocketAddr>,

    /// The flags given on the command line (filled by [`parse`]), so that
    /// a mode can refuse a flag it has no use for even when the flag has
    /// a default.
    #[arg(skip)]
    pub given: Vec<String>,
}

#[derive(Debug, Subcommand)]
pub enum AlarmCommand {
    /// Every raised alarm, with the member's name and id.
    #[command(after_help = ALARM_EXAMPLES, help_template = with_examples(ALARM_EXAMPLES))]
    List(AlarmListArgs),
    /// Disarm NOSPACE on members back under their quota. CORRUPT and
    /// members still over quota need --force (CORRUPT also a typed
    /// confirmation).
    #[command(after_help = ALARM_EXAMPLES, help_template = with_examples(ALARM_EXAMPLES))]
    Disarm(AlarmDisarmArgs),
}

#[derive(Debug, Args)]
pub struct AlarmListArgs {
    #[command(flatten)]
    pub cluster: ClusterArg,
}

#[derive(Debug, Args)]
pub struct AlarmDisarmArgs {
    #[command(flatten)]
    pub cluster: ClusterArg,

    /// Only alarms of this member (repeatable).
    #[arg(long = "member", value_name = "NAME")]
    pub members: Vec<String>,

    /// Also disarm NOSPACE on a member still over its quota, and CORRUPT or
    /// unknown alarms (which additionally need a typed confirmation).
    #[arg(long)]
    pub force: bool,

    /// The typed confirmation for clearing CORRUPT without a terminal: the
    /// name of the member whose CORRUPT alarm is cleared.
    #[arg(long, value_name = "MEMBER")]
    pub confirm_corrupt: Option<String>,

    /// Show what would be disarmed and change nothing.
    #[arg(long)]
    pub dry_run: bool,

    /// Do not ask for confirmation (required when not on a terminal).
    #[arg(short = 'y', long)]
    pub yes: bool,
}

/// `defrag --help` heading for sweeping many clusters.
const FLEET: &str = "Fleet";

/// `compact --help` heading.
const COMPACTION: &str = "Compaction";

#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("which").required(true).args(["revision", "keep", "keep_duration"])))]
pub struct CompactArgs {
    #[command(flatten)]
    pub cluster: ClusterArg,

    /// Keep revision N and later: compact every revision before it.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(i64).range(1..), help_heading = COMPACTION)]
    pub revision: Option<i64>,

    /// Keep the N revisions before the current one: compact at the current
    /// revision minus N (0 keeps only the current revision: each key's
    /// latest value, no history).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(i64).range(0..), help_heading = COMPACTION)]
    pub keep: Option<i64>,

    /// Keep what was written in the last DURATION (e.g. 6h): compact at the
    /// newest revision written before then. etcd records no time per
    /// revision; the Lease objects a Kubernetes API server keeps renewing
    /// date them (found by a binary search over revisions), so this works
    /// for an etcd that backs Kubernetes.
    #[arg(long, value_parser = parse_duration, value_name = "DURATION", help_heading = COMPACTION)]
    pub keep_duration: Option<Duration>,

    /// With --keep-duration: where the Lease objects are (kube-apiserver's
    /// --etcd-prefix followed by /leases/).
    #[arg(long, default_value = crate::etcd::clock::LEASES_PREFIX, value_name = "PREFIX", requires = "keep_duration", help_heading = COMPACTION)]
    pub leases_prefix: String,

    /// Answer only once the leader has compacted its backend (etcdctl's
    /// --physical); the sizes reported after are then final.
    #[arg(long, help_heading = COMPACTION)]
    pub physical: bool,

    /// Show the revision that would be compacted and change nothing.
    #[arg(long, help_heading = RUN)]
    pub dry_run: bool,

    /// Do not ask for confirmation (required when not on a terminal).
    #[arg(short = 'y', long, help_heading = RUN)]
    pub yes: bool,

    #[command(flatten)]
    pub gate: GateArgs,
}

#[derive(Debug, Subcommand)]
pub enum SnapshotCommand {
    /// Stream one member's backend into FILE, check it and print its
    /// SHA-256.
    ///
    /// The member is the most caught-up healthy follower unless --member
    /// names one (the leader only when no follower answers). The transfer
    /// goes to a temporary file beside FILE, readable by its owner only; the
    /// checksum etcd appends is verified, the file is read back as a bolt
    /// database, synced and only then renamed to FILE, with its SHA-256 in
    /// FILE.sha256 (sha256sum's format). An interrupted or failed transfer
    /// (Ctrl-C, SIGTERM, a full disk, a member that stops answering) leaves no file
    /// behind. No health gate: a backup is most needed when the cluster is
    /// unwell, and a Snapshot needs no quorum.
    #[command(after_help = SNAPSHOT_EXAMPLES, help_template = with_examples(SNAPSHOT_EXAMPLES))]
    Save(SnapshotSaveArgs),
    /// The hash, revision, key count and size of a saved snapshot (the
    /// figures `etcdutl snapshot status` prints), read here without
    /// etcdutl, and whether the checksum etcd appended still matches.
    #[command(after_help = SNAPSHOT_EXAMPLES, help_template = with_examples(SNAPSHOT_EXAMPLES))]
    Status(SnapshotStatusArgs),
    /// Which key prefixes hold a saved snapshot's space: live keys and
    /// bytes per prefix, and the history each still keeps (older revisions
    /// and deletions: what a compaction at the snapshot's revision would
    /// drop), with the free pages a defrag would return. Read offline, so
    /// the heavy analysis never touches a running member.
    #[command(after_help = USAGE_EXAMPLES, help_template = with_examples(USAGE_EXAMPLES))]
    Usage(SnapshotUsageArgs),
}

/// How `usage` and `snapshot usage` group keys.
#[derive(Debug, Clone, Args)]
pub struct GroupingArgs {
    /// Only keys starting with PREFIX, grouped one segment below it.
    #[arg(long, value_name = "PREFIX", default_value = "")]
    pub prefix: String,

    /// Group by the first N `/`-separated segments below --prefix (default:
    /// the Kubernetes layout for the whole keyspace, 1 below a --prefix).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=64))]
    pub depth: Option<u16>,

    /// How many prefixes each ranking shows (-o json|yaml lists them all).
    #[arg(long, value_name = "N", default_value_t = 10, value_parser = clap::value_parser!(u16).range(1..))]
    pub top: u16,
}

#[derive(Debug, Args)]
pub struct UsageArgs {
    #[command(flatten)]
    pub cluster: ClusterArg,

    #[command(flatten)]
    pub grouping: GroupingArgs,

    /// How long to count writes, with a Watch from the revision read (0:
    /// no sample). The read and the sample run side by side.
    #[arg(long, value_parser = parse_duration, value_name = "DURATION", default_value = "10s")]
    pub window: Duration,

    /// The member to read from (default: the most caught-up healthy
    /// follower).
    #[arg(long, value_name = "MEMBER")]
    pub member: Option<String>,

    /// Count keys without reading values (no bytes): far less to send, and
    /// from etcd 3.7 on served from the member's index alone.
    #[arg(long)]
    pub keys_only: bool,
}

#[derive(Debug, Args)]
pub struct SnapshotUsageArgs {
    /// A file written by `snapshot save` or `etcdctl snapshot save`, or a
    /// member's `member/snap/db`.
    #[arg(value_name = "FILE")]
    pub file: std::path::PathBuf,

    #[command(flatten)]
    pub grouping: GroupingArgs,
}

#[derive(Debug, Args)]
pub struct SnapshotSaveArgs {
    /// Where to write the snapshot.
    #[arg(value_name = "FILE")]
    pub file: std::path::PathBuf,

    #[command(flatten)]
    pub cluster: ClusterArg,

    /// The member to stream from (default: the most caught-up healthy
    /// follower).
    #[arg(long, value_name = "MEMBER")]
    pub member: Option<String>,

    /// Replace FILE (and FILE.sha256) when it exists.
    #[arg(long)]
    pub force: bool,
}

#[derive(Debug, Args)]
pub struct SnapshotStatusArgs {
    /// A file written by `snapshot save` or `etcdctl snapshot save`, or a
    /// member's `member/snap/db`.
    #[arg(value_name = "FILE")]
    pub file: std::path::PathBuf,
}

#[derive(Debug, Subcommand)]
pub enum MemberCommand {
    /// The member list (the same as `members`).
    #[command(after_help = MEMBERS_EXAMPLES, help_template = with_examples(MEMBERS_EXAMPLES))]
    List(MembersArgs),
    /// Add a member (a voter, or a learner with --learner) and print the
    /// settings to start it with.
    #[command(after_help = MEMBER_EXAMPLES, help_template = with_examples(MEMBER_EXAMPLES))]
    Add(MemberAddArgs),
    /// Make a learner a voter, once it has caught up with the leader.
    #[command(after_help = MEMBER_EXAMPLES, help_template = with_examples(MEMBER_EXAMPLES))]
    Promote(MemberChangeArgs),
    /// Remove a member (by name, or by hex id for one that never started).
    #[command(after_help = MEMBER_EXAMPLES, help_template = with_examples(MEMBER_EXAMPLES))]
    Remove(MemberChangeArgs),
}

/// What every membership change takes besides the member.
#[derive(Debug, Clone, Args)]
pub struct MembershipArgs {
    /// Act even when quorum would be at risk, or on an operator-managed
    /// EtcdCluster; asks for the member's name (or id) to be typed.
    #[arg(long)]
    pub force: bool,

    /// The typed confirmation for --force without a terminal: the member's
    /// name or id, as given.
    #[arg(long, value_name = "MEMBER", requires = "force")]
    pub confirm: Option<String>,

    /// Show the change and the quorum arithmetic, and change nothing.
    #[arg(long)]
    pub dry_run: bool,

    /// Do not ask for confirmation (required when not on a terminal).
    #[arg(short = 'y', long)]
    pub yes: bool,
}

#[derive(Debug, Args)]
pub struct MemberAddArgs {
    /// The new member's name (its --name when it starts).
    #[arg(value_name = "NAME")]
    pub name: String,

    #[command(flatten)]
    pub cluster: ClusterArg,

    /// The new member's peer URLs, comma-separated.
    #[arg(long, value_name = "URLS", value_delimiter = ',', required = true)]
    pub peer_urls: Vec<String>,

    /// Add it as a learner: it receives the log but does not vote until
    /// promoted, so quorum is never at risk while it catches up.
    #[arg(long)]
    pub learner: bool,

    #[command(flatten)]
    pub change: MembershipArgs,
}

#[derive(Debug, Args)]
pub struct MemberChangeArgs {
    /// The member: its name, its id in hex as `members` shows it, or in
    /// decimal. A member added but never started has no name yet: use its
    /// id.
    #[arg(value_name = "MEMBER")]
    pub member: String,

    #[command(flatten)]
    pub cluster: ClusterArg,

    #[command(flatten)]
    pub change: MembershipArgs,
}

/// `leave`: the member is the one of `-p POD`.
#[derive(Debug, Args)]
pub struct LeaveArgs {
    #[command(flatten)]
    pub change: MembershipArgs,
}

#[derive(Debug, Args)]
pub struct MoveLeaderArgs {
    #[command(flatten)]
    pub cluster: ClusterArg,

    /// The member to hand leadership to (a voter, never a learner): its
    /// name, its hex id as `status` shows it, or its decimal id.
    #[arg(long, value_name = "MEMBER")]
    pub to: Option<String>,

    /// Show the transfer and change nothing.
    #[arg(long)]
    pub dry_run: bool,

    /// Do not ask for confirmation (required when not on a terminal).
    #[arg(short = 'y', long)]
    pub yes: bool,

    #[command(flatten)]
    pub gate: GateArgs,
}

#[derive(Debug, Subcommand)]
pub enum TrafficCommand {
    /// The Service's value, the managers that own it, the EtcdCluster
    /// annotation, and which values this API server release keeps.
    #[command(after_help = TRAFFIC_EXAMPLES, help_template = with_examples(TRAFFIC_EXAMPLES))]
    Show(TrafficShowArgs),
    /// Annotate the EtcdCluster and apply VALUE to the client Service, then
    /// read it back. The server is asked first with a dry run: a value it
    /// rejects (422) or accepts and drops (servers before 1.31) is an error
    /// (exit 1) that writes nothing. If the real apply fails, the annotation
    /// is put back and nothing is left owned by the field manager.
    #[command(after_help = TRAFFIC_EXAMPLES, help_template = with_examples(TRAFFIC_EXAMPLES))]
    Set(TrafficSetArgs),
    /// Remove the annotation and release the field manager's ownership. The
    /// value stays if another manager also owns it; a value set by hand is
    /// left alone.
    #[command(after_help = TRAFFIC_EXAMPLES, help_template = with_examples(TRAFFIC_EXAMPLES))]
    Clear(TrafficClearArgs),
}

/// The values `traffic set` accepts (exact spelling).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TrafficValueArg {
    /// Prefer endpoints close to the client (Kubernetes 1.31+); from 1.34 an
    /// older name for PreferSameZone.
    #[value(name = "PreferClose")]
    PreferClose,
    /// Prefer endpoints in the client's zone (Kubernetes 1.34+).
    #[value(name = "PreferSameZone")]
    PreferSameZone,
    /// Prefer endpoints on the client's node (Kubernetes 1.34+).
    #[value(name = "PreferSameNode")]
    PreferSameNode,
}

#[derive(Debug, Args)]
pub struct TrafficShowArgs {
    #[command(flatten)]
    pub cluster: ClusterArg,
}

#[derive(Debug, Args)]
pub struct TrafficSetArgs {
    /// The value for spec.trafficDistribution. PreferClose and
    /// PreferSameZone are one setting under two names: the name the API
    /// server uses is written (PreferSameZone from Kubernetes 1.35,
    /// PreferClose before 1.34), to the annotation and the Service alike.
    #[arg(value_enum, value_name = "VALUE", hide_possible_values = false)]
    pub value: TrafficValueArg,

    /// Write VALUE as given, even where the API server names it otherwise
    /// (deprecated, or not kept with its default feature gates).
    #[arg(long)]
    pub exact: bool,

    /// Take spec.trafficDistribution from this server-side-apply field
    /// manager (repeat for several). Without it, a value another manager
    /// applied (Argo CD, Flux, a Helm apply) is left alone and nothing
    /// changes: taking it makes that manager's next apply fail with a
    /// conflict. Hand edits (kubectl edit, replace) are taken back without
    /// it.
    #[arg(long, value_name = "MANAGER")]
    pub take_from: Vec<String>,

    #[command(flatten)]
    pub cluster: ClusterArg,

    #[command(flatten)]
    pub write: TrafficWriteArgs,
}

#[derive(Debug, Args)]
pub struct TrafficClearArgs {
    #[command(flatten)]
    pub cluster: ClusterArg,

    #[command(flatten)]
    pub write: TrafficWriteArgs,
}

/// How `traffic set` and `traffic clear` write.
#[derive(Debug, Clone, Args)]
pub struct TrafficWriteArgs {
    /// Send every write as a server-side dry run (the server validates it and
    /// stores nothing) and print what would change.
    #[arg(long)]
    pub dry_run: bool,

    /// Do not ask for confirmation (required when not on a terminal).
    #[arg(short = 'y', long)]
    pub yes: bool,
}

/// Settings of the health gate shared by every command that evaluates it.
#[derive(Debug, Clone, Args)]
pub struct GateArgs {
    /// Accept a cluster with fewer than three voting members, where taking one
    /// member out for maintenance loses quorum.
    #[arg(long, help_heading = GATE)]
    pub allow_quorum_loss: bool,

    /// Largest tolerated raft lag, in entries: a member's committed index
    /// minus its applied index, and its distance behind the leader's index.
    #[arg(long, default_value_t = crate::plan::gate::DEFAULT_MAX_RAFT_LAG, value_parser = parse_entries, value_name = "ENTRIES", help_heading = GATE)]
    pub max_raft_lag: u64,
}

/// Which EtcdCluster (plugin mode).
#[derive(Debug, Clone, Args)]
pub struct ClusterArg {
    /// The EtcdCluster (plugin mode). May be omitted when the namespace holds
    /// exactly one.
    #[arg(value_name = "CLUSTER")]
    pub cluster: Option<String>,
}

#[derive(Debug, Args)]
pub struct MembersArgs {
    #[command(flatten)]
    pub cluster: ClusterArg,
}

#[derive(Debug, Args)]
pub struct StatusArgs {
    #[command(flatten)]
    pub cluster: ClusterArg,

    /// Every EtcdCluster in every namespace, probed concurrently.
    #[arg(short = 'A', long, conflicts_with = "cluster")]
    pub all_namespaces: bool,

    /// Evaluate the health gate and exit 1, listing every reason, when it
    /// would refuse maintenance. Usable as a probe.
    #[arg(long)]
    pub check: bool,

    #[command(flatten)]
    pub gate: GateArgs,
}

fn parse_duration(text: &str) -> Result<Duration, String> {
    crate::quantity::parse_duration(text).map_err(|e| e.to_string())
}

/// A connection or command timeout: a duration greater than zero (zero
/// would fail every dial before it starts).
fn parse_timeout(text: &str) -> Result<Duration, String> {
    match crate::quantity::parse_duration(text) {
        Ok(d) if d.is_zero() => Err("must be greater than 0 (e.g. 2s)".into()),
        Ok(d) => Ok(d),
        Err(e) => Err(e.to_string()),
    }
}

fn parse_entries(text: &str) -> Result<u64, String> {
    text.trim()
        .parse()
        .map_err(|_| "expected a whole number of raft entries, e.g. 5000".to_string())
}

fn parse_secret(text: &str) -> Result<crate::secret::Secret, String> {
    Ok(crate::secret::Secret::new(text))
}

/// `--metrics-address`: an `IP:PORT` (`[::1]:9090` for IPv6).
/// kubectl's `--request-timeout`: whole seconds or a duration; 0 is no
/// limit (`Duration::ZERO`).
fn parse_request_timeout(text: &str) -> Result<Duration, String> {
    if let Ok(seconds) = text.parse::<u64>() {
        return Ok(Duration::from_secs(seconds));
    }
    crate::quantity::parse_duration(text)
        .map_err(|e| format!("{e}; or whole seconds (30), as kubectl takes it, 0 for no limit"))
}

fn parse_metrics_address(text: &str) -> Result<std::net::SocketAddr, String> {
    text.parse().map_err(|_| {
        "expected IP:PORT, e.g. 127.0.0.1:9090 (0.0.0.0:9090 for every interface)".to_string()
    })
}

fn parse_quantity(text: &str) -> Result<u64, String> {
    crate::quantity::parse_bytes(text).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn request_timeouts_read_as_kubectl_reads_them() {
        assert_eq!(parse_request_timeout("30"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_request_timeout("0"), Ok(Duration::ZERO));
        assert_eq!(parse_request_timeout("1m"), Ok(Duration::from_secs(60)));
        assert_eq!(
            parse_request_timeout("500ms"),
            Ok(Duration::from_millis(500))
        );
        assert!(parse_request_timeout("soon").is_err());
        assert!(parse_request_timeout("-1s").is_err());
    }

    #[test]
    fn metrics_addresses_are_ip_and_port() {
        assert_eq!(
            parse_metrics_address("127.0.0.1:9090"),
            Ok("127.0.0.1:9090".parse().unwrap())
        );
        assert!(parse_metrics_address("[::1]:9090").is_ok());
        for bad in ["nonsense", "9090", ":9090", "localhost:9090", "127.0.0.1"] {
            assert!(parse_metrics_address(bad).is_err(), "{bad}");
        }
    }
}
