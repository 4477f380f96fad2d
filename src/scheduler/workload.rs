//! Where one cycle puts a workload's replica: the node the scheduler takes from an
//! evaluation (`schedulePod`'s pick and its tie-break) and how many feasible nodes it looks
//! for. Scheduling the replicas one after another, each placed one assumed before the next,
//! is the pipeline's (`pipeline::replicas`).

use super::framework::Evaluation;
use super::status::Verdict;

/// How a tie between nodes with the top total score is broken.
///
/// kube-scheduler up to 1.34 picks uniformly at random among them (`selectHost`, reservoir
/// sampling); 1.35 takes the first of a heap built from the feasible list, which is filled
/// in parallel, so in effect an arbitrary one (pkg/scheduler/schedule_one.go). Neither can
/// be reproduced: the simulation picks the first by name, or a seeded random one, and says
/// which nodes were tied.
#[derive(Debug, Clone)]
pub enum TieBreak {
    FirstByName,
    Seeded(SplitMix64),
}

/// SplitMix64 (Steele, Lea and Flood, 2014): a few lines give a seeded, reproducible pick on
/// every platform; a crate for one `next` is more than it is worth.
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// An index below `n` (`n` > 0). The modulo's bias is below 2^-50 for any node count.
    fn below(&mut self, n: usize) -> usize {
        let n = n as u64;
        usize::try_from(self.next_u64() % n).unwrap_or(0)
    }
}

/// Where one cycle puts its replica.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pick {
    /// The node's index in the state; `None` when the replica stays Pending.
    pub node: Option<usize>,
    /// The node's total score (absent when the cycle did not score: one candidate, or the
    /// pod's nominated node taken first; then the total is computed for reference only).
    pub score: Option<i64>,
    /// The other nodes with the pick's top total, by name.
    pub tied_with: Vec<usize>,
    /// The picked node's verdict is Unknown: a plugin was not evaluated there.
    pub unknown: bool,
}

/// The node the scheduler takes from one evaluation, as `schedulePod` does: none when the
/// cycle ends with an error or no node is left; the pod's nominated node when it passes every
/// Filter; the only candidate unscored; else one with the highest total, ties broken by
/// `tie`. Candidates are the nodes no evaluated plugin rejected (as the evaluation scores
/// them); a pick among Unknown ones is marked.
pub fn pick(eval: &Evaluation, tie: &mut TieBreak) -> Pick {
    let none = Pick {
        node: None,
        score: None,
        tied_with: Vec::new(),
        unknown: false,
    };
    if !eval.errors.is_empty() {
        return none;
    }
    let unknown = |n: usize| eval.nodes[n].verdict == Verdict::Unknown;
    if let Some(name) = &eval.nominated_node
        && let Some(n) = eval.nodes.iter().position(|r| r.name == *name)
    {
        return Pick {
            node: Some(n),
            score: None,
            tied_with: Vec::new(),
            unknown: unknown(n),
        };
    }
    let candidates: Vec<usize> = (0..eval.nodes.len())
        .filter(|&n| eval.nodes[n].verdict != Verdict::Infeasible)
        .collect();
    match candidates.as_slice() {
        [] => none,
        [only] => Pick {
            node: Some(*only),
            score: None,
            tied_with: Vec::new(),
            unknown: unknown(*only),
        },
        _ => {
            let best = candidates
                .iter()
                .map(|&n| eval.nodes[n].total)
                .max()
                .flatten();
            let mut top: Vec<usize> = candidates
                .into_iter()
                .filter(|&n| eval.nodes[n].total == best)
                .collect();
            let key = |n: usize| (eval.nodes[n].name_rank, &eval.nodes[n].name);
            top.sort_by(|&a, &b| key(a).cmp(&key(b)));
            let at = match tie {
                TieBreak::FirstByName => 0,
                TieBreak::Seeded(rng) if top.len() > 1 => rng.below(top.len()),
                TieBreak::Seeded(_) => 0,
            };
            let node = top.remove(at);
            Pick {
                node: Some(node),
                score: best,
                tied_with: top,
                unknown: unknown(node),
            }
        }
    }
}

/// `numFeasibleNodesToFind` (pkg/scheduler/schedule_one.go): how many feasible nodes the
/// scheduler looks for before it stops filtering, from a start that rotates between cycles
/// (`nextStartNodeIndex`). Under 100 nodes, all; else `percentage` of them (the profile's,
/// else the configuration's; 0 is adaptive: 50% less 1% per 125 nodes, at least 5%), at
/// least 100.
pub fn feasible_nodes_to_find(nodes: usize, percentage: Option<i32>) -> usize {
    const MIN_FEASIBLE_NODES_TO_FIND: i64 = 100;
    const MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND: i64 = 5;
    let all = i64::try_from(nodes).unwrap_or(i64::MAX);
    if all < MIN_FEASIBLE_NODES_TO_FIND {
        return nodes;
    }
    let mut percentage = i64::from(percentage.unwrap_or(0));
    if percentage == 0 {
        percentage = (50 - all / 125).max(MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND);
    }
    let found = (all.saturating_mul(percentage) / 100).max(MIN_FEASIBLE_NODES_TO_FIND);
    usize::try_from(found).unwrap_or(nodes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scheduler::config::FeatureGates;
    use crate::scheduler::profile::Profile;
    use crate::scheduler::testing::{pod_of, state_of};
    use crate::scheduler::{Input, evaluate};
    use crate::state::Pod;
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

    /// Ties: the first by name, the others listed; a seed picks among them reproducibly.
    #[test]
    fn ties_are_listed_and_broken_by_name_or_seed() {
        let spec = json!({"containers": [{"name": "c", "image": "x"}]});
        let nodes = json!([
            node("c", "z1", "4"),
            node("a", "z1", "4"),
            node("b", "z1", "4")
        ]);
        let state = state_of(nodes);
        let profile = Profile::default_profile(FeatureGates::default());
        let pod = replica(0, spec);
        let eval = evaluate(
            Input {
                pod: &pod,
                state: &state,
                exclude: None,
                removed: &[],
            },
            &profile,
        );
        let name = |n: usize| state.nodes()[n].name.clone();
        let first = pick(&eval, &mut TieBreak::FirstByName);
        assert_eq!(first.node.map(name).as_deref(), Some("a"));
        let tied: Vec<String> = first.tied_with.iter().map(|&n| name(n)).collect();
        assert_eq!(tied, ["b", "c"]);
        let seeded = |seed| {
            let mut t = TieBreak::Seeded(SplitMix64::new(seed));
            (0..8)
                .map(|_| pick(&eval, &mut t).node.map(name).unwrap_or_default())
                .collect::<Vec<_>>()
        };
        assert_eq!(seeded(7), seeded(7), "reproducible");
        let all: std::collections::BTreeSet<String> = (0..4).flat_map(seeded).collect();
        assert_eq!(all.len(), 3, "every tied node can be picked: {all:?}");
    }

    /// SplitMix64's published first outputs for seed 1234567.
    #[test]
    fn split_mix_matches_the_reference() {
        let mut r = SplitMix64::new(1_234_567);
        let got: Vec<u64> = (0..3).map(|_| r.next_u64()).collect();
        assert_eq!(
            got,
            [
                6457827717110365317,
                3203168211198807973,
                9817491932198370423
            ]
        );
    }

    /// `numFeasibleNodesToFind` at upstream's boundaries.
    #[test]
    fn feasible_nodes_to_find_as_upstream() {
        assert_eq!(feasible_nodes_to_find(99, None), 99);
        assert_eq!(feasible_nodes_to_find(100, None), 100);
        assert_eq!(feasible_nodes_to_find(500, None), 230);
        assert_eq!(feasible_nodes_to_find(1_000, None), 420);
        assert_eq!(feasible_nodes_to_find(5_000, None), 500);
        assert_eq!(feasible_nodes_to_find(10_000, None), 500);
        assert_eq!(feasible_nodes_to_find(5_000, Some(100)), 5_000);
        assert_eq!(feasible_nodes_to_find(1_000, Some(1)), 100);
    }
}
