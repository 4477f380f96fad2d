//! VolumeBinding's explanation: each claim of the pod and what was checked of it on the node
//! (its volume's node affinity against the node's labels, a static volume found, the class
//! that would provision it), in the drill-down's volumes.

use super::ClaimCheck;
use crate::scheduler::details::FilterDetails;
use crate::scheduler::explain::{Explain, Paint, Section, Tables, node_has};
use crate::scheduler::result::FilterResult;
use crate::state::selector::SelectorCheck;

#[derive(Debug)]
pub struct Explainer;

impl Explain for Explainer {
    fn short_name(&self) -> Option<&'static str> {
        Some("volume")
    }

    fn section(&self) -> Section {
        Section::Volumes
    }

    fn filter_lines(&self, f: FilterResult<'_>, _: Tables<'_>, p: &dyn Paint) -> Vec<String> {
        match f.details {
            Some(FilterDetails::VolumeBinding(d)) if !d.claims.is_empty() => {
                let mut out = vec![format!("    {}", f.plugin)];
                for c in &d.claims {
                    claim_lines(&mut out, c, p);
                }
                out
            }
            _ => Vec::new(),
        }
    }
}

fn claim_lines(out: &mut Vec<String>, c: &ClaimCheck, p: &dyn Paint) {
    match c {
        ClaimCheck::Bound {
            claim,
            volume,
            affinity,
            matched,
        } => {
            out.push(format!(
                "      {} claim {claim} is bound to {volume}{}",
                p.check(*matched),
                if affinity.is_none() {
                    " (no node affinity)"
                } else {
                    ""
                }
            ));
            if let Some(a) = affinity {
                affinity_lines(out, a, p);
            }
        }
        ClaimCheck::VolumeMissing { claim, volume } => out.push(format!(
            "      {} claim {claim} is bound to {volume}, which does not exist",
            p.check(false)
        )),
        ClaimCheck::SelectedNode { claim, node } => out.push(format!(
            "      {} claim {claim} is being provisioned for node {node}",
            p.check(false)
        )),
        ClaimCheck::Matched { claim, volume } => out.push(format!(
            "      {} claim {claim} would bind the available volume {volume}",
            p.check(true)
        )),
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
            out.push(format!(
                "      {} claim {claim}: {why}",
                p.check(*topology_allowed)
            ));
        }
    }
}

/// The volume's required node affinity, term by term, with the node's values.
fn affinity_lines(out: &mut Vec<String>, a: &SelectorCheck, p: &dyn Paint) {
    for (i, t) in a.terms.iter().enumerate() {
        out.push(format!("        term {}: {}", i + 1, p.check(t.matched)));
        for r in t.match_expressions.iter().chain(&t.match_fields) {
            out.push(format!(
                "          {} {} {} [{}]; {}",
                p.check(r.matched),
                r.written.key,
                r.written.operator,
                r.written.values.join(", "),
                node_has(&r.written.key, r.node_value.as_deref())
            ));
        }
    }
}
