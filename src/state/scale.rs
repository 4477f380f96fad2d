//! `whatif --scale KIND/NAME=N`: a workload that exists, read as its controller would scale
//! it. The pods it would add are those its controller creates from its pod template (a
//! Deployment's through its ReplicaSet), named as the controller names them; the pods it owns
//! now stay where they are.

use std::fmt;
use std::str::FromStr;

use k8s_openapi::apimachinery::pkg::apis::meta::v1 as meta;
use serde_json::Value;

use super::manifest::{ManifestPod, pods_from_objects};
use super::pod::Pod;
use super::source::{Located, SourceError};

/// The controllers `--scale` takes: those that keep a count of pods from one template.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScaleKind {
    Deployment,
    ReplicaSet,
    StatefulSet,
}

impl ScaleKind {
    /// The API kind (`Deployment`).
    pub fn kind(self) -> &'static str {
        match self {
            ScaleKind::Deployment => "Deployment",
            ScaleKind::ReplicaSet => "ReplicaSet",
            ScaleKind::StatefulSet => "StatefulSet",
        }
    }

    /// The resource's plural, as its API path and RBAC name it (`deployments`).
    pub fn plural(self) -> &'static str {
        match self {
            ScaleKind::Deployment => "deployments",
            ScaleKind::ReplicaSet => "replicasets",
            ScaleKind::StatefulSet => "statefulsets",
        }
    }
}

/// `--scale KIND/NAME=N`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScaleTarget {
    pub kind: ScaleKind,
    pub name: String,
    pub replicas: u32,
}

impl fmt::Display for ScaleTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.kind.kind(), self.name)
    }
}

impl FromStr for ScaleTarget {
    type Err = String;

    /// KIND as kubectl spells it (`deployment`, `deployments`, `deploy`; `statefulset`, `sts`;
    /// `replicaset`, `rs`), then `/NAME=N`.
    fn from_str(s: &str) -> Result<ScaleTarget, String> {
        let usage = "give KIND/NAME=N: deploy/NAME, sts/NAME or rs/NAME and the replica count";
        let (target, count) = s
            .rsplit_once('=')
            .ok_or_else(|| format!("{s:?}: no count; {usage}"))?;
        let (resource, name) = target
            .split_once('/')
            .ok_or_else(|| format!("{s:?}: no kind; {usage}"))?;
        let kind = match resource.to_ascii_lowercase().as_str() {
            "deployment" | "deployments" | "deploy" => ScaleKind::Deployment,
            "replicaset" | "replicasets" | "rs" => ScaleKind::ReplicaSet,
            "statefulset" | "statefulsets" | "sts" => ScaleKind::StatefulSet,
            "daemonset" | "daemonsets" | "ds" => {
                return Err(format!(
                    "{s:?}: a DaemonSet has no replica count (one pod per node) and is not \
                     scaled; see where its pods go with `whatif -f daemonset.yaml`"
                ));
            }
            "job"
            | "jobs"
            | "cronjob"
            | "cronjobs"
            | "cj"
            | "replicationcontroller"
            | "replicationcontrollers"
            | "rc" => {
                return Err(format!(
                    "{s:?}: --scale of a {resource} is not supported (it takes deploy/NAME, \
                     sts/NAME or rs/NAME); pass its manifest with `whatif -f FILE --replicas N`"
                ));
            }
            other => return Err(format!("{s:?}: unknown kind {other:?}; {usage}")),
        };
        if name.is_empty() {
            return Err(format!("{s:?}: no name; {usage}"));
        }
        let replicas = count
            .parse()
            .map_err(|_| format!("{s:?}: the count {count:?} is not a whole number >= 0"))?;
        Ok(ScaleTarget {
            kind,
            name: name.to_string(),
            replicas,
        })
    }
}

/// Why a workload cannot be scaled as asked.
#[derive(Debug, thiserror::Error)]
pub enum ScaleError {
    #[error(
        "{resource} {name} not found in namespace {namespace} ({origin}); check the name and \
         namespace (-n), or list them with `kubectl get {plural} -n {namespace}`"
    )]
    NotFound {
        resource: &'static str,
        plural: &'static str,
        name: String,
        namespace: String,
        origin: String,
    },
    /// More than one of a Deployment's ReplicaSets has replicas: the Deployment controller
    /// would scale them proportionally (`scale`, pkg/controller/deployment/sync.go).
    #[error(
        "Deployment {name} is in the middle of a rollout (ReplicaSets {replica_sets} have \
         replicas): its controller would share the new replicas among them in proportion, which \
         is not simulated; retry once the rollout is done (`kubectl rollout status deploy/{name}`)"
    )]
    RollingOut { name: String, replica_sets: String },
    /// The ReplicaSet is a Deployment's: that controller would scale it back.
    #[error(
        "ReplicaSet {name} is managed by Deployment {deployment}, whose controller would scale it \
         back to the Deployment's replicas; pass --scale deploy/{deployment}=N"
    )]
    ManagedReplicaSet { name: String, deployment: String },
    /// No ReplicaSet of the Deployment has its pod template.
    #[error(
        "Deployment {name} has no ReplicaSet with its current pod template in {origin} (a \
         rollout its controller has not started, or ReplicaSets left out of the snapshot); \
         the new pods' names and pod-template-hash label are unknown"
    )]
    NoReplicaSet { name: String, origin: String },
    #[error(transparent)]
    Source(#[from] SourceError),
}

/// A workload that exists, with what its controller would create more of.
#[derive(Debug, Clone)]
pub struct Existing {
    pub target: ScaleTarget,
    /// The pod template, as `whatif -f` reads a manifest (a Deployment's: its ReplicaSet's,
    /// with the `pod-template-hash` label), its pods owned by the controller that creates
    /// them.
    pub template: ManifestPod,
    /// The controllers whose pods count as the workload's: a Deployment's ReplicaSets, else
    /// the workload itself.
    owners: Vec<(&'static str, String)>,
    /// A StatefulSet's first ordinal (`spec.ordinals.start`).
    start: Option<i64>,
}

/// What scaling adds: the replicas to create (as [`ManifestPod::as_replica`] indices).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Missing {
    /// The pods the workload owns now that are not terminal or terminating.
    pub current: u32,
    /// Those of them not bound to a node, by name.
    pub pending: Vec<String>,
    pub indices: Vec<u32>,
}

/// The workload `target` names in `namespace` among `objects` (a Deployment's ReplicaSets
/// among them); `origin` names where they were read, for messages.
pub fn existing(
    target: &ScaleTarget,
    namespace: &str,
    objects: &[Located],
    origin: &str,
) -> Result<Existing, ScaleError> {
    let in_namespace = |o: &&Located| {
        o.value
            .pointer("/metadata/namespace")
            .and_then(Value::as_str)
            == Some(namespace)
    };
    let kind = target.kind.kind();
    let workload = objects
        .iter()
        .filter(in_namespace)
        .find(|o| o.kind() == kind && o.name() == target.name)
        .ok_or_else(|| ScaleError::NotFound {
            resource: match target.kind {
                ScaleKind::Deployment => "deployment",
                ScaleKind::ReplicaSet => "replicaset",
                ScaleKind::StatefulSet => "statefulset",
            },
            plural: target.kind.plural(),
            name: target.name.clone(),
            namespace: namespace.to_string(),
            origin: origin.to_string(),
        })?;
    let (object, owners) = match target.kind {
        ScaleKind::Deployment => {
            let replica_sets: Vec<&Located> = objects
                .iter()
                .filter(in_namespace)
                .filter(|o| {
                    o.kind() == "ReplicaSet"
                        && controller_of(o) == Some(("Deployment", target.name.as_str()))
                })
                .collect();
            let rs = scaled_replica_set(workload, &replica_sets, origin)?;
            let owners = replica_sets
                .iter()
                .map(|o| ("ReplicaSet", o.name().to_string()))
                .collect();
            (rs, owners)
        }
        ScaleKind::ReplicaSet | ScaleKind::StatefulSet => {
            if let Some(("Deployment", deployment)) = controller_of(workload) {
                return Err(ScaleError::ManagedReplicaSet {
                    name: target.name.clone(),
                    deployment: deployment.to_string(),
                });
            }
            (workload, vec![(kind, target.name.clone())])
        }
    };
    let mut template = pods_from_objects(std::slice::from_ref(object), origin)?
        .into_iter()
        .next()
        .ok_or_else(|| ScaleError::NoReplicaSet {
            name: target.name.clone(),
            origin: origin.to_string(),
        })?;
    // The controller makes itself the pods' controller (`GetControllerOf`), which default
    // spreading reads their selector from.
    template.pod.metadata.owner_references = Some(vec![meta::OwnerReference {
        api_version: "apps/v1".to_string(),
        kind: object.kind().to_string(),
        name: object.name().to_string(),
        uid: object
            .value
            .pointer("/metadata/uid")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
        controller: Some(true),
        block_owner_deletion: Some(true),
    }]);
    let start = (target.kind == ScaleKind::StatefulSet).then(|| {
        workload
            .value
            .pointer("/spec/ordinals/start")
            .and_then(Value::as_i64)
            .unwrap_or(0)
    });
    Ok(Existing {
        target: target.clone(),
        template,
        owners,
        start,
    })
}

impl Existing {
    /// Whether the workload's controller owns `pod` and keeps it (not terminal, not
    /// terminating: the controllers count neither, pkg/controller/controller_utils.go
    /// `FilterActivePods`).
    fn owns(&self, pod: &Pod) -> bool {
        let owned = pod.controller.as_deref().is_some_and(|c| {
            self.owners
                .iter()
                .any(|(kind, name)| c.kind == *kind && c.name == *name)
        });
        owned
            && *pod.id.namespace == *self.template_namespace()
            && !pod.terminating
            && !pod.is_terminal()
    }

    /// The pods among `pods` the workload owns and keeps, as [`Existing::missing`] counts
    /// them: an update replaces these.
    pub fn owned<'a>(&self, pods: impl IntoIterator<Item = &'a Pod>) -> Vec<&'a Pod> {
        pods.into_iter().filter(|p| self.owns(p)).collect()
    }

    fn template_namespace(&self) -> &str {
        self.template
            .pod
            .metadata
            .namespace
            .as_deref()
            .unwrap_or("")
    }

    /// The replicas scaling to `target.replicas` adds beside the pods the workload owns
    /// among `pods`. A StatefulSet's are its missing ordinals from its first, in order (its
    /// controller creates ordinal `start + k` for every k below the count that has no pod,
    /// pkg/controller/statefulset/stateful_set_control.go); other controllers' are numbered
    /// after the pods they own, none when they own the count already.
    pub fn missing<'a>(&self, pods: impl IntoIterator<Item = &'a Pod>) -> Missing {
        let owned: Vec<&Pod> = pods.into_iter().filter(|p| self.owns(p)).collect();
        let current = u32::try_from(owned.len()).unwrap_or(u32::MAX);
        let wanted = self.target.replicas;
        let indices = match self.start {
            None => (current..wanted).collect(),
            Some(start) => {
                let prefix = format!("{}-", self.target.name);
                let ordinals: Vec<i64> = owned
                    .iter()
                    .filter_map(|p| p.id.name.strip_prefix(prefix.as_str())?.parse().ok())
                    .collect();
                (0..wanted)
                    .filter(|&k| !ordinals.contains(&start.saturating_add(i64::from(k))))
                    .collect()
            }
        };
        let mut pending: Vec<String> = owned
            .iter()
            .filter(|p| p.node_name.is_empty())
            .map(|p| p.id.name.to_string())
            .collect();
        pending.sort();
        Missing {
            current,
            pending,
            indices,
        }
    }
}

/// The kind and name of `o`'s controller (`metav1.GetControllerOf`).
fn controller_of(o: &Located) -> Option<(&str, &str)> {
    o.value
        .pointer("/metadata/ownerReferences")?
        .as_array()?
        .iter()
        .find(|r| r.get("controller").and_then(Value::as_bool) == Some(true))
        .and_then(|r| Some((r.get("kind")?.as_str()?, r.get("name")?.as_str()?)))
}

/// The ReplicaSet the Deployment controller scales (`FindActiveOrLatest`,
/// pkg/controller/deployment/util/deployment_util.go): the only one with replicas; with none,
/// the new one (`FindNewReplicaSet`: the oldest whose template equals the Deployment's but
/// for `pod-template-hash`). More than one with replicas is a rollout, scaled in proportion.
fn scaled_replica_set<'a>(
    deployment: &Located,
    replica_sets: &[&'a Located],
    origin: &str,
) -> Result<&'a Located, ScaleError> {
    let name = deployment.name().to_string();
    let replicas = |o: &Located| o.value.pointer("/spec/replicas").and_then(Value::as_i64);
    let mut active: Vec<&Located> = replica_sets
        .iter()
        .copied()
        .filter(|o| replicas(o).unwrap_or(1) > 0)
        .collect();
    if active.len() > 1 {
        active.sort_by_key(|o| o.name().to_string());
        let names: Vec<&str> = active.iter().map(|o| o.name()).collect();
        return Err(ScaleError::RollingOut {
            name,
            replica_sets: names.join(", "),
        });
    }
    if let Some(only) = active.pop() {
        return Ok(only);
    }
    let template = deployment.value.pointer("/spec/template").map(without_hash);
    let mut new: Vec<&Located> = replica_sets
        .iter()
        .copied()
        .filter(|o| o.value.pointer("/spec/template").map(without_hash) == template)
        .collect();
    // `ReplicaSetsByCreationTimestamp`: oldest first, then by name.
    new.sort_by_key(|o| {
        let created = o.value.pointer("/metadata/creationTimestamp");
        (
            created.and_then(Value::as_str).map(String::from),
            o.name().to_string(),
        )
    });
    new.first().copied().ok_or(ScaleError::NoReplicaSet {
        name,
        origin: origin.to_string(),
    })
}

/// A pod template without the `pod-template-hash` label, as `EqualIgnoreHash` compares them;
/// no labels and empty labels are equal there (apimachinery's semantic DeepEqual).
fn without_hash(template: &Value) -> Value {
    let empty = |v: &Value| v.is_null() || v.as_object().is_some_and(|m| m.is_empty());
    let mut t = template.clone();
    if let Some(meta) = t.get_mut("metadata").and_then(Value::as_object_mut) {
        if let Some(labels) = meta.get_mut("labels").and_then(Value::as_object_mut) {
            labels.remove("pod-template-hash");
        }
        meta.retain(|_, v| !empty(v));
    }
    if let Some(o) = t.as_object_mut() {
        o.retain(|k, v| k != "metadata" || !empty(v));
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn target(s: &str) -> ScaleTarget {
        s.parse().expect("parses")
    }

    fn located(value: Value) -> Located {
        Located { document: 1, value }
    }

    fn template(labels: Value) -> Value {
        json!({"metadata": {"labels": labels},
               "spec": {"containers": [{"name": "c", "image": "nginx"}]}})
    }

    fn deployment() -> Located {
        located(json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "shop"},
            "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}},
                     "template": template(json!({"app": "web"}))}}))
    }

    fn replica_set(hash: &str, replicas: i64, labels: Value) -> Located {
        let mut labels = labels;
        labels["pod-template-hash"] = json!(hash);
        located(json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
            "metadata": {"name": format!("web-{hash}"), "namespace": "shop",
                         "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment",
                                              "name": "web", "uid": "u", "controller": true}]},
            "spec": {"replicas": replicas, "template": template(labels)}}))
    }

    #[test]
    fn kinds_as_kubectl_spells_them() {
        assert_eq!(target("deploy/web=5").kind, ScaleKind::Deployment);
        assert_eq!(target("deployments/web=5").kind, ScaleKind::Deployment);
        assert_eq!(target("sts/db=2").kind, ScaleKind::StatefulSet);
        assert_eq!(target("ReplicaSet/web-1=0").kind, ScaleKind::ReplicaSet);
        assert_eq!(target("rs/web-1=7").replicas, 7);
        let err = |s: &str| s.parse::<ScaleTarget>().expect_err(s);
        assert!(
            err("ds/agent=3").contains("one pod per node"),
            "{}",
            err("ds/agent=3")
        );
        assert!(err("job/x=3").contains("not supported"));
        assert!(err("deploy/web").contains("no count"));
        assert!(err("web=3").contains("no kind"));
        assert!(err("deploy/web=-1").contains("whole number"));
        assert!(err("svc/web=1").contains("unknown kind"));
    }

    /// The only ReplicaSet with replicas is scaled; its template (with the hash) is the pods'.
    #[test]
    fn the_active_replica_set_is_scaled() {
        let objects = [
            deployment(),
            replica_set("old", 0, json!({"app": "web", "v": "1"})),
            replica_set("new", 3, json!({"app": "web"})),
        ];
        let e = existing(&target("deploy/web=5"), "shop", &objects, "f").expect("found");
        let labels = e.template.pod.metadata.labels.clone().unwrap_or_default();
        assert_eq!(
            labels.get("pod-template-hash").map(String::as_str),
            Some("new")
        );
        let owner = &e
            .template
            .pod
            .metadata
            .owner_references
            .as_ref()
            .expect("owner")[0];
        assert_eq!(
            (owner.kind.as_str(), owner.name.as_str()),
            ("ReplicaSet", "web-new")
        );
        assert_eq!(
            e.template.as_replica(3).pod.metadata.name.as_deref(),
            Some("web-new-<pod-3>")
        );
    }

    /// Scaled to zero: the ReplicaSet whose template is the Deployment's but for the hash.
    #[test]
    fn with_none_active_the_new_replica_set_is_scaled() {
        let objects = [
            deployment(),
            replica_set("old", 0, json!({"app": "web", "v": "1"})),
            replica_set("new", 0, json!({"app": "web"})),
        ];
        let e = existing(&target("deploy/web=2"), "shop", &objects, "f").expect("found");
        let owner = &e
            .template
            .pod
            .metadata
            .owner_references
            .as_ref()
            .expect("owner")[0];
        assert_eq!(owner.name, "web-new");
    }

    #[test]
    fn a_rollout_and_a_missing_replica_set_are_refused() {
        let objects = [
            deployment(),
            replica_set("old", 1, json!({"app": "web", "v": "1"})),
            replica_set("new", 2, json!({"app": "web"})),
        ];
        let e = existing(&target("deploy/web=5"), "shop", &objects, "f").expect_err("rollout");
        assert!(
            e.to_string()
                .contains("ReplicaSets web-new, web-old have replicas"),
            "{e}"
        );
        let e = existing(&target("deploy/web=5"), "shop", &objects[..1], "f").expect_err("no rs");
        assert!(matches!(e, ScaleError::NoReplicaSet { .. }), "{e}");
        let e = existing(&target("rs/web-new=5"), "shop", &objects, "f").expect_err("managed");
        assert!(e.to_string().ends_with("pass --scale deploy/web=N"), "{e}");
    }

    #[test]
    fn not_found_names_kind_name_and_namespace() {
        let e = existing(
            &target("deploy/web=5"),
            "other",
            &[deployment()],
            "snapshot f",
        )
        .expect_err("other namespace");
        assert!(
            e.to_string()
                .starts_with("deployment web not found in namespace other (snapshot f)"),
            "{e}"
        );
    }

    fn pod(name: &str, owner: &str, node: &str, terminating: bool) -> Pod {
        let mut metadata = json!({"name": name, "namespace": "shop",
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "StatefulSet", "name": owner,
                                 "uid": "s", "controller": true}]});
        if terminating {
            metadata["deletionTimestamp"] = json!("2026-01-01T00:00:00Z");
        }
        let api: k8s_openapi::api::core::v1::Pod = serde_json::from_value(json!({
            "metadata": metadata,
            "spec": {"nodeName": node, "containers": [{"name": "c", "image": "x"}]},
            "status": {"phase": if node.is_empty() { "Pending" } else { "Running" }}}))
        .expect("pod");
        Pod::from_snapshot(api.into())
    }

    /// A StatefulSet's missing ordinals, from its first (`spec.ordinals.start`), in order:
    /// a gap left by a Parallel set, a terminating pod's ordinal; pods of another owner and
    /// terminating ones are not counted.
    #[test]
    fn a_stateful_set_misses_the_ordinals_without_a_pod() {
        let sts = located(json!({"apiVersion": "apps/v1", "kind": "StatefulSet",
            "metadata": {"name": "db", "namespace": "shop"},
            "spec": {"replicas": 2, "ordinals": {"start": 5},
                     "template": template(json!({"app": "db"}))}}));
        let e = existing(&target("sts/db=5"), "shop", &[sts], "f").expect("found");
        let pods = [
            pod("db-5", "db", "n1", false),
            pod("db-7", "db", "", false),
            pod("db-6", "db", "n1", true),
            pod("db-8", "other", "n1", false),
        ];
        let missing = e.missing(&pods);
        assert_eq!(missing.current, 2);
        assert_eq!(missing.pending, ["db-7"], "waits for a node");
        assert_eq!(missing.indices, [1, 3, 4]);
        let names: Vec<String> = missing
            .indices
            .iter()
            .map(|&k| {
                e.template
                    .as_replica(k)
                    .pod
                    .metadata
                    .name
                    .unwrap_or_default()
            })
            .collect();
        assert_eq!(names, ["db-6", "db-8", "db-9"]);
        let e = existing(
            &target("sts/db=2"),
            "shop",
            &[located(json!({
            "apiVersion": "apps/v1", "kind": "StatefulSet",
            "metadata": {"name": "db", "namespace": "shop"},
            "spec": {"template": template(json!({"app": "db"}))}}))],
            "f",
        )
        .expect("found");
        // db-5 is beyond the range from 0: ordinals 0 and 1 are created (the controller would
        // delete db-5, which is not simulated).
        assert_eq!(e.missing(&pods[..1]).indices, [0, 1]);
        assert_eq!(e.missing(&pods[..0]).current, 0);
    }
}
