//! Pod manifests for `whatif`: a Pod, or the pod template of a workload, turned into the pod
//! the API server would create.
//!
//! Manifests are whole API objects (`k8s-openapi`'s types): what they hold beyond a pod's
//! scheduling fields (templates, claim templates, what admission reads) is read here, and the
//! pod becomes the model's parts once, in `decode/api.rs`.

use std::path::Path;

use k8s_openapi::api::core::v1 as core;
use k8s_openapi::apimachinery::pkg::apis::meta::v1 as meta;

use super::objects::Object;
use super::read::read_objects;
use super::source::{FieldProblem, Located, SourceError};
use super::validate::{Finding, pod_spec};

/// A pod built from a manifest, with where it came from.
#[derive(Debug, Clone)]
pub struct ManifestPod {
    pub pod: core::Pod,
    /// e.g. `Deployment/web-store`.
    pub origin: String,
    /// The workload kind (`Pod`, `Deployment`, `DaemonSet`...).
    pub kind: String,
    /// The file (or "standard input") and the document number, for messages.
    pub source: String,
    pub document: usize,
    /// What the API server's validation says about the pod's scheduling fields.
    pub findings: Vec<Finding>,
    /// A StatefulSet's claims for the pod (`<template>-<statefulset>-<ordinal>`), as its
    /// controller would create them from `volumeClaimTemplates` (their namespace the pod's).
    pub claims: Vec<core::PersistentVolumeClaim>,
    /// How many pods the workload's controller creates at once, as the API server defaults
    /// it; `None` for a Pod, a PodTemplate and a DaemonSet (one pod per node).
    pub replicas: Option<u32>,
    /// A StatefulSet's first ordinal (`spec.ordinals.start`): its replicas are named from it.
    ordinal: Option<i64>,
    /// A StatefulSet's `volumeClaimTemplates`, for the claims of its later replicas.
    claim_templates: Vec<core::PersistentVolumeClaim>,
    /// What the workload's controller reads to make its pods; `None` for a Pod.
    pub workload: Option<WorkloadSpec>,
}

/// The fields of a workload's spec its controller makes pods from, beside the pod template.
#[derive(Debug, Clone, Default)]
pub struct WorkloadSpec {
    /// `spec.selector`.
    pub selector: Option<meta::LabelSelector>,
    /// A StatefulSet's `spec.podManagementPolicy` (`None`: the default, OrderedReady).
    pub pod_management_policy: Option<String>,
    /// A StatefulSet's `spec.serviceName`: its pods' subdomain.
    pub service_name: Option<String>,
    /// The pod template as written, which the controllers hash (`pod-template-hash`,
    /// `controller-revision-hash`).
    pub template: serde_json::Value,
    /// How the controller replaces the pods of a workload that exists: a Deployment's
    /// `spec.strategy`, a StatefulSet's or DaemonSet's `spec.updateStrategy`, as written.
    pub strategy: Option<serde_json::Value>,
}

impl ManifestPod {
    /// The error `whatif` stops with when the API server would reject the pod: the first
    /// such field, how many more there are, and what to do.
    pub fn rejection(&self) -> Option<SourceError> {
        let mut rejected = self.findings.iter().filter(|f| f.rejected);
        let first = rejected.next()?;
        let more = rejected.count();
        Some(self.problem(
            first.field.clone(),
            format!(
                "{}{}; the API server would reject this pod (`kubectl apply` would fail): fix \
                 the field, or pass --validate=warn to see how the scheduler would treat it anyway",
                first.message,
                match more {
                    0 => String::new(),
                    n => format!(
                        " (and {n} more invalid field{})",
                        if n == 1 { "" } else { "s" }
                    ),
                }
            ),
        ))
    }

    /// kubectl's refusal when `-n` names another namespace than the manifest's own (`kubectl
    /// apply -n default -f` a manifest of namespace `shop` fails), so that the what-if does
    /// not pick one of the two silently. Only an explicit `-n` is enforced, as by kubectl:
    /// the context's namespace is only the default of a manifest without one.
    pub fn namespace_conflict(&self, flag: Option<&str>) -> Option<SourceError> {
        let flag = flag?;
        let own = self.pod.metadata.namespace.as_deref()?;
        (own != flag).then(|| {
            self.problem(
                "metadata.namespace".to_string(),
                format!(
                    "the manifest's namespace {own:?} does not match -n/--namespace {flag:?} \
                     (kubectl refuses the same); pass -n {own}, or drop -n"
                ),
            )
        })
    }

    /// The workload's name (`web` of `Deployment/web`).
    pub fn workload_name(&self) -> &str {
        self.origin.split_once('/').map_or("", |(_, n)| n)
    }

    /// This manifest as the pod of replica `index` (0 is the first) and its claims, named as
    /// the controllers name them: a StatefulSet's `<name>-<ordinal>` with claims
    /// `<template>-<name>-<ordinal>` (`getPodName`, `getPersistentVolumeClaimName` in
    /// pkg/controller/statefulset/stateful_set_utils.go); the other controllers' pods end in a
    /// random suffix (`generateName`), shown as the stand-in `<name>-<pod-INDEX>`.
    pub fn as_replica(&self, index: u32) -> ManifestPod {
        let mut m = self.clone();
        let name = self.workload_name();
        let Some(start) = self.ordinal else {
            m.pod.metadata.name = Some(format!("{name}-<pod-{index}>"));
            return m;
        };
        let ordinal = start.saturating_add(i64::from(index));
        m.pod.metadata.name = Some(format!("{name}-{ordinal}"));
        m.claims.clear();
        let mut volumes: Vec<&mut core::Volume> = m
            .pod
            .spec
            .as_mut()
            .and_then(|s| s.volumes.as_mut())
            .map(|v| v.iter_mut().collect())
            .unwrap_or_default();
        for template in &self.claim_templates {
            let mut claim = template.clone();
            let template = claim.metadata.name.clone().unwrap_or_default();
            let claim_name = format!("{template}-{name}-{ordinal}");
            claim.metadata.name = Some(claim_name.clone());
            claim
                .metadata
                .namespace
                .clone_from(&m.pod.metadata.namespace);
            for v in volumes.iter_mut().filter(|v| v.name == template) {
                if let Some(source) = v.persistent_volume_claim.as_mut() {
                    source.claim_name.clone_from(&claim_name);
                }
            }
            m.claims.push(claim);
        }
        m
    }

    /// An error about one field of this manifest's object.
    pub fn problem(&self, field: String, message: String) -> SourceError {
        SourceError::Field(Box::new(FieldProblem {
            path: self.source.clone(),
            document: self.document,
            kind: self.kind.clone(),
            name: self.workload_name().to_string(),
            field,
            message,
        }))
    }
}

/// A decoding error of (part of) `obj`, told from the object's root (`at`: the path of the
/// decoded part), with the next step: the field's documentation.
fn in_object(e: SourceError, obj: &Located, at: &str) -> SourceError {
    let SourceError::Field(mut p) = e else {
        return e;
    };
    p.kind = obj.kind().to_string();
    p.name = obj.name().to_string();
    if !at.is_empty() {
        p.field = if p.field.is_empty() || p.field == "." {
            at.to_string()
        } else {
            format!("{at}.{}", p.field)
        };
    }
    // `kubectl explain` takes the path without list indices or map keys.
    let mut explain = String::new();
    let mut depth = 0;
    for c in p.field.chars() {
        match c {
            '[' => depth += 1,
            ']' => depth -= 1,
            c if depth == 0 => explain.push(c),
            _ => {}
        }
    }
    p.message = format!(
        "{}; the API server would reject this object: fix the field (`kubectl explain {}.{}` \
         describes it)",
        p.message,
        p.kind.to_lowercase(),
        explain
    );
    SourceError::Field(p)
}

/// The apiVersion the API server (1.35) serves each kind under.
fn served_api_version(kind: &str) -> &'static str {
    match kind {
        "Deployment" | "ReplicaSet" | "StatefulSet" | "DaemonSet" => "apps/v1",
        "Job" | "CronJob" => "batch/v1",
        _ => "v1",
    }
}

/// The kinds `whatif` takes: a Pod, or an object with a pod template.
pub(super) const WORKLOADS: &[&str] = &[
    "Pod",
    "Deployment",
    "ReplicaSet",
    "StatefulSet",
    "DaemonSet",
    "Job",
    "CronJob",
    "PodTemplate",
    "ReplicationController",
];

/// Reads every Pod or workload of a file (`-` for stdin) as the pod it would create.
pub fn read_pod_manifests(path: &Path) -> Result<Vec<ManifestPod>, SourceError> {
    let name = super::read::source_name(path);
    let objects = read_objects(path)?;
    pods_from_objects(&objects, &name)
}

/// What `kubectl apply -f` of some files would create: the pods of their Pods and workloads,
/// the objects scheduling reads (to join the state), and how many of each other kind were
/// skipped, all in input order.
#[derive(Debug, Default)]
pub struct Applied {
    pub pods: Vec<ManifestPod>,
    /// The objects scheduling reads, with the name of their source, not yet decoded: a
    /// namespaced one without a namespace takes the run's.
    pub objects: Vec<(Located, String)>,
    /// Kinds scheduling reads nothing of, with how many.
    pub skipped: std::collections::BTreeMap<String, usize>,
}

impl Applied {
    /// The objects that join the state, decoded as the state keeps them; a namespaced one
    /// without a namespace is in `namespace`, as `kubectl apply` puts it.
    pub fn state_objects(&self, namespace: &str) -> Result<Vec<Object>, SourceError> {
        let mut out = Vec::new();
        for (o, source) in &self.objects {
            let mut o = o.clone();
            if namespaced(o.kind())
                && o.value.pointer("/metadata/namespace").is_none()
                && let Some(m) = o.value.get_mut("metadata").and_then(|m| m.as_object_mut())
            {
                m.insert("namespace".to_string(), namespace.into());
            }
            out.extend(Object::decode(&o, source)?);
        }
        Ok(out)
    }

    /// How many objects of each kind join the state.
    pub fn joined(&self) -> std::collections::BTreeMap<String, usize> {
        let mut kinds = std::collections::BTreeMap::new();
        for (o, _) in &self.objects {
            *kinds.entry(o.kind().to_string()).or_default() += 1;
        }
        kinds
    }
}

/// The kinds of an applied file that join the state (those [`Object`] decodes, but
/// the workloads, read as pods, and events, which nobody applies).
fn joins_the_state(kind: &str) -> bool {
    Object::KINDS.contains(&kind) && !WORKLOADS.contains(&kind) && kind != "Event"
}

/// Whether a kind of object lives in a namespace (those that join the state).
fn namespaced(kind: &str) -> bool {
    !matches!(
        kind,
        "Namespace"
            | "PriorityClass"
            | "RuntimeClass"
            | "PersistentVolume"
            | "StorageClass"
            | "CSINode"
            | "CSIDriver"
    )
}

/// Reads `-f` as `kubectl apply -f` takes it: files (`-` for stdin), and directories, whose
/// `.yaml`, `.yml` and `.json` files are read in name order (their subdirectories' too with
/// `recursive`, kubectl's `-R`); each file several documents, a `List`, or JSON.
pub fn read_applied(paths: &[std::path::PathBuf], recursive: bool) -> Result<Applied, SourceError> {
    let mut files = Vec::new();
    for path in paths {
        expand(path, recursive, &mut files)?;
    }
    let mut applied = Applied::default();
    for file in &files {
        let name = super::read::source_name(file);
        let objects = read_objects(file)?;
        let (workloads, rest): (Vec<Located>, Vec<Located>) = objects
            .into_iter()
            .partition(|o| WORKLOADS.contains(&o.kind()) || o.kind().is_empty());
        for o in rest {
            if joins_the_state(o.kind()) {
                applied.objects.push((o, name.clone()));
            } else {
                *applied.skipped.entry(o.kind().to_string()).or_default() += 1;
            }
        }
        if !workloads.is_empty() {
            applied.pods.extend(pods_from_objects(&workloads, &name)?);
        }
    }
    if applied.pods.is_empty() {
        let path =
            (files.first()).map_or_else(|| "-f".to_string(), |f| super::read::source_name(f));
        let others = applied.objects.len() + applied.skipped.values().sum::<usize>();
        return Err(SourceError::Content {
            path,
            message: match others {
                0 => "no objects found; give a Pod or a workload manifest".to_string(),
                n => format!(
                    "no Pod or workload to schedule among its {n} object(s); give a Pod, \
                     Deployment, ReplicaSet, StatefulSet, DaemonSet, Job, CronJob or PodTemplate"
                ),
            },
        });
    }
    Ok(applied)
}

/// The files `path` names: itself, or a directory's manifests, and its subdirectories' with
/// `recursive`.
fn expand(
    path: &Path,
    recursive: bool,
    out: &mut Vec<std::path::PathBuf>,
) -> Result<(), SourceError> {
    if path.as_os_str() == "-" || !path.is_dir() {
        out.push(path.to_path_buf());
        return Ok(());
    }
    let io = |source| SourceError::Io {
        path: path.display().to_string(),
        source,
    };
    let mut entries: Vec<std::path::PathBuf> = std::fs::read_dir(path)
        .map_err(io)?
        .map(|e| e.map(|e| e.path()).map_err(io))
        .collect::<Result<_, _>>()?;
    entries.sort();
    for entry in entries {
        if entry.is_dir() {
            if recursive {
                expand(&entry, recursive, out)?;
            }
        } else if entry
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| matches!(e, "yaml" | "yml" | "json"))
        {
            out.push(entry);
        }
    }
    Ok(())
}

/// Parses Pods or workloads from text; `source` names it in errors.
pub fn read_pod_manifests_str(text: &str, source: &str) -> Result<Vec<ManifestPod>, SourceError> {
    let objects = super::read::objects_from_str(text, source)?;
    pods_from_objects(&objects, source)
}

pub(crate) fn pods_from_objects(
    objects: &[Located],
    path: &str,
) -> Result<Vec<ManifestPod>, SourceError> {
    let mut pods = Vec::new();
    for obj in objects {
        let kind = obj.kind();
        if kind.is_empty() {
            return Err(SourceError::Content {
                path: path.to_string(),
                message: format!(
                    "document {}: an object without kind; give a Pod or a workload manifest \
                     (kind: Pod, apiVersion: v1; kind: Deployment, apiVersion: apps/v1...)",
                    obj.document
                ),
            });
        }
        if !WORKLOADS.contains(&kind) {
            return Err(SourceError::Content {
                path: path.to_string(),
                message: format!(
                    "document {}: kind {kind:?} is not a Pod or a workload with a pod template; give a Pod, Deployment, ReplicaSet, StatefulSet, DaemonSet, Job, CronJob or PodTemplate",
                    obj.document
                ),
            });
        }
        let served = served_api_version(kind);
        if obj.api_version() != served {
            return Err(SourceError::Field(Box::new(FieldProblem {
                path: path.to_string(),
                document: obj.document,
                kind: kind.to_string(),
                name: obj.name().to_string(),
                field: "apiVersion".to_string(),
                message: if obj.api_version().is_empty() {
                    format!("missing; a {kind} is `apiVersion: {served}`")
                } else {
                    format!(
                        "{:?} is not served by Kubernetes 1.35 for {kind}; use `apiVersion: {served}`",
                        obj.api_version()
                    )
                },
            })));
        }
        // The StatefulSet's first replica: its pod and claims are named by this ordinal.
        let ordinal = (kind == "StatefulSet").then(|| {
            obj.value
                .pointer("/spec/ordinals/start")
                .and_then(|v| v.as_i64())
                .unwrap_or(0)
        });
        let mut pod = if kind == "Pod" {
            obj.decode::<core::Pod>(path)
                .map_err(|e| in_object(e, obj, ""))?
        } else {
            let pointer = match kind {
                "CronJob" => "/spec/jobTemplate/spec/template",
                "PodTemplate" => "/template",
                _ => "/spec/template",
            };
            let template = obj.value.pointer(pointer).cloned().ok_or_else(|| {
                SourceError::Field(Box::new(FieldProblem {
                    path: path.to_string(),
                    document: obj.document,
                    kind: kind.to_string(),
                    name: obj.name().to_string(),
                    field: pointer.trim_start_matches('/').replace('/', "."),
                    message: "missing: a workload needs a pod template".to_string(),
                }))
            })?;
            let t = Located {
                document: obj.document,
                value: template,
            };
            let template: core::PodTemplateSpec = t
                .decode(path)
                .map_err(|e| in_object(e, obj, &pointer[1..].replace('/', ".")))?;
            let mut metadata = template.metadata.unwrap_or_default();
            metadata.namespace = metadata.namespace.or_else(|| {
                obj.value
                    .pointer("/metadata/namespace")
                    .and_then(|v| v.as_str())
                    .map(String::from)
            });
            if metadata.name.is_none() {
                metadata.name = Some(match ordinal {
                    Some(o) => format!("{}-{o}", obj.name()),
                    None => format!("{}-<pod>", obj.name()),
                });
            }
            core::Pod {
                metadata,
                spec: template.spec,
                status: None,
            }
        };
        let workload = match kind {
            "Pod" => None,
            _ => Some(workload_spec(obj, path)?),
        };
        let (claims, claim_templates) = match ordinal {
            Some(o) => stateful_set_claims(obj, path, o, &mut pod)?,
            None => (Vec::new(), Vec::new()),
        };
        let spec_path = match kind {
            "Pod" => "spec",
            "CronJob" => "spec.jobTemplate.spec.template.spec",
            "PodTemplate" => "template.spec",
            _ => "spec.template.spec",
        };
        super::read::check_quantities(
            obj,
            path,
            &super::resources::PodResources::from_api(&pod).problems,
        )
        .map_err(|e| match e {
            // The problems are told from the pod: `spec.containers[0]...`.
            SourceError::Field(mut p) if kind != "Pod" => {
                if let Some(rest) = p.field.strip_prefix("spec") {
                    p.field = format!("{spec_path}{rest}");
                }
                SourceError::Field(p)
            }
            other => other,
        })?;
        // Unknown fields first: a misspelt field explains the rest of what the pod does.
        let mut findings = super::strict::unknown_fields(kind, &obj.value);
        findings.extend(
            pod.spec
                .as_ref()
                .map(|s| pod_spec(s, spec_path))
                .unwrap_or_default(),
        );
        pods.push(ManifestPod {
            origin: format!("{kind}/{}", obj.name()),
            kind: kind.to_string(),
            source: path.to_string(),
            document: obj.document,
            findings,
            pod,
            claims,
            replicas: replicas(kind, &obj.value),
            ordinal,
            claim_templates,
            workload,
        });
    }
    if pods.is_empty() {
        return Err(SourceError::Content {
            path: path.to_string(),
            message: "no objects found; give a Pod or a workload manifest".to_string(),
        });
    }
    Ok(pods)
}

type Claims = Vec<core::PersistentVolumeClaim>;

/// What a workload's controller reads beside its pod template (the template as written: the
/// pointer of the kind's template).
fn workload_spec(obj: &Located, path: &str) -> Result<WorkloadSpec, SourceError> {
    let at = |pointer: &str| obj.value.pointer(pointer).filter(|v| !v.is_null());
    let selector = match at("/spec/selector") {
        Some(v) if obj.kind() != "ReplicationController" => {
            let s = Located {
                document: obj.document,
                value: v.clone(),
            };
            Some(
                s.decode::<meta::LabelSelector>(path)
                    .map_err(|e| in_object(e, obj, "spec.selector"))?,
            )
        }
        _ => None,
    };
    let text = |pointer: &str| at(pointer).and_then(|v| v.as_str()).map(String::from);
    let template = match obj.kind() {
        "CronJob" => at("/spec/jobTemplate/spec/template"),
        "PodTemplate" => at("/template"),
        _ => at("/spec/template"),
    };
    Ok(WorkloadSpec {
        selector,
        pod_management_policy: text("/spec/podManagementPolicy"),
        service_name: text("/spec/serviceName"),
        template: template.cloned().unwrap_or_default(),
        strategy: at("/spec/strategy")
            .or_else(|| at("/spec/updateStrategy"))
            .cloned(),
    })
}

/// How many pods a workload's controller keeps running at once, with the API server's
/// defaults (pkg/apis/apps/v1/defaults.go, pkg/apis/batch/v1/defaults.go): `replicas` 1;
/// a Job's `parallelism` 1, and no more than its `completions` (the Job controller's
/// `wantActive`, pkg/controller/job/job_controller.go); a CronJob's job the same.
/// `None` for a Pod, a PodTemplate and a DaemonSet.
fn replicas(kind: &str, value: &serde_json::Value) -> Option<u32> {
    let count = |pointer: &str, default: i64| {
        value
            .pointer(pointer)
            .and_then(serde_json::Value::as_i64)
            .unwrap_or(default)
    };
    let job = |spec: &str| {
        let parallelism = count(&format!("{spec}/parallelism"), 1);
        match value
            .pointer(&format!("{spec}/completions"))
            .and_then(serde_json::Value::as_i64)
        {
            Some(completions) => parallelism.min(completions),
            None => parallelism,
        }
    };
    let n = match kind {
        "Deployment" | "ReplicaSet" | "StatefulSet" | "ReplicationController" => {
            count("/spec/replicas", 1)
        }
        "Job" => job("/spec"),
        "CronJob" => job("/spec/jobTemplate/spec"),
        _ => return None,
    };
    Some(u32::try_from(n.max(0)).unwrap_or(u32::MAX))
}

/// The claims a StatefulSet's controller creates for its replica `ordinal` from its
/// `volumeClaimTemplates` (`getPersistentVolumeClaims`: the template's spec, named
/// `<template>-<statefulset>-<ordinal>`), and its pod's volumes that use them
/// (`updateStorage`: a volume of a template's name becomes that claim). The templates are
/// returned too, for the later replicas.
fn stateful_set_claims(
    obj: &Located,
    path: &str,
    ordinal: i64,
    pod: &mut core::Pod,
) -> Result<(Claims, Claims), SourceError> {
    let Some(templates) = obj.value.pointer("/spec/volumeClaimTemplates") else {
        return Ok((Vec::new(), Vec::new()));
    };
    let t = Located {
        document: obj.document,
        value: templates.clone(),
    };
    let templates: Vec<core::PersistentVolumeClaim> = t
        .decode(path)
        .map_err(|e| in_object(e, obj, "spec.volumeClaimTemplates"))?;
    let mut claims = Vec::new();
    let mut volumes = Vec::new();
    for mut claim in templates.clone() {
        let template = claim.metadata.name.clone().unwrap_or_default();
        let name = format!("{template}-{}-{ordinal}", obj.name());
        claim.metadata.name = Some(name.clone());
        claim.metadata.namespace = pod.metadata.namespace.clone();
        volumes.push(core::Volume {
            name: template,
            persistent_volume_claim: Some(core::PersistentVolumeClaimVolumeSource {
                claim_name: name,
                read_only: Some(false),
            }),
            ..Default::default()
        });
        claims.push(claim);
    }
    let spec = pod.spec.get_or_insert_with(Default::default);
    let own = spec.volumes.take().unwrap_or_default();
    let replaced: Vec<String> = volumes.iter().map(|v| v.name.clone()).collect();
    volumes.extend(own.into_iter().filter(|v| !replaced.contains(&v.name)));
    spec.volumes = Some(volumes);
    Ok((claims, templates))
}

/// What the DaemonSet controller adds to each pod it creates (`AddOrUpdateDaemonPodTolerations`):
/// tolerations for the node conditions a daemon must survive, and for cordoned nodes. Returns
/// how many were added (an identical toleration already present is not added twice).
pub fn add_daemon_tolerations(pod: &mut core::Pod) -> usize {
    let Some(spec) = pod.spec.as_mut() else {
        return 0;
    };
    let mut wanted = vec![
        ("node.kubernetes.io/not-ready", "NoExecute"),
        ("node.kubernetes.io/unreachable", "NoExecute"),
        ("node.kubernetes.io/disk-pressure", "NoSchedule"),
        ("node.kubernetes.io/memory-pressure", "NoSchedule"),
        ("node.kubernetes.io/pid-pressure", "NoSchedule"),
        ("node.kubernetes.io/unschedulable", "NoSchedule"),
    ];
    if spec.host_network == Some(true) {
        wanted.push(("node.kubernetes.io/network-unavailable", "NoSchedule"));
    }
    let tolerations = spec.tolerations.get_or_insert_with(Vec::new);
    let mut added = 0;
    for (key, effect) in wanted {
        let t = core::Toleration {
            key: Some(key.to_string()),
            operator: Some("Exists".to_string()),
            effect: Some(effect.to_string()),
            ..Default::default()
        };
        if !tolerations.contains(&t) {
            tolerations.push(t);
            added += 1;
        }
    }
    added
}

/// What kube-apiserver does to pod affinity terms at creation (`applyMatchLabelKeysAndMismatchLabelKeys`):
/// each `matchLabelKeys` key present in the pod's labels becomes `key In (value)` and each
/// `mismatchLabelKeys` key `key NotIn (value)` in a term with a label selector. Returns how
/// many requirements were added.
pub fn merge_match_label_keys(pod: &mut core::Pod) -> usize {
    let labels = pod.metadata.labels.clone().unwrap_or_default();
    let mut added = 0;
    let Some(aff) = pod.spec.as_mut().and_then(|s| s.affinity.as_mut()) else {
        return 0;
    };
    let mut apply = |t: &mut core::PodAffinityTerm| {
        let Some(sel) = t.label_selector.as_mut() else {
            return;
        };
        let mut reqs = Vec::new();
        for (keys, op) in [
            (&t.match_label_keys, "In"),
            (&t.mismatch_label_keys, "NotIn"),
        ] {
            for k in keys.iter().flatten() {
                if let Some(v) = labels.get(k) {
                    reqs.push(meta::LabelSelectorRequirement {
                        key: k.clone(),
                        operator: op.to_string(),
                        values: Some(vec![v.clone()]),
                    });
                }
            }
        }
        added += reqs.len();
        if !reqs.is_empty() {
            sel.match_expressions
                .get_or_insert_with(Vec::new)
                .extend(reqs);
        }
    };
    let lists = [
        aff.pod_affinity.as_mut().map(|p| {
            (
                &mut p.required_during_scheduling_ignored_during_execution,
                &mut p.preferred_during_scheduling_ignored_during_execution,
            )
        }),
        aff.pod_anti_affinity.as_mut().map(|p| {
            (
                &mut p.required_during_scheduling_ignored_during_execution,
                &mut p.preferred_during_scheduling_ignored_during_execution,
            )
        }),
    ];
    for (required, preferred) in lists.into_iter().flatten() {
        required.iter_mut().flatten().for_each(&mut apply);
        preferred
            .iter_mut()
            .flatten()
            .for_each(|w| apply(&mut w.pod_affinity_term));
    }
    added
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::read::objects_from_str;

    const DEPLOY: &str = r#"
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  template:
    metadata:
      labels: {app: web, pod-template-hash: abc, tier: front}
    spec:
      containers: [{name: c, image: nginx}]
      affinity:
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - labelSelector: {matchLabels: {app: web}}
            matchLabelKeys: [pod-template-hash, missing]
            mismatchLabelKeys: [tier]
            topologyKey: kubernetes.io/hostname
          - topologyKey: zone
            matchLabelKeys: [pod-template-hash]
"#;

    #[test]
    fn workload_template_becomes_a_pod_and_match_label_keys_merge() {
        let objects = objects_from_str(DEPLOY, "deploy.yaml").unwrap();
        let mut pods = pods_from_objects(&objects, "deploy.yaml").unwrap();
        assert_eq!(pods.len(), 1);
        assert_eq!(pods[0].origin, "Deployment/web");
        assert_eq!(pods[0].pod.metadata.namespace.as_deref(), Some("shop"));
        // Two keys exist in the pod's labels; "missing" is skipped; the nil selector stays nil.
        assert_eq!(merge_match_label_keys(&mut pods[0].pod), 2);
        let terms = pods[0]
            .pod
            .spec
            .as_ref()
            .and_then(|s| s.affinity.as_ref())
            .and_then(|a| a.pod_anti_affinity.as_ref())
            .and_then(|a| {
                a.required_during_scheduling_ignored_during_execution
                    .clone()
            })
            .unwrap();
        let exprs = terms[0]
            .label_selector
            .as_ref()
            .unwrap()
            .match_expressions
            .clone()
            .unwrap();
        assert_eq!(exprs.len(), 2);
        assert_eq!(
            (exprs[0].key.as_str(), exprs[0].operator.as_str()),
            ("pod-template-hash", "In")
        );
        assert_eq!(exprs[0].values, Some(vec!["abc".to_string()]));
        assert_eq!(
            (exprs[1].key.as_str(), exprs[1].operator.as_str()),
            ("tier", "NotIn")
        );
        assert!(terms[1].label_selector.is_none());
    }

    /// A StatefulSet's first replica is `<name>-0`, its templates' claims are
    /// `<template>-<name>-0` in its namespace, and a pod volume of a template's name uses it.
    #[test]
    fn stateful_set_templates_become_the_first_replicas_claims() {
        let text = r#"
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: shop}
spec:
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers: [{name: c, image: pg}]
      volumes: [{name: data, emptyDir: {}}, {name: cfg, configMap: {name: db}}]
  volumeClaimTemplates:
  - metadata: {name: data}
    spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
"#;
        let objects = objects_from_str(text, "db.yaml").unwrap();
        let pods = pods_from_objects(&objects, "db.yaml").unwrap();
        let p = &pods[0];
        assert_eq!(p.pod.metadata.name.as_deref(), Some("db-0"));
        let claim = &p.claims[0];
        assert_eq!(claim.metadata.name.as_deref(), Some("data-db-0"));
        assert_eq!(claim.metadata.namespace.as_deref(), Some("shop"));
        let volumes = p.pod.spec.as_ref().unwrap().volumes.as_ref().unwrap();
        let names: Vec<_> = volumes.iter().map(|v| v.name.as_str()).collect();
        assert_eq!(names, ["data", "cfg"]);
        assert_eq!(
            volumes[0]
                .persistent_volume_claim
                .as_ref()
                .map(|c| c.claim_name.as_str()),
            Some("data-db-0")
        );
    }

    /// Replica counts with the API server's defaults; a Pod, a PodTemplate and a DaemonSet
    /// have none.
    #[test]
    fn replica_counts_are_defaulted() {
        let value = |v: serde_json::Value| v;
        let cases = [
            (
                "Deployment",
                value(serde_json::json!({"spec": {}})),
                Some(1),
            ),
            (
                "Deployment",
                value(serde_json::json!({"spec": {"replicas": 4}})),
                Some(4),
            ),
            (
                "StatefulSet",
                value(serde_json::json!({"spec": {"replicas": 0}})),
                Some(0),
            ),
            (
                "ReplicationController",
                value(serde_json::json!({"spec": {"replicas": 2}})),
                Some(2),
            ),
            ("Job", value(serde_json::json!({"spec": {}})), Some(1)),
            (
                "Job",
                value(serde_json::json!({"spec": {"parallelism": 5, "completions": 3}})),
                Some(3),
            ),
            (
                "Job",
                value(serde_json::json!({"spec": {"completions": 3}})),
                Some(1),
            ),
            (
                "CronJob",
                value(serde_json::json!({"spec": {"jobTemplate": {"spec": {"parallelism": 2}}}})),
                Some(2),
            ),
            ("DaemonSet", value(serde_json::json!({"spec": {}})), None),
            ("Pod", value(serde_json::json!({"spec": {}})), None),
        ];
        for (kind, v, want) in cases {
            assert_eq!(replicas(kind, &v), want, "{kind} {v}");
        }
    }

    /// A StatefulSet's replica K is `<name>-<start+K>`, with its own claims and its volume
    /// pointing at them; another workload's replicas get the stand-in name.
    #[test]
    fn replicas_are_named_as_their_controllers_name_them() {
        let text = r#"
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: shop}
spec:
  replicas: 3
  ordinals: {start: 2}
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers: [{name: c, image: pg}]
  volumeClaimTemplates:
  - metadata: {name: data}
    spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
"#;
        let objects = objects_from_str(text, "db.yaml").unwrap();
        let pods = pods_from_objects(&objects, "db.yaml").unwrap();
        assert_eq!(pods[0].replicas, Some(3));
        assert_eq!(pods[0].pod.metadata.name.as_deref(), Some("db-2"));
        let third = pods[0].as_replica(2);
        assert_eq!(third.pod.metadata.name.as_deref(), Some("db-4"));
        let names: Vec<_> = third
            .claims
            .iter()
            .map(|c| c.metadata.name.clone())
            .collect();
        assert_eq!(names, [Some("data-db-4".to_string())]);
        assert_eq!(third.claims[0].metadata.namespace.as_deref(), Some("shop"));
        let volume = &third.pod.spec.as_ref().unwrap().volumes.as_ref().unwrap()[0];
        assert_eq!(
            volume
                .persistent_volume_claim
                .as_ref()
                .map(|c| c.claim_name.as_str()),
            Some("data-db-4")
        );
        // The first replica keeps its own claim.
        assert_eq!(
            pods[0].claims[0].metadata.name.as_deref(),
            Some("data-db-2")
        );
        let objects = objects_from_str(DEPLOY, "deploy.yaml").unwrap();
        let deploy = pods_from_objects(&objects, "deploy.yaml").unwrap();
        assert_eq!(
            deploy[0].as_replica(7).pod.metadata.name.as_deref(),
            Some("web-<pod-7>")
        );
        assert!(deploy[0].as_replica(7).claims.is_empty());
    }

    #[test]
    fn other_kinds_are_refused_with_the_document_number() {
        let objects = objects_from_str(
            "apiVersion: v1\nkind: Service\nmetadata: {name: s}\n",
            "svc.yaml",
        )
        .unwrap();
        let err = pods_from_objects(&objects, "svc.yaml")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("svc.yaml: document 1: kind \"Service\""),
            "{err}"
        );
    }
}
