//! VolumeZone (`pkg/scheduler/framework/plugins/volumezone/volume_zone.go`): the zone and
//! region labels of the pod's bound PersistentVolumes must name the node's.

pub mod explain;

use std::convert::Infallible;

use serde::Serialize;

use super::few::Few;
use super::plugin::{Input, Plugin};
use super::plugin_id::PluginId;
use super::status::{Code, PreFilterOutcome, Status};
use super::storage::{Gap, claim_not_found};
use crate::state::volumes::{PodVolume, ZONE_LABELS, has_zone_labels};

/// Upstream's `ErrReasonConflict`.
pub const REASON: &str = "node(s) had no available volume zone";

/// One zone or region label of a PersistentVolume of the pod (`pvTopology`).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct VolumeTopology {
    pub claim: String,
    pub volume: String,
    pub key: &'static str,
    /// The label's value split at `__` (`LabelZonesToSet`).
    pub values: Vec<String>,
}

/// A topology label against one node.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TopologyCheck {
    #[serde(flatten)]
    pub topology: VolumeTopology,
    /// The node's value: for its key, else (a beta key) for the GA key.
    pub node_value: Option<String>,
    pub matched: bool,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FilterDetails {
    /// The node has none of the zone and region labels: it passes whatever the volumes say.
    pub node_unzoned: bool,
    pub checks: Vec<TopologyCheck>,
}

/// What would make the node take the pod: a node in the volume's zone.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum Change {
    /// The claim's volume is labelled for these zones (or regions); `fits_on`: the nodes in
    /// them.
    VolumeZone {
        claim: String,
        volume: String,
        key: &'static str,
        values: Vec<String>,
        fits_on: Few,
    },
}

#[derive(Debug)]
pub struct VolumeZone<'a> {
    input: Input<'a>,
    topologies: Vec<VolumeTopology>,
}

impl<'a> VolumeZone<'a> {
    pub fn new(input: Input<'a>) -> Self {
        VolumeZone {
            input,
            topologies: Vec::new(),
        }
    }

    pub(crate) fn gap(&self) -> Option<Gap> {
        (self.input.pod.template.volumes.claims && self.input.state.volumes().is_none())
            .then_some(Gap::Unread)
    }

    /// `getPVbyPod`: the zone labels of every bound volume of the pod's
    /// `persistentVolumeClaim` volumes; unbound claims of a WaitForFirstConsumer class are
    /// left to VolumeBinding, any other problem rejects the pod.
    fn pv_topologies(&self) -> Result<Vec<VolumeTopology>, String> {
        let pod = self.input.pod;
        let Some(volumes) = self.input.state.volumes() else {
            return Ok(Vec::new());
        };
        let mut out = Vec::new();
        for v in &pod.template.storage {
            let PodVolume::Claim { claim, .. } = v else {
                continue;
            };
            if claim.is_empty() {
                return Err("PersistentVolumeClaim had no name".to_string());
            }
            let c = volumes
                .claim(&pod.id.namespace, claim)
                .ok_or_else(|| claim_not_found(claim))?;
            if c.volume_name.is_empty() {
                if c.class.is_empty() {
                    return Err("PersistentVolumeClaim had no pv name and storageClass name".into());
                }
                let class = volumes.class(&c.class).ok_or_else(|| {
                    format!("storageclass.storage.k8s.io {:?} not found", c.class)
                })?;
                match class.binding_mode.as_deref() {
                    None => {
                        return Err(format!(
                            "VolumeBindingMode not set for StorageClass {:?}",
                            c.class
                        ));
                    }
                    Some("WaitForFirstConsumer") => continue,
                    Some(_) => return Err("PersistentVolume had no name".into()),
                }
            }
            let pv = volumes
                .volume(&c.volume_name)
                .ok_or_else(|| format!("persistentvolume {:?} not found", c.volume_name))?;
            for key in ZONE_LABELS {
                let Some(value) = pv.labels.get(key) else {
                    continue;
                };
                // An empty zone in the list makes upstream ignore the label.
                let values: Vec<String> = value.split("__").map(|z| z.trim().to_string()).collect();
                if values.iter().any(String::is_empty) {
                    continue;
                }
                out.push(VolumeTopology {
                    claim: claim.clone(),
                    volume: pv.name.clone(),
                    key,
                    values,
                });
            }
        }
        Ok(out)
    }
}

/// `translateToGALabel`: the GA key of a beta zone or region key.
fn ga_key(key: &str) -> Option<&'static str> {
    match key {
        "failure-domain.beta.kubernetes.io/zone" => Some("topology.kubernetes.io/zone"),
        "failure-domain.beta.kubernetes.io/region" => Some("topology.kubernetes.io/region"),
        _ => None,
    }
}

impl Plugin for VolumeZone<'_> {
    type FilterDetails = Box<FilterDetails>;
    type ScoreDetails = Infallible;
    type Tables = Infallible;

    fn unavailable(&self) -> Option<String> {
        self.gap()
            .map(|g| format!("{} is not evaluated: {g}", PluginId::VolumeZone))
    }

    fn pre_filter(&mut self) -> PreFilterOutcome {
        match self.pv_topologies() {
            Err(e) => PreFilterOutcome::Reject(Status::new(Code::UnschedulableAndUnresolvable, e)),
            Ok(t) if t.is_empty() => PreFilterOutcome::Skip,
            Ok(t) => {
                self.topologies = t;
                PreFilterOutcome::Proceed(None)
            }
        }
    }

    fn filter(&self, node: usize) -> (Option<Status>, Option<Self::FilterDetails>) {
        let labels = &self.input.node(node).labels;
        let node_unzoned = !has_zone_labels(labels);
        let checks: Vec<TopologyCheck> = self
            .topologies
            .iter()
            .map(|t| {
                let node_value = labels
                    .get(t.key)
                    .or_else(|| ga_key(t.key).and_then(|k| labels.get(k)))
                    .map(str::to_string);
                let matched = node_value
                    .as_ref()
                    .is_some_and(|v| t.values.iter().any(|x| x == v));
                TopologyCheck {
                    topology: t.clone(),
                    node_value,
                    matched,
                }
            })
            .collect();
        let fails = !node_unzoned && checks.iter().any(|c| !c.matched);
        (
            fails.then(|| Status::new(Code::UnschedulableAndUnresolvable, REASON)),
            Some(Box::new(FilterDetails {
                node_unzoned,
                checks,
            })),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scheduler::testing::{pod_of, state_of};
    use serde_json::{Value, json};

    fn node(name: &str, labels: Value) -> Value {
        json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels}})
    }

    /// A bound volume in zone a (beta label) passes a node in zone a (GA label), fails one in
    /// zone b, and passes a node without zone labels.
    #[test]
    fn volume_zone_labels_against_the_nodes() {
        let state = state_of(json!([
            node("a1", json!({"topology.kubernetes.io/zone": "a"})),
            node("b1", json!({"topology.kubernetes.io/zone": "b"})),
            node("bare", json!({})),
            {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
             "metadata": {"name": "data", "namespace": "default",
                          "annotations": {"pv.kubernetes.io/bind-completed": "yes"}},
             "spec": {"volumeName": "pv-a"}},
            {"apiVersion": "v1", "kind": "PersistentVolume",
             "metadata": {"name": "pv-a",
                          "labels": {"failure-domain.beta.kubernetes.io/zone": "a__c"}},
             "spec": {}}
        ]));
        let incoming = pod_of(json!({"metadata": {"name": "p", "namespace": "default"},
            "spec": {"containers": [], "volumes": [
                {"name": "d", "persistentVolumeClaim": {"claimName": "data"}}]}}));
        let mut plugin = VolumeZone::new(Input {
            pod: &incoming,
            state: &state,
            exclude: None,
            removed: &[],
        });
        assert_eq!(plugin.pre_filter(), PreFilterOutcome::Proceed(None));
        assert!(plugin.filter(0).0.is_none());
        let (status, details) = plugin.filter(1);
        assert_eq!(status.map(|s| s.message()), Some(REASON.into()));
        let check = &details.expect("details").checks[0];
        assert_eq!(check.node_value.as_deref(), Some("b"));
        assert_eq!(check.topology.values, ["a", "c"]);
        assert!(plugin.filter(2).0.is_none());
    }

    /// An unbound claim of an Immediate class rejects the pod at PreFilter; of a
    /// WaitForFirstConsumer class it is VolumeBinding's, and VolumeZone skips.
    #[test]
    fn unbound_claims_by_binding_mode() {
        let items = |mode: &str| {
            json!([
                node("n", json!({})),
                {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                 "metadata": {"name": "data", "namespace": "default"},
                 "spec": {"storageClassName": "fast"}},
                {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
                 "metadata": {"name": "fast"}, "provisioner": "p", "volumeBindingMode": mode}
            ])
        };
        let incoming = pod_of(json!({"metadata": {"name": "p", "namespace": "default"},
            "spec": {"containers": [], "volumes": [
                {"name": "d", "persistentVolumeClaim": {"claimName": "data"}}]}}));
        let run = |mode: &str| {
            let state = state_of(items(mode));
            VolumeZone::new(Input {
                pod: &incoming,
                state: &state,
                exclude: None,
                removed: &[],
            })
            .pre_filter()
        };
        assert_eq!(run("WaitForFirstConsumer"), PreFilterOutcome::Skip);
        assert_eq!(
            run("Immediate"),
            PreFilterOutcome::Reject(Status::new(
                Code::UnschedulableAndUnresolvable,
                "PersistentVolume had no name"
            ))
        );
    }
}
