//! The audit document (`kind: SchedulingAudit`): the cluster at once. Pending pods with the
//! FailedScheduling message the scheduler would write now, grouped by the workload that owns
//! them; running pods whose node no longer satisfies their required rules, rule by rule; and
//! the cordoned nodes, said apart since nothing evicts the pods they run.
//!
//! The pipeline evaluates (`pipeline::audit`); this describes what it found.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Serialize, Serializer};

use super::pods::PodRow;
use super::{API_VERSION, Explanation, Note, SchedulerEvent};
use crate::scheduler::audit::{Broken, Standing};
use crate::scheduler::{Code, FilterDetails, PluginId};
use crate::state::{ClusterState, Pod, PodRef, Taint};

pub const KIND: &str = "SchedulingAudit";

/// The label a Deployment's controller sets on the ReplicaSets it creates and their pods: a
/// ReplicaSet named `<deployment>-<hash>` is the Deployment's (pkg/controller/deployment/
/// sync.go, `getNewReplicaSet`). Pods hold no reference to the Deployment itself.
const POD_TEMPLATE_HASH: &str = "pod-template-hash";

/// What to audit.
#[derive(Debug, Clone)]
pub struct Scope {
    /// `None`: every namespace (`-A`).
    pub namespace: Option<String>,
    pub pending: bool,
    pub violating: bool,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Audit {
    pub api_version: &'static str,
    pub kind: &'static str,
    /// `snapshot FILE` or `context NAME (SERVER)`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// The namespace audited; absent for every namespace.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    pub summary: AuditSummary,
    /// Pending pods by owning workload (absent with `--violating` alone).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pending: Option<Vec<PendingGroup>>,
    /// Bound pods whose node breaks a required rule (absent with `--pending` alone).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub violating: Option<Vec<Violation>>,
    /// Bound pods with a rule that could not be checked (never counted as satisfied).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unchecked: Vec<Unchecked>,
    /// Cordoned nodes running audited pods: no new pod goes there, none is evicted.
    pub cordoned: Vec<Cordoned>,
    pub notes: Vec<Note>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AuditSummary {
    /// Every Pending pod of the scope, whatever its category below.
    pub pending: usize,
    /// Of those, pods some node could take now (the scheduler has not retried them yet):
    /// a node passes every Filter, each of them evaluated.
    pub placeable: usize,
    /// Pods no node can take now: the scheduler's FailedScheduling message says why.
    #[serde(skip_serializing_if = "is_zero")]
    pub unschedulable: usize,
    /// Pods no node is known to take: the nodes that pass every evaluated Filter depend on
    /// a plugin that was not evaluated.
    #[serde(skip_serializing_if = "is_zero")]
    pub not_evaluated: usize,
    /// Pods waiting for their scheduling gates (PreEnqueue): not tried, not evaluated.
    #[serde(skip_serializing_if = "is_zero")]
    pub gated: usize,
    /// Pods for a scheduler no profile here serves: not evaluated.
    #[serde(skip_serializing_if = "is_zero")]
    pub other_scheduler: usize,
    /// Pods bound to a node the cluster does not have: no scheduler places them again.
    #[serde(skip_serializing_if = "is_zero")]
    pub bound_to_missing_node: usize,
    /// Bound pods whose node breaks at least one of their required rules.
    pub violating: usize,
    /// Static pods' mirrors, which the kubelet runs from a file and no scheduler placed:
    /// their rules are not checked.
    pub static_pods_not_checked: usize,
    /// The cluster's cordoned nodes, whether they run audited pods or not.
    pub cordoned_nodes: usize,
}

/// The Pending pods of one workload (or one pod without a controller).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PendingGroup {
    pub namespace: String,
    /// `Kind/name` of the owning workload (a ReplicaSet's Deployment); absent for a pod
    /// without a controller.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workload: Option<String>,
    pub count: usize,
    pub pods: Vec<PendingPod>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// Where a Pending pod stands; every Pending pod of the scope is in exactly one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Category {
    /// A node passes every Filter, each evaluated.
    SchedulableNow,
    /// No node passes: the FailedScheduling message says why.
    Unschedulable,
    /// No node is known to pass: some plugin was not evaluated (see `notEvaluated`).
    NotEvaluated,
    /// `spec.schedulingGates` left: the scheduler does not try the pod.
    Gated,
    /// `spec.schedulerName` names a scheduler no profile here serves.
    OtherScheduler,
    /// `spec.nodeName` names a node the cluster does not have.
    BoundToMissingNode,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PendingPod {
    pub name: String,
    pub category: Category,
    /// What the scheduler would write in the FailedScheduling event now; absent when a node
    /// can take the pod.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failed_scheduling_message: Option<String>,
    /// False when part of that message (a PostFilter plugin's) was not evaluated.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failed_scheduling_message_complete: Option<bool>,
    /// Nodes that pass every Filter; absent for a pod not evaluated at all.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub feasible: Option<usize>,
    /// Nodes whose verdict depends on a plugin that was not evaluated.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unknown: Option<usize>,
    /// Why each plugin not evaluated on some node was not (its own words).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_evaluated: Vec<String>,
    /// The node(s) the scheduler would pick now (a tie when several); none while the pick
    /// depends on a node whose verdict is unknown.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub selected: Vec<String>,
    /// `Gated`: the scheduling gates left.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub scheduling_gates: Vec<String>,
    /// `OtherScheduler`: the scheduler named.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scheduler_name: Option<String>,
    /// `BoundToMissingNode`: the node named.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_name: Option<String>,
    /// The scheduler's own last FailedScheduling event (live).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scheduler_event: Option<SchedulerEvent>,
}

/// A bound pod whose node breaks some of its required rules.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Violation {
    /// `namespace/name`.
    pub pod: String,
    pub node: String,
    /// The node is cordoned too (said, not a violation of its own).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub cordoned: bool,
    pub rules: Vec<Rule>,
}

/// One broken rule, as its plugin's Filter says it.
#[derive(Debug, Clone)]
pub struct Rule(pub Broken);

impl Serialize for Rule {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Written<'a> {
            plugin: &'a PluginId,
            reason: std::borrow::Cow<'a, str>,
            code: Code,
            #[serde(skip_serializing_if = "<[Taint]>::is_empty")]
            untolerated_taints: &'a [Taint],
            #[serde(skip_serializing_if = "<[Arc<PodRef>]>::is_empty")]
            pods: &'a [Arc<PodRef>],
            #[serde(skip_serializing_if = "Option::is_none")]
            details: Option<&'a FilterDetails>,
        }
        let b = &self.0;
        Written {
            plugin: &b.plugin,
            reason: b.status.message(),
            code: b.status.code,
            untolerated_taints: &b.taints,
            pods: &b.pods,
            details: b.details.as_ref(),
        }
        .serialize(s)
    }
}

/// A bound pod's rule that could not be checked, and why.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Unchecked {
    pub pod: String,
    pub node: String,
    pub plugin: PluginId,
    pub why: String,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Cordoned {
    pub node: String,
    /// Audited pods running there.
    pub pods: usize,
}

/// What the audit's pipeline found within the scope, for the document to describe.
#[derive(Debug, Default)]
pub struct Found<'a> {
    /// With `--pending`: each Pending pod the scheduler would try, in the state's order, with
    /// what its evaluation says.
    pub pending: Option<Vec<(&'a Pod, PendingPod)>>,
    /// The bound pods whose node has something to say of their required rules: an index into
    /// the state's pods, and what it says.
    pub checked: Vec<(usize, Standing)>,
    /// Static pods' mirrors, not checked.
    pub static_pods: usize,
    /// The cordoned nodes running audited pods, and how many.
    pub on_cordoned: BTreeMap<&'a str, usize>,
}

impl Audit {
    /// The audit of `state` within `scope`, from what the pipeline `found`; `read` is what
    /// reading the cluster left out.
    pub fn new(state: &ClusterState, scope: &Scope, found: Found<'_>, read: Vec<Note>) -> Audit {
        let Found {
            pending,
            checked,
            static_pods,
            on_cordoned,
        } = found;
        let pending = pending.map(|pods| {
            let mut groups: BTreeMap<(String, Option<String>), Vec<PendingPod>> = BTreeMap::new();
            for (pod, listed) in pods {
                let key = (pod.id.namespace.to_string(), workload(pod));
                groups.entry(key).or_default().push(listed);
            }
            groups
                .into_iter()
                .map(|((namespace, workload), mut pods)| {
                    pods.sort_by(|a, b| a.name.cmp(&b.name));
                    PendingGroup {
                        namespace,
                        workload,
                        count: pods.len(),
                        pods,
                    }
                })
                .collect::<Vec<_>>()
        });
        let mut violating = Vec::new();
        let mut unchecked = Vec::new();
        for (i, standing) in checked {
            let pod = &state.pods()[i];
            let node = &state.nodes()[state.pod_node(i)];
            unchecked.extend(
                standing
                    .not_evaluated
                    .into_iter()
                    .map(|(plugin, why)| Unchecked {
                        pod: pod.id.to_string(),
                        node: node.name.clone(),
                        plugin,
                        why,
                    }),
            );
            if !standing.broken.is_empty() {
                violating.push(Violation {
                    pod: pod.id.to_string(),
                    node: node.name.clone(),
                    cordoned: standing.cordoned,
                    rules: standing.broken.into_iter().map(Rule).collect(),
                });
            }
        }
        violating.sort_by(|a, b| a.pod.cmp(&b.pod));
        let cordoned: Vec<Cordoned> = on_cordoned
            .into_iter()
            .map(|(node, pods)| Cordoned {
                node: node.to_string(),
                pods,
            })
            .collect();
        let all_pending = pending.iter().flatten().flat_map(|g| &g.pods);
        let count = |c: Category| all_pending.clone().filter(|p| p.category == c).count();
        Audit {
            api_version: API_VERSION,
            kind: KIND,
            source: None,
            namespace: scope.namespace.clone(),
            summary: AuditSummary {
                pending: all_pending.clone().count(),
                placeable: count(Category::SchedulableNow),
                unschedulable: count(Category::Unschedulable),
                not_evaluated: count(Category::NotEvaluated),
                gated: count(Category::Gated),
                other_scheduler: count(Category::OtherScheduler),
                bound_to_missing_node: count(Category::BoundToMissingNode),
                violating: violating.len(),
                static_pods_not_checked: static_pods,
                cordoned_nodes: state.nodes().iter().filter(|n| n.unschedulable).count(),
            },
            pending,
            violating: scope.violating.then_some(violating),
            unchecked,
            cordoned,
            notes: read,
        }
    }

    /// Whether anything is Pending or breaks its rules (`--exit-code`).
    pub fn anything_found(&self) -> bool {
        self.summary.pending > 0 || self.summary.violating > 0
    }

    /// The Pending pods listed, for looking up their events.
    pub fn pending_pods(&self) -> impl Iterator<Item = PodRef> + '_ {
        self.pending.iter().flatten().flat_map(|g| {
            g.pods.iter().map(|p| PodRef {
                namespace: Arc::from(g.namespace.as_str()),
                name: p.name.as_str().into(),
            })
        })
    }

    /// Sets the scheduler's own last FailedScheduling event of a Pending pod beside the
    /// message computed now.
    pub fn set_scheduler_event(
        &mut self,
        pod: &PodRef,
        message: String,
        last_seen: Option<String>,
        count: Option<i32>,
        reported_by: Option<String>,
    ) {
        let listed = self
            .pending
            .iter_mut()
            .flatten()
            .filter(|g| *g.namespace == *pod.namespace)
            .flat_map(|g| &mut g.pods)
            .find(|p| *p.name == *pod.name);
        if let Some(p) = listed {
            p.scheduler_event = Some(SchedulerEvent {
                matches_computed: super::same_failure(
                    &message,
                    p.failed_scheduling_message.as_deref(),
                    p.failed_scheduling_message_complete != Some(false),
                ),
                message,
                last_seen,
                count,
                reported_by,
            });
        }
    }
}

impl PendingPod {
    /// The pod's line, from its explanation. A pick among nodes of which some were not
    /// evaluated is no pick: the unknown ones may score higher or be rejected.
    pub fn of(doc: Explanation) -> PendingPod {
        let s = doc.summary;
        let mut not_evaluated: Vec<String> = Vec::new();
        for n in &doc.nodes {
            for f in n.filters.iter() {
                if let Some(why) = f.not_evaluated
                    && !not_evaluated.iter().any(|w| w == why)
                {
                    not_evaluated.push(why.to_string());
                }
            }
        }
        let category = match (&s.failed_scheduling_message, s.feasible, s.unknown) {
            (Some(_), _, _) => Category::Unschedulable,
            (None, 0, 1..) => Category::NotEvaluated,
            (None, 0, 0) if s.selected.is_empty() => Category::Unschedulable,
            _ => Category::SchedulableNow,
        };
        PendingPod {
            name: doc.pod.name.to_string(),
            category,
            failed_scheduling_message: s.failed_scheduling_message,
            failed_scheduling_message_complete: s.failed_scheduling_message_complete,
            feasible: Some(s.feasible),
            unknown: Some(s.unknown),
            not_evaluated,
            selected: if s.unknown > 0 {
                Vec::new()
            } else {
                s.selected
            },
            scheduling_gates: Vec::new(),
            scheduler_name: None,
            node_name: None,
            scheduler_event: None,
        }
    }

    /// A pod the scheduler does not try, in `category`: nothing evaluated.
    pub fn not_tried(pod: &Pod, category: Category) -> PendingPod {
        PendingPod {
            name: pod.id.name.to_string(),
            category,
            failed_scheduling_message: None,
            failed_scheduling_message_complete: None,
            feasible: None,
            unknown: None,
            not_evaluated: Vec::new(),
            selected: Vec::new(),
            scheduling_gates: match category {
                Category::Gated => pod.template.scheduling_gates.clone(),
                _ => Vec::new(),
            },
            scheduler_name: (category == Category::OtherScheduler)
                .then(|| pod.template.scheduler_name.to_string()),
            node_name: (category == Category::BoundToMissingNode)
                .then(|| pod.node_name.to_string()),
            scheduler_event: None,
        }
    }
}

/// `Kind/name` of the pod's controller; a ReplicaSet made by a Deployment is named by the
/// Deployment (see [`POD_TEMPLATE_HASH`]).
pub fn workload(pod: &Pod) -> Option<String> {
    let owner = pod.controller.as_deref()?;
    if owner.kind == "ReplicaSet"
        && let Some(hash) = pod.labels.get(POD_TEMPLATE_HASH)
        && let Some(deployment) = owner.name.strip_suffix(&format!("-{hash}"))
    {
        return Some(format!("Deployment/{deployment}"));
    }
    Some(format!("{}/{}", owner.kind, owner.name))
}

/// The row of a pod from its explanation; `node` is the node it is bound to.
pub fn pod_row(doc: &Explanation, node: Option<String>, phase: &str) -> PodRow {
    PodRow {
        name: doc.pod.name.to_string(),
        node,
        phase: phase.to_string(),
        failed_scheduling_message: doc.summary.failed_scheduling_message.clone(),
        selected: match &doc.current {
            Some(_) => Vec::new(),
            None => doc.summary.selected.clone(),
        },
        current_reasons: doc.current.as_ref().map(|c| c.reasons.clone()),
        explained: false,
    }
}
