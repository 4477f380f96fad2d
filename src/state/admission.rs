//! The API server's built-in admission plugins that change a pod the scheduler reads, applied
//! to a `whatif` pod as kube-apiserver applies them on create: mutating plugins in its
//! default order (`pkg/kubeapiserver/options/plugins.go` `AllOrderedPlugins`: LimitRanger,
//! PodNodeSelector, Priority, DefaultTolerationSeconds, PodTolerationRestriction,
//! RuntimeClass), then the validating ones in the same order. Pure: the objects they read
//! (LimitRanges, RuntimeClasses, PriorityClasses, namespace annotations) come from the state.
//!
//! LimitRanger, Priority, DefaultTolerationSeconds and RuntimeClass are enabled by default.
//! PodNodeSelector and PodTolerationRestriction are not: they run only when
//! `--enable-admission-plugins` names them (as on kube-apiserver); off, a namespace
//! annotation of theirs is said and not applied. Their cluster-wide
//! defaults and whitelists live in the API server's admission configuration, which no API
//! request can read: they are left out.
//!
//! The plugins act on the pod as written, `k8s-openapi`'s whole Pod, as the API server's act on
//! its own, before the pod becomes the model's parts (`decode/api.rs`): why this module names
//! the API's types.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1 as core;

use super::limit_range::{self, LimitDefault, LimitRange};
use super::priority_class::{self, Admitted, PriorityClass};
use super::runtime_class::RuntimeClass;

/// `scheduler.alpha.kubernetes.io/node-selector`: PodNodeSelector's namespace selector.
pub const NODE_SELECTOR: &str = "scheduler.alpha.kubernetes.io/node-selector";
/// PodTolerationRestriction's namespace default tolerations (a JSON list).
pub const DEFAULT_TOLERATIONS: &str = "scheduler.alpha.kubernetes.io/defaultTolerations";
/// PodTolerationRestriction's namespace whitelist (a JSON list).
pub const TOLERATIONS_WHITELIST: &str = "scheduler.alpha.kubernetes.io/tolerationsWhitelist";

/// The namespace annotations admission reads; a snapshot keeps no other.
pub const ADMISSION_ANNOTATIONS: [&str; 3] =
    [NODE_SELECTOR, DEFAULT_TOLERATIONS, TOLERATIONS_WHITELIST];

/// What the admission plugins read besides the pod, all optional: a kind not read admits
/// nothing from it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AdmissionObjects {
    pub limit_ranges: Vec<LimitRange>,
    pub runtime_classes: Vec<RuntimeClass>,
    /// Per namespace, the three annotations above; namespaces with none are left out.
    pub namespaces: BTreeMap<String, NamespaceAnnotations>,
    /// The namespaces that exist, where the source says (NamespaceLifecycle refuses a pod
    /// of any other); `None`: not known.
    pub existing_namespaces: Option<std::collections::BTreeSet<String>>,
}

/// The admission annotations of a namespace; every other annotation is never kept.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NamespaceAnnotations {
    pub node_selector: Option<String>,
    pub default_tolerations: Option<String>,
    pub tolerations_whitelist: Option<String>,
}

impl NamespaceAnnotations {
    /// The admission annotations among `annotations`; `None` when it has none of them.
    pub fn of(annotations: Option<&BTreeMap<String, String>>) -> Option<NamespaceAnnotations> {
        let a = annotations?;
        let n = NamespaceAnnotations {
            node_selector: a.get(NODE_SELECTOR).cloned(),
            default_tolerations: a.get(DEFAULT_TOLERATIONS).cloned(),
            tolerations_whitelist: a.get(TOLERATIONS_WHITELIST).cloned(),
        };
        (n != NamespaceAnnotations::default()).then_some(n)
    }
}

/// One change an admission plugin made to the pod.
#[derive(Debug, Clone, PartialEq)]
pub enum Change {
    /// LimitRanger: a default limit or request of the namespace's LimitRange.
    LimitRanger(LimitDefault),
    /// PodNodeSelector: the namespace's node selector, merged into `spec.nodeSelector`.
    PodNodeSelector { added: Vec<(String, String)> },
    /// DefaultTolerationSeconds: NoExecute tolerations of these taint keys, for 300 s.
    DefaultTolerationSeconds { added: Vec<String> },
    /// PodTolerationRestriction: the namespace's default tolerations (and, for a pod that is
    /// not BestEffort, memory-pressure), merged into the pod's.
    PodTolerationRestriction { added: Vec<core::Toleration> },
    /// RuntimeClass: `spec.overhead` from the class.
    RuntimeClassOverhead {
        class: String,
        overhead: Vec<(String, String)>,
    },
    /// RuntimeClass: the class's `scheduling.nodeSelector`, merged into `spec.nodeSelector`.
    RuntimeClassNodeSelector {
        class: String,
        added: Vec<(String, String)>,
    },
    /// RuntimeClass: the class's `scheduling.tolerations`, merged into the pod's.
    RuntimeClassTolerations {
        class: String,
        added: Vec<core::Toleration>,
    },
    /// A plugin off (kube-apiserver's default, or disabled) whose namespace annotation is
    /// set: the annotation is not applied.
    Off {
        plugin: &'static str,
        annotation: &'static str,
    },
}

// Every field is text or integers: equality is total (`core::Toleration` derives no `Eq`).
impl Eq for Change {}

impl Change {
    /// The admission plugin that made the change, as kube-apiserver names it.
    pub fn plugin(&self) -> &'static str {
        match self {
            Change::LimitRanger(_) => "LimitRanger",
            Change::PodNodeSelector { .. } => "PodNodeSelector",
            Change::DefaultTolerationSeconds { .. } => "DefaultTolerationSeconds",
            Change::PodTolerationRestriction { .. } => "PodTolerationRestriction",
            Change::Off { plugin, .. } => plugin,
            Change::RuntimeClassOverhead { .. }
            | Change::RuntimeClassNodeSelector { .. }
            | Change::RuntimeClassTolerations { .. } => "RuntimeClass",
        }
    }
}

/// An admission plugin refused the pod; `message` is the API server's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    pub plugin: &'static str,
    pub message: String,
    /// The API server answers 403 Forbidden, `pods "NAME" is forbidden: ` before the
    /// message; `false`: the plugin returns a bare error, shown as it is.
    pub forbidden: bool,
}

impl Refused {
    fn forbidden(plugin: &'static str, message: String) -> Refused {
        Refused {
            plugin,
            message,
            forbidden: true,
        }
    }

    /// The refusal as the API server words it for pod `name`.
    pub fn words(&self, name: &str) -> String {
        if self.forbidden {
            format!("pods \"{name}\" is forbidden: {}", self.message)
        } else {
            self.message.clone()
        }
    }
}

/// The admission plugins kube-apiserver knows (`AllOrderedPlugins`), by its names: the flags
/// take these, and those the pod's scheduling does not depend on change nothing here.
pub const KNOWN_PLUGINS: [&str; 37] = [
    "AlwaysAdmit",
    "NamespaceAutoProvision",
    "NamespaceLifecycle",
    "NamespaceExists",
    "LimitPodHardAntiAffinityTopology",
    "LimitRanger",
    "ServiceAccount",
    "NodeRestriction",
    "TaintNodesByCondition",
    "AlwaysPullImages",
    "ImagePolicyWebhook",
    "PodSecurity",
    "PodNodeSelector",
    "Priority",
    "DefaultTolerationSeconds",
    "PodTolerationRestriction",
    "EventRateLimit",
    "ExtendedResourceToleration",
    "DefaultStorageClass",
    "StorageObjectInUseProtection",
    "OwnerReferencesPermissionEnforcement",
    "PersistentVolumeClaimResize",
    "RuntimeClass",
    "CertificateApproval",
    "CertificateSigning",
    "ClusterTrustBundleAttest",
    "CertificateSubjectRestriction",
    "DefaultIngressClass",
    "DenyServiceExternalIPs",
    "PodTopologyLabels",
    "MutatingAdmissionPolicy",
    "MutatingAdmissionWebhook",
    "ValidatingAdmissionPolicy",
    "ValidatingAdmissionWebhook",
    "ResourceQuota",
    "AlwaysDeny",
    "StorageVersion",
];

/// The plugins of this module that kube-apiserver leaves off unless
/// `--enable-admission-plugins` names them (`DefaultOffAdmissionPlugins`).
const OFF_BY_DEFAULT: [&str; 2] = ["PodNodeSelector", "PodTolerationRestriction"];

/// Which of this module's plugins run: kube-apiserver's defaults, changed by
/// `--enable-admission-plugins` / `--disable-admission-plugins` as it changes them.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Plugins {
    enabled: Vec<String>,
    disabled: Vec<String>,
}

impl Plugins {
    /// From the two flags' lists; `Err` names a plugin kube-apiserver does not know, one in
    /// both lists, or Priority disabled (its resolved priority is what the scheduler reads:
    /// not modelled without it).
    pub fn new(enabled: &[String], disabled: &[String]) -> Result<Plugins, String> {
        for name in enabled.iter().chain(disabled) {
            if !KNOWN_PLUGINS.contains(&name.as_str()) {
                return Err(format!(
                    "admission plugin {name:?} is not one of kube-apiserver's ({})",
                    KNOWN_PLUGINS.join(", ")
                ));
            }
            if enabled.contains(name) && disabled.contains(name) {
                return Err(format!(
                    "admission plugin {name:?} is both enabled and disabled; name it in one of \
                     --enable-admission-plugins and --disable-admission-plugins"
                ));
            }
        }
        if disabled.iter().any(|n| n == "Priority") {
            return Err(
                "--disable-admission-plugins=Priority is not supported: the priority \
                        it resolves is what the scheduler reads"
                    .to_string(),
            );
        }
        Ok(Plugins {
            enabled: enabled.to_vec(),
            disabled: disabled.to_vec(),
        })
    }

    /// Whether plugin `name` runs.
    pub fn on(&self, name: &str) -> bool {
        if self.disabled.iter().any(|n| n == name) {
            return false;
        }
        !OFF_BY_DEFAULT.contains(&name) || self.enabled.iter().any(|n| n == name)
    }
}

/// What admission did to the pod: the changes, the priority it resolved, and the refusal of
/// a validating plugin, which sees the pod once every mutation is done (`--validate=warn`
/// evaluates that pod anyway).
#[derive(Debug, Clone, PartialEq)]
pub struct Admission {
    pub changes: Vec<Change>,
    pub priority: Admitted,
    pub rejected: Option<Refused>,
}

/// Admits `pod` (namespace set) on create as kube-apiserver's default plugin chain would,
/// with what was read of the objects the plugins read. `Err`: a mutating plugin refused it,
/// so there is no admitted pod.
///
/// `holds_pods`: the pod's namespace holds pods, so it exists whatever namespaces were read.
pub fn admit(
    pod: &mut core::Pod,
    objects: &AdmissionObjects,
    priority_classes: &[PriorityClass],
    holds_pods: bool,
    plugins: &Plugins,
) -> Result<Admission, Refused> {
    let namespace = pod.metadata.namespace.clone().unwrap_or_default();
    let mut ranges: Vec<&LimitRange> = objects
        .limit_ranges
        .iter()
        .filter(|l| l.namespace == namespace)
        .collect();
    ranges.sort_by(|a, b| a.name.cmp(&b.name));
    let annotations = objects.namespaces.get(&namespace);
    let mut changes = Vec::new();
    if let Some(r) = namespace_lifecycle(objects, &namespace).filter(|_| !holds_pods) {
        return Err(r);
    }

    // Mutating phase.
    if !plugins.on("LimitRanger") {
        ranges.clear();
    }
    changes.extend(
        limit_range::mutate(pod, &ranges)
            .into_iter()
            .map(Change::LimitRanger),
    );
    if let Some(selector) = annotations.and_then(|a| a.node_selector.as_deref()) {
        match plugins.on("PodNodeSelector") {
            true => changes.extend(pod_node_selector(pod, selector)?),
            false => changes.push(Change::Off {
                plugin: "PodNodeSelector",
                annotation: NODE_SELECTOR,
            }),
        }
    }
    let spec = pod.spec.get_or_insert_with(Default::default);
    let priority = priority_class::admit(
        priority_classes,
        spec.priority_class_name.as_deref(),
        spec.priority,
        spec.preemption_policy.as_deref(),
    )
    .map_err(|e| Refused::forbidden("Priority", e))?;
    if plugins.on("DefaultTolerationSeconds") {
        changes.extend(default_toleration_seconds(spec));
    }
    if let Some(a) =
        annotations.filter(|a| a.default_tolerations.is_some() || a.tolerations_whitelist.is_some())
    {
        match plugins.on("PodTolerationRestriction") {
            true => changes.extend(pod_toleration_restriction(spec, a)?),
            false => changes.push(Change::Off {
                plugin: "PodTolerationRestriction",
                annotation: match a.default_tolerations {
                    Some(_) => DEFAULT_TOLERATIONS,
                    None => TOLERATIONS_WHITELIST,
                },
            }),
        }
    }
    let class = match &spec.runtime_class_name {
        _ if !plugins.on("RuntimeClass") => None,
        None => None,
        Some(name) => match objects.runtime_classes.iter().find(|c| &c.name == name) {
            Some(c) => Some(c),
            None => {
                return Err(Refused::forbidden(
                    "RuntimeClass",
                    format!("pod rejected: RuntimeClass \"{name}\" not found"),
                ));
            }
        },
    };
    if let Some(c) = class {
        changes.extend(runtime_class(spec, c)?);
    }

    // Validating phase.
    let overhead_alone = plugins.on("RuntimeClass")
        && class.is_none_or(|c| c.overhead.is_none())
        && pod.spec.as_ref().is_some_and(|s| s.overhead.is_some());
    let rejected = match limit_range::validate(pod, &ranges) {
        Err(e) => Some(Refused::forbidden("LimitRanger", e)),
        Ok(()) if overhead_alone => Some(Refused::forbidden(
            "RuntimeClass",
            "pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead"
                .to_string(),
        )),
        Ok(()) => None,
    };
    Ok(Admission {
        changes,
        priority,
        rejected,
    })
}

/// PodNodeSelector's `Admit` (`plugin/pkg/admission/podnodeselector/admission.go`).
/// The API server's own namespaces, which always exist.
const SYSTEM_NAMESPACES: [&str; 4] = ["default", "kube-system", "kube-public", "kube-node-lease"];

/// NamespaceLifecycle: a pod of a namespace that does not exist is refused (404) before any
/// other plugin sees it; only when the source says which namespaces exist, and never for the
/// API server's own.
fn namespace_lifecycle(objects: &AdmissionObjects, namespace: &str) -> Option<Refused> {
    let known = objects.existing_namespaces.as_ref()?;
    (!known.contains(namespace) && !SYSTEM_NAMESPACES.contains(&namespace)).then(|| Refused {
        plugin: "NamespaceLifecycle",
        message: format!("namespaces \"{namespace}\" not found"),
        forbidden: false,
    })
}

fn pod_node_selector(pod: &mut core::Pod, selector: &str) -> Result<Vec<Change>, Refused> {
    let name = "PodNodeSelector";
    let ns = labels_map(selector).map_err(|e| Refused {
        plugin: name,
        message: e,
        forbidden: false,
    })?;
    let spec = pod.spec.get_or_insert_with(Default::default);
    let own = spec.node_selector.get_or_insert_with(BTreeMap::new);
    if ns.iter().any(|(k, v)| own.get(k).is_some_and(|o| o != v)) {
        return Err(Refused::forbidden(
            name,
            "pod node label selector conflicts with its namespace node label selector".to_string(),
        ));
    }
    let mut added = Vec::new();
    for (k, v) in ns {
        if !own.contains_key(&k) {
            own.insert(k.clone(), v.clone());
            added.push((k, v));
        }
    }
    if own.is_empty() {
        spec.node_selector = None;
    }
    Ok((!added.is_empty())
        .then_some(Change::PodNodeSelector { added })
        .into_iter()
        .collect())
}

/// `labels.ConvertSelectorToLabelsMap`: `k=v` pairs separated by commas, trimmed. The key and
/// value checks upstream also makes are left to the API server that set the annotation.
fn labels_map(selector: &str) -> Result<BTreeMap<String, String>, String> {
    let mut map = BTreeMap::new();
    if selector.is_empty() {
        return Ok(map);
    }
    for label in selector.split(',') {
        let l: Vec<&str> = label.split('=').collect();
        let [k, v] = l[..] else {
            // Go prints the split slice as `[a b c]`.
            return Err(format!("invalid selector: [{}]", l.join(" ")));
        };
        map.insert(k.trim().to_string(), v.trim().to_string());
    }
    Ok(map)
}

const NOT_READY: &str = "node.kubernetes.io/not-ready";
const UNREACHABLE: &str = "node.kubernetes.io/unreachable";

/// DefaultTolerationSeconds (`plugin/pkg/admission/defaulttolerationseconds/admission.go`):
/// a pod that does not tolerate not-ready or unreachable NoExecute taints (a toleration with
/// an empty key or effect counts) gets one for 300 s, the API server's default.
fn default_toleration_seconds(spec: &mut core::PodSpec) -> Option<Change> {
    let tolerates = |key: &str| {
        spec.tolerations.iter().flatten().any(|t| {
            let k = t.key.as_deref().unwrap_or_default();
            let e = t.effect.as_deref().unwrap_or_default();
            (k == key || k.is_empty()) && (e == "NoExecute" || e.is_empty())
        })
    };
    let missing: Vec<String> = [NOT_READY, UNREACHABLE]
        .into_iter()
        .filter(|k| !tolerates(k))
        .map(str::to_string)
        .collect();
    if missing.is_empty() {
        return None;
    }
    let list = spec.tolerations.get_or_insert_with(Vec::new);
    for key in &missing {
        list.push(core::Toleration {
            key: Some(key.clone()),
            operator: Some("Exists".to_string()),
            effect: Some("NoExecute".to_string()),
            toleration_seconds: Some(300),
            value: None,
        });
    }
    Some(Change::DefaultTolerationSeconds { added: missing })
}

/// PodTolerationRestriction's `Admit` and `Validate`
/// (`plugin/pkg/admission/podtolerationrestriction/admission.go`).
fn pod_toleration_restriction(
    spec: &mut core::PodSpec,
    a: &NamespaceAnnotations,
) -> Result<Vec<Change>, Refused> {
    let name = "PodTolerationRestriction";
    let parse = |text: &Option<String>| -> Result<Option<Vec<core::Toleration>>, Refused> {
        match text.as_deref() {
            None => Ok(None),
            Some("") => Ok(Some(Vec::new())),
            Some(t) => serde_json::from_str(t).map(Some).map_err(|e| Refused {
                plugin: name,
                message: format!("cannot read the namespace's tolerations annotation: {e}"),
                forbidden: false,
            }),
        }
    };
    let mut extra = parse(&a.default_tolerations)?.unwrap_or_default();
    if !best_effort(spec) {
        extra.push(core::Toleration {
            key: Some("node.kubernetes.io/memory-pressure".to_string()),
            operator: Some("Exists".to_string()),
            effect: Some("NoSchedule".to_string()),
            ..Default::default()
        });
    }
    let mut changes = Vec::new();
    if !extra.is_empty() {
        let added = merge_into(spec, &extra);
        if !added.is_empty() {
            changes.push(Change::PodTolerationRestriction { added });
        }
    }
    let tolerations = spec.tolerations.as_deref().unwrap_or_default();
    if let Some(whitelist) = parse(&a.tolerations_whitelist)?
        && !whitelist.is_empty()
        && !tolerations
            .iter()
            .all(|t| whitelist.iter().any(|w| is_superset(w, t)))
    {
        return Err(Refused {
            plugin: name,
            message: "pod tolerations (possibly merged with namespace default tolerations) \
                      conflict with its namespace whitelist"
                .to_string(),
            forbidden: false,
        });
    }
    Ok(changes)
}

/// `qos.GetPodQOS(pod) == BestEffort`: no container, and not the pod, requests or limits a
/// non-zero cpu or memory.
fn best_effort(spec: &core::PodSpec) -> bool {
    let none = |r: Option<&core::ResourceRequirements>| {
        r.is_none_or(|r| {
            [&r.requests, &r.limits].into_iter().flatten().all(|l| {
                l.iter().all(|(k, v)| {
                    !(k == "cpu" || k == "memory")
                        || super::quantity::Quantity::parse(&v.0).is_ok_and(|q| q.nanos() <= 0)
                })
            })
        })
    };
    spec.containers
        .iter()
        .chain(spec.init_containers.iter().flatten())
        .all(|c| none(c.resources.as_ref()))
        && none(spec.resources.as_ref())
}

/// Merges `extra` into the pod's tolerations as [`merge_tolerations`] does; the tolerations
/// that were not there before.
fn merge_into(spec: &mut core::PodSpec, extra: &[core::Toleration]) -> Vec<core::Toleration> {
    let before = spec.tolerations.take().unwrap_or_default();
    let merged = merge_tolerations(&before, extra);
    let added = merged
        .iter()
        .filter(|t| !before.contains(t))
        .cloned()
        .collect();
    spec.tolerations = Some(merged);
    added
}

/// `tolerations.MergeTolerations` (`pkg/util/tolerations/tolerations.go`): both lists, a
/// toleration dropped when another one tolerates a superset of it (of two equal ones, the
/// first stays).
fn merge_tolerations(
    first: &[core::Toleration],
    second: &[core::Toleration],
) -> Vec<core::Toleration> {
    let all: Vec<&core::Toleration> = first.iter().chain(second).collect();
    let mut merged: Vec<core::Toleration> = Vec::new();
    'next: for (i, t) in all.iter().enumerate() {
        if merged.iter().any(|m| is_superset(m, t)) {
            continue;
        }
        for t2 in &all[i + 1..] {
            if t != t2 && is_superset(t2, t) {
                continue 'next;
            }
        }
        merged.push((*t).clone());
    }
    merged
}

/// `isSuperset`: whether `ss` tolerates every taint `t` tolerates.
fn is_superset(ss: &core::Toleration, t: &core::Toleration) -> bool {
    if ss == t {
        return true;
    }
    let s = |o: &Option<String>| o.clone().unwrap_or_default();
    let (ss_key, ss_op) = (s(&ss.key), s(&ss.operator));
    if s(&t.key) != ss_key && (!ss_key.is_empty() || ss_op != "Exists") {
        return false;
    }
    if s(&t.effect) != s(&ss.effect) && !s(&ss.effect).is_empty() {
        return false;
    }
    if s(&ss.effect) == "NoExecute"
        && let Some(limit) = ss.toleration_seconds
        && t.toleration_seconds.is_none_or(|secs| secs > limit)
    {
        return false;
    }
    match ss_op.as_str() {
        "Equal" | "" => s(&t.operator) == "Equal" && s(&t.value) == s(&ss.value),
        "Exists" => true,
        _ => false,
    }
}

/// RuntimeClass's `Admit` (`setOverhead`, `setScheduling`).
fn runtime_class(spec: &mut core::PodSpec, c: &RuntimeClass) -> Result<Vec<Change>, Refused> {
    let name = "RuntimeClass";
    let mut changes = Vec::new();
    if let Some(overhead) = &c.overhead {
        if let Some(own) = &spec.overhead
            && !same_quantities(own, overhead)
        {
            return Err(Refused::forbidden(
                name,
                "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead"
                    .to_string(),
            ));
        }
        if spec.overhead.is_none() {
            changes.push(Change::RuntimeClassOverhead {
                class: c.name.clone(),
                overhead: overhead
                    .iter()
                    .map(|(k, v)| (k.clone(), v.0.clone()))
                    .collect(),
            });
        }
        spec.overhead = Some(overhead.clone());
    }
    let own = spec.node_selector.get_or_insert_with(BTreeMap::new);
    let mut added = Vec::new();
    for (k, v) in &c.node_selector {
        match own.get(k) {
            Some(o) if o != v => {
                return Err(Refused::forbidden(
                    name,
                    format!(
                        "conflict: runtimeClass.scheduling.nodeSelector[{k}] = {v}; pod.spec.nodeSelector[{k}] = {o}"
                    ),
                ));
            }
            Some(_) => {}
            None => {
                own.insert(k.clone(), v.clone());
                added.push((k.clone(), v.clone()));
            }
        }
    }
    if own.is_empty() {
        spec.node_selector = None;
    }
    if !added.is_empty() {
        changes.push(Change::RuntimeClassNodeSelector {
            class: c.name.clone(),
            added,
        });
    }
    if !c.tolerations.is_empty() {
        let added = merge_into(spec, &c.tolerations);
        if !added.is_empty() {
            changes.push(Change::RuntimeClassTolerations {
                class: c.name.clone(),
                added,
            });
        }
    }
    Ok(changes)
}

/// `apiequality.Semantic.DeepEqual` of two resource lists: same names, equal quantities.
fn same_quantities(
    a: &BTreeMap<String, k8s_openapi::apimachinery::pkg::api::resource::Quantity>,
    b: &BTreeMap<String, k8s_openapi::apimachinery::pkg::api::resource::Quantity>,
) -> bool {
    let parse = |q: &k8s_openapi::apimachinery::pkg::api::resource::Quantity| {
        super::quantity::Quantity::parse(&q.0).ok()
    };
    a.len() == b.len()
        && a.iter()
            .all(|(k, v)| b.get(k).is_some_and(|w| parse(v) == parse(w)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toleration(key: &str, op: &str, effect: &str, secs: Option<i64>) -> core::Toleration {
        let s = |v: &str| (!v.is_empty()).then(|| v.to_string());
        core::Toleration {
            key: s(key),
            operator: s(op),
            effect: s(effect),
            toleration_seconds: secs,
            value: None,
        }
    }

    #[test]
    fn merged_tolerations_keep_only_supersets() {
        let all = toleration("", "Exists", "", None);
        let a = toleration("a", "Exists", "NoSchedule", None);
        assert_eq!(
            merge_tolerations(std::slice::from_ref(&a), std::slice::from_ref(&all)),
            vec![all.clone()]
        );
        let b = toleration("b", "Exists", "NoExecute", Some(60));
        let b_longer = toleration("b", "Exists", "NoExecute", Some(600));
        // Tolerating a NoExecute taint for longer tolerates more.
        assert_eq!(
            merge_tolerations(std::slice::from_ref(&b), std::slice::from_ref(&b_longer)),
            vec![b_longer]
        );
        assert_eq!(
            merge_tolerations(std::slice::from_ref(&a), std::slice::from_ref(&a)),
            vec![a]
        );
    }

    #[test]
    fn default_toleration_seconds_skips_what_the_pod_tolerates() {
        let mut spec = core::PodSpec {
            tolerations: Some(vec![toleration(NOT_READY, "Exists", "", None)]),
            ..Default::default()
        };
        assert_eq!(
            default_toleration_seconds(&mut spec),
            Some(Change::DefaultTolerationSeconds {
                added: vec![UNREACHABLE.to_string()]
            })
        );
        assert_eq!(default_toleration_seconds(&mut spec), None);
    }

    #[test]
    fn namespace_selector_merges_or_conflicts() {
        let mut pod = core::Pod::default();
        let changes = pod_node_selector(&mut pod, "env=prod, tier = web").unwrap_or_default();
        assert_eq!(
            changes,
            vec![Change::PodNodeSelector {
                added: vec![
                    ("env".to_string(), "prod".to_string()),
                    ("tier".to_string(), "web".to_string())
                ]
            }]
        );
        let refused = pod_node_selector(&mut pod, "env=dev").map(|_| ());
        assert_eq!(
            refused.map_err(|r| r.words("p")),
            Err("pods \"p\" is forbidden: pod node label selector conflicts with its namespace node label selector".to_string())
        );
        assert!(labels_map("a=b=c").is_err_and(|e| e == "invalid selector: [a b c]"));
    }

    #[test]
    fn toleration_whitelist_refuses_what_it_does_not_cover() {
        let a = NamespaceAnnotations {
            tolerations_whitelist: Some(
                r#"[{"key":"dedicated","operator":"Equal","value":"web","effect":"NoSchedule"}]"#
                    .to_string(),
            ),
            ..Default::default()
        };
        let mut spec = core::PodSpec::default();
        // BestEffort: nothing added, nothing to check.
        assert_eq!(pod_toleration_restriction(&mut spec, &a), Ok(Vec::new()));
        spec.tolerations = Some(vec![toleration("gpu", "Exists", "NoSchedule", None)]);
        assert!(pod_toleration_restriction(&mut spec, &a).is_err_and(
            |r| !r.forbidden && r.message.starts_with("pod tolerations (possibly merged")
        ));
    }

    #[test]
    fn a_namespace_that_does_not_exist_is_refused_only_when_namespaces_are_known() {
        let mut objects = AdmissionObjects::default();
        assert!(namespace_lifecycle(&objects, "nowhere").is_none());
        objects.existing_namespaces = Some(["shop".to_string()].into());
        assert!(namespace_lifecycle(&objects, "shop").is_none());
        assert!(namespace_lifecycle(&objects, "kube-system").is_none());
        let r = namespace_lifecycle(&objects, "nowhere").expect("refused");
        assert_eq!(
            (r.plugin, r.words("p").as_str()),
            ("NamespaceLifecycle", "namespaces \"nowhere\" not found")
        );
    }
}
