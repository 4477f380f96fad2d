//! PodTopologySpread in the table: the SPREAD cell and the `--node` drill-down section.
//! Words only; every number comes from the typed details.

use std::io::Write;

use owo_colors::OwoColorize;

use super::node_value::{node_has, short_key};
use crate::report::{Explanation, NodeReport};
use crate::scheduler::pod_topology_spread::{ConstraintTable, FilterDetails, ScoreDetails};
use crate::scheduler::{FilterDetails as AnyFilter, PluginId, ScoreDetails as AnyScore};

const PLUGIN: PluginId = PluginId::PodTopologySpread;

fn mark(ok: bool, color: bool) -> String {
    match (ok, color) {
        (true, true) => "✓".green().to_string(),
        (true, false) => "✓".to_string(),
        (false, true) => "✗".red().to_string(),
        (false, false) => "✗".to_string(),
    }
}

fn table(doc: &Explanation, i: usize) -> Option<&ConstraintTable> {
    doc.topology_spread.as_ref()?.constraints.get(i)
}

/// A topology domain in a cell: "here" when the key is the hostname, else "in zone=eu-west-1a"
/// (the node's own domain, as the inter-pod affinity cells say it).
fn domain_words(key: &str, domain: &str) -> String {
    if key == "kubernetes.io/hostname" {
        "here".to_string()
    } else {
        format!("in {}={domain}", short_key(key))
    }
}

/// The SPREAD cell. Hard (DoNotSchedule) constraints: the worst skew on the node
/// ("✗ skew 2>1 in zone=eu-west-1a", "✓ skew 1≤1"). Only soft ones (the pod's ScheduleAnyway
/// constraints, or the default constraints): the matching pods in the node's domain, without
/// a mark, since they move the score and never reject ("soft: 1 here", "soft: 2 in zone").
/// "-" when the plugin has nothing to say for the pod on this node, "" when the profile does
/// not run it.
pub(super) fn cell(n: &NodeReport) -> String {
    let filter = n.filters.iter().find(|f| *f.plugin == PLUGIN);
    let score = n.scores.iter().find(|s| *s.plugin == PLUGIN);
    if let Some(f) = &filter {
        match (f.pass, f.details) {
            (None, _) => return "?".into(),
            (Some(pass), Some(AnyFilter::PodTopologySpread(d))) => {
                return hard_cell(pass, d).unwrap_or_else(|| mark(pass, false));
            }
            (Some(false), _) => return "✗".into(),
            (Some(true), _) if !f.skipped => return "✓".into(),
            (Some(true), _) => {}
        }
    }
    match score {
        Some(s) if !s.evaluated() => "?".into(),
        Some(s) if s.skipped => "-".into(),
        Some(s) => match s.details {
            Some(AnyScore::PodTopologySpread(d)) => soft_cell(d),
            _ => "-".into(),
        },
        None if filter.is_some() => "-".into(),
        None => "".into(),
    }
}

fn hard_cell(pass: bool, d: &FilterDetails) -> Option<String> {
    if let Some(c) = d.constraints.iter().find(|c| !c.satisfied) {
        return Some(match (&c.domain, c.skew) {
            (Some(domain), Some(skew)) => format!(
                "✗ skew {skew}>{} {}",
                c.max_skew,
                domain_words(&c.topology_key, domain)
            ),
            _ => format!("✗ {}", node_has(short_key(&c.topology_key), None)),
        });
    }
    let worst = d
        .constraints
        .iter()
        .filter_map(|c| c.skew.map(|s| (s, c.max_skew)))
        .max_by_key(|&(s, max)| (s - i64::from(max), s))?;
    pass.then(|| format!("✓ skew {}≤{}", worst.0, worst.1))
}

/// The first soft constraint only: the table has little room, and the drill-down shows each.
fn soft_cell(d: &ScoreDetails) -> String {
    if d.ignored {
        return "soft: scores 0".into();
    }
    let Some(c) = d.constraints.first() else {
        return "-".into();
    };
    match &c.domain {
        // The domain's value is the drill-down's: the cell stays narrow.
        Some(_) if c.topology_key == "kubernetes.io/hostname" => {
            format!("soft: {} here", c.matching_pods)
        }
        Some(_) => format!(
            "soft: {} in {}",
            c.matching_pods,
            short_key(&c.topology_key)
        ),
        None => format!("soft: {}", node_has(short_key(&c.topology_key), None)),
    }
}

/// The drill-down section for one node: each hard constraint's arithmetic, then each soft
/// constraint's part of the score. Writes nothing when the plugin did not run for the pod.
pub(super) fn drill_down(
    out: &mut dyn Write,
    doc: &Explanation,
    n: &NodeReport,
    color: bool,
) -> std::io::Result<()> {
    let filter = n.filters.iter().find(|f| *f.plugin == PLUGIN);
    let score = n.scores.iter().find(|s| *s.plugin == PLUGIN);
    let hard = match filter.and_then(|f| f.details) {
        Some(AnyFilter::PodTopologySpread(d)) => Some(d.as_ref()),
        _ => None,
    };
    let soft = match score.and_then(|s| s.details) {
        Some(AnyScore::PodTopologySpread(d)) => Some(d),
        _ => None,
    };
    if hard.is_none() && soft.is_none() {
        return Ok(());
    }
    writeln!(out, "  topology spread:")?;
    if let Some(d) = hard {
        hard_lines(out, doc, d, color)?;
    }
    if let Some(d) = soft {
        soft_lines(out, doc, d)?;
    }
    Ok(())
}

fn source_note(t: Option<&ConstraintTable>) -> String {
    use crate::scheduler::pod_topology_spread::ConstraintSource;
    match t.map(|t| (t.source, t.index, t.selector.as_str())) {
        Some((ConstraintSource::Pod, i, sel)) => format!("constraint [{i}] ({sel})"),
        Some((ConstraintSource::SystemDefault, i, sel)) => {
            format!("system default [{i}] ({sel})")
        }
        Some((ConstraintSource::ListDefault, i, sel)) => format!("default [{i}] ({sel})"),
        None => "constraint".to_string(),
    }
}

fn hard_lines(
    out: &mut dyn Write,
    doc: &Explanation,
    d: &FilterDetails,
    color: bool,
) -> std::io::Result<()> {
    for c in &d.constraints {
        let t = table(doc, c.constraint);
        let head = format!(
            "    {} DoNotSchedule {} topologyKey {}",
            mark(c.satisfied, color),
            source_note(t),
            c.topology_key
        );
        let Some(domain) = &c.domain else {
            writeln!(
                out,
                "{head}: the node lacks the label (missing required label)"
            )?;
            continue;
        };
        writeln!(
            out,
            "{head}: domain {domain}: {} matching pod(s) + {} (this pod) - global min {} = skew {} {} maxSkew {}",
            c.matching_pods,
            u8::from(c.self_match),
            c.global_min,
            c.skew.unwrap_or_default(),
            if c.satisfied { "<=" } else { ">" },
            c.max_skew
        )?;
        if c.min_domains_forced_zero {
            writeln!(
                out,
                "        {} eligible domain(s) < minDomains {}: the global minimum counts as 0",
                c.domains, c.min_domains
            )?;
        }
        if !c.node_counted {
            writeln!(
                out,
                "        this node's pods are not counted (it lacks a hard key or fails nodeAffinityPolicy/nodeTaintsPolicy)"
            )?;
        }
        if let Some(t) = t {
            let domains: Vec<String> = t
                .domains
                .iter()
                .take(12)
                .map(|(k, v)| format!("{k}={v}"))
                .collect();
            let more = if t.domains.len() > 12 {
                format!(" and {} more", t.domains.len() - 12)
            } else {
                String::new()
            };
            writeln!(
                out,
                "        domains: {}{more}",
                if domains.is_empty() {
                    "none".to_string()
                } else {
                    domains.join(", ")
                }
            )?;
        }
    }
    Ok(())
}

fn soft_lines(out: &mut dyn Write, doc: &Explanation, d: &ScoreDetails) -> std::io::Result<()> {
    if d.ignored {
        writeln!(
            out,
            "    ScheduleAnyway: the node lacks a topology key, so it scores 0 and is left out of normalization"
        )?;
        return Ok(());
    }
    for c in &d.constraints {
        let t = table(doc, c.constraint);
        match &c.domain {
            Some(domain) => writeln!(
                out,
                "    ScheduleAnyway {} topologyKey {}: domain {domain}: {} matching pod(s) x weight {:.3} + (maxSkew {} - 1) = {:.3}",
                source_note(t),
                c.topology_key,
                c.matching_pods,
                c.weight,
                c.max_skew,
                c.value
            )?,
            None => writeln!(
                out,
                "    ScheduleAnyway {} topologyKey {}: the node lacks the label, adds nothing",
                source_note(t),
                c.topology_key
            )?,
        }
    }
    writeln!(
        out,
        "    fewer matching pods score higher: normalized = 100 x (max + min - raw) / max over the candidates"
    )
}
