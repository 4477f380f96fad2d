//! DynamicResources (`pkg/scheduler/framework/plugins/dynamicresources`, kube-scheduler
//! 1.35): the pod's ResourceClaims, by name or made from a template by the resourceclaim
//! controller, are found at PreFilter (a missing claim, template-made claim, or DeviceClass
//! rejects the pod before any node is looked at); Filter asks the structured allocator
//! ([`super::dra::allocator`], a library upstream) whether the node can have devices for
//! every claim not yet allocated, and checks that the allocated ones are usable there;
//! Score prefers the nodes where `firstAvailable` requests get an earlier subrequest;
//! PostFilter deallocates a claim whose devices are on no node that can take the pod.
//!
//! Upstream's statuses are `statusUnschedulable` (UnschedulableAndUnresolvable) and
//! `statusError`; the framework adds `running "DynamicResources" filter plugin: ` to a
//! Filter error, and that error ends the scheduling cycle.
//!
//! Not modelled, and said: an allocation in flight (another pod's Reserve before its
//! PreBind), which needs the scheduler's memory; pods are matched to a claim's owner and
//! `reservedFor` by name, since the model keeps no pod UIDs.

pub mod explain;

use std::collections::{BTreeSet, HashMap};
use std::convert::Infallible;
use std::sync::Mutex;

use serde::Serialize;

use super::config::FeatureGates;
use super::dra::allocator::{
    AllocatedDevices, Allocator, Budget, ClaimAllocation, Diagnosis, Features, NodeRef, Outcome,
};
use super::dra::cel::{self, Cache};
use super::dra::types::{DraObjects, RequestKind, ResourceClaim};
use super::plugin::{Input, Plugin, default_normalize};
use super::status::{Code, PreFilterOutcome, ReportedStatus, Status};
use crate::state::Pod;
use crate::state::selector::NodeSelector;

/// Filter's reason when the allocator finds no devices for the claims.
pub const CANNOT_ALLOCATE: &str = "cannot allocate all claims";
/// Filter's reason when an allocated claim's devices are not on the node.
pub const NOT_AVAILABLE: &str = "resourceclaim not available on the node";
/// `resourceapi.FirstAvailableDeviceRequestMaxSize`.
const FIRST_AVAILABLE_MAX: i64 = 8;
/// The diagnosis of a node that cannot take the claims searches again; this bounds it.
const DIAGNOSIS_BUDGET: Budget = Budget { max_steps: 200_000 };

/// What Filter tells of a node.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FilterDetails {
    /// The devices the node would give each claim to allocate, in the plugin's order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub allocation: Vec<ClaimAllocation>,
    /// Allocated claims whose devices the node cannot reach (`namespace/name`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unavailable_claims: Vec<String>,
    /// Why the claims cannot be allocated on the node, request by request.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diagnosis: Option<Diagnosis>,
}

/// What Score tells of a candidate: the `firstAvailable` subrequests it would allocate.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScoreDetails {
    pub subrequests: Vec<String>,
}

/// What PreFilter found of the pod's claims.
#[derive(Debug, Default)]
struct Claims<'a> {
    /// The pod's claims, in `spec.resourceClaims` order (those that need none left out).
    all: Vec<&'a ResourceClaim>,
    /// Per claim: the nodes its allocation is available on, when allocated with a selector.
    available_on: Vec<Option<NodeSelector>>,
    /// The claims to allocate (indices into `all`).
    to_allocate: Vec<usize>,
}

#[derive(Debug)]
pub struct DynamicResources<'a> {
    input: Input<'a>,
    dra: Option<&'a DraObjects>,
    features: Features,
    budget: Budget,
    /// `None` before PreFilter, and when PreFilter rejected or skipped the pod.
    claims: Option<Claims<'a>>,
    allocated: AllocatedDevices,
    cel: Cache,
    /// The allocation found on each node that passed, for Score.
    found: Mutex<HashMap<usize, Vec<ClaimAllocation>>>,
    /// A search past the filter timeout is an Error (from 1.36), else Unschedulable.
    timeout_is_error: bool,
    /// DynamicResourcesArgs' `bindingTimeout`, where set.
    binding_timeout: Option<u32>,
}

impl<'a> DynamicResources<'a> {
    pub fn new(input: Input<'a>, gates: &FeatureGates) -> Self {
        let features = gates.dra_features();
        DynamicResources {
            input,
            dra: input.state.objects().dra(),
            features,
            budget: Budget::default(),
            claims: None,
            allocated: AllocatedDevices::default(),
            cel: Cache::new(cel::Features {
                consumable_capacity: features.consumable_capacity,
            }),
            found: Mutex::new(HashMap::new()),
            timeout_is_error: gates.release.facts().dra_filter_timeout_is_error,
            binding_timeout: gates.dra_binding_timeout_seconds(),
        }
    }

    /// `foreachPodResourceClaim`: the pod's claims, or upstream's error.
    fn pod_claims(&self, dra: &'a DraObjects) -> Result<Vec<&'a ResourceClaim>, String> {
        let pod = self.input.pod;
        let ns = &*pod.id.namespace;
        let mut out = Vec::new();
        for c in &pod.template.resource_claims {
            let (name, must_check_owner) = match (&c.claim_name, &c.template_name) {
                (Some(n), _) => (n.as_str(), false),
                (None, Some(_)) => match &c.status {
                    None => {
                        return Err(format!(
                            "pod \"{ns}/{}\": ResourceClaim not created yet",
                            pod.id.name
                        ));
                    }
                    // The controller decided that no claim is needed.
                    Some(None) => continue,
                    Some(Some(n)) => (n.as_str(), true),
                },
                (None, None) => {
                    return Err(format!(
                        "pod \"{ns}/{}\", spec.resourceClaim {:?}: at least one of the two fields should be set",
                        pod.id.name, c.name
                    ));
                }
            };
            let Some(claim) = dra.claim(ns, name) else {
                return Err(format!("could not find ResourceClaim \"{ns}/{name}\""));
            };
            if claim.deleting {
                return Err(format!("resourceclaim {name:?} is being deleted"));
            }
            if must_check_owner && !is_for_pod(pod, claim) {
                return Err(format!(
                    "ResourceClaim {ns}/{name} was not created for pod {ns}/{} (pod is not owner)",
                    pod.id.name
                ));
            }
            out.push(claim);
        }
        Ok(out)
    }

    /// The allocator over the cluster's classes, slices and devices in use.
    fn allocator(&self) -> Option<Allocator<'_>> {
        let dra = self.dra?;
        Some(Allocator::new(
            self.features,
            &self.allocated,
            &dra.classes,
            &dra.slices,
            &self.cel,
        ))
    }

    /// The claims PreFilter found, when it let the pod through.
    fn found_claims(&self) -> Option<&Claims<'a>> {
        self.claims.as_ref().filter(|c| !c.all.is_empty())
    }
}

/// `resourceclaim.IsForPod`: the claim's controller is the pod (by name: no UIDs are kept).
fn is_for_pod(pod: &Pod, claim: &ResourceClaim) -> bool {
    claim
        .owner
        .as_ref()
        .is_some_and(|o| o.kind == "Pod" && o.name == *pod.id.name)
}

/// `resourceclaim.IsReservedForPod`.
fn is_reserved_for_pod(pod: &Pod, claim: &ResourceClaim) -> bool {
    claim
        .reserved_for
        .iter()
        .any(|r| r.resource == "pods" && r.name == *pod.id.name)
}

/// `resourceclaim.CanBeReserved`: `ResourceClaimReservedForMaxSize`.
fn can_be_reserved(claim: &ResourceClaim) -> bool {
    claim.reserved_for.len() < 256
}

fn unresolvable(reason: String) -> Status {
    Status::new(Code::UnschedulableAndUnresolvable, reason)
}

/// A search cut short by the filter timeout: from 1.36 an Error naming the node (the pod is
/// retried with backoff), before it UnschedulableAndUnresolvable.
fn timed_out(node: &str, is_error: bool) -> Status {
    if is_error {
        filter_error(&format!(
            "node {node}: timed out trying to allocate devices"
        ))
    } else {
        unresolvable("timed out trying to allocate devices".into())
    }
}

/// Whether a device of `dra` uses what `gate` governs.
fn uses(dra: &DraObjects, gate: &str) -> bool {
    let devices = || dra.slices.iter().flat_map(|s| &s.devices);
    match gate {
        "DRAPartitionableDevices" => {
            dra.slices.iter().any(|s| s.has_shared_counters)
                || devices().any(|d| d.consumes_counters)
        }
        "DRADeviceBindingConditions" => devices().any(|d| d.has_binding_conditions),
        "DRAConsumableCapacity" => devices().any(|d| d.allow_multiple_allocations == Some(true)),
        _ => true,
    }
}

/// The framework's wrapping of a Filter error.
fn filter_error(e: &str) -> Status {
    Status::new(
        Code::Error,
        format!("running \"DynamicResources\" filter plugin: {e}"),
    )
}

impl Plugin for DynamicResources<'_> {
    type FilterDetails = Box<FilterDetails>;
    type ScoreDetails = ScoreDetails;
    type Tables = Infallible;

    fn unavailable(&self) -> Option<String> {
        if self.dra.is_none() {
            return Some(
                "DynamicResources is not evaluated: the pod has ResourceClaims, and the source \
                 held no DeviceClasses, ResourceSlices, ResourceClaims or ResourceClaimTemplates"
                    .to_string(),
            );
        }
        let dra = self.dra?;
        // A gate whose rules are not modelled changes nothing where no device uses them
        // (1.36 turns them on by default).
        let unsupported: Vec<String> = (self.features.unsupported().into_iter())
            .filter(|gate| uses(dra, gate))
            .map(|gate| match self.binding_timeout {
                Some(s) if gate == "DRADeviceBindingConditions" => {
                    format!("{gate} (PreBind waits up to bindingTimeout {s}s)")
                }
                _ => gate.to_string(),
            })
            .collect();
        (!unsupported.is_empty()).then(|| {
            format!(
                "DynamicResources is not evaluated: kubectl-affinity does not model the \
                 allocation rules of {}, which devices here use",
                unsupported.join(", ")
            )
        })
    }

    fn pre_filter(&mut self) -> PreFilterOutcome {
        let Some(dra) = self.dra else {
            return PreFilterOutcome::Proceed(None);
        };
        let mut claims = Claims::default();
        self.claims = Some(Claims::default());
        let all = match self.pod_claims(dra) {
            Ok(all) => all,
            Err(e) => return PreFilterOutcome::Reject(unresolvable(e)),
        };
        if all.is_empty() {
            return PreFilterOutcome::Skip;
        }
        let pod = self.input.pod;
        for (index, claim) in all.iter().enumerate() {
            if let Some(allocation) = &claim.allocation {
                if !can_be_reserved(claim) && !is_reserved_for_pod(pod, claim) {
                    return PreFilterOutcome::Reject(unresolvable("resourceclaim in use".into()));
                }
                claims
                    .available_on
                    .push(allocation.node_selector.as_ref().map(NodeSelector::parse));
                continue;
            }
            claims.available_on.push(None);
            claims.to_allocate.push(index);
            for request in &claim.requests {
                let classes: Vec<(String, &str)> = match &request.kind {
                    RequestKind::Exactly(e) => {
                        vec![(request.name.clone(), e.spec.device_class_name.as_str())]
                    }
                    RequestKind::FirstAvailable(subs) => {
                        if !self.features.prioritized_list {
                            return PreFilterOutcome::Reject(unresolvable(format!(
                                "resource claim {}, request {}: has subrequests, but the DRAPrioritizedList feature is disabled",
                                claim.key(),
                                request.name
                            )));
                        }
                        subs.iter()
                            .map(|s| {
                                (
                                    format!("{}/{}", request.name, s.name),
                                    s.spec.device_class_name.as_str(),
                                )
                            })
                            .collect()
                    }
                    RequestKind::Unknown => {
                        return PreFilterOutcome::Reject(unresolvable(format!(
                            "resource claim {}, request {}: unknown request type",
                            claim.key(),
                            request.name
                        )));
                    }
                };
                // `validateDeviceClass`.
                for (name, class) in classes {
                    if class.is_empty() {
                        return PreFilterOutcome::Reject(Status::new(
                            Code::Error,
                            format!("request {name}: unsupported request type"),
                        ));
                    }
                    if dra.class(class).is_none() {
                        return PreFilterOutcome::Reject(unresolvable(format!(
                            "request {name}: device class {class} does not exist"
                        )));
                    }
                }
            }
        }
        if !claims.to_allocate.is_empty() {
            self.allocated = AllocatedDevices::from_claims(&dra.claims);
        }
        claims.all = all;
        self.claims = Some(claims);
        PreFilterOutcome::Proceed(None)
    }

    fn filter(&self, ni: usize) -> (Option<Status>, Option<Self::FilterDetails>) {
        let Some(claims) = self.found_claims() else {
            // PreFilter rejected or skipped the pod (Filter then does not run), or was
            // disabled in the profile.
            let Some(_) = &self.claims else {
                return (
                    Some(Status::new(
                        Code::Error,
                        super::plugin::missing_cycle_state(
                            "PreFilter",
                            super::plugin_id::PluginId::DynamicResources,
                        ),
                    )),
                    None,
                );
            };
            return (None, None);
        };
        let node = self.input.node(ni);
        let mut details = FilterDetails::default();
        let unavailable: Vec<usize> = (0..claims.all.len())
            .filter(|&i| {
                claims.available_on[i]
                    .as_ref()
                    .is_some_and(|s| !s.matches(&node.name, &node.labels))
            })
            .collect();
        details.unavailable_claims = unavailable.iter().map(|&i| claims.all[i].key()).collect();
        if !claims.to_allocate.is_empty()
            && let Some(allocator) = self.allocator()
        {
            let to_allocate: Vec<&ResourceClaim> =
                claims.to_allocate.iter().map(|&i| claims.all[i]).collect();
            let node_ref = NodeRef {
                name: &node.name,
                labels: &node.labels,
            };
            match allocator.allocate(node_ref, &to_allocate, self.budget) {
                Outcome::Allocated(allocation) => details.allocation = allocation,
                Outcome::Unsatisfiable => {
                    details.diagnosis =
                        Some(allocator.diagnose(node_ref, &to_allocate, DIAGNOSIS_BUDGET));
                    let status = Status::new(Code::UnschedulableAndUnresolvable, CANNOT_ALLOCATE);
                    return (Some(status), Some(Box::new(details)));
                }
                Outcome::FailedOnNode(e) => {
                    return (Some(unresolvable(e)), Some(Box::new(details)));
                }
                Outcome::Error(e) => return (Some(filter_error(&e)), Some(Box::new(details))),
                Outcome::TimedOut { .. } => {
                    let status = timed_out(&node.name, self.timeout_is_error);
                    return (Some(status), Some(Box::new(details)));
                }
            }
        }
        if !unavailable.is_empty() {
            let status = Status::new(Code::UnschedulableAndUnresolvable, NOT_AVAILABLE);
            return (Some(status), Some(Box::new(details)));
        }
        if !details.allocation.is_empty()
            && let Ok(mut found) = self.found.lock()
        {
            found.insert(ni, details.allocation.clone());
        }
        (None, Some(Box::new(details)))
    }

    fn score(&self, ni: usize) -> Result<(i64, Option<Self::ScoreDetails>), String> {
        if !self.features.prioritized_list || self.found_claims().is_none() {
            return Ok((0, None));
        }
        let found = self.found.lock().map_err(|e| e.to_string())?;
        let Some(allocation) = found.get(&ni) else {
            return Ok((0, None));
        };
        let claims = self.found_claims().expect("checked above");
        // `computeScore`: per claim allocated here, each subrequest picked scores by its
        // place in its `firstAvailable` list.
        let mut score = 0;
        let mut picked = Vec::new();
        for (&c, result) in claims.to_allocate.iter().zip(allocation) {
            let used: BTreeSet<&str> = result
                .devices
                .iter()
                .map(|d| d.request.as_str())
                .filter(|r| r.contains('/'))
                .collect();
            for request in &claims.all[c].requests {
                let RequestKind::FirstAvailable(subs) = &request.kind else {
                    continue;
                };
                for (i, sub) in subs.iter().enumerate() {
                    let name = format!("{}/{}", request.name, sub.name);
                    if used.contains(name.as_str()) {
                        score += FIRST_AVAILABLE_MAX - i as i64;
                        picked.push(name);
                    }
                }
            }
        }
        let details = (!picked.is_empty()).then_some(ScoreDetails {
            subrequests: picked,
        });
        Ok((score, details))
    }

    fn normalize(&self, scores: &mut [i64]) {
        default_normalize(scores, false);
    }

    fn post_filter(&self, reported: &[Option<&ReportedStatus>]) -> Option<Result<String, String>> {
        let Some(claims) = self.found_claims() else {
            return Some(Ok("no new claims to deallocate".to_string()));
        };
        // `unavailableClaims`: what Filter found on the nodes it ran on (those every earlier
        // Filter passed, whose recorded status is this plugin's).
        let mut unavailable = BTreeSet::new();
        for (ni, r) in reported.iter().enumerate() {
            let ours = r.is_some_and(|r| {
                r.plugin == Some(super::plugin_id::PluginId::DynamicResources)
                    && r.reason == NOT_AVAILABLE
            });
            if !ours {
                continue;
            }
            let node = self.input.node(ni);
            for (i, selector) in claims.available_on.iter().enumerate() {
                if selector
                    .as_ref()
                    .is_some_and(|s| !s.matches(&node.name, &node.labels))
                {
                    unavailable.insert(i);
                }
            }
        }
        // Upstream picks among them in map order; any that no other pod holds is
        // deallocated.
        let pod = self.input.pod;
        let freed = unavailable.iter().any(|&i| {
            let r = &claims.all[i].reserved_for;
            r.is_empty() || (r.len() == 1 && is_reserved_for_pod(pod, claims.all[i]))
        });
        Some(Ok(if freed {
            "deallocation of ResourceClaim completed".to_string()
        } else {
            "still not schedulable".to_string()
        }))
    }
}

#[cfg(test)]
mod release_tests {
    use super::*;
    use crate::scheduler::release::Release;
    use crate::state::dra::{Device, ResourceSlice};

    #[test]
    fn a_filter_timeout_is_an_error_naming_the_node_from_1_36() {
        let status = |r: Release| timed_out("gpu-1", r.facts().dra_filter_timeout_is_error);
        let new = status(Release::V1_36);
        assert_eq!(new.code, Code::Error);
        assert_eq!(
            new.reasons,
            [
                "running \"DynamicResources\" filter plugin: node gpu-1: timed out trying to allocate devices"
            ]
        );
        for r in [Release::V1_34, Release::V1_35] {
            let old = status(r);
            assert_eq!(old.code, Code::UnschedulableAndUnresolvable, "{r}");
            assert_eq!(old.reasons, ["timed out trying to allocate devices"], "{r}");
        }
    }

    #[test]
    fn a_gate_not_modelled_matters_only_where_a_device_uses_it() {
        let plain = DraObjects {
            slices: vec![ResourceSlice {
                devices: vec![Device::default()],
                ..Default::default()
            }],
            ..Default::default()
        };
        for gate in [
            "DRAPartitionableDevices",
            "DRADeviceBindingConditions",
            "DRAConsumableCapacity",
        ] {
            assert!(!uses(&plain, gate), "{gate}");
        }
        let mut used = plain.clone();
        used.slices[0].devices[0] = Device {
            consumes_counters: true,
            has_binding_conditions: true,
            allow_multiple_allocations: Some(true),
            ..Default::default()
        };
        for gate in [
            "DRAPartitionableDevices",
            "DRADeviceBindingConditions",
            "DRAConsumableCapacity",
        ] {
            assert!(uses(&used, gate), "{gate}");
        }
    }
}
