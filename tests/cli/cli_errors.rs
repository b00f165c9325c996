//! Usage errors that name their real source (issue 20, items 6 and 7):
//! the argument that chose plugin mode and the standalone spelling, the
//! `ETCDCTL_*` variable a bad value came from, certificate files that hold
//! the wrong thing, etcdctl habits, and the `--help` to read. No cluster is
//! needed: each is refused before anything is dialed.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

/// Runs the tool with `env` on top of an environment without any
/// Kubernetes or etcdctl settings.
fn run(args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_kubectl-etcd"));
    for var in [
        "KUBECONFIG",
        "KUBERNETES_SERVICE_HOST",
        "ETCDCTL_ENDPOINTS",
        "ETCDCTL_CACERT",
        "ETCDCTL_CERT",
        "ETCDCTL_KEY",
        "ETCDCTL_USER",
        "ETCDCTL_PASSWORD",
        "ETCDCTL_DIAL_TIMEOUT",
        "ETCDCTL_COMMAND_TIMEOUT",
        "ETCDCTL_WRITE_OUT",
    ] {
        command.env_remove(var);
    }
    let out = command
        .args(args)
        .envs(env.iter().copied())
        .env("HOME", std::env::temp_dir().join("kubectl-etcd-no-home"))
        .env("NO_COLOR", "1")
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run kubectl-etcd");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Exit 2, nothing on stdout, one line on stderr holding every `want`.
fn refused(args: &[&str], env: &[(&str, &str)], want: &[&str]) {
    let (code, stdout, stderr) = run(args, env);
    assert_eq!(code, 2, "{args:?} {env:?}: {stderr}");
    assert!(stdout.is_empty(), "{args:?}: stdout {stdout:?}");
    assert_eq!(stderr.lines().count(), 1, "{args:?} {env:?}: {stderr}");
    for w in want {
        assert!(
            stderr.contains(w),
            "{args:?} {env:?}: {stderr:?} lacks {w:?}"
        );
    }
}

const ENDPOINTS: (&str, &str) = ("ETCDCTL_ENDPOINTS", "http://127.0.0.1:1");

/// With `ETCDCTL_ENDPOINTS` set, an argument that selects plugin mode is
/// named, with the command that uses the endpoints instead (etcdctl's
/// `move-leader ID` is `move-leader --to ID` here).
#[test]
fn plugin_mode_names_the_argument_that_chose_it() {
    refused(
        &["move-leader", "d3f98000ede0eca8", "--dry-run"],
        &[ENDPOINTS],
        &[
            "\"d3f98000ede0eca8\" was read as the CLUSTER argument (an EtcdCluster's name), which selects plugin mode, so ETCDCTL_ENDPOINTS was not used",
            "no Kubernetes configuration",
            "run: kubectl-etcd move-leader --to d3f98000ede0eca8 --dry-run",
        ],
    );
    refused(
        &["status", "-n", "default"],
        &[ENDPOINTS],
        &[
            "-n default selects plugin mode",
            "so ETCDCTL_ENDPOINTS was not used",
            "no Kubernetes configuration",
            "To use ETCDCTL_ENDPOINTS, run: kubectl-etcd status",
        ],
    );
    refused(
        &["status", "--endpoints="],
        &[ENDPOINTS],
        &[
            "--endpoints is empty",
            "no Kubernetes configuration",
            "leave it out to use ETCDCTL_ENDPOINTS: kubectl-etcd status",
        ],
    );
    // Plugin mode as the default (no endpoints anywhere) is not explained.
    let (code, _, stderr) = run(&["status"], &[]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("no Kubernetes configuration") && !stderr.contains("selects plugin mode"),
        "{stderr}"
    );

    // The printed command works as printed: it reaches the endpoints
    // (nothing listens there, so it fails to connect, not to find a
    // kubeconfig).
    let (code, _, stderr) = run(
        &["move-leader", "--to", "d3f98000ede0eca8", "--dry-run"],
        &[ENDPOINTS],
    );
    assert_eq!(code, 2);
    assert!(stderr.contains("127.0.0.1:1"), "{stderr}");
    assert!(!stderr.contains("Kubernetes"), "{stderr}");
}

/// A bad value from an `ETCDCTL_*` variable is named by the variable; a
/// flag's by the flag.
#[test]
fn a_bad_value_names_the_variable_it_came_from() {
    refused(
        &["status", "--endpoints", "http://127.0.0.1:1"],
        &[("ETCDCTL_DIAL_TIMEOUT", "abc")],
        &[
            "in ETCDCTL_DIAL_TIMEOUT (the variable for --dial-timeout)",
            "see 'kubectl-etcd status --help'",
        ],
    );
    refused(
        &["status"],
        &[ENDPOINTS, ("ETCDCTL_CACERT", "/missing/ca.pem")],
        &["cannot read ETCDCTL_CACERT file /missing/ca.pem"],
    );
    refused(
        &["status"],
        &[("ETCDCTL_ENDPOINTS", "127.0.0.1")],
        &["ETCDCTL_ENDPOINTS: invalid endpoint \"127.0.0.1\""],
    );
    refused(
        &[
            "status",
            "--endpoints",
            "http://127.0.0.1:1",
            "--cacert",
            "/missing/ca.pem",
        ],
        &[],
        &["cannot read --cacert file /missing/ca.pem"],
    );
}

/// Flags whose values are wrong name the flag; zero timeouts are refused.
#[test]
fn bad_flag_values_name_the_flag() {
    refused(
        &[
            "status",
            "--endpoints",
            "http://127.0.0.1:1",
            "--max-raft-lag",
            "abc",
        ],
        &[],
        &["--max-raft-lag", "abc", "a whole number of raft entries"],
    );
    for flag in ["--dial-timeout", "--command-timeout"] {
        refused(
            &["status", "--endpoints", "http://127.0.0.1:1", flag, "0s"],
            &[],
            &[flag, "must be greater than 0"],
        );
    }
    refused(
        &["status"],
        &[ENDPOINTS, ("ETCDCTL_DIAL_TIMEOUT", "0s")],
        &["ETCDCTL_DIAL_TIMEOUT", "must be greater than 0"],
    );
}

/// `doctor --serve` prints no report and exits 0 when stopped: an exit
/// threshold or an output format given with it would be ignored, so they
/// are refused, naming both flags.
#[test]
fn doctor_serve_refuses_the_flags_it_would_ignore() {
    for (flag, value, named) in [
        ("--fail-on", "warning", "--fail-on"),
        ("-o", "json", "--output"),
    ] {
        refused(
            &[
                "doctor",
                "--endpoints",
                "http://127.0.0.1:1",
                "--serve",
                "127.0.0.1:0",
                flag,
                value,
            ],
            &[],
            &["'--serve <ADDR>' cannot be used with", named],
        );
    }
}

/// `doctor --serve-as` names the one cluster `--endpoints` reach (a
/// control plane's etcd examined on its node): without them, with -A or a
/// CLUSTER, without --serve, or not NAMESPACE/NAME, it is refused, naming
/// the flag, before anything listens or dials.
#[test]
fn doctor_serve_as_is_for_the_endpoints_given() {
    let serve = ["doctor", "--serve", "127.0.0.1:0"];
    let with = |more: &[&'static str]| [&serve[..], more].concat();
    refused(
        &with(&["--serve-as", "kube-system/etcd"]),
        &[],
        &[
            "--serve-as kube-system/etcd: names the cluster --endpoints reach",
            "drop --serve-as",
        ],
    );
    refused(
        &with(&["--serve-as", "etcd", "--endpoints", "http://127.0.0.1:1"]),
        &[],
        &[
            "--serve-as",
            "expected NAMESPACE/NAME, e.g. kube-system/etcd",
        ],
    );
    refused(
        &with(&["-A", "--serve-as", "kube-system/etcd"]),
        &[],
        &["'--all-namespaces' cannot be used with '--serve-as"],
    );
    refused(
        &["doctor", "--serve-as", "kube-system/etcd"],
        &[ENDPOINTS],
        &["required arguments were not provided: --serve"],
    );
}

/// etcdctl's `ETCDCTL_WRITE_OUT` is honoured as `-o` (its `simple` is
/// the table), a flag wins over it, and a value with no counterpart is
/// refused naming the variable (issue 46).
#[test]
fn etcdctl_write_out_is_read_as_the_output_format() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/snapshot-v3.6.db");
    let file = file.to_str().unwrap();
    let status = |env: &[(&str, &str)], more: &[&str]| {
        let (code, stdout, stderr) = run(&[&["snapshot", "status", file], more].concat(), env);
        assert_eq!(code, 0, "{env:?} {more:?}: {stderr}");
        stdout
    };
    let json = status(&[("ETCDCTL_WRITE_OUT", "json")], &[]);
    let doc: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    assert!(doc["hash"].is_number() || doc["hash"].is_string(), "{doc}");
    let table = status(&[], &[]);
    assert!(serde_json::from_str::<serde_json::Value>(&table).is_err());
    assert_eq!(status(&[("ETCDCTL_WRITE_OUT", "simple")], &[]), table);
    assert_eq!(
        status(&[("ETCDCTL_WRITE_OUT", "json")], &["-o", "table"]),
        table
    );
    refused(
        &["snapshot", "status", file],
        &[("ETCDCTL_WRITE_OUT", "fields")],
        &["invalid value 'fields' in ETCDCTL_WRITE_OUT (the variable for --output)"],
    );
    // doctor --serve prints nothing: -o is refused with it, the variable
    // (set for etcdctl) is not a reason to refuse.
    refused(
        &[
            "doctor",
            "--endpoints",
            "http://127.0.0.1:1",
            "--serve",
            "127.0.0.1:0",
            "-o",
            "json",
        ],
        &[("ETCDCTL_WRITE_OUT", "json")],
        &["'--serve <ADDR>' cannot be used with '--output <OUTPUT>'"],
    );
}

/// clap's tip for a negative value ("use '-- -5'") does not work here:
/// the flag is named instead, and a subcommand spelled as elsewhere
/// (`traffic unset`) points to the one this tool has.
#[test]
fn negative_values_and_other_spellings_name_what_to_type() {
    refused(
        &["compact", "--keep", "-5"],
        &[ENDPOINTS],
        &["--keep -5: negative values are not accepted"],
    );
    refused(
        &["--command-timeout", "-1s", "status"],
        &[ENDPOINTS],
        &["--command-timeout -1s: negative values are not accepted"],
    );
    let (_, _, stderr) = run(&["status", "--bogus"], &[ENDPOINTS]);
    assert!(!stderr.contains("'-- "), "{stderr}");
    refused(
        &["traffic", "unset", "my-etcd"],
        &[],
        &["traffic clear is the command: kubectl-etcd traffic clear my-etcd"],
    );
}

/// A destination whose folder takes no new file is bad input, said of
/// FILE and its folder before anything is dialed (issue 46: exit 1, naming
/// the hidden partial file).
#[test]
fn snapshot_save_into_a_folder_that_takes_no_file() {
    refused(
        &["snapshot", "save", "/proc/backup.db"],
        &[ENDPOINTS],
        &["/proc/backup.db: cannot write a file in the folder /proc: no such file or directory"],
    );
}

/// kubectl's `--request-timeout` bounds each request to the API server:
/// one that accepts and never answers (a listener that holds every
/// connection) ends the command with exit 2 saying so, where nothing
/// ended it before (issue 46).
#[test]
fn request_timeout_bounds_an_api_server_that_never_answers() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for conn in listener.incoming() {
            held.push(conn);
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let kc = dir.path().join("silent.yaml");
    std::fs::write(
        &kc,
        format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: s\n  cluster:\n    server: http://127.0.0.1:{port}\ncontexts:\n- name: s\n  context:\n    cluster: s\n    user: u\n    namespace: default\ncurrent-context: s\nusers:\n- name: u\n  user:\n    token: t\n"
        ),
    )
    .unwrap();
    let kubeconfig = format!("--kubeconfig={}", kc.display());
    let started = std::time::Instant::now();
    refused(
        &[&kubeconfig, "--request-timeout", "1s", "status", "x"],
        &[],
        &[
            &format!("cannot reach the Kubernetes API server at http://127.0.0.1:{port}/"),
            "request timed out (no answer within --request-timeout)",
        ],
    );
    // Not a measure of speed: without the flag nothing ends it (an
    // http:// server has no handshake for the 30 s connect limit to bound).
    assert!(started.elapsed() < std::time::Duration::from_secs(60));
    refused(
        &[&kubeconfig, "--request-timeout", "soon", "status", "x"],
        &[],
        &[
            "--request-timeout",
            "whole seconds (30), as kubectl takes it",
        ],
    );
}

fn write(dir: &Path, name: &str, label: &str) -> String {
    let path = dir.join(name);
    std::fs::write(
        &path,
        format!("-----BEGIN {label}-----\nMIIBAAAA\n-----END {label}-----\n"),
    )
    .unwrap();
    path.display().to_string()
}

/// A CA file that holds no certificate, and a certificate and key given
/// the wrong way round, are said in words.
#[test]
fn certificate_files_that_hold_the_wrong_thing() {
    let dir = tempfile::tempdir().unwrap();
    let ca = write(dir.path(), "ca.pem", "CERTIFICATE");
    let cert = write(dir.path(), "client.pem", "CERTIFICATE");
    let key = write(dir.path(), "client-key.pem", "PRIVATE KEY");
    let endpoint = "--endpoints=https://127.0.0.1:1";
    refused(
        &[endpoint, "--cacert", &key, "status"],
        &[],
        &[&format!(
            "--cacert {key} holds no certificate (it holds a private key)"
        )],
    );
    refused(
        &[endpoint, "--cacert", &ca, "--cert", &key, "--key", &cert, "status"],
        &[],
        &[&format!(
            "--cert {key} holds a private key and --key {cert} holds a certificate: the two are swapped; pass --cert {cert} --key {key}"
        )],
    );
    refused(
        &["status"],
        &[
            ("ETCDCTL_ENDPOINTS", "https://127.0.0.1:1"),
            ("ETCDCTL_CACERT", &ca),
            ("ETCDCTL_CERT", &key),
            ("ETCDCTL_KEY", &cert),
        ],
        &["ETCDCTL_CERT", "ETCDCTL_KEY", "the two are swapped"],
    );
}

/// A client certificate and a key from two different pairs are named,
/// both files, before anything is dialed (the endpoint has no server: a
/// dial would say so instead), whether flags or etcdctl's variables gave
/// them; a real pair is accepted (that run gets as far as the dial).
#[test]
fn a_certificate_and_a_key_of_two_pairs_are_named_before_dialing() {
    let dir = tempfile::tempdir().unwrap();
    let pair = |name: &str| {
        let at = dir.path().join(name);
        std::fs::create_dir(&at).unwrap();
        kubectl_etcd_testbed::certs::generate(&at, &["127.0.0.1"]).unwrap()
    };
    let (one, two) = (pair("one"), pair("two"));
    let (ca, cert, key) = (
        one.ca.display().to_string(),
        one.client_cert.display().to_string(),
        two.client_key.display().to_string(),
    );
    let endpoint = "--endpoints=https://127.0.0.1:1";
    refused(
        &[endpoint, "--cacert", &ca, "--cert", &cert, "--key", &key, "status"],
        &[],
        &[&format!(
            "--cert {cert} and --key {key} are not a pair: that key is not the private key of that certificate"
        )],
    );
    refused(
        &["status"],
        &[
            ("ETCDCTL_ENDPOINTS", "https://127.0.0.1:1"),
            ("ETCDCTL_CACERT", &ca),
            ("ETCDCTL_CERT", &cert),
            ("ETCDCTL_KEY", &key),
        ],
        &[&format!(
            "ETCDCTL_CERT {cert} and ETCDCTL_KEY {key} are not a pair"
        )],
    );
    let own_key = one.client_key.display().to_string();
    let (code, _, stderr) = run(
        &[
            endpoint, "--cacert", &ca, "--cert", &cert, "--key", &own_key, "status",
        ],
        &[],
    );
    assert_eq!(code, 2, "{stderr}");
    assert!(!stderr.contains("not a pair"), "{stderr}");
    assert!(stderr.contains("connection refused"), "{stderr}");
}

/// etcdctl habits get a pointer, and every usage error points at the help
/// of the command that was run, spelled so that it works whether the tool
/// was run by kubectl or on its own.
#[test]
fn etcdctl_habits_get_a_pointer() {
    refused(
        &["status", "-w", "json"],
        &[ENDPOINTS],
        &["-w/--write-out is etcdctl's output flag: use -o json"],
    );
    refused(
        &["status", "--write-out=table"],
        &[ENDPOINTS],
        &["use -o table"],
    );
    refused(
        &["defrag", "--cluster", "--yes"],
        &[ENDPOINTS],
        &[
            "--cluster is not needed: every member is always covered",
            "add --all",
            "see 'kubectl-etcd defrag --help'",
        ],
    );
    refused(
        &["member", "remove", "--frobnicate", "m1"],
        &[],
        &["see 'kubectl-etcd member remove --help'"],
    );
}
