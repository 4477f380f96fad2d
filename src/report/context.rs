//! What the document says beside the evaluation: who the pod is, which profile ran, how the
//! pod came to be evaluated, and which notes the reader needs to read the result right.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::scheduler::Input;
use crate::scheduler::inter_pod_affinity::namespaces_unknown;
use crate::scheduler::needs::not_evaluated;
use crate::scheduler::pod_topology_spread::defaults_without_workloads;
use crate::scheduler::profile::Profile;
use crate::state::PodRef;
use crate::state::validate::Finding;

use super::notes::{DaemonTolerations, Note};

/// The kube-scheduler release whose behaviour (plugins, reasons, defaults) is reproduced.
pub const KUBERNETES_VERSION: &str = "1.35";

/// Which scheduler and profile the pod was evaluated with.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SchedulerInfo {
    pub kubernetes_version: &'static str,
    pub scheduler_name: String,
    pub profile_source: String,
    pub feature_gates: BTreeMap<String, bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub percentage_of_nodes_to_score: Option<i32>,
}

/// How the pod came to be evaluated.
#[derive(Debug, Clone)]
pub enum Subject {
    /// `explain`: a pod of the cluster, and the node it runs on when it is bound.
    Cluster { current_node: Option<String> },
    /// `whatif`: the pod a manifest would create.
    Manifest(Manifest),
}

impl Default for Subject {
    fn default() -> Subject {
        Subject::Cluster { current_node: None }
    }
}

/// What `whatif` did to a manifest's pod before evaluating it, as the API server and the
/// workload's controller would have.
#[derive(Debug, Clone)]
pub struct Manifest {
    /// e.g. `Deployment/web-store`.
    pub origin: String,
    /// What the API server's validation says about the pod's scheduling fields.
    pub findings: Vec<Finding>,
    /// `--validate=warn`: the pod is evaluated although the API server would reject it, and
    /// the findings it would reject it for are shown too.
    pub evaluated_anyway: bool,
    /// matchLabelKeys/mismatchLabelKeys requirements merged into label selectors.
    pub merged: usize,
    /// A DaemonSet's pod: what its controller adds.
    pub daemon: Option<DaemonTolerations>,
}

/// Context the evaluation does not know: who the pod is and which profile ran.
#[derive(Debug, Clone)]
pub struct Context {
    pub pod: PodRef,
    pub scheduler: SchedulerInfo,
    pub notes: Vec<Note>,
    /// The node a running pod is bound to.
    pub current_node: Option<String>,
    /// The pod is a DaemonSet's template.
    pub daemon_set: bool,
}

impl Context {
    /// The context of evaluating `input` under `profile`: `read` is what reading the cluster
    /// left out, `subject` how the pod came to be evaluated.
    pub fn new(input: Input<'_>, profile: &Profile, read: Vec<Note>, subject: Subject) -> Context {
        let pod = input.pod;
        let mut notes = Vec::new();
        if let Subject::Manifest(m) = &subject {
            notes.push(Note::WhatIf {
                pod: (*pod.id).clone(),
                origin: m.origin.clone(),
            });
        }
        notes.extend(read);
        let (current_node, daemon_set) = match subject {
            Subject::Cluster { current_node } => {
                notes.extend(current_node.clone().map(Note::RunsOn));
                (current_node, false)
            }
            Subject::Manifest(m) => {
                let shown = |f: &Finding| m.evaluated_anyway || !f.rejected;
                notes.extend(m.findings.into_iter().filter(shown).map(Note::Finding));
                if m.merged > 0 {
                    notes.push(Note::LabelKeysMerged(m.merged));
                }
                notes.extend(m.daemon.map(Note::DaemonSet));
                if !pod.node_name.is_empty() {
                    notes.push(Note::NodeNameSet(pod.node_name.to_string()));
                }
                (None, m.daemon.is_some())
            }
        };
        notes.extend(evaluation_notes(input, profile));
        Context {
            pod: (*pod.id).clone(),
            scheduler: SchedulerInfo {
                kubernetes_version: KUBERNETES_VERSION,
                scheduler_name: profile.scheduler_name.clone(),
                profile_source: profile.source.clone(),
                feature_gates: profile.gates.given.clone(),
                percentage_of_nodes_to_score: profile.percentage_of_nodes_to_score,
            },
            notes,
            current_node,
            daemon_set,
        }
    }
}

/// What the evaluation leaves uncertain or does not model, for this pod and profile.
fn evaluation_notes(input: Input<'_>, profile: &Profile) -> Vec<Note> {
    let (pod, state) = (input.pod, input.state);
    let mut notes = Vec::new();
    let spreads = enabled(
        profile.filter.iter().chain(&profile.pre_score),
        "PodTopologySpread",
    );
    if spreads && defaults_without_workloads(pod, state, &profile.pod_topology_spread) {
        notes.push(Note::WorkloadsUnread);
    }
    let affinity = enabled(
        profile
            .filter
            .iter()
            .chain(profile.score.iter().map(|(n, _)| n)),
        "InterPodAffinity",
    );
    if affinity && let Some(why) = namespaces_unknown(input) {
        notes.push(Note::NamespacesUnread(why));
    }
    let missing = not_evaluated(pod, profile);
    if !missing.is_empty() {
        notes.push(Note::NotEvaluated(
            missing.into_iter().map(str::to_string).collect(),
        ));
    }
    notes.extend(
        profile
            .gates
            .unmodelled()
            .into_iter()
            .map(Note::GateNotModelled),
    );
    if let Some(a) = pod
        .template
        .pod_affinity
        .as_deref()
        .filter(|a| !a.errors.is_empty())
    {
        notes.push(Note::InvalidAffinitySelectors(a.errors.clone()));
    }
    notes
}

fn enabled<'a>(mut plugins: impl Iterator<Item = &'a String>, name: &str) -> bool {
    plugins.any(|n| n == name)
}
