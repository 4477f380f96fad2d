//! The one place the model is built: a pod from its [`PodParts`], a node from its
//! [`NodeParts`], whichever front-end (`decode/`) read them.

use std::borrow::Cow;
use std::sync::Arc;

use crate::state::defaults;
use crate::state::node::Node;
use crate::state::parts::{self, NodeParts, Owner, PodParts};
use crate::state::pod::{
    AffinityTerm, ControllerRef, Pod, PodAffinity, PodClaim, PodRef, PodTemplate,
    RESTART_ALL_CONTAINERS, SpreadConstraint, VolumeKinds,
};
use crate::state::resources::{NodeResources, PodResources, ResourcesMemo};
use crate::state::selector::{self, LabelSelector};
use crate::state::spec::{self, Time};
use crate::state::taints::Toleration;
use crate::state::volumes::{InlineDisk, PodVolume};

impl Node {
    /// Every node is built here, whichever front-end read its parts.
    pub(crate) fn from_parts(p: NodeParts) -> Node {
        Node {
            name: p.name,
            labels: p.labels,
            taints: p.taints,
            unschedulable: p.unschedulable,
            resources: NodeResources::from_parts(p.allocatable.as_ref(), p.images),
            declared_features: p.declared_features,
        }
    }
}

impl From<&spec::TopologySpreadConstraint> for SpreadConstraint {
    fn from(c: &spec::TopologySpreadConstraint) -> Self {
        SpreadConstraint {
            max_skew: c.max_skew,
            topology_key: c.topology_key.clone(),
            when_unsatisfiable: c.when_unsatisfiable.clone(),
            selector: LabelSelector::from_api(c.label_selector.as_ref()),
            match_label_keys: c.match_label_keys.clone().unwrap_or_default(),
            min_domains: c.min_domains,
            node_affinity_policy: c.node_affinity_policy.clone(),
            node_taints_policy: c.node_taints_policy.clone(),
        }
    }
}

impl VolumeKinds {
    fn of(volumes: &[parts::Volume]) -> VolumeKinds {
        let mut k = VolumeKinds::default();
        for v in volumes {
            k.claims |= v.persistent_volume_claim.is_some();
            k.ephemeral |= v.ephemeral.is_some();
            k.restricted_inline |= v.gce_persistent_disk.is_some()
                || v.aws_elastic_block_store.is_some()
                || v.rbd.is_some()
                || v.iscsi.is_some();
            k.migratable_inline |= v.gce_persistent_disk.is_some()
                || v.aws_elastic_block_store.is_some()
                || v.azure_disk.is_some()
                || v.azure_file.is_some()
                || v.cinder.is_some()
                || v.vsphere_volume.is_some()
                || v.portworx_volume.is_some();
        }
        k
    }
}

/// What the storage plugins read of a volume, with the API server's defaults
/// (`SetDefaults_RBDVolumeSource`: pool `rbd`).
fn pod_volume(v: &parts::Volume) -> Option<PodVolume> {
    let read_only = |r: Option<bool>| r.unwrap_or(false);
    Some(if let Some(c) = &v.persistent_volume_claim {
        PodVolume::Claim {
            claim: c.claim_name.clone(),
        }
    } else if v.ephemeral.is_some() {
        PodVolume::Ephemeral {
            volume: v.name.clone(),
        }
    } else if let Some(d) = &v.gce_persistent_disk {
        PodVolume::Disk(InlineDisk::GcePersistentDisk {
            pd_name: d.pd_name.clone(),
            read_only: read_only(d.read_only),
        })
    } else if let Some(d) = &v.aws_elastic_block_store {
        PodVolume::Disk(InlineDisk::AwsElasticBlockStore {
            volume_id: d.volume_id.clone(),
        })
    } else if let Some(d) = &v.rbd {
        PodVolume::Disk(InlineDisk::Rbd {
            monitors: d.monitors.clone(),
            pool: d
                .pool
                .clone()
                .filter(|p| !p.is_empty())
                .unwrap_or_else(|| "rbd".to_string()),
            image: d.image.clone(),
            read_only: read_only(d.read_only),
        })
    } else if let Some(d) = &v.iscsi {
        PodVolume::Disk(InlineDisk::Iscsi {
            iqn: d.iqn.clone(),
            read_only: read_only(d.read_only),
        })
    } else {
        return None;
    })
}

/// `v1.PodPhase` values.
const PHASES: [&str; 5] = ["Pending", "Running", "Succeeded", "Failed", "Unknown"];
const DEFAULT_SCHEDULER: &str = "default-scheduler";

/// `value`, borrowed from `known` when it is one of them.
fn known(value: String, known: &[&'static str]) -> Cow<'static, str> {
    match known.iter().find(|k| **k == value) {
        Some(k) => Cow::Borrowed(k),
        None => Cow::Owned(value),
    }
}

impl Pod {
    /// The compact pod from the parts it is made of, its derived parts computed.
    pub(crate) fn from_parts(p: PodParts) -> Pod {
        Pod::build(p, Derived::Computed)
    }

    /// A snapshot's pod, as the API server stores it: a file written by hand or generated
    /// may lack the defaults, one written by `kubectl get -o yaml` has them already.
    pub(crate) fn from_snapshot(mut p: PodParts) -> Pod {
        defaults::apply(&mut p);
        Pod::from_parts(p)
    }

    /// Every pod is built here, whichever front-end read its parts: JSON pages and
    /// snapshots, protobuf pages, full API objects.
    pub(crate) fn build(p: PodParts, derived: Derived<'_>) -> Pod {
        let (resources, kept) = match derived {
            Derived::Computed => (Arc::new(PodResources::from_parts(&p)), None),
            Derived::Kept(kept) => (
                kept.resources.resources(&p),
                Some(&mut kept.last_tolerations),
            ),
            Derived::Given(resources, tolerations) => {
                return Pod::assemble(p, resources, |_| tolerations);
            }
        };
        Pod::assemble(p, resources, |written| match kept {
            Some(last) => last.take(written),
            None => Arc::from(written),
        })
    }

    /// The pod, its resources computed and its tolerations built by `tolerations` from
    /// those written.
    fn assemble(
        p: PodParts,
        resources: Arc<PodResources>,
        tolerations: impl FnOnce(Vec<Toleration>) -> Arc<[Toleration]>,
    ) -> Pod {
        let PodParts {
            metadata,
            spec,
            mut status,
        } = p;
        let metadata = metadata.unwrap_or_default();
        let namespace = metadata.namespace.unwrap_or_else(|| "default".to_string());
        let mut spec = spec.unwrap_or_default();
        let affinity = spec.affinity.take();
        let pod_affinity = affinity
            .as_ref()
            .filter(|a| a.pod_affinity.is_some() || a.pod_anti_affinity.is_some())
            .map(|a| Arc::new(parse_pod_affinity(a, &namespace)));
        let controller = controller_of(metadata.owner_references.into_iter().flatten());
        let claim_statuses = status
            .as_mut()
            .and_then(|s| s.resource_claim_statuses.take())
            .unwrap_or_default();
        Pod {
            id: Arc::new(PodRef {
                namespace: Arc::from(namespace),
                name: metadata.name.unwrap_or_default().into(),
            }),
            labels: Arc::new(metadata.labels.unwrap_or_default().into()),
            node_name: spec.node_name.map(Arc::from).unwrap_or_default(),
            terminating: metadata.deletion_timestamp.is_some(),
            start_time: status
                .as_ref()
                .and_then(|s| s.start_time.as_ref())
                .map(Time::unix_nanos),
            controller,
            template: Arc::new(PodTemplate {
                nominated_node_name: status
                    .as_mut()
                    .and_then(|s| s.nominated_node_name.take())
                    .map(Arc::from),
                phase: status
                    .and_then(|s| s.phase)
                    .map_or(Cow::Borrowed(""), |p| known(p, &PHASES)),
                scheduler_name: spec
                    .scheduler_name
                    .map_or(Cow::Borrowed(DEFAULT_SCHEDULER), |n| {
                        known(n, &[DEFAULT_SCHEDULER])
                    }),
                scheduling_gates: spec
                    .scheduling_gates
                    .take()
                    .into_iter()
                    .flatten()
                    .map(|g| g.name)
                    .collect(),
                node_selector: spec.node_selector.map(|s| Arc::new(s.into())),
                node_affinity: affinity.and_then(|a| a.node_affinity).map(Arc::new),
                tolerations: tolerations(spec.tolerations.take().unwrap_or_default()),
                pod_affinity,
                priority: spec.priority.unwrap_or(0),
                preempt_never: spec.preemption_policy.as_deref() == Some("Never"),
                has_resource_claims: spec.resource_claims.as_ref().is_some_and(|c| !c.is_empty()),
                restarts_all_containers: spec
                    .containers
                    .iter()
                    .flatten()
                    .chain(spec.init_containers.iter().flatten())
                    .flat_map(|c| c.restart_policy_rules.iter().flatten())
                    .any(|r| r.action == RESTART_ALL_CONTAINERS),
                resource_claims: spec
                    .resource_claims
                    .take()
                    .into_iter()
                    .flatten()
                    .map(|c| PodClaim {
                        status: claim_statuses
                            .iter()
                            .find(|s| s.name == c.name)
                            .map(|s| s.resource_claim_name.clone()),
                        name: c.name,
                        claim_name: c.resource_claim_name,
                        template_name: c.resource_claim_template_name,
                    })
                    .collect(),
                volumes: VolumeKinds::of(spec.volumes.as_deref().unwrap_or_default()),
                storage: spec
                    .volumes
                    .iter()
                    .flatten()
                    .filter_map(pod_volume)
                    .collect(),
                topology_spread: spec
                    .topology_spread_constraints
                    .iter()
                    .flatten()
                    .map(SpreadConstraint::from)
                    .collect(),
                resources,
            }),
        }
    }
}

/// Where a pod's derived parts (its resources and its tolerations, what building it costs
/// most) come from.
pub(crate) enum Derived<'a> {
    /// Computed from its parts.
    Computed,
    /// Taken from earlier templates built from equal fields, when there is one.
    Kept(&'a mut TemplateParts),
    /// Built for an earlier template from the same bytes (the protobuf replicas' path): the
    /// parts then hold neither containers nor tolerations.
    Given(Arc<PodResources>, Arc<[Toleration]>),
}

/// What templates share besides their pods (see `decode::protobuf::shared`): the parts built
/// from fields that differ between workloads less often than the templates do.
#[derive(Default)]
pub(crate) struct TemplateParts {
    resources: ResourcesMemo,
    last_tolerations: LastTolerations,
}

/// The last template's tolerations: nearly every pod carries the same default ones, so the
/// next template usually takes that copy.
#[derive(Default)]
struct LastTolerations(Option<Arc<[Toleration]>>);

impl LastTolerations {
    fn take(&mut self, written: Vec<Toleration>) -> Arc<[Toleration]> {
        if let Some(last) = &self.0
            && **last == written[..]
        {
            return last.clone();
        }
        let built: Arc<[Toleration]> = Arc::from(written);
        self.0 = Some(built.clone());
        built
    }
}

/// The owner reference marked as the controller (`metav1.GetControllerOf`: the first one).
pub(crate) fn controller_of(owners: impl IntoIterator<Item = Owner>) -> Option<Arc<ControllerRef>> {
    owners.into_iter().find(|o| o.controller).map(|o| {
        Arc::new(ControllerRef {
            api_version: o.api_version,
            kind: o.kind,
            name: o.name,
        })
    })
}

/// `what` names the term in an error; it is only formatted when there is one (nearly every
/// pod's terms parse without error).
fn parse_term(
    t: &spec::PodAffinityTerm,
    weight: i32,
    owner_ns: &str,
    what: impl Fn() -> String,
    errors: &mut Vec<String>,
    first: &mut Option<String>,
) -> AffinityTerm {
    let selector = LabelSelector::from_api(t.label_selector.as_ref()).unwrap_or_else(|e| {
        errors.push(format!("{}.labelSelector: {e}", what()));
        first.get_or_insert(e);
        LabelSelector::Nothing
    });
    let namespace_selector =
        LabelSelector::from_api(t.namespace_selector.as_ref()).unwrap_or_else(|e| {
            errors.push(format!("{}.namespaceSelector: {e}", what()));
            first.get_or_insert(e);
            LabelSelector::Nothing
        });
    let names = t.namespaces.clone().unwrap_or_default();
    let namespaces = if names.is_empty() && t.namespace_selector.is_none() {
        vec![owner_ns.to_string()]
    } else {
        names
    };
    AffinityTerm {
        selector,
        namespaces,
        namespace_selector,
        topology_key: t.topology_key.clone(),
        weight,
    }
}

fn parse_pod_affinity(a: &spec::Affinity, ns: &str) -> PodAffinity {
    let mut errors = Vec::new();
    // Each list's first error, as upstream's `PodInfo` keeps it: `getAffinityTerms` stops at
    // the first term whose label selector (then namespace selector) does not parse.
    let mut firsts: [Option<String>; 4] = Default::default();
    let [req_aff, req_anti, pref_aff, pref_anti] = &mut firsts;
    let req = |terms: Option<&Vec<spec::PodAffinityTerm>>,
               what: &str,
               errors: &mut Vec<String>,
               first: &mut Option<String>| {
        terms
            .into_iter()
            .flatten()
            .enumerate()
            .map(|(i, t)| parse_term(t, 0, ns, || format!("{what}[{i}]"), errors, first))
            .collect::<Vec<_>>()
    };
    let pref = |terms: Option<&Vec<spec::WeightedPodAffinityTerm>>,
                what: &str,
                errors: &mut Vec<String>,
                first: &mut Option<String>| {
        terms
            .into_iter()
            .flatten()
            .enumerate()
            .map(|(i, t)| {
                parse_term(
                    &t.pod_affinity_term,
                    t.weight,
                    ns,
                    || format!("{what}[{i}].podAffinityTerm"),
                    errors,
                    first,
                )
            })
            .collect::<Vec<_>>()
    };
    let pa = a.pod_affinity.as_ref();
    let paa = a.pod_anti_affinity.as_ref();
    let mut affinity = PodAffinity {
        required_affinity: req(
            pa.and_then(|p| {
                p.required_during_scheduling_ignored_during_execution
                    .as_ref()
            }),
            "podAffinity.requiredDuringSchedulingIgnoredDuringExecution",
            &mut errors,
            req_aff,
        ),
        required_anti_affinity: req(
            paa.and_then(|p| {
                p.required_during_scheduling_ignored_during_execution
                    .as_ref()
            }),
            "podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution",
            &mut errors,
            req_anti,
        ),
        preferred_affinity: pref(
            pa.and_then(|p| {
                p.preferred_during_scheduling_ignored_during_execution
                    .as_ref()
            }),
            "podAffinity.preferredDuringSchedulingIgnoredDuringExecution",
            &mut errors,
            pref_aff,
        ),
        preferred_anti_affinity: pref(
            paa.and_then(|p| {
                p.preferred_during_scheduling_ignored_during_execution
                    .as_ref()
            }),
            "podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution",
            &mut errors,
            pref_anti,
        ),
        errors: Vec::new(),
        parse_error: None,
    };
    affinity.errors = errors;
    let lists = [
        "requiredAffinityTerms",
        "requiredAntiAffinityTerms",
        "preferredAffinityTerms",
        "preferredAntiAffinityTerms",
    ];
    let errs: Vec<String> = lists
        .iter()
        .zip(firsts)
        .filter_map(|(list, e)| e.map(|e| format!("{list}: {e}")))
        .collect();
    if !errs.is_empty() {
        affinity.parse_error = Some(selector::aggregate(&errs));
    }
    affinity
}
