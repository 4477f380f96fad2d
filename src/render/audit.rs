//! The audit document (`kubectl affinity audit`) as a table, JSON or YAML. Words are chosen
//! here from the document's typed rules, and what breaks a rule in its plugin's words (its
//! explanation's); nothing is decided.

use std::io::Write;

use crate::report::audit::{Audit, AuditSummary, Category, PendingPod, Rule};
use crate::scheduler::explain::few;
use crate::scheduler::explain_of;

/// `-o json`.
pub fn audit_json(out: &mut dyn Write, doc: &Audit) -> std::io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, doc)?;
    writeln!(out)
}

/// `-o yaml`.
pub fn audit_yaml(out: &mut dyn Write, doc: &Audit) -> std::io::Result<()> {
    let text = crate::state::to_yaml_string(doc).map_err(std::io::Error::other)?;
    out.write_all(text.as_bytes())
}

/// How the audit table is drawn.
#[derive(Debug, Clone, Copy, Default)]
pub struct AuditOptions {
    pub no_headers: bool,
    /// `-o wide`: the scheduler's own last event (live) under each Pending pod's message.
    pub wide: bool,
}

/// The table: a header, the Pending pods by workload, the pods that break their rules, the
/// cordoned nodes. A line per pod and per rule, unwrapped: the scheduler's messages are long
/// and are read (and grepped) whole.
pub fn audit_table(out: &mut dyn Write, doc: &Audit, opts: AuditOptions) -> std::io::Result<()> {
    let s = &doc.summary;
    if !opts.no_headers {
        let scope = match &doc.namespace {
            Some(ns) => format!("namespace {ns}"),
            None => "all namespaces".to_string(),
        };
        let source = doc.source.as_deref().unwrap_or("the cluster");
        let mut parts = Vec::new();
        if doc.pending.is_some() {
            parts.push(format!("{} Pending{}", s.pending, categories(s)));
        }
        if doc.violating.is_some() {
            parts.push(format!("{} breaking their required rules", s.violating));
        }
        parts.push(format!("{} cordoned node(s)", s.cordoned_nodes));
        writeln!(out, "Audit of {scope} ({source}): {}", parts.join(", "))?;
    }
    if let Some(groups) = &doc.pending {
        writeln!(out)?;
        if groups.is_empty() {
            writeln!(out, "No Pending pod.")?;
        } else if !opts.no_headers {
            writeln!(out, "PENDING, AND WHAT THE SCHEDULER WOULD SAY NOW")?;
        }
        for g in groups {
            match &g.workload {
                Some(w) => writeln!(out, "{}/{w}: {} Pending", g.namespace, g.count)?,
                None => writeln!(out, "{}: no controller", g.namespace)?,
            }
            for p in &g.pods {
                writeln!(out, "  {}: {}", p.name, verdict(p))?;
                if let (true, Some(e)) = (opts.wide, &p.scheduler_event) {
                    let same = if e.matches_computed {
                        "the same"
                    } else {
                        "differs"
                    };
                    let when = e
                        .last_seen
                        .as_deref()
                        .map(|t| format!(" ({t})"))
                        .unwrap_or_default();
                    writeln!(
                        out,
                        "    the scheduler's last event{when}, {same}: {}",
                        e.message
                    )?;
                }
            }
        }
    }
    if let Some(violating) = &doc.violating {
        writeln!(out)?;
        if violating.is_empty() {
            writeln!(out, "No running pod breaks its required rules.")?;
        } else if !opts.no_headers {
            writeln!(out, "RUNNING WHERE THEIR REQUIRED RULES NO LONGER HOLD")?;
        }
        for v in violating {
            let cordoned = if v.cordoned { " (cordoned)" } else { "" };
            writeln!(out, "{} on {}{cordoned}", v.pod, v.node)?;
            for r in &v.rules {
                let detail = detail(r);
                let sep = if detail.is_empty() { "" } else { ": " };
                writeln!(
                    out,
                    "  {}: {}{sep}{detail}",
                    r.0.plugin,
                    r.0.status.message()
                )?;
            }
        }
    }
    for u in &doc.unchecked {
        writeln!(
            out,
            "Not checked: {} of {} on {}: {}",
            u.plugin, u.pod, u.node, u.why
        )?;
    }
    if s.static_pods_not_checked > 0 {
        writeln!(
            out,
            "Not checked: {} static pod(s), which the kubelet runs from a file where no \
             scheduler placed them.",
            s.static_pods_not_checked
        )?;
    }
    if !doc.cordoned.is_empty() {
        writeln!(out)?;
        let nodes: Vec<String> = doc
            .cordoned
            .iter()
            .map(|c| format!("{} ({} pod(s))", c.node, c.pods))
            .collect();
        writeln!(
            out,
            "Cordoned: {}. No new pod is placed there and nothing evicts the pods they run: \
             not counted as breaking a rule.",
            nodes.join(", ")
        )?;
    }
    for note in &doc.notes {
        writeln!(out, "Note: {note}")?;
    }
    Ok(())
}

/// The scheduler's message now, or where it would place the pod; for a pod not evaluated,
/// why, never a verdict.
fn verdict(p: &PendingPod) -> String {
    if let Some(m) = &p.failed_scheduling_message {
        return m.clone();
    }
    let feasible = p.feasible.unwrap_or_default();
    let unknown = p.unknown.unwrap_or_default();
    let not_evaluated = not_evaluated(&p.not_evaluated);
    match p.category {
        Category::Gated => format!(
            "gated: waits for its scheduling gate(s) {}; not evaluated",
            p.scheduling_gates.join(", ")
        ),
        Category::OtherScheduler => format!(
            "for scheduler {}, which no profile here serves; not evaluated",
            p.scheduler_name.as_deref().unwrap_or_default()
        ),
        Category::BoundToMissingNode => format!(
            "bound to node {}, which is not in the cluster; not evaluated",
            p.node_name.as_deref().unwrap_or_default()
        ),
        Category::NotEvaluated => {
            format!("not evaluated: {unknown} node(s) pass every evaluated filter; {not_evaluated}")
        }
        Category::SchedulableNow | Category::Unschedulable => match p.selected.as_slice() {
            [] if unknown > 0 => format!(
                "yes: {feasible} feasible node(s); which one not known, {unknown} node(s) not \
                 evaluated ({not_evaluated})"
            ),
            [] => format!("yes: {feasible} feasible node(s)"),
            [one] => format!("yes: on {one}"),
            // A pod that fits anywhere ties on hundreds of nodes: a few are named.
            many => format!("yes: on one of {} (a tie)", few(many)),
        },
    }
}

/// The plugins not evaluated, those left out for the same reason said once:
/// "A, B: why".
fn not_evaluated(whys: &[String]) -> String {
    let mut by_reason: Vec<(&str, Vec<&str>)> = Vec::new();
    for why in whys {
        let (plugin, reason) = why
            .split_once(" is not evaluated: ")
            .unwrap_or(("", why.as_str()));
        match by_reason.iter_mut().find(|(r, _)| *r == reason) {
            Some((_, plugins)) => plugins.push(plugin),
            None => by_reason.push((reason, vec![plugin])),
        }
    }
    let parts: Vec<String> = by_reason
        .into_iter()
        .map(|(reason, plugins)| {
            let plugins: Vec<&str> = plugins.into_iter().filter(|p| !p.is_empty()).collect();
            match plugins.as_slice() {
                [] => reason.to_string(),
                _ => format!("{} not evaluated: {reason}", plugins.join(", ")),
            }
        })
        .collect();
    parts.join("; ")
}

/// The Pending count by category, those with none left out.
fn categories(s: &AuditSummary) -> String {
    let parts: Vec<String> = [
        (s.placeable, "schedulable now"),
        (s.unschedulable, "unschedulable"),
        (s.not_evaluated, "not evaluated"),
        (s.gated, "gated"),
        (s.other_scheduler, "for another scheduler"),
        (s.bound_to_missing_node, "bound to a missing node"),
    ]
    .into_iter()
    .filter(|(n, _)| *n > 0)
    .map(|(n, what)| format!("{n} {what}"))
    .collect();
    match parts.is_empty() {
        true => String::new(),
        false => format!(" ({})", parts.join(", ")),
    }
}

/// What on the node breaks the rule, in the rule's own terms.
fn detail(r: &Rule) -> String {
    let b = &r.0;
    if !b.taints.is_empty() {
        let taints: Vec<String> = b
            .taints
            .iter()
            .map(|t| match t.value.as_str() {
                "" => format!("{}:{}", t.key, t.effect),
                v => format!("{}={v}:{}", t.key, t.effect),
            })
            .collect();
        return format!("untolerated {}", taints.join(", "));
    }
    if !b.pods.is_empty() {
        let pods: Vec<String> = b.pods.iter().map(|p| p.to_string()).collect();
        return format!("pods {}", pods.join(", "));
    }
    b.details
        .as_ref()
        .map(|d| explain_of(&b.plugin).broken(d))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::verdict;
    use crate::report::audit::{Category, PendingPod};

    fn pod(selected: &[&str]) -> PendingPod {
        PendingPod {
            name: "p".to_string(),
            category: Category::SchedulableNow,
            failed_scheduling_message: None,
            failed_scheduling_message_complete: None,
            feasible: Some(400),
            unknown: Some(0),
            not_evaluated: Vec::new(),
            selected: selected.iter().map(ToString::to_string).collect(),
            scheduling_gates: Vec::new(),
            scheduler_name: None,
            node_name: None,
            scheduler_event: None,
        }
    }

    #[test]
    fn a_tie_names_a_few_nodes_and_counts_the_rest() {
        assert_eq!(verdict(&pod(&["a"])), "yes: on a");
        assert_eq!(verdict(&pod(&["a", "b"])), "yes: on one of a, b (a tie)");
        assert_eq!(
            verdict(&pod(&["a", "b", "c", "d", "e"])),
            "yes: on one of a, b, c and 2 more (a tie)"
        );
    }

    #[test]
    fn a_pod_not_evaluated_is_never_a_yes() {
        let mut p = pod(&[]);
        p.category = Category::NotEvaluated;
        p.feasible = Some(0);
        p.unknown = Some(3);
        let plugin = crate::scheduler::PluginId::VolumeBinding;
        p.not_evaluated = vec![format!("{plugin} is not evaluated: no claims read")];
        assert_eq!(
            verdict(&p),
            format!(
                "not evaluated: 3 node(s) pass every evaluated filter; {plugin} not evaluated: \
                 no claims read"
            )
        );
        p.category = Category::Gated;
        p.scheduling_gates = vec!["kueue.x-k8s.io/admission".to_string()];
        assert_eq!(
            verdict(&p),
            "gated: waits for its scheduling gate(s) kueue.x-k8s.io/admission; not evaluated"
        );
    }
}
