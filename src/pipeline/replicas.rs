//! `whatif` of a workload: its replicas scheduled one after another, each placed one assumed
//! onto its node before the next cycle, as kube-scheduler's queue takes them; and the
//! explanation of one replica (the one asked for, else the first Pending, else the first)
//! with every replica's placement beside it.
//!
//! Each cycle runs against the cluster with the replicas placed before it assumed: `assume`
//! (pkg/scheduler/schedule_one.go) puts the pod in the scheduler's cache before it is bound,
//! so the next cycle counts its resources, host ports, labels (for others' terms), own terms
//! (for symmetry), spread and volumes. Here that is the pod added to the cluster state, bound
//! to its node, and the state's indexes follow it. A replica no node takes is not assumed
//! (the scheduler would retry it later); the next replicas still run their cycle.

use std::sync::Arc;

use super::controllers::Order;
use super::resource_claims;
use crate::report::workload::{NotCreated, ReplicaPreemption, ReplicaReport, WorkloadReport};
use crate::report::{Context, Explanation, Note, Subject, failed_scheduling_message};
use crate::scheduler::details::FilterDetails;
use crate::scheduler::dra::allocator::ClaimAllocation;
use crate::scheduler::pod_topology_spread::default_spreading_applies;
use crate::scheduler::profile::Profile;
use crate::scheduler::workload::{Pick, TieBreak, feasible_nodes_to_find, pick};
use crate::scheduler::{Evaluation, Input, PluginId, Verdict, evaluate};
use crate::state::{ClusterState, Pod, PodRef};

/// The workload to schedule and how.
#[derive(Debug, Clone)]
pub struct WorkloadRun {
    /// e.g. `Deployment`.
    pub kind: String,
    pub name: String,
    /// Every replica's pod, in the order the controller creates them.
    pub replicas: Vec<Pod>,
    /// Whether the controller creates a replica after a Pending one.
    pub order: Order,
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
    mut run: WorkloadRun,
    state: &mut ClusterState,
    profile: &Profile,
) -> Option<Explanation> {
    let first = run.replicas.first()?.clone();
    let count = run.replicas.len();
    let first_context = context(&first, state, profile, &run.read, &run.subject);
    let mut tally = Tally {
        pods: Vec::with_capacity(count),
        notes: Vec::new(),
        doc: None,
    };
    if !first_context.not_scheduled.is_empty() {
        // Gated, or no profile serves its scheduler: the scheduler tries none of them. The
        // first is evaluated as the scheduler would decide if it tried.
        let eval = evaluate(input(&first, state), profile);
        let mut explained = Explanation::new(eval, first_context);
        explained.suggest(&first);
        tally.doc = Some((0, explained));
        let unplaced = run
            .replicas
            .iter()
            .enumerate()
            .map(|(index, p)| ReplicaReport {
                index,
                name: p.id.name.to_string(),
                ..Default::default()
            });
        tally.pods.extend(unplaced);
        tally.notes.push(Note::ReplicasNotScheduled);
    } else {
        let replicas = std::mem::take(&mut run.replicas);
        tally.place(replicas, &run, state, profile, first_context);
        let kind = &run.kind;
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
            let kind = kind.clone();
            tally
                .notes
                .push(Note::DefaultSpreadingWithoutController { kind });
        }
        let claims = first.template.volumes;
        if count > 1 && (claims.claims || claims.ephemeral) {
            tally.notes.push(Note::ClaimsNotAssumed);
        }
    }
    let Tally { pods, notes, doc } = tally;
    let (explained, mut doc) = doc?;
    let placed = pods.iter().filter(|p| p.node.is_some()).count();
    let not_created = pods.iter().filter(|p| p.not_created.is_some()).count();
    doc.workload = Some(WorkloadReport {
        kind: run.kind,
        name: run.name,
        namespace: first.id.namespace.to_string(),
        replicas: count,
        placed,
        pending: count - placed - not_created,
        not_created,
        pods,
        explained,
        notes,
        update: None,
    });
    Some(doc)
}

/// What the replicas' cycles say, gathered as they run.
struct Tally {
    pods: Vec<ReplicaReport>,
    notes: Vec<Note>,
    /// The replica explained node by node, and its explanation.
    doc: Option<(usize, Explanation)>,
}

impl Tally {
    /// Places `replicas` in a row as `run` says, each cycle's pick recorded and the replica
    /// asked for (else the first Pending, else the first) explained; then what the reader
    /// needs to read the placements right: ties, sampling, picks among unknown verdicts.
    /// `first_context` is the first replica's.
    fn place(
        &mut self,
        replicas: Vec<Pod>,
        run: &WorkloadRun,
        state: &mut ClusterState,
        profile: &Profile,
        first_context: Context,
    ) {
        let count = replicas.len();
        let to_find =
            feasible_nodes_to_find(state.nodes().len(), profile.percentage_of_nodes_to_score);
        let mut sampled = 0;
        let mut first_tie: Option<(usize, String, usize)> = None;
        let mut ties = 0;
        let mut unknown = Vec::new();
        let mut first_context = Some(first_context);
        let mut explained_pending = false;
        let mut tie = run.tie.clone();
        let mut waits_for = None;
        let not_created = place_replicas(state, replicas, profile, &mut tie, run.order, |c| {
            let node_name = |n: usize| c.state.nodes()[n].name.clone();
            let node = c.pick.node.map(node_name);
            if feasible(&c.evaluation) > to_find {
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
            let preemption = preemption(&c.evaluation);
            if let Some(p) = &preemption {
                self.notes.push(Note::ReplicaWouldPreempt {
                    replica: c.index,
                    node: p.nominated_node.clone(),
                });
            }
            let pending = node.is_none();
            if pending && waits_for.is_none() {
                waits_for = Some(c.pod.id.name.to_string());
            }
            let wanted = match run.explain {
                Some(k) => c.index == k,
                // The first, until a Pending one comes: then the first Pending.
                None => c.index == 0 || (pending && !explained_pending),
            };
            if wanted {
                let ctx = match first_context.take().filter(|_| c.index == 0) {
                    Some(ctx) => ctx,
                    None => context(c.pod, c.state, profile, &run.read, &run.subject),
                };
                let mut explained = Explanation::new(c.evaluation, ctx);
                explained.suggest(c.pod);
                self.doc = Some((c.index, explained));
                explained_pending = pending;
            }
            self.pods.push(ReplicaReport {
                index: c.index,
                name: c.pod.id.name.to_string(),
                node,
                score: c.pick.score,
                tied_with: c
                    .pick
                    .tied_with
                    .iter()
                    .take(3)
                    .map(|&n| node_name(n))
                    .collect(),
                tied_count: c.pick.tied_with.len(),
                failed_scheduling_message: failed,
                preemption,
                ..Default::default()
            });
        });
        let next = self.pods.len();
        for (k, pod) in not_created.into_iter().enumerate() {
            self.pods.push(ReplicaReport {
                index: next + k,
                name: pod.id.name.to_string(),
                not_created: waits_for.clone().map(|waits_for| NotCreated { waits_for }),
                ..Default::default()
            });
        }
        if let Some((replica, node, nodes)) = first_tie {
            self.notes.push(Note::ReplicaTie {
                replica,
                node,
                nodes,
                ties,
                seed: run.seed,
                later: replica + 1 < count,
            });
        }
        if sampled > 0 {
            self.notes.push(Note::NodesSampled {
                nodes: state.nodes().len(),
                to_find,
                replicas: sampled,
            });
        }
        if !unknown.is_empty() {
            self.notes.push(Note::ReplicasOnUnknownNodes(unknown));
        }
    }
}

/// One replica's cycle, as the caller sees it: the state is the one the cycle ran against
/// (the earlier replicas assumed, this one not yet).
#[derive(Debug)]
pub struct Cycle<'a> {
    pub index: usize,
    pub pod: &'a Pod,
    pub state: &'a ClusterState,
    pub evaluation: Evaluation,
    pub pick: Pick,
}

/// Schedules `replicas` in order against `state`, assuming each placed one onto its node
/// before the next cycle; `seen` gets every cycle before its replica is assumed. The state
/// keeps the placed replicas. With `Order::OrderedReady` the replicas after a Pending one are
/// not created: they are returned, unscheduled.
pub fn place_replicas(
    state: &mut ClusterState,
    replicas: impl IntoIterator<Item = Pod>,
    profile: &Profile,
    tie: &mut TieBreak,
    order: Order,
    mut seen: impl FnMut(Cycle<'_>),
) -> Vec<Pod> {
    let mut replicas = replicas.into_iter().enumerate();
    while let Some((index, mut pod)) = replicas.next() {
        let input = Input {
            pod: &pod,
            state,
            exclude: None,
            removed: &[],
        };
        let evaluation = evaluate(input, profile);
        let pick = pick(&evaluation, tie);
        let node = pick.node;
        let preempted = outcome(&evaluation).map(|o| (o.nominated_node.clone(), o.victims.clone()));
        let allocation = node
            .map(|n| claim_allocation(&evaluation, n))
            .unwrap_or_default();
        seen(Cycle {
            index,
            pod: &pod,
            state,
            evaluation,
            pick,
        });
        match node {
            Some(n) => {
                pod.node_name = Arc::from(state.nodes()[n].name.as_str());
                resource_claims::record_allocation(state, &pod, &allocation);
                state.add_pod(pod);
            }
            None => {
                // Nominated by its preemption (`prepareCandidate`), the replica waits in the
                // queue with its node in `status.nominatedNodeName`, and its victims are
                // deleted: later cycles count it on that node
                // (`RunFilterPluginsWithNominatedPods`, in preemption's dry run too) and no
                // longer see the victims.
                if let Some((Some(n), victims)) = preempted {
                    evict(state, &victims);
                    Arc::make_mut(&mut pod.template).nominated_node_name = Some(n);
                    state.add_pod(pod);
                }
                if order == Order::OrderedReady {
                    return replicas.map(|(_, p)| p).collect();
                }
            }
        }
    }
    Vec::new()
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
    super::context(input(pod, state), profile, read.to_vec(), subject.clone())
}

/// The nodes that passed every Filter.
fn feasible(eval: &Evaluation) -> usize {
    eval.nodes
        .iter()
        .filter(|n| n.verdict == Verdict::Feasible)
        .count()
}

/// The devices DynamicResources' Filter found for the pod's claims on `node`.
fn claim_allocation(eval: &Evaluation, node: usize) -> Vec<ClaimAllocation> {
    let filters = eval.nodes.get(node).map(|n| n.filters.iter());
    (filters.into_iter().flatten())
        .find_map(|f| match f.details {
            Some(FilterDetails::DynamicResources(d)) => Some(d.allocation.clone()),
            _ => None,
        })
        .unwrap_or_default()
}

/// DefaultPreemption's outcome when its dry run nominates the replica to a node.
fn outcome(eval: &Evaluation) -> Option<&crate::scheduler::preemption::Outcome> {
    (eval.post_filter.iter())
        .filter_map(|p| p.preemption.as_ref())
        .find(|o| o.nominated_node.is_some())
        .map(|o| &**o)
}

/// The victims of a preemption deleted from `state`: the state is built again from its nodes
/// and the other pods, so that everything derived from the pods (usage, the indexes) follows.
pub(super) fn evict(state: &mut ClusterState, victims: &[Arc<PodRef>]) {
    if victims.is_empty() {
        return;
    }
    let kept: Vec<Pod> = (state.all_pods())
        .filter(|p| !victims.iter().any(|v| **v == *p.id))
        .cloned()
        .collect();
    let nodes = state.nodes().to_vec();
    *state = std::mem::take(state).with_nodes_and_pods(nodes, kept);
}

/// The node DefaultPreemption's dry run would nominate the replica to, if any, with the
/// victims there.
fn preemption(eval: &Evaluation) -> Option<ReplicaPreemption> {
    let outcome = outcome(eval)?;
    Some(ReplicaPreemption {
        nominated_node: outcome.nominated_node.as_deref()?.to_string(),
        victims: outcome.victims.iter().map(|v| v.to_string()).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scheduler::config::FeatureGates;
    use crate::scheduler::testing::{pod_of, state_of};
    use serde_json::{Value, json};

    fn node(name: &str, zone: &str, cpu: &str) -> Value {
        json!({"apiVersion": "v1", "kind": "Node",
               "metadata": {"name": name, "labels": {"zone": zone, "kubernetes.io/hostname": name}},
               "status": {"allocatable": {"cpu": cpu, "memory": "8Gi", "pods": "110"},
                          "images": [{"names": ["registry/app:1"], "sizeBytes": 300000000}]}})
    }

    fn replica(i: usize, spec: Value) -> Pod {
        pod_of(
            json!({"metadata": {"name": format!("web-{i}"), "namespace": "default",
                                   "labels": {"app": "web"}},
                      "spec": spec}),
        )
    }

    /// Runs `n` replicas of `spec` on `nodes`; returns each pick's node name (or None) and
    /// the state after.
    fn run(nodes: Value, spec: Value, n: usize) -> (Vec<Option<String>>, ClusterState) {
        let mut state = state_of(nodes);
        let profile = Profile::default_profile(FeatureGates::default());
        let mut picks = Vec::new();
        let replicas = (0..n).map(|i| replica(i, spec.clone()));
        place_replicas(
            &mut state,
            replicas,
            &profile,
            &mut TieBreak::FirstByName,
            Order::AtOnce,
            |c| picks.push(c.pick.node.map(|n| c.state.nodes()[n].name.clone())),
        );
        (picks, state)
    }

    fn names(picks: &[Option<String>]) -> Vec<&str> {
        picks
            .iter()
            .map(|p| p.as_deref().unwrap_or("Pending"))
            .collect()
    }

    /// Resources: a placed replica's requests fill its node for the next.
    #[test]
    fn assumed_requests_fill_the_node() {
        let spec = json!({"containers": [{"name": "c", "image": "x",
            "resources": {"requests": {"cpu": "1500m"}}}]});
        let (picks, state) = run(json!([node("a", "z1", "2"), node("b", "z1", "2")]), spec, 3);
        assert_eq!(names(&picks), ["a", "b", "Pending"]);
        assert_eq!(state.pods().len(), 2, "the Pending replica is not assumed");
        assert_eq!(&*state.pods()[1].node_name, "b");
    }

    /// Host ports: the second replica cannot bind the port the first holds on its node.
    #[test]
    fn assumed_host_ports_are_taken() {
        let spec = json!({"containers": [{"name": "c", "image": "x",
            "ports": [{"containerPort": 80, "hostPort": 8080}]}]});
        let (picks, _) = run(json!([node("a", "z1", "4")]), spec, 2);
        assert_eq!(names(&picks), ["a", "Pending"]);
    }

    /// Labels and terms: required hostname anti-affinity places one replica per node (the
    /// placed replicas' labels match the next one's term, and their own terms reject it).
    #[test]
    fn assumed_labels_and_terms_apply() {
        let spec = json!({"containers": [{"name": "c", "image": "x"}],
            "affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                {"labelSelector": {"matchLabels": {"app": "web"}},
                 "topologyKey": "kubernetes.io/hostname"}]}}});
        let nodes = json!([
            node("a", "z1", "4"),
            node("b", "z1", "4"),
            node("c", "z2", "4")
        ]);
        let (picks, _) = run(nodes, spec, 4);
        assert_eq!(names(&picks), ["a", "b", "c", "Pending"]);
    }

    /// Symmetry: a replica assumed onto a node brings its own terms, which then keep other
    /// pods off its domain (InterPodAffinity's check of existing pods' anti-affinity).
    #[test]
    fn assumed_terms_reject_for_symmetry() {
        let spec = json!({"containers": [{"name": "c", "image": "x"}],
            "affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "zone"}]}}});
        let (picks, state) = run(json!([node("a", "z1", "4"), node("b", "z1", "4")]), spec, 2);
        assert_eq!(names(&picks), ["a", "Pending"]);
        // A pod with no terms of its own, labelled `app: web`: the assumed replica's term
        // rejects both nodes of its zone.
        let profile = Profile::default_profile(FeatureGates::default());
        let other = pod_of(json!({"metadata": {"name": "x", "namespace": "default",
                                               "labels": {"app": "web"}},
                                  "spec": {"containers": [{"name": "c", "image": "x"}]}}));
        let eval = evaluate(
            Input {
                pod: &other,
                state: &state,
                exclude: None,
                removed: &[],
            },
            &profile,
        );
        assert!(
            eval.nodes.iter().all(|n| n.verdict == Verdict::Infeasible),
            "the assumed replica's term keeps it out"
        );
    }

    /// Spread: zone spread with maxSkew 1 alternates zones as replicas are assumed.
    #[test]
    fn assumed_replicas_count_for_spread() {
        let spec = json!({"containers": [{"name": "c", "image": "x"}],
            "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "zone",
                "whenUnsatisfiable": "DoNotSchedule",
                "labelSelector": {"matchLabels": {"app": "web"}}}]});
        let nodes = json!([
            node("a1", "z1", "4"),
            node("a2", "z1", "4"),
            node("b1", "z2", "4")
        ]);
        let (picks, _) = run(nodes, spec, 4);
        let zone = |n: &str| if n.starts_with('a') { "z1" } else { "z2" };
        let zones: Vec<&str> = names(&picks).into_iter().map(zone).collect();
        // Never two more in one zone than the other.
        let mut counts = (0i32, 0i32);
        for z in zones {
            if z == "z1" {
                counts.0 += 1
            } else {
                counts.1 += 1
            }
            assert!((counts.0 - counts.1).abs() <= 1, "{picks:?}");
        }
    }

    /// Volumes: a replica assumed onto a node mounts its disk there, so the next replica,
    /// with the same read-write GCE disk, is kept off that node (VolumeRestrictions).
    #[test]
    fn assumed_volumes_conflict() {
        let spec = json!({"containers": [{"name": "c", "image": "x"}],
            "volumes": [{"name": "d", "gcePersistentDisk": {"pdName": "data"}}]});
        let mut state = state_of(json!([node("a", "z1", "4"), node("b", "z1", "4")]));
        let profile = Profile::default_profile(FeatureGates::default());
        let mut seen = Vec::new();
        place_replicas(
            &mut state,
            (0..2).map(|i| replica(i, spec.clone())),
            &profile,
            &mut TieBreak::FirstByName,
            Order::AtOnce,
            |c| {
                let a = &c.evaluation.nodes[0];
                let why = a.reported.as_ref().map(|r| r.reason.to_string());
                seen.push((c.pick.node, why));
            },
        );
        assert_eq!(seen[0], (Some(0), None));
        assert_eq!(
            seen[1],
            (
                Some(1),
                Some(crate::scheduler::volume_restrictions::REASON_DISK.to_string())
            )
        );
    }

    /// Image locality is the nodes' images: assuming a replica adds none, so every node
    /// keeps the score it had (upstream's ImageStateSummary comes from node status only).
    #[test]
    fn image_locality_is_the_nodes_own() {
        let spec = json!({"containers": [{"name": "c", "image": "registry/app:1"}]});
        let nodes = json!([node("a", "z1", "4"), node("b", "z1", "4")]);
        let mut state = state_of(nodes);
        let profile = Profile::default_profile(FeatureGates::default());
        let mut image_scores = Vec::new();
        place_replicas(
            &mut state,
            (0..2).map(|i| replica(i, spec.clone())),
            &profile,
            &mut TieBreak::FirstByName,
            Order::AtOnce,
            |c| {
                let b = c.evaluation.nodes.iter().find(|n| &*n.name == "b");
                let cell = b.and_then(|n| {
                    n.scores
                        .iter()
                        .find(|s| *s.plugin == crate::scheduler::PluginId::ImageLocality)
                });
                image_scores.push(cell.and_then(|s| s.raw));
            },
        );
        assert_eq!(image_scores.len(), 2);
        assert!(image_scores[0].is_some_and(|s| s > 0), "{image_scores:?}");
        assert_eq!(image_scores[0], image_scores[1]);
    }
}
