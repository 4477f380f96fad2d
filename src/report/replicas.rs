//! `whatif` of a workload: its replicas scheduled one after another with the earlier ones
//! assumed (see `scheduler::workload`), and the explanation of one replica (the one asked
//! for, else the first Pending, else the first) with every replica's placement beside it.

use crate::scheduler::Input;
use crate::scheduler::pod_topology_spread::default_spreading_applies;
use crate::scheduler::profile::Profile;
use crate::scheduler::workload::{Cycle, TieBreak, feasible_nodes_to_find, place_replicas};
use crate::scheduler::{Evaluation, PluginId, Verdict};
use crate::state::{ClusterState, Pod};

use super::notes::Note;
use super::workload::{ReplicaReport, WorkloadReport};
use super::{Context, Explanation, Subject, failed_scheduling_message};

/// The workload to schedule and how.
#[derive(Debug, Clone)]
pub struct WorkloadRun {
    /// e.g. `Deployment`.
    pub kind: String,
    pub name: String,
    /// Every replica's pod, in the order the controller creates them.
    pub replicas: Vec<Pod>,
    /// `--replica K`: the replica whose per-node explanation is shown.
    pub explain: Option<usize>,
    pub tie: TieBreak,
    /// `--seed`, for the note on ties.
    pub seed: Option<u64>,
    /// What reading the cluster left out, and how the pods came to be (for the explanation).
    pub read: Vec<Note>,
    pub subject: Subject,
}

/// Schedules the replicas of `run` against `state` (which keeps the placed ones) and returns
/// the explanation of one replica with the workload's placements beside it; `None` when
/// there is no replica to schedule.
pub fn simulate(
    run: WorkloadRun,
    state: &mut ClusterState,
    profile: &Profile,
) -> Option<Explanation> {
    let WorkloadRun {
        kind,
        name,
        replicas,
        explain,
        mut tie,
        seed,
        read,
        subject,
    } = run;
    let first = replicas.first()?.clone();
    let namespace = first.id.namespace.to_string();
    let count = replicas.len();
    let mut pods: Vec<ReplicaReport> = Vec::with_capacity(count);
    let mut notes = Vec::new();
    let first_context = context(&first, state, profile, &read, &subject);
    let mut doc: Option<(usize, Explanation)> = None;
    if !first_context.not_scheduled.is_empty() {
        // Gated, or no profile serves its scheduler: the scheduler tries none of them. The
        // first is evaluated as the scheduler would decide if it tried.
        let input = input(&first, state);
        let eval = crate::scheduler::evaluate(input, profile);
        let mut explained = Explanation::new(eval, first_context);
        explained.suggest(&first);
        doc = Some((0, explained));
        pods.extend(replicas.iter().enumerate().map(|(index, p)| ReplicaReport {
            index,
            name: p.id.name.to_string(),
            node: None,
            score: None,
            tied_with: Vec::new(),
            failed_scheduling_message: None,
        }));
        notes.push(Note::ReplicasNotScheduled);
    } else {
        let to_find =
            feasible_nodes_to_find(state.nodes().len(), profile.percentage_of_nodes_to_score);
        let mut sampled = 0;
        let mut first_tie: Option<(usize, String, usize)> = None;
        let mut ties = 0;
        let mut unknown = Vec::new();
        let mut first_context = Some(first_context);
        let mut explained_pending = false;
        place_replicas(state, replicas, profile, &mut tie, |c: Cycle<'_>| {
            let node_name = |n: usize| c.state.nodes()[n].name.clone();
            let node = c.pick.node.map(node_name);
            let feasible = feasible(&c.evaluation);
            if feasible > to_find {
                sampled += 1;
            }
            if !c.pick.tied_with.is_empty() {
                ties += 1;
                if first_tie.is_none() {
                    let picked = node.clone().unwrap_or_default();
                    first_tie = Some((c.index, picked, c.pick.tied_with.len() + 1));
                }
            }
            if c.pick.unknown {
                unknown.push(c.index);
            }
            let failed = match c.pick.node {
                Some(_) => None,
                None => failed_scheduling_message(&c.evaluation)
                    .map(|(m, _)| m)
                    .or_else(|| c.evaluation.errors.first().cloned()),
            };
            if let Some(nominated) = nominated_by_preemption(&c.evaluation) {
                notes.push(Note::ReplicaWouldPreempt {
                    replica: c.index,
                    node: nominated,
                });
            }
            let pending = node.is_none();
            let wanted = match explain {
                Some(k) => c.index == k,
                // The first, until a Pending one comes: then the first Pending.
                None => c.index == 0 || (pending && !explained_pending),
            };
            if wanted {
                let ctx = match first_context.take().filter(|_| c.index == 0) {
                    Some(ctx) => ctx,
                    None => context(c.pod, c.state, profile, &read, &subject),
                };
                let mut explained = Explanation::new(c.evaluation, ctx);
                explained.suggest(c.pod);
                doc = Some((c.index, explained));
                explained_pending = pending;
            }
            pods.push(ReplicaReport {
                index: c.index,
                name: c.pod.id.name.to_string(),
                node,
                score: c.pick.score,
                tied_with: c.pick.tied_with.iter().map(|&n| node_name(n)).collect(),
                failed_scheduling_message: failed,
            });
        });
        if let Some((replica, node, nodes)) = first_tie {
            notes.push(Note::ReplicaTie {
                replica,
                node,
                nodes,
                ties,
                seed,
                later: replica + 1 < count,
            });
        }
        if sampled > 0 {
            notes.push(Note::NodesSampled {
                nodes: state.nodes().len(),
                to_find,
                replicas: sampled,
            });
        }
        if !unknown.is_empty() {
            notes.push(Note::ReplicasOnUnknownNodes(unknown));
        }
        // `helper.DefaultSelector` reads these controllers (Jobs are not among them).
        let owned = matches!(
            kind.as_str(),
            "Deployment" | "ReplicaSet" | "ReplicationController" | "StatefulSet"
        );
        let spreads = profile
            .pre_score
            .iter()
            .chain(&profile.filter)
            .any(|p| *p == PluginId::PodTopologySpread);
        if count > 1
            && owned
            && spreads
            && first.controller.is_none()
            && default_spreading_applies(&first, &profile.pod_topology_spread)
        {
            notes.push(Note::DefaultSpreadingWithoutController { kind: kind.clone() });
        }
        let claims = first.template.volumes;
        if count > 1 && (claims.claims || claims.ephemeral) {
            notes.push(Note::ClaimsNotAssumed);
        }
    }
    let (explained, mut doc) = doc?;
    let placed = pods.iter().filter(|p| p.node.is_some()).count();
    doc.workload = Some(WorkloadReport {
        kind,
        name,
        namespace,
        replicas: count,
        placed,
        pending: count - placed,
        pods,
        explained,
        notes,
    });
    Some(doc)
}

fn input<'a>(pod: &'a Pod, state: &'a ClusterState) -> Input<'a> {
    Input {
        pod,
        state,
        exclude: None,
        removed: &[],
    }
}

fn context(
    pod: &Pod,
    state: &ClusterState,
    profile: &Profile,
    read: &[Note],
    subject: &Subject,
) -> Context {
    Context::new(input(pod, state), profile, read.to_vec(), subject.clone())
}

/// The nodes that passed every Filter.
fn feasible(eval: &Evaluation) -> usize {
    eval.nodes
        .iter()
        .filter(|n| n.verdict == Verdict::Feasible)
        .count()
}

/// The node DefaultPreemption's dry run would nominate the replica to, if any.
fn nominated_by_preemption(eval: &Evaluation) -> Option<String> {
    eval.post_filter
        .iter()
        .filter_map(|p| p.preemption.as_ref())
        .find_map(|o| o.nominated_node.as_ref())
        .map(|n| n.to_string())
}
