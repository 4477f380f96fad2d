//! VolumeZone's explanation: the volumes' zone labels against the node's, in the
//! drill-down's volumes.

use std::fmt;

use super::Change;
use crate::scheduler::details::{Change as AnyChange, FilterDetails};
use crate::scheduler::explain::{Explain, Paint, Peers, Section, Tables, node_has};
use crate::scheduler::result::FilterResult;
use crate::state::Pod;

#[derive(Debug)]
pub struct Explainer;

impl Explain for Explainer {
    fn section(&self) -> Section {
        Section::Volumes
    }

    fn filter_lines(&self, f: FilterResult<'_>, _: Tables<'_>, p: &dyn Paint) -> Vec<String> {
        let d = match f.details {
            Some(FilterDetails::VolumeZone(d)) if !d.checks.is_empty() => d,
            _ => return Vec::new(),
        };
        let mut out = vec![format!("    {}", f.plugin)];
        if d.node_unzoned {
            out.push("      the node has no zone or region label: any volume zone fits".into());
        }
        for c in &d.checks {
            out.push(format!(
                "      {} volume {} (claim {}) {} in [{}]; {}",
                p.check(c.matched || d.node_unzoned),
                c.topology.volume,
                c.topology.claim,
                c.topology.key,
                c.topology.values.join(", "),
                node_has(c.topology.key, c.node_value.as_deref())
            ));
        }
        out
    }

    /// Per volume in another zone: its claim, its zone label, and the nodes in that zone.
    fn suggestions(
        &self,
        f: FilterResult<'_>,
        _: &Pod,
        _: Tables<'_>,
        peers: &Peers<'_>,
    ) -> Vec<AnyChange> {
        let Some(FilterDetails::VolumeZone(d)) = f.details else {
            return Vec::new();
        };
        if d.node_unzoned {
            return Vec::new();
        }
        d.checks
            .iter()
            .filter(|c| !c.matched)
            .map(|c| {
                let t = &c.topology;
                let fits_on =
                    peers.few_once(&format!("{}/{}/{}", f.plugin, t.volume, t.key), || {
                        peers
                            .filters(f.plugin)
                            .filter(|(_, f)| match f.details {
                                Some(FilterDetails::VolumeZone(d)) => {
                                    d.node_unzoned
                                        || d.checks.iter().any(|x| {
                                            x.matched
                                                && x.topology.volume == t.volume
                                                && x.topology.key == t.key
                                        })
                                }
                                _ => false,
                            })
                            .map(|(name, _)| name.to_string())
                            .collect()
                    });
                Change::VolumeZone {
                    claim: t.claim.clone(),
                    volume: t.volume.clone(),
                    key: t.key,
                    values: t.values.clone(),
                    fits_on,
                }
                .into()
            })
            .collect()
    }
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Change::VolumeZone {
                claim,
                volume,
                key,
                values,
                fits_on,
            } => {
                write!(
                    f,
                    "claim {claim} is bound to volume {volume} in {key} [{}]",
                    values.join(", ")
                )?;
                if fits_on.count == 0 {
                    write!(f, "; no node is there")
                } else {
                    write!(f, "; nodes there: {fits_on}")
                }
            }
        }
    }
}
