//! The scheduler's last word on a pod: its latest FailedScheduling event.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1 as core;
use kube::api::Api;

use super::client::Live;
use super::error::ClusterError;
use super::notes::Refused;
use super::pager::{Decode, Page};
use super::requests::Request;

/// What the scheduler last said about a pod, read as a snapshot's events are read.
pub use crate::state::events::SchedulingEvent as LastEvent;
use crate::state::events::{event_time, scheduling_event};

/// The outcome of looking for the scheduler's FailedScheduling event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EventLookup {
    Found(LastEvent),
    NoEvent,
    /// Listing the pod's events was refused.
    Unavailable(Refused),
}

impl Live {
    /// The latest FailedScheduling event of the pod (matched by UID when the pod has one, so
    /// a deleted namesake's events do not count).
    pub fn scheduling_event(&self, pod: &core::Pod) -> Result<EventLookup, ClusterError> {
        let namespace = pod.metadata.namespace.clone().unwrap_or_default();
        let name = pod.metadata.name.clone().unwrap_or_default();
        let uid = pod.metadata.uid.clone().filter(|u| !u.is_empty());
        let api: Api<core::Event> = Api::namespaced(self.server.client.clone(), &namespace);
        let selector =
            format!("involvedObject.name={name},involvedObject.kind=Pod,reason=FailedScheduling");
        let req = Request::new("list", "events", true).namespace(&namespace);
        let mut latest: Option<(k8s_openapi::jiff::Timestamp, LastEvent)> = None;
        let result = self.rt.block_on(self.server.list(
            api.resource_url(),
            &req,
            Some(&selector),
            Decode::items(std::convert::identity::<core::Event>),
            &mut |page| {
                match page {
                    Page::Restart => latest = None,
                    Page::Items(items) => {
                        for e in items {
                            let other = e.involved_object.uid.as_deref().filter(|u| !u.is_empty());
                            if uid.as_deref().zip(other).is_some_and(|(a, b)| a != b) {
                                continue;
                            }
                            let when = event_time(&e);
                            if latest.as_ref().is_some_and(|(t, _)| Some(*t) > when) {
                                continue;
                            }
                            latest = Some((when.unwrap_or_default(), scheduling_event(&e, when)));
                        }
                    }
                }
                Ok(())
            },
        ));
        match result {
            Ok(()) => Ok(latest.map_or(EventLookup::NoEvent, |(_, e)| EventLookup::Found(e))),
            Err(ClusterError::Forbidden(_)) => Ok(EventLookup::Unavailable(Refused::new(
                &req,
                &self.server.target,
            ))),
            Err(e) => Err(e),
        }
    }
}

/// The latest FailedScheduling event of each pod, by (namespace, name).
/// The field selector of the scheduler's events about pods, for every pod.
pub(super) const SCHEDULING_EVENTS: &str = "involvedObject.kind=Pod,reason=FailedScheduling";

pub type PodEvents = BTreeMap<(String, String), LastEvent>;

impl Live {
    /// The latest FailedScheduling event of every pod of `namespace` (every namespace when
    /// `None`) that has one, in one list (`audit`: one request, not one per Pending pod).
    /// Pods are matched by name: a deleted namesake's last event may be shown, and is then
    /// flagged as differing from the message computed now. `Err` when listing is refused.
    pub fn scheduling_events(
        &self,
        namespace: Option<&str>,
    ) -> Result<Result<PodEvents, Refused>, ClusterError> {
        let client = self.server.client.clone();
        let (api, req): (Api<core::Event>, Request) = match namespace {
            Some(ns) => (
                Api::namespaced(client, ns),
                Request::new("list", "events", true).namespace(ns),
            ),
            None => (Api::all(client), Request::new("list", "events", true)),
        };
        let selector = SCHEDULING_EVENTS;
        let mut latest: BTreeMap<(String, String), (k8s_openapi::jiff::Timestamp, LastEvent)> =
            BTreeMap::new();
        let result = self.rt.block_on(self.server.list(
            api.resource_url(),
            &req,
            Some(selector),
            Decode::items(std::convert::identity::<core::Event>),
            &mut |page| {
                match page {
                    Page::Restart => latest.clear(),
                    Page::Items(items) => {
                        for e in items {
                            let pod = (
                                e.involved_object.namespace.clone().unwrap_or_default(),
                                e.involved_object.name.clone().unwrap_or_default(),
                            );
                            let when = event_time(&e);
                            if latest.get(&pod).is_some_and(|(t, _)| Some(*t) > when) {
                                continue;
                            }
                            latest.insert(
                                pod,
                                (when.unwrap_or_default(), scheduling_event(&e, when)),
                            );
                        }
                    }
                }
                Ok(())
            },
        ));
        match result {
            Ok(()) => Ok(Ok(latest.into_iter().map(|(k, (_, e))| (k, e)).collect())),
            Err(ClusterError::Forbidden(_)) => Ok(Err(Refused::new(&req, &self.server.target))),
            Err(e) => Err(e),
        }
    }
}
