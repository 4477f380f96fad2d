//! What would make the closest nodes take the pod, in words, when no node can.

use std::io::Write;

use super::resources::amount;
use crate::report::Explanation;
use crate::report::suggestions::Change;
use crate::state::Toleration;

fn toleration(t: &Toleration) -> String {
    let mut s = format!("key: {}, operator: {}", t.key, t.operator);
    if !t.value.is_empty() {
        s.push_str(&format!(", value: {}", t.value));
    }
    if !t.effect.is_empty() {
        s.push_str(&format!(", effect: {}", t.effect));
    }
    format!("{{{s}}}")
}

/// The words of one change.
pub(super) fn words(change: &Change) -> String {
    match change {
        Change::Uncordon => "uncordon the node (kubectl uncordon)".to_string(),
        Change::AddToleration {
            toleration: t,
            near_miss,
        } => {
            let mut s = format!("add the toleration {}", toleration(t));
            if let Some(m) = near_miss {
                s.push_str(&format!(
                    "; near miss: the pod tolerates {}, which does not match",
                    toleration(m)
                ));
            }
            s
        }
        Change::Label {
            key,
            value,
            node_value,
        } => match node_value {
            Some(v) => format!("nodeSelector wants {key}={value}, the node has {key}={v}"),
            None => format!("nodeSelector wants {key}={value}, the node has no {key} label"),
        },
        Change::Expression {
            term,
            key,
            operator,
            values,
            node_value,
        } => {
            let node = match node_value {
                Some(v) => format!("the node has {key}={v}"),
                None => format!("the node has no {key}"),
            };
            format!(
                "required term {term}: {key} {operator} [{}] fails: {node}",
                values.join(",")
            )
        }
        Change::Resource { resource, short } => {
            format!("{} {resource} short", amount(resource, *short))
        }
        Change::PodCount { allowed } => {
            format!("the node runs its {allowed} pods already")
        }
        Change::BlockingPods { pods } => format!("blocked by {}", pods.join(", ")),
        Change::Skew {
            topology_key,
            domain,
            skew,
            max_skew,
        } => match (domain, skew) {
            (Some(d), Some(k)) => format!(
                "placing it in {topology_key}={d} makes the skew {k}, above maxSkew {max_skew}"
            ),
            _ => format!("the node has no {topology_key} label"),
        },
        Change::NoAffinityPod {
            topology_key,
            domain,
        } => match domain {
            Some(d) => format!("no matching pod in {topology_key}={d}"),
            None => format!("the node has no {topology_key} label"),
        },
    }
}

/// When no node can take the pod: the closest nodes, each with what would make it fit.
pub(super) fn closest(out: &mut dyn Write, doc: &Explanation) -> std::io::Result<()> {
    if doc.summary.closest.is_empty() {
        return Ok(());
    }
    writeln!(
        out,
        "\nClosest (fewest failing rules), and what would make them fit:"
    )?;
    for name in doc.summary.closest.iter().take(10) {
        let Some(n) = doc.nodes.iter().find(|n| *n.name == **name) else {
            continue;
        };
        let changes: Vec<String> = n
            .suggestions
            .iter()
            .map(|s| format!("{}: {}", s.rule, words(&s.change)))
            .collect();
        // A rule with no change to name (a volume, a port): its reason.
        let said = match (changes.is_empty(), &n.reported) {
            (true, Some(r)) => r.reason.to_string(),
            _ => changes.join("; "),
        };
        writeln!(out, "  {name}: {said}")?;
    }
    if doc.summary.closest.len() > 10 {
        writeln!(out, "  ... and {} more", doc.summary.closest.len() - 10)?;
    }
    Ok(())
}
