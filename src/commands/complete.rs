//! `kubectl_complete-etcd` / `kubectl-etcd __complete WORDS…`: answers
//! kubectl's plugin completion. `complete::offer` decides what the word
//! under the cursor is; this fetches the names only the cluster knows.
//!
//! Completion runs on every TAB, so it never prompts and gives up after a
//! short deadline: a slow or unreachable API server or etcd means no
//! candidates (Cobra's error directive), not a hung shell. Member names
//! come from the EtcdMembers in plugin mode, and from etcd's MemberList
//! when the words typed (or `ETCDCTL_ENDPOINTS`) select standalone mode,
//! with the same flags the command would use; a user given without a
//! password gets no names rather than a prompt.

use std::time::Duration;

use crate::complete::{directive, offer, render, Dynamic, Offer, Scope};
use crate::k8s;
use crate::session;
use crate::source::Source;

/// How long a lookup may take before the shell gets nothing.
const DEADLINE: Duration = Duration::from_secs(3);

/// Writes Cobra's answer for `words` to stdout. A lookup error is Cobra's
/// error directive, its cause on stderr only with
/// `KUBECTL_ETCD_COMPLETE_DEBUG` set (kubectl passes a completer's stderr
/// through to the shell).
pub async fn run(words: &[String]) -> crate::error::Result<crate::error::ExitStatus> {
    crate::output::emit(&answer(words).await)?;
    Ok(crate::error::ExitStatus::Success)
}

/// Cobra's answer for `words`.
pub async fn answer(words: &[String]) -> String {
    let (offer, scope) = offer(&crate::settings::command::command_tree(), words);
    match offer {
        Offer::Fixed {
            candidates,
            directive,
        } => render(&candidates, directive),
        Offer::Files => render(&[], directive::DEFAULT),
        Offer::Nothing => render(&[], directive::NO_FILE_COMP),
        Offer::Dynamic { kind, prefix, lead } => {
            match tokio::time::timeout(DEADLINE, lookup(kind, &scope)).await {
                Ok(Ok(names)) => {
                    let candidates: Vec<(String, String)> = names
                        .into_iter()
                        .filter(|n| n.starts_with(&prefix))
                        .map(|n| (format!("{lead}{n}"), String::new()))
                        .collect();
                    render(&candidates, directive::NO_FILE_COMP)
                }
                Ok(Err(e)) => {
                    debug(&e.to_string());
                    render(&[], directive::ERROR)
                }
                Err(_) => {
                    debug(&format!("no answer within {DEADLINE:?}"));
                    render(&[], directive::ERROR)
                }
            }
        }
    }
}

fn debug(why: &str) {
    if std::env::var_os("KUBECTL_ETCD_COMPLETE_DEBUG").is_some() {
        crate::logging::message(&format!("completion: {why}"));
    }
}

/// The names of `kind` in `scope`, sorted.
async fn lookup(kind: Dynamic, scope: &Scope) -> crate::error::Result<Vec<String>> {
    if kind == Dynamic::Context {
        return contexts(scope);
    }
    if kind == Dynamic::Member {
        if let Some(names) = standalone_members(scope).await? {
            return Ok(names);
        }
    }
    let kube = k8s::connect(&scope.kube).await?;
    let namespace = kube.default_namespace.clone();
    let mut names = match kind {
        Dynamic::Cluster => source_of(scope)?.names(&kube, &namespace).await?,
        Dynamic::Member => {
            let source = source_of(scope)?;
            let (namespace, cluster) = source
                .choose(&kube, &namespace, scope.cluster.as_deref())
                .await?;
            source
                .declared_members(&kube, &namespace, &cluster)
                .await?
                .into_iter()
                .map(|m| m.name)
                .collect()
        }
        Dynamic::Namespace => k8s::list_namespaces(&kube).await?,
        Dynamic::Context => Vec::new(),
    };
    names.sort();
    Ok(names)
}

/// The kind of cluster the global flags typed reach.
fn source_of(scope: &Scope) -> crate::error::Result<Source> {
    let mut argv = vec!["kubectl-etcd".to_string()];
    argv.extend(scope.global.iter().cloned());
    argv.push("status".into());
    let reach = crate::settings::command::global_of_words(argv)?.reach;
    Ok(Source::of(&reach))
}

/// Member names from etcd's MemberList when the global flags typed (or
/// their `ETCDCTL_*` variables) select standalone mode; `None` in plugin
/// mode. Members added but never started have no name and are left out.
async fn standalone_members(scope: &Scope) -> crate::error::Result<Option<Vec<String>>> {
    let mut argv = vec!["kubectl-etcd".to_string()];
    argv.extend(scope.global.iter().cloned());
    argv.push("members".into());
    argv.extend(scope.cluster.iter().cloned());
    let reach = crate::settings::command::global_of_words(argv)?.reach;
    if session::plugin_mode(&reach, scope.cluster.as_deref(), false) {
        return Ok(None);
    }
    if password_missing(&scope.global, |var| std::env::var(var).ok()) {
        return Err(crate::error::Error::usage(
            "a user without a password: completion never asks for one",
        ));
    }
    let session = session::open(&reach, None).await?;
    let (clients, target) = (&session.clients, &session.target);
    let (_, list) = crate::etcd::take::member_list(clients, target).await?;
    let mut names: Vec<String> = list
        .into_iter()
        .map(|m| m.name)
        .filter(|n| !n.is_empty())
        .collect();
    names.sort();
    Ok(Some(names))
}

/// Whether the words typed (or the `ETCDCTL_*` variables, read through
/// `env`) name an etcd user without a password: opening the cluster would
/// then ask for one, which completion must never do. Pure.
fn password_missing(global: &[String], env: impl Fn(&str) -> Option<String>) -> bool {
    let mut user: Option<&str> = None;
    let mut password = false;
    let mut words = global.iter().map(String::as_str);
    while let Some(word) = words.next() {
        let (flag, glued) = match word.split_once('=') {
            Some((f, v)) => (f, Some(v)),
            None => (word, None),
        };
        match flag {
            "--user" => user = glued.or_else(|| words.next()),
            "--password" => password = true,
            _ => {}
        }
    }
    let password = password || env("ETCDCTL_PASSWORD").is_some();
    match user.map(str::to_string).or_else(|| env("ETCDCTL_USER")) {
        Some(u) => !u.contains(':') && !password,
        None => false,
    }
}

/// Context names of the kubeconfig the command would read.
fn contexts(scope: &Scope) -> crate::error::Result<Vec<String>> {
    let config = k8s::read_kubeconfig(scope.kube.kubeconfig.as_deref())?;
    let mut names: Vec<String> = config
        .map(|k| k.contexts.into_iter().map(|c| c.name).collect())
        .unwrap_or_default();
    names.sort();
    Ok(names)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_user_without_a_password_is_never_asked_for_one() {
        let words = |w: &[&str]| w.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let env = |vars: &'static [(&'static str, &'static str)]| {
            move |v: &str| {
                vars.iter()
                    .find(|(k, _)| *k == v)
                    .map(|(_, value)| value.to_string())
            }
        };
        type Vars = &'static [(&'static str, &'static str)];
        let cases: Vec<(Vec<String>, Vars, bool)> = vec![
            (words(&[]), &[], false),
            (words(&["--user", "root"]), &[], true),
            (words(&["--user=root"]), &[], true),
            (words(&["--user", "root:secret"]), &[], false),
            (words(&["--user", "root", "--password", "x"]), &[], false),
            (words(&["--user", "root", "--password=x"]), &[], false),
            (
                words(&["--user", "root"]),
                &[("ETCDCTL_PASSWORD", "x")],
                false,
            ),
            (words(&[]), &[("ETCDCTL_USER", "root")], true),
            (words(&[]), &[("ETCDCTL_USER", "root:x")], false),
            (
                words(&["--password", "x"]),
                &[("ETCDCTL_USER", "root")],
                false,
            ),
        ];
        for (w, vars, want) in cases {
            assert_eq!(password_missing(&w, env(vars)), want, "{w:?} {vars:?}");
        }
    }
}
