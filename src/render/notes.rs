//! The words of every note: what happened, what it costs the result, and the user's next step.
//! The table prints them after "Note: ", the document carries them as they are.

use std::fmt::{self, Display, Formatter};
use std::io::Write;

use crate::report::{KUBERNETES_VERSION, Note, Refusal};

impl Display for Note {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Note::WhatIf { pod, origin } => write!(f, "what-if for {pod} ({origin})"),
            Note::NamespacesForbidden(r) => write!(
                f,
                "cannot list namespaces (403 Forbidden for user {} in context {}): terms with a \
                 namespaceSelector cannot be evaluated, so InterPodAffinity is shown as not \
                 evaluated; grant list on namespaces (cluster scope) to evaluate them",
                r.user, r.context
            ),
            Note::WorkloadsForbidden(r) => write!(
                f,
                "cannot {} (403 Forbidden for user {} in context {}): PodTopologySpread's \
                 default constraints cannot derive the pod's selector and are left out; grant {} \
                 on {} in namespace {} to evaluate them",
                Request(r),
                r.user,
                r.context,
                r.verb,
                r.resource,
                r.namespace.as_deref().unwrap_or_default(),
            ),
            Note::StorageForbidden(r) => write!(
                f,
                "cannot {} (403 Forbidden for user {} in context {}): the volume plugins are \
                 shown as not evaluated for the pod's volumes; grant list on \
                 persistentvolumeclaims, persistentvolumes, storageclasses, csinodes and \
                 csidrivers to evaluate them",
                Request(r),
                r.user,
                r.context
            ),
            Note::EventsForbidden(r) => write!(
                f,
                "cannot list events in namespace {} (403 Forbidden for user {} in context {}): \
                 the scheduler's own FailedScheduling message is not shown; grant list on events \
                 to see it",
                r.namespace.as_deref().unwrap_or_default(),
                r.user,
                r.context
            ),
            Note::Finding(finding) => {
                let verdict = if finding.rejected {
                    "the API server would reject this pod (evaluated anyway: --validate)"
                } else {
                    "the API server accepts this, but the scheduler cannot parse it"
                };
                write!(f, "{}: {}: {verdict}", finding.field, finding.message)?;
                match finding.reading {
                    Some(reading) => write!(f, "; the scheduler reads it so: {reading}"),
                    None => Ok(()),
                }
            }
            Note::LabelKeysMerged(n) => write!(
                f,
                "matchLabelKeys/mismatchLabelKeys merged into {n} label selector requirement(s), \
                 as the API server does at pod creation"
            ),
            Note::DaemonSet(d) => write!(
                f,
                "DaemonSet: its controller creates one pod per node, pinned to the node; {} daemon \
                 toleration(s) added as the controller does (not-ready, unreachable, \
                 disk/memory/pid-pressure, unschedulable{})",
                d.added,
                if d.host_network {
                    ", network-unavailable"
                } else {
                    ""
                }
            ),
            Note::NodeNameSet(node) => write!(
                f,
                "spec.nodeName is set to {node:?}: the API server binds such a pod directly and the \
                 scheduler never sees it; evaluated as the scheduler would if it did"
            ),
            Note::RunsOn(node) => write!(
                f,
                "the pod runs on {node}; evaluated as if it were scheduled now, itself left out of \
                 the existing pods (scheduling rules are IgnoredDuringExecution: it keeps running \
                 even where they no longer hold)"
            ),
            Note::WorkloadsUnread => f.write_str(
                "no Services, ReplicaSets, ReplicationControllers or StatefulSets were read, so \
                 PodTopologySpread's default constraints derive no selector and do nothing; \
                 include them in the snapshot (kubectl get \
                 nodes,pods,namespaces,services,replicasets,replicationcontrollers,statefulsets \
                 -A -o yaml)",
            ),
            Note::NamespacesUnread(why) => {
                write!(f, "{why}; its verdicts show as unknown, never as passed")
            }
            Note::NotEvaluated(plugins) => write!(
                f,
                "not evaluated (shown as unknown, never as passed): {}",
                plugins.join(", ")
            ),
            Note::GateNotModelled(gate) => write!(
                f,
                "feature gate {gate} does not change any plugin this version evaluates"
            ),
            Note::InvalidAffinitySelectors(errors) => write!(
                f,
                "the pod's affinity has invalid label selectors (the API server would reject \
                 it): {}",
                errors.join("; ")
            ),
            Note::EventDiffers { last_seen } => {
                f.write_str("the scheduler's last FailedScheduling event")?;
                if let Some(t) = last_seen {
                    write!(f, " ({t})")?;
                }
                write!(
                    f,
                    " differs from the computed message; possible causes: another scheduler or a \
                     custom profile (pass --scheduler-config), a scheduler version other than \
                     {KUBERNETES_VERSION}, plugins this version does not evaluate, or the cluster \
                     changed since the event"
                )
            }
            Note::StorageNotEvaluated { plugins, gap } => write!(
                f,
                "{} not evaluated: {gap}; their verdicts show as unknown, never as passed",
                plugins.join(", ")
            ),
            Note::ClaimsFromTemplates(claims) => write!(
                f,
                "StatefulSet: claim(s) {} do not exist yet; evaluated as its controller would \
                 create them from volumeClaimTemplates for its first replica (unbound, with the \
                 default StorageClass when none is named)",
                claims.join(", ")
            ),
            Note::ClaimsNotBindCompleted(claims) => write!(
                f,
                "claim(s) {} name a volume but lack the pv.kubernetes.io/bind-completed \
                 annotation: VolumeBinding treats them as unbound immediate claims until the \
                 PersistentVolume controller finishes binding",
                claims.join(", ")
            ),
            Note::SnapshotWithoutStorage(r) => write!(
                f,
                "{resource} left out: list {resource} is forbidden for user {} in context {}; \
                 the storage plugins will show as not evaluated for pods with volumes",
                r.user,
                r.context,
                resource = r.resource
            ),
            Note::SnapshotWithoutNamespaces(r) => write!(
                f,
                "namespaces left out: list namespaces is forbidden for user {} in context {}; \
                 namespaceSelector terms will show as not evaluated",
                r.user, r.context
            ),
            Note::SnapshotWithoutWorkloads(r) => write!(
                f,
                "{resource} left out: list {resource} is forbidden for user {} in context {}; \
                 PodTopologySpread's default constraints will derive no selector",
                r.user,
                r.context,
                resource = r.resource
            ),
        }
    }
}

/// A refused request as RBAC names it: `get replicasets shop/web-5d8f`.
struct Request<'a>(&'a Refusal);

impl Display for Request<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let r = self.0;
        write!(f, "{} {}", r.verb, r.resource)?;
        match (&r.namespace, &r.name) {
            (Some(ns), Some(name)) => write!(f, " {ns}/{name}"),
            (None, Some(name)) => write!(f, " {name}"),
            (Some(ns), None) => write!(f, " in namespace {ns}"),
            (None, None) => Ok(()),
        }
    }
}

/// The notes a snapshot ends with, as YAML comments after the list.
pub fn snapshot_notes(out: &mut dyn Write, notes: &[Note]) -> std::io::Result<()> {
    for note in notes {
        writeln!(out, "# {note}")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::report::{DaemonTolerations, Note, Refusal};
    use crate::scheduler::inter_pod_affinity::NamespacesUnread;
    use crate::scheduler::storage::Gap;
    use crate::state::PodRef;
    use crate::state::validate::Finding;

    fn refusal(verb: &str, resource: &str, namespace: Option<&str>, name: Option<&str>) -> Refusal {
        Refusal {
            user: "tester".to_string(),
            context: "fake".to_string(),
            verb: verb.to_string(),
            resource: resource.to_string(),
            namespace: namespace.map(str::to_string),
            name: name.map(str::to_string),
        }
    }

    /// Each note in the exact words the output has always had.
    #[test]
    fn every_note_in_its_words() {
        let finding = |rejected, reading| {
            Note::Finding(Finding {
                field: "spec.affinity.nodeAffinity".to_string(),
                message: "Invalid value: \"Is\": not a valid selector operator".to_string(),
                rejected,
                reading,
            })
        };
        let cases = [
            (
                Note::WhatIf {
                    pod: PodRef {
                        namespace: "shop".into(),
                        name: "web".into(),
                    },
                    origin: "Deployment/web".to_string(),
                },
                "what-if for shop/web (Deployment/web)",
            ),
            (
                Note::NamespacesForbidden(refusal("list", "namespaces", None, None)),
                "cannot list namespaces (403 Forbidden for user tester in context fake): terms with \
                 a namespaceSelector cannot be evaluated, so InterPodAffinity is shown as not \
                 evaluated; grant list on namespaces (cluster scope) to evaluate them",
            ),
            (
                Note::WorkloadsForbidden(refusal("list", "services", Some("shop"), None)),
                "cannot list services in namespace shop (403 Forbidden for user tester in context \
                 fake): PodTopologySpread's default constraints cannot derive the pod's selector \
                 and are left out; grant list on services in namespace shop to evaluate them",
            ),
            (
                Note::WorkloadsForbidden(refusal(
                    "get",
                    "replicasets",
                    Some("shop"),
                    Some("web-1"),
                )),
                "cannot get replicasets shop/web-1 (403 Forbidden for user tester in context \
                 fake): PodTopologySpread's default constraints cannot derive the pod's selector \
                 and are left out; grant get on replicasets in namespace shop to evaluate them",
            ),
            (
                Note::EventsForbidden(refusal("list", "events", Some("shop"), None)),
                "cannot list events in namespace shop (403 Forbidden for user tester in context \
                 fake): the scheduler's own FailedScheduling message is not shown; grant list on \
                 events to see it",
            ),
            (
                finding(true, None),
                "spec.affinity.nodeAffinity: Invalid value: \"Is\": not a valid selector operator: \
                 the API server would reject this pod (evaluated anyway: --validate)",
            ),
            (
                finding(
                    false,
                    Some("this required node-affinity term never matches any node"),
                ),
                "spec.affinity.nodeAffinity: Invalid value: \"Is\": not a valid selector operator: \
                 the API server accepts this, but the scheduler cannot parse it; the scheduler \
                 reads it so: this required node-affinity term never matches any node",
            ),
            (
                Note::LabelKeysMerged(2),
                "matchLabelKeys/mismatchLabelKeys merged into 2 label selector requirement(s), as \
                 the API server does at pod creation",
            ),
            (
                Note::DaemonSet(DaemonTolerations {
                    added: 6,
                    host_network: false,
                }),
                "DaemonSet: its controller creates one pod per node, pinned to the node; 6 daemon \
                 toleration(s) added as the controller does (not-ready, unreachable, \
                 disk/memory/pid-pressure, unschedulable)",
            ),
            (
                Note::DaemonSet(DaemonTolerations {
                    added: 7,
                    host_network: true,
                }),
                "DaemonSet: its controller creates one pod per node, pinned to the node; 7 daemon \
                 toleration(s) added as the controller does (not-ready, unreachable, \
                 disk/memory/pid-pressure, unschedulable, network-unavailable)",
            ),
            (
                Note::NodeNameSet("node-1".to_string()),
                "spec.nodeName is set to \"node-1\": the API server binds such a pod directly and \
                 the scheduler never sees it; evaluated as the scheduler would if it did",
            ),
            (
                Note::RunsOn("node-1".to_string()),
                "the pod runs on node-1; evaluated as if it were scheduled now, itself left out of \
                 the existing pods (scheduling rules are IgnoredDuringExecution: it keeps running \
                 even where they no longer hold)",
            ),
            (
                Note::WorkloadsUnread,
                "no Services, ReplicaSets, ReplicationControllers or StatefulSets were read, so \
                 PodTopologySpread's default constraints derive no selector and do nothing; \
                 include them in the snapshot (kubectl get nodes,pods,namespaces,services,\
                 replicasets,replicationcontrollers,statefulsets -A -o yaml)",
            ),
            (
                Note::NamespacesUnread(NamespacesUnread::PodTerm),
                "InterPodAffinity is not evaluated: a term of the pod has a namespaceSelector, \
                 which needs namespace labels, and namespaces were not read (a snapshot without \
                 Namespace objects, or list namespaces forbidden); its verdicts show as unknown, \
                 never as passed",
            ),
            (
                Note::NamespacesUnread(NamespacesUnread::ExistingTerm),
                "InterPodAffinity is not evaluated: an existing pod's term that may match the pod \
                 has a namespaceSelector, which needs namespace labels, and namespaces were not \
                 read (a snapshot without Namespace objects, or list namespaces forbidden); its \
                 verdicts show as unknown, never as passed",
            ),
            (
                Note::NotEvaluated(vec![
                    "DynamicResources".to_string(),
                    "VolumeZone".to_string(),
                ]),
                "not evaluated (shown as unknown, never as passed): DynamicResources, VolumeZone",
            ),
            (
                Note::GateNotModelled("DynamicResourceAllocation".to_string()),
                "feature gate DynamicResourceAllocation does not change any plugin this version \
                 evaluates",
            ),
            (
                Note::InvalidAffinitySelectors(vec!["a: bad".to_string(), "b: worse".to_string()]),
                "the pod's affinity has invalid label selectors (the API server would reject it): \
                 a: bad; b: worse",
            ),
            (
                Note::EventDiffers {
                    last_seen: Some("2026-01-02T03:04:05Z".to_string()),
                },
                "the scheduler's last FailedScheduling event (2026-01-02T03:04:05Z) differs from \
                 the computed message; possible causes: another scheduler or a custom profile \
                 (pass --scheduler-config), a scheduler version other than 1.35, plugins this \
                 version does not evaluate, or the cluster changed since the event",
            ),
            (
                Note::EventDiffers { last_seen: None },
                "the scheduler's last FailedScheduling event differs from the computed message; \
                 possible causes: another scheduler or a custom profile (pass \
                 --scheduler-config), a scheduler version other than 1.35, plugins this version \
                 does not evaluate, or the cluster changed since the event",
            ),
            (
                Note::SnapshotWithoutNamespaces(refusal("list", "namespaces", None, None)),
                "namespaces left out: list namespaces is forbidden for user tester in context \
                 fake; namespaceSelector terms will show as not evaluated",
            ),
            (
                Note::SnapshotWithoutWorkloads(refusal("list", "statefulsets", None, None)),
                "statefulsets left out: list statefulsets is forbidden for user tester in context \
                 fake; PodTopologySpread's default constraints will derive no selector",
            ),
            (
                Note::SnapshotWithoutStorage(refusal("list", "csinodes", None, None)),
                "csinodes left out: list csinodes is forbidden for user tester in context fake; \
                 the storage plugins will show as not evaluated for pods with volumes",
            ),
            (
                Note::StorageForbidden(refusal("list", "persistentvolumes", None, None)),
                "cannot list persistentvolumes (403 Forbidden for user tester in context fake): \
                 the volume plugins are shown as not evaluated for the pod's volumes; grant list \
                 on persistentvolumeclaims, persistentvolumes, storageclasses, csinodes and \
                 csidrivers to evaluate them",
            ),
            (
                Note::StorageNotEvaluated {
                    plugins: vec!["NodeVolumeLimits"],
                    gap: Gap::Translated {
                        plugin: "kubernetes.io/gce-pd",
                    },
                },
                "NodeVolumeLimits not evaluated: a volume of the in-tree plugin \
                 kubernetes.io/gce-pd is migrated to CSI on some node, and that translation is \
                 not modelled; their verdicts show as unknown, never as passed",
            ),
            (
                Note::ClaimsFromTemplates(vec!["data-db-0".to_string()]),
                "StatefulSet: claim(s) data-db-0 do not exist yet; evaluated as its controller \
                 would create them from volumeClaimTemplates for its first replica (unbound, with \
                 the default StorageClass when none is named)",
            ),
        ];
        for (note, words) in cases {
            assert_eq!(note.to_string(), words);
            // The document carries the same words.
            assert_eq!(
                serde_json::to_value(&note).expect("serialize"),
                serde_json::Value::String(words.to_string())
            );
        }
    }

    #[test]
    fn a_snapshot_ends_with_its_notes_as_comments() {
        let mut out = Vec::new();
        let notes = [Note::SnapshotWithoutNamespaces(refusal(
            "list",
            "namespaces",
            None,
            None,
        ))];
        super::snapshot_notes(&mut out, &notes).expect("write");
        assert_eq!(
            String::from_utf8(out).expect("utf-8"),
            "# namespaces left out: list namespaces is forbidden for user tester in context fake; \
             namespaceSelector terms will show as not evaluated\n"
        );
    }
}
