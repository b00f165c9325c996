//! `kubectl_complete-etcd` / `kubectl-etcd __complete WORDS…`: answers
//! kubectl's plugin completion. `complete::offer` decides what the word
//! under the cursor is; this fetches the names only the cluster knows.
//!
//! Completion runs on every TAB, so it never prompts, never dials etcd, and
//! gives up after a short deadline: a slow or unreachable API server means
//! no candidates (Cobra's error directive), not a hung shell.

use std::time::Duration;

use clap::CommandFactory;

use crate::complete::{directive, offer, render, Dynamic, Offer, Scope};
use crate::k8s::{self, Kube};

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
    let (offer, scope) = offer(&crate::cli::Cli::command(), words);
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
    let kube = k8s::connect(&scope.kube).await?;
    let namespace = kube.default_namespace.clone();
    let mut names = match kind {
        Dynamic::Cluster => cluster_names(&kube, &namespace).await?,
        Dynamic::Member => {
            let cluster = k8s::choose_cluster(&kube, &namespace, scope.cluster.as_deref()).await?;
            k8s::list_members(&kube, &namespace, &cluster)
                .await?
                .into_iter()
                .filter_map(|m| m.metadata.name)
                .collect()
        }
        Dynamic::Namespace => k8s::list_namespaces(&kube).await?,
        Dynamic::Context => Vec::new(),
    };
    names.sort();
    Ok(names)
}

async fn cluster_names(kube: &Kube, namespace: &str) -> crate::error::Result<Vec<String>> {
    Ok(k8s::list_clusters(kube, Some(namespace), None)
        .await?
        .into_iter()
        .filter_map(|c| c.metadata.name)
        .collect())
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
