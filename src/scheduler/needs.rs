//! What evaluating a pod under a profile needs from the cluster, decided from the facts the
//! plugins themselves read, so that what is fetched and what is evaluated cannot drift apart.
//! The live client reads exactly what [`needs`] says; what no source gives is
//! [`not_evaluated`].

use super::profile::{Profile, is_implemented};
use super::storage;
use crate::state::needs::{Controller, NamespaceLabels, Needs};
use crate::state::resources::normalized_image_name;
use crate::state::{OwnerKind, Pod};

/// What evaluating `pod` under `profile` reads besides the nodes and pods.
pub fn needs(pod: &Pod, profile: &Profile) -> Needs {
    let mut needs = Needs::default();
    if runs(profile, "ImageLocality") {
        needs.images = pod
            .template
            .resources
            .images
            .iter()
            .map(|i| normalized_image_name(i))
            .collect();
    }
    if runs(profile, "InterPodAffinity") {
        // Existing pods' terms count too (their anti-affinity filters, their preferences
        // score), and they are known only once the pods are read.
        needs.namespace_labels = if pod.affinity_terms().any(|t| t.needs_namespace_labels()) {
            NamespaceLabels::Yes
        } else {
            NamespaceLabels::ForExistingTerms
        };
    }
    // `helper.DefaultSelector`: the Services of the pod's namespace and its controller, for
    // a pod without constraints of its own when the profile has default constraints.
    let default_spreading = runs(profile, "PodTopologySpread")
        && pod.template.topology_spread.is_empty()
        && !profile.pod_topology_spread.default_constraints.is_empty();
    if default_spreading {
        needs.services.insert(pod.id.namespace.to_string());
        if let Some(owner) = pod.controller.as_deref()
            && let Some(kind) = OwnerKind::of(owner)
        {
            needs.controllers.insert(Controller {
                namespace: pod.id.namespace.to_string(),
                kind,
                name: owner.name.clone(),
            });
        }
    }
    needs
}

/// The Filter and Score plugins of `profile` shown as not evaluated for `pod`: those this
/// version does not model, save the storage plugins whose PreFilter skips the pod (they pass,
/// exactly, as `instantiate` decides from the same [`storage::Kind::relevant`]).
pub fn not_evaluated<'a>(pod: &Pod, profile: &'a Profile) -> Vec<&'a str> {
    let skips = |n: &str| storage::Kind::from_name(n).is_some_and(|k| k.relevant(pod).is_none());
    let mut names: Vec<&str> = profile
        .filter
        .iter()
        .chain(profile.score.iter().map(|(n, _)| n))
        .map(String::as_str)
        .filter(|n| !is_implemented(n) && !skips(n))
        .collect();
    names.sort();
    names.dedup();
    names
}

/// Whether the plugin runs at any extension point that reads the cluster.
fn runs(profile: &Profile, plugin: &str) -> bool {
    profile
        .pre_filter
        .iter()
        .chain(&profile.filter)
        .chain(&profile.pre_score)
        .chain(profile.score.iter().map(|(n, _)| n))
        .any(|n| n == plugin)
}
