//! PodTopologySpread's explanation: the SPREAD column, each constraint's arithmetic in the
//! drill-down (the spread tables give their sources and domains), the skew as the change,
//! and the constraint most nodes fail.

use std::collections::BTreeSet;
use std::fmt;

use super::{
    Cause, Change, ConstraintOnNode, ConstraintSource, ConstraintTable, FilterDetails, HeldBy,
    LABEL_HOSTNAME, MinDomains, ScoreDetails, SpreadTables,
};
use crate::scheduler::details::{
    Cause as AnyCause, Change as AnyChange, FilterDetails as AnyFilter, ScoreDetails as AnyScore,
};
use crate::scheduler::explain::{
    Column, Explain, Mark, NodeEntries, Paint, Peers, Section, Tables, node_has, short_key,
};
use crate::scheduler::plugin_id::PluginId;
use crate::scheduler::result::{FilterResult, ScoreResult};
use crate::state::Pod;

#[derive(Debug)]
pub struct Explainer;

impl Explain for Explainer {
    fn columns(&self) -> &'static [Column] {
        &[Column::Spread]
    }

    /// Hard (DoNotSchedule) constraints: the worst skew on the node ("✗ skew 2>1 in
    /// zone=eu-west-1a", "✓ skew 1≤1"). Only soft ones (the pod's ScheduleAnyway constraints,
    /// or the default constraints): the matching pods in the node's domain, without a mark,
    /// since they move the score and never reject ("soft: 1 here", "soft: 2 in zone"). "-"
    /// when the plugin has nothing to say for the pod on this node.
    fn cell(&self, _: Column, node: NodeEntries<'_>, _: Tables<'_>) -> Option<Mark> {
        let filter = node.filter(&PluginId::PodTopologySpread);
        let score = node.score(&PluginId::PodTopologySpread);
        if let Some(f) = &filter {
            match (f.pass, f.details) {
                (None, _) => return Some(Mark::Unknown),
                (Some(pass), Some(AnyFilter::PodTopologySpread(d))) => {
                    return Some(hard_cell(pass, d).unwrap_or(if pass {
                        Mark::Passes(None)
                    } else {
                        Mark::Fails("✗".into())
                    }));
                }
                (Some(false), _) => return Some(Mark::Fails("✗".into())),
                (Some(true), _) if !f.skipped => return Some(Mark::Passes(None)),
                (Some(true), _) => {}
            }
        }
        let nothing = || Mark::Passes(Some("-".into()));
        Some(match score {
            Some(s) if !s.evaluated() => Mark::Unknown,
            Some(s) if s.skipped => nothing(),
            Some(s) => match s.details {
                Some(AnyScore::PodTopologySpread(d)) => soft_cell(d),
                _ => nothing(),
            },
            None if filter.is_some() => nothing(),
            None => return None,
        })
    }

    fn short_name(&self) -> Option<&'static str> {
        Some("spread")
    }

    fn section(&self) -> Section {
        Section::TopologySpread
    }

    /// Each hard constraint's arithmetic on the node.
    fn filter_lines(&self, f: FilterResult<'_>, tables: Tables<'_>, p: &dyn Paint) -> Vec<String> {
        let Some(AnyFilter::PodTopologySpread(d)) = f.details else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for c in &d.constraints {
            let t = table(tables.topology_spread, c.constraint);
            let head = format!(
                "    {} DoNotSchedule {} topologyKey {}",
                p.mark(Some(c.satisfied)),
                source_note(t),
                c.topology_key
            );
            let Some(domain) = &c.domain else {
                out.push(format!(
                    "{head}: the node lacks the label (missing required label)"
                ));
                continue;
            };
            out.push(format!(
                "{head}: domain {domain}: {} matching pod(s) + {} (this pod) - global min {} = skew {} {} maxSkew {}",
                c.matching_pods,
                u8::from(c.self_match),
                c.global_min,
                c.skew.unwrap_or_default(),
                if c.satisfied { "<=" } else { ">" },
                c.max_skew
            ));
            if c.min_domains_forced_zero {
                out.push(format!(
                    "        {} eligible domain(s) < minDomains {}: the global minimum counts as 0",
                    c.domains, c.min_domains
                ));
            }
            if !c.node_counted {
                out.push(
                    "        this node's pods are not counted (it lacks a hard key or fails nodeAffinityPolicy/nodeTaintsPolicy)".to_string(),
                );
            }
            if let Some(t) = t {
                out.push(format!("        domains: {}", domains(t)));
            }
        }
        out
    }

    /// Each soft constraint's part of the node's score.
    fn score_lines(&self, s: ScoreResult<'_>, tables: Tables<'_>, _: &dyn Paint) -> Vec<String> {
        let Some(AnyScore::PodTopologySpread(d)) = s.details else {
            return Vec::new();
        };
        if d.ignored {
            return vec![
                "    ScheduleAnyway: the node lacks a topology key, so it scores 0 and is left out of normalization".to_string(),
            ];
        }
        let mut out = Vec::new();
        for c in &d.constraints {
            let t = table(tables.topology_spread, c.constraint);
            out.push(match &c.domain {
                Some(domain) => format!(
                    "    ScheduleAnyway {} topologyKey {}: domain {domain}: {} matching pod(s) x weight {:.3} + (maxSkew {} - 1) = {:.3}",
                    source_note(t),
                    c.topology_key,
                    c.matching_pods,
                    c.weight,
                    c.max_skew,
                    c.value
                ),
                None => format!(
                    "    ScheduleAnyway {} topologyKey {}: the node lacks the label, adds nothing",
                    source_note(t),
                    c.topology_key
                ),
            });
        }
        out.push(
            "    fewer matching pods score higher: normalized = 100 x (max + min - raw) / max over the candidates".to_string(),
        );
        out
    }

    fn suggestions(
        &self,
        f: FilterResult<'_>,
        _: &Pod,
        tables: Tables<'_>,
        peers: &Peers<'_>,
    ) -> Vec<AnyChange> {
        let Some(AnyFilter::PodTopologySpread(d)) = f.details else {
            return Vec::new();
        };
        d.constraints
            .iter()
            .filter(|c| !c.satisfied)
            .map(|c| {
                let below_min_domains = c.min_domains_forced_zero.then_some(MinDomains {
                    domains: c.domains,
                    min_domains: c.min_domains,
                });
                let held_by = match (c.skew, table(tables.topology_spread, c.constraint)) {
                    (Some(_), Some(t)) if !c.min_domains_forced_zero => {
                        held_by(c, t, f.plugin, peers)
                    }
                    _ => None,
                };
                Change::Skew {
                    topology_key: c.topology_key.clone(),
                    domain: c.domain.clone(),
                    skew: c.skew,
                    max_skew: c.max_skew,
                    below_min_domains,
                    held_by,
                }
                .into()
            })
            .collect()
    }

    /// The constraint, when every node fails the same one first in a domain of its own.
    fn cause(&self, all: &[&AnyFilter], _: &str, _: Tables<'_>) -> Option<AnyCause> {
        let AnyFilter::PodTopologySpread(first) = all.first()? else {
            return None;
        };
        let c = first.constraints.iter().find(|c| !c.satisfied)?;
        all.iter()
            .all(|d| match d {
                AnyFilter::PodTopologySpread(d) => d
                    .constraints
                    .iter()
                    .find(|x| !x.satisfied)
                    .is_some_and(|x| x.constraint == c.constraint && x.domain.is_some()),
                _ => false,
            })
            .then(|| {
                Cause::Skew {
                    topology_key: c.topology_key.clone(),
                    max_skew: c.max_skew,
                }
                .into()
            })
    }
}

/// The domains at the constraint's global minimum, when no node in any of them takes the pod
/// (each refused by another Filter): worked out once per constraint over every node.
fn held_by(
    c: &ConstraintOnNode,
    t: &ConstraintTable,
    plugin: &PluginId,
    peers: &Peers<'_>,
) -> Option<HeldBy> {
    let at_min: BTreeSet<&str> = t
        .domains
        .iter()
        .filter(|&(_, &n)| n == c.global_min)
        .map(|(d, _)| d.as_str())
        .collect();
    // Per domain at the minimum: whether a node takes the pod but for spreading, and the
    // plugins that refuse it on the others.
    let scan = || {
        let mut open = BTreeSet::new();
        let mut refused_by = BTreeSet::new();
        for (_, filters) in peers.nodes() {
            let Some(domain) = filters
                .iter()
                .find(|f| f.plugin == plugin)
                .and_then(|f| match f.details {
                    Some(AnyFilter::PodTopologySpread(d)) => d
                        .constraints
                        .iter()
                        .find(|x| x.constraint == c.constraint)?
                        .domain
                        .as_deref(),
                    _ => None,
                })
                .filter(|d| at_min.contains(d))
            else {
                continue;
            };
            match filters
                .iter()
                .filter(|f| f.plugin != plugin)
                .find(|f| f.pass == Some(false))
            {
                // Not refused, or not known to be: never said to hold the minimum.
                None => {
                    open.insert(domain);
                }
                Some(f) => {
                    refused_by.insert(f.plugin.to_string());
                }
            }
        }
        let held: Vec<String> = at_min
            .iter()
            .filter(|d| !open.contains(*d))
            .map(|d| d.to_string())
            .collect();
        (held, refused_by.into_iter().collect::<Vec<String>>())
    };
    let key = format!("{plugin}/{}", c.constraint);
    let domains = peers.few_once(&format!("{key}/held"), || scan().0);
    if domains.count == 0 || domains.count < at_min.len() {
        return None;
    }
    let refused_by = peers.few_once(&format!("{key}/refused"), || scan().1);
    Some(HeldBy {
        global_min: c.global_min,
        domains,
        refused_by: refused_by.names,
        node_taints_policy: t.node_taints_policy,
        node_affinity_policy: t.node_affinity_policy,
    })
}

fn table(t: Option<&SpreadTables>, i: usize) -> Option<&ConstraintTable> {
    t?.constraints.get(i)
}

/// A topology domain in a cell: "here" when the key is the hostname, else
/// "in zone=eu-west-1a" (the node's own domain, as the inter-pod affinity cells say it).
fn domain_words(key: &str, domain: &str) -> String {
    if key == LABEL_HOSTNAME {
        "here".to_string()
    } else {
        format!("in {}={domain}", short_key(key))
    }
}

fn hard_cell(pass: bool, d: &FilterDetails) -> Option<Mark> {
    if let Some(c) = d.constraints.iter().find(|c| !c.satisfied) {
        return Some(Mark::Fails(match (&c.domain, c.skew) {
            (Some(domain), Some(skew)) => format!(
                "✗ skew {skew}>{} {}",
                c.max_skew,
                domain_words(&c.topology_key, domain)
            ),
            _ => format!("✗ {}", node_has(short_key(&c.topology_key), None)),
        }));
    }
    let worst = d
        .constraints
        .iter()
        .filter_map(|c| c.skew.map(|s| (s, c.max_skew)))
        .max_by_key(|&(s, max)| (s - i64::from(max), s))?;
    pass.then(|| Mark::Passes(Some(format!("✓ skew {}≤{}", worst.0, worst.1))))
}

/// The first soft constraint only: the table has little room, and the drill-down shows each.
fn soft_cell(d: &ScoreDetails) -> Mark {
    if d.ignored {
        return Mark::Passes(Some("soft: scores 0".into()));
    }
    let Some(c) = d.constraints.first() else {
        return Mark::Passes(Some("-".into()));
    };
    Mark::Passes(Some(match &c.domain {
        // The domain's value is the drill-down's: the cell stays narrow.
        Some(_) if c.topology_key == LABEL_HOSTNAME => format!("soft: {} here", c.matching_pods),
        Some(_) => format!(
            "soft: {} in {}",
            c.matching_pods,
            short_key(&c.topology_key)
        ),
        None => format!("soft: {}", node_has(short_key(&c.topology_key), None)),
    }))
}

fn source_note(t: Option<&ConstraintTable>) -> String {
    match t.map(|t| (t.source, t.index, t.selector.as_str())) {
        Some((ConstraintSource::Pod, i, sel)) => format!("constraint [{i}] ({sel})"),
        Some((ConstraintSource::SystemDefault, i, sel)) => {
            format!("system default [{i}] ({sel})")
        }
        Some((ConstraintSource::ListDefault, i, sel)) => format!("default [{i}] ({sel})"),
        None => "constraint".to_string(),
    }
}

/// "z1=2, z2=0 and 3 more": a constraint's domains and their counts, the first twelve.
fn domains(t: &ConstraintTable) -> String {
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
    if domains.is_empty() {
        format!("none{more}")
    } else {
        format!("{}{more}", domains.join(", "))
    }
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Change::Skew {
                topology_key,
                domain,
                skew,
                max_skew,
                below_min_domains,
                held_by,
            } => {
                match (domain, skew) {
                    (Some(d), Some(k)) => write!(
                        f,
                        "placing it in {topology_key}={d} makes the skew {k}, above maxSkew {max_skew}"
                    )?,
                    _ => return write!(f, "the node has no {topology_key} label"),
                }
                if let Some(m) = below_min_domains {
                    write!(
                        f,
                        "; {} domain(s), fewer than minDomains {}: the global minimum counts as 0 until pods can go to more domains",
                        m.domains, m.min_domains
                    )?;
                }
                if let Some(h) = held_by {
                    held_words(f, topology_key, h)?;
                }
                Ok(())
            }
        }
    }
}

/// Why the global minimum stays where it is, and the rule that would let it move.
fn held_words(f: &mut fmt::Formatter<'_>, key: &str, h: &HeldBy) -> fmt::Result {
    write!(
        f,
        "; the global minimum {} is held by {key}={}, where every node refuses the pod ({}), so that domain counts though the pod cannot go there",
        h.global_min,
        h.domains,
        h.refused_by.join(", ")
    )?;
    let refused = |p: PluginId| h.refused_by.iter().any(|r| *r == p.to_string());
    let mut ways = Vec::new();
    if refused(PluginId::TaintToleration) && h.node_taints_policy == "Ignore" {
        ways.push("nodeTaintsPolicy: Honor (tainted nodes then count in no domain)");
    }
    if refused(PluginId::NodeAffinity) && h.node_affinity_policy == "Ignore" {
        ways.push("nodeAffinityPolicy: Honor (nodes the pod's node affinity excludes then count in no domain)");
    }
    if refused(PluginId::NodeResourcesFit) {
        ways.push("capacity in that domain");
    }
    if !ways.is_empty() {
        write!(f, ": {}", ways.join(", or "))?;
    }
    Ok(())
}

impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cause::Skew {
                topology_key,
                max_skew,
            } => write!(
                f,
                "placing the pod there makes the skew across {topology_key} domains exceed \
                 maxSkew {max_skew}"
            ),
        }
    }
}
