//! VolumeBinding's explanation: each claim of the pod and what was checked of it on the node
//! (its volume's node affinity against the node's labels, a static volume found, the class
//! that would provision it), in the drill-down's volumes.

use std::fmt;

use super::{Change, ClaimCheck};
use crate::scheduler::details::{Change as AnyChange, FilterDetails};
use crate::scheduler::explain::{Explain, Paint, Peers, Section, Tables, node_has, requirement};
use crate::scheduler::result::FilterResult;
use crate::state::Pod;
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

    /// Per failing claim: its volume and where that volume can be used, or why none can be
    /// had here.
    fn suggestions(
        &self,
        f: FilterResult<'_>,
        _: &Pod,
        _: Tables<'_>,
        peers: &Peers<'_>,
    ) -> Vec<AnyChange> {
        let Some(FilterDetails::VolumeBinding(d)) = f.details else {
            return Vec::new();
        };
        // The nodes where this claim's check passes.
        let fits_on = |claim: &str| {
            peers.few_once(&format!("{}/{claim}", f.plugin), || {
                peers
                    .filters(f.plugin)
                    .filter(|(_, f)| match f.details {
                        Some(FilterDetails::VolumeBinding(d)) => {
                            d.claims.iter().any(|c| claim_of(c) == claim && passes(c))
                        }
                        _ => false,
                    })
                    .map(|(name, _)| name.to_string())
                    .collect()
            })
        };
        let mut out: Vec<AnyChange> = Vec::new();
        for c in d.claims.iter().filter(|c| !passes(c)) {
            let change = match c {
                ClaimCheck::Bound {
                    claim,
                    volume,
                    affinity,
                    ..
                } => Change::VolumeAffinity {
                    claim: claim.clone(),
                    volume: volume.clone(),
                    node_affinity: affinity.as_ref().map(written).unwrap_or_default(),
                    fits_on: fits_on(claim),
                },
                ClaimCheck::VolumeMissing { claim, volume } => Change::VolumeMissing {
                    claim: claim.clone(),
                    volume: volume.clone(),
                },
                ClaimCheck::SelectedNode { claim, node } => Change::SelectedNode {
                    claim: claim.clone(),
                    node: node.clone(),
                },
                ClaimCheck::Provision {
                    claim,
                    class,
                    unprovisionable,
                    ..
                } => Change::NoVolume {
                    claim: claim.clone(),
                    storage_class: class.clone(),
                    unprovisionable: *unprovisionable,
                    fits_on: fits_on(claim),
                },
                ClaimCheck::Matched { .. } => continue,
            };
            out.push(change.into());
        }
        out
    }
}

fn claim_of(c: &ClaimCheck) -> &str {
    match c {
        ClaimCheck::Bound { claim, .. }
        | ClaimCheck::VolumeMissing { claim, .. }
        | ClaimCheck::SelectedNode { claim, .. }
        | ClaimCheck::Matched { claim, .. }
        | ClaimCheck::Provision { claim, .. } => claim,
    }
}

/// Whether the claim can be had on the node, as its check mark says.
fn passes(c: &ClaimCheck) -> bool {
    match c {
        ClaimCheck::Bound { matched, .. } => *matched,
        ClaimCheck::VolumeMissing { .. } | ClaimCheck::SelectedNode { .. } => false,
        ClaimCheck::Matched { .. } => true,
        ClaimCheck::Provision {
            topology_allowed, ..
        } => *topology_allowed,
    }
}

/// A volume's node affinity as written: `zone In [a] or host In [n1]`.
fn written(a: &SelectorCheck) -> String {
    let terms: Vec<String> = a
        .terms
        .iter()
        .map(|t| {
            let reqs: Vec<String> = t
                .match_expressions
                .iter()
                .chain(&t.match_fields)
                .map(requirement)
                .collect();
            reqs.join(", ")
        })
        .collect();
    terms.join(" or ")
}

/// Where a change names other nodes: "on a, b and 3 more", or that none can.
fn nodes_that(f: &mut fmt::Formatter<'_>, fits_on: &crate::scheduler::explain::Few) -> fmt::Result {
    if fits_on.count == 0 {
        write!(f, "; no node can")
    } else {
        write!(f, "; nodes that can: {fits_on}")
    }
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Change::VolumeAffinity {
                claim,
                volume,
                node_affinity,
                fits_on,
            } => {
                write!(
                    f,
                    "claim {claim} is bound to volume {volume}, usable only on nodes with {node_affinity}"
                )?;
                nodes_that(f, fits_on)
            }
            Change::VolumeMissing { claim, volume } => write!(
                f,
                "claim {claim} is bound to volume {volume}, which does not exist: restore the volume, or delete and recreate the claim"
            ),
            Change::SelectedNode { claim, node } => write!(
                f,
                "claim {claim} is being provisioned for node {node}: only that node can take the pod"
            ),
            Change::NoVolume {
                claim,
                storage_class,
                unprovisionable,
                fits_on,
            } => {
                if *unprovisionable {
                    write!(
                        f,
                        "claim {claim}: no available volume matches it here, and class {storage_class} provisions none: create a matching PersistentVolume"
                    )?;
                } else {
                    write!(
                        f,
                        "claim {claim}: no available volume matches it here, and class {storage_class}'s allowedTopologies exclude the node"
                    )?;
                }
                nodes_that(f, fits_on)
            }
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
