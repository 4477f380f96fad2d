//! The words of every note: what happened, what it costs the result, and the user's next step.
//! The table prints them after "Note: ", the document carries them as they are.

use std::fmt::{self, Display, Formatter};
use std::io::Write;

use crate::report::{KUBERNETES_VERSION, Lint, Note, Refusal, RejectedMost, Unplaced, UpdateRule};
use crate::scheduler::PluginId;
use crate::state::admission::Change as Admitted;
use crate::state::{ContainerName, Defaulted, PodRequestFrom};

/// `NodePorts, VolumeZone`.
fn names(plugins: &[PluginId]) -> String {
    let names: Vec<&str> = plugins.iter().map(PluginId::as_str).collect();
    names.join(", ")
}

/// `0, 1, 2`.
fn list(items: &[usize]) -> String {
    items
        .iter()
        .map(usize::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The line after "Feasible: 0 of 7 nodes": "Most rejected: 3 of 7 nodes by InterPodAffinity
/// (node(s) didn't match pod anti-affinity rules): ...".
impl Display for RejectedMost {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Most rejected: {} of {} nodes by {} ({})",
            self.nodes,
            self.of,
            self.plugin.as_ref().map_or("PreFilter", PluginId::as_str),
            self.reason
        )?;
        match &self.cause {
            Some(cause) => write!(f, ": {cause}"),
            None => Ok(()),
        }
    }
}

impl Display for Note {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Note::WhatIf { pod, origin } => write!(f, "what-if for {pod} ({origin})"),
            Note::NamespacesForbidden(r) => write!(
                f,
                "cannot list namespaces (403 Forbidden for user {} in context {}): terms with a \
                 namespaceSelector cannot be evaluated, so {} is shown as not \
                 evaluated; grant list on namespaces (cluster scope) to evaluate them",
                r.user,
                r.context,
                PluginId::InterPodAffinity
            ),
            Note::WorkloadsForbidden(r) => write!(
                f,
                "cannot {} (403 Forbidden for user {} in context {}): {}'s \
                 default constraints cannot derive the pod's selector and are left out; grant {} \
                 on {} in namespace {} to evaluate them",
                Request(r),
                r.user,
                r.context,
                PluginId::PodTopologySpread,
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
            Note::DraForbidden(r) => write!(
                f,
                "cannot {} (403 Forbidden for user {} in context {}): the pod's ResourceClaims \
                 are shown as not evaluated; grant list on \
                 deviceclasses, resourceslices, resourceclaims and resourceclaimtemplates \
                 (resource.k8s.io) to evaluate it",
                Request(r),
                r.user,
                r.context
            ),
            Note::EventsForbidden(r) => write!(
                f,
                "cannot {}{} (403 Forbidden for user {} in context {}): the scheduler's own \
                 FailedScheduling message is not shown; grant list on events to see it",
                Request(r),
                if r.namespace.is_none() {
                    " in all namespaces"
                } else {
                    ""
                },
                r.user,
                r.context
            ),
            Note::Lint(lint) => write!(f, "{}", LintWords(lint)),
            Note::SnapshotWithoutEvents(r) => write!(
                f,
                "events left out: list events is forbidden for user {} in context {}; the \
                 scheduler's own FailedScheduling messages will not be shown",
                r.user, r.context
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
            Note::Defaulted(changes) => {
                f.write_str("defaulted as the API server does at pod creation: ")?;
                for (i, change) in changes.iter().enumerate() {
                    if i > 0 {
                        f.write_str("; ")?;
                    }
                    write!(f, "{}", Change(change))?;
                }
                f.write_str("; the scheduler evaluates the pod so")
            }
            Note::PodLevelFitScore { release } => write!(
                f,
                "the pod sets pod-level requests (spec.resources): {fit}'s score \
                 ignores them and counts the containers' requests (100m CPU / 200Mi memory for \
                 a container without one), as kube-scheduler {release} builds that scorer without the \
                 PodLevelResources flag; {fit}'s Filter, \
                 {balanced} and the nodes' totals use the pod-level requests",
                fit = PluginId::NodeResourcesFit,
                balanced = PluginId::NodeResourcesBalancedAllocation,
            ),
            Note::PodLevelIgnored { release } => write!(
                f,
                "the pod sets pod-level requests (spec.resources), which kube-scheduler \
                 {release} ignores (PodLevelResources is off before 1.34): every plugin counts \
                 the containers' requests"
            ),
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
            Note::RunsOn(node) => write!(
                f,
                "the pod runs on {node}; evaluated as if it were scheduled now, itself left out of \
                 the existing pods (scheduling rules are IgnoredDuringExecution: it keeps running \
                 even where they no longer hold)"
            ),
            Note::WorkloadsUnread => write!(
                f,
                "no Services, ReplicaSets, ReplicationControllers or StatefulSets were read, so \
                 {}'s default constraints derive no selector and do nothing; \
                 include them in the snapshot (kubectl get \
                 nodes,pods,namespaces,services,replicasets,replicationcontrollers,statefulsets \
                 -A -o yaml)",
                PluginId::PodTopologySpread
            ),
            Note::NamespacesUnread(why) => {
                write!(f, "{why}; its verdicts show as unknown, never as passed")
            }
            Note::NotEvaluated(plugins) => write!(
                f,
                "not evaluated (shown as unknown, never as passed): {}",
                names(plugins)
            ),
            Note::GateNotModelled(gate) => write!(
                f,
                "feature gate {gate} does not change any plugin this version evaluates"
            ),
            Note::GangSchedulingNotEvaluated(t) => write!(
                f,
                "feature gate GangScheduling adds the GangScheduling plugin, which this version \
                 does not evaluate: a pod naming its group in {} waits at PreEnqueue (\"{}\") \
                 until its group is in the scheduling queue and at Permit (\"{}\") until \
                 minCount pods of the gang are placed; the answer is for the pod alone",
                t.group_field, t.waiting_in_queue, t.waiting_at_permit
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
            Note::PreScoreEndsCycle => f.write_str(
                "a PreScore plugin failed (see the error below): the scheduling cycle ends there, \
                 Score does not run and no node is selected; the scores shown are computed for \
                 reference",
            ),
            Note::NominatedNodeFirst => f.write_str(
                "the pod's nominated node (status.nominatedNodeName) passes every Filter: the \
                 scheduler tries it first and takes it without running PreScore or Score; the \
                 scores shown are computed for reference",
            ),
            Note::OneFeasibleNotScored => f.write_str(
                "only one node is feasible: the scheduler takes it without running PreScore or \
                 Score; the scores shown are computed for reference",
            ),
            Note::StorageNotEvaluated { plugins, gap } => write!(
                f,
                "{} not evaluated: {gap}; their verdicts show as unknown, never as passed",
                names(plugins)
            ),
            Note::ClaimsFromTemplates(claims) => write!(
                f,
                "StatefulSet: claim(s) {} do not exist yet; evaluated as its controller would \
                 create them from volumeClaimTemplates for the replica (unbound, with the \
                 default StorageClass when none is named)",
                claims.join(", ")
            ),
            Note::ClaimsNotBindCompleted(claims) => write!(
                f,
                "claim(s) {} name a volume but lack the pv.kubernetes.io/bind-completed \
                 annotation: {} treats them as unbound immediate claims until the \
                 PersistentVolume controller finishes binding",
                claims.join(", "),
                PluginId::VolumeBinding
            ),
            Note::SnapshotWithoutStorage(r) => write!(
                f,
                "{resource} left out: list {resource} is forbidden for user {} in context {}; \
                 the storage plugins will show as not evaluated for pods with volumes",
                r.user,
                r.context,
                resource = r.resource
            ),
            Note::SnapshotWithoutDra(r) => write!(
                f,
                "{resource} left out: list {resource} is forbidden for user {} in context {}; \
                 pods' ResourceClaims will show as not evaluated",
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
                 {}'s default constraints will derive no selector",
                r.user,
                r.context,
                PluginId::PodTopologySpread,
                resource = r.resource
            ),
            Note::PreemptionObjectsForbidden(r) => write!(
                f,
                "cannot list {resource} (403 Forbidden for user {} in context {}): {}; grant list \
                 on {resource} to read them",
                r.user,
                r.context,
                without(&r.resource),
                resource = r.resource
            ),
            Note::SnapshotWithoutPreemptionObjects(r) => write!(
                f,
                "{resource} left out: list {resource} is forbidden for user {} in context {}; {}",
                r.user,
                r.context,
                without(&r.resource),
                resource = r.resource
            ),
            Note::ReplicaTie {
                replica,
                node,
                nodes,
                ties,
                seed,
                later,
            } => {
                write!(
                    f,
                    "replica {replica} tied between {nodes} nodes at its top score: "
                )?;
                match seed {
                    Some(seed) => write!(f, "{node} was picked at random (--seed {seed})")?,
                    None => write!(
                        f,
                        "{node} was picked, the first by name (--seed S picks at random)"
                    )?,
                }
                f.write_str(
                    "; kube-scheduler 1.35 takes an arbitrary one of them, earlier releases a \
                     random one",
                )?;
                if *ties > 1 {
                    write!(f, " ({ties} replicas had a tie)")?;
                }
                if *later {
                    f.write_str(", so the replicas after it may land elsewhere")?;
                }
                Ok(())
            }
            Note::NodesSampled {
                nodes,
                to_find,
                replicas,
            } => write!(
                f,
                "on {nodes} nodes kube-scheduler stops filtering once it has found {to_find} \
                 feasible nodes (percentageOfNodesToScore; numFeasibleNodesToFind), starting \
                 where the previous cycle stopped: {replicas} replica(s) had more feasible nodes \
                 and would land on the best of such a subset, not necessarily the node shown"
            ),
            Note::ReplicasOnUnknownNodes(replicas) => write!(
                f,
                "replica(s) {} were placed on a node whose verdict is unknown (a plugin was not \
                 evaluated there): the scheduler may reject that node, and the placements after \
                 them assume it did not",
                list(replicas)
            ),
            Note::ReplicaWouldPreempt { replica, node } => write!(
                f,
                "replica {replica}: preemption would nominate node {node} and evict its victims; \
                 the replica stays Pending, nominated to {node}, and its victims are deleted: \
                 the replicas after it count it on {node}, as the scheduler counts nominated \
                 pods, and no longer see the victims"
            ),
            Note::ClaimsNotAssumed => write!(
                f,
                "the replicas' claims are not bound as the scheduler would bind them when it \
                 places a replica ({}'s assume): a later replica may be shown taking \
                 a PersistentVolume an earlier one would have taken",
                PluginId::VolumeBinding
            ),
            Note::ReplicasNotScheduled => f.write_str(
                "the scheduler would not take these pods (see above): no replica is placed; the \
                 explanation shows what it would decide for the first if it tried",
            ),
            Note::ScaledBeside { current, pending } => {
                write!(
                    f,
                    "scaled beside the {current} pod(s) the workload has, which stay where they are"
                )?;
                if !pending.is_empty() {
                    write!(
                        f,
                        "; {} of them ({}) wait for a node and are not scheduled here: the \
                         scheduler would take them before the new pods, which may then land \
                         elsewhere",
                        pending.len(),
                        pending.join(", ")
                    )?;
                }
                Ok(())
            }
            Note::DefaultSpreadingWithoutController { kind } => write!(
                f,
                "{}'s default constraints select a pod by its Services and its \
                 controller; the {kind}'s replicas are evaluated without a controller (it is not \
                 created yet), so those constraints do not spread them from one another as they \
                 would once it exists: later replicas' scores may differ from kube-scheduler's",
                PluginId::PodTopologySpread
            ),
            Note::Applied { joined, skipped } => {
                f.write_str("applied as `kubectl apply -f` would: ")?;
                if !joined.is_empty() {
                    write!(
                        f,
                        "{} joined the cluster before the pods were created",
                        joined.join(", ")
                    )?;
                }
                if !skipped.is_empty() {
                    if !joined.is_empty() {
                        f.write_str("; ")?;
                    }
                    write!(
                        f,
                        "{} skipped (the scheduler reads nothing of them)",
                        skipped.join(", ")
                    )?;
                }
                Ok(())
            }
            Note::CreatedByController {
                workload,
                owner,
                labels,
                ordered,
                spread_reads,
                rule,
            } => {
                write!(
                    f,
                    "the replicas are created as the {workload} controller creates them: owned \
                     by {owner} ({})",
                    match spread_reads {
                        true => "their controller, which default spreading reads",
                        false => "their controller, which default spreading does not read",
                    }
                )?;
                if !labels.is_empty() {
                    write!(f, ", labelled {}", labels.join(", "))?;
                }
                if let Some(rule) = rule {
                    write!(f, "; {rule}")?;
                }
                f.write_str(if *ordered {
                    "; one at a time (podManagementPolicy OrderedReady): an ordinal is created \
                     once the one before it runs, so none after a Pending one"
                } else {
                    "; all at once"
                })
            }
            Note::Admitted(changes) => {
                f.write_str("admitted as the API server's admission plugins do at pod creation: ")?;
                for (i, change) in changes.iter().enumerate() {
                    if i > 0 {
                        f.write_str("; ")?;
                    }
                    write!(f, "{}", Admission(change))?;
                }
                f.write_str("; the scheduler evaluates the pod so")
            }
            Note::Emulated {
                release,
                unmodelled,
            } => {
                write!(
                    f,
                    "emulating kube-scheduler {release}: its reason texts, default plugins, \
                     {} status and feature gates",
                    PluginId::NodeResourcesFit,
                )?;
                if unmodelled.is_empty() {
                    Ok(())
                } else {
                    write!(f, "; left to 1.35's rules: {}", unmodelled.join("; "))
                }
            }
            Note::NewerThanEmulated { seen, release } => write!(
                f,
                "the cluster runs {seen}, newer than the newest release this version \
                 emulates: evaluated as kube-scheduler {release}; what changed since is not \
                 known here"
            ),
            Note::ServerDryRun => f.write_str(
                "the pod is the one the API server returned for a dry-run create \
                 (--server-dry-run, dryRun=All, nothing stored): its defaulting, admission \
                 plugins and webhooks applied",
            ),
            Note::AdmissionRejected { plugin, message } => write!(
                f,
                "the API server's {plugin} admission plugin would refuse this pod ({message}); \
                 evaluated anyway (--validate=warn)"
            ),
            Note::Updated {
                workload,
                old,
                rule,
                waits_for,
            } => {
                write!(
                    f,
                    "{workload} exists ({old} pod(s)): applied, it is an update, "
                )?;
                match rule {
                    UpdateRule::RollingUpdate {
                        max_surge,
                        max_unavailable,
                        replicas,
                    } => write!(
                        f,
                        "rolled out as the Deployment controller does, RollingUpdate: maxSurge \
                         {max_surge}, maxUnavailable {max_unavailable} (of {replicas} \
                         replicas): the new ReplicaSet's pods are created while at most {} pods \
                         run in all, the old ones removed while at least {} stay available \
                         (the ReplicaSet controller deletes the unscheduled first, then those \
                         sharing a node with more of the workload's pods, then by name where \
                         upstream takes the newest); a new pod placed is taken as available at \
                         once, and one left Pending stops the rollout",
                        replicas + max_surge,
                        replicas.saturating_sub(*max_unavailable)
                    )?,
                    UpdateRule::Recreate => f.write_str(
                        "Recreate: every old pod is removed first, then the new ReplicaSet's \
                         pods are created at once",
                    )?,
                    UpdateRule::OrdinalRollingUpdate { partition, kept } => {
                        write!(
                            f,
                            "rolled out as the StatefulSet controller does, RollingUpdate: from \
                             the highest ordinal down, one at a time, each old pod removed before \
                             the new one of the same name is created, and the next only once it \
                             runs (none after a Pending one)"
                        )?;
                        if *partition > 0 {
                            write!(
                                f,
                                "; partition {partition}: {} keep the old revision",
                                kept.join(", ")
                            )?;
                        }
                    }
                    UpdateRule::OnDelete => f.write_str(
                        "updateStrategy OnDelete: the controller replaces no pod, so none is \
                         created; pods are updated when you delete them (the explanation below is \
                         of the highest ordinal's new pod, were you to delete its old one)",
                    )?,
                    UpdateRule::DaemonSetRollingUpdate { max_surge } if max_surge == "0" => f
                        .write_str(
                            "rolled out as the DaemonSet controller does, RollingUpdate with \
                             maxSurge 0: on each node the old pod is deleted before the new one is \
                             created, so each node is evaluated without its old pod",
                        )?,
                    UpdateRule::DaemonSetRollingUpdate { max_surge } => write!(
                        f,
                        "rolled out as the DaemonSet controller does, RollingUpdate with maxSurge \
                         {max_surge}: on each node the new pod is created beside the old one, \
                         which still counts (its host ports too) until the new one is ready"
                    )?,
                    UpdateRule::DaemonSetOnDelete => f.write_str(
                        "updateStrategy OnDelete: the controller replaces no pod; each node's pod \
                         is updated when you delete it (each node is evaluated as if its old pod \
                         were deleted)",
                    )?,
                    UpdateRule::Unchanged { created } => {
                        f.write_str(
                            "but its pod template is the one its pods run (as far as the \
                             cluster read shows it): no rollout",
                        )?;
                        if *created == 0 {
                            f.write_str(
                                "; nothing is created (the explanation is of one more pod of \
                                 its template, were one created)",
                            )?;
                        }
                    }
                }
                if let Some(pod) = waits_for {
                    write!(
                        f,
                        "; {pod} does not run, and with podManagementPolicy OrderedReady the \
                         controller waits for it before it updates any pod: no new pod is created"
                    )?;
                }
                Ok(())
            }
            Note::UpdateNotRead { workload, error } => write!(
                f,
                "whether {workload} exists could not be read ({error}): evaluated as a new \
                 workload, beside any pods it has"
            ),
            Note::AdmissionObjectsForbidden(r) => write!(
                f,
                "cannot {} (403 Forbidden for user {} in context {}): the pod is admitted as if \
                 there were none ({}); grant {} on {} to read them",
                Request(r),
                r.user,
                r.context,
                admitted_without(&r.resource),
                r.verb,
                r.resource
            ),
            Note::SnapshotWithoutAdmissionObjects(r) => write!(
                f,
                "{resource} left out: list {resource} is forbidden for user {} in context {}; \
                 a what-if pod will be admitted as if there were none ({})",
                r.user,
                r.context,
                admitted_without(&r.resource),
                resource = r.resource
            ),
        }
    }
}

/// What admission does without the objects of `resource`.
fn admitted_without(resource: &str) -> &'static str {
    match resource {
        "limitranges" => "no LimitRanger defaults or limits",
        "runtimeclasses" => "a RuntimeClass the pod names is refused as missing",
        _ => "no PodNodeSelector or PodTolerationRestriction annotations",
    }
}

/// One change of an admission plugin, as `LimitRanger (LimitRange limits): container app:
/// requests.cpu=100m`.
struct Admission<'a>(&'a Admitted);

impl Display for Admission<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let pairs = |l: &[(String, String)]| {
            l.iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(",")
        };
        let tolerations = |l: &[k8s_openapi::api::core::v1::Toleration]| {
            l.iter().map(toleration).collect::<Vec<_>>().join(", ")
        };
        // The two plugins kube-apiserver does not enable by default.
        let opt_in = |f: &mut Formatter<'_>, plugin: &str, key: &str| {
            write!(
                f,
                " (from the namespace's {key} annotation; --enable-admission-plugins names \
                 {plugin}, which kube-apiserver does not enable by default)"
            )
        };
        let plugin = self.0.plugin();
        match self.0 {
            Admitted::LimitRanger(d) => write!(
                f,
                "{plugin} (LimitRange {}): {} {}: {}.{}={}",
                d.limit_range,
                if d.init {
                    "init container"
                } else {
                    "container"
                },
                d.container,
                if d.request { "requests" } else { "limits" },
                d.resource,
                d.value
            ),
            Admitted::PodNodeSelector { added } => {
                write!(f, "{plugin}: nodeSelector {}", pairs(added))?;
                opt_in(f, plugin, crate::state::admission::NODE_SELECTOR)
            }
            Admitted::DefaultTolerationSeconds { added } => write!(
                f,
                "{plugin}: tolerations {} for 300s",
                added
                    .iter()
                    .map(|k| format!("{k}:NoExecute"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Admitted::PodTolerationRestriction { added } => {
                write!(f, "{plugin}: tolerations {}", tolerations(added))?;
                opt_in(f, plugin, crate::state::admission::DEFAULT_TOLERATIONS)
            }
            Admitted::RuntimeClassOverhead { class, overhead } => {
                write!(f, "{plugin} {class}: overhead {}", pairs(overhead))
            }
            Admitted::RuntimeClassNodeSelector { class, added } => {
                write!(f, "{plugin} {class}: nodeSelector {}", pairs(added))
            }
            Admitted::RuntimeClassTolerations { class, added } => {
                write!(f, "{plugin} {class}: tolerations {}", tolerations(added))
            }
            Admitted::Off { annotation, .. } => write!(
                f,
                "{plugin}: off, so the namespace's {annotation} annotation is not applied \
                 (kube-apiserver enables it only when --enable-admission-plugins names it: \
                 pass --enable-admission-plugins={plugin} if this cluster's API server does)"
            ),
        }
    }
}

/// A toleration as `key=value:Effect`, `key:Effect` (Exists) or `*` (everything).
fn toleration(t: &k8s_openapi::api::core::v1::Toleration) -> String {
    let key = t.key.as_deref().unwrap_or_default();
    let value = t.value.as_deref().unwrap_or_default();
    let mut s = if key.is_empty() {
        "*".to_string()
    } else if t.operator.as_deref() == Some("Exists") || value.is_empty() {
        key.to_string()
    } else {
        format!("{key}={value}")
    };
    if let Some(e) = t.effect.as_deref().filter(|e| !e.is_empty()) {
        s.push(':');
        s.push_str(e);
    }
    if let Some(secs) = t.toleration_seconds {
        s.push_str(&format!(" for {secs}s"));
    }
    s
}

/// What the answer does without PodDisruptionBudgets or PriorityClasses.
fn without(resource: &str) -> &'static str {
    if resource == "priorityclasses" {
        "a new pod's priority is resolved as if there were no PriorityClass (one it names is \
         refused, no default class applies)"
    } else {
        "preemption picks its victims as if no PodDisruptionBudget protected them"
    }
}

/// One value the defaulting set, as `container c: requests.cpu=3 (from its limit)`.
struct Change<'a>(&'a Defaulted);

impl Display for Change<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let container = |f: &mut Formatter<'_>, c: &ContainerName| {
            let kind = if c.init {
                "init container"
            } else {
                "container"
            };
            write!(f, "{kind} {}: ", c.name)
        };
        match self.0 {
            Defaulted::RequestFromLimit {
                container: c,
                resource,
                value,
            } => {
                container(f, c)?;
                write!(f, "requests.{resource}={value} (from its limit)")
            }
            Defaulted::PodRequest {
                resource,
                value,
                from,
            } => write!(
                f,
                "spec.resources.requests.{resource}={value} ({})",
                match from {
                    PodRequestFrom::Containers => "the containers' requests",
                    PodRequestFrom::Limit => "from the pod-level limit",
                }
            ),
            Defaulted::HostPort { container: c, port } => {
                container(f, c)?;
                write!(f, "hostPort={port} (hostNetwork: the containerPort)")
            }
        }
    }
}

impl Display for Unplaced {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Unplaced::Terminal { phase } => write!(
                f,
                "the pod is {phase}: it is done and runs on no node, and the scheduler's cache \
                 leaves it out; evaluated as a new pod like it would be"
            ),
            Unplaced::Bound { node } => write!(
                f,
                "spec.nodeName is {node:?}: the pod is bound, so the scheduler never places it; \
                 the kubelet on {node} admits or rejects it; evaluated as the scheduler would if \
                 it placed the pod"
            ),
            Unplaced::SchedulingGated { gates } => write!(
                f,
                "the pod has scheduling gates ({}): it waits at PreEnqueue (SchedulingGated) and \
                 the scheduler does not try to place it until every gate is removed; evaluated \
                 as if they were removed",
                gates.join(", ")
            ),
            Unplaced::NoProfile { scheduler_name } => write!(
                f,
                "spec.schedulerName is {scheduler_name:?}, which no profile serves: this \
                 scheduler never takes the pod; evaluated with the default-scheduler profile \
                 (pass that scheduler's configuration with --scheduler-config FILE)"
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

/// `snapshot --full`'s warning on standard error.
pub fn full_snapshot_warning(warn: &mut dyn Write) -> std::io::Result<()> {
    writeln!(
        warn,
        "warning: --full writes every field of every object, environment values, commands and \
         annotations included (secrets often sit there): check the file before sharing it"
    )
}

/// What a snapshot left out, as warnings on standard error.
pub fn snapshot_warnings(warn: &mut dyn Write, notes: &[Note]) -> std::io::Result<()> {
    for note in notes {
        writeln!(warn, "warning: {note}")?;
    }
    Ok(())
}

/// A lint in words: what it is about, then what follows from it.
struct LintWords<'a>(&'a Lint);

impl fmt::Display for LintWords<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Lint::TermSelectsNoPod {
                term,
                namespaces,
                anti,
            } => {
                write!(
                    f,
                    "lint: the required term {term} selects no pod in {namespaces}, not even this \
                     pod (check its labels against the pods'): "
                )?;
                if *anti {
                    f.write_str("this anti-affinity never keeps anything apart")
                } else {
                    f.write_str(
                        "this affinity can never be met (the first-pod rule lets a pod through \
                         only when it matches its own term)",
                    )
                }
            }
            Lint::SpreadSelectsNoPod {
                constraint,
                namespace,
            } => write!(
                f,
                "lint: {constraint} selects no pod in namespace {namespace}, not even this pod \
                 (check its labels against the pods'): every domain counts 0, so it spreads nothing"
            ),
            Lint::NodesWithoutKey {
                key,
                constraint,
                nodes,
                of,
                effect,
            } => write!(
                f,
                "lint: {} of {of} node(s) have no {key} label, which {constraint} spreads over \
                 ({nodes}): they are in no domain, and {effect}",
                nodes.count
            ),
            Lint::ClaimInUse { claim, users } => {
                let on: Vec<String> = users
                    .iter()
                    .map(|(pod, node)| format!("{pod} on {node}"))
                    .collect();
                write!(
                    f,
                    "lint: claim {claim} is ReadWriteOnce and in use by {}: on any other node \
                     the kubelet cannot attach it (Multi-Attach error) though the scheduler \
                     places the pod there (it checks ReadWriteOncePod only)",
                    crate::scheduler::explain::few(&on)
                )
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::report::{DaemonTolerations, Note, Refusal, Unplaced};
    use crate::scheduler::PluginId;
    use crate::scheduler::inter_pod_affinity::NamespacesUnread;
    use crate::scheduler::storage::Gap;
    use crate::state::validate::Finding;
    use crate::state::{ContainerName, Defaulted, PodRef, PodRequestFrom};

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
                Note::Defaulted(vec![
                    Defaulted::RequestFromLimit {
                        container: ContainerName {
                            init: true,
                            name: "i".to_string(),
                        },
                        resource: "cpu".to_string(),
                        value: "3".to_string(),
                    },
                    Defaulted::PodRequest {
                        resource: "memory".to_string(),
                        value: "1Gi".to_string(),
                        from: PodRequestFrom::Containers,
                    },
                    Defaulted::PodRequest {
                        resource: "cpu".to_string(),
                        value: "2".to_string(),
                        from: PodRequestFrom::Limit,
                    },
                    Defaulted::HostPort {
                        container: ContainerName {
                            init: false,
                            name: "c".to_string(),
                        },
                        port: 8080,
                    },
                ]),
                "defaulted as the API server does at pod creation: init container i: \
                 requests.cpu=3 (from its limit); spec.resources.requests.memory=1Gi (the \
                 containers' requests); spec.resources.requests.cpu=2 (from the pod-level \
                 limit); container c: hostPort=8080 (hostNetwork: the containerPort); the \
                 scheduler evaluates the pod so",
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
                Note::RunsOn("node-1".to_string()),
                "the pod runs on node-1; evaluated as if it were scheduled now, itself left out of \
                 the existing pods (scheduling rules are IgnoredDuringExecution: it keeps running \
                 even where they no longer hold)",
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
                Note::OneFeasibleNotScored,
                "only one node is feasible: the scheduler takes it without running PreScore or \
                 Score; the scores shown are computed for reference",
            ),
            (
                Note::NominatedNodeFirst,
                "the pod's nominated node (status.nominatedNodeName) passes every Filter: the \
                 scheduler tries it first and takes it without running PreScore or Score; the \
                 scores shown are computed for reference",
            ),
            (
                Note::PreScoreEndsCycle,
                "a PreScore plugin failed (see the error below): the scheduling cycle ends there, \
                 Score does not run and no node is selected; the scores shown are computed for \
                 reference",
            ),
            (
                Note::SnapshotWithoutNamespaces(refusal("list", "namespaces", None, None)),
                "namespaces left out: list namespaces is forbidden for user tester in context \
                 fake; namespaceSelector terms will show as not evaluated",
            ),
            (
                Note::PreemptionObjectsForbidden(refusal(
                    "list",
                    "poddisruptionbudgets",
                    None,
                    None,
                )),
                "cannot list poddisruptionbudgets (403 Forbidden for user tester in context fake): \
                 preemption picks its victims as if no PodDisruptionBudget protected them; grant \
                 list on poddisruptionbudgets to read them",
            ),
            (
                Note::SnapshotWithoutPreemptionObjects(refusal(
                    "list",
                    "priorityclasses",
                    None,
                    None,
                )),
                "priorityclasses left out: list priorityclasses is forbidden for user tester in \
                 context fake; a new pod's priority is resolved as if there were no PriorityClass \
                 (one it names is refused, no default class applies)",
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
                Note::ClaimsFromTemplates(vec!["data-db-0".to_string()]),
                "StatefulSet: claim(s) data-db-0 do not exist yet; evaluated as its controller \
                 would create them from volumeClaimTemplates for the replica (unbound, with \
                 the default StorageClass when none is named)",
            ),
            (
                Note::ReplicaTie {
                    replica: 0,
                    node: "a".to_string(),
                    nodes: 3,
                    ties: 2,
                    seed: None,
                    later: true,
                },
                "replica 0 tied between 3 nodes at its top score: a was picked, the first by name \
                 (--seed S picks at random); kube-scheduler 1.35 takes an arbitrary one of them, \
                 earlier releases a random one (2 replicas had a tie), so the replicas after it \
                 may land elsewhere",
            ),
            (
                Note::ReplicaTie {
                    replica: 4,
                    node: "b".to_string(),
                    nodes: 2,
                    ties: 1,
                    seed: Some(7),
                    later: false,
                },
                "replica 4 tied between 2 nodes at its top score: b was picked at random \
                 (--seed 7); kube-scheduler 1.35 takes an arbitrary one of them, earlier releases \
                 a random one",
            ),
            (
                Note::NodesSampled {
                    nodes: 5000,
                    to_find: 500,
                    replicas: 3,
                },
                "on 5000 nodes kube-scheduler stops filtering once it has found 500 feasible \
                 nodes (percentageOfNodesToScore; numFeasibleNodesToFind), starting where the \
                 previous cycle stopped: 3 replica(s) had more feasible nodes and would land on \
                 the best of such a subset, not necessarily the node shown",
            ),
            (
                Note::ReplicasOnUnknownNodes(vec![1, 2]),
                "replica(s) 1, 2 were placed on a node whose verdict is unknown (a plugin was not \
                 evaluated there): the scheduler may reject that node, and the placements after \
                 them assume it did not",
            ),
            (
                Note::ReplicaWouldPreempt {
                    replica: 2,
                    node: "n".to_string(),
                },
                "replica 2: preemption would nominate node n and evict its victims; the replica \
                 stays Pending, nominated to n, and its victims are deleted: the replicas after \
                 it count it on n, as the scheduler counts nominated pods, and no longer see the \
                 victims",
            ),
            (
                Note::CreatedByController {
                    workload: "StatefulSet".to_string(),
                    owner: "StatefulSet/zk".to_string(),
                    labels: vec!["controller-revision-hash=zk-5d8f".to_string()],
                    ordered: true,
                    spread_reads: true,
                    rule: None,
                },
                "the replicas are created as the StatefulSet controller creates them: owned by \
                 StatefulSet/zk (their controller, which default spreading reads), labelled \
                 controller-revision-hash=zk-5d8f; one at a time (podManagementPolicy \
                 OrderedReady): an ordinal is created once the one before it runs, so none after \
                 a Pending one",
            ),
            (
                Note::Applied {
                    joined: vec!["1 Service".to_string()],
                    skipped: vec!["2 ConfigMap".to_string(), "1 ServiceAccount".to_string()],
                },
                "applied as `kubectl apply -f` would: 1 Service joined the cluster before the \
                 pods were created; 2 ConfigMap, 1 ServiceAccount skipped (the scheduler reads \
                 nothing of them)",
            ),
            (
                Note::ReplicasNotScheduled,
                "the scheduler would not take these pods (see above): no replica is placed; the \
                 explanation shows what it would decide for the first if it tried",
            ),
            (
                Note::ScaledBeside {
                    current: 3,
                    pending: Vec::new(),
                },
                "scaled beside the 3 pod(s) the workload has, which stay where they are",
            ),
            (
                Note::ScaledBeside {
                    current: 2,
                    pending: vec!["web-1".to_string()],
                },
                "scaled beside the 2 pod(s) the workload has, which stay where they are; 1 of \
                 them (web-1) wait for a node and are not scheduled here: the scheduler would \
                 take them before the new pods, which may then land elsewhere",
            ),
        ];
        // The notes that name a plugin, by the name the enum gives it.
        let named = [
            (
                Note::NamespacesForbidden(refusal("list", "namespaces", None, None)),
                format!(
                    "cannot list namespaces (403 Forbidden for user tester in context fake): terms with \
                     a namespaceSelector cannot be evaluated, so {} is shown as not \
                     evaluated; grant list on namespaces (cluster scope) to evaluate them",
                    PluginId::InterPodAffinity
                ),
            ),
            (
                Note::WorkloadsForbidden(refusal("list", "services", Some("shop"), None)),
                format!(
                    "cannot list services in namespace shop (403 Forbidden for user tester in context \
                     fake): {}'s default constraints cannot derive the pod's selector \
                     and are left out; grant list on services in namespace shop to evaluate them",
                    PluginId::PodTopologySpread
                ),
            ),
            (
                Note::WorkloadsForbidden(refusal(
                    "get",
                    "replicasets",
                    Some("shop"),
                    Some("web-1"),
                )),
                format!(
                    "cannot get replicasets shop/web-1 (403 Forbidden for user tester in context \
                     fake): {}'s default constraints cannot derive the pod's selector \
                     and are left out; grant get on replicasets in namespace shop to evaluate them",
                    PluginId::PodTopologySpread
                ),
            ),
            (
                Note::PodLevelFitScore { release: "1.35" },
                format!(
                    "the pod sets pod-level requests (spec.resources): {}'s score \
                     ignores them and counts the containers' requests (100m CPU / 200Mi memory for \
                     a container without one), as kube-scheduler 1.35 builds that scorer without the \
                     PodLevelResources flag; {}'s Filter, \
                     {} and the nodes' totals use the pod-level requests",
                    PluginId::NodeResourcesFit,
                    PluginId::NodeResourcesFit,
                    PluginId::NodeResourcesBalancedAllocation
                ),
            ),
            (
                Note::WorkloadsUnread,
                format!(
                    "no Services, ReplicaSets, ReplicationControllers or StatefulSets were read, so \
                     {}'s default constraints derive no selector and do nothing; \
                     include them in the snapshot (kubectl get nodes,pods,namespaces,services,\
                     replicasets,replicationcontrollers,statefulsets -A -o yaml)",
                    PluginId::PodTopologySpread
                ),
            ),
            (
                Note::NamespacesUnread(NamespacesUnread::PodTerm),
                format!(
                    "{} is not evaluated: a term of the pod has a namespaceSelector, \
                     which needs namespace labels, and namespaces were not read (a snapshot without \
                     Namespace objects, or list namespaces forbidden); its verdicts show as unknown, \
                     never as passed",
                    PluginId::InterPodAffinity
                ),
            ),
            (
                Note::NamespacesUnread(NamespacesUnread::ExistingTerm),
                format!(
                    "{} is not evaluated: an existing pod's term that may match the pod \
                     has a namespaceSelector, which needs namespace labels, and namespaces were not \
                     read (a snapshot without Namespace objects, or list namespaces forbidden); its \
                     verdicts show as unknown, never as passed",
                    PluginId::InterPodAffinity
                ),
            ),
            (
                Note::NotEvaluated(vec![PluginId::DynamicResources, PluginId::VolumeZone]),
                format!(
                    "not evaluated (shown as unknown, never as passed): {}, {}",
                    PluginId::DynamicResources,
                    PluginId::VolumeZone
                ),
            ),
            (
                Note::SnapshotWithoutWorkloads(refusal("list", "statefulsets", None, None)),
                format!(
                    "statefulsets left out: list statefulsets is forbidden for user tester in context \
                     fake; {}'s default constraints will derive no selector",
                    PluginId::PodTopologySpread
                ),
            ),
            (
                Note::StorageNotEvaluated {
                    plugins: vec![PluginId::NodeVolumeLimits],
                    gap: Gap::Translated {
                        plugin: "kubernetes.io/gce-pd",
                    },
                },
                format!(
                    "{} not evaluated: a volume of the in-tree plugin \
                     kubernetes.io/gce-pd is migrated to CSI on some node, and that translation is \
                     not modelled; their verdicts show as unknown, never as passed",
                    PluginId::NodeVolumeLimits
                ),
            ),
            (
                Note::ClaimsNotAssumed,
                format!(
                    "the replicas' claims are not bound as the scheduler would bind them when it \
                     places a replica ({}'s assume): a later replica may be shown taking \
                     a PersistentVolume an earlier one would have taken",
                    PluginId::VolumeBinding
                ),
            ),
            (
                Note::DefaultSpreadingWithoutController {
                    kind: "Deployment".to_string(),
                },
                format!(
                    "{}'s default constraints select a pod by its Services and its \
                     controller; the Deployment's replicas are evaluated without a controller (it is \
                     not created yet), so those constraints do not spread them from one another as \
                     they would once it exists: later replicas' scores may differ from \
                     kube-scheduler's",
                    PluginId::PodTopologySpread
                ),
            ),
        ];
        let cases = cases
            .into_iter()
            .map(|(note, words)| (note, words.to_string()))
            .chain(named);
        for (note, words) in cases {
            assert_eq!(note.to_string(), words);
            // The document carries the same words.
            assert_eq!(
                serde_json::to_value(&note).expect("serialize"),
                serde_json::Value::String(words.to_string())
            );
        }
    }

    /// Why the scheduler would not place a pod, in its words; the document carries the
    /// reason as data.
    #[test]
    fn every_unplaced_reason_in_its_words() {
        let cases = [
            (
                Unplaced::Terminal {
                    phase: "Succeeded".to_string(),
                },
                "the pod is Succeeded: it is done and runs on no node, and the scheduler's cache \
                 leaves it out; evaluated as a new pod like it would be",
                serde_json::json!({"reason": "Terminal", "phase": "Succeeded"}),
            ),
            (
                Unplaced::Bound {
                    node: "node-1".to_string(),
                },
                "spec.nodeName is \"node-1\": the pod is bound, so the scheduler never places \
                 it; the kubelet on node-1 admits or rejects it; evaluated as the scheduler would \
                 if it placed the pod",
                serde_json::json!({"reason": "Bound", "node": "node-1"}),
            ),
            (
                Unplaced::SchedulingGated {
                    gates: vec!["a/b".to_string(), "c".to_string()],
                },
                "the pod has scheduling gates (a/b, c): it waits at PreEnqueue (SchedulingGated) \
                 and the scheduler does not try to place it until every gate is removed; \
                 evaluated as if they were removed",
                serde_json::json!({"reason": "SchedulingGated", "gates": ["a/b", "c"]}),
            ),
            (
                Unplaced::NoProfile {
                    scheduler_name: "mine".to_string(),
                },
                "spec.schedulerName is \"mine\", which no profile serves: this scheduler never \
                 takes the pod; evaluated with the default-scheduler profile (pass that \
                 scheduler's configuration with --scheduler-config FILE)",
                serde_json::json!({"reason": "NoProfile", "schedulerName": "mine"}),
            ),
        ];
        for (why, words, data) in cases {
            assert_eq!(why.to_string(), words);
            assert_eq!(serde_json::to_value(&why).expect("serialize"), data);
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
