//! The scheduler's FailedScheduling events a snapshot holds (`kubectl get events -A -o yaml`
//! saved with the rest): the latest per pod, chosen as the live read chooses it
//! (`cluster/events.rs`), so that a snapshot shows the scheduler's own message as live does.
//!
//! Events are read as the API's whole Event type (`k8s-openapi`) and reduced here.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1 as core;
use k8s_openapi::jiff::Timestamp;

/// What the scheduler last said about a pod.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchedulingEvent {
    pub message: String,
    pub last_seen: Option<String>,
    pub count: Option<i32>,
    pub reported_by: Option<String>,
}

/// The latest FailedScheduling event per pod (namespace, name).
#[derive(Debug, Clone, Default)]
pub struct SchedulingEvents(BTreeMap<(String, String), (Timestamp, SchedulingEvent)>);

/// One event as a snapshot holds it: the pod it is about, when, and what it says; `None`
/// for any other event.
pub(crate) fn of(
    e: &core::Event,
) -> Option<((String, String), Option<Timestamp>, SchedulingEvent)> {
    if e.reason.as_deref() != Some("FailedScheduling")
        || e.involved_object.kind.as_deref() != Some("Pod")
    {
        return None;
    }
    let namespace = e
        .involved_object
        .namespace
        .clone()
        .or_else(|| e.metadata.namespace.clone())
        .unwrap_or_default();
    let name = e.involved_object.name.clone().unwrap_or_default();
    let when = event_time(e);
    let event = scheduling_event(e, when);
    Some(((namespace, name), when, event))
}

/// When an event was last seen: the latest of its series' last observation, its last
/// timestamp, its event time and its creation (events.k8s.io and core/v1 writers fill
/// different ones).
pub fn event_time(e: &core::Event) -> Option<Timestamp> {
    [
        e.series
            .as_ref()
            .and_then(|s| s.last_observed_time.as_ref())
            .map(|t| t.0),
        e.last_timestamp.as_ref().map(|t| t.0),
        e.event_time.as_ref().map(|t| t.0),
        e.metadata.creation_timestamp.as_ref().map(|t| t.0),
    ]
    .into_iter()
    .flatten()
    .max()
}

/// What an event says, seen last at `when`.
pub fn scheduling_event(e: &core::Event, when: Option<Timestamp>) -> SchedulingEvent {
    SchedulingEvent {
        message: e.message.clone().unwrap_or_default(),
        last_seen: when.map(|t| t.to_string()),
        count: e.series.as_ref().and_then(|s| s.count).or(e.count),
        reported_by: e
            .reporting_component
            .clone()
            .filter(|c| !c.is_empty())
            .or_else(|| e.source.as_ref().and_then(|s| s.component.clone())),
    }
}

impl SchedulingEvents {
    /// Keeps the event when it is the pod's latest so far (a later one in the input wins a
    /// tie, as in a live list).
    pub(crate) fn add(
        &mut self,
        pod: (String, String),
        when: Option<Timestamp>,
        e: SchedulingEvent,
    ) {
        if let Some((t, _)) = self.0.get(&pod)
            && Some(*t) > when
        {
            return;
        }
        self.0.insert(pod, (when.unwrap_or_default(), e));
    }

    /// The pod's latest FailedScheduling event. A snapshot's pod carries no UID to tell a
    /// deleted namesake's events apart, as the live read does; the message is shown marked
    /// when it differs from the computed one either way.
    pub fn latest(&self, namespace: &str, name: &str) -> Option<&SchedulingEvent> {
        self.0
            .get(&(namespace.to_string(), name.to_string()))
            .map(|(_, e)| e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(name: &str, reason: &str, last: &str, message: &str) -> core::Event {
        serde_json::from_value(serde_json::json!({
            "metadata": {"name": format!("{name}.1"), "namespace": "shop"},
            "involvedObject": {"kind": "Pod", "name": name, "namespace": "shop"},
            "reason": reason, "message": message, "lastTimestamp": last, "count": 3,
            "source": {"component": "default-scheduler"}
        }))
        .expect("event")
    }

    #[test]
    fn the_latest_failed_scheduling_event_per_pod() {
        let mut events = SchedulingEvents::default();
        for e in [
            event("p", "FailedScheduling", "2025-01-02T00:00:00Z", "new"),
            event("p", "FailedScheduling", "2025-01-01T00:00:00Z", "old"),
            event("p", "Scheduled", "2025-01-03T00:00:00Z", "bound"),
            event("q", "FailedScheduling", "2025-01-01T00:00:00Z", "other pod"),
        ] {
            if let Some((pod, when, e)) = of(&e) {
                events.add(pod, when, e);
            }
        }
        let p = events.latest("shop", "p").expect("p");
        assert_eq!(p.message, "new");
        assert_eq!(p.count, Some(3));
        assert_eq!(p.reported_by.as_deref(), Some("default-scheduler"));
        assert_eq!(p.last_seen.as_deref(), Some("2025-01-02T00:00:00Z"));
        assert_eq!(events.latest("shop", "q").expect("q").message, "other pod");
        assert!(events.latest("default", "p").is_none());
    }
}
