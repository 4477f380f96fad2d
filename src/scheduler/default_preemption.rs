//! The PostFilter step: what runs after no node passed Filter, and writes the tail of the
//! FailedScheduling message ("... no new claims to deallocate, preemption: 0/3 nodes are
//! available: 3 Preemption is not helpful for scheduling.").
//!
//! `RunPostFilterPlugins` (`pkg/scheduler/framework/runtime/framework.go`) runs the plugins in
//! order: the first Success (preemption found a node) or error ends PostFilter, and the
//! FailedScheduling message then has no PostFilter part from the plugins before it (the
//! scheduler appends the returned status's message only, `schedule_one.go`); otherwise the
//! plugins' reasons are joined by ", ".
//!
//! DynamicResources' PostFilter only deallocates claims; for a pod without ResourceClaims it
//! answers "no new claims to deallocate". It reads the state its PreFilter wrote: when an
//! earlier PreFilter rejected the pod as UnschedulableAndUnresolvable, its PreFilter never
//! ran, its PostFilter fails with "not found", and DefaultPreemption never runs.
//!
//! DefaultPreemption (`plugins/defaultpreemption/default_preemption.go`, the framework's
//! `preemption.go`): eligibility, then a dry run on every node whose status is Unschedulable:
//! every lower-priority pod removed, Filter run again, then pods re-added ("reprieved") while
//! the pod still fits, those whose PodDisruptionBudget would be violated first, the most
//! important first. The nodes where victims remain are candidates; one is picked
//! (`preemption::pick_one`).

use std::cmp::Ordering;

use crate::state::{ClusterState, DisruptionBudget, Pod};

use super::plugin::Input;
use super::plugin_id::PluginId;
use super::preemption::{
    Candidate, CandidateReport, DryRun, DryRunFilter, Outcome, PickFields, num_candidates,
    pick_one, start_key,
};
use super::result::NodeResult;
use super::status::{Code, Status, fit_error_message};

/// One PostFilter plugin's contribution.
#[derive(Debug, Clone)]
pub struct PostFilterReport {
    pub plugin: PluginId,
    /// The plugin's message in the FailedScheduling event; `None` when it adds nothing (it
    /// found a node, a later plugin did, or it did not run) or was not evaluated.
    pub message: Option<String>,
    pub evaluated: bool,
    pub note: Option<String>,
    /// DefaultPreemption's dry run, when it ran.
    pub preemption: Option<Box<Outcome>>,
}

const NOT_HELPFUL: &str = "Preemption is not helpful for scheduling";
const NO_VICTIMS: &str = "No preemption victims found for incoming pod";

/// How a PostFilter plugin ended, for `RunPostFilterPlugins`.
enum End {
    /// Unschedulable: the next plugin runs.
    Next,
    /// Success or an error: PostFilter ends here, with only this plugin's message.
    Stop,
}

/// Runs the profile's PostFilter plugins for a pod no node can take. `nodes` are every node's
/// results, with `reported` set on each (all are infeasible when this runs);
/// `pre_filter_ran` the plugins whose PreFilter ran; `dry_run` Filter on one node with pods
/// taken out.
pub(crate) fn post_filter(
    input: Input<'_>,
    plugins: &[PluginId],
    pre_filter_ran: &[&PluginId],
    nodes: &[NodeResult],
    dry_run: &DryRun<'_>,
    dynamic_resources_answer: Option<Result<String, String>>,
) -> Vec<PostFilterReport> {
    let mut reports: Vec<PostFilterReport> = Vec::with_capacity(plugins.len());
    let mut stopped_by: Option<&PluginId> = None;
    for name in plugins {
        if let Some(by) = stopped_by {
            reports.push(report(
                name,
                None,
                true,
                Some(format!("not run: {by}'s PostFilter ended PostFilter")),
            ));
            continue;
        }
        let (r, end) = match name {
            PluginId::DynamicResources => dynamic_resources(
                input,
                name,
                pre_filter_ran,
                dynamic_resources_answer.clone(),
            ),
            PluginId::DefaultPreemption => default_preemption(input, nodes, name, dry_run),
            _ => (
                report(
                    name,
                    None,
                    false,
                    Some(format!(
                        "{name} is not evaluated by this version of kubectl-affinity"
                    )),
                ),
                End::Next,
            ),
        };
        reports.push(r);
        if let End::Stop = end {
            // Only the ending plugin's status reaches the event.
            let last = reports.len() - 1;
            for r in &mut reports[..last] {
                r.message = None;
            }
            stopped_by = Some(name);
        }
    }
    reports
}

fn report(
    name: &PluginId,
    message: Option<String>,
    evaluated: bool,
    note: Option<String>,
) -> PostFilterReport {
    PostFilterReport {
        plugin: name.clone(),
        message,
        evaluated,
        note,
        preemption: None,
    }
}

fn dynamic_resources(
    input: Input<'_>,
    name: &PluginId,
    pre_filter_ran: &[&PluginId],
    answer: Option<Result<String, String>>,
) -> (PostFilterReport, End) {
    if !pre_filter_ran.contains(&name) {
        // `getStateData` finds nothing in the cycle state: an Error status whose message is
        // the state's "not found" (dynamicresources.go PostFilter).
        return (
            report(name, Some("not found".to_string()), true, None),
            End::Stop,
        );
    }
    match answer {
        Some(Ok(message)) => return (report(name, Some(message), true, None), End::Next),
        Some(Err(message)) => return (report(name, Some(message), true, None), End::Stop),
        None => {}
    }
    if input.pod.template.has_resource_claims {
        let note = "the pod has ResourceClaims: deallocating claims is not evaluated";
        return (report(name, None, false, Some(note.to_string())), End::Next);
    }
    let message = Some("no new claims to deallocate".to_string());
    (report(name, message, true, None), End::Next)
}

fn default_preemption(
    input: Input<'_>,
    nodes: &[NodeResult],
    name: &PluginId,
    dry_run: &DryRun<'_>,
) -> (PostFilterReport, End) {
    let outcome = preempt(input, nodes, dry_run);
    let (message, end, note) = match &outcome {
        Preempted::NotEvaluated(plugin) => {
            let note = format!(
                "preemption not simulated: its dry run runs Filter again, and {plugin} is not evaluated"
            );
            return (report(name, None, false, Some(note)), End::Next);
        }
        Preempted::Done(o) if o.nominated_node.is_some() => (None, End::Stop, None),
        Preempted::Done(o) => match o.not_eligible {
            Some(why) => (Some(format!("preemption: {why}")), End::Next, None),
            None => {
                let mut reasons: Vec<&str> = Vec::new();
                for (_, _, status) in &o.non_candidates {
                    reasons.extend(status.reasons.iter().map(|r| r.as_ref()));
                }
                let not_examined = nodes.len() - o.non_candidates.len();
                reasons.extend(std::iter::repeat_n(NOT_HELPFUL, not_examined));
                let message = fit_error_message(nodes.len(), None, reasons.into_iter());
                (Some(format!("preemption: {message}")), End::Next, None)
            }
        },
        Preempted::Error(e) => (Some(format!("preemption: {e}")), End::Stop, None),
    };
    let mut r = report(name, message, true, note);
    if let Preempted::Done(o) = outcome {
        r.preemption = Some(o);
    }
    (r, end)
}

enum Preempted {
    Done(Box<Outcome>),
    /// The dry run met a Filter plugin this version does not evaluate.
    NotEvaluated(PluginId),
    /// Upstream's error (no candidate, and a node's dry run failed).
    Error(String),
}

/// `Evaluator.Preempt`, from eligibility to the pick.
fn preempt(input: Input<'_>, nodes: &[NodeResult], dry_run: &DryRun<'_>) -> Preempted {
    let state = input.state;
    let mut outcome = Outcome::default();
    if let Some(why) = not_eligible(input.pod) {
        outcome.not_eligible = Some(why);
        return Preempted::Done(Box::new(outcome));
    }
    // `findCandidates`: the nodes whose status is Unschedulable, in name order.
    let mut potential: Vec<usize> = (0..nodes.len())
        .filter(|&n| {
            nodes[n]
                .reported
                .as_ref()
                .is_some_and(|r| r.code == Code::Unschedulable)
        })
        .collect();
    potential.sort_by_key(|&n| nodes[n].name_rank);
    outcome.potential_nodes = potential.iter().map(|&n| nodes[n].name.clone()).collect();
    outcome.wanted_candidates = num_candidates(potential.len());
    let budgets = state.disruption_budgets();
    let (mut non_violating, mut violating): (Vec<Candidate>, Vec<Candidate>) = Default::default();
    let mut errors: Vec<String> = Vec::new();
    for &node in &potential {
        match select_victims_on_node(input, node, budgets, dry_run) {
            Victims::Some(c) if c.pdb_violations == 0 => non_violating.push(c),
            Victims::Some(c) => violating.push(c),
            Victims::None(plugin, status) => {
                outcome
                    .non_candidates
                    .push((nodes[node].name.clone(), plugin, status));
            }
            Victims::Reprieved => {
                let e = format!(
                    "expected at least one victim pod on node {:?}",
                    &*nodes[node].name
                );
                outcome.non_candidates.push((
                    nodes[node].name.clone(),
                    None,
                    Status::new(Code::Error, e.clone()),
                ));
                errors.push(e);
            }
            Victims::NotEvaluated(plugin) => return Preempted::NotEvaluated(plugin),
        }
        // `DryRunPreemption` stops once it has a non-violating candidate and enough in all.
        if !non_violating.is_empty()
            && non_violating.len() + violating.len() >= outcome.wanted_candidates
        {
            break;
        }
    }
    let candidates: Vec<Candidate> = non_violating.into_iter().chain(violating).collect();
    if candidates.is_empty() && !errors.is_empty() {
        // `utilerrors.NewAggregate`: one error's message alone, several in brackets.
        let message = match errors.as_slice() {
            [one] => one.clone(),
            many => format!("[{}]", many.join(", ")),
        };
        return Preempted::Error(message);
    }
    if let Some(pick) = pick_one(&candidates, state) {
        let chosen = &candidates[pick.candidate];
        outcome.nominated_node = Some(nodes[chosen.node].name.clone());
        outcome.victims = chosen
            .victims
            .iter()
            .map(|&p| state.pods()[p].id.clone())
            .collect();
        outcome.picked_by = Some(pick.picked_by);
        outcome.tied_nodes = pick
            .tied
            .iter()
            .map(|&c| nodes[candidates[c].node].name.clone())
            .collect();
    }
    outcome.candidates = candidates
        .iter()
        .map(|c| CandidateReport {
            node: nodes[c.node].name.clone(),
            victims: c
                .victims
                .iter()
                .map(|&p| state.pods()[p].id.clone())
                .collect(),
            pdb_violations: c.pdb_violations,
            fields: PickFields::of(c, state),
        })
        .collect();
    Preempted::Done(Box::new(outcome))
}

/// `PodEligibleToPreemptOthers`. The other case upstream checks (a nominated node that still
/// holds a victim being terminated by an earlier preemption) needs the pod's own nomination,
/// which the incoming pod does not have here.
fn not_eligible(pod: &Pod) -> Option<&'static str> {
    pod.template
        .preempt_never
        .then_some("not eligible due to preemptionPolicy=Never.")
}

/// What `SelectVictimsOnNode` found on one node.
enum Victims {
    Some(Candidate),
    /// Not a candidate: the status the node's dry run ended with, and the plugin that gave
    /// it (none for "No preemption victims found").
    None(Option<PluginId>, Status),
    /// Every victim could be re-added (upstream then records an error for the node).
    Reprieved,
    NotEvaluated(PluginId),
}

/// `SelectVictimsOnNode`: every pod of lower priority removed; if the pod then fits, the pods
/// are re-added one at a time, most important first (those a PodDisruptionBudget protects
/// before the others), and each one the pod no longer fits with is a victim.
fn select_victims_on_node(
    input: Input<'_>,
    node: usize,
    budgets: &[DisruptionBudget],
    dry_run: &DryRun<'_>,
) -> Victims {
    let state = input.state;
    let pods = state.pods();
    let priority = input.pod.template.priority;
    let mut potential: Vec<usize> = state
        .pods_on(node)
        .iter()
        .copied()
        .filter(|&p| !input.is_excluded(p) && pods[p].template.priority < priority)
        .collect();
    if potential.is_empty() {
        return Victims::None(
            None,
            Status::new(Code::UnschedulableAndUnresolvable, NO_VICTIMS),
        );
    }
    let mut removed = potential.clone();
    removed.sort_unstable();
    let fits = |removed: &[usize]| dry_run(Input { removed, ..input }, node);
    match fits(&removed) {
        DryRunFilter::Fits => {}
        DryRunFilter::Fails(plugin, status) => return Victims::None(Some(plugin), status),
        DryRunFilter::NotEvaluated(plugin) => return Victims::NotEvaluated(plugin),
    }
    potential.sort_by(|&a, &b| more_important(&pods[a], &pods[b]));
    let (violating, non_violating) = split_by_budgets(&potential, state, budgets);
    let mut victims: Vec<usize> = Vec::new();
    let mut pdb_violations = 0;
    for (&p, protected) in violating
        .iter()
        .map(|p| (p, true))
        .chain(non_violating.iter().map(|p| (p, false)))
    {
        let at = removed.binary_search(&p).unwrap_or_else(|i| i);
        removed.remove(at);
        match fits(&removed) {
            DryRunFilter::Fits => {}
            DryRunFilter::Fails(..) => {
                removed.insert(at, p);
                victims.push(p);
                pdb_violations += usize::from(protected);
            }
            DryRunFilter::NotEvaluated(plugin) => return Victims::NotEvaluated(plugin),
        }
    }
    if !violating.is_empty() && !non_violating.is_empty() {
        victims.sort_by(|&a, &b| more_important(&pods[a], &pods[b]));
    }
    if victims.is_empty() {
        return Victims::Reprieved;
    }
    Victims::Some(Candidate {
        node,
        victims,
        pdb_violations,
    })
}

/// `MoreImportantPod` as a sort order: higher priority first, then the earlier start (not
/// started counts as now).
fn more_important(a: &Pod, b: &Pod) -> Ordering {
    b.template
        .priority
        .cmp(&a.template.priority)
        .then_with(|| start_key(a.start_time).cmp(&start_key(b.start_time)))
}

/// `filterPodsWithPDBViolation`: walking the pods in order, each budget that covers a pod
/// loses one allowed disruption; a pod that takes any budget below zero violates it.
fn split_by_budgets(
    pods: &[usize],
    state: &ClusterState,
    budgets: &[DisruptionBudget],
) -> (Vec<usize>, Vec<usize>) {
    let mut allowed: Vec<i32> = budgets.iter().map(|b| b.disruptions_allowed).collect();
    let (mut violating, mut non_violating) = (Vec::new(), Vec::new());
    for &p in pods {
        let pod = &state.pods()[p];
        let mut violated = false;
        for (b, left) in budgets.iter().zip(allowed.iter_mut()) {
            if b.counts(&pod.id.namespace, &pod.id.name, &pod.labels) {
                *left -= 1;
                violated |= *left < 0;
            }
        }
        if violated {
            violating.push(p);
        } else {
            non_violating.push(p);
        }
    }
    (violating, non_violating)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::PostFilterReport;
    use crate::scheduler::preemption::Criterion;
    use crate::scheduler::testing::evaluate_default;
    use serde_json::{Value, json};

    fn node(name: &str, cpu: &str) -> Value {
        json!({"kind": "Node", "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
               "status": {"allocatable": {"cpu": cpu, "memory": "8Gi", "pods": "110"}}})
    }

    /// A running pod on `node` with `priority`, requesting `cpu`, started at `start`.
    fn pod(name: &str, node: &str, priority: i32, cpu: &str, start: &str) -> Value {
        json!({"kind": "Pod", "metadata": {"name": name, "namespace": "default", "labels": {"app": name}},
               "spec": {"nodeName": node, "priority": priority,
                        "containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": cpu}}}]},
               "status": {"phase": "Running", "startTime": start}})
    }

    fn incoming(priority: i32, cpu: &str) -> Value {
        json!({"metadata": {"name": "incoming", "namespace": "default"},
               "spec": {"priority": priority,
                        "containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": cpu}}}]}})
    }

    fn post_filter(items: Value, pod: Value) -> Vec<PostFilterReport> {
        evaluate_default(items, pod).post_filter
    }

    fn preemption(reports: &[PostFilterReport]) -> &crate::scheduler::preemption::Outcome {
        reports
            .iter()
            .find(|r| r.plugin == crate::scheduler::PluginId::DefaultPreemption)
            .and_then(|r| r.preemption.as_deref())
            .expect("DefaultPreemption ran")
    }

    fn messages(reports: &[PostFilterReport]) -> Vec<Option<&str>> {
        reports.iter().map(|r| r.message.as_deref()).collect()
    }

    fn victims(o: &crate::scheduler::preemption::Outcome) -> Vec<String> {
        o.victims.iter().map(|v| v.to_string()).collect()
    }

    #[test]
    fn a_pod_that_never_preempts_is_not_eligible() {
        let items = json!([
            node("n", "2"),
            pod("low", "n", -10, "2", "2026-01-01T00:00:00Z")
        ]);
        let mut pod = incoming(10, "1");
        pod["spec"]["preemptionPolicy"] = json!("Never");
        let reports = post_filter(items, pod);
        assert_eq!(
            messages(&reports),
            [
                Some("no new claims to deallocate"),
                Some("preemption: not eligible due to preemptionPolicy=Never.")
            ]
        );
        assert!(preemption(&reports).nominated_node.is_none());
    }

    /// Lower-priority pods are removed, then re-added most important first while the pod
    /// still fits: the one it no longer fits with is the victim. A node is found, so no
    /// plugin's message reaches the event.
    #[test]
    fn victims_are_the_pods_that_cannot_be_reprieved() {
        let items = json!([
            node("n", "4"),
            pod("a", "n", 1, "2", "2026-01-01T00:00:00Z"),
            pod("b", "n", 5, "1", "2026-01-01T00:00:00Z"),
            pod("c", "n", 20, "1", "2026-01-01T00:00:00Z"),
        ]);
        let reports = post_filter(items, incoming(10, "2"));
        assert_eq!(messages(&reports), [None, None]);
        let o = preemption(&reports);
        assert_eq!(o.nominated_node.as_deref(), Some("n"));
        assert_eq!(victims(o), ["default/a"]);
        assert_eq!(o.picked_by, Some(Criterion::OnlyCandidate));
    }

    /// Pods a PodDisruptionBudget protects are re-added first; among the others, the
    /// earlier started (more important) first.
    #[test]
    fn reprieve_tries_budget_protected_pods_first() {
        let items = |budget: bool| {
            let mut items = vec![
                node("n", "4"),
                pod("x", "n", 0, "2", "2026-01-02T00:00:00Z"),
                pod("y", "n", 0, "2", "2026-01-01T00:00:00Z"),
            ];
            if budget {
                items.push(
                    json!({"kind": "PodDisruptionBudget", "apiVersion": "policy/v1",
                    "metadata": {"name": "x", "namespace": "default"},
                    "spec": {"selector": {"matchLabels": {"app": "x"}}},
                    "status": {"disruptionsAllowed": 0}}),
                );
            }
            Value::Array(items)
        };
        let without = post_filter(items(false), incoming(10, "2"));
        assert_eq!(victims(preemption(&without)), ["default/x"]);
        let with = post_filter(items(true), incoming(10, "2"));
        let o = preemption(&with);
        assert_eq!(victims(o), ["default/y"]);
        assert_eq!(o.candidates[0].pdb_violations, 0);
        // Both protected and only one may go: evicting it violates its budget.
        let mut both = items(true);
        both.as_array_mut().expect("items").push(json!({"kind": "PodDisruptionBudget",
            "metadata": {"name": "y", "namespace": "default"},
            "spec": {"selector": {"matchLabels": {"app": "y"}}}, "status": {"disruptionsAllowed": 0}}));
        let o = post_filter(both, incoming(10, "2"));
        assert_eq!(preemption(&o).candidates[0].pdb_violations, 1);
    }

    /// Without candidates the message is a FitError of its own: each examined node's dry-run
    /// status, every other node "not helpful".
    #[test]
    fn the_message_without_candidates() {
        let mut tainted = node("tainted", "4");
        tainted["spec"] = json!({"taints": [{"key": "k", "effect": "NoSchedule"}]});
        let items = json!([
            node("busy", "4"),
            node("higher", "4"),
            tainted,
            pod("high", "busy", 100, "4", "2026-01-01T00:00:00Z"),
            pod("high2", "higher", 100, "3", "2026-01-01T00:00:00Z"),
            pod("low", "higher", 1, "1", "2026-01-01T00:00:00Z"),
        ]);
        let reports = post_filter(items, incoming(10, "2"));
        assert_eq!(
            messages(&reports),
            [
                Some("no new claims to deallocate"),
                Some(
                    "preemption: 0/3 nodes are available: 1 Insufficient cpu, 1 No preemption victims found for incoming pod, 1 Preemption is not helpful for scheduling."
                )
            ]
        );
        let o = preemption(&reports);
        assert_eq!(o.potential_nodes, [Arc::from("busy"), Arc::from("higher")]);
        assert!(o.candidates.is_empty());
    }

    /// After an UnschedulableAndUnresolvable PreFilter rejection, DynamicResources' PreFilter
    /// never ran: its PostFilter fails with "not found", and DefaultPreemption does not run.
    #[test]
    fn a_prefilter_rejection_leaves_dynamic_resources_without_state() {
        let items = json!([node("a", "4"), node("b", "4")]);
        let mut pod = incoming(0, "1");
        pod["spec"]["affinity"] = json!({"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution":
            {"nodeSelectorTerms": [{"matchFields": [
                {"key": "metadata.name", "operator": "In", "values": ["a"]},
                {"key": "metadata.name", "operator": "In", "values": ["b"]}]}]}}});
        let reports = post_filter(items, pod);
        assert_eq!(messages(&reports), [Some("not found"), None]);
        assert!(reports[1].preemption.is_none() && reports[1].evaluated);
    }
}
