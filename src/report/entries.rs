//! How the document writes what each plugin did at each extension point. The scheduler's
//! results are its own to reshape; the schema users read is fixed here.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Serialize, Serializer};

use crate::scheduler::default_preemption::PostFilterReport;
use crate::scheduler::preemption::Outcome;
use crate::scheduler::{
    Code, Entries, FilterCell, FilterDetails, FilterResult, PluginId, ScoreCell, ScoreDetails,
    ScoreResult, Status,
};
use crate::state::PodRef;

/// A PostFilter plugin's part of the FailedScheduling message.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PostFilterEntry {
    pub plugin: PluginId,
    /// The plugin's message in the FailedScheduling event; `None` when it adds nothing or was
    /// not evaluated.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    pub evaluated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// DefaultPreemption's dry run, when it ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preemption: Option<PreemptionEntry>,
}

impl From<PostFilterReport> for PostFilterEntry {
    fn from(r: PostFilterReport) -> PostFilterEntry {
        PostFilterEntry {
            plugin: r.plugin,
            message: r.message,
            evaluated: r.evaluated,
            note: r.note,
            preemption: r.preemption.map(|o| PreemptionEntry::from(*o)),
        }
    }
}

/// What DefaultPreemption's dry run found: the nominated node and its victims, every
/// candidate with what the pick compares, and the status of each examined node that is not
/// one.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PreemptionEntry {
    pub eligible: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_eligible_reason: Option<&'static str>,
    /// Nodes whose status was Unschedulable: the only ones preemption examines.
    pub potential_nodes: Vec<Arc<str>>,
    /// How many candidates the dry run looks for before it stops (upstream's
    /// `GetOffsetAndNumCandidates`, examined from the first node in name order).
    pub candidates_wanted: usize,
    pub nominated_node: Option<Arc<str>>,
    pub victims: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub picked_by: Option<&'static str>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tied_nodes: Vec<Arc<str>>,
    pub candidates: Vec<CandidateEntry>,
    /// Each examined node that is not a candidate, with the status its dry run ended with.
    pub non_candidates: BTreeMap<Arc<str>, NonCandidateEntry>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CandidateEntry {
    pub node: Arc<str>,
    /// "namespace/name", most important first.
    pub victims: Vec<String>,
    pub pdb_violations: usize,
    pub highest_victim_priority: i32,
    pub victim_priority_sum: i64,
    pub num_victims: usize,
    /// RFC 3339; `None` when no such victim has started (upstream then uses the current time).
    pub earliest_start_of_highest_priority_victims: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NonCandidateEntry {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plugin: Option<PluginId>,
    #[serde(flatten)]
    pub status: Status,
}

impl From<Outcome> for PreemptionEntry {
    fn from(o: Outcome) -> PreemptionEntry {
        let names = |pods: Vec<Arc<PodRef>>| pods.iter().map(|p| p.to_string()).collect();
        PreemptionEntry {
            eligible: o.not_eligible.is_none(),
            not_eligible_reason: o.not_eligible,
            potential_nodes: o.potential_nodes,
            candidates_wanted: o.wanted_candidates,
            nominated_node: o.nominated_node,
            victims: names(o.victims),
            picked_by: o.picked_by.map(|c| c.as_str()),
            tied_nodes: o.tied_nodes,
            candidates: o
                .candidates
                .into_iter()
                .map(|c| CandidateEntry {
                    node: c.node,
                    victims: names(c.victims),
                    pdb_violations: c.pdb_violations,
                    highest_victim_priority: c.fields.highest_victim_priority,
                    victim_priority_sum: c.fields.victim_priority_sum,
                    num_victims: c.fields.num_victims,
                    earliest_start_of_highest_priority_victims: c
                        .fields
                        .earliest_start_of_highest_priority_victims
                        .map(rfc3339),
                })
                .collect(),
            non_candidates: o
                .non_candidates
                .into_iter()
                .map(|(node, plugin, status)| (node, NonCandidateEntry { plugin, status }))
                .collect(),
        }
    }
}

/// Nanoseconds since the epoch as RFC 3339 (UTC, seconds unless there is a fraction).
fn rfc3339(nanos: i64) -> String {
    k8s_openapi::jiff::Timestamp::from_nanosecond(i128::from(nanos))
        .map_or_else(|_| nanos.to_string(), |t| t.to_string())
}

/// A node's Filter entry: the status as its joined reason and code, and whether the plugin
/// was evaluated, with a note when it was not or was skipped.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FilterEntry<'a> {
    plugin: &'a PluginId,
    /// `None` (null) when the plugin was not evaluated.
    pass: Option<bool>,
    reason: Option<Cow<'static, str>>,
    code: Option<Code>,
    skipped: bool,
    evaluated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    details: Option<&'a FilterDetails>,
}

impl<'a> From<FilterResult<'a>> for FilterEntry<'a> {
    fn from(f: FilterResult<'a>) -> FilterEntry<'a> {
        FilterEntry {
            plugin: f.plugin,
            pass: f.pass,
            reason: f.status.map(Status::message),
            code: f.code(),
            skipped: f.skipped,
            evaluated: f.evaluated(),
            note: f.note(),
            details: f.details,
        }
    }
}

/// A candidate's Score entry, with whether it was evaluated, and a note when it was not or
/// was skipped.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ScoreEntry<'a> {
    plugin: &'a PluginId,
    raw: Option<i64>,
    normalized: Option<i64>,
    weight: i64,
    weighted: Option<i64>,
    skipped: bool,
    evaluated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    details: Option<&'a ScoreDetails>,
}

impl<'a> From<ScoreResult<'a>> for ScoreEntry<'a> {
    fn from(r: ScoreResult<'a>) -> ScoreEntry<'a> {
        ScoreEntry {
            plugin: r.plugin,
            raw: r.raw,
            normalized: r.normalized,
            weight: r.weight,
            weighted: r.weighted(),
            skipped: r.skipped,
            evaluated: r.evaluated(),
            note: r.note(),
            details: r.details,
        }
    }
}

/// A node's Filter entries in profile order, each written as it is read from the node's row
/// (5,000 nodes' entries are not copied to be written).
pub(super) fn filters<S: Serializer>(
    entries: &Entries<FilterCell>,
    s: S,
) -> Result<S::Ok, S::Error> {
    s.collect_seq(entries.iter().map(FilterEntry::from))
}

/// A node's Filter entries that fail, in profile order, written as [`filters`] are.
pub(super) fn failed_filters<S: Serializer>(
    entries: &Entries<FilterCell>,
    s: S,
) -> Result<S::Ok, S::Error> {
    s.collect_seq(
        entries
            .iter()
            .filter(|f| f.pass == Some(false))
            .map(FilterEntry::from),
    )
}

/// A node's Score entries in profile order, written as [`filters`] are.
pub(super) fn scores<S: Serializer>(entries: &Entries<ScoreCell>, s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(entries.iter().map(ScoreEntry::from))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::PostFilterEntry;
    use crate::scheduler::default_preemption::PostFilterReport;
    use crate::scheduler::{Code, PluginId, PreFilterReport, PreScoreReport, Status};

    /// Every optional field present, in the shape the schema has always had.
    #[test]
    fn extension_point_entries_keep_their_shape() {
        let pre_filter = PreFilterReport {
            plugin: PluginId::NodeAffinity,
            result: "Rejected",
            node_names: Some(vec!["a".to_string()]),
            status: Some(Status::new(Code::UnschedulableAndUnresolvable, "no")),
        };
        assert_eq!(
            serde_json::to_value(&pre_filter).expect("serialize"),
            json!({"plugin": PluginId::NodeAffinity, "result": "Rejected", "nodeNames": ["a"],
                   "status": {"code": "UnschedulableAndUnresolvable", "reasons": ["no"]}})
        );
        let pre_score = PreScoreReport {
            plugin: PluginId::PodTopologySpread,
            result: "Error",
            error: Some("bad".to_string()),
        };
        assert_eq!(
            serde_json::to_value(&pre_score).expect("serialize"),
            json!({"plugin": PluginId::PodTopologySpread, "result": "Error", "error": "bad"})
        );
        let post_filter = PostFilterEntry::from(PostFilterReport {
            plugin: PluginId::DefaultPreemption,
            message: Some("preemption: ...".to_string()),
            evaluated: true,
            note: Some("why".to_string()),
            preemption: None,
        });
        assert_eq!(
            serde_json::to_value(&post_filter).expect("serialize"),
            json!({"plugin": PluginId::DefaultPreemption, "message": "preemption: ...", "evaluated": true,
                   "note": "why"})
        );
    }
}
