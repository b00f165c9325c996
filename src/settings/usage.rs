//! What a usage error says about the command line itself: clap's errors
//! rewritten to name where a bad value came from (the flag, or the
//! `ETCDCTL_*` variable behind it), pointers for etcdctl habits (`-w`,
//! `--cluster`), which `--help` to read, and the same command spelled
//! differently (for plugin mode chosen by an argument meant for
//! standalone mode).
//!
//! Pure: the command line and the variables are passed in.

use std::collections::HashMap;

use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::CommandFactory;

use crate::cli::Cli;

/// What clap reported, reduced to what the rewriting needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClapFailure {
    pub kind: ErrorKind,
    /// The argument at fault, as clap shows it (`--dial-timeout <DURATION>`,
    /// `-w`).
    pub arg: Option<String>,
    /// The value that was refused.
    pub value: Option<String>,
    /// clap's own text, on one line, without `error: ` and usage.
    pub text: String,
}

impl ClapFailure {
    pub fn of(e: &clap::Error) -> ClapFailure {
        let context = |kind: ContextKind| match e.get(kind) {
            Some(ContextValue::String(s)) => Some(s.clone()),
            _ => None,
        };
        // clap spreads one error over several lines (the problem, the
        // possible values, a tip) before its usage block: keep them all, on
        // one line.
        let rendered = e.render().to_string();
        let parts: Vec<&str> = rendered
            .lines()
            .take_while(|l| !l.starts_with("Usage:") && !l.starts_with("For more information"))
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        let text = match parts.join(" ") {
            t if t.is_empty() => "invalid arguments".to_string(),
            t => t.trim_start_matches("error: ").to_string(),
        };
        ClapFailure {
            kind: e.kind(),
            arg: context(ContextKind::InvalidArg),
            value: context(ContextKind::InvalidValue),
            text,
        }
    }
}

/// The one line for a usage error found by clap (without `error: `).
/// `argv` is the command line without the program; `env` reads a variable.
pub fn explain(
    failure: &ClapFailure,
    argv: &[String],
    env: &dyn Fn(&str) -> Option<String>,
) -> String {
    let help = help_pointer(argv);
    if failure.kind == ErrorKind::UnknownArgument {
        let arg = failure.arg.as_deref();
        let pointer = arg
            .and_then(|arg| etcdctl_habit(arg, argv))
            .or_else(|| arg.and_then(|arg| negative_value(arg, argv)));
        if let Some(pointer) = pointer {
            return format!("{pointer} (see '{help}')");
        }
    }
    if failure.kind == ErrorKind::InvalidSubcommand {
        if let Some(pointer) = other_word(argv) {
            return format!("{pointer} (see '{help}')");
        }
    }
    if failure.kind == ErrorKind::MissingRequiredArgument {
        if let Some(pointer) = compact_revision(argv) {
            return format!("{pointer} (see '{help}')");
        }
    }
    // clap's tip for a value that looks like a flag ("use '-- -5'") is
    // wrong here: no argument of this tool takes one after `--`.
    let mut text = match failure.text.find(" tip: to pass '") {
        Some(at) if failure.text[at..].contains("as a value, use '-- ") => {
            failure.text[..at].to_string()
        }
        _ => failure.text.clone(),
    };
    if matches!(
        failure.kind,
        ErrorKind::ValueValidation | ErrorKind::InvalidValue
    ) {
        if let (Some(arg), Some(value)) = (&failure.arg, &failure.value) {
            if let Some((long, var)) = variable_behind(arg, value, argv, env) {
                let from = format!("for '{arg}'");
                let to = format!("in {var} (the variable for {long})");
                text = if text.contains(&from) {
                    text.replacen(&from, &to, 1)
                } else {
                    format!("{text} (from {var})")
                };
            }
        }
    }
    format!("{text} (see '{help}')")
}

/// The variable a refused value came from: the argument has one, it holds
/// exactly the refused value, and the flag is not on the command line.
fn variable_behind(
    arg: &str,
    value: &str,
    argv: &[String],
    env: &dyn Fn(&str) -> Option<String>,
) -> Option<(String, String)> {
    let long = arg.split_whitespace().next()?.to_string();
    let name = long.strip_prefix("--")?;
    let command = Cli::command();
    let var = command
        .get_arguments()
        .find(|a| a.get_long() == Some(name))?
        .get_env()?
        .to_string_lossy()
        .into_owned();
    let on_line = argv
        .iter()
        .any(|a| *a == long || a.starts_with(&format!("{long}=")));
    (!on_line && env(&var).as_deref() == Some(value)).then_some((long, var))
}

/// A pointer for an etcdctl flag this tool spells differently or does not
/// need.
fn etcdctl_habit(arg: &str, argv: &[String]) -> Option<String> {
    match arg {
        "-w" | "--write-out" => {
            let value = flag_value(argv, Some('w'), "write-out");
            let use_ = match value.as_deref() {
                Some(v @ ("json" | "yaml" | "table" | "wide")) => format!("use -o {v}"),
                _ => "use -o table, -o wide, -o json or -o yaml".to_string(),
            };
            Some(format!("-w/--write-out is etcdctl's output flag: {use_}"))
        }
        "--cluster" => {
            let path = subcommand_path(argv);
            let all = if path.first().map(String::as_str) == Some("defrag") {
                "; to defragment every member whatever its size, as etcdctl's defrag --cluster does, add --all"
            } else {
                ""
            };
            Some(format!(
                "--cluster is not needed: every member is always covered (they are found through MemberList){all}"
            ))
        }
        _ => None,
    }
}

/// A negative number given to a flag (`--keep -5`, `--command-timeout
/// -1s`), which clap reads as an unknown flag: name the flag and say that
/// it takes no negative value.
fn negative_value(arg: &str, argv: &[String]) -> Option<String> {
    let digit = arg.strip_prefix('-')?.chars().next()?;
    if !digit.is_ascii_digit() {
        return None;
    }
    let at = argv.iter().position(|w| w.starts_with(arg))?;
    let flag = argv.get(at.checked_sub(1)?)?;
    let takes_value = flag_arity().get(flag.as_str()).copied().unwrap_or(false);
    takes_value.then(|| format!("{flag} {}: negative values are not accepted", argv[at]))
}

/// A subcommand spelled as another tool or habit would (`traffic
/// unset`): the one this tool has, and the line with it.
fn other_word(argv: &[String]) -> Option<String> {
    const OTHERS: [(&str, &str, &str); 3] = [
        ("traffic", "unset", "clear"),
        ("traffic", "remove", "clear"),
        ("traffic", "delete", "clear"),
    ];
    let path = subcommand_path(argv);
    let (parent, word, ours) = OTHERS.iter().find(|(parent, word, _)| {
        path.last().map(String::as_str) == Some(*parent) && argv.iter().any(|w| w == word)
    })?;
    let spelled = respell(
        argv,
        &Respell::Replace {
            value: (*word).to_string(),
            with: ours,
        },
    )
    .map(|line| format!(": {line}"))
    .unwrap_or_default();
    Some(format!(
        "{parent} has no {word}; {parent} {ours} is the command{spelled}"
    ))
}

/// etcdctl's `compact REVISION`: here the revision is `--revision N` (the
/// positional is the EtcdCluster, as in every command).
fn compact_revision(argv: &[String]) -> Option<String> {
    if subcommand_path(argv) != ["compact"] {
        return None;
    }
    let revision = argv
        .iter()
        .find(|w| !w.starts_with('-') && w.parse::<i64>().is_ok())?;
    let spelled = respell(
        argv,
        &Respell::Positional {
            value: revision.clone(),
            into_flag: Some("--revision"),
        },
    )
    .map(|line| format!(": {line}"))
    .unwrap_or_default();
    Some(format!(
        "compact takes the revision to keep as --revision {revision} (etcdctl's `compact {revision}`; the argument here is an EtcdCluster){spelled}"
    ))
}

/// The value given to a flag: `-w X`, `-wX`, `--write-out X`,
/// `--write-out=X`.
fn flag_value(argv: &[String], short: Option<char>, long: &str) -> Option<String> {
    let long = format!("--{long}");
    let mut words = argv.iter();
    while let Some(word) = words.next() {
        if *word == long {
            return words.next().cloned();
        }
        if let Some(v) = word.strip_prefix(&format!("{long}=")) {
            return Some(v.to_string());
        }
        if let Some(c) = short {
            let flag = format!("-{c}");
            if *word == flag {
                return words.next().cloned();
            }
            if let Some(v) = word.strip_prefix(&flag).filter(|_| !word.starts_with("--")) {
                return Some(v.trim_start_matches('=').to_string());
            }
        }
    }
    None
}

/// The subcommands named on the command line, outermost first
/// (`["member", "remove"]`).
pub fn subcommand_path(argv: &[String]) -> Vec<String> {
    let mut command = Cli::command();
    let mut path = Vec::new();
    for word in argv {
        if word == "--" {
            break;
        }
        if word.starts_with('-') {
            continue;
        }
        let next = command
            .get_subcommands()
            .find(|s| s.get_name() == word || s.get_all_aliases().any(|a| a == word))
            .cloned();
        if let Some(sub) = next {
            path.push(sub.get_name().to_string());
            if !sub.has_subcommands() {
                break;
            }
            command = sub;
        }
    }
    path
}

/// The help to read for this command line: `kubectl-etcd [SUBCOMMAND…]
/// --help`. kubectl finds a plugin on PATH and passes no mark of having
/// run it, so the spelling that works both ways is the executable's name.
pub fn help_pointer(argv: &[String]) -> String {
    let mut words = vec!["kubectl-etcd".to_string()];
    words.extend(subcommand_path(argv));
    words.push("--help".into());
    words.join(" ")
}

/// A change to a command line, for [`respell`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Respell {
    /// Drop the positional argument `value`, or give it to `into_flag`
    /// instead (`move-leader ID` → `move-leader --to ID`).
    Positional {
        value: String,
        into_flag: Option<&'static str>,
    },
    /// Put `with` in place of the positional word `value` (`traffic
    /// unset` → `traffic clear`).
    Replace { value: String, with: &'static str },
    /// Drop a flag with its value, however spelled (`-n X`, `-nX`,
    /// `--namespace X`, `--namespace=X`).
    Flag {
        short: Option<char>,
        long: &'static str,
    },
}

/// One word of a command line, as clap would read it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Word {
    /// A flag, or a flag's value: kept with the flag.
    Flag {
        flag: usize,
    },
    Positional,
}

/// `argv` (without the program) with `edit` applied, as a line to run:
/// `kubectl-etcd …`, each word quoted for a POSIX shell where needed.
/// `None` when the edit changes nothing or the line holds a password (it
/// would be printed back).
pub fn respell(argv: &[String], edit: &Respell) -> Option<String> {
    let (words, flags) = classify(argv);
    // A password on the line would be printed back: no spelling then.
    let secret = flags.iter().any(|(at, name)| {
        name == "--password"
            || (name == "--user" && {
                let word = &argv[*at];
                let value = match word.split_once('=') {
                    Some((_, v)) => Some(v.to_string()),
                    None => argv.get(at + 1).cloned(),
                };
                value.is_some_and(|v| v.contains(':'))
            })
    });
    if secret {
        return None;
    }

    let mut out: Vec<String> = Vec::with_capacity(argv.len() + 1);
    let mut changed = false;
    match edit {
        Respell::Positional { value, into_flag } => {
            let at = (0..argv.len())
                .rev()
                .find(|&k| words[k] == Word::Positional && argv[k] == *value)?;
            for (k, word) in argv.iter().enumerate() {
                if k == at {
                    changed = true;
                    if let Some(flag) = into_flag {
                        out.push(flag.to_string());
                        out.push(word.clone());
                    }
                } else {
                    out.push(word.clone());
                }
            }
        }
        Respell::Replace { value, with } => {
            for (k, word) in argv.iter().enumerate() {
                if !changed && words[k] == Word::Positional && word == value {
                    changed = true;
                    out.push(with.to_string());
                } else {
                    out.push(word.clone());
                }
            }
        }
        Respell::Flag { short, long } => {
            let long = format!("--{long}");
            let short = short.map(|c| format!("-{c}"));
            let dropped: Vec<usize> = flags
                .iter()
                .filter(|(_, name)| *name == long || Some(name) == short.as_ref())
                .map(|(at, _)| *at)
                .collect();
            for (k, word) in argv.iter().enumerate() {
                let owner = match words[k] {
                    Word::Flag { flag } => Some(flag),
                    Word::Positional => None,
                };
                if owner.is_some_and(|f| dropped.contains(&f)) {
                    changed = true;
                } else {
                    out.push(word.clone());
                }
            }
        }
    }
    if !changed {
        return None;
    }
    let mut line = vec!["kubectl-etcd".to_string()];
    line.extend(out.iter().map(|w| shell_quote(w)));
    Some(line.join(" "))
}

/// Each word of `argv` (a flag, a flag's value, or a positional), and
/// every flag given as (index of its word, its name).
fn classify(argv: &[String]) -> (Vec<Word>, Vec<(usize, String)>) {
    let arity = flag_arity();
    let takes_value = |name: &str| arity.get(name).copied().unwrap_or(false);
    // Classify each word; `flags` holds (index of the flag word, its name).
    let mut words: Vec<Word> = Vec::with_capacity(argv.len());
    let mut flags: Vec<(usize, String)> = Vec::new();
    let mut i = 0;
    let mut rest_positional = false;
    while i < argv.len() {
        let word = &argv[i];
        if rest_positional {
            words.push(Word::Positional);
        } else if word == "--" {
            rest_positional = true;
            words.push(Word::Flag { flag: i });
        } else if let Some(long) = word.strip_prefix("--") {
            let (name, inline) = match long.split_once('=') {
                Some((n, _)) => (n, true),
                None => (long, false),
            };
            flags.push((i, format!("--{name}")));
            words.push(Word::Flag { flag: i });
            if !inline && takes_value(&format!("--{name}")) && i + 1 < argv.len() {
                i += 1;
                words.push(Word::Flag { flag: i - 1 });
            }
        } else if word.len() > 1 && word.starts_with('-') {
            words.push(Word::Flag { flag: i });
            let chars: Vec<char> = word.chars().skip(1).collect();
            let mut value_follows = false;
            for (k, c) in chars.iter().enumerate() {
                flags.push((i, format!("-{c}")));
                if takes_value(&format!("-{c}")) {
                    value_follows = k + 1 == chars.len();
                    break;
                }
            }
            if value_follows && i + 1 < argv.len() {
                i += 1;
                words.push(Word::Flag { flag: i - 1 });
            }
        } else {
            words.push(Word::Positional);
        }
        i += 1;
    }
    (words, flags)
}

/// Whether each flag spelling (`--namespace`, `-n`) takes a value, across
/// every command.
fn flag_arity() -> HashMap<String, bool> {
    fn walk(command: &clap::Command, into: &mut HashMap<String, bool>) {
        for arg in command.get_arguments() {
            let takes = arg.get_action().takes_values();
            if let Some(long) = arg.get_long() {
                into.insert(format!("--{long}"), takes);
            }
            if let Some(short) = arg.get_short() {
                into.insert(format!("-{short}"), takes);
            }
        }
        for sub in command.get_subcommands() {
            walk(sub, into);
        }
    }
    let mut arity = HashMap::new();
    walk(&Cli::command(), &mut arity);
    arity
}

/// A word as a POSIX shell reads it back unchanged.
fn shell_quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=,@%+".contains(c));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_string).collect()
    }

    fn clap_line(line: &str) -> String {
        let mut full = vec!["kubectl-etcd".to_string()];
        full.extend(argv(line));
        let e = match crate::cli::parse(full) {
            Err(e) => e,
            Ok(_) => panic!("{line}: parsed"),
        };
        explain(&ClapFailure::of(&e), &argv(line), &|_| None)
    }

    #[test]
    fn clap_errors_name_their_source_and_the_help_to_read() {
        let cases: &[(&str, &str)] = &[
            (
                "status --dial-timeout abc",
                "for '--dial-timeout <DURATION>'",
            ),
            (
                "status --dial-timeout 0s",
                "invalid value '0s' for '--dial-timeout <DURATION>': must be greater than 0",
            ),
            (
                "status --max-raft-lag abc",
                "for '--max-raft-lag <ENTRIES>'",
            ),
            ("status --frobnicate", "(see 'kubectl-etcd status --help')"),
            (
                "member remove --frobnicate m1",
                "(see 'kubectl-etcd member remove --help')",
            ),
            (
                "status -w json",
                "-w/--write-out is etcdctl's output flag: use -o json (see 'kubectl-etcd status --help')",
            ),
            (
                "status --write-out=simple",
                "-w/--write-out is etcdctl's output flag: use -o table, -o wide, -o json or -o yaml",
            ),
            (
                "defrag --cluster",
                "--cluster is not needed: every member is always covered (they are found through MemberList); to defragment every member whatever its size, as etcdctl's defrag --cluster does, add --all",
            ),
            (
                "compact 1234 --dry-run",
                "compact takes the revision to keep as --revision 1234 (etcdctl's `compact 1234`; the argument here is an EtcdCluster): kubectl-etcd compact --revision 1234 --dry-run (see 'kubectl-etcd compact --help')",
            ),
            (
                "status --cluster",
                "--cluster is not needed: every member is always covered (they are found through MemberList) (see",
            ),
            // Issue 46: a negative value names its flag; clap's "use '--
            // -5'" would not work here.
            (
                "compact --keep -5",
                "--keep -5: negative values are not accepted (see 'kubectl-etcd compact --help')",
            ),
            (
                "status --command-timeout -1s",
                "--command-timeout -1s: negative values are not accepted (see 'kubectl-etcd status --help')",
            ),
            (
                "status --frobnicate",
                "unexpected argument '--frobnicate' found (see 'kubectl-etcd status --help')",
            ),
            (
                "traffic unset my-etcd --dry-run",
                "traffic has no unset; traffic clear is the command: kubectl-etcd traffic clear my-etcd --dry-run (see 'kubectl-etcd traffic --help')",
            ),
        ];
        for (line, want) in cases {
            let got = clap_line(line);
            assert!(got.contains(want), "{line}: {got:?} lacks {want:?}");
        }
    }

    #[test]
    fn a_bad_value_from_a_variable_names_the_variable() {
        let failure = |value: &str, reason: &str| ClapFailure {
            kind: ErrorKind::ValueValidation,
            arg: Some("--dial-timeout <DURATION>".into()),
            value: Some(value.into()),
            text: format!("invalid value '{value}' for '--dial-timeout <DURATION>': {reason}"),
        };
        let env = |var: &str| (var == "ETCDCTL_DIAL_TIMEOUT").then(|| "abc".to_string());
        let cases: &[(&str, ClapFailure, &str)] = &[
            (
                "status",
                failure("abc", "not a duration"),
                "invalid value 'abc' in ETCDCTL_DIAL_TIMEOUT (the variable for --dial-timeout): not a duration (see 'kubectl-etcd status --help')",
            ),
            // The flag wins, and is what was wrong.
            (
                "status --dial-timeout abc",
                failure("abc", "not a duration"),
                "invalid value 'abc' for '--dial-timeout <DURATION>'",
            ),
            (
                "status --dial-timeout=abc",
                failure("abc", "not a duration"),
                "invalid value 'abc' for '--dial-timeout <DURATION>'",
            ),
            // The variable holds something else: the value is the flag's.
            (
                "status",
                failure("0s", "must be greater than 0"),
                "invalid value '0s' for '--dial-timeout <DURATION>'",
            ),
        ];
        for (line, failure, want) in cases {
            let got = explain(failure, &argv(line), &env);
            assert!(got.contains(want), "{line}: {got:?} lacks {want:?}");
        }
    }

    #[test]
    fn respelling_drops_or_moves_one_argument() {
        let positional = |value: &str, into_flag| Respell::Positional {
            value: value.into(),
            into_flag,
        };
        let namespace = Respell::Flag {
            short: Some('n'),
            long: "namespace",
        };
        let endpoints = Respell::Flag {
            short: None,
            long: "endpoints",
        };
        let cases: Vec<(&str, Respell, Option<&str>)> = vec![
            (
                "move-leader d3f98000ede0eca8",
                positional("d3f98000ede0eca8", Some("--to")),
                Some("kubectl-etcd move-leader --to d3f98000ede0eca8"),
            ),
            (
                "move-leader --dry-run -o json d3f98000ede0eca8",
                positional("d3f98000ede0eca8", Some("--to")),
                Some("kubectl-etcd move-leader --dry-run -o json --to d3f98000ede0eca8"),
            ),
            // A flag's value that equals the argument is left alone.
            (
                "status --context prod prod",
                positional("prod", None),
                Some("kubectl-etcd status --context prod"),
            ),
            (
                "status -n default",
                namespace.clone(),
                Some("kubectl-etcd status"),
            ),
            (
                "status -ndefault -o json",
                namespace.clone(),
                Some("kubectl-etcd status -o json"),
            ),
            (
                "-v status --namespace=default --cacert ca.pem",
                namespace.clone(),
                Some("kubectl-etcd -v status --cacert ca.pem"),
            ),
            (
                "status --endpoints=",
                endpoints.clone(),
                Some("kubectl-etcd status"),
            ),
            ("status", namespace.clone(), None),
            // A password on the line is never printed back.
            (
                "status -n default --password hunter2",
                namespace.clone(),
                None,
            ),
            (
                "status -n default --user root:hunter2",
                namespace.clone(),
                None,
            ),
            (
                "status -n default --user root",
                namespace,
                Some("kubectl-etcd status --user root"),
            ),
        ];
        for (line, edit, want) in cases {
            assert_eq!(respell(&argv(line), &edit).as_deref(), want, "{line}");
        }
    }

    #[test]
    fn shell_quoting_round_trips() {
        assert_eq!(
            shell_quote("https://10.0.0.1:2379,x"),
            "https://10.0.0.1:2379,x"
        );
        assert_eq!(shell_quote("a b"), "'a b'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
        assert_eq!(shell_quote(""), "''");
    }
}
