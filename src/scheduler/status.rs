//! What the framework says of a pod and its nodes: status codes and reasons as upstream's
//! `framework.Status`, the outcomes of PreFilter and PreScore, the status recorded for a node,
//! and `FitError`'s message.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::plugin_id::PluginId;

/// A framework status code, as kube-scheduler names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Code {
    /// Preemption might help.
    Unschedulable,
    /// Preemption cannot help.
    UnschedulableAndUnresolvable,
    /// The plugin failed; the scheduling attempt ends with an error.
    Error,
}

/// A non-success status: its code and upstream's reason strings, verbatim.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Status {
    pub code: Code,
    /// Mostly upstream's constant reasons, which every rejected node then names without a
    /// copy of its own.
    pub reasons: Vec<Cow<'static, str>>,
}

impl Status {
    pub fn new(code: Code, reason: impl Into<Cow<'static, str>>) -> Status {
        Status {
            code,
            reasons: vec![reason.into()],
        }
    }

    /// The reasons joined the way the oracle and `kubectl describe` show them (a constant
    /// reason stays borrowed).
    pub fn message(&self) -> Cow<'static, str> {
        match self.reasons.as_slice() {
            [one] => one.clone(),
            many => Cow::Owned(many.join(", ")),
        }
    }
}

/// What a plugin's PreFilter decided for the pod.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PreFilterOutcome {
    /// The plugin is irrelevant for this pod: its Filter does not run, every node passes it.
    Skip,
    /// Proceed; `Some(names)` restricts the candidate nodes (a PreFilterResult).
    Proceed(Option<BTreeSet<String>>),
    /// The pod is rejected before any Filter runs.
    Reject(Status),
}

/// What a plugin's PreScore decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PreScoreOutcome {
    Skip,
    Proceed,
    /// The scheduling attempt fails with this error.
    Error(String),
}

/// Whether a node can take the pod, as far as the evaluated plugins tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Verdict {
    /// Every enabled Filter plugin was evaluated and passed.
    Feasible,
    /// Rejected (by PreFilter or a Filter plugin).
    Infeasible,
    /// Every evaluated plugin passed, but some enabled Filter plugin was not evaluated.
    Unknown,
}

/// The status the scheduler itself records for a node: the first failure in profile order.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReportedStatus {
    /// The plugin that failed; `None` (null) for a status the framework made itself (a node a
    /// PreFilter result left out: its reason names the PreFilter plugins).
    pub plugin: Option<PluginId>,
    pub code: Code,
    pub reason: Cow<'static, str>,
    /// True when an enabled plugin that runs before this one was not evaluated, so the
    /// scheduler might report that plugin instead.
    pub uncertain: bool,
}

/// `FitError.Error()`'s first part: "0/N nodes are available: " then the PreFilter message, or
/// the histogram of reasons ("2 node(s) ..., 1 ..."; each reason of a multi-reason status
/// counted on its own; sorted as strings, so "10 x" sorts before "2 y" as upstream's does),
/// ending with ".". The PostFilter tail is appended by the caller.
pub fn fit_error_message<'a>(
    num_nodes: usize,
    pre_filter: Option<&str>,
    reasons: impl Iterator<Item = &'a str>,
) -> String {
    let mut msg = format!("0/{num_nodes} nodes are available:");
    if let Some(m) = pre_filter {
        msg.push_str(&format!(" {m}."));
        return msg;
    }
    let mut histogram: BTreeMap<&str, usize> = BTreeMap::new();
    for r in reasons {
        *histogram.entry(r).or_default() += 1;
    }
    let mut parts: Vec<String> = histogram
        .into_iter()
        .map(|(reason, count)| format!("{count} {reason}"))
        .collect();
    parts.sort();
    if !parts.is_empty() {
        msg.push_str(&format!(" {}.", parts.join(", ")));
    }
    msg
}
