//! The `--node` drill-down section for storage: each claim of the pod and what was checked of
//! it on the node (its volume's node affinity against the node's labels, a static volume
//! found, the class that would provision it), the volumes' zone labels against the node's,
//! the attach counts per CSI driver against the node's limits, and conflicting disks and
//! ReadWriteOncePod claims. Words are chosen here; every fact comes from the typed details.

use std::io::Write;

use owo_colors::OwoColorize;

use super::node_value::node_has;
use crate::report::NodeReport;
use crate::scheduler::FilterDetails;
use crate::scheduler::volume_binding::ClaimCheck;
use crate::state::selector::SelectorCheck;

fn mark(color: bool, ok: bool) -> String {
    match (ok, color) {
        (true, _) => "✓".to_string(),
        (false, true) => "✗".red().to_string(),
        (false, false) => "✗".to_string(),
    }
}

/// Prints the storage details of node `n` (nothing when there are none).
pub fn drill_down(out: &mut dyn Write, n: &NodeReport, color: bool) -> std::io::Result<()> {
    let mut header = false;
    let mut head = |out: &mut dyn Write| -> std::io::Result<()> {
        if !header {
            writeln!(out, "  volumes:")?;
            header = true;
        }
        Ok(())
    };
    for f in &n.filters {
        match f.details {
            Some(FilterDetails::VolumeBinding(d)) if !d.claims.is_empty() => {
                head(out)?;
                writeln!(out, "    VolumeBinding")?;
                for c in &d.claims {
                    claim_lines(out, c, color)?;
                }
            }
            Some(FilterDetails::VolumeZone(d)) if !d.checks.is_empty() => {
                head(out)?;
                writeln!(out, "    VolumeZone")?;
                if d.node_unzoned {
                    writeln!(
                        out,
                        "      the node has no zone or region label: any volume zone fits"
                    )?;
                }
                for c in &d.checks {
                    writeln!(
                        out,
                        "      {} volume {} (claim {}) {} in [{}]; {}",
                        mark(color, c.matched || d.node_unzoned),
                        c.topology.volume,
                        c.topology.claim,
                        c.topology.key,
                        c.topology.values.join(", "),
                        node_has(c.topology.key, c.node_value.as_deref())
                    )?;
                }
            }
            Some(FilterDetails::NodeVolumeLimits(d)) if !d.counts.is_empty() => {
                head(out)?;
                writeln!(out, "    NodeVolumeLimits")?;
                for c in &d.counts {
                    let limit = c
                        .limit
                        .map_or_else(|| "no limit".to_string(), |l| format!("limit {l}"));
                    writeln!(
                        out,
                        "      {} {}: {} attached + {} new, {limit}",
                        mark(color, !(c.new > 0 && c.exceeded())),
                        c.driver,
                        c.attached,
                        c.new
                    )?;
                }
            }
            Some(FilterDetails::VolumeRestrictions(d))
                if !d.disk_conflicts.is_empty() || !d.claims_in_use.is_empty() =>
            {
                head(out)?;
                writeln!(out, "    VolumeRestrictions")?;
                for c in &d.disk_conflicts {
                    writeln!(
                        out,
                        "      {} {} is mounted by {}",
                        mark(color, false),
                        c.disk.describe(),
                        c.pod
                    )?;
                }
                for c in &d.claims_in_use {
                    let pods: Vec<String> = c.pods.iter().map(ToString::to_string).collect();
                    writeln!(
                        out,
                        "      {} claim {} is ReadWriteOncePod and used by {}",
                        mark(color, false),
                        c.claim,
                        pods.join(", ")
                    )?;
                }
            }
            _ => {}
        }
    }
    Ok(())
}

fn claim_lines(out: &mut dyn Write, c: &ClaimCheck, color: bool) -> std::io::Result<()> {
    match c {
        ClaimCheck::Bound {
            claim,
            volume,
            affinity,
            matched,
        } => {
            writeln!(
                out,
                "      {} claim {claim} is bound to {volume}{}",
                mark(color, *matched),
                if affinity.is_none() {
                    " (no node affinity)"
                } else {
                    ""
                }
            )?;
            if let Some(a) = affinity {
                affinity_lines(out, a, color)?;
            }
        }
        ClaimCheck::VolumeMissing { claim, volume } => writeln!(
            out,
            "      {} claim {claim} is bound to {volume}, which does not exist",
            mark(color, false)
        )?,
        ClaimCheck::SelectedNode { claim, node } => writeln!(
            out,
            "      {} claim {claim} is being provisioned for node {node}",
            mark(color, false)
        )?,
        ClaimCheck::Matched { claim, volume } => writeln!(
            out,
            "      {} claim {claim} would bind the available volume {volume}",
            mark(color, true)
        )?,
        ClaimCheck::Provision {
            claim,
            class,
            provisioner,
            unprovisionable,
            topology_allowed,
        } => {
            let why = if *unprovisionable {
                format!("no available volume fits, and class {class} provisions none")
            } else if *topology_allowed {
                format!("would be provisioned by {provisioner} (class {class})")
            } else {
                format!(
                    "no available volume fits, and class {class}'s allowedTopologies exclude the node"
                )
            };
            writeln!(
                out,
                "      {} claim {claim}: {why}",
                mark(color, *topology_allowed)
            )?;
        }
    }
    Ok(())
}

/// The volume's required node affinity, term by term, with the node's values.
fn affinity_lines(out: &mut dyn Write, a: &SelectorCheck, color: bool) -> std::io::Result<()> {
    for (i, t) in a.terms.iter().enumerate() {
        writeln!(out, "        term {}: {}", i + 1, mark(color, t.matched))?;
        for r in t.match_expressions.iter().chain(&t.match_fields) {
            writeln!(
                out,
                "          {} {} {} [{}]; {}",
                mark(color, r.matched),
                r.written.key,
                r.written.operator,
                r.written.values.join(", "),
                node_has(&r.written.key, r.node_value.as_deref())
            )?;
        }
    }
    Ok(())
}
