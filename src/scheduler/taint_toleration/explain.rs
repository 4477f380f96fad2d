//! TaintToleration's explanation: the first untolerated taint in the TAINTS column (or what
//! untolerated PreferNoSchedule taints cost the node), every taint and the toleration that
//! matches it in the drill-down, the toleration to add as the change.

use std::collections::BTreeSet;
use std::fmt;

use super::{Cause, Change, reserved_for};
use crate::scheduler::details::{
    Cause as AnyCause, Change as AnyChange, FilterDetails, ScoreDetails,
};
use crate::scheduler::explain::{
    Column, Explain, Mark, NodeEntries, Paint, Peers, Tables, short_key,
};
use crate::scheduler::node_unschedulable::TAINT_UNSCHEDULABLE;
use crate::scheduler::plugin_id::PluginId;
use crate::scheduler::result::{FilterResult, ScoreResult};
use crate::state::{Pod, Toleration};

#[derive(Debug)]
pub struct Explainer;

impl Explain for Explainer {
    fn columns(&self) -> &'static [Column] {
        &[Column::Taints]
    }

    fn cell(&self, _: Column, node: NodeEntries<'_>, _: Tables<'_>) -> Option<Mark> {
        let f = node.filter(&PluginId::TaintToleration)?;
        let cordoned = node
            .filter(&PluginId::NodeUnschedulable)
            .is_some_and(|f| f.pass == Some(false));
        Some(match (f.pass, f.details) {
            (Some(false), Some(FilterDetails::TaintToleration(d))) => match d.first_untolerated() {
                // A cordoned node carries the unschedulable taint: one cause, said once.
                Some(t) if !(cordoned && t.key == TAINT_UNSCHEDULABLE) => {
                    Mark::Fails(format!("✗ {}", short_key(&t.key)))
                }
                _ => Mark::Passes(prefer_no_schedule_cost(node)),
            },
            (None, _) => Mark::Unknown,
            _ => Mark::Passes(prefer_no_schedule_cost(node)),
        })
    }

    fn short_name(&self) -> Option<&'static str> {
        Some("taint")
    }

    fn filter_lines(&self, f: FilterResult<'_>, _: Tables<'_>, p: &dyn Paint) -> Vec<String> {
        let Some(FilterDetails::TaintToleration(d)) = f.details else {
            return Vec::new();
        };
        d.taints
            .iter()
            .map(|c| {
                let v = if c.taint.value.is_empty() {
                    String::new()
                } else {
                    format!("={}", c.taint.value)
                };
                let how = if !c.considered {
                    "ignored by Filter".to_string()
                } else {
                    match (&c.tolerated_by, &c.toleration) {
                        (Some(i), Some(t)) => format!(
                            "tolerated by [{i}] key={:?} operator={} value={:?} effect={:?}",
                            t.key,
                            if t.operator.is_empty() {
                                "Equal"
                            } else {
                                &t.operator
                            },
                            t.value,
                            t.effect
                        ),
                        _ => p.bad("not tolerated"),
                    }
                };
                format!("      taint {}{}:{}  {how}", c.taint.key, v, c.taint.effect)
            })
            .collect()
    }

    fn score_lines(&self, s: ScoreResult<'_>, _: Tables<'_>, _: &dyn Paint) -> Vec<String> {
        match s.details {
            Some(ScoreDetails::TaintToleration(d)) if d.untolerated_prefer_no_schedule > 0 => {
                vec![format!(
                    "      {} untolerated PreferNoSchedule taint(s)",
                    d.untolerated_prefer_no_schedule
                )]
            }
            _ => Vec::new(),
        }
    }

    fn suggestions(
        &self,
        f: FilterResult<'_>,
        pod: &Pod,
        _: Tables<'_>,
        _: &Peers<'_>,
    ) -> Vec<AnyChange> {
        let Some(FilterDetails::TaintToleration(d)) = f.details else {
            return Vec::new();
        };
        let untolerated = d
            .taints
            .iter()
            .filter(|c| c.considered && c.tolerated_by.is_none());
        untolerated
            .map(|c| {
                let t = &c.taint;
                let near_miss = pod
                    .template
                    .tolerations
                    .iter()
                    .find(|tol| tol.key == t.key)
                    .cloned();
                // A pod that tolerates the key in part was meant for such nodes: the toleration
                // to fix is worth naming even for a reserved taint.
                if let (None, Some(node_is)) = (&near_miss, reserved_for(&t.key)) {
                    return Change::Reserved {
                        taint: t.clone(),
                        node_is,
                    }
                    .into();
                }
                let toleration = Toleration {
                    key: t.key.clone(),
                    operator: if t.value.is_empty() {
                        "Exists"
                    } else {
                        "Equal"
                    }
                    .to_string(),
                    value: t.value.clone(),
                    effect: t.effect.clone(),
                };
                Change::AddToleration {
                    toleration,
                    near_miss,
                }
                .into()
            })
            .collect()
    }

    fn cause(&self, all: &[&FilterDetails], _: &str, _: Tables<'_>) -> Option<AnyCause> {
        let keys: Option<BTreeSet<String>> = all
            .iter()
            .map(|d| match d {
                FilterDetails::TaintToleration(d) => d.first_untolerated().map(|t| t.key.clone()),
                _ => None,
            })
            .collect();
        Some(
            Cause::Taints {
                keys: keys?.into_iter().collect(),
            }
            .into(),
        )
    }
}

/// The points a node loses for the PreferNoSchedule taints the pod does not tolerate (the
/// plugin's weighted score short of its best), with the first such taint's key: "✓ costs
/// 300: key" for a node the pod tolerates enough to fit.
fn prefer_no_schedule_cost(node: NodeEntries<'_>) -> Option<String> {
    let s = node.score(&PluginId::TaintToleration)?;
    let Some(ScoreDetails::TaintToleration(d)) = s.details else {
        return None;
    };
    if d.untolerated_prefer_no_schedule <= 0 {
        return None;
    }
    let lost = (100 - s.normalized?) * s.weight;
    let key = d
        .taints
        .iter()
        .find(|c| c.considered && c.tolerated_by.is_none())
        .map(|c| c.taint.key.as_str())?;
    (lost > 0).then(|| format!("✓ costs {lost}: {}", short_key(key)))
}

/// A toleration as written in a manifest: `{key: k, operator: Equal, value: v, effect: e}`.
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

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Change::AddToleration {
                toleration: t,
                near_miss,
            } => {
                write!(f, "add the toleration {}", toleration(t))?;
                if let Some(m) = near_miss {
                    write!(
                        f,
                        "; near miss: the pod tolerates {}, which does not match",
                        toleration(m)
                    )?;
                }
                Ok(())
            }
            Change::Reserved { taint, node_is } => write!(
                f,
                "the node is {node_is} (taint {}): tolerating it is not the fix",
                taint_words(taint)
            ),
        }
    }
}

/// A taint as `kubectl taint` writes it: `key=value:Effect`.
fn taint_words(t: &crate::state::Taint) -> String {
    if t.value.is_empty() {
        format!("{}:{}", t.key, t.effect)
    } else {
        format!("{}={}:{}", t.key, t.value, t.effect)
    }
}

impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cause::Taints { keys } => write!(
                f,
                "untolerated taints {}",
                crate::scheduler::explain::few(keys)
            ),
        }
    }
}
