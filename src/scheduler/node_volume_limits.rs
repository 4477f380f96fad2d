//! NodeVolumeLimits (`pkg/scheduler/framework/plugins/nodevolumelimits/csi.go`): per CSI
//! driver, the volumes the node's pods attach plus the pod's new ones must stay within the
//! node's limit (its CSINode's `allocatable.count`, else its `attachable-volumes-csi-<driver>`
//! allocatable).

pub mod explain;

use std::collections::BTreeMap;
use std::convert::Infallible;

use serde::Serialize;

use super::plugin::{Input, Plugin};
use super::plugin_id::PluginId;
use super::status::{Code, PreFilterOutcome, Status};
use super::storage::{Gap, MIGRATED, claim_not_found, migrated_somewhere};
use crate::state::Pod;
use crate::state::volumes::{Claim, CsiNode, PodVolume, VolumeSource, Volumes};

/// Upstream's `ErrReasonMaxVolumeCountExceeded`.
pub const REASON: &str = "node(s) exceed max volume count";

/// `volumeutil.CSIAttachLimitPrefix`.
const CSI_LIMIT_PREFIX: &str = "attachable-volumes-csi-";
/// `ResourceNameLengthLimit`: a longer key is hashed by `GetCSIAttachLimitKey`, which only
/// the CSINode path (keyed here by driver) then matches.
const KEY_LENGTH_LIMIT: usize = 63;

/// One driver's count on a node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DriverCount {
    pub driver: String,
    /// The node's limit for the driver; `None` when it has none (no check).
    pub limit: Option<i64>,
    /// Distinct volumes of the driver the node's pods attach.
    pub attached: usize,
    /// The pod's volumes of the driver not attached already.
    pub new: usize,
}

/// Written with whether the limit is exceeded.
impl Serialize for DriverCount {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Written<'a> {
            driver: &'a str,
            limit: Option<i64>,
            attached: usize,
            new: usize,
            exceeded: bool,
        }
        Written {
            driver: &self.driver,
            limit: self.limit,
            attached: self.attached,
            new: self.new,
            exceeded: self.exceeded(),
        }
        .serialize(s)
    }
}

impl DriverCount {
    pub fn exceeded(&self) -> bool {
        self.limit
            .is_some_and(|l| i64::try_from(self.attached + self.new).unwrap_or(i64::MAX) > l)
    }
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FilterDetails {
    pub counts: Vec<DriverCount>,
}

#[derive(Debug)]
pub struct NodeVolumeLimits<'a> {
    input: Input<'a>,
}

impl<'a> NodeVolumeLimits<'a> {
    pub fn new(input: Input<'a>) -> Self {
        NodeVolumeLimits { input }
    }

    /// What is not modelled for this pod: unread objects, or in-tree volumes some node
    /// migrates to CSI (inline ones, or bound through a PersistentVolume).
    pub(crate) fn gap(&self) -> Option<Gap> {
        let kinds = &self.input.pod.template.volumes;
        if !(kinds.claims || kinds.ephemeral || kinds.migratable_inline) {
            return None;
        }
        let Some(volumes) = self.input.state.volumes() else {
            return Some(Gap::Unread);
        };
        // The pods whose volumes are counted: the pod's, and the existing ones'.
        let pods =
            || std::iter::once(self.input.pod).chain(self.input.existing_pods().map(|(_, p, _)| p));
        let bound_to = |pod: &Pod, plugin: &'static str| {
            pod.template.storage.iter().any(|v| {
                v.claim_name(&pod.id.name)
                    .and_then(|c| volumes.claim(&pod.id.namespace, &c))
                    .and_then(|c| volumes.volume(&c.volume_name))
                    .is_some_and(|pv| pv.source == VolumeSource::Migratable(plugin))
            })
        };
        MIGRATED
            .iter()
            .map(|(plugin, _)| *plugin)
            .find(|plugin| {
                migrated_somewhere(self.input, plugin)
                    && pods().any(|p| p.template.volumes.migratable_inline || bound_to(p, plugin))
            })
            .map(|plugin| Gap::Translated { plugin })
    }
}

/// Adds the volumes of `pod` that count against a CSI driver's limit, by unique name
/// (`<driver>/<handle>`) to their driver (`filterAttachableVolumes`). `Err` is the status a
/// problem with the new pod's claims gives; an existing pod's missing claim is not counted.
fn attachable(
    volumes: &Volumes,
    csi_node: Option<&CsiNode>,
    pod: &Pod,
    new_pod: bool,
    out: &mut BTreeMap<String, String>,
) -> Result<(), Status> {
    for v in &pod.template.storage {
        let Some(name) = v.claim_name(&pod.id.name) else {
            continue;
        };
        if name.is_empty() {
            return Err(Status::new(
                Code::Error,
                "PersistentVolumeClaim had no name",
            ));
        }
        let Some(claim) = volumes.claim(&pod.id.namespace, &name) else {
            if new_pod {
                return Err(Status::new(
                    Code::UnschedulableAndUnresolvable,
                    format!(
                        "looking up PVC {}/{name}: {}",
                        pod.id.namespace,
                        claim_not_found(&name)
                    ),
                ));
            }
            continue;
        };
        if matches!(v, PodVolume::Ephemeral { .. })
            && claim.owner_pod.as_deref() != Some(&*pod.id.name)
        {
            return Err(Status::new(
                Code::Error,
                format!(
                    "PVC {}/{name} was not created for pod {} (pod is not owner)",
                    pod.id.namespace, pod.id
                ),
            ));
        }
        if let Some((driver, handle)) = driver_info(volumes, csi_node, claim) {
            out.insert(format!("{driver}/{handle}"), driver);
        }
    }
    Ok(())
}

/// `getCSIDriverInfo`: the driver and handle of the claim's volume; for a claim without one,
/// its class's provisioner and a handle of the claim's own (`getCSIDriverInfoFromSC`).
/// In-tree volumes count only once migrated, which [`NodeVolumeLimits::gap`] leaves out.
fn driver_info(
    volumes: &Volumes,
    csi_node: Option<&CsiNode>,
    claim: &Claim,
) -> Option<(String, String)> {
    if let Some(pv) = (!claim.volume_name.is_empty())
        .then(|| volumes.volume(&claim.volume_name))
        .flatten()
    {
        return match &pv.source {
            VolumeSource::Csi { driver, handle } => Some((driver.clone(), handle.clone())),
            _ => None,
        };
    }
    let class = volumes.class(&claim.class)?;
    // Upstream prefixes a random string, so that no real handle equals it.
    let handle = format!("\u{0}{}/{}", claim.namespace, claim.name);
    match MIGRATED.iter().find(|(p, _)| *p == class.provisioner) {
        Some((plugin, driver)) => csi_node
            .is_some_and(|n| n.migrated(plugin))
            .then(|| (driver.to_string(), handle)),
        None => Some((class.provisioner.clone(), handle)),
    }
}

/// The count of `driver`, zero at first.
fn count<'m, 'd>(
    counts: &'m mut BTreeMap<&'d str, DriverCount>,
    driver: &'d str,
) -> &'m mut DriverCount {
    counts.entry(driver).or_insert_with(|| DriverCount {
        driver: driver.to_string(),
        limit: None,
        attached: 0,
        new: 0,
    })
}

impl Plugin for NodeVolumeLimits<'_> {
    type FilterDetails = Box<FilterDetails>;
    type ScoreDetails = Infallible;
    type Tables = Infallible;

    fn unavailable(&self) -> Option<String> {
        self.gap()
            .map(|g| format!("{} is not evaluated: {g}", PluginId::NodeVolumeLimits))
    }

    fn pre_filter(&mut self) -> PreFilterOutcome {
        let k = &self.input.pod.template.volumes;
        if k.claims || k.ephemeral || k.migratable_inline {
            PreFilterOutcome::Proceed(None)
        } else {
            PreFilterOutcome::Skip
        }
    }

    fn filter(&self, node: usize) -> (Option<Status>, Option<Self::FilterDetails>) {
        let Some(volumes) = self.input.state.volumes() else {
            return (None, None);
        };
        let n = self.input.node(node);
        let csi_node = volumes.csi_node(&n.name);
        let mut new = BTreeMap::new();
        if let Err(s) = attachable(volumes, csi_node, self.input.pod, true, &mut new) {
            return (Some(s), None);
        }
        if new.is_empty() {
            return (None, None);
        }
        // `getVolumeLimits`: the node's allocatable, then its CSINode's counts.
        let mut limits: BTreeMap<String, i64> = n
            .resources
            .allocatable
            .scalars
            .iter()
            .filter(|(k, _)| k.len() < KEY_LENGTH_LIMIT)
            .filter_map(|(k, v)| Some((k.strip_prefix(CSI_LIMIT_PREFIX)?.to_string(), *v)))
            .collect();
        for d in csi_node.iter().flat_map(|c| &c.drivers) {
            if let Some(count) = d.allocatable {
                limits.insert(d.name.clone(), i64::from(count));
            }
        }
        let mut attached = BTreeMap::new();
        let state = self.input.state;
        for &i in state.pods_on(node) {
            if self.input.is_excluded(i) {
                continue;
            }
            if let Err(s) = attachable(volumes, csi_node, &state.pods()[i], false, &mut attached) {
                return (Some(Status::new(Code::Error, s.message())), None);
            }
        }
        let mut counts: BTreeMap<&str, DriverCount> = BTreeMap::new();
        for (name, driver) in &new {
            if !attached.contains_key(name) {
                count(&mut counts, driver).new += 1;
            }
        }
        for driver in attached.values() {
            count(&mut counts, driver).attached += 1;
        }
        let counts: Vec<DriverCount> = counts
            .into_values()
            .map(|mut c| {
                c.limit = limits.get(&c.driver).copied();
                c
            })
            .collect();
        // Only the drivers of the pod's new volumes are checked.
        let fails = counts.iter().any(|c| c.new > 0 && c.exceeded());
        (
            fails.then(|| Status::new(Code::Unschedulable, REASON)),
            Some(Box::new(FilterDetails { counts })),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scheduler::testing::{pod_of, state_of};
    use serde_json::{Value, json};

    fn claim_pod(name: &str, node: Option<&str>, claims: &[&str]) -> Value {
        let volumes: Vec<Value> = claims
            .iter()
            .map(|c| json!({"name": c, "persistentVolumeClaim": {"claimName": c}}))
            .collect();
        let mut spec = json!({"containers": [], "volumes": volumes});
        if let Some(n) = node {
            spec["nodeName"] = json!(n);
        }
        json!({"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": name, "namespace": "default"}, "spec": spec,
               "status": {"phase": "Running"}})
    }

    fn bound(claim: &str) -> [Value; 2] {
        [
            json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                   "metadata": {"name": claim, "namespace": "default",
                                "annotations": {"pv.kubernetes.io/bind-completed": "yes"}},
                   "spec": {"volumeName": format!("pv-{claim}")}}),
            json!({"apiVersion": "v1", "kind": "PersistentVolume",
                   "metadata": {"name": format!("pv-{claim}")},
                   "spec": {"csi": {"driver": "ebs.csi.aws.com", "volumeHandle": claim}}}),
        ]
    }

    /// A node whose CSINode allows two EBS volumes, with two attached, fails a pod with a
    /// third; a node allowing three passes it; a volume already attached is not counted twice.
    #[test]
    fn csi_attach_limits() {
        let mut items = vec![
            json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "small"}}),
            json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "big"}}),
            claim_pod("a", Some("small"), &["one", "two"]),
            claim_pod("b", Some("big"), &["one", "two"]),
        ];
        for (name, count) in [("small", 2), ("big", 3)] {
            items.push(json!({"apiVersion": "storage.k8s.io/v1", "kind": "CSINode",
                "metadata": {"name": name},
                "spec": {"drivers": [{"name": "ebs.csi.aws.com", "nodeID": name,
                                      "allocatable": {"count": count}}]}}));
        }
        for c in ["one", "two", "three"] {
            items.extend(bound(c));
        }
        let state = state_of(Value::Array(items));
        let run = |claims: &[&str], node: usize| {
            let incoming = pod_of(claim_pod("p", None, claims));
            let plugin = NodeVolumeLimits::new(Input {
                pod: &incoming,
                state: &state,
                exclude: None,
                removed: &[],
            });
            assert_eq!(plugin.unavailable(), None);
            plugin.filter(node)
        };
        let (status, details) = run(&["three"], 0);
        assert_eq!(status.map(|s| s.message()), Some(REASON.into()));
        assert_eq!(
            details.expect("details").counts,
            [DriverCount {
                driver: "ebs.csi.aws.com".into(),
                limit: Some(2),
                attached: 2,
                new: 1
            }]
        );
        assert!(run(&["three"], 1).0.is_none());
        assert!(run(&["one"], 0).0.is_none());
        let (status, _) = run(&["missing"], 0);
        assert_eq!(
            status.map(|s| s.message()),
            Some(
                "looking up PVC default/missing: persistentvolumeclaim \"missing\" not found"
                    .into()
            )
        );
    }

    /// An in-tree volume counts only on a node that migrated its plugin, after a translation
    /// that is not modelled: the plugin is then not evaluated, and otherwise exact.
    #[test]
    fn in_tree_volumes_are_not_evaluated_once_migrated() {
        let items = |annotations: Value| {
            json!([
                {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}},
                {"apiVersion": "storage.k8s.io/v1", "kind": "CSINode",
                 "metadata": {"name": "n", "annotations": annotations},
                 "spec": {"drivers": [{"name": "pd.csi.storage.gke.io", "nodeID": "n",
                                       "allocatable": {"count": 0}}]}},
                {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                 "metadata": {"name": "old", "namespace": "default",
                              "annotations": {"pv.kubernetes.io/bind-completed": "yes"}},
                 "spec": {"volumeName": "pv-old"}},
                {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "pv-old"},
                 "spec": {"gcePersistentDisk": {"pdName": "disk-1"}}}
            ])
        };
        let incoming = pod_of(claim_pod("p", None, &["old"]));
        let migrated = state_of(items(
            json!({"storage.alpha.kubernetes.io/migrated-plugins": "kubernetes.io/gce-pd"}),
        ));
        let plugin = NodeVolumeLimits::new(Input {
            pod: &incoming,
            state: &migrated,
            exclude: None,
            removed: &[],
        });
        assert_eq!(
            plugin.gap(),
            Some(Gap::Translated {
                plugin: "kubernetes.io/gce-pd"
            })
        );
        let not_migrated = state_of(items(json!({})));
        let plugin = NodeVolumeLimits::new(Input {
            pod: &incoming,
            state: &not_migrated,
            exclude: None,
            removed: &[],
        });
        assert_eq!(plugin.gap(), None);
        assert_eq!(plugin.filter(0).0, None);
    }
}
