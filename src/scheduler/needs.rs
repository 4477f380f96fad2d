//! What evaluating a pod under a profile needs from the cluster, decided from the facts the
//! plugins themselves read, so that what is fetched and what is evaluated cannot drift apart.
//! The live client reads exactly what [`needs`] says; what no source gives is
//! [`not_evaluated`].

use super::node_volume_limits::NodeVolumeLimits;
use super::plugin::Input;
use super::plugin_id::PluginId;
use super::pod_topology_spread::default_spreading_applies;
use super::profile::{Profile, is_implemented};
use super::storage::{self, Gap};
use super::volume_binding::VolumeBinding;
use super::volume_restrictions::VolumeRestrictions;
use super::volume_zone::VolumeZone;
use crate::state::needs::{AnyPod, Controller, NamespaceLabels, Needs};
use crate::state::resources::normalized_image_name;
use crate::state::{OwnerKind, Pod};

/// What evaluating `pod` under `profile` reads besides the nodes and pods.
pub fn needs(pod: &Pod, profile: &Profile) -> Needs {
    let mut needs = Needs::default();
    if runs(profile, &PluginId::ImageLocality) {
        needs.images = pod
            .template
            .resources
            .images
            .iter()
            .map(|i| normalized_image_name(i))
            .collect();
    }
    if runs(profile, &PluginId::InterPodAffinity) {
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
    let default_spreading = runs(profile, &PluginId::PodTopologySpread)
        && default_spreading_applies(pod, &profile.pod_topology_spread);
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
    // DefaultPreemption re-adds victims a PodDisruptionBudget protects first. Whether it
    // runs (no node fits) is known only after the evaluation; a pod that never preempts
    // needs none.
    needs.disruption_budgets =
        profile.post_filter.contains(&PluginId::DefaultPreemption) && !pod.template.preempt_never;
    // Only the storage plugins whose PreFilter would not skip the pod read storage objects.
    needs.storage = [
        storage::Kind::VolumeRestrictions,
        storage::Kind::NodeVolumeLimits,
        storage::Kind::VolumeBinding,
        storage::Kind::VolumeZone,
    ]
    .into_iter()
    .any(|k| k.relevant(pod).is_some() && runs(profile, &k.id()));
    needs.dra = pod.template.has_resource_claims && runs(profile, &PluginId::DynamicResources);
    needs
}

/// What any pod of `scope` may need, for commands whose pods are known only once read
/// (`explain -l`, a workload's pods, `audit`): every node image and the scope's Services and
/// controllers, as a snapshot holds them, so that the answer is the snapshot's; namespace
/// labels as the existing terms need them; PodDisruptionBudgets for preemption; storage
/// objects for the volume plugins. A profile is chosen per pod, after the lists.
pub fn needs_of_any_pod(scope: AnyPod) -> Needs {
    Needs {
        namespace_labels: NamespaceLabels::ForExistingTerms,
        disruption_budgets: true,
        storage: true,
        any_pod: scope,
        ..Needs::default()
    }
}

/// Each storage plugin of `profile` that is not evaluated for the pod, and why.
pub fn storage_gaps(input: Input<'_>, profile: &Profile) -> Vec<(PluginId, Gap)> {
    let mut gaps = Vec::new();
    let mut add = |id: PluginId, gap: Option<Gap>| {
        if let Some(gap) = gap.filter(|_| runs(profile, &id)) {
            gaps.push((id, gap));
        }
    };
    add(
        PluginId::VolumeRestrictions,
        VolumeRestrictions::new(input, profile.gates.release).gap(),
    );
    add(
        PluginId::NodeVolumeLimits,
        NodeVolumeLimits::new(input).gap(),
    );
    add(
        PluginId::VolumeBinding,
        VolumeBinding::new(input, &profile.gates).gap(),
    );
    add(PluginId::VolumeZone, VolumeZone::new(input).gap());
    gaps
}

/// The Filter and Score plugins of `profile` shown as not evaluated for `pod`: those this
/// version does not model, save a storage plugin whose PreFilter skips the pod (it passes,
/// exactly, as `instantiate` decides from the same [`storage::Kind::relevant`]). A modelled
/// plugin that cannot run on its input says so itself (`Plugin::unavailable`).
pub fn not_evaluated(pod: &Pod, profile: &Profile) -> Vec<PluginId> {
    let skips = |n: &PluginId| storage::Kind::of(n).is_some_and(|k| k.relevant(pod).is_none());
    let mut names: Vec<PluginId> = profile
        .filter
        .iter()
        .chain(profile.score.iter().map(|(n, _)| n))
        .filter(|n| !is_implemented(n) && !skips(n))
        .cloned()
        .collect();
    names.sort();
    names.dedup();
    names
}

/// Whether the plugin runs at any extension point that reads the cluster.
fn runs(profile: &Profile, plugin: &PluginId) -> bool {
    profile
        .pre_filter
        .iter()
        .chain(&profile.filter)
        .chain(&profile.pre_score)
        .chain(profile.score.iter().map(|(n, _)| n))
        .any(|n| n == plugin)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scheduler::config::FeatureGates;
    use serde_json::{Value, json};

    fn pod(spec: Value, owner: Option<Value>) -> Pod {
        let mut metadata = json!({"name": "p", "namespace": "shop"});
        if let Some(o) = owner {
            metadata["ownerReferences"] = json!([o]);
        }
        let p: k8s_openapi::api::core::v1::Pod =
            serde_json::from_value(json!({"metadata": metadata, "spec": spec})).expect("pod");
        Pod::from_api(&p)
    }

    fn profile(config: Value) -> Profile {
        Profile::from_config(
            &config,
            "default-scheduler",
            FeatureGates::default(),
            "test",
        )
        .expect("profile")
    }

    fn without(plugin: &str) -> Profile {
        profile(json!({
            "apiVersion": "kubescheduler.config.k8s.io/v1",
            "kind": "KubeSchedulerConfiguration",
            "profiles": [{"plugins": {"multiPoint": {"disabled": [{"name": plugin}]}}}]
        }))
    }

    fn replica_set() -> Value {
        json!({"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-1", "uid": "u",
               "controller": true})
    }

    /// Under the default profile: the pod's images, namespaces only if an existing term
    /// needs them, and the Services and controller default spreading selects by.
    #[test]
    fn the_default_profile_needs_images_workloads_and_maybe_namespaces() {
        let p = pod(
            json!({"containers": [{"name": "c", "image": "nginx"}]}),
            Some(replica_set()),
        );
        let n = needs(&p, &Profile::default_profile(FeatureGates::default()));
        assert_eq!(n.images.len(), 1);
        assert_eq!(n.namespace_labels, NamespaceLabels::ForExistingTerms);
        assert_eq!(n.services.iter().collect::<Vec<_>>(), ["shop"]);
        assert_eq!(
            n.controllers.iter().collect::<Vec<_>>(),
            [&Controller {
                namespace: "shop".into(),
                kind: OwnerKind::ReplicaSet,
                name: "web-1".into(),
            }]
        );
    }

    /// A plugin left out of the profile needs nothing read for it.
    #[test]
    fn a_disabled_plugin_needs_nothing() {
        let p = pod(
            json!({"containers": [{"name": "c", "image": "nginx"}]}),
            Some(replica_set()),
        );
        assert!(needs(&p, &without("ImageLocality")).images.is_empty());
        assert_eq!(
            needs(&p, &without("InterPodAffinity")).namespace_labels,
            NamespaceLabels::No
        );
        assert!(!needs(&p, &without("PodTopologySpread")).workloads());
    }

    /// Constraints of its own replace the defaults; a namespaceSelector needs the labels.
    #[test]
    fn own_constraints_and_namespace_selectors() {
        let p = pod(
            json!({
                "containers": [{"name": "c", "image": "nginx"}],
                "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "zone",
                    "whenUnsatisfiable": "DoNotSchedule", "labelSelector": {}}],
                "affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                    {"topologyKey": "zone", "labelSelector": {},
                     "namespaceSelector": {"matchLabels": {"team": "a"}}}]}}
            }),
            Some(replica_set()),
        );
        let n = needs(&p, &Profile::default_profile(FeatureGates::default()));
        assert!(!n.workloads());
        assert_eq!(n.namespace_labels, NamespaceLabels::Yes);
    }

    /// The storage plugins are evaluated: their objects are read only for a pod whose volumes
    /// one of them checks, and without them they are not evaluated, with why.
    #[test]
    fn storage_objects_are_needed_only_for_pods_with_volumes() {
        let profile = Profile::default_profile(FeatureGates::default());
        let plain = pod(
            json!({"containers": [{"name": "c", "image": "nginx"}]}),
            None,
        );
        assert!(not_evaluated(&plain, &profile).is_empty());
        assert!(!needs(&plain, &profile).storage);
        let claims = pod(
            json!({"containers": [{"name": "c", "image": "nginx"}],
                   "volumes": [{"name": "d", "persistentVolumeClaim": {"claimName": "d"}}]}),
            None,
        );
        assert!(not_evaluated(&claims, &profile).is_empty());
        assert!(needs(&claims, &profile).storage);
        // DynamicResources is evaluated: a pod with claims is not told otherwise.
        let devices = pod(
            json!({"containers": [{"name": "c", "image": "nginx"}],
                   "resourceClaims": [{"name": "gpu", "resourceClaimName": "gpu"}]}),
            None,
        );
        assert!(not_evaluated(&devices, &profile).is_empty());
        let state = crate::state::ClusterState::default();
        let input = |pod| Input {
            pod,
            state: &state,
            exclude: None,
            removed: &[],
        };
        assert!(storage_gaps(input(&plain), &profile).is_empty());
        let gaps: Vec<PluginId> = storage_gaps(input(&claims), &profile)
            .into_iter()
            .map(|(name, gap)| {
                assert_eq!(gap, Gap::Unread);
                name
            })
            .collect();
        assert_eq!(
            gaps,
            [
                PluginId::VolumeRestrictions,
                PluginId::NodeVolumeLimits,
                PluginId::VolumeBinding,
                PluginId::VolumeZone
            ]
        );
    }

    /// PodDisruptionBudgets are read when DefaultPreemption may run for the pod.
    #[test]
    fn budgets_are_needed_by_a_pod_that_may_preempt() {
        let default = Profile::default_profile(FeatureGates::default());
        let containers = json!([{"name": "c", "image": "x"}]);
        let may = pod(json!({"containers": containers}), None);
        let never = pod(
            json!({"containers": containers, "preemptionPolicy": "Never"}),
            None,
        );
        assert!(needs(&may, &default).disruption_budgets);
        assert!(!needs(&never, &default).disruption_budgets);
        assert!(!needs(&may, &without("DefaultPreemption")).disruption_budgets);
    }
}
