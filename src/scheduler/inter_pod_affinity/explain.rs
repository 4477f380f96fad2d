//! InterPodAffinity's explanation: the POD-AFF and ANTI columns, every required term with its
//! domain and matching pods in the drill-down (the term tables give their selectors and
//! pods), the pods that block the node as the change, and what makes most nodes reject the
//! pod.

use std::collections::BTreeSet;
use std::fmt;

use super::{
    Cause, Change, FilterDetails, REASON_AFFINITY, REASON_ANTI_AFFINITY,
    REASON_EXISTING_ANTI_AFFINITY, TermKind, TermTable, TermTables,
};
use crate::scheduler::details::{
    Cause as AnyCause, Change as AnyChange, FilterDetails as AnyFilter, ScoreDetails,
};
use crate::scheduler::explain::{
    Column, Explain, Mark, NodeEntries, Paint, Peers, Tables, few, node_has, short_domain,
    short_key,
};
use crate::scheduler::plugin_id::PluginId;
use crate::scheduler::result::{FilterResult, ScoreResult};
use crate::state::Pod;

#[derive(Debug)]
pub struct Explainer;

impl Explain for Explainer {
    fn columns(&self) -> &'static [Column] {
        &[Column::PodAffinity, Column::AntiAffinity]
    }

    fn cell(&self, column: Column, node: NodeEntries<'_>, tables: Tables<'_>) -> Option<Mark> {
        let f = node.filter(&PluginId::InterPodAffinity)?;
        if f.pass.is_none() {
            return Some(Mark::Unknown);
        }
        if f.skipped {
            return Some(Mark::Passes(Some("-".into())));
        }
        let Some(AnyFilter::InterPodAffinity(d)) = f.details else {
            return Some(Mark::Fails("✗".into()));
        };
        Some(if column == Column::PodAffinity {
            affinity_cell(d)
        } else {
            anti_affinity_cell(d, tables.pod_terms)
        })
    }

    fn short_name(&self) -> Option<&'static str> {
        Some("podaff")
    }

    fn filter_lines(&self, f: FilterResult<'_>, tables: Tables<'_>, p: &dyn Paint) -> Vec<String> {
        let Some(AnyFilter::InterPodAffinity(d)) = f.details else {
            return Vec::new();
        };
        let terms = tables.pod_terms;
        let mut out = Vec::new();
        for t in &d.affinity {
            let tt = term_table(terms, TermKind::RequiredAffinity, t.index);
            out.push(format!(
                "      {} affinity term {} ({}) topologyKey {}: domain {}, {} matching pod(s){}",
                p.mark(Some(t.satisfied)),
                t.index,
                tt.map(|x| x.selector.as_str()).unwrap_or(""),
                t.topology_key,
                t.domain.as_deref().unwrap_or("<node lacks the key>"),
                t.matching_pods,
                pods_in(tt, t.domain.as_deref())
            ));
        }
        if let Some(x) = d.first_pod_exception {
            out.push(format!(
                "      first-pod-of-a-group exception: {}",
                if x {
                    "applies (no pod anywhere matches, the pod matches its own terms)"
                } else {
                    "does not apply"
                }
            ));
        }
        for t in &d.anti_affinity {
            let tt = term_table(terms, TermKind::RequiredAntiAffinity, t.index);
            out.push(format!(
                "      {} anti-affinity term {} ({}) topologyKey {}: domain {}, {} matching pod(s){}",
                p.mark(Some(t.satisfied)),
                t.index,
                tt.map(|x| x.selector.as_str()).unwrap_or(""),
                t.topology_key,
                t.domain
                    .as_deref()
                    .unwrap_or("<node lacks the key: term ignored>"),
                t.matching_pods,
                pods_in(tt, t.domain.as_deref())
            ));
        }
        if let Some(pt) = terms {
            for h in d
                .existing_anti_affinity
                .iter()
                .filter_map(|&i| pt.existing_anti_affinity.get(i))
            {
                out.push(format!(
                    "      {} existing pod {} (on {}) anti-affinity term {} topologyKey {}={} rejects this pod",
                    p.bad("✗"),
                    h.pod,
                    h.node,
                    h.index,
                    h.topology_key,
                    h.domain.as_deref().unwrap_or_default()
                ));
            }
        }
        out
    }

    fn score_lines(&self, s: ScoreResult<'_>, _: Tables<'_>, _: &dyn Paint) -> Vec<String> {
        let Some(ScoreDetails::InterPodAffinity(d)) = s.details else {
            return Vec::new();
        };
        d.contributions
            .iter()
            .map(|c| {
                format!(
                    "      {:+} from {} ({} pod(s) in {}={})",
                    c.score, c.source, c.pods, c.topology_key, c.domain
                )
            })
            .collect()
    }

    fn suggestions(
        &self,
        f: FilterResult<'_>,
        _: &Pod,
        tables: Tables<'_>,
        _: &Peers<'_>,
    ) -> Vec<AnyChange> {
        let Some(AnyFilter::InterPodAffinity(d)) = f.details else {
            return Vec::new();
        };
        let mut out: Vec<AnyChange> = Vec::new();
        let mut pods: Vec<String> = Vec::new();
        if let Some(tables) = tables.pod_terms {
            for t in d.anti_affinity.iter().filter(|t| !t.satisfied) {
                let table = term_table(Some(tables), TermKind::RequiredAntiAffinity, t.index);
                let list = t
                    .domain
                    .as_deref()
                    .and_then(|dom| table.and_then(|x| x.domains.get(dom)));
                pods.extend(
                    list.into_iter()
                        .flat_map(|l| l.iter().map(|p| p.to_string())),
                );
            }
            pods.extend(
                d.existing_anti_affinity
                    .iter()
                    .filter_map(|&i| tables.existing_anti_affinity.get(i))
                    .map(|h| h.pod.to_string()),
            );
        }
        pods.sort();
        pods.dedup();
        if !pods.is_empty() {
            out.push(Change::BlockingPods { pods }.into());
        }
        for t in d.affinity.iter().filter(|t| !t.satisfied) {
            out.push(
                Change::NoAffinityPod {
                    topology_key: t.topology_key.clone(),
                    domain: t.domain.clone(),
                }
                .into(),
            );
        }
        out
    }

    /// The pods behind the rejection, by the reason every node of the group reports (the
    /// pod's affinity, its anti-affinity, then existing pods' anti-affinity, in the order of
    /// upstream's `interpodaffinity/filtering.go` Filter).
    fn cause(&self, all: &[&AnyFilter], reason: &str, tables: Tables<'_>) -> Option<AnyCause> {
        let terms = tables.pod_terms?;
        let ipa: Vec<&FilterDetails> = all
            .iter()
            .filter_map(|d| match d {
                AnyFilter::InterPodAffinity(d) => Some(d.as_ref()),
                _ => None,
            })
            .collect();
        let first = ipa.first()?;
        let cause = match reason {
            REASON_AFFINITY => {
                let t = first.affinity.iter().find(|t| !t.satisfied)?;
                Cause::NoAffinityPod {
                    topology_key: t.topology_key.to_string(),
                }
            }
            REASON_ANTI_AFFINITY => {
                let term = first.anti_affinity.iter().find(|t| !t.satisfied)?;
                let table = term_table(Some(terms), TermKind::RequiredAntiAffinity, term.index)?;
                let mut pods = BTreeSet::new();
                for t in ipa.iter().flat_map(|d| &d.anti_affinity) {
                    let in_domain = t.domain.as_deref().and_then(|v| table.domains.get(v));
                    if t.index == term.index
                        && !t.satisfied
                        && let Some(list) = in_domain
                    {
                        pods.extend(list.iter().map(|p| p.to_string()));
                    }
                }
                Cause::AntiAffinityPods {
                    topology_key: term.topology_key.to_string(),
                    pods: pods.into_iter().collect(),
                }
            }
            REASON_EXISTING_ANTI_AFFINITY => {
                let pods: BTreeSet<String> = ipa
                    .iter()
                    .flat_map(|d| &d.existing_anti_affinity)
                    .filter_map(|&i| terms.existing_anti_affinity.get(i))
                    .map(|h| h.pod.to_string())
                    .collect();
                Cause::RepelledBy {
                    pods: pods.into_iter().collect(),
                }
            }
            _ => return None,
        };
        Some(cause.into())
    }

    fn broken(&self, d: &AnyFilter) -> String {
        let AnyFilter::InterPodAffinity(d) = d else {
            return String::new();
        };
        let unmet: Vec<String> = d
            .affinity
            .iter()
            .filter(|t| !t.satisfied)
            .map(|t| {
                format!(
                    "requiredAffinity[{}]: no matching pod in {}={}",
                    t.index,
                    t.topology_key,
                    t.domain.as_deref().unwrap_or("(node has no such label)")
                )
            })
            .collect();
        unmet.join("; ")
    }
}

/// POD-AFF: "✗ none in zone=a" when no matching pod runs in the node's domain.
fn affinity_cell(d: &FilterDetails) -> Mark {
    if d.affinity.is_empty() {
        Mark::Passes(Some("-".into()))
    } else if let Some(t) = d.affinity.iter().find(|t| t.domain.is_none()) {
        Mark::Fails(format!("✗ {}", node_has(short_key(&t.topology_key), None)))
    } else if d.first_pod_exception == Some(true) {
        Mark::Passes(Some("✓ first of its group".into()))
    } else if let Some(t) = d.affinity.iter().find(|t| !t.satisfied) {
        Mark::Fails(format!(
            "✗ none {}",
            short_domain(&t.topology_key, t.domain.as_deref())
        ))
    } else {
        Mark::Passes(None)
    }
}

/// ANTI: "✗ 1 pod here" for the pod's own anti-affinity, "✗ web-0 repels it" for an existing
/// pod's.
fn anti_affinity_cell(d: &FilterDetails, terms: Option<&TermTables>) -> Mark {
    if let Some(t) = d.anti_affinity.iter().find(|t| !t.satisfied) {
        Mark::Fails(format!(
            "✗ {} {}",
            match t.matching_pods {
                1 => "1 pod".to_string(),
                n => format!("{n} pods"),
            },
            short_domain(&t.topology_key, t.domain.as_deref())
        ))
    } else if let Some(&i) = d.existing_anti_affinity.first() {
        Mark::Fails(match terms.and_then(|p| p.existing_anti_affinity.get(i)) {
            Some(h) => format!("✗ {} repels it", h.pod.name),
            None => "✗ existing pod repels it".to_string(),
        })
    } else {
        Mark::Passes(None)
    }
}

fn term_table(terms: Option<&TermTables>, kind: TermKind, index: usize) -> Option<&TermTable> {
    terms?
        .terms
        .iter()
        .find(|t| t.kind == kind && t.index == index)
}

/// ": ns/a, ns/b and 3 more": the term's matching pods in the node's domain.
fn pods_in(t: Option<&TermTable>, domain: Option<&str>) -> String {
    let pods = t.zip(domain).and_then(|(t, d)| t.domains.get(d));
    match pods {
        Some(list) if !list.is_empty() => {
            let names: Vec<String> = list.iter().take(5).map(|p| p.to_string()).collect();
            let more = if list.len() > 5 {
                format!(" and {} more", list.len() - 5)
            } else {
                String::new()
            };
            format!(": {}{more}", names.join(", "))
        }
        _ => String::new(),
    }
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Change::BlockingPods { pods } => write!(f, "blocked by {}", pods.join(", ")),
            Change::NoAffinityPod {
                topology_key,
                domain,
            } => match domain {
                Some(d) => write!(f, "no matching pod in {topology_key}={d}"),
                None => write!(f, "the node has no {topology_key} label"),
            },
        }
    }
}

impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cause::AntiAffinityPods { topology_key, pods } => {
                let place = if topology_key == "kubernetes.io/hostname" {
                    "on them".to_string()
                } else {
                    format!("in their {topology_key} domains")
                };
                write!(
                    f,
                    "the pod's required anti-affinity matches pods already {place}: {}",
                    few(pods)
                )
            }
            Cause::RepelledBy { pods } => write!(
                f,
                "the required anti-affinity of pods already there matches this pod: {}",
                few(pods)
            ),
            Cause::NoAffinityPod { topology_key } => write!(
                f,
                "no pod its required affinity matches runs in their {topology_key} domain"
            ),
        }
    }
}
