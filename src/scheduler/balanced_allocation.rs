//! NodeResourcesBalancedAllocation (`noderesources/balanced_allocation.go`): favours nodes
//! whose utilisation fractions (real requests, pod included) are close to each other. Scores
//! are final (no NormalizeScore); a pod that requests none of the resources is skipped in
//! PreScore so best-effort pods do not all land on one node.

pub mod explain;

use std::convert::Infallible;

use serde::Serialize;

use super::config::BalancedAllocationArgs;
use super::node_resources_fit::{PerResource, ScoredResource, allocatable_and_requested};
use super::plugin::{Input, MAX_NODE_SCORE, Plugin};
use super::status::{PreScoreOutcome, Status};

/// One resource's utilisation after placing the pod.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Fraction {
    pub resource: std::sync::Arc<str>,
    /// Requested on the node including the pod (milli for cpu).
    pub requested: i64,
    pub allocatable: i64,
    /// requested / allocatable, capped at 1; `None` when left out (allocatable 0).
    pub fraction: Option<f64>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScoreDetails {
    pub fractions: Vec<Fraction>,
    pub std_dev: f64,
}

/// `balancedResourceScorer`: (1 − standard deviation of the fractions) × 100, truncated.
pub fn balanced_score(requested: &[i64], allocatable: &[i64]) -> (i64, f64) {
    let fractions: PerResource<f64> = requested
        .iter()
        .zip(allocatable)
        .filter(|(_, a)| **a != 0)
        .map(|(r, a)| (*r as f64 / *a as f64).min(1.0))
        .collect();
    let std = match fractions.len() {
        2 => ((fractions[0] - fractions[1]) / 2.0).abs(),
        n if n > 2 => {
            let mean = fractions.iter().sum::<f64>() / n as f64;
            let sum: f64 = fractions.iter().map(|f| (f - mean) * (f - mean)).sum();
            (sum / n as f64).sqrt()
        }
        _ => 0.0,
    };
    (((1.0 - std) * MAX_NODE_SCORE as f64) as i64, std)
}

#[derive(Debug)]
pub struct BalancedAllocation<'a> {
    input: Input<'a>,
    args: &'a BalancedAllocationArgs,
    /// The strategy's resources with the pod's requests, resolved once.
    scored: Vec<ScoredResource>,
}

impl<'a> BalancedAllocation<'a> {
    pub fn new(input: Input<'a>, args: &'a BalancedAllocationArgs) -> Self {
        let scored = args
            .resources
            .iter()
            .map(|r| {
                let request = input.pod.template.resources.balanced_request(&r.name);
                ScoredResource::new(&r.name, request)
            })
            .collect();
        BalancedAllocation {
            input,
            args,
            scored,
        }
    }
}

impl Plugin for BalancedAllocation<'_> {
    type FilterDetails = Infallible;
    type ScoreDetails = ScoreDetails;
    type Tables = Infallible;

    fn filter(&self, _node: usize) -> (Option<Status>, Option<Self::FilterDetails>) {
        (None, None)
    }

    fn pre_score(&mut self, _candidates: &[usize]) -> PreScoreOutcome {
        if self.scored.iter().all(|r| r.pod_request() == 0) {
            PreScoreOutcome::Skip
        } else {
            PreScoreOutcome::Proceed
        }
    }

    fn score(&self, ni: usize) -> Result<(i64, Option<Self::ScoreDetails>), String> {
        if self.args.resources.is_empty() {
            return Err("resources not found".to_string());
        }
        // Without PreScore upstream scores a best-effort pod 0.
        if self.scored.iter().all(|r| r.pod_request() == 0) {
            return Ok((0, None));
        }
        let usage = self.input.node_usage(ni);
        let mut requested = PerResource::new();
        let mut allocatable = PerResource::new();
        for r in &self.scored {
            let (a, q) = allocatable_and_requested(&self.input, &usage, ni, r, true);
            let (a, q) = if a == 0 { (0, 0) } else { (a, q) };
            allocatable.push(a);
            requested.push(q);
        }
        let (score, std_dev) = balanced_score(&requested, &allocatable);
        let fractions = self
            .args
            .resources
            .iter()
            .enumerate()
            .map(|(i, r)| Fraction {
                resource: r.name.clone(),
                requested: requested[i],
                allocatable: allocatable[i],
                fraction: (allocatable[i] != 0)
                    .then(|| (requested[i] as f64 / allocatable[i] as f64).min(1.0)),
            })
            .collect();
        Ok((score, Some(ScoreDetails { fractions, std_dev })))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn scores_match_upstream_table() {
        // balanced_allocation_test.go, "nothing scheduled, resources requested, differently
        // sized nodes": cpu 3000/4000 = 0.75, memory 5000/10000 = 0.5 -> std 0.125 -> 87;
        // cpu 3000/6000 = 0.5, memory 5000/10000 = 0.5 -> 100.
        assert_eq!(balanced_score(&[3000, 5000], &[4000, 10000]).0, 87);
        assert_eq!(balanced_score(&[3000, 5000], &[6000, 10000]).0, 100);
        // Worked by hand: cpu 6000/10000 = 0.6, memory 5000/20000 = 0.25 -> std 0.175 -> 82.
        assert_eq!(balanced_score(&[6000, 5000], &[10000, 20000]).0, 82);
        // Over capacity is capped at 1: cpu 6000/4000 -> 1, memory 0/10000 -> 0 -> 50.
        assert_eq!(balanced_score(&[6000, 0], &[4000, 10000]).0, 50);
        // Three resources: fractions 0.6, 0.25, 0.5 -> std 0.147 -> 85.
        assert_eq!(balanced_score(&[6000, 5000, 1], &[10000, 20000, 2]).0, 85);
        // One resource (or none) has no spread.
        assert_eq!(balanced_score(&[1, 0], &[2, 0]).0, 100);
    }

    #[test]
    fn args_are_validated() {
        assert_eq!(
            BalancedAllocationArgs::parse(&json!({}), "c").expect("ok"),
            BalancedAllocationArgs::default()
        );
        let err = BalancedAllocationArgs::parse(
            &json!({"resources": [{"name": "cpu", "weight": 2}, {"name": "cpu", "weight": 1}]}),
            "c",
        )
        .expect_err("invalid");
        assert!(
            err.0.contains("must be 1") && err.0.contains("Duplicate"),
            "{err}"
        );
    }
}
