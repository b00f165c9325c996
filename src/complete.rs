//! Shell completion through kubectl's plugin-completion convention.
//!
//! `kubectl etcd <TAB>` makes kubectl run `kubectl_complete-etcd` with the
//! words typed after `etcd`, the last one being the word under the cursor
//! (empty when a new word starts). It expects Cobra's answer: one candidate
//! per line (`value<TAB>description`), then `:<directive>`. The static
//! scripts in `completions/` cannot know cluster or member names; this can.
//!
//! The decision — which command the words reach, whether the cursor is on a
//! flag, a flag's value or a positional, and which values are fixed — is
//! pure, over the clap definition itself, so a new flag completes without
//! a change here. What must come from the API server (EtcdCluster, member,
//! namespace and context names) is named by [`Dynamic`] and fetched by
//! `commands::complete`.

use clap::Command;

use crate::k8s::KubeSettings;

/// Cobra's `ShellCompDirective` bits that kubectl understands.
pub mod directive {
    /// Let the shell fall back to file names.
    pub const DEFAULT: u8 = 0;
    /// Completion failed; the shell offers nothing.
    pub const ERROR: u8 = 1;
    /// No space after the candidate (a `--flag=` prefix).
    pub const NO_SPACE: u8 = 2;
    /// Never fall back to file names.
    pub const NO_FILE_COMP: u8 = 4;
}

/// Values only the cluster can tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dynamic {
    /// EtcdCluster names in the namespace.
    Cluster,
    /// Member names of the cluster named on the line (or the only one).
    Member,
    /// Namespaces.
    Namespace,
    /// Contexts of the kubeconfig.
    Context,
}

/// What to offer for the word under the cursor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Offer {
    /// These candidates (already filtered by the typed prefix), each with a
    /// description, then `directive`.
    Fixed {
        candidates: Vec<(String, String)>,
        directive: u8,
    },
    /// Names fetched from the cluster, filtered by `prefix`, each written
    /// after `lead` (`--member=` when the value is glued to its flag).
    Dynamic {
        kind: Dynamic,
        prefix: String,
        lead: String,
    },
    /// File names: let the shell complete them.
    Files,
    /// A free value (a duration, a size, a URL): nothing to offer.
    Nothing,
}

/// What the words before the cursor said that a dynamic lookup needs: the
/// same kubeconfig, context and namespace the command would use, and the
/// cluster it names.
#[derive(Debug, Clone, Default)]
pub struct Scope {
    /// `--kubeconfig`, `--context`, `-n`, `--as`, `--as-group`.
    pub kube: KubeSettings,
    /// The CLUSTER positional.
    pub cluster: Option<String>,
    /// Every global flag typed (with its value), as typed: what a
    /// standalone lookup (`--endpoints`, TLS, credentials) parses.
    pub global: Vec<String>,
}

/// Which lookup an argument's values need, by the argument's id in `cli.rs`
/// (a test checks every id still exists).
pub fn dynamic_kind(id: &str) -> Option<Dynamic> {
    match id {
        "cluster" => Some(Dynamic::Cluster),
        "members" | "member" | "to" | "confirm_corrupt" => Some(Dynamic::Member),
        "namespace" => Some(Dynamic::Namespace),
        "context" => Some(Dynamic::Context),
        _ => None,
    }
}

/// Arguments whose value is a file.
fn takes_file(id: &str) -> bool {
    matches!(id, "kubeconfig" | "cacert" | "cert" | "key" | "file")
}

/// Decides what to offer for `words` (everything after `kubectl etcd`, the
/// last being the word under the cursor) against the command tree `root`,
/// and the scope a lookup would need.
pub fn offer(root: &Command, words: &[String]) -> (Offer, Scope) {
    let mut root = root.clone();
    root.build();
    let (before, current) = match words.split_last() {
        Some((last, rest)) => (rest, last.as_str()),
        None => (&[][..], ""),
    };
    let mut scope = Scope::default();
    let mut command = &root;
    let mut positionals = 0usize;
    let mut only_positionals = false;
    let mut pending: Option<clap::Arg> = None;

    for word in before {
        if let Some(arg) = pending.take() {
            record(&mut scope, arg.get_id().as_str(), word);
            if arg.is_global_set() {
                scope.global.push(word.clone());
            }
            continue;
        }
        if !only_positionals && word == "--" {
            only_positionals = true;
            continue;
        }
        if !only_positionals && word.starts_with('-') && word.len() > 1 {
            let (arg, glued) = find_flag(command, word);
            if let Some(arg) = arg {
                if arg.is_global_set() {
                    scope.global.push(word.clone());
                }
                match glued {
                    Some(value) => record(&mut scope, arg.get_id().as_str(), value),
                    None if takes_value(&arg) => pending = Some(arg),
                    None => {}
                }
            }
            continue;
        }
        if let Some(sub) = find_subcommand(command, word) {
            command = sub;
            positionals = 0;
            continue;
        }
        if let Some(arg) = positional(command, positionals) {
            record(&mut scope, arg.get_id().as_str(), word);
        }
        positionals += 1;
    }

    if let Some(arg) = pending {
        return (values_of(&arg, current, ""), scope);
    }
    if !only_positionals && current.starts_with('-') {
        if let Some((flag, value)) = current.split_once('=') {
            return match find_flag(command, flag).0 {
                Some(arg) if takes_value(&arg) => {
                    (values_of(&arg, value, &format!("{flag}=")), scope)
                }
                _ => (nothing(), scope),
            };
        }
        if !current.starts_with("--") {
            if let (Some(arg), Some(value)) = find_flag(command, current) {
                let lead = &current[..current.len() - value.len()];
                return (values_of(&arg, value, lead), scope);
            }
        }
        return (flags_of(command, current), scope);
    }
    if command.has_subcommands() {
        let candidates = command
            .get_subcommands()
            .filter(|s| !s.is_hide_set() && s.get_name().starts_with(current))
            .map(|s| (s.get_name().to_string(), about(s)))
            .collect();
        return (
            Offer::Fixed {
                candidates,
                directive: directive::NO_FILE_COMP,
            },
            scope,
        );
    }
    match positional(command, positionals) {
        Some(arg) => (values_of(&arg, current, ""), scope),
        None => (nothing(), scope),
    }
}

fn nothing() -> Offer {
    Offer::Fixed {
        candidates: Vec::new(),
        directive: directive::NO_FILE_COMP,
    }
}

fn about(command: &Command) -> String {
    command
        .get_about()
        .map(|a| a.to_string())
        .unwrap_or_default()
}

fn takes_value(arg: &clap::Arg) -> bool {
    arg.get_num_args().map(|n| n.takes_values()).unwrap_or(true)
        && !matches!(
            arg.get_action(),
            clap::ArgAction::SetTrue
                | clap::ArgAction::SetFalse
                | clap::ArgAction::Count
                | clap::ArgAction::Help
                | clap::ArgAction::HelpShort
                | clap::ArgAction::HelpLong
                | clap::ArgAction::Version
        )
}

/// The flag `word` names (`--long`, `--long=value`, `-s`, `-svalue`), and
/// the value glued to it.
fn find_flag<'a>(command: &Command, word: &'a str) -> (Option<clap::Arg>, Option<&'a str>) {
    if let Some(long) = word.strip_prefix("--") {
        let (name, value) = match long.split_once('=') {
            Some((n, v)) => (n, Some(v)),
            None => (long, None),
        };
        let arg = command
            .get_arguments()
            .find(|a| {
                a.get_long() == Some(name)
                    || a.get_all_aliases()
                        .is_some_and(|aliases| aliases.contains(&name))
            })
            .cloned();
        return (arg, value);
    }
    let mut chars = word.chars().skip(1);
    let Some(short) = chars.next() else {
        return (None, None);
    };
    let arg = command
        .get_arguments()
        .find(|a| a.get_short() == Some(short))
        .cloned();
    let rest = &word[1 + short.len_utf8()..];
    let glued = match (&arg, rest) {
        (_, "") => None,
        (Some(a), r) if takes_value(a) => Some(r.trim_start_matches('=')),
        _ => None,
    };
    (arg, glued)
}

fn find_subcommand<'c>(command: &'c Command, word: &str) -> Option<&'c Command> {
    command
        .get_subcommands()
        .find(|s| s.get_name() == word || s.get_all_aliases().any(|a| a == word))
}

/// The `index`th positional argument of `command`.
fn positional(command: &Command, index: usize) -> Option<clap::Arg> {
    let mut args: Vec<&clap::Arg> = command.get_positionals().collect();
    args.sort_by_key(|a| a.get_index().unwrap_or(usize::MAX));
    args.get(index).map(|a| (*a).clone())
}

/// Remembers what a lookup needs from a flag or positional already typed.
fn record(scope: &mut Scope, id: &str, value: &str) {
    let value = Some(value.to_string());
    let kube = &mut scope.kube;
    match id {
        "kubeconfig" => kube.kubeconfig = value,
        "context" => kube.context = value,
        "namespace" => kube.namespace = value,
        "as_user" => kube.impersonate = value,
        "as_group" => kube.impersonate_groups.extend(value),
        "cluster" => scope.cluster = value,
        _ => {}
    }
}

/// Candidates for a value of `arg`: its fixed values, a lookup, files, or
/// nothing.
fn values_of(arg: &clap::Arg, prefix: &str, lead: &str) -> Offer {
    let id = arg.get_id().as_str();
    if let Some(kind) = dynamic_kind(id) {
        return Offer::Dynamic {
            kind,
            prefix: prefix.to_string(),
            lead: lead.to_string(),
        };
    }
    if takes_file(id) {
        return Offer::Files;
    }
    let candidates: Vec<(String, String)> = arg
        .get_possible_values()
        .iter()
        .filter(|v| !v.is_hide_set() && v.get_name().starts_with(prefix))
        .map(|v| {
            (
                format!("{lead}{}", v.get_name()),
                v.get_help().map(|h| h.to_string()).unwrap_or_default(),
            )
        })
        .collect();
    if candidates.is_empty() && arg.get_possible_values().is_empty() {
        return Offer::Nothing;
    }
    Offer::Fixed {
        candidates,
        directive: directive::NO_FILE_COMP,
    }
}

/// The visible long flags of `command` that start with `prefix`; a flag
/// that takes a value is offered as `--flag=` with no space after, so the
/// value completes next.
fn flags_of(command: &Command, prefix: &str) -> Offer {
    let mut candidates: Vec<(String, String)> = Vec::new();
    for arg in command.get_arguments().filter(|a| !a.is_hide_set()) {
        let Some(long) = arg.get_long() else { continue };
        let name = format!("--{long}");
        if !name.starts_with(prefix) {
            continue;
        }
        let help = arg
            .get_help()
            .map(|h| h.to_string())
            .unwrap_or_default()
            .lines()
            .next()
            .unwrap_or_default()
            .to_string();
        candidates.push((name, help));
    }
    candidates.sort();
    Offer::Fixed {
        candidates,
        directive: directive::NO_FILE_COMP,
    }
}

/// `completion bash`: a thin bash function that asks `__complete` (this
/// module's engine, the one kubectl's plugin completion runs) for every
/// answer, so the standalone binary completes exactly as `kubectl etcd`
/// does: flags and fixed values from the definition, EtcdCluster and member
/// names from the cluster (etcd's MemberList with `--endpoints`), and file
/// names where a file is wanted (`snapshot save FILE`, `--cacert`). The
/// words are read from the line up to the cursor, split at blanks only
/// (bash also splits its own at `=` and `:`, which would cut
/// `--member=m0` and URLs apart); the part of the word bash replaces is
/// cut from each candidate. Cobra's directives: 1 error (nothing), 2 no
/// space after, 4 no file names; with none, no candidates means file names.
pub const BASH_SCRIPT: &str = r#"# bash completion for kubectl-etcd (from `kubectl-etcd completion bash`).
# Every answer comes from `kubectl-etcd __complete WORDS...`, which kubectl's
# plugin completion also runs for `kubectl etcd <TAB>`: flags and their values,
# EtcdCluster and member names, and file names where a file is wanted.

_kubectl_etcd() {
    local cur="${COMP_WORDS[COMP_CWORD]}"
    # Right after `--flag=` (or `:`), bash's current word is the `=` that
    # COMP_WORDBREAKS split off, while readline replaces the empty text
    # after it.
    if [[ -n "$cur" && "$cur" != *[!=:]* ]]; then
        cur=""
    fi
    local line last out entry strip directive=0
    local -a words=() found=()
    COMPREPLY=()
    if [[ -n "${COMP_LINE+set}" ]]; then
        line="${COMP_LINE:0:COMP_POINT}"
        read -r -a words <<<"$line"
        words=("${words[@]:1}")
        if [[ -z "$line" || "$line" =~ [[:space:]]$ ]]; then
            words+=("")
        fi
    else
        words=("${COMP_WORDS[@]:1:COMP_CWORD}")
    fi
    if [[ ${#words[@]} -eq 0 ]]; then
        words=("")
    fi
    last="${words[${#words[@]}-1]}"
    out="$("$1" __complete "${words[@]}" 2>/dev/null)" || return 0
    while IFS= read -r entry; do
        case "$entry" in
            :*) directive="${entry#:}" ;;
            "") ;;
            *) found+=("${entry%%$'\t'*}") ;;
        esac
    done <<<"$out"
    if (( directive & 1 )); then
        return 0
    fi
    # bash replaces only its own last word, which may be the tail of ours
    # (after `=` or `:`): offer the candidates from there.
    strip="${last%"$cur"}"
    for entry in "${found[@]}"; do
        if [[ "$entry" == "$strip"* ]]; then
            COMPREPLY+=("${entry#"$strip"}")
        fi
    done
    if (( directive & 2 )); then
        compopt -o nospace 2>/dev/null
    fi
    if [[ ${#found[@]} -eq 0 ]] && (( (directive & 4) == 0 )); then
        compopt -o filenames 2>/dev/null
        mapfile -t COMPREPLY < <(compgen -f -- "$cur")
    fi
    return 0
}

if [[ "${BASH_VERSINFO[0]}" -eq 4 && "${BASH_VERSINFO[1]}" -ge 4 || "${BASH_VERSINFO[0]}" -gt 4 ]]; then
    complete -o nosort -F _kubectl_etcd kubectl-etcd
else
    complete -F _kubectl_etcd kubectl-etcd
fi
"#;

/// Cobra's answer: candidates, then the directive line.
pub fn render(candidates: &[(String, String)], directive: u8) -> String {
    let mut out = String::new();
    for (value, help) in candidates {
        let help = first_sentence(help);
        if help.is_empty() {
            out.push_str(value);
        } else {
            out.push_str(&format!("{value}\t{help}"));
        }
        out.push('\n');
    }
    out.push_str(&format!(":{directive}\n"));
    out
}

/// A description short enough for a completion menu: its first sentence,
/// on one line.
fn first_sentence(help: &str) -> String {
    let line = help.split_whitespace().collect::<Vec<_>>().join(" ");
    match line.find(". ") {
        Some(end) => line[..end].to_string(),
        None => line.trim_end_matches('.').to_string(),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use clap::CommandFactory;

    fn root() -> Command {
        crate::cli::Cli::command()
    }

    fn ask(line: &[&str]) -> (Offer, Scope) {
        let words: Vec<String> = line.iter().map(|s| s.to_string()).collect();
        offer(&root(), &words)
    }

    fn names(offer: &Offer) -> Vec<String> {
        match offer {
            Offer::Fixed { candidates, .. } => candidates.iter().map(|(v, _)| v.clone()).collect(),
            other => panic!("not fixed: {other:?}"),
        }
    }

    #[test]
    fn what_each_position_offers() {
        let dynamic = |kind, prefix: &str, lead: &str| Offer::Dynamic {
            kind,
            prefix: prefix.into(),
            lead: lead.into(),
        };
        let table: Vec<(&[&str], Offer)> = vec![
            (&["status", ""], dynamic(Dynamic::Cluster, "", "")),
            (&["status", "et"], dynamic(Dynamic::Cluster, "et", "")),
            (
                &["-n", "prod", "defrag", "e"],
                dynamic(Dynamic::Cluster, "e", ""),
            ),
            (
                &["defrag", "etcd", "--member", ""],
                dynamic(Dynamic::Member, "", ""),
            ),
            (
                &["defrag", "--member=et"],
                dynamic(Dynamic::Member, "et", "--member="),
            ),
            (
                &["move-leader", "--to", "x"],
                dynamic(Dynamic::Member, "x", ""),
            ),
            (
                &["alarm", "disarm", "--confirm-corrupt", ""],
                dynamic(Dynamic::Member, "", ""),
            ),
            (&["status", "-n", ""], dynamic(Dynamic::Namespace, "", "")),
            (
                &["status", "--namespace=k"],
                dynamic(Dynamic::Namespace, "k", "--namespace="),
            ),
            (&["--context", ""], dynamic(Dynamic::Context, "", "")),
            (
                &["traffic", "set", "PreferClose", ""],
                dynamic(Dynamic::Cluster, "", ""),
            ),
            (&["status", "--kubeconfig", ""], Offer::Files),
            (&["snapshot", "save", ""], Offer::Files),
            (&["snapshot", "save", "back"], Offer::Files),
            (&["snapshot", "status", ""], Offer::Files),
            (&["snapshot", "usage", ""], Offer::Files),
            (&["usage", ""], dynamic(Dynamic::Cluster, "", "")),
            (&["status", "--cacert="], Offer::Files),
            (&["defrag", "--timeout", ""], Offer::Nothing),
            (&["status", "etcd", ""], nothing()),
            (&["version", ""], nothing()),
        ];
        for (line, want) in table {
            assert_eq!(ask(line).0, want, "{line:?}");
        }
    }

    #[test]
    fn a_standalone_lookup_gets_the_global_flags_as_typed() {
        let (offer, scope) = ask(&[
            "defrag",
            "--endpoints",
            "http://127.0.0.1:2379",
            "--cacert=ca.pem",
            "--dry-run",
            "-o",
            "json",
            "--member",
            "",
        ]);
        assert_eq!(
            offer,
            Offer::Dynamic {
                kind: Dynamic::Member,
                prefix: String::new(),
                lead: String::new()
            }
        );
        assert_eq!(
            scope.global,
            [
                "--endpoints",
                "http://127.0.0.1:2379",
                "--cacert=ca.pem",
                "-o",
                "json"
            ]
        );
    }

    #[test]
    fn fixed_values_come_from_the_clap_definition() {
        assert_eq!(
            names(&ask(&["status", "-o", ""]).0),
            ["table", "wide", "json", "yaml"]
        );
        assert_eq!(names(&ask(&["status", "-oj"]).0), ["-ojson"]);
        assert_eq!(names(&ask(&["status", "-o", "j"]).0), ["json"]);
        assert_eq!(names(&ask(&["status", "--output=y"]).0), ["--output=yaml"]);
        assert_eq!(
            names(&ask(&["traffic", "set", ""]).0),
            ["PreferClose", "PreferSameZone", "PreferSameNode"]
        );
        assert_eq!(
            names(&ask(&["traffic", "set", "PreferSame"]).0),
            ["PreferSameZone", "PreferSameNode"]
        );
        assert_eq!(
            names(&ask(&["defrag", "--move-leader", "a"]).0),
            ["auto", "always"]
        );
        assert_eq!(names(&ask(&["--connect", "p"]).0), ["port-forward"]);
    }

    #[test]
    fn subcommands_and_flags() {
        let top = names(&ask(&[""]).0);
        for want in [
            "status",
            "members",
            "defrag",
            "alarm",
            "move-leader",
            "traffic",
            "completion",
            "version",
        ] {
            assert!(top.contains(&want.to_string()), "{want} in {top:?}");
        }
        assert_eq!(names(&ask(&["de"]).0), ["defrag"]);
        assert_eq!(
            names(&ask(&["traffic", ""]).0),
            ["show", "set", "clear", "help"]
        );
        assert_eq!(names(&ask(&["alarm", "d"]).0), ["disarm"]);
        let flags = names(&ask(&["defrag", "--dry"]).0);
        assert_eq!(flags, ["--dry-run"]);
        let all = names(&ask(&["defrag", "etcd", "--"]).0);
        for want in [
            "--yes",
            "--move-leader",
            "--member",
            "--kubeconfig",
            "--context",
            "--namespace",
            "--output",
        ] {
            assert!(all.contains(&want.to_string()), "{want} in {all:?}");
        }
        // Flags of another command are not offered.
        assert!(!names(&ask(&["status", "--"]).0).contains(&"--yes".to_string()));
    }

    #[test]
    fn the_scope_is_what_the_command_would_use() {
        let (_, scope) = ask(&[
            "--kubeconfig=/k",
            "defrag",
            "--context",
            "c1",
            "-n",
            "prod",
            "--dry-run",
            "etcd-main",
            "--member",
            "",
        ]);
        assert_eq!(scope.kube.kubeconfig.as_deref(), Some("/k"));
        assert_eq!(scope.kube.context.as_deref(), Some("c1"));
        assert_eq!(scope.kube.namespace.as_deref(), Some("prod"));
        assert_eq!(scope.kube.impersonate, None);
        assert_eq!(scope.cluster.as_deref(), Some("etcd-main"));
        let (_, scope) = ask(&[
            "traffic",
            "set",
            "PreferClose",
            "etcd-b",
            "-nfoo",
            "--as",
            "u",
            "--as-group",
            "g",
            "",
        ]);
        assert_eq!(scope.kube.impersonate.as_deref(), Some("u"));
        assert_eq!(scope.kube.impersonate_groups, ["g"]);
        assert_eq!(scope.cluster.as_deref(), Some("etcd-b"));
        assert_eq!(scope.kube.namespace.as_deref(), Some("foo"));
    }

    #[test]
    fn every_dynamic_id_exists_in_the_cli() {
        let mut root = root();
        root.build();
        let mut ids = std::collections::BTreeSet::new();
        fn walk(c: &Command, ids: &mut std::collections::BTreeSet<String>) {
            for a in c.get_arguments() {
                ids.insert(a.get_id().to_string());
            }
            for s in c.get_subcommands() {
                walk(s, ids);
            }
        }
        walk(&root, &mut ids);
        for id in [
            "cluster",
            "members",
            "member",
            "file",
            "to",
            "confirm_corrupt",
            "namespace",
            "context",
            "kubeconfig",
            "cacert",
            "cert",
            "key",
            "as_user",
            "as_group",
        ] {
            assert!(ids.contains(id), "{id} is not an argument id any more");
        }
    }

    #[test]
    fn render_is_cobras_format() {
        let out = render(
            &[
                ("json".into(), "".into()),
                (
                    "defrag".into(),
                    "Health-gated, follower-first defragmentation. More.".into(),
                ),
            ],
            directive::NO_FILE_COMP,
        );
        assert_eq!(
            out,
            "json\ndefrag\tHealth-gated, follower-first defragmentation\n:4\n"
        );
    }
}
