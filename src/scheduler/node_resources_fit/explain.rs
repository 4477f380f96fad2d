//! NodeResourcesFit's explanation: the resources the node is short of in OTHER; requests
//! against what the node has left, and the inputs of the score, in the drill-down's
//! resources; how much is short as the change.

use std::fmt;

use super::{Change, FilterDetails, ScoreDetails};
use crate::scheduler::details::{
    Change as AnyChange, FilterDetails as AnyFilter, ScoreDetails as AnyScore,
};
use crate::scheduler::explain::{Explain, Paint, Peers, Section, Tables, amount};
use crate::scheduler::result::{FilterResult, ScoreResult};
use crate::state::Pod;

#[derive(Debug)]
pub struct Explainer;

impl Explain for Explainer {
    /// "✗ short: cpu, memory" for "Insufficient cpu, Insufficient memory"; the reasons
    /// verbatim stay in the drill-down and the JSON.
    fn failed(&self, f: FilterResult<'_>) -> String {
        let reason = f.reason().unwrap_or_default();
        let short: Vec<&str> = reason
            .split(", ")
            .map(|r| match r {
                "Too many pods" => "pods",
                other => other.strip_prefix("Insufficient ").unwrap_or(other),
            })
            .collect();
        format!("✗ short: {}", short.join(", "))
    }

    fn short_name(&self) -> Option<&'static str> {
        Some("fit")
    }

    fn section(&self) -> Section {
        Section::Resources
    }

    fn filter_lines(&self, f: FilterResult<'_>, _: Tables<'_>, p: &dyn Paint) -> Vec<String> {
        let Some(AnyFilter::NodeResourcesFit(d)) = f.details else {
            return Vec::new();
        };
        let mut out = vec![format!("    {} (cpu in cores, m = milli-cores)", f.plugin)];
        fit_lines(&mut out, d, p);
        out
    }

    fn score_lines(&self, s: ScoreResult<'_>, _: Tables<'_>, _: &dyn Paint) -> Vec<String> {
        let (Some(AnyScore::NodeResourcesFit(d)), Some(raw)) = (s.details, s.raw) else {
            return Vec::new();
        };
        let mut out = vec![format!("    {} score {raw}:", s.plugin)];
        fit_score_lines(&mut out, d);
        out
    }

    fn suggestions(
        &self,
        f: FilterResult<'_>,
        _: &Pod,
        _: Tables<'_>,
        peers: &Peers<'_>,
    ) -> Vec<AnyChange> {
        let Some(AnyFilter::NodeResourcesFit(d)) = f.details else {
            return Vec::new();
        };
        let mut out: Vec<AnyChange> = Vec::new();
        if !d.pods.fits {
            out.push(
                Change::PodCount {
                    allowed: d.pods.allowed,
                }
                .into(),
            );
        }
        for r in d
            .resources
            .iter()
            .filter(|r| !r.fits && r.ignored.is_none())
        {
            if r.requested > r.allocatable {
                let big_enough = peers.few_once(f.plugin.as_str(), || {
                    peers
                        .filters(f.plugin)
                        .filter(|(_, f)| big_enough(*f))
                        .map(|(name, _)| name.to_string())
                        .collect()
                });
                out.push(
                    Change::TooSmall {
                        resource: r.resource.clone(),
                        allocatable: r.allocatable,
                        requested: r.requested,
                        big_enough,
                    }
                    .into(),
                );
                continue;
            }
            out.push(
                Change::Resource {
                    resource: r.resource.clone(),
                    short: r
                        .requested
                        .saturating_add(r.used)
                        .saturating_sub(r.allocatable),
                }
                .into(),
            );
        }
        out
    }
}

/// Whether the node's allocatable holds every request of the pod (whatever runs there now).
fn big_enough(f: FilterResult<'_>) -> bool {
    match f.details {
        Some(AnyFilter::NodeResourcesFit(d)) => d
            .resources
            .iter()
            .all(|r| r.ignored.is_some() || r.requested <= r.allocatable),
        _ => false,
    }
}

fn fit_lines(out: &mut Vec<String>, d: &FilterDetails, p: &dyn Paint) {
    let pods = if d.pods.fits {
        "fits".to_string()
    } else {
        p.bad("no room (Too many pods)")
    };
    out.push(format!(
        "      pods: {} existing + 1 of {} allowed: {pods}",
        d.pods.existing, d.pods.allowed
    ));
    if d.resources.is_empty() {
        out.push("      the pod requests no resources".to_string());
        return;
    }
    out.push(format!(
        "      {:<24} {:>10} {:>10} {:>12} {:>10}",
        "resource", "requested", "used", "allocatable", "free"
    ));
    for r in &d.resources {
        let free = r.allocatable.saturating_sub(r.used);
        let verdict = if let Some(by) = &r.ignored {
            format!("ignored ({by})")
        } else if r.fits {
            "fits".to_string()
        } else if r.unresolvable {
            p.bad("insufficient: more than the node's whole allocatable")
        } else {
            p.bad("insufficient")
        };
        out.push(format!(
            "      {:<24} {:>10} {:>10} {:>12} {:>10}  {verdict}",
            r.resource,
            amount(&r.resource, r.requested),
            amount(&r.resource, r.used),
            amount(&r.resource, r.allocatable),
            amount(&r.resource, free),
        ));
    }
}

fn fit_score_lines(out: &mut Vec<String>, d: &ScoreDetails) {
    out.push(format!(
        "      {:?}; cpu/memory count 100m / 200Mi for containers without a request",
        d.strategy
    ));
    for r in &d.resources {
        out.push(match r.score {
            Some(s) => format!(
                "      {}: {} of {} with the pod -> {s} (weight {})",
                r.resource,
                amount(&r.resource, r.requested),
                amount(&r.resource, r.allocatable),
                r.weight
            ),
            None => format!(
                "      {}: left out (none allocatable, or not requested)",
                r.resource
            ),
        });
    }
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Change::Resource { resource, short } => {
                write!(f, "{} {resource} short", amount(resource, *short))
            }
            Change::TooSmall {
                resource,
                allocatable,
                requested,
                big_enough,
            } => {
                write!(
                    f,
                    "the node is too small for the pod: node has {} {resource} allocatable, the pod requests {}",
                    amount(resource, *allocatable),
                    amount(resource, *requested)
                )?;
                if big_enough.count == 0 {
                    write!(f, "; no node is big enough")
                } else {
                    write!(f, "; big enough: {big_enough}")
                }
            }
            Change::PodCount { allowed } => write!(f, "the node runs its {allowed} pods already"),
        }
    }
}
