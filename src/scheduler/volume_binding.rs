//! VolumeBinding (`pkg/scheduler/framework/plugins/volumebinding`: volume_binding.go and
//! binder.go): the pod's claims must exist and be usable (PreFilter), bound claims' volumes
//! must accept the node (their node affinity), and unbound WaitForFirstConsumer claims must
//! find a static volume on the node or be provisionable there (`FindPodVolumes`).
//!
//! Its Score runs only with the `StorageCapacityScoring` gate (alpha, off in 1.35): without
//! it PreScore skips and the plugin adds nothing to any node's score.

pub mod explain;

use std::collections::BTreeSet;
use std::convert::Infallible;

use serde::Serialize;

use super::config::FeatureGates;
use super::few::Few;
use super::plugin::{Input, Plugin};
use super::plugin_id::PluginId;
use super::status::{Code, PreFilterOutcome, PreScoreOutcome, Status};
use super::storage::{Gap, claim_not_found, migrated_somewhere};
use crate::state::Node;
use crate::state::labels::Labels;
use crate::state::selector::{LabelSelector, SelectorCheck};
use crate::state::volumes::{Claim, PodVolume, StorageClass, Volume, VolumeSource, Volumes};

/// Upstream's `ErrReasonBindConflict`.
pub const REASON_BIND: &str = "node(s) didn't find available persistent volumes to bind";
/// Upstream's `ErrReasonNodeConflict` since 1.33 (`volumebinding/binder.go`).
pub const REASON_NODE: &str = "node(s) didn't match PersistentVolume's node affinity";
/// `ErrReasonNodeConflict` in 1.31 and 1.32.
pub const REASON_NODE_BEFORE_1_33: &str = "node(s) had volume node affinity conflict";
/// Upstream's `ErrReasonPVNotExist`.
pub const REASON_PV_MISSING: &str =
    "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)";
/// PreFilter's reason for claims the PV controller should have bound already.
pub const REASON_IMMEDIATE: &str = "pod has unbound immediate PersistentVolumeClaims";

/// `volume.NotSupportedProvisioner`: a class whose volumes are only ever static.
const NO_PROVISIONER: &str = "kubernetes.io/no-provisioner";
/// The gate that gives VolumeBinding a Score.
const CAPACITY_SCORING: &str = "StorageCapacityScoring";

/// What happened to one claim of the pod on one node, written tagged by what was checked.
#[derive(Debug, Clone, Serialize)]
#[serde(
    tag = "check",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum ClaimCheck {
    /// Bound: its volume's node affinity against the node's labels (`None`: it has none).
    Bound {
        claim: String,
        volume: String,
        #[serde(rename = "nodeAffinity", skip_serializing_if = "Option::is_none")]
        affinity: Option<SelectorCheck>,
        matched: bool,
    },
    /// Bound to a volume that does not exist.
    VolumeMissing { claim: String, volume: String },
    /// Being provisioned for another node (its selected-node annotation).
    SelectedNode { claim: String, node: String },
    /// An available static volume on this node matches it.
    #[serde(rename = "staticVolume")]
    Matched { claim: String, volume: String },
    /// No static volume matches; it would be provisioned by its class.
    Provision {
        claim: String,
        #[serde(rename = "storageClass")]
        class: String,
        provisioner: String,
        /// The class provisions nothing (no provisioner, or `kubernetes.io/no-provisioner`).
        unprovisionable: bool,
        /// The class's allowedTopologies admit the node.
        topology_allowed: bool,
    },
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FilterDetails {
    pub claims: Vec<ClaimCheck>,
}

/// What would make the node take the pod, per claim that fails on it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum Change {
    /// The claim's volume is reachable only from nodes its node affinity admits (written as
    /// it is, terms joined by "or"); `fits_on`: the nodes it admits.
    VolumeAffinity {
        claim: String,
        volume: String,
        node_affinity: String,
        fits_on: Few,
    },
    /// The claim is bound to a volume that does not exist.
    VolumeMissing { claim: String, volume: String },
    /// The claim is being provisioned for another node, the only one that can take the pod.
    SelectedNode { claim: String, node: String },
    /// No available volume matches the claim here, and its class provisions none
    /// (`unprovisionable`) or not for this node (its allowedTopologies).
    NoVolume {
        claim: String,
        storage_class: String,
        unprovisionable: bool,
        fits_on: Few,
    },
}

/// The pod's claims as `GetPodVolumeClaims` sorts them.
#[derive(Debug, Default)]
struct PodClaims<'a> {
    bound: Vec<&'a Claim>,
    delayed: Vec<&'a Claim>,
}

#[derive(Debug)]
pub struct VolumeBinding<'a> {
    input: Input<'a>,
    gates: &'a FeatureGates,
    claims: PodClaims<'a>,
    pre_filtered: bool,
}

impl<'a> VolumeBinding<'a> {
    pub fn new(input: Input<'a>, gates: &'a FeatureGates) -> Self {
        VolumeBinding {
            input,
            gates,
            claims: PodClaims::default(),
            pre_filtered: false,
        }
    }

    fn has_claims(&self) -> bool {
        let k = &self.input.pod.template.volumes;
        k.claims || k.ephemeral
    }

    pub(crate) fn gap(&self) -> Option<Gap> {
        if !self.has_claims() {
            return None;
        }
        let Some(volumes) = self.input.state.volumes() else {
            return Some(Gap::Unread);
        };
        if self.gates.given.get(CAPACITY_SCORING) == Some(&true) {
            return Some(Gap::CapacityScoring);
        }
        let pod = self.input.pod;
        for name in pod
            .template
            .storage
            .iter()
            .filter_map(|v| v.claim_name(&pod.id.name))
        {
            let Some(claim) = volumes.claim(&pod.id.namespace, &name) else {
                continue;
            };
            // `tryTranslatePVToCSI` rewrites a migrated volume's node affinity.
            if let Some(VolumeSource::Migratable(plugin)) =
                volumes.volume(&claim.volume_name).map(|v| &v.source)
                && migrated_somewhere(self.input, plugin)
            {
                return Some(Gap::Translated { plugin });
            }
            // `hasEnoughCapacity` reads CSIStorageCapacity objects for such drivers.
            if !claim.is_bound()
                && claim.request.is_some()
                && let Some(class) = volumes.class(&claim.class)
                && volumes
                    .csi_driver(&class.provisioner)
                    .is_some_and(|d| d.storage_capacity)
            {
                return Some(Gap::StorageCapacity {
                    claim: format!("{}/{}", claim.namespace, claim.name),
                    driver: class.provisioner.clone(),
                });
            }
        }
        None
    }

    /// `podHasPVCs` and `GetPodVolumeClaims`: every claim exists and is usable, and is bound,
    /// delayed (WaitForFirstConsumer, no volume named) or immediate.
    fn sort_claims(&self, volumes: &'a Volumes) -> Result<PodClaims<'a>, Status> {
        let pod = self.input.pod;
        let unresolvable = |m: String| Status::new(Code::UnschedulableAndUnresolvable, m);
        let mut found = Vec::new();
        for v in &pod.template.storage {
            let Some(name) = v.claim_name(&pod.id.name) else {
                continue;
            };
            let ephemeral = matches!(v, PodVolume::Ephemeral { .. });
            let Some(claim) = volumes.claim(&pod.id.namespace, &name) else {
                return Err(unresolvable(if ephemeral {
                    format!(
                        "waiting for ephemeral volume controller to create the persistentvolumeclaim {name:?}"
                    )
                } else {
                    claim_not_found(&name)
                }));
            };
            if claim.lost {
                return Err(unresolvable(format!(
                    "persistentvolumeclaim {:?} bound to non-existent persistentvolume {:?}",
                    claim.name, claim.volume_name
                )));
            }
            if claim.deleting {
                return Err(unresolvable(format!(
                    "persistentvolumeclaim {:?} is being deleted",
                    claim.name
                )));
            }
            if ephemeral && claim.owner_pod.as_deref() != Some(&*pod.id.name) {
                return Err(unresolvable(format!(
                    "PVC {}/{name} was not created for pod {} (pod is not owner)",
                    pod.id.namespace, pod.id
                )));
            }
            found.push(claim);
        }
        let mut claims = PodClaims::default();
        let mut immediate = false;
        for claim in found {
            if claim.is_bound() {
                claims.bound.push(claim);
                continue;
            }
            // `IsDelayBindingMode`: no class, or a class not found, binds immediately.
            let delayed = match volumes.class(&claim.class) {
                Some(class) if !claim.class.is_empty() => match &class.binding_mode {
                    None => {
                        return Err(Status::new(
                            Code::Error,
                            format!(
                                "VolumeBindingMode not set for StorageClass {:?}",
                                claim.class
                            ),
                        ));
                    }
                    Some(_) => class.wait_for_first_consumer(),
                },
                _ => false,
            };
            // A claim naming its volume but not bound yet is treated as immediate.
            if delayed && claim.volume_name.is_empty() {
                claims.delayed.push(claim);
            } else {
                immediate = true;
            }
        }
        if immediate {
            return Err(unresolvable(REASON_IMMEDIATE.to_string()));
        }
        Ok(claims)
    }

    /// `GetEligibleNodes`: the nodes the bound claims' local volumes name by hostname, when
    /// every volume exists and some names nodes.
    fn eligible_nodes(&self, volumes: &Volumes) -> Option<BTreeSet<String>> {
        let mut eligible: Option<BTreeSet<String>> = None;
        for claim in &self.claims.bound {
            let pv = volumes.volume(&claim.volume_name)?;
            let names = local_node_names(pv);
            if names.is_empty() {
                continue;
            }
            eligible = Some(match eligible {
                None => names,
                Some(e) => e.intersection(&names).cloned().collect(),
            });
        }
        eligible
    }
}

/// The claims of the pod's volumes that exist, in the pod's order.
pub fn pod_claims<'a>(input: Input<'a>) -> impl Iterator<Item = &'a Claim> + 'a {
    let pod = input.pod;
    input.state.volumes().into_iter().flat_map(move |volumes| {
        pod.template
            .storage
            .iter()
            .filter_map(move |v| volumes.claim(&pod.id.namespace, &v.claim_name(&pod.id.name)?))
    })
}

/// `GetLocalPersistentVolumeNodeNames`: per required term, the intersection of its
/// `kubernetes.io/hostname In` values (taken as node names), unioned over the terms.
fn local_node_names(pv: &Volume) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let Some(affinity) = &pv.node_affinity else {
        return out;
    };
    for term in &affinity.terms {
        let mut nodes: Option<BTreeSet<String>> = None;
        for e in term.source().match_expressions.iter().flatten() {
            if e.key == "kubernetes.io/hostname" && e.operator == "In" {
                let values: BTreeSet<String> = e.values.iter().flatten().cloned().collect();
                nodes = Some(match nodes {
                    None => values,
                    Some(n) => n.intersection(&values).cloned().collect(),
                });
            }
        }
        out.extend(nodes.unwrap_or_default());
    }
    out
}

/// `FindMatchingVolume` (component-helpers/storage/volume/pv_helpers.go) on the scheduler's
/// path: the volume bound or pre-bound to the claim if its node affinity admits the node,
/// else the smallest available one of the claim's class that fits it. `Err` is a claim
/// selector that does not parse.
fn find_matching_volume<'v>(
    claim: &Claim,
    candidates: impl Iterator<Item = &'v Volume>,
    labels: &Labels,
    chosen: &[&str],
) -> Result<Option<&'v Volume>, String> {
    let selector = match &claim.selector {
        None => None,
        Some(Ok(s)) => Some(s),
        Some(Err(e)) => {
            return Err(format!(
                "error creating internal label selector for claim: {}/{}: {e}",
                claim.namespace, claim.name
            ));
        }
    };
    let request = claim.request.unwrap_or_default();
    let mut smallest: Option<&Volume> = None;
    for pv in candidates {
        if chosen.contains(&pv.name.as_str())
            || (pv.claim_ref.is_some() && !pv.is_bound_to(claim))
            || pv.capacity < request
            || pv.volume_mode != claim.volume_mode
            || pv.deleting
        {
            continue;
        }
        let affinity_ok = pv.affinity_matches(labels);
        if pv.is_bound_to(claim) {
            return Ok(affinity_ok.then_some(pv));
        }
        if pv.phase != "Available"
            || selector.is_some_and(|s: &LabelSelector| !s.matches(&pv.labels))
            || pv.class != claim.class
            || !affinity_ok
            || pv.attributes_class != claim.attributes_class
            || !claim
                .access_modes
                .iter()
                .all(|m| pv.access_modes.contains(m))
        {
            continue;
        }
        if smallest.is_none_or(|s| s.capacity > pv.capacity) {
            smallest = Some(pv);
        }
    }
    Ok(smallest)
}

/// `checkVolumeProvisions` for one claim: `Err` when its class is missing.
fn provision_check(
    claim: &Claim,
    class: Option<&StorageClass>,
    labels: &Labels,
) -> Result<ClaimCheck, String> {
    let key = format!("{}/{}", claim.namespace, claim.name);
    if claim.class.is_empty() {
        return Err(format!("no class for claim {key:?}"));
    }
    let class = class.ok_or_else(|| format!("failed to find storage class {:?}", claim.class))?;
    let unprovisionable = class.provisioner.is_empty() || class.provisioner == NO_PROVISIONER;
    Ok(ClaimCheck::Provision {
        claim: claim.name.clone(),
        class: class.name.clone(),
        provisioner: class.provisioner.clone(),
        unprovisionable,
        topology_allowed: !unprovisionable && class.topology_allows(labels),
    })
}

impl VolumeBinding<'_> {
    /// `checkBoundClaims`: each bound claim's volume exists and its node affinity admits the
    /// node, up to the first that does not. Whether all do, and whether every volume was found.
    fn check_bound_claims(
        &self,
        volumes: &Volumes,
        n: &Node,
        checks: &mut Vec<ClaimCheck>,
    ) -> (bool, bool) {
        for claim in &self.claims.bound {
            let Some(pv) = volumes.volume(&claim.volume_name) else {
                checks.push(ClaimCheck::VolumeMissing {
                    claim: claim.name.clone(),
                    volume: claim.volume_name.clone(),
                });
                return (true, false);
            };
            let matched = pv.affinity_matches(&n.labels);
            checks.push(ClaimCheck::Bound {
                claim: claim.name.clone(),
                volume: pv.name.clone(),
                // `CheckNodeAffinity` sees a node of labels only: no name for matchFields.
                affinity: pv
                    .node_affinity
                    .as_ref()
                    .map(|a| a.explain_with("", |_, _, key| n.labels.get(key).map(Into::into))),
                matched,
            });
            if !matched {
                return (false, true);
            }
        }
        (true, true)
    }

    /// The delayed-binding claims: none being provisioned for another node, then
    /// `findMatchingVolumes` (the smallest requests first, each volume once), then
    /// `checkVolumeProvisions` for the rest, up to the first that fails. Whether all pass;
    /// upstream's error when a lookup fails.
    fn check_unbound_claims(
        &self,
        volumes: &Volumes,
        n: &Node,
        checks: &mut Vec<ClaimCheck>,
    ) -> Result<bool, String> {
        let mut to_match = Vec::new();
        let mut to_provision = Vec::new();
        for claim in &self.claims.delayed {
            match &claim.selected_node {
                Some(selected) if *selected != n.name => {
                    checks.push(ClaimCheck::SelectedNode {
                        claim: claim.name.clone(),
                        node: selected.clone(),
                    });
                    return Ok(false);
                }
                Some(_) => to_provision.push(*claim),
                None => to_match.push(*claim),
            }
        }
        to_match.sort_by_key(|c| c.request.unwrap_or_default());
        let mut chosen: Vec<&str> = Vec::new();
        for claim in to_match {
            let candidates = volumes.volumes_of_class(&claim.class);
            match find_matching_volume(claim, candidates, &n.labels, &chosen)? {
                Some(pv) => {
                    chosen.push(&pv.name);
                    checks.push(ClaimCheck::Matched {
                        claim: claim.name.clone(),
                        volume: pv.name.clone(),
                    });
                }
                None => to_provision.push(claim),
            }
        }
        for claim in to_provision {
            let check = provision_check(claim, volumes.class(&claim.class), &n.labels)?;
            let ok = matches!(
                check,
                ClaimCheck::Provision {
                    topology_allowed: true,
                    ..
                }
            );
            checks.push(check);
            if !ok {
                return Ok(false);
            }
        }
        Ok(true)
    }
}

impl Plugin for VolumeBinding<'_> {
    type FilterDetails = Box<FilterDetails>;
    type ScoreDetails = Infallible;
    type Tables = Infallible;

    fn unavailable(&self) -> Option<String> {
        self.gap()
            .map(|g| format!("{} is not evaluated: {g}", PluginId::VolumeBinding))
    }

    fn pre_filter(&mut self) -> PreFilterOutcome {
        self.pre_filtered = true;
        let Some(volumes) = self.input.state.volumes().filter(|_| self.has_claims()) else {
            return PreFilterOutcome::Skip;
        };
        match self.sort_claims(volumes) {
            Err(status) => PreFilterOutcome::Reject(status),
            Ok(claims) => {
                self.claims = claims;
                PreFilterOutcome::Proceed(self.eligible_nodes(volumes))
            }
        }
    }

    fn filter(&self, node: usize) -> (Option<Status>, Option<Self::FilterDetails>) {
        let Some(volumes) = self.input.state.volumes() else {
            return (None, None);
        };
        if !self.pre_filtered {
            return (
                Some(Status::new(
                    Code::Error,
                    super::plugin::missing_cycle_state("PreFilter", PluginId::VolumeBinding),
                )),
                None,
            );
        }
        let n = self.input.node(node);
        let mut checks = Vec::new();
        // `FindPodVolumes`: each check's outcome, reported in a fixed order at the end. A
        // missing or conflicting bound volume does not stop the unbound claims' checks.
        let (bound_ok, pv_found) = self.check_bound_claims(volumes, n, &mut checks);
        let unbound_ok = match self.check_unbound_claims(volumes, n, &mut checks) {
            Ok(ok) => ok,
            Err(e) => return (Some(Status::new(Code::Error, e)), None),
        };
        let mut reasons = Vec::new();
        if !bound_ok {
            let older = self.gates.release.facts().volume_binding_older_node_reason;
            reasons.push(
                if older {
                    REASON_NODE_BEFORE_1_33
                } else {
                    REASON_NODE
                }
                .into(),
            );
        }
        if !unbound_ok {
            reasons.push(REASON_BIND.into());
        }
        if !pv_found {
            reasons.push(REASON_PV_MISSING.into());
        }
        let status = (!reasons.is_empty()).then_some(Status {
            code: Code::UnschedulableAndUnresolvable,
            reasons,
        });
        (status, Some(Box::new(FilterDetails { claims: checks })))
    }

    /// Without `StorageCapacityScoring` upstream builds no scorer, and PreScore skips.
    fn pre_score(&mut self, _candidates: &[usize]) -> PreScoreOutcome {
        PreScoreOutcome::Skip
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scheduler::release::Release;
    use crate::scheduler::testing::{pod_of, state_of};
    use serde_json::{Value, json};

    fn zone_node(name: &str, zone: &str) -> Value {
        json!({"apiVersion": "v1", "kind": "Node",
               "metadata": {"name": name, "labels": {"topology.kubernetes.io/zone": zone}}})
    }

    fn claim(name: &str, spec: Value, annotations: Value) -> Value {
        json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
               "metadata": {"name": name, "namespace": "default", "annotations": annotations},
               "spec": spec})
    }

    fn class(name: &str, mode: &str, provisioner: &str, topologies: Value) -> Value {
        json!({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
               "metadata": {"name": name}, "provisioner": provisioner,
               "volumeBindingMode": mode, "allowedTopologies": topologies})
    }

    fn zonal_pv(name: &str, zone: &str, extra: Value) -> Value {
        let mut pv = json!({"apiVersion": "v1", "kind": "PersistentVolume",
            "metadata": {"name": name},
            "spec": {"capacity": {"storage": "10Gi"}, "accessModes": ["ReadWriteOnce"],
                     "storageClassName": "local",
                     "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                         {"key": "topology.kubernetes.io/zone", "operator": "In",
                          "values": [zone]}]}]}}},
            "status": {"phase": "Available"}});
        if let (Some(spec), Some(extra)) = (pv["spec"].as_object_mut(), extra.as_object()) {
            spec.extend(extra.clone());
        }
        pv
    }

    fn run(items: Value) -> (PreFilterOutcome, Vec<Option<Status>>) {
        run_as(items, Release::V1_35)
    }

    fn run_as(items: Value, release: Release) -> (PreFilterOutcome, Vec<Option<Status>>) {
        let state = state_of(items);
        let incoming = pod_of(json!({"metadata": {"name": "p", "namespace": "default"},
            "spec": {"containers": [], "volumes": [
                {"name": "d", "persistentVolumeClaim": {"claimName": "data"}}]}}));
        let gates = FeatureGates {
            release,
            ..FeatureGates::default()
        };
        let mut plugin = VolumeBinding::new(
            Input {
                pod: &incoming,
                state: &state,
                exclude: None,
                removed: &[],
            },
            &gates,
        );
        assert_eq!(plugin.unavailable(), None);
        let pre = plugin.pre_filter();
        let statuses = (0..state.nodes().len())
            .map(|n| plugin.filter(n).0)
            .collect();
        (pre, statuses)
    }

    fn messages(statuses: &[Option<Status>]) -> Vec<Option<String>> {
        statuses
            .iter()
            .map(|s| s.as_ref().map(|s| s.message().into_owned()))
            .collect()
    }

    /// A bound volume in zone a: the node in zone b has a volume node affinity conflict.
    #[test]
    fn bound_volume_node_affinity() {
        let items = json!([
            zone_node("a1", "a"),
            zone_node("b1", "b"),
            claim(
                "data",
                json!({"volumeName": "pv-a"}),
                json!({"pv.kubernetes.io/bind-completed": "yes"})
            ),
            zonal_pv(
                "pv-a",
                "a",
                json!({"claimRef": {"name": "data", "namespace": "default"}})
            ),
        ]);
        let (pre, statuses) = run(items.clone());
        assert_eq!(pre, PreFilterOutcome::Proceed(None));
        assert_eq!(messages(&statuses), [None, Some(REASON_NODE.to_string())]);
        // 1.31 and 1.32 said it in other words.
        let (_, statuses) = run_as(items, Release::V1_32);
        assert_eq!(
            messages(&statuses),
            [None, Some(REASON_NODE_BEFORE_1_33.to_string())]
        );
    }

    /// WaitForFirstConsumer with static volumes only: a node with a matching available volume
    /// passes, the other finds none to bind.
    #[test]
    fn wait_for_first_consumer_static_volumes() {
        let (_, statuses) = run(json!([
            zone_node("a1", "a"),
            zone_node("b1", "b"),
            class("local", "WaitForFirstConsumer", NO_PROVISIONER, json!([])),
            claim(
                "data",
                json!({"storageClassName": "local", "accessModes": ["ReadWriteOnce"],
                                 "resources": {"requests": {"storage": "5Gi"}}}),
                json!({})
            ),
            zonal_pv("pv-a", "a", json!({})),
        ]));
        assert_eq!(messages(&statuses), [None, Some(REASON_BIND.to_string())]);
    }

    /// WaitForFirstConsumer with dynamic provisioning: the class's allowedTopologies decide.
    #[test]
    fn wait_for_first_consumer_provisioning_topology() {
        let (_, statuses) = run(json!([
            zone_node("a1", "a"),
            zone_node("b1", "b"),
            class(
                "local",
                "WaitForFirstConsumer",
                "ebs.csi.aws.com",
                json!([
                {"matchLabelExpressions": [{"key": "topology.kubernetes.io/zone",
                                            "values": ["b"]}]}])
            ),
            claim("data", json!({"storageClassName": "local"}), json!({})),
        ]));
        assert_eq!(messages(&statuses), [Some(REASON_BIND.to_string()), None]);
    }

    /// An unbound claim of an Immediate class rejects the pod at PreFilter; so does a claim
    /// that names its volume without the bind-completed annotation.
    #[test]
    fn unbound_immediate_claims() {
        let immediate = Status::new(Code::UnschedulableAndUnresolvable, REASON_IMMEDIATE);
        let (pre, _) = run(json!([
            zone_node("a1", "a"),
            class("fast", "Immediate", "ebs.csi.aws.com", json!([])),
            claim("data", json!({"storageClassName": "fast"}), json!({})),
        ]));
        assert_eq!(pre, PreFilterOutcome::Reject(immediate.clone()));
        let (pre, _) = run(json!([
            zone_node("a1", "a"),
            claim("data", json!({"volumeName": "pv-a"}), json!({})),
            zonal_pv("pv-a", "a", json!({})),
        ]));
        assert_eq!(pre, PreFilterOutcome::Reject(immediate));
        let (pre, _) = run(json!([
            zone_node("a1", "a"),
            class("x", "Immediate", "p", json!([]))
        ]));
        assert_eq!(
            pre,
            PreFilterOutcome::Reject(Status::new(
                Code::UnschedulableAndUnresolvable,
                "persistentvolumeclaim \"data\" not found"
            ))
        );
    }

    /// A bound local volume narrows the nodes to its hostname's (`GetEligibleNodes`).
    #[test]
    fn local_volumes_narrow_the_nodes() {
        let mut pv = zonal_pv("pv-a", "a", json!({}));
        pv["spec"]["nodeAffinity"]["required"]["nodeSelectorTerms"][0]["matchExpressions"] = json!([
            {"key": "kubernetes.io/hostname", "operator": "In", "values": ["a1", "a2"]},
            {"key": "kubernetes.io/hostname", "operator": "In", "values": ["a1"]}]);
        let (pre, _) = run(json!([
            zone_node("a1", "a"),
            claim(
                "data",
                json!({"volumeName": "pv-a"}),
                json!({"pv.kubernetes.io/bind-completed": "yes"})
            ),
            pv,
        ]));
        assert_eq!(
            pre,
            PreFilterOutcome::Proceed(Some(BTreeSet::from(["a1".to_string()])))
        );
    }

    /// A bound claim whose volume is gone fails every node with upstream's reason.
    #[test]
    fn a_claim_bound_to_a_missing_volume() {
        let (pre, statuses) = run(json!([
            zone_node("a1", "a"),
            claim(
                "data",
                json!({"volumeName": "gone"}),
                json!({"pv.kubernetes.io/bind-completed": "yes"})
            ),
        ]));
        assert_eq!(pre, PreFilterOutcome::Proceed(None));
        assert_eq!(messages(&statuses), [Some(REASON_PV_MISSING.to_string())]);
    }

    /// Provisioning with a driver that publishes storage capacity is not modelled: the plugin
    /// says so instead of passing.
    #[test]
    fn storage_capacity_is_not_evaluated() {
        let state = state_of(json!([
            zone_node("a1", "a"),
            class("fast", "WaitForFirstConsumer", "ebs.csi.aws.com", json!([])),
            claim("data", json!({"storageClassName": "fast",
                                 "resources": {"requests": {"storage": "1Gi"}}}), json!({})),
            {"apiVersion": "storage.k8s.io/v1", "kind": "CSIDriver",
             "metadata": {"name": "ebs.csi.aws.com"}, "spec": {"storageCapacity": true}}
        ]));
        let incoming = pod_of(json!({"metadata": {"name": "p", "namespace": "default"},
            "spec": {"containers": [], "volumes": [
                {"name": "d", "persistentVolumeClaim": {"claimName": "data"}}]}}));
        let gates = FeatureGates::default();
        let plugin = VolumeBinding::new(
            Input {
                pod: &incoming,
                state: &state,
                exclude: None,
                removed: &[],
            },
            &gates,
        );
        assert_eq!(
            plugin.gap(),
            Some(Gap::StorageCapacity {
                claim: "default/data".into(),
                driver: "ebs.csi.aws.com".into()
            })
        );
    }
}
