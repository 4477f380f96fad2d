//! The resourceclaim controller (`pkg/controller/resourceclaim`, `handleClaim`): for each
//! of a pod's `spec.resourceClaims` made from a ResourceClaimTemplate, it creates a
//! ResourceClaim from the template and records it in `status.resourceClaimStatuses`, before
//! the scheduler sees the pod. `whatif` runs it for the pod of a manifest and for each
//! replica of a workload ([`create_claims`]).
//!
//! The claim is named by the API server from `generateName: <pod>-<podClaim>-` and 5
//! random characters of its alphabet. Here the characters come from a hash of
//! `<namespace>/<pod>/<podClaim>` (FNV-1a, 64 bits, written in that alphabet), so that a
//! name is the same from run to run (and the same as the differential corpus's).

use std::collections::BTreeMap;

use crate::scheduler::dra::allocator::ClaimAllocation;
use crate::state::dra::{AllocationResult, ClaimOwner, ConsumerRef, DraObjects, ResourceClaim};
use crate::state::{ClusterState, Pod};

/// The API server's alphabet for generated names (`utilrand.String`).
const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
/// The annotation naming the pod claim a claim was made for.
pub const POD_CLAIM_NAME: &str = "resource.kubernetes.io/pod-claim-name";

/// `generateName` for a pod claim: both names cut in proportion when longer than 57
/// characters, so that the claim's name (with `-` and 5 characters) fits a DNS label.
pub fn generate_name(pod: &str, pod_claim: &str) -> String {
    const MAX_BASE: usize = 57;
    let whole = pod.len() + 1 + pod_claim.len();
    if whole <= MAX_BASE {
        return format!("{pod}-{pod_claim}-");
    }
    let cut = |s: &str| {
        let mut n = s.len() * MAX_BASE / whole;
        while !s.is_char_boundary(n) {
            n -= 1;
        }
        s[..n].to_string()
    };
    format!("{}-{}-", cut(pod), cut(pod_claim))
}

/// The 5 characters added to `generateName` (see the module's docs).
pub fn suffix(namespace: &str, pod: &str, pod_claim: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in format!("{namespace}/{pod}/{pod_claim}").bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    let base = ALPHABET.len() as u64;
    (0..5)
        .map(|_| {
            let c = ALPHABET[(h % base) as usize] as char;
            h /= base;
            c
        })
        .collect()
}

/// What the controller did for one pod claim.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Created {
    pub pod_claim: String,
    pub template: String,
    /// `None` when the template does not exist: the controller fails and the scheduler
    /// finds no claim.
    pub name: Option<String>,
    pub annotations: BTreeMap<String, String>,
}

/// Creates the claims of `pod`'s template-backed pod claims that have none yet in `dra`,
/// and records them in the pod's status.
pub fn create_in(pod: &mut Pod, dra: &mut DraObjects) -> Vec<Created> {
    let mut created = Vec::new();
    let namespace = pod.id.namespace.to_string();
    let pod_name = pod.id.name.to_string();
    let mut statuses = Vec::new();
    for c in &pod.template.resource_claims {
        let Some(template_name) = &c.template_name else {
            continue;
        };
        if c.claim_name.is_some() || c.status.is_some() {
            continue;
        }
        let Some(template) = dra.template(&namespace, template_name).cloned() else {
            created.push(Created {
                pod_claim: c.name.clone(),
                template: template_name.clone(),
                name: None,
                annotations: BTreeMap::new(),
            });
            continue;
        };
        let name = generate_name(&pod_name, &c.name) + &suffix(&namespace, &pod_name, &c.name);
        let mut annotations = template.annotations.clone();
        annotations.insert(POD_CLAIM_NAME.to_string(), c.name.clone());
        dra.put_claim(ResourceClaim {
            namespace: namespace.clone(),
            name: name.clone(),
            requests: template.requests.clone(),
            constraints: template.constraints.clone(),
            owner: Some(ClaimOwner {
                api_version: "v1".to_string(),
                kind: "Pod".to_string(),
                name: pod_name.clone(),
                uid: String::new(),
            }),
            ..ResourceClaim::default()
        });
        statuses.push((c.name.clone(), name.clone()));
        created.push(Created {
            pod_claim: c.name.clone(),
            template: template_name.clone(),
            name: Some(name),
            annotations,
        });
    }
    if !statuses.is_empty() {
        let template = std::sync::Arc::make_mut(&mut pod.template);
        for (pod_claim, name) in statuses {
            if let Some(c) = template
                .resource_claims
                .iter_mut()
                .find(|c| c.name == pod_claim)
            {
                c.status = Some(Some(name));
            }
        }
    }
    created
}

/// [`create_in`] on each state the pod is evaluated against (with `--diff`, the cluster as
/// read and as edited), beside the DRA objects read: without them nothing is evaluated.
/// The pod's status comes out the same from each.
pub fn create_claims<'s>(pod: &mut Pod, states: impl IntoIterator<Item = &'s mut ClusterState>) {
    let original = pod.clone();
    for state in states {
        if let Some(dra) = state.objects_mut().dra_mut() {
            let mut copy = original.clone();
            create_in(&mut copy, dra);
            *pod = copy;
        }
    }
}

/// The allocation DynamicResources found for `pod` on the node it is placed on, recorded as
/// the plugin's Reserve and PreBind record it (`status.allocation` with the devices and the
/// nodes they are usable from, the pod in `status.reservedFor`), on the claims of `state`:
/// the later pods' allocator finds those devices in use, and a shared claim is allocated.
pub fn record_allocation(state: &mut ClusterState, pod: &Pod, allocation: &[ClaimAllocation]) {
    let Some(dra) = state.objects_mut().dra_mut() else {
        return;
    };
    for found in allocation {
        let Some(claim) = dra.claims.iter_mut().find(|c| c.key() == found.claim) else {
            continue;
        };
        claim.allocation = Some(AllocationResult {
            devices: found.devices.clone(),
            node_selector: found.node_selector.clone(),
        });
        claim.reserved_for.push(ConsumerRef {
            resource: "pods".to_string(),
            name: pod.id.name.to_string(),
            uid: String::new(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_the_corpus_names() {
        // From the DRA corpus (case-00000 and case-00004): the hash the README describes.
        assert_eq!(
            generate_name("incoming", "accel-0") + &suffix("ns-a", "incoming", "accel-0"),
            "incoming-accel-0-gx7c8"
        );
        assert_eq!(
            generate_name("incoming", "nic-0") + &suffix("default", "incoming", "nic-0"),
            "incoming-nic-0-qwkjx"
        );
    }

    #[test]
    fn long_names_are_cut_in_proportion() {
        let pod = "p".repeat(60);
        let claim = "c".repeat(20);
        let name = generate_name(&pod, &claim);
        // 60*57/81 = 42 and 20*57/81 = 14 characters, with two dashes.
        assert_eq!(name, format!("{}-{}-", "p".repeat(42), "c".repeat(14)));
        assert!(name.len() + 5 <= 63);
    }
}
