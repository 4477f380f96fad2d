//! VolumeRestrictions (`pkg/scheduler/framework/plugins/volumerestrictions`): a node fails when
//! one of its pods mounts the same GCE PD, EBS, RBD or iSCSI disk as the pod (unless both
//! mount it read-only), and every node fails while any pod uses a ReadWriteOncePod claim
//! of the pod.

pub mod explain;

use std::convert::Infallible;

use serde::Serialize;

use super::plugin::{Input, Plugin};
use super::plugin_id::PluginId;
use super::release::Release;
use super::status::{Code, PreFilterOutcome, Status};
use super::storage::{Gap, claim_not_found};
use crate::state::PodRef;
use crate::state::volumes::{InlineDisk, PodVolume};

/// Upstream's `ErrReasonDiskConflict`.
pub const REASON_DISK: &str = "node(s) had no available disk";
/// Upstream's `ErrReasonReadWriteOncePodConflict` since 1.34.
pub const REASON_RWOP: &str = "node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode already in-use by another pod";
/// `ErrReasonReadWriteOncePodConflict` up to 1.33.
pub const REASON_RWOP_BEFORE_1_34: &str =
    "node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode";

/// A disk of the pod that a pod on the node already mounts.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DiskConflict {
    #[serde(serialize_with = "described")]
    pub disk: InlineDisk,
    pub pod: PodRef,
}

/// A ReadWriteOncePod claim of the pod and the pods already using it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ClaimInUse {
    pub claim: String,
    pub pods: Vec<PodRef>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FilterDetails {
    pub disk_conflicts: Vec<DiskConflict>,
    /// The same for every node: upstream counts the claim's users over the whole cluster.
    pub claims_in_use: Vec<ClaimInUse>,
}

/// A disk as its conflicts name it.
fn described<S: serde::Serializer>(disk: &InlineDisk, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&disk.describe())
}

#[derive(Debug)]
pub struct VolumeRestrictions<'a> {
    input: Input<'a>,
    disks: Vec<&'a InlineDisk>,
    claims_in_use: Vec<ClaimInUse>,
    /// The release whose reason text the ReadWriteOncePod conflict takes.
    release: Release,
}

impl<'a> VolumeRestrictions<'a> {
    pub fn new(input: Input<'a>, release: Release) -> Self {
        VolumeRestrictions {
            release,
            input,
            disks: input
                .pod
                .template
                .storage
                .iter()
                .filter_map(|v| match v {
                    PodVolume::Disk(d) => Some(d),
                    _ => None,
                })
                .collect(),
            claims_in_use: Vec::new(),
        }
    }

    /// Only the claims are read from the cluster: a pod with inline disks alone needs none.
    pub(crate) fn gap(&self) -> Option<Gap> {
        (self.claims().next().is_some() && self.input.state.volumes().is_none())
            .then_some(Gap::Unread)
    }

    fn claims(&self) -> impl Iterator<Item = &'a str> {
        self.input
            .pod
            .template
            .storage
            .iter()
            .filter_map(|v| match v {
                PodVolume::Claim { claim, .. } => Some(claim.as_str()),
                _ => None,
            })
    }
}

impl Plugin for VolumeRestrictions<'_> {
    type FilterDetails = Box<FilterDetails>;
    type ScoreDetails = Infallible;
    type Tables = Infallible;

    fn unavailable(&self) -> Option<String> {
        self.gap()
            .map(|g| format!("{} is not evaluated: {g}", PluginId::VolumeRestrictions))
    }

    /// `PreFilter`: the pod's ReadWriteOncePod claims (`readWriteOncePodPVCsForPod`: only
    /// `persistentVolumeClaim` volumes, a missing claim rejects the pod) and how many of them
    /// some pod already uses (`calPreFilterState`); Skip when that is none and the pod has
    /// no inline disk.
    fn pre_filter(&mut self) -> PreFilterOutcome {
        let pod = self.input.pod;
        let mut wanted: Vec<&str> = Vec::new();
        if let Some(volumes) = self.input.state.volumes() {
            for name in self.claims() {
                match volumes.claim(&pod.id.namespace, name) {
                    None => {
                        return PreFilterOutcome::Reject(Status::new(
                            Code::UnschedulableAndUnresolvable,
                            claim_not_found(name),
                        ));
                    }
                    Some(c) if c.read_write_once_pod() && !wanted.contains(&name) => {
                        wanted.push(name)
                    }
                    Some(_) => {}
                }
            }
        }
        let mut in_use: Vec<ClaimInUse> = wanted
            .iter()
            .map(|c| ClaimInUse {
                claim: c.to_string(),
                pods: Vec::new(),
            })
            .collect();
        // Only the users of the pod's ReadWriteOncePod claims are looked for: with none, no
        // pod is walked (upstream asks its snapshot's StorageInfos per claim).
        if !in_use.is_empty() {
            for (_, other, _) in self.input.existing_pods() {
                if other.id.namespace != pod.id.namespace {
                    continue;
                }
                for v in &other.template.storage {
                    let Some(name) = v.claim_name(&other.id.name) else {
                        continue;
                    };
                    if let Some(u) = in_use.iter_mut().find(|u| u.claim == name) {
                        u.pods.push((*other.id).clone());
                    }
                }
            }
        }
        in_use.retain(|u| !u.pods.is_empty());
        self.claims_in_use = in_use;
        if self.disks.is_empty() && self.claims_in_use.is_empty() {
            PreFilterOutcome::Skip
        } else {
            PreFilterOutcome::Proceed(None)
        }
    }

    fn filter(&self, node: usize) -> (Option<Status>, Option<Self::FilterDetails>) {
        let state = self.input.state;
        let mut disk_conflicts = Vec::new();
        for disk in &self.disks {
            for &i in state.pods_on(node) {
                if self.input.is_excluded(i) {
                    continue;
                }
                let other = &state.pods()[i];
                let clash = other.template.storage.iter().any(|v| match v {
                    PodVolume::Disk(d) => disk.conflicts_with(d),
                    _ => false,
                });
                if clash {
                    disk_conflicts.push(DiskConflict {
                        disk: (*disk).clone(),
                        pod: (*other.id).clone(),
                    });
                }
            }
        }
        // `Filter`: disks first, then the claims (`satisfyReadWriteOncePod`).
        let status = if !disk_conflicts.is_empty() {
            Some(Status::new(Code::Unschedulable, REASON_DISK))
        } else if !self.claims_in_use.is_empty() {
            let reason = if self.release.facts().read_write_once_pod_older_reason {
                REASON_RWOP_BEFORE_1_34
            } else {
                REASON_RWOP
            };
            Some(Status::new(Code::Unschedulable, reason))
        } else {
            None
        };
        (
            status,
            Some(Box::new(FilterDetails {
                disk_conflicts,
                claims_in_use: self.claims_in_use.clone(),
            })),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scheduler::testing::{pod_of, state_of, zone_node};
    use serde_json::{Value, json};

    fn with_volume(name: &str, node_name: Option<&str>, volume: Value) -> Value {
        let mut spec = json!({"containers": [{"name": "c", "image": "pause"}],
            "volumes": [volume]});
        if let Some(n) = node_name {
            spec["nodeName"] = json!(n);
        }
        json!({"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": name, "namespace": "default"}, "spec": spec,
               "status": {"phase": "Running"}})
    }

    fn claim_pod(name: &str, node_name: Option<&str>, claim: &str) -> Value {
        with_volume(
            name,
            node_name,
            json!({"name": "d", "persistentVolumeClaim": {"claimName": claim}}),
        )
    }

    /// A ReadWriteOncePod claim in use anywhere fails every node with upstream's reason; one
    /// without that access mode skips the plugin; a missing one rejects the pod.
    #[test]
    fn read_write_once_pod_claims_in_use_fail_every_node() {
        let state = state_of(json!([
            zone_node("n1", "a"),
            zone_node("n2", "b"),
            claim_pod("user", Some("n1"), "solo"),
            {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
             "metadata": {"name": "solo", "namespace": "default"},
             "spec": {"accessModes": ["ReadWriteOncePod"]}},
            {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
             "metadata": {"name": "shared", "namespace": "default"},
             "spec": {"accessModes": ["ReadWriteOnce"]}}
        ]));
        let run_on = |claim: &str, release: Release| {
            let incoming = pod_of(claim_pod("p", None, claim));
            let input = Input {
                pod: &incoming,
                state: &state,
                exclude: None,
                removed: &[],
            };
            let mut plugin = VolumeRestrictions::new(input, release);
            let pre = plugin.pre_filter();
            let nodes: Vec<_> = (0..2).map(|n| plugin.filter(n)).collect();
            (pre, nodes)
        };
        let run = |claim: &str| run_on(claim, Release::V1_35);
        let (pre, nodes) = run("solo");
        assert_eq!(pre, PreFilterOutcome::Proceed(None));
        for (status, details) in nodes {
            assert_eq!(status.map(|s| s.message()), Some(REASON_RWOP.into()));
            let details = details.expect("details");
            assert_eq!(details.claims_in_use[0].pods[0].to_string(), "default/user");
        }
        // Up to 1.33 the same conflict read differently.
        for (release, reason) in [
            (Release::V1_33, REASON_RWOP_BEFORE_1_34),
            (Release::V1_34, REASON_RWOP),
        ] {
            let (_, nodes) = run_on("solo", release);
            assert_eq!(
                nodes[0].0.as_ref().map(|s| s.message()),
                Some(reason.into())
            );
        }
        assert_eq!(run("shared").0, PreFilterOutcome::Skip);
        assert_eq!(
            run("gone").0,
            PreFilterOutcome::Reject(Status::new(
                Code::UnschedulableAndUnresolvable,
                "persistentvolumeclaim \"gone\" not found"
            ))
        );
    }

    /// The same GCE PD mounted read-write on a node fails that node only.
    #[test]
    fn a_shared_disk_fails_its_node() {
        let disk = json!({"name": "d", "gcePersistentDisk": {"pdName": "data"}});
        let state = state_of(json!([
            zone_node("n1", "a"),
            zone_node("n2", "b"),
            with_volume("user", Some("n1"), disk.clone()),
        ]));
        let incoming = pod_of(with_volume("p", None, disk));
        let input = Input {
            pod: &incoming,
            state: &state,
            exclude: None,
            removed: &[],
        };
        let mut plugin = VolumeRestrictions::new(input, Release::V1_35);
        assert_eq!(plugin.unavailable(), None);
        assert_eq!(plugin.pre_filter(), PreFilterOutcome::Proceed(None));
        assert_eq!(
            plugin.filter(0).0.map(|s| s.message()),
            Some(REASON_DISK.into())
        );
        assert!(plugin.filter(1).0.is_none());
    }
}
