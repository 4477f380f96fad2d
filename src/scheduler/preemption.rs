//! The preemption framework's parts that do not depend on the plugin
//! (`pkg/scheduler/framework/preemption/preemption.go`): what a dry run's Filter says of a
//! node, the candidates it finds, how many it looks for, and `pickOneNodeForPreemption`'s
//! five criteria.

use std::sync::Arc;

use crate::state::{ClusterState, PodRef};

use super::plugin::Input;
use super::plugin_id::PluginId;
use super::status::Status;

/// What Filter says of one node with some pods taken out (`RunFilterPluginsWithNominatedPods`
/// in `SelectVictimsOnNode`).
#[derive(Debug, Clone)]
pub enum DryRunFilter {
    Fits,
    /// The first plugin to fail, in profile order, and its status.
    Fails(PluginId, Status),
    /// A Filter plugin that runs is not evaluated by this version: the dry run cannot tell.
    NotEvaluated(PluginId),
}

/// Runs Filter on a node of `Input::state` with `Input::removed` taken out.
pub type DryRun<'f> = dyn Fn(Input<'_>, usize) -> DryRunFilter + 'f;

/// A node where evicting its victims lets the pod fit.
#[derive(Debug, Clone)]
pub struct Candidate {
    pub node: usize,
    /// Existing pods (indexes), most important first.
    pub victims: Vec<usize>,
    /// Victims whose eviction a PodDisruptionBudget does not allow.
    pub pdb_violations: usize,
}

/// `DefaultPreemptionArgs` defaults (`MinCandidateNodesPercentage` 10,
/// `MinCandidateNodesAbsolute` 100): a profile's own values are not read.
const MIN_CANDIDATE_NODES_PERCENTAGE: usize = 10;
const MIN_CANDIDATE_NODES_ABSOLUTE: usize = 100;

/// `GetOffsetAndNumCandidates`' number: how many candidates the dry run looks for among
/// `potential` nodes before it stops (10% of them, at least 100). Upstream starts at a random
/// offset and checks nodes in parallel, so which nodes it sees when it stops early is left to
/// chance; here the dry run starts at offset 0, in node-name order, one node at a time.
pub fn num_candidates(potential: usize) -> usize {
    (potential * MIN_CANDIDATE_NODES_PERCENTAGE / 100)
        .max(MIN_CANDIDATE_NODES_ABSOLUTE)
        .min(potential)
}

/// The criterion that decided the pick (`pickOneNodeForPreemption`), in the order tried.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Criterion {
    OnlyCandidate,
    FewestPdbViolations,
    LowestHighestPriority,
    SmallestPrioritySum,
    FewestVictims,
    LatestStart,
    /// Still tied after all five: upstream takes the first of a Go map's keys, at random.
    Tied,
}

impl Criterion {
    pub fn as_str(self) -> &'static str {
        match self {
            Criterion::OnlyCandidate => "only candidate",
            Criterion::FewestPdbViolations => "fewest PDB violations",
            Criterion::LowestHighestPriority => "lowest highest-victim priority",
            Criterion::SmallestPrioritySum => "smallest sum of victim priorities",
            Criterion::FewestVictims => "fewest victims",
            Criterion::LatestStart => "latest start of the highest-priority victims",
            Criterion::Tied => "tied after all five criteria",
        }
    }
}

/// What the pick compares of a candidate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PickFields {
    pub highest_victim_priority: i32,
    pub victim_priority_sum: i64,
    pub num_victims: usize,
    /// `GetEarliestPodStartTime`: the earliest start among the victims of the highest
    /// priority, nanoseconds since the epoch; `None` when none has started (upstream then
    /// takes the current time).
    pub earliest_start_of_highest_priority_victims: Option<i64>,
}

impl PickFields {
    pub fn of(c: &Candidate, state: &ClusterState) -> PickFields {
        let pods = state.pods();
        let priority = |p: usize| pods[p].template.priority;
        // Victims come most important first: the first has the highest priority.
        let highest = c.victims.first().map_or(0, |&p| priority(p));
        let earliest = c
            .victims
            .iter()
            .filter(|&&p| priority(p) == highest)
            .map(|&p| start_key(pods[p].start_time))
            .min()
            .unwrap_or(i64::MAX);
        PickFields {
            highest_victim_priority: highest,
            victim_priority_sum: c.victims.iter().map(|&p| i64::from(priority(p))).sum(),
            num_victims: c.victims.len(),
            earliest_start_of_highest_priority_victims: (earliest != i64::MAX).then_some(earliest),
        }
    }
}

/// A start time as upstream compares it: not started is "now", after every start.
pub fn start_key(start: Option<i64>) -> i64 {
    start.unwrap_or(i64::MAX)
}

/// The chosen candidate (an index into the candidates), what decided it, and the candidates
/// still tied after every criterion (empty unless `picked_by` is `Tied`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pick {
    pub candidate: usize,
    pub picked_by: Criterion,
    pub tied: Vec<usize>,
}

/// `pickOneNodeForPreemption`: each criterion in turn keeps the candidates with the best
/// score, until one is left. Sums of priorities are compared as upstream adds them (each
/// priority plus 2^31, so that more victims never sum lower).
pub fn pick_one(candidates: &[Candidate], state: &ClusterState) -> Option<Pick> {
    if candidates.is_empty() {
        return None;
    }
    if candidates.len() == 1 {
        return Some(Pick {
            candidate: 0,
            picked_by: Criterion::OnlyCandidate,
            tied: Vec::new(),
        });
    }
    let fields: Vec<PickFields> = candidates
        .iter()
        .map(|c| PickFields::of(c, state))
        .collect();
    // Each score is "higher is better", as upstream's score functions.
    type Score = fn(&Candidate, &PickFields) -> i64;
    let criteria: [(Criterion, Score); 5] = [
        (Criterion::FewestPdbViolations, |c, _| {
            -i64::try_from(c.pdb_violations).unwrap_or(i64::MAX)
        }),
        (Criterion::LowestHighestPriority, |_, f| {
            -i64::from(f.highest_victim_priority)
        }),
        (Criterion::SmallestPrioritySum, |_, f| {
            let offset = i64::from(i32::MAX) + 1;
            -(f.victim_priority_sum + offset * i64::try_from(f.num_victims).unwrap_or(0))
        }),
        (Criterion::FewestVictims, |_, f| {
            -i64::try_from(f.num_victims).unwrap_or(i64::MAX)
        }),
        (Criterion::LatestStart, |_, f| {
            start_key(f.earliest_start_of_highest_priority_victims)
        }),
    ];
    let mut left: Vec<usize> = (0..candidates.len()).collect();
    for (criterion, score) in criteria {
        let best = left
            .iter()
            .map(|&i| score(&candidates[i], &fields[i]))
            .max()
            .unwrap_or(i64::MIN);
        left.retain(|&i| score(&candidates[i], &fields[i]) == best);
        if let [one] = left[..] {
            return Some(Pick {
                candidate: one,
                picked_by: criterion,
                tied: Vec::new(),
            });
        }
    }
    Some(Pick {
        candidate: left[0],
        picked_by: Criterion::Tied,
        tied: left,
    })
}

/// A candidate as the report shows it.
#[derive(Debug, Clone)]
pub struct CandidateReport {
    pub node: Arc<str>,
    pub victims: Vec<Arc<PodRef>>,
    pub pdb_violations: usize,
    pub fields: PickFields,
}

/// DefaultPreemption's outcome for the report.
#[derive(Debug, Clone, Default)]
pub struct Outcome {
    /// Why the pod may not preempt (`PodEligibleToPreemptOthers`), verbatim.
    pub not_eligible: Option<&'static str>,
    /// The nodes whose status was Unschedulable, in name order: the only ones examined.
    pub potential_nodes: Vec<Arc<str>>,
    /// How many candidates the dry run looked for before stopping.
    pub wanted_candidates: usize,
    pub candidates: Vec<CandidateReport>,
    /// The examined nodes that are not candidates, with the status their dry run ended with.
    pub non_candidates: Vec<(Arc<str>, Option<PluginId>, Status)>,
    pub nominated_node: Option<Arc<str>>,
    pub picked_by: Option<Criterion>,
    pub tied_nodes: Vec<Arc<str>>,
    /// The victims on the nominated node, most important first.
    pub victims: Vec<Arc<PodRef>>,
}

#[cfg(test)]
mod tests {
    use super::{Candidate, Criterion, num_candidates, pick_one};
    use crate::state::read_snapshot_str;
    use serde_json::json;

    #[test]
    fn the_dry_run_looks_for_a_tenth_of_the_nodes_at_least_a_hundred() {
        assert_eq!(num_candidates(3), 3);
        assert_eq!(num_candidates(500), 100);
        assert_eq!(num_candidates(5_000), 500);
    }

    /// Pods `p0..` on node `n`, each `(priority, start)`.
    fn state(pods: &[(i32, Option<&str>)]) -> crate::state::ClusterState {
        let mut items = vec![json!({"kind": "Node", "metadata": {"name": "n"}})];
        for (i, (priority, start)) in pods.iter().enumerate() {
            items.push(
                json!({"kind": "Pod", "metadata": {"name": format!("p{i}"), "namespace": "d"},
                "spec": {"nodeName": "n", "priority": priority, "containers": []},
                "status": {"phase": "Running", "startTime": start}}),
            );
        }
        read_snapshot_str(&json!({"kind": "List", "items": items}).to_string(), "t")
            .expect("snapshot")
    }

    fn candidate(node: usize, victims: &[usize], pdb_violations: usize) -> Candidate {
        Candidate {
            node,
            victims: victims.to_vec(),
            pdb_violations,
        }
    }

    /// Each criterion decides when the ones before it tie, in upstream's order.
    #[test]
    fn the_five_criteria_in_order() {
        let s = state(&[
            (10, Some("2026-01-01T00:00:00Z")), // p0
            (10, Some("2026-01-02T00:00:00Z")), // p1
            (5, Some("2026-01-01T00:00:00Z")),  // p2
            (1, Some("2026-01-01T00:00:00Z")),  // p3
            (-3, Some("2026-01-01T00:00:00Z")), // p4
            (-3, None),                         // p5
        ]);
        let pick = |cs: &[Candidate]| pick_one(cs, &s).map(|p| (p.candidate, p.picked_by));
        assert_eq!(
            pick(&[candidate(0, &[0], 0)]),
            Some((0, Criterion::OnlyCandidate))
        );
        assert_eq!(
            pick(&[candidate(0, &[2], 1), candidate(1, &[0], 0)]),
            Some((1, Criterion::FewestPdbViolations))
        );
        assert_eq!(
            pick(&[candidate(0, &[0], 0), candidate(1, &[2, 3], 0)]),
            Some((1, Criterion::LowestHighestPriority))
        );
        // Same highest priority: the smaller sum (priority plus 2^31 each: two victims of
        // -3 sum higher than one).
        assert_eq!(
            pick(&[candidate(0, &[2, 3], 0), candidate(1, &[2, 4], 0)]),
            Some((1, Criterion::SmallestPrioritySum))
        );
        assert_eq!(
            pick(&[candidate(0, &[4, 5], 0), candidate(1, &[4], 0)]),
            Some((1, Criterion::SmallestPrioritySum))
        );
        // Latest start of the highest-priority victims.
        assert_eq!(
            pick(&[candidate(0, &[0], 0), candidate(1, &[1], 0)]),
            Some((1, Criterion::LatestStart))
        );
        // Not started is "now": later than any start.
        assert_eq!(
            pick(&[candidate(0, &[4], 0), candidate(1, &[5], 0)]),
            Some((1, Criterion::LatestStart))
        );
        let tied = pick_one(&[candidate(0, &[0], 0), candidate(1, &[0], 0)], &s).expect("a pick");
        assert_eq!((tied.picked_by, tied.tied), (Criterion::Tied, vec![0, 1]));
    }
}
