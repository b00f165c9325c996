//! The reads every kind makes alike of its cluster object, over its type:
//! a sorted LIST (by namespace, or all) and a GET whose "not found" names
//! the clusters of that kind that do exist.

use std::fmt::Debug;

use kube::api::{Api, ListParams};
use kube::core::NamespaceResourceScope;
use kube::Resource;
use serde::de::DeserializeOwned;

use crate::error::{Error, Result};
use crate::k8s::{describe, is_not_found, Kube};

/// A kind's cluster object, and how messages name it (`noun`, `nouns`).
pub(crate) trait ClusterObject:
    Resource<Scope = NamespaceResourceScope, DynamicType = ()> + Clone + DeserializeOwned + Debug
{
    const NOUN: &'static str;
    const NOUNS: &'static str;
}

/// The clusters of kind `K` in `namespace` (every namespace when `None`),
/// sorted by namespace and name; only those matching the label `selector`
/// when one is given (the API server parses it: a malformed one is its 400).
pub(crate) async fn list<K: ClusterObject>(
    kube: &Kube,
    namespace: Option<&str>,
    selector: Option<&str>,
) -> Result<Vec<K>> {
    let api: Api<K> = match namespace {
        Some(ns) => Api::namespaced(kube.client.clone(), ns),
        None => Api::all(kube.client.clone()),
    };
    let mut where_ = match namespace {
        Some(ns) => format!("in namespace {ns}"),
        None => "in all namespaces".to_string(),
    };
    let mut params = ListParams::default();
    if let Some(selector) = selector {
        params = params.labels(selector);
        where_.push_str(&format!(" with labels {selector}"));
    }
    let mut list = api
        .list(&params)
        .await
        .map_err(|e| describe(kube, &format!("list {} {where_}", K::NOUNS), e))?
        .items;
    list.sort_by(|a, b| {
        (a.meta().namespace.as_deref(), a.meta().name.as_deref())
            .cmp(&(b.meta().namespace.as_deref(), b.meta().name.as_deref()))
    });
    Ok(list)
}

/// Gets cluster `namespace/name` of kind `K`; "not found" names the
/// clusters of that kind that do exist there.
pub(crate) async fn get<K: ClusterObject>(kube: &Kube, namespace: &str, name: &str) -> Result<K> {
    let api: Api<K> = Api::namespaced(kube.client.clone(), namespace);
    match api.get(name).await {
        Ok(c) => Ok(c),
        Err(e) if is_not_found(&e) => {
            let others: Vec<String> = list::<K>(kube, Some(namespace), None)
                .await
                .map(|l| {
                    l.into_iter()
                        .filter_map(|c| c.meta().name.clone())
                        .collect()
                })
                .unwrap_or_default();
            let hint = if others.is_empty() {
                format!("there is no {} in namespace {namespace}", K::NOUN)
            } else {
                format!("{} there: {}", K::NOUNS, others.join(", "))
            };
            Err(Error::Resolve(format!(
                "{} {namespace}/{name} not found ({hint})",
                K::NOUN
            )))
        }
        Err(e) => Err(describe(
            kube,
            &format!("get {} {namespace}/{name}", K::NOUN),
            e,
        )),
    }
}
