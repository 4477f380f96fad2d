//! `kubectl affinity snapshot`: the cluster as one `v1 List` in YAML, as `kubectl get -o yaml`
//! writes it, in the format `--snapshot` reads.
//!
//! The list is framed here by hand, each object written by the model's YAML writer: the
//! objects arrive page by page, and serializing the whole list at once would hold every
//! typed object of the cluster in memory.

use std::fmt;
use std::io::Write;
use std::sync::LazyLock;

use k8s_openapi::api::apps::v1 as apps;
use k8s_openapi::api::core::v1 as core;
use k8s_openapi::api::node::v1 as node;
use k8s_openapi::api::policy::v1 as policy;
use k8s_openapi::api::resource::v1 as resource;
use k8s_openapi::api::scheduling::v1 as scheduling;
use k8s_openapi::api::storage::v1 as storage;
use kube::api::Api;
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::client::Live;
use super::error::ClusterError;
use super::events::SCHEDULING_EVENTS;
use super::fetch::NON_TERMINAL_PODS;
use super::notes::{Omission, Refused};
use super::pager::{Decode, Page};
use super::requests::Request;
use crate::state::admission::ADMISSION_ANNOTATIONS;
use crate::state::parts::PodFields;
use crate::state::{VERSION_COMMENT, to_yaml_string};

impl Live {
    /// Writes nodes, non-terminal pods, namespaces, Services, ReplicationControllers,
    /// ReplicaSets, StatefulSets, Deployments, PodDisruptionBudgets, PriorityClasses,
    /// PersistentVolumeClaims, PersistentVolumes, StorageClasses, CSINodes, CSIDrivers,
    /// DeviceClasses, ResourceSlices, ResourceClaims, ResourceClaimTemplates, LimitRanges,
    /// RuntimeClasses and the scheduler's FailedScheduling events as one `v1 List` in YAML.
    /// Returns what was left out: a list the API server refused.
    pub fn write_snapshot(
        &self,
        out: &mut dyn Write,
        contents: Contents,
    ) -> Result<Vec<Omission>, ClusterError> {
        self.rt.block_on(self.write_snapshot_async(out, contents))
    }

    async fn write_snapshot_async(
        &self,
        out: &mut dyn Write,
        contents: Contents,
    ) -> Result<Vec<Omission>, ClusterError> {
        let mut omitted = Vec::new();
        // The release the snapshot is of, which `--snapshot` emulates by default.
        let req = Request::new("get", "version", false);
        let client = self.server.client.clone();
        let version = self
            .server
            .call(&req, || client.apiserver_version())
            .await
            .map_err(|f| self.server.fail(&req, f))?;
        writeln!(out, "{VERSION_COMMENT}{}", version.git_version)?;
        writeln!(out, "apiVersion: v1")?;
        writeln!(out, "items:")?;
        // After `items:`, so that the file still begins as `kubectl get -o yaml`'s does.
        for line in contents.header() {
            writeln!(out, "# {line}")?;
        }
        let nodes: Api<core::Node> = Api::all(self.server.client.clone());
        self.snapshot_resource(
            &nodes,
            Request::new("list", "nodes", false),
            None,
            out,
            contents,
        )
        .await?;
        let pods: Api<core::Pod> = Api::all(self.server.client.clone());
        self.snapshot_resource(
            &pods,
            Request::new("list", "pods", true),
            Some(NON_TERMINAL_PODS),
            out,
            contents,
        )
        .await?;
        let namespaces: Api<core::Namespace> = Api::all(self.server.client.clone());
        let req = Request::new("list", "namespaces", false);
        match self
            .snapshot_resource(&namespaces, req.clone(), None, out, contents)
            .await
        {
            Ok(()) => {}
            Err(ClusterError::Forbidden(_)) => omitted.push(Omission::Namespaces(Refused::new(
                &req,
                &self.server.target,
            ))),
            Err(e) => return Err(e),
        }
        // What PodTopologySpread's default constraints select by.
        let services: Api<core::Service> = Api::all(self.server.client.clone());
        let rcs: Api<core::ReplicationController> = Api::all(self.server.client.clone());
        let rss: Api<apps::ReplicaSet> = Api::all(self.server.client.clone());
        let sss: Api<apps::StatefulSet> = Api::all(self.server.client.clone());
        // What `whatif --scale` scales (ReplicaSets and StatefulSets too).
        let deployments: Api<apps::Deployment> = Api::all(self.server.client.clone());
        let [svc, rc, rs, ss, deploy] = [
            "services",
            "replicationcontrollers",
            "replicasets",
            "statefulsets",
            "deployments",
        ]
        .map(|resource| Request::new("list", resource, true));
        let results = [
            self.snapshot_resource(&services, svc.clone(), None, out, contents)
                .await
                .map_err(|e| (e, svc)),
            self.snapshot_resource(&rcs, rc.clone(), None, out, contents)
                .await
                .map_err(|e| (e, rc)),
            self.snapshot_resource(&rss, rs.clone(), None, out, contents)
                .await
                .map_err(|e| (e, rs)),
            self.snapshot_resource(&sss, ss.clone(), None, out, contents)
                .await
                .map_err(|e| (e, ss)),
            self.snapshot_resource(&deployments, deploy.clone(), None, out, contents)
                .await
                .map_err(|e| (e, deploy)),
        ];
        for r in results {
            match r {
                Ok(()) => {}
                Err((ClusterError::Forbidden(_), req)) => {
                    omitted.push(Omission::Workloads(Refused::new(&req, &self.server.target)))
                }
                Err((e, _)) => return Err(e),
            }
        }
        // What preemption (PodDisruptionBudgets) and Priority admission (PriorityClasses) read.
        let pdbs: Api<policy::PodDisruptionBudget> = Api::all(self.server.client.clone());
        let classes: Api<scheduling::PriorityClass> = Api::all(self.server.client.clone());
        let pdb = Request::new("list", "poddisruptionbudgets", true);
        let pc = Request::new("list", "priorityclasses", false);
        let results = [
            self.snapshot_resource(&pdbs, pdb.clone(), None, out, contents)
                .await
                .map_err(|e| (e, pdb)),
            self.snapshot_resource(&classes, pc.clone(), None, out, contents)
                .await
                .map_err(|e| (e, pc)),
        ];
        for r in results {
            match r {
                Ok(()) => {}
                Err((ClusterError::Forbidden(_), req)) => omitted.push(
                    Omission::PreemptionObjects(Refused::new(&req, &self.server.target)),
                ),
                Err((e, _)) => return Err(e),
            }
        }
        // What the volume plugins read; one refused list leaves the others in.
        let claims: Api<core::PersistentVolumeClaim> = Api::all(self.server.client.clone());
        let volumes: Api<core::PersistentVolume> = Api::all(self.server.client.clone());
        let classes: Api<storage::StorageClass> = Api::all(self.server.client.clone());
        let csi_nodes: Api<storage::CSINode> = Api::all(self.server.client.clone());
        let csi_drivers: Api<storage::CSIDriver> = Api::all(self.server.client.clone());
        let [pvc, pv, sc, csinode, csidriver] = [
            ("persistentvolumeclaims", true),
            ("persistentvolumes", false),
            ("storageclasses", false),
            ("csinodes", false),
            ("csidrivers", false),
        ]
        .map(|(resource, namespaced)| Request::new("list", resource, namespaced));
        let results = [
            self.snapshot_resource(&claims, pvc.clone(), None, out, contents)
                .await
                .map_err(|e| (e, pvc)),
            self.snapshot_resource(&volumes, pv.clone(), None, out, contents)
                .await
                .map_err(|e| (e, pv)),
            self.snapshot_resource(&classes, sc.clone(), None, out, contents)
                .await
                .map_err(|e| (e, sc)),
            self.snapshot_resource(&csi_nodes, csinode.clone(), None, out, contents)
                .await
                .map_err(|e| (e, csinode)),
            self.snapshot_resource(&csi_drivers, csidriver.clone(), None, out, contents)
                .await
                .map_err(|e| (e, csidriver)),
        ];
        for r in results {
            match r {
                Ok(()) => {}
                Err((ClusterError::Forbidden(_), req)) => {
                    omitted.push(Omission::Storage(Refused::new(&req, &self.server.target)))
                }
                Err((e, _)) => return Err(e),
            }
        }
        // What DynamicResources reads. A server without resource.k8s.io/v1 (before 1.34)
        // has none of them to write.
        let device_classes: Api<resource::DeviceClass> = Api::all(self.server.client.clone());
        let slices: Api<resource::ResourceSlice> = Api::all(self.server.client.clone());
        let resource_claims: Api<resource::ResourceClaim> = Api::all(self.server.client.clone());
        let templates: Api<resource::ResourceClaimTemplate> = Api::all(self.server.client.clone());
        let [dc, rs, rc, rct] = [
            ("deviceclasses", false),
            ("resourceslices", false),
            ("resourceclaims", true),
            ("resourceclaimtemplates", true),
        ]
        .map(|(resource, namespaced)| Request::new("list", resource, namespaced));
        let results = [
            self.snapshot_resource(&device_classes, dc.clone(), None, out, contents)
                .await
                .map_err(|e| (e, dc)),
            self.snapshot_resource(&slices, rs.clone(), None, out, contents)
                .await
                .map_err(|e| (e, rs)),
            self.snapshot_resource(&resource_claims, rc.clone(), None, out, contents)
                .await
                .map_err(|e| (e, rc)),
            self.snapshot_resource(&templates, rct.clone(), None, out, contents)
                .await
                .map_err(|e| (e, rct)),
        ];
        for r in results {
            match r {
                Ok(()) | Err((ClusterError::NotServed { .. }, _)) => {}
                Err((ClusterError::Forbidden(_), req)) => {
                    omitted.push(Omission::Dra(Refused::new(&req, &self.server.target)))
                }
                Err((e, _)) => return Err(e),
            }
        }
        // What the admission plugins read for a what-if pod (LimitRanger, RuntimeClass).
        let limit_ranges: Api<core::LimitRange> = Api::all(self.server.client.clone());
        let runtime_classes: Api<node::RuntimeClass> = Api::all(self.server.client.clone());
        for (req, written) in [
            (
                Request::new("list", "limitranges", true),
                self.snapshot_resource(
                    &limit_ranges,
                    Request::new("list", "limitranges", true),
                    None,
                    out,
                    contents,
                )
                .await,
            ),
            (
                Request::new("list", "runtimeclasses", false),
                self.snapshot_resource(
                    &runtime_classes,
                    Request::new("list", "runtimeclasses", false),
                    None,
                    out,
                    contents,
                )
                .await,
            ),
        ] {
            match written {
                Ok(()) => {}
                Err(ClusterError::Forbidden(_)) => {
                    omitted.push(Omission::Admission(Refused::new(&req, &self.server.target)))
                }
                Err(e) => return Err(e),
            }
        }
        // The scheduler's last word on each pending pod, which `--snapshot` shows as live
        // does. Events written through events.k8s.io/v1 are the same objects, read here
        // through core/v1 as the live read reads them.
        let events: Api<core::Event> = Api::all(self.server.client.clone());
        let req = Request::new("list", "events", true);
        match self
            .snapshot_resource(&events, req.clone(), Some(SCHEDULING_EVENTS), out, contents)
            .await
        {
            Ok(()) => {}
            Err(ClusterError::Forbidden(_)) => {
                omitted.push(Omission::Events(Refused::new(&req, &self.server.target)))
            }
            Err(e) => return Err(e),
        }
        writeln!(out, "kind: List")?;
        writeln!(out, "metadata:")?;
        writeln!(out, "  resourceVersion: \"\"")?;
        Ok(omitted)
    }

    /// Writes every object of one list as items of the `items:` sequence. A restarted list
    /// would repeat objects already written, so they are collected first, in their YAML form
    /// (compact next to the typed objects).
    async fn snapshot_resource<K>(
        &self,
        api: &Api<K>,
        req: Request,
        fields: Option<&str>,
        out: &mut dyn Write,
        contents: Contents,
    ) -> Result<(), ClusterError>
    where
        K: kube::Resource + Clone + DeserializeOwned + Serialize + fmt::Debug + Send + 'static,
    {
        let mut chunks: Vec<String> = Vec::new();
        let mut failed: Option<String> = None;
        self.server
            .list(
                api.resource_url(),
                &req,
                fields,
                Decode::items(std::convert::identity),
                &mut |page: Page<K>| {
                    match page {
                        Page::Restart => chunks.clear(),
                        Page::Items(items) => {
                            for mut item in items {
                                // kubectl hides managedFields by default; they are large and unused.
                                item.meta_mut().managed_fields = None;
                                // Of a namespace's annotations, only those admission
                                // reads (`--full` keeps all).
                                if matches!(contents, Contents::Scheduling)
                                    && req.resource == "namespaces"
                                    && let Some(a) = item.meta_mut().annotations.as_mut()
                                {
                                    a.retain(|k, _| ADMISSION_ANNOTATIONS.contains(&k.as_str()));
                                }
                                let written = match contents {
                                    Contents::Full => to_yaml_string(&item),
                                    Contents::Scheduling => serde_json::to_value(&item)
                                        .map_err(|e| e.to_string())
                                        .and_then(|mut v| {
                                            trim(&mut v);
                                            to_yaml_string(&v)
                                        }),
                                };
                                match written {
                                    Ok(text) => chunks.push(list_item(&text)),
                                    Err(e) => failed = Some(e),
                                }
                            }
                        }
                    }
                    Ok(())
                },
            )
            .await?;
        if let Some(e) = failed {
            return Err(ClusterError::Protocol {
                request: req.to_string(),
                server: self.server.target.server.clone(),
                detail: format!("cannot write an object as YAML: {e}"),
            });
        }
        for c in chunks {
            out.write_all(c.as_bytes())?;
        }
        Ok(())
    }
}

/// What a snapshot holds of each object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Contents {
    /// What scheduling reads (the default: a file safe to attach to a bug report).
    Scheduling,
    /// Every field, as the API server holds the objects (`--full`).
    Full,
}

impl Contents {
    /// The file's header comment, saying what it holds.
    fn header(self) -> &'static [&'static str] {
        match self {
            Contents::Scheduling => &[
                "Written by `kubectl affinity snapshot`: only what scheduling reads. Pods keep",
                "their name, namespace, labels and owner references, the scheduling fields of",
                "the spec (affinity, tolerations, node selector and name, spread constraints,",
                "priority, scheduler name and gates, overhead, resources, volumes and claims),",
                "their containers' names, images, resources and ports, and the status fields the",
                "plugins read (phase, start time, nominated node, conditions, container",
                "resources). ReplicationControllers and Services keep their name, namespace,",
                "labels and selector; Deployments, ReplicaSets and StatefulSets also their",
                "creation time, replicas, ordinals, claim templates and pod template, kept as",
                "pods are. No environment, command, arguments, probes or annotations of pods and",
                "workloads; no object keeps the copy of itself `kubectl apply` annotates it with.",
                "The scheduler's FailedScheduling events about pods are kept as listed.",
                "`snapshot --full` writes every field.",
            ],
            Contents::Full => &[
                "Written by `kubectl affinity snapshot --full`: every field of every object,",
                "environment values and annotations included. Check it before sharing it.",
            ],
        }
    }
}

/// What is kept of the objects trimmed field by field, by JSON name.
struct Kept {
    /// A pod's metadata, and a Service's and a ReplicationController's.
    meta: Vec<&'static str>,
    pod_spec: Vec<&'static str>,
    container: Vec<&'static str>,
    pod_status: Vec<&'static str>,
    condition: Vec<&'static str>,
    container_status: Vec<&'static str>,
    /// A Deployment's, ReplicaSet's or StatefulSet's metadata.
    workload_meta: Vec<&'static str>,
}

/// What the model reads of a pod (`state/parts.rs`), and the few fields beside it.
static KEPT: LazyLock<Kept> = LazyLock::new(|| {
    let read = PodFields::of_parts();
    let with = |fields: &[&'static str], more: &[&'static str]| [fields, more].concat();
    Kept {
        meta: read.metadata.to_vec(),
        // `priorityClassName`: the output names it.
        pod_spec: with(read.spec, &["priorityClassName"]),
        container: read.container.to_vec(),
        pod_status: read.status.to_vec(),
        // A condition's `status`: the API's type requires it, and the file is read back
        // through that type.
        condition: with(read.condition, &["status"]),
        container_status: read.container_status.to_vec(),
        // `whatif --scale` reads, with the pods' fields, the creation time
        // (`FindNewReplicaSet` takes the oldest).
        workload_meta: with(read.metadata, &["creationTimestamp"]),
    }
});

/// The spec fields of those workloads `whatif --scale` reads (`state/scale.rs`).
const WORKLOAD_SPEC: &[&str] = &[
    "selector",
    "replicas",
    "template",
    "ordinals",
    "volumeClaimTemplates",
];

/// A pod template's metadata, as a pod's (it has no namespace or owner of its own).
const TEMPLATE_META: &[&str] = &["name", "labels"];

/// A claim template's fields: its name and labels, and the spec the volume plugins read.
const CLAIM_TEMPLATE: &[&str] = &["metadata", "spec"];

/// The annotation `kubectl apply` writes: the whole object as last applied, env included.
const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// Leaves `object` with what scheduling reads of it: pods, the workloads default spreading
/// selects by and those `whatif --scale` scales, field by field; of other kinds (nodes, namespaces, storage objects, whose
/// annotations the volume plugins read) only `kubectl apply`'s copy of the object goes.
fn trim(object: &mut serde_json::Value) {
    use serde_json::Value;
    fn keep(v: Option<&mut Value>, fields: &[&str]) {
        if let Some(Value::Object(map)) = v {
            map.retain(|k, _| fields.contains(&k.as_str()));
        }
    }
    fn each(v: Option<&mut Value>, fields: &[&str]) {
        if let Some(Value::Array(items)) = v {
            for item in items {
                keep(Some(item), fields);
            }
        }
    }
    fn pod_spec(spec: Option<&mut Value>) {
        if let Some(spec) = spec {
            keep(Some(&mut *spec), &KEPT.pod_spec);
            each(spec.get_mut("containers"), &KEPT.container);
            each(spec.get_mut("initContainers"), &KEPT.container);
        }
    }
    let kind = object.get("kind").and_then(Value::as_str).unwrap_or("");
    match kind {
        "Pod" => {
            keep(object.get_mut("metadata"), &KEPT.meta);
            pod_spec(object.get_mut("spec"));
            keep(object.get_mut("status"), &KEPT.pod_status);
            if let Some(status) = object.get_mut("status") {
                each(status.get_mut("conditions"), &KEPT.condition);
                each(status.get_mut("containerStatuses"), &KEPT.container_status);
                each(
                    status.get_mut("initContainerStatuses"),
                    &KEPT.container_status,
                );
            }
        }
        "Deployment" | "ReplicaSet" | "StatefulSet" => {
            keep(object.get_mut("metadata"), &KEPT.workload_meta);
            keep(object.get_mut("spec"), WORKLOAD_SPEC);
            if let Some(template) = object.pointer_mut("/spec/template") {
                keep(template.get_mut("metadata"), TEMPLATE_META);
                pod_spec(template.get_mut("spec"));
            }
            if let Some(Value::Array(claims)) = object.pointer_mut("/spec/volumeClaimTemplates") {
                for claim in claims {
                    keep(Some(&mut *claim), CLAIM_TEMPLATE);
                    keep(claim.get_mut("metadata"), TEMPLATE_META);
                }
            }
            if let Some(map) = object.as_object_mut() {
                map.remove("status");
            }
        }
        "ReplicationController" | "Service" => {
            keep(object.get_mut("metadata"), &KEPT.meta);
            keep(object.get_mut("spec"), &["selector"]);
            if let Some(map) = object.as_object_mut() {
                map.remove("status");
            }
        }
        _ => {
            if let Some(Value::Object(annotations)) = object.pointer_mut("/metadata/annotations") {
                annotations.remove(LAST_APPLIED);
            }
        }
    }
}

/// A YAML document as an item of the `items:` sequence.
fn list_item(yaml: &str) -> String {
    let mut out = String::with_capacity(yaml.len() + 64);
    for (i, line) in yaml.trim_start_matches("---\n").lines().enumerate() {
        out.push_str(if i == 0 { "- " } else { "  " });
        out.push_str(line);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use clap::Parser;
    use kubectl_affinity_testkit::fake_api::FakeApi;
    use serde_json::{Value, json};

    use super::*;
    use crate::cluster::KubeArgs;
    use crate::state::parts::{self, field_names};
    use crate::state::{ClusterState, read_snapshot_str};

    /// A pod with every field the model reads set (and some it does not), and an object of
    /// every other kind the writer lists, each with what the model reads of it.
    fn cluster() -> Value {
        let selector = json!({"matchLabels": {"app": "web"}});
        let template = json!({"metadata": {"labels": {"app": "web"}},
            "spec": {"containers": [{"name": "c", "image": "reg/web:1"}]}});
        let pod = json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "web-1", "namespace": "shop", "labels": {"app": "web"},
                "annotations": {"note": "not read"},
                "deletionTimestamp": "2026-01-02T03:04:05Z",
                "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet",
                    "name": "web", "uid": "u1", "controller": true}]},
            "spec": {
                "affinity": {
                    "nodeAffinity": {
                        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                            {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}]},
                        "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 5,
                            "preference": {"matchExpressions": [{"key": "disk", "operator": "Exists"}]}}]},
                    "podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                        {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "zone",
                         "namespaceSelector": {"matchLabels": {"team": "a"}}}]},
                    "podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                        {"weight": 3, "podAffinityTerm": {"labelSelector": selector,
                            "topologyKey": "kubernetes.io/hostname"}}]}},
                "containers": [{"name": "c", "image": "reg/web:1",
                    "env": [{"name": "TOKEN", "value": "not-read-3141"}],
                    "ports": [{"containerPort": 80, "hostPort": 8080, "protocol": "TCP"}],
                    "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}, "limits": {"cpu": "1"}},
                    "restartPolicy": "Always",
                    "restartPolicyRules": [{"action": "RestartAllContainers",
                        "exitCodes": {"operator": "In", "values": [42]}}]}],
                "hostNetwork": false,
                "initContainers": [{"name": "i", "image": "reg/init:1",
                    "resources": {"requests": {"cpu": "200m"}}, "restartPolicy": "Always"}],
                "nodeName": "n1",
                "nodeSelector": {"zone": "a"},
                "overhead": {"cpu": "10m"},
                "preemptionPolicy": "Never",
                "priority": 100,
                "priorityClassName": "high",
                "resourceClaims": [{"name": "gpu", "resourceClaimName": "gpu-claim"}],
                "resources": {"requests": {"cpu": "500m"}},
                "schedulerName": "default-scheduler",
                "schedulingGates": [{"name": "wait"}],
                "tolerations": [{"key": "k", "operator": "Exists", "effect": "NoSchedule"}],
                "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "zone",
                    "whenUnsatisfiable": "DoNotSchedule", "labelSelector": selector}],
                "volumes": [
                    {"name": "data", "persistentVolumeClaim": {"claimName": "data"}},
                    {"name": "scratch", "ephemeral": {"volumeClaimTemplate":
                        {"spec": {"accessModes": ["ReadWriteOnce"]}}}},
                    {"name": "gce", "gcePersistentDisk": {"pdName": "pd", "readOnly": true}},
                    {"name": "ebs", "awsElasticBlockStore": {"volumeID": "vol"}},
                    {"name": "rbd", "rbd": {"monitors": ["m"], "image": "img", "pool": "p"}},
                    {"name": "iscsi", "iscsi": {"targetPortal": "t", "iqn": "q", "lun": 1}},
                    {"name": "azd", "azureDisk": {"diskName": "d", "diskURI": "u"}},
                    {"name": "azf", "azureFile": {"secretName": "s", "shareName": "h"}},
                    {"name": "cinder", "cinder": {"volumeID": "v"}},
                    {"name": "vsphere", "vsphereVolume": {"volumePath": "p"}},
                    {"name": "px", "portworxVolume": {"volumeID": "v"}},
                    {"name": "model", "image": {"reference": "reg/model:1"}}]},
            "status": {"phase": "Running", "startTime": "2026-01-01T00:00:00Z",
                "nominatedNodeName": "n1", "podIP": "10.0.0.1",
                "resources": {"requests": {"cpu": "600m"}},
                "allocatedResources": {"cpu": "550m"},
                "resourceClaimStatuses": [{"name": "gpu", "resourceClaimName": "gpu-claim"}],
                "conditions": [{"type": "PodResizePending", "status": "True", "reason": "Infeasible"}],
                "containerStatuses": [{"name": "c", "image": "reg/web:1", "imageID": "",
                    "ready": true, "restartCount": 0, "allocatedResources": {"cpu": "100m"},
                    "resources": {"requests": {"cpu": "100m"}}}],
                "initContainerStatuses": [{"name": "i", "image": "reg/init:1", "imageID": "",
                    "ready": true, "restartCount": 0, "allocatedResources": {"cpu": "200m"},
                    "resources": {"requests": {"cpu": "200m"}}}]}});
        let ns = |kind: &str, name: &str| {
            json!({"name": name, "namespace": "shop",
            "annotations": {LAST_APPLIED: format!("{{\"kind\": \"{kind}\"}}")}})
        };
        let cluster_wide = |name: &str| json!({"name": name});
        json!({"apiVersion": "v1", "kind": "List", "items": [
            {"apiVersion": "v1", "kind": "Node",
             "metadata": {"name": "n1", "labels": {"zone": "a"}},
             "spec": {"taints": [{"key": "gpu", "value": "true", "effect": "NoSchedule"}],
                 "unschedulable": false},
             "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"},
                 "declaredFeatures": ["RestartAllContainersOnContainerExits"],
                 "images": [{"names": ["reg/web:1"], "sizeBytes": 1000}]}},
            pod,
            {"apiVersion": "v1", "kind": "Namespace",
             "metadata": {"name": "shop", "labels": {"team": "a"}, "annotations": {
                 "scheduler.alpha.kubernetes.io/node-selector": "zone=a", "note": "not read"}}},
            {"apiVersion": "v1", "kind": "Service", "metadata": ns("Service", "web"),
             "spec": {"selector": {"app": "web"}, "ports": [{"port": 80}]}},
            {"apiVersion": "v1", "kind": "ReplicationController", "metadata": ns("RC", "old"),
             "spec": {"selector": {"app": "old"}, "template": template}},
            {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": ns("ReplicaSet", "web"),
             "spec": {"selector": selector, "replicas": 1, "template": template}},
            {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": ns("StatefulSet", "db"),
             "spec": {"selector": {"matchExpressions": [{"key": "app", "operator": "In",
                 "values": ["db"]}]}, "serviceName": "db", "template": template}},
            {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": ns("Deployment", "web"),
             "spec": {"selector": selector, "template": template}},
            {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": ns("PDB", "web"),
             "spec": {"selector": selector, "maxUnavailable": 1},
             "status": {"disruptionsAllowed": 1, "currentHealthy": 1, "desiredHealthy": 0,
                 "expectedPods": 1, "disruptedPods": {"web-0": "2026-01-01T00:00:00Z"}}},
            {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
             "metadata": cluster_wide("high"), "value": 100, "globalDefault": false,
             "preemptionPolicy": "Never"},
            {"apiVersion": "v1", "kind": "LimitRange", "metadata": ns("LimitRange", "defaults"),
             "spec": {"limits": [{"type": "Container", "defaultRequest": {"cpu": "100m"},
                 "default": {"cpu": "1"}}]}},
            {"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass",
             "metadata": cluster_wide("gvisor"), "handler": "runsc",
             "overhead": {"podFixed": {"cpu": "10m"}},
             "scheduling": {"nodeSelector": {"sandbox": "gvisor"},
                 "tolerations": [{"key": "sandbox", "operator": "Exists"}]}},
            {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
             "metadata": {"name": "data", "namespace": "shop", "uid": "c1", "annotations": {
                 "pv.kubernetes.io/bind-completed": "yes",
                 "volume.kubernetes.io/selected-node": "n1"}},
             "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "fast",
                 "volumeName": "pv1", "resources": {"requests": {"storage": "1Gi"}},
                 "selector": selector, "volumeMode": "Filesystem"},
             "status": {"phase": "Bound"}},
            {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": cluster_wide("pv1"),
             "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
                 "storageClassName": "fast", "claimRef": {"namespace": "shop", "name": "data", "uid": "c1"},
                 "csi": {"driver": "csi.example.com", "volumeHandle": "h"},
                 "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions":
                     [{"key": "zone", "operator": "In", "values": ["a"]}]}]}}},
             "status": {"phase": "Bound"}},
            {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
             "metadata": {"name": "fast", "annotations":
                 {"storageclass.kubernetes.io/is-default-class": "true"}},
             "provisioner": "csi.example.com", "volumeBindingMode": "WaitForFirstConsumer",
             "allowedTopologies": [{"matchLabelExpressions": [{"key": "zone", "values": ["a"]}]}]},
            {"apiVersion": "storage.k8s.io/v1", "kind": "CSINode",
             "metadata": {"name": "n1", "annotations":
                 {"storage.alpha.kubernetes.io/migrated-plugins": "kubernetes.io/gce-pd"}},
             "spec": {"drivers": [{"name": "csi.example.com", "nodeID": "n1",
                 "allocatable": {"count": 10}, "topologyKeys": ["zone"]}]}},
            {"apiVersion": "storage.k8s.io/v1", "kind": "CSIDriver",
             "metadata": cluster_wide("csi.example.com"), "spec": {"attachRequired": true}},
        ]})
    }

    /// What a state is, in a stable order.
    fn model(s: &ClusterState) -> String {
        format!(
            "{:?} {}",
            (s.nodes(), s.pods(), s.other_pods()),
            s.objects().stable_debug()
        )
    }

    /// Whether `object` sets each field of `names`; the ones it does not, by name.
    fn unset<'a>(object: &Value, names: &[&'a str]) -> Vec<&'a str> {
        names
            .iter()
            .copied()
            .filter(|n| object.get(n).is_none())
            .collect()
    }

    /// A snapshot written by the writer reads as the cluster it was written from: the
    /// writer keeps every field the model reads. The cluster sets every field the pod's
    /// parts read (checked here, so that a field the parts gain must be set here too, and
    /// is then checked to be kept), and the writer is seen to drop what is not read.
    #[test]
    fn the_written_snapshot_keeps_every_field_the_model_reads() {
        let cluster = cluster();
        let pod = &cluster["items"][1];
        let read = parts::PodFields::of_parts();
        let volumes = pod["spec"]["volumes"].as_array().expect("volumes");
        let volume_fields: Vec<&str> = field_names::<parts::Volume>()
            .iter()
            .copied()
            .filter(|f| volumes.iter().all(|v| v.get(f).is_none()))
            .collect();
        let not_set = [
            ("metadata", unset(&pod["metadata"], read.metadata)),
            ("spec", unset(&pod["spec"], read.spec)),
            (
                "spec.containers[0]",
                unset(&pod["spec"]["containers"][0], read.container),
            ),
            ("spec.volumes[*]", volume_fields),
            ("status", unset(&pod["status"], read.status)),
            (
                "status.conditions[0]",
                unset(&pod["status"]["conditions"][0], read.condition),
            ),
            (
                "status.containerStatuses[0]",
                unset(
                    &pod["status"]["containerStatuses"][0],
                    read.container_status,
                ),
            ),
        ];
        for (at, fields) in &not_set {
            assert!(
                fields.is_empty(),
                "the test's pod sets none of {fields:?} in {at}, which the model reads: set \
                 them, so that the writer is checked to keep them"
            );
        }

        let dir = tempfile::tempdir().expect("temp dir");
        let file = dir.path().join("cluster.json");
        std::fs::write(&file, cluster.to_string()).expect("write");
        let api = FakeApi::start(&file);
        #[derive(Parser)]
        struct Args {
            #[command(flatten)]
            kube: KubeArgs,
        }
        let config = api.kubeconfig(dir.path(), None);
        let args = Args::parse_from(["t", "--kubeconfig", config.to_str().expect("path")]);
        let live = Live::connect(&args.kube).expect("connect");
        let mut written = Vec::new();
        let omitted = live
            .write_snapshot(&mut written, Contents::Scheduling)
            .expect("write the snapshot");
        assert!(omitted.is_empty(), "{omitted:?}");
        let written = String::from_utf8(written).expect("UTF-8");
        for dropped in ["not-read-3141", "not read", "podIP", LAST_APPLIED] {
            assert!(!written.contains(dropped), "{dropped} kept:\n{written}");
        }

        let original = read_snapshot_str(&cluster.to_string(), "cluster").expect("read");
        assert_eq!(original.pods().len(), 1, "the pod is an existing pod");
        let read_back = read_snapshot_str(&written, "written").expect("read back");
        assert_eq!(model(&read_back), model(&original), "\n{written}");
    }
}
