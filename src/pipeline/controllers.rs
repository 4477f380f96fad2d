//! The controllers' rules for a workload `whatif -f` applies: which object owns its pods (a
//! Deployment's new ReplicaSet, a ReplicaSet or StatefulSet itself), how that controller names
//! and labels each pod it creates, and in what order it creates them.
//!
//! The owner joins the state as the apply would create it: PodTopologySpread's default
//! constraints (`helper.DefaultSelector`) select a pod by its Services and by its controller's
//! selector, so without it the replicas are not spread from one another.
//!
//! From pkg/controller: `deployment/sync.go` (`getNewReplicaSet`: the ReplicaSet
//! `<deployment>-<pod-template-hash>`, its selector and template labelled with the hash),
//! `replicaset/replica_set.go` (`slowStartBatch`: the pods at once), `statefulset/
//! stateful_set_utils.go` (`newVersionedStatefulSetPod`: `controller-revision-hash`, the
//! pod-name and pod-index labels, hostname and subdomain) and `stateful_set_control.go`
//! (`OrderedReady`: ordinal N+1 is created once N is Running and Ready).

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1 as meta;

use crate::report::Note;
use crate::state::{ManifestPod, Object};

/// The order in which a controller creates a workload's pods.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// All of them, each created whether or not the ones before were placed.
    AtOnce,
    /// A StatefulSet's `OrderedReady`: ordinal N+1 only once N runs, so none after a
    /// replica that stays Pending.
    OrderedReady,
}

/// The controller of a new workload, as it makes the workload's pods.
#[derive(Debug, Clone)]
pub struct Controller {
    /// The workload's kind (`Deployment`).
    workload: String,
    /// The object that owns the pods: kind and name (`ReplicaSet`, `web-5d8f7b9c4`).
    owner_kind: &'static str,
    owner_name: String,
    namespace: String,
    /// The owner's `spec.selector`, which default spreading reads.
    selector: Option<meta::LabelSelector>,
    /// The labels the controller adds to each pod, beside the template's.
    labels: BTreeMap<String, String>,
    /// A StatefulSet's: hostname and subdomain are the controller's too.
    stateful: Option<Stateful>,
    pub order: Order,
}

#[derive(Debug, Clone)]
struct Stateful {
    service_name: Option<String>,
}

impl Controller {
    /// The controller of the workload `m` is a replica template of, in `namespace` when the
    /// manifest names none; `None` for the kinds whose pods default spreading does not select
    /// by their controller (Jobs, CronJobs, DaemonSets, ReplicationControllers, PodTemplates),
    /// made as before.
    pub fn of(m: &ManifestPod, namespace: &str) -> Option<Controller> {
        let spec = m.workload.as_ref()?;
        let name = m.workload_name().to_string();
        let namespace = (m.pod.metadata.namespace.clone()).unwrap_or_else(|| namespace.to_string());
        let hash = template_hash(&spec.template);
        let mut labels = BTreeMap::new();
        let (owner_kind, owner_name, selector, stateful, order) = match m.kind.as_str() {
            "Deployment" => {
                // `pod-template-hash`: on the ReplicaSet's selector, and on every pod.
                labels.insert(HASH_LABEL.to_string(), hash.clone());
                let mut selector = spec.selector.clone().unwrap_or_default();
                (selector.match_labels.get_or_insert_with(Default::default))
                    .insert(HASH_LABEL.to_string(), hash.clone());
                let rs = format!("{name}-{hash}");
                ("ReplicaSet", rs, Some(selector), None, Order::AtOnce)
            }
            "ReplicaSet" => (
                "ReplicaSet",
                name.clone(),
                spec.selector.clone(),
                None,
                Order::AtOnce,
            ),
            "StatefulSet" => {
                labels.insert(REVISION_LABEL.to_string(), format!("{name}-{hash}"));
                let order = match spec.pod_management_policy.as_deref() {
                    Some("Parallel") => Order::AtOnce,
                    _ => Order::OrderedReady,
                };
                let stateful = Stateful {
                    service_name: spec.service_name.clone(),
                };
                (
                    "StatefulSet",
                    name.clone(),
                    spec.selector.clone(),
                    Some(stateful),
                    order,
                )
            }
            _ => return None,
        };
        Some(Controller {
            workload: m.kind.clone(),
            owner_kind,
            owner_name,
            namespace,
            selector,
            labels,
            stateful,
            order,
        })
    }

    /// The pod of replica `index` as the controller creates it: named as
    /// [`ManifestPod::as_replica`] names it (a ReplicaSet's random suffix, after the hash,
    /// shown as `<workload>-<pod-INDEX>`), labelled, owned by the controller's object, a
    /// StatefulSet's with its hostname and subdomain.
    pub fn replica(&self, m: &ManifestPod, index: u32) -> ManifestPod {
        let mut r = m.as_replica(index);
        let meta = &mut r.pod.metadata;
        let pod_name = meta.name.clone().unwrap_or_default();
        let labels = meta.labels.get_or_insert_with(Default::default);
        labels.extend(self.labels.clone());
        if let Some(s) = &self.stateful {
            labels.insert(POD_NAME_LABEL.to_string(), pod_name.clone());
            let ordinal = pod_name.rsplit_once('-').map_or("", |(_, o)| o);
            labels.insert(POD_INDEX_LABEL.to_string(), ordinal.to_string());
            let spec = r.pod.spec.get_or_insert_with(Default::default);
            spec.hostname = Some(pod_name);
            spec.subdomain.clone_from(&s.service_name);
        }
        r.pod.metadata.owner_references = Some(vec![meta::OwnerReference {
            api_version: "apps/v1".to_string(),
            kind: self.owner_kind.to_string(),
            name: self.owner_name.clone(),
            uid: String::new(),
            controller: Some(true),
            block_owner_deletion: Some(true),
        }]);
        r
    }

    /// The namespace and name of the object that owns the pods.
    pub fn owner_key(&self) -> (String, String) {
        (self.namespace.clone(), self.owner_name.clone())
    }

    /// The object that owns the pods, as the state keeps it, once applied.
    pub fn owner(&self) -> Object {
        let key = self.owner_key();
        let selector = self.selector.clone();
        match self.owner_kind {
            "StatefulSet" => Object::StatefulSet { key, selector },
            _ => Object::ReplicaSet { key, selector },
        }
    }

    /// What the note on the replicas says of how they were created.
    pub fn note(&self) -> Note {
        Note::CreatedByController {
            workload: self.workload.clone(),
            owner: format!("{}/{}", self.owner_kind, self.owner_name),
            labels: (self.labels.iter())
                .map(|(k, v)| format!("{k}={v}"))
                .collect(),
            ordered: self.order == Order::OrderedReady,
        }
    }
}

const HASH_LABEL: &str = "pod-template-hash";
const REVISION_LABEL: &str = "controller-revision-hash";
const POD_NAME_LABEL: &str = "statefulset.kubernetes.io/pod-name";
const POD_INDEX_LABEL: &str = "apps.kubernetes.io/pod-index";

/// A hash of the pod template in the controllers' alphabet (`rand.SafeEncodeString` of the
/// FNV-32a sum in decimal). Upstream hashes Go's in-memory template (`ComputeHash`), which this
/// cannot reproduce, so the value differs from the cluster's; what scheduling reads of it is
/// that the workload's pods share it and others' pods do not (`matchLabelKeys`).
fn template_hash(template: &serde_json::Value) -> String {
    const ALPHANUMS: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
    let text = template.to_string();
    let mut sum: u32 = 0x811c_9dc5;
    for b in text.bytes() {
        sum ^= u32::from(b);
        sum = sum.wrapping_mul(0x0100_0193);
    }
    sum.to_string()
        .bytes()
        .map(|b| char::from(ALPHANUMS[usize::from(b) % ALPHANUMS.len()]))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::read_pod_manifests_str;

    fn manifest(text: &str) -> ManifestPod {
        read_pod_manifests_str(text, "t.yaml").unwrap().remove(0)
    }

    /// A Deployment's pods are its new ReplicaSet's: named after it, labelled and selected
    /// by `pod-template-hash`, owned by it.
    #[test]
    fn a_deployments_pods_come_from_its_replica_set() {
        let m = manifest(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: 2\n  \
             selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    \
             spec: {containers: [{name: c, image: x}]}\n",
        );
        let c = Controller::of(&m, "default").unwrap();
        let r = c.replica(&m, 1);
        let labels = r.pod.metadata.labels.clone().unwrap();
        let hash = labels.get("pod-template-hash").unwrap().clone();
        assert!(!hash.is_empty());
        assert!(
            hash.bytes()
                .all(|b| b"bcdfghjklmnpqrstvwxz2456789".contains(&b))
        );
        let rs = format!("web-{hash}");
        assert_eq!(r.pod.metadata.name.as_deref(), Some("web-<pod-1>"));
        let owner = &r.pod.metadata.owner_references.as_ref().unwrap()[0];
        assert_eq!(
            (owner.kind.as_str(), owner.name.as_str()),
            ("ReplicaSet", rs.as_str())
        );
        let Object::ReplicaSet { key, selector } = c.owner() else {
            panic!("a ReplicaSet owns them")
        };
        assert_eq!(key, ("default".to_string(), rs));
        let sel = selector.unwrap().match_labels.unwrap();
        assert_eq!(sel.get("app").map(String::as_str), Some("web"));
        assert_eq!(sel.get("pod-template-hash"), Some(&hash));
        assert_eq!(c.order, Order::AtOnce);
    }

    /// A StatefulSet's pods carry its revision, their name and index, their hostname; the
    /// default policy is OrderedReady, Parallel creates them at once.
    #[test]
    fn a_stateful_sets_pods_are_its_ordinals() {
        let text = |policy: &str| {
            format!(
                "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {{name: zk, namespace: s}}\nspec:\n  \
                 replicas: 3\n  serviceName: zk-hs\n{policy}  selector: {{matchLabels: {{app: zk}}}}\n  \
                 template:\n    metadata: {{labels: {{app: zk}}}}\n    spec: {{containers: [{{name: c, image: x}}]}}\n"
            )
        };
        let m = manifest(&text(""));
        let c = Controller::of(&m, "default").unwrap();
        assert_eq!(c.order, Order::OrderedReady);
        let r = c.replica(&m, 2);
        let labels = r.pod.metadata.labels.clone().unwrap();
        assert_eq!(r.pod.metadata.name.as_deref(), Some("zk-2"));
        assert_eq!(labels["statefulset.kubernetes.io/pod-name"], "zk-2");
        assert_eq!(labels["apps.kubernetes.io/pod-index"], "2");
        assert!(labels["controller-revision-hash"].starts_with("zk-"));
        let spec = r.pod.spec.unwrap();
        assert_eq!(spec.hostname.as_deref(), Some("zk-2"));
        assert_eq!(spec.subdomain.as_deref(), Some("zk-hs"));
        assert!(
            matches!(c.owner(), Object::StatefulSet { key, .. } if key == ("s".into(), "zk".into()))
        );
        let parallel = manifest(&text("  podManagementPolicy: Parallel\n"));
        assert_eq!(
            Controller::of(&parallel, "default").unwrap().order,
            Order::AtOnce
        );
    }

    /// Jobs and DaemonSets are not read by default spreading: no owner is made for them.
    #[test]
    fn other_controllers_make_no_owner() {
        let m = manifest(
            "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n  template:\n    spec: \
             {containers: [{name: c, image: x}], restartPolicy: Never}\n",
        );
        assert!(Controller::of(&m, "default").is_none());
    }
}
