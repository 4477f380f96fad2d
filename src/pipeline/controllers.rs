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
//! (`OrderedReady`: ordinal N+1 is created once N is Running and Ready), `job/
//! job_controller.go` (a Job's pods, `parallelism` at most `completions` at once, owned by
//! the Job) and `cronjob/utils.go` (a CronJob's Job from its `jobTemplate`).

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
    /// What the note adds on how many pods run at once, or how the owner is named.
    rule: Option<String>,
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
    /// manifest names none; `None` for DaemonSets, ReplicationControllers and PodTemplates,
    /// whose pods are made as before.
    pub fn of(m: &ManifestPod, namespace: &str) -> Option<Controller> {
        let spec = m.workload.as_ref()?;
        let name = m.workload_name().to_string();
        let namespace = (m.pod.metadata.namespace.clone()).unwrap_or_else(|| namespace.to_string());
        let hash = template_hash(&spec.template);
        let mut labels = BTreeMap::new();
        let mut rule = None;
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
            "Job" | "CronJob" => {
                // A CronJob's Job is `<cronjob>-<scheduled time in minutes>`
                // (`getJobFromTemplate2`, pkg/controller/cronjob/utils.go); the time is not
                // known here, and the stand-in must be a valid label value (`job-name`).
                let job = match m.kind.as_str() {
                    "CronJob" => format!("{name}-00000000"),
                    _ => name.clone(),
                };
                // The API server puts these on a Job's pod template when it makes the Job's
                // selector (`generateSelector`, pkg/registry/batch/job/strategy.go), unless
                // the Job has a selector of its own (`manualSelector`).
                if spec.selector.is_none() {
                    let uid = stand_in_uid(&namespace, &job);
                    for key in [JOB_UID_LABEL, LEGACY_JOB_UID_LABEL] {
                        labels.insert(key.to_string(), uid.clone());
                    }
                    for key in [JOB_NAME_LABEL, LEGACY_JOB_NAME_LABEL] {
                        labels.insert(key.to_string(), job.clone());
                    }
                }
                let count = m.replicas.unwrap_or(1);
                let mut says = format!(
                    "{count} pod{} at once (the Job controller's parallelism, at most its \
                     completions)",
                    if count == 1 { "" } else { "s" }
                );
                if m.kind == "CronJob" {
                    says.push_str(&format!(
                        "; the CronJob's Job is named {job}: 00000000 stands in for the \
                         scheduled time in minutes the controller names it by"
                    ));
                }
                if spec.selector.is_none() {
                    says.push_str("; the Job's uid in the labels is a stand-in for the one the API server assigns");
                }
                rule = Some(says);
                ("Job", job, None, None, Order::AtOnce)
            }
            _ => return None,
        };
        Some(Controller {
            workload: m.kind.clone(),
            owner_kind,
            owner_name,
            rule,
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
            api_version: match self.owner_kind {
                "Job" => "batch/v1",
                _ => "apps/v1",
            }
            .to_string(),
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

    /// The object that owns the pods, as the state keeps it, once applied; `None` for a Job,
    /// which the scheduler reads nothing of.
    pub fn owner(&self) -> Option<Object> {
        let key = self.owner_key();
        let selector = self.selector.clone();
        match self.owner_kind {
            "StatefulSet" => Some(Object::StatefulSet { key, selector }),
            "ReplicaSet" => Some(Object::ReplicaSet { key, selector }),
            _ => None,
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
            spread_reads: self.owner().is_some(),
            rule: self.rule.clone(),
        }
    }
}

/// A uid of the form the API server assigns, the same for the same object from run to run.
fn stand_in_uid(namespace: &str, name: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in format!("{namespace}/{name}").bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!(
        "{:08x}-{:04x}-4{:03x}-8{:03x}-{:012x}",
        h >> 32,
        (h >> 16) & 0xffff,
        h & 0xfff,
        (h >> 20) & 0xfff,
        h & 0xffff_ffff_ffff
    )
}

const HASH_LABEL: &str = "pod-template-hash";
const REVISION_LABEL: &str = "controller-revision-hash";
const POD_NAME_LABEL: &str = "statefulset.kubernetes.io/pod-name";
const POD_INDEX_LABEL: &str = "apps.kubernetes.io/pod-index";
const JOB_UID_LABEL: &str = "batch.kubernetes.io/controller-uid";
const JOB_NAME_LABEL: &str = "batch.kubernetes.io/job-name";
const LEGACY_JOB_UID_LABEL: &str = "controller-uid";
const LEGACY_JOB_NAME_LABEL: &str = "job-name";

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
        let Some(Object::ReplicaSet { key, selector }) = c.owner() else {
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
            matches!(c.owner(), Some(Object::StatefulSet { key, .. }) if key == ("s".into(), "zk".into()))
        );
        let parallel = manifest(&text("  podManagementPolicy: Parallel\n"));
        assert_eq!(
            Controller::of(&parallel, "default").unwrap().order,
            Order::AtOnce
        );
    }

    /// A Job's pods carry the labels the API server puts on its template (the uid a
    /// stand-in), are owned by the Job, and no owner joins the state (default spreading does
    /// not read Jobs); the note says how many run at once.
    #[test]
    fn a_jobs_pods_are_owned_by_it() {
        let m = manifest(
            "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j, namespace: b}\nspec:\n  \
             parallelism: 4\n  completions: 2\n  template:\n    spec: \
             {containers: [{name: c, image: x}], restartPolicy: Never}\n",
        );
        assert_eq!(m.replicas, Some(2), "min(parallelism, completions)");
        let c = Controller::of(&m, "default").unwrap();
        let r = c.replica(&m, 1);
        let labels = r.pod.metadata.labels.clone().unwrap();
        assert_eq!(labels["batch.kubernetes.io/job-name"], "j");
        assert_eq!(labels["job-name"], "j");
        let uid = &labels["batch.kubernetes.io/controller-uid"];
        assert_eq!(&labels["controller-uid"], uid);
        assert_eq!(uid.len(), 36, "{uid}");
        assert_eq!(r.pod.metadata.name.as_deref(), Some("j-<pod-1>"));
        let owner = &r.pod.metadata.owner_references.as_ref().unwrap()[0];
        assert_eq!(
            (
                owner.api_version.as_str(),
                owner.kind.as_str(),
                owner.name.as_str()
            ),
            ("batch/v1", "Job", "j")
        );
        assert_eq!(owner.controller, Some(true));
        assert!(c.owner().is_none());
        assert_eq!(c.order, Order::AtOnce);
        let Note::CreatedByController {
            spread_reads, rule, ..
        } = c.note()
        else {
            panic!("the controller's note")
        };
        assert!(!spread_reads);
        assert!(
            rule.unwrap()
                .starts_with("2 pods at once (the Job controller's parallelism")
        );
        // A selector of its own (`manualSelector`): the API server adds no labels.
        let manual = manifest(
            "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n  manualSelector: \
             true\n  selector: {matchLabels: {app: j}}\n  template:\n    metadata: {labels: \
             {app: j}}\n    spec: {containers: [{name: c, image: x}], restartPolicy: Never}\n",
        );
        let c = Controller::of(&manual, "default").unwrap();
        let labels = c.replica(&manual, 0).pod.metadata.labels.unwrap();
        assert_eq!(labels.keys().collect::<Vec<_>>(), ["app"]);
    }

    /// A CronJob's pods are its Job's, from the job template, the Job named with a stand-in
    /// for the scheduled time.
    #[test]
    fn a_cron_jobs_pods_are_its_jobs() {
        let m = manifest(
            "apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: nightly}\nspec:\n  schedule: \
             \"0 1 * * *\"\n  jobTemplate:\n    spec:\n      parallelism: 3\n      template:\n        \
             spec: {containers: [{name: c, image: x}], restartPolicy: OnFailure}\n",
        );
        assert_eq!(m.replicas, Some(3));
        let c = Controller::of(&m, "default").unwrap();
        let r = c.replica(&m, 0);
        let labels = r.pod.metadata.labels.clone().unwrap();
        assert_eq!(labels["batch.kubernetes.io/job-name"], "nightly-00000000");
        let owner = &r.pod.metadata.owner_references.as_ref().unwrap()[0];
        assert_eq!(
            (owner.kind.as_str(), owner.name.as_str()),
            ("Job", "nightly-00000000")
        );
        let Note::CreatedByController { rule, .. } = c.note() else {
            panic!("the controller's note")
        };
        assert!(
            rule.unwrap()
                .contains("the CronJob's Job is named nightly-00000000: 00000000 stands in")
        );
    }

    /// DaemonSets are made as before: one pod per node, no owner.
    #[test]
    fn daemon_sets_make_no_owner() {
        let m = manifest(
            "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: d}\nspec:\n  selector: \
             {matchLabels: {app: d}}\n  template:\n    metadata: {labels: {app: d}}\n    spec: \
             {containers: [{name: c, image: x}]}\n",
        );
        assert!(Controller::of(&m, "default").is_none());
    }
}
