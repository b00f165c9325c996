//! The command line itself: definition consistency, help, and usage errors
//! that must be reported before anything is contacted.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use clap::CommandFactory;
use kubectl_etcd::cli::Cli;

fn run(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_kubectl-etcd"))
        .args(args)
        .env_remove("ETCDCTL_ENDPOINTS")
        .env_remove("KUBECONFIG")
        .env_remove("KUBERNETES_SERVICE_HOST")
        .env("HOME", std::env::temp_dir().join("kubectl-etcd-no-home"))
        .output()
        .expect("run kubectl-etcd")
}

#[test]
fn clap_definition_is_consistent() {
    Cli::command().debug_assert();
}

#[test]
fn help_uses_the_kubectl_prefix_and_lists_commands() {
    let out = run(&["--help"]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Usage: kubectl etcd"), "{text}");
    for command in [
        "status",
        "members",
        "defrag",
        "alarm",
        "move-leader",
        "traffic",
        "usage",
        "completion",
        "version",
    ] {
        assert!(
            text.contains(command),
            "{command} missing from help:\n{text}"
        );
    }
    let out = run(&["status", "--help"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("--check") && text.contains("ETCDCTL_ENDPOINTS"),
        "{text}"
    );
}

#[test]
fn usage_errors_exit_2_with_one_line() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["status", "--frobnicate"],
            "unexpected argument '--frobnicate'",
        ),
        (
            &["status"],
            "no Kubernetes configuration: pass --kubeconfig or set KUBECONFIG (or use --endpoints",
        ),
        (&["members", "-A"], "unexpected argument '-A'"),
        (&["status", "-A", "etcd"], "cannot be used with"),
        (&["status", "--connect", "tunnel"], "tunnel"),
        (&["status", "--endpoints", "127.0.0.1"], "missing port"),
        (
            &["status", "--endpoints", "ftp://127.0.0.1:2379"],
            "unsupported scheme",
        ),
        (
            &[
                "status",
                "--endpoints",
                "127.0.0.1:2379",
                "--dial-timeout",
                "5",
            ],
            "--dial-timeout",
        ),
        (
            &[
                "status",
                "--endpoints",
                "127.0.0.1:2379",
                "--quota-backend-bytes",
                "-1Gi",
            ],
            "--quota-backend-bytes",
        ),
        (
            &["status", "--endpoints", "127.0.0.1:2379", "-o", "xml"],
            "xml",
        ),
        (
            &["status", "--endpoints", "127.0.0.1:2379", "--cert", "c.pem"],
            "--cert needs --key",
        ),
    ];
    for (args, want) in cases {
        let out = run(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.contains(want), "{args:?}: {stderr:?} lacks {want:?}");
    }
}

#[test]
fn version_and_completion_work_without_a_cluster() {
    let out = run(&["version"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("kubectl-etcd "));
    let out = run(&["completion", "bash"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("complete"));
}

/// Log lines on a stderr that is not a terminal (a pipe, a Job's log) carry
/// no colour codes, even without NO_COLOR.
#[test]
fn no_colour_when_stderr_is_not_a_terminal() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_kubectl-etcd"))
        .args(["status", "--endpoints", "http://127.0.0.1:1", "-vvv"])
        .env_remove("NO_COLOR")
        .env_remove("RUST_LOG")
        .env_remove("KUBECONFIG")
        .output()
        .expect("run kubectl-etcd");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(" TRACE "),
        "log lines expected with -vvv: {stderr}"
    );
    assert!(
        !stderr.contains('\u{1b}'),
        "colour codes in a pipe: {stderr:?}"
    );
}

/// `--log-format json`: the final error is one JSON object on stderr (level
/// ERROR, the message naming the flag), still exit 2; text is unchanged.
#[test]
fn json_log_format_makes_the_error_one_object() {
    let out = run(&[
        "--log-format",
        "json",
        "--kubeconfig",
        "/nonexistent/kubeconfig",
        "defrag",
        "--watch",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{stderr}");
    let line: serde_json::Value = serde_json::from_str(lines[0]).unwrap();
    assert_eq!(line["level"], "ERROR", "{line}");
    assert!(line["timestamp"].is_string(), "{line}");
    assert!(
        line["message"]
            .as_str()
            .unwrap()
            .starts_with("--kubeconfig /nonexistent/kubeconfig"),
        "{line}"
    );

    let out = run(&["--log-format", "xml", "status"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--log-format"));
}

/// Every command's `--help` ends with examples, and the options every
/// command accepts sit under their own headings after the command's own
/// (`--endpoints` under Connection, never among a command's options).
#[test]
fn every_help_has_examples_and_grouped_options() {
    let root = Cli::command();
    let mut paths: Vec<Vec<String>> = Vec::new();
    for sub in root.get_subcommands() {
        let name = sub.get_name().to_string();
        // Hidden: the etcd-operator plugin's spellings (`leave`,
        // `remove-member`, `add-member`), documented in docs/cli.md.
        if matches!(name.as_str(), "completion" | "version" | "help") || sub.is_hide_set() {
            continue;
        }
        if sub.has_subcommands() {
            for leaf in sub.get_subcommands().filter(|l| l.get_name() != "help") {
                paths.push(vec![name.clone(), leaf.get_name().to_string()]);
            }
        } else {
            paths.push(vec![name]);
        }
    }
    assert!(paths.len() >= 9, "{paths:?}");
    for path in paths {
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.push("--help");
        let out = run(&args);
        assert_eq!(out.status.code(), Some(0), "{path:?}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("\nExamples:\n  kubectl"), "{path:?}:\n{text}");
        let options = text.find("\nOptions:\n").expect("an Options heading");
        let connection = text.find("\nConnection:\n").expect("a Connection heading");
        // The option itself (another's help may name it).
        let endpoints = text.find("\n      --endpoints <").unwrap();
        assert!(
            options < connection && connection < endpoints,
            "{path:?}:\n{text}"
        );
        for heading in [
            "TLS and authentication:",
            "Kubernetes (plugin mode):",
            "Output:",
        ] {
            assert!(
                text.contains(&format!("\n{heading}\n")),
                "{path:?}: {heading}"
            );
        }
    }
    // defrag: its own groups come first, in the order a user decides.
    let text = String::from_utf8_lossy(&run(&["defrag", "--help"]).stdout).to_string();
    let at = |h: &str| {
        text.find(&format!("\n{h}\n"))
            .unwrap_or_else(|| panic!("{h}"))
    };
    let order = [
        "Rule (EtcdDefrag spec.rule):",
        "Leader handling:",
        "Run and consent:",
        "Health gate:",
        "Controller (--watch):",
        "Connection:",
    ];
    for pair in order.windows(2) {
        assert!(at(pair[0]) < at(pair[1]), "{pair:?}");
    }
}

/// Help examples are never hard-wrapped: rendered at 60 columns, every
/// example line of every command (and subcommand) appears whole, on one
/// line, exactly as written, so it can be copied and run as printed.
#[test]
fn help_examples_stay_whole_at_any_width() {
    let root = Cli::command();
    let mut paths: Vec<(Vec<String>, String)> = Vec::new();
    for sub in root.get_subcommands() {
        let name = sub.get_name().to_string();
        if let Some(examples) = sub.get_after_help() {
            paths.push((vec![name.clone()], examples.to_string()));
        }
        for leaf in sub.get_subcommands() {
            if let Some(examples) = leaf.get_after_help() {
                paths.push((
                    vec![name.clone(), leaf.get_name().to_string()],
                    examples.to_string(),
                ));
            }
        }
    }
    assert!(paths.len() >= 15, "{paths:?}");
    let mut longest = 0;
    for (path, examples) in paths {
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.push("--help");
        for columns in ["60", "100", "250"] {
            let out = std::process::Command::new(env!("CARGO_BIN_EXE_kubectl-etcd"))
                .args(&args)
                .env("COLUMNS", columns)
                .env_remove("ETCDCTL_ENDPOINTS")
                .output()
                .expect("run kubectl-etcd");
            assert_eq!(out.status.code(), Some(0), "{path:?}");
            let text = String::from_utf8_lossy(&out.stdout).to_string();
            let lines: Vec<&str> = text.lines().collect();
            for example in examples
                .lines()
                .filter(|l| l.trim_start().starts_with("kubectl"))
            {
                longest = longest.max(example.len());
                assert!(
                    lines.contains(&example),
                    "{path:?} at {columns} columns: {example:?} is not one whole line in:\n{text}"
                );
            }
            // Nothing else in the help starts like a command that was cut.
            let commands = lines
                .iter()
                .filter(|l| {
                    let t = l.trim_start();
                    t.starts_with("kubectl etcd ") || t.starts_with("kubectl-etcd ")
                })
                .count();
            assert_eq!(
                commands,
                examples
                    .lines()
                    .filter(|l| l.trim_start().starts_with("kubectl"))
                    .count(),
                "{path:?} at {columns}:\n{text}"
            );
        }
    }
    assert!(longest > 100, "some example is longer than the widest help");
}

/// The bash script completes past the first word (`kubectl-etcd defrag
/// --dry<TAB>`, a subcommand's values), driven through bash itself.
#[test]
fn bash_completion_completes_subcommand_options_and_values() {
    let out = run(&["completion", "bash"]);
    assert_eq!(out.status.code(), Some(0));
    // Removed on drop, also when an assertion fails.
    let scratch = tempfile::tempdir().unwrap();
    let script = scratch.path().join("kubectl-etcd.bash");
    std::fs::write(&script, &out.stdout).unwrap();
    // The function the script registers for kubectl-etcd.
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let function = text
        .lines()
        .filter(|l| l.trim_start().starts_with("complete ") && l.ends_with(" kubectl-etcd"))
        .find_map(|l| l.split_whitespace().skip_while(|w| *w != "-F").nth(1))
        .expect("a complete -F line for kubectl-etcd")
        .to_string();
    // The script asks the binary (`kubectl-etcd __complete`), found on PATH.
    let bin = std::path::Path::new(env!("CARGO_BIN_EXE_kubectl-etcd"));
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let files = scratch.path().join("files");
    std::fs::create_dir_all(&files).unwrap();
    std::fs::write(files.join("backup.db"), b"").unwrap();
    std::fs::write(files.join("notes.txt"), b"").unwrap();
    let complete = |words: &[&str]| -> Vec<String> {
        let cword = words.len() - 1;
        let prev = if cword > 0 { words[cword - 1] } else { "" };
        let program = format!(
            "source {}; COMP_WORDS=({}); COMP_CWORD={cword}; {function} kubectl-etcd '{}' '{prev}'; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
            script.display(),
            words.iter().map(|w| format!("'{w}'")).collect::<Vec<_>>().join(" "),
            words[cword],
        );
        let out = std::process::Command::new("bash")
            .arg("-c")
            .arg(program)
            .current_dir(&files)
            .env("PATH", &path)
            .env_remove("ETCDCTL_ENDPOINTS")
            .env("KUBECONFIG", files.join("no-kubeconfig"))
            .output()
            .expect("bash");
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter(|l| !l.is_empty())
            .map(str::to_string)
            .collect()
    };
    assert_eq!(
        complete(&["kubectl-etcd", "defrag", "--dry"]),
        ["--dry-run"]
    );
    assert_eq!(
        complete(&["kubectl-etcd", "defrag", "--move-leader", ""]),
        ["auto", "always", "never"]
    );
    assert_eq!(
        complete(&["kubectl-etcd", "traffic", "set", "Prefer"]),
        ["PreferClose", "PreferSameZone", "PreferSameNode"]
    );
    assert!(complete(&["kubectl-etcd", "st"]).contains(&"status".to_string()));
    // Where a file is wanted, files: `snapshot save FILE` and --cacert.
    assert_eq!(
        complete(&["kubectl-etcd", "snapshot", "save", ""]),
        ["backup.db", "notes.txt"]
    );
    assert_eq!(
        complete(&["kubectl-etcd", "snapshot", "save", "ba"]),
        ["backup.db"]
    );
    assert_eq!(
        complete(&["kubectl-etcd", "status", "--cacert", "n"]),
        ["notes.txt"]
    );
    // A free value, and a member name nobody can look up (no cluster
    // configured): nothing, never file names.
    assert!(complete(&["kubectl-etcd", "defrag", "--timeout", ""]).is_empty());
    assert!(complete(&["kubectl-etcd", "defrag", "--member", ""]).is_empty());
}

/// The bash script in a real interactive bash, with readline's default
/// word breaks (`=` and `:` among them), on a terminal (util-linux
/// `script`): what the line holds after TAB. Right after `--output=`,
/// bash's current word is the `=` while readline replaces the empty text
/// after it, so an answer that kept the `=` read `--output==` (issue 46).
#[test]
fn bash_completion_after_flag_equals_on_a_real_readline() {
    let out = run(&["completion", "bash"]);
    let scratch = tempfile::tempdir().unwrap();
    let script = scratch.path().join("kubectl-etcd.bash");
    std::fs::write(&script, &out.stdout).unwrap();
    let bin = std::path::Path::new(env!("CARGO_BIN_EXE_kubectl-etcd"));
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let results = tab_on_a_terminal(
        "bash --norc --noprofile -i",
        scratch.path(),
        &[
            ("PATH", path.as_str()),
            ("INPUTRC", "/dev/null"),
            ("PS1", "$ "),
        ],
        &format!("source {}\n", script.display()),
        &[
            "kubectl-etcd status --output=",
            "kubectl-etcd status --output=j",
            "kubectl-etcd status --output j",
            "kubectl-etcd defrag --move-leader=al",
        ],
    );
    assert_eq!(
        results,
        [
            // Four values: nothing in common to add, and no second `=`.
            "[kubectl-etcd status --output=]",
            "[kubectl-etcd status --output=json ]",
            "[kubectl-etcd status --output json ]",
            "[kubectl-etcd defrag --move-leader=always ]",
        ],
    );
}

/// zsh and fish complete a value after `--flag=` too (issue 46): zsh
/// with its completion system on a terminal (util-linux `script`), fish
/// with its own engine (`complete -C`, what its TAB runs), each from the
/// script `completion <shell>` prints.
#[test]
fn zsh_and_fish_complete_after_flag_equals() {
    let scratch = tempfile::tempdir().unwrap();
    let bin = std::path::Path::new(env!("CARGO_BIN_EXE_kubectl-etcd"));
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    for (shell, file) in [("zsh", "_kubectl-etcd"), ("fish", "kubectl-etcd.fish")] {
        let out = run(&["completion", shell]);
        std::fs::write(scratch.path().join(file), &out.stdout).unwrap();
    }

    // fish: its completion engine, as TAB runs it.
    let fish = std::process::Command::new("fish")
        .args(["--no-config", "-c"])
        .arg(format!(
            "source {}; complete -C 'kubectl-etcd status --output=j'; echo ==; complete -C 'kubectl-etcd status --output='; echo ==; complete -C 'kubectl-etcd defrag --move-leader=al'",
            scratch.path().join("kubectl-etcd.fish").display()
        ))
        .env("PATH", &path)
        .env("HOME", scratch.path())
        .env("KUBECONFIG", scratch.path().join("no-kubeconfig"))
        .output()
        .expect("fish (scripts/lib.sh installs it)");
    let text = String::from_utf8_lossy(&fish.stdout);
    let answers: Vec<Vec<&str>> = text
        .split("==\n")
        .map(|part| {
            part.lines()
                .map(|l| l.split('\t').next().unwrap_or(l))
                .collect()
        })
        .collect();
    assert_eq!(
        answers,
        [
            vec!["--output=json"],
            vec![
                "--output=json",
                "--output=table",
                "--output=wide",
                "--output=yaml"
            ],
            vec!["--move-leader=always"],
        ],
        "{text}"
    );

    // zsh: compinit with the script on fpath, TAB on a terminal, the line
    // echoed back as it stands.
    std::fs::write(
        scratch.path().join(".zshrc"),
        format!(
            "fpath=({} $fpath)\nautoload -Uz compinit && compinit -u\nPS1='$ '\nunsetopt beep\n",
            scratch.path().display()
        ),
    )
    .unwrap();
    let zdotdir = scratch.path().display().to_string();
    let results = tab_on_a_terminal(
        "zsh -i",
        scratch.path(),
        &[("PATH", path.as_str()), ("ZDOTDIR", zdotdir.as_str())],
        "",
        &[
            "kubectl-etcd status --output=j",
            "kubectl-etcd status --output=",
            "kubectl-etcd defrag --move-leader=al",
        ],
    );
    assert_eq!(
        results,
        [
            "[kubectl-etcd status --output=json]",
            "[kubectl-etcd status --output=]",
            "[kubectl-etcd defrag --move-leader=always]",
        ],
    );
}

/// Runs `shell` on a terminal (util-linux `script`) in `home`, types
/// `setup`, then each of `lines` with a TAB after it, and has the line as
/// it then stands echoed back (Ctrl-A, `echo 'RESULT:[`, Ctrl-E, `]'`,
/// Enter): those lines, `[…]` each. The shell reads keys as they come,
/// so each step waits a moment for the last.
fn tab_on_a_terminal(
    shell: &str,
    home: &std::path::Path,
    env: &[(&str, &str)],
    setup: &str,
    lines: &[&str],
) -> Vec<String> {
    use std::io::Write;
    let mut child = std::process::Command::new("script")
        .args(["-qfec", shell, "/dev/null"])
        .current_dir(home)
        .env("HOME", home)
        .env("TERM", "dumb")
        .env("KUBECONFIG", home.join("no-kubeconfig"))
        .env_remove("ETCDCTL_ENDPOINTS")
        .env_remove("ETCDCTL_WRITE_OUT")
        .envs(env.iter().copied())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("script (util-linux) runs the shell on a terminal (scripts/lib.sh installs them)");
    let mut keys = child.stdin.take().unwrap();
    let mut press = |text: &str, wait_ms: u64| {
        keys.write_all(text.as_bytes()).unwrap();
        keys.flush().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(wait_ms));
    };
    press(setup, 1500);
    for line in lines {
        press(line, 100);
        press("\t", 1500);
        press("\x01echo 'RESULT:[\x05]'\n", 300);
    }
    press("exit\n", 300);
    drop(keys);
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).replace('\r', "");
    let results: Vec<String> = text
        .lines()
        .filter_map(|l| l.strip_prefix("RESULT:"))
        .map(str::to_string)
        .collect();
    assert_eq!(results.len(), lines.len(), "{text}");
    results
}

/// The scripts committed in completions/ are what `completion <shell>`
/// prints now (regenerate with scripts/completions.sh).
#[test]
fn committed_completions_are_current() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("completions");
    for (shell, file) in [
        ("bash", "kubectl-etcd.bash"),
        ("zsh", "_kubectl-etcd"),
        ("fish", "kubectl-etcd.fish"),
        ("powershell", "kubectl-etcd.ps1"),
    ] {
        let out = run(&["completion", shell]);
        assert_eq!(out.status.code(), Some(0), "{shell}");
        let committed = std::fs::read(dir.join(file))
            .unwrap_or_else(|e| panic!("completions/{file}: {e}; run scripts/completions.sh"));
        assert!(
            committed == out.stdout,
            "completions/{file} is stale: run scripts/completions.sh"
        );
    }
}

/// The man pages committed in docs/man/ (one per command, from the clap
/// definition) are current. `KUBECTL_ETCD_WRITE_MAN=1` rewrites them
/// instead (scripts/man.sh).
#[test]
fn committed_man_pages_are_current() {
    let scratch = tempfile::tempdir().unwrap();
    let fresh = scratch.path().to_path_buf();
    clap_mangen::generate_to(Cli::command(), &fresh).unwrap();
    let committed = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/man");
    let names = |dir: &std::path::Path| -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .map(|d| {
                d.filter_map(Result::ok)
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names
    };
    let generated = names(&fresh);
    assert!(
        generated.contains(&"kubectl-etcd-defrag.1".to_string()),
        "{generated:?}"
    );
    if std::env::var_os("KUBECTL_ETCD_WRITE_MAN").is_some() {
        let _ = std::fs::remove_dir_all(&committed);
        std::fs::create_dir_all(&committed).unwrap();
        for name in &generated {
            std::fs::copy(fresh.join(name), committed.join(name)).unwrap();
        }
    }
    assert_eq!(
        names(&committed),
        generated,
        "docs/man/ lists other pages: run scripts/man.sh"
    );
    for name in &generated {
        let want = std::fs::read(fresh.join(name)).unwrap();
        let have = std::fs::read(committed.join(name)).unwrap();
        assert!(want == have, "docs/man/{name} is stale: run scripts/man.sh");
    }
}

/// The README's install works on a fresh Debian or Ubuntu as printed
/// (issue 46): the build compiles etcd's .proto files, so the package
/// that brings protoc (the one scripts/lib.sh installs for the tests) is
/// installed before `cargo install`, and the API groups plugin mode reads
/// are named.
#[test]
fn the_readme_install_names_what_the_build_needs() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let install = readme
        .split("\n## Install\n")
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .expect("an Install section");
    let lib = std::fs::read_to_string(root.join("scripts/lib.sh")).unwrap();
    assert!(lib.contains("apt-get install -y -qq protobuf-compiler"));
    let apt = install
        .find("apt-get install -y protobuf-compiler")
        .expect("protoc's package in the install");
    let cargo = install.find("cargo install --locked --path .").unwrap();
    assert!(apt < cargo, "{install}");
    for group in [
        "etcd-operator.cozystack.io",
        "operator.etcd.io",
        "--endpoints",
    ] {
        assert!(install.contains(group), "{group}: {install}");
    }
}
