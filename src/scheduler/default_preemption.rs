//! The PostFilter step: what runs after no node passed Filter, and writes the tail of the
//! FailedScheduling message ("... no new claims to deallocate, preemption: 0/3 nodes are
//! available: 3 Preemption is not helpful for scheduling."). Users match that tail too, so we
//! reproduce it where the outcome follows from the state, and say so where it does not.
//!
//! DefaultPreemption (pkg/scheduler/framework/preemption + plugins/defaultpreemption):
//! - a pod with `preemptionPolicy: Never` is "not eligible";
//! - nodes rejected as UnschedulableAndUnresolvable are never preemption candidates
//!   ("Preemption is not helpful for scheduling");
//! - on the other nodes, only pods of lower priority can be victims; with none there,
//!   SelectVictimsOnNode answers "No preemption victims found for incoming pod".
//!
//! When some node does run lower-priority pods, the outcome needs a dry run of every Filter
//! with those pods removed (and PodDisruptionBudgets for the choice of victims); that is not
//! modelled, and the message is reported as incomplete rather than guessed.
//!
//! DynamicResources' PostFilter only deallocates claims; for a pod without ResourceClaims it
//! answers "no new claims to deallocate".

use super::plugin::Input;
use super::result::NodeResult;
use super::status::{Code, fit_error_message};

/// One PostFilter plugin's contribution.
#[derive(Debug, Clone)]
pub struct PostFilterReport {
    pub plugin: String,
    /// The plugin's message in the FailedScheduling event; `None` when it adds nothing or was
    /// not evaluated.
    pub message: Option<String>,
    pub evaluated: bool,
    pub note: Option<String>,
}

const NOT_HELPFUL: &str = "Preemption is not helpful for scheduling";
const NO_VICTIMS: &str = "No preemption victims found for incoming pod";

/// Runs the profile's PostFilter plugins for a pod no node can take. `nodes` are every node's
/// results, with `reported` set on each (all are infeasible when this runs).
pub(crate) fn post_filter(
    input: Input<'_>,
    plugins: &[String],
    nodes: &[NodeResult],
) -> Vec<PostFilterReport> {
    plugins
        .iter()
        .map(|name| match name.as_str() {
            "DynamicResources" => dynamic_resources(input, name),
            "DefaultPreemption" => default_preemption(input, nodes, name),
            _ => PostFilterReport {
                plugin: name.clone(),
                message: None,
                evaluated: false,
                note: Some(format!(
                    "{name} is not evaluated by this version of kubectl-affinity"
                )),
            },
        })
        .collect()
}

fn dynamic_resources(input: Input<'_>, name: &str) -> PostFilterReport {
    if input.pod.template.has_resource_claims {
        return PostFilterReport {
            plugin: name.to_string(),
            message: None,
            evaluated: false,
            note: Some(
                "the pod has ResourceClaims: deallocating claims is not evaluated".to_string(),
            ),
        };
    }
    PostFilterReport {
        plugin: name.to_string(),
        message: Some("no new claims to deallocate".to_string()),
        evaluated: true,
        note: None,
    }
}

fn default_preemption(input: Input<'_>, nodes: &[NodeResult], name: &str) -> PostFilterReport {
    let report = |message: Option<String>, note: Option<String>| PostFilterReport {
        plugin: name.to_string(),
        evaluated: message.is_some(),
        message,
        note,
    };
    if input.pod.template.preempt_never {
        return report(
            Some("preemption: not eligible due to preemptionPolicy=Never.".to_string()),
            None,
        );
    }
    let mut reasons: Vec<&str> = Vec::with_capacity(nodes.len());
    let mut undecided: Vec<&str> = Vec::new();
    for (i, node) in nodes.iter().enumerate() {
        let resolvable = node
            .reported
            .as_ref()
            .is_some_and(|r| r.code == Code::Unschedulable);
        if !resolvable {
            reasons.push(NOT_HELPFUL);
            continue;
        }
        let has_victims = input.state.pods_on(i).iter().any(|&p| {
            Some(p) != input.exclude
                && input.state.pods()[p].template.priority < input.pod.template.priority
        });
        if has_victims {
            undecided.push(&node.name);
        } else {
            reasons.push(NO_VICTIMS);
        }
    }
    if !undecided.is_empty() {
        return report(
            None,
            Some(format!(
                "preemption not simulated: lower-priority pods run on {} (evicting them might make room; the scheduler's dry run is not modelled)",
                undecided.join(", ")
            )),
        );
    }
    let message = format!(
        "preemption: {}",
        fit_error_message(nodes.len(), None, reasons.into_iter())
    );
    report(Some(message), None)
}
