//! The objects the evaluation reads beside nodes and pods, in one struct ([`Objects`]) built
//! one object at a time ([`Objects::add`]) by every source alike: a snapshot's objects
//! (`read.rs`), a live read's lists (`cluster/fetch.rs`), what a `whatif` adds. The state is
//! made from nodes, pods and these (`ClusterState::new`) and moves them whole when it is
//! rebuilt (edits, a restarted pod list). Nothing in the state is derived from them, so they
//! may be added after the pods: a live read asks for some only once the pods say they are
//! needed.
//!
//! A kind is added here: a variant of [`Object`], where [`Objects::add`] keeps it (with a
//! [`Kinds`] group when "none read" must be told from "none"), and how a file's object of
//! that kind is decoded ([`Object::decode`]: snapshots, and a manifest's objects). Outside the
//! model, only what lists it live (`cluster/fetch.rs`) and what writes it to a snapshot
//! (`cluster/snapshot.rs`) name it.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1 as core;
use k8s_openapi::apimachinery::pkg::apis::meta::v1 as meta;
use k8s_openapi::jiff::Timestamp;

use super::admission::{AdmissionObjects, NamespaceAnnotations};
use super::disruption_budget::{DisruptionBudget, DisruptionBudgetObject};
use super::dra::{self, DraObjects};
use super::events::{self, SchedulingEvent, SchedulingEvents};
use super::labels::Labels;
use super::limit_range::LimitRange;
use super::priority_class::{PriorityClass, PriorityClassObject};
use super::resources::ImageNames;
use super::runtime_class::RuntimeClass;
use super::source::{Located, SourceError};
use super::volumes::{Claim, CsiDriver, CsiNode, StorageClass, Volume, Volumes};
use super::workloads::{LabelSelectorObject, MapSelectorObject, ObjectName, WorkloadSelectors};

/// One object beside nodes and pods, as the model keeps it.
#[derive(Debug, Clone)]
pub enum Object {
    /// A namespace: its labels (what namespaceSelectors match) and its admission annotations,
    /// either `None` when the source did not read it.
    Namespace {
        name: String,
        labels: Option<Labels>,
        annotations: Option<NamespaceAnnotations>,
    },
    /// A namespace got by name that does not exist: the namespaces that do are then known.
    AbsentNamespace(String),
    /// A Service of `namespace`, by its `spec.selector`.
    Service {
        namespace: String,
        selector: Option<Labels>,
    },
    /// `(namespace, name)` and `spec.selector`.
    ReplicationController {
        key: (String, String),
        selector: Option<Labels>,
    },
    ReplicaSet {
        key: (String, String),
        selector: Option<meta::LabelSelector>,
    },
    StatefulSet {
        key: (String, String),
        selector: Option<meta::LabelSelector>,
    },
    DisruptionBudget(DisruptionBudget),
    PriorityClass(PriorityClass),
    LimitRange(LimitRange),
    RuntimeClass(RuntimeClass),
    Claim(Box<Claim>),
    Volume(Box<Volume>),
    StorageClass(StorageClass),
    CsiNode(CsiNode),
    CsiDriver(CsiDriver),
    DeviceClass(Box<dra::DeviceClass>),
    ResourceSlice(Box<dra::ResourceSlice>),
    ResourceClaim(Box<dra::ResourceClaim>),
    ResourceClaimTemplate(Box<dra::ResourceClaimTemplate>),
    /// A pod's FailedScheduling event: the pod `(namespace, name)`, when it was last seen.
    SchedulingEvent {
        pod: (String, String),
        when: Option<Timestamp>,
        event: SchedulingEvent,
    },
}

/// Kinds that, once read, tell the evaluation something even when there are none: without
/// them a rule that needs them is not evaluated (and the notes say so), with none it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kinds {
    /// Namespaces' labels.
    Namespaces,
    /// Services, ReplicationControllers, ReplicaSets and StatefulSets.
    Workloads,
    /// PersistentVolumeClaims, PersistentVolumes, StorageClasses, CSINodes and CSIDrivers.
    Storage,
    /// DeviceClasses, ResourceSlices, ResourceClaims and ResourceClaimTemplates.
    Dra,
}

/// What the evaluation reads beside nodes and pods, and which of it was read at all.
#[derive(Debug, Clone, Default)]
pub struct Objects {
    /// Namespace labels by name; `None` when namespaces were not read.
    namespaces: Option<BTreeMap<String, Labels>>,
    /// `None` when no Service or controller was read, so default spreading cannot be derived.
    workloads: Option<WorkloadSelectors>,
    /// What preemption and Priority admission read.
    disruption_budgets: Vec<DisruptionBudget>,
    priority_classes: Vec<PriorityClass>,
    /// LimitRanges, RuntimeClasses and namespace annotations: what admission reads.
    admission: AdmissionObjects,
    /// `None` when no storage object was read, so the storage plugins cannot be evaluated
    /// for a pod that uses them.
    volumes: Option<Volumes>,
    /// `None` when no DRA object was read, so DynamicResources cannot be evaluated for a pod
    /// with ResourceClaims.
    dra: Option<DraObjects>,
    /// The latest FailedScheduling event per pod.
    scheduling_events: SchedulingEvents,
    /// Which names of the nodes' images were read: all of them, or, read live, only those of
    /// the pods the read was for.
    node_images: ImageNames,
}

impl Objects {
    /// Keeps one object, as the evaluation reads it; its kind is then read (see [`Kinds`]).
    pub fn add(&mut self, object: Object) {
        match object {
            Object::Namespace {
                name,
                labels,
                annotations,
            } => {
                if let Some(a) = annotations {
                    self.admission.namespaces.insert(name.clone(), a);
                }
                self.admission
                    .existing_namespaces
                    .get_or_insert_with(Default::default)
                    .insert(name.clone());
                if let Some(labels) = labels {
                    self.namespaces
                        .get_or_insert_with(BTreeMap::new)
                        .insert(name, labels);
                }
            }
            Object::AbsentNamespace(_) => {
                self.admission
                    .existing_namespaces
                    .get_or_insert_with(Default::default);
            }
            Object::Service {
                namespace,
                selector,
            } => self.workloads_or_new().add_service(namespace, selector),
            Object::ReplicationController { key, selector } => self
                .workloads_or_new()
                .add_replication_controller(key, selector),
            Object::ReplicaSet { key, selector } => {
                self.workloads_or_new()
                    .add_label_selector(false, key, selector.as_ref());
            }
            Object::StatefulSet { key, selector } => {
                self.workloads_or_new()
                    .add_label_selector(true, key, selector.as_ref());
            }
            Object::DisruptionBudget(b) => self.disruption_budgets.push(b),
            Object::PriorityClass(c) => self.priority_classes.push(c),
            Object::LimitRange(l) => self.admission.limit_ranges.push(l),
            Object::RuntimeClass(c) => self.admission.runtime_classes.push(c),
            Object::Claim(c) => self.volumes_or_new().add_claim(*c),
            Object::Volume(v) => self.volumes_or_new().add_volume(*v),
            Object::StorageClass(c) => self.volumes_or_new().add_class(c),
            Object::CsiNode(n) => self.volumes_or_new().add_csi_node(n),
            Object::CsiDriver(d) => self.volumes_or_new().add_csi_driver(d),
            Object::DeviceClass(c) => self.dra_or_new().classes.push(*c),
            Object::ResourceSlice(sl) => self.dra_or_new().slices.push(*sl),
            Object::ResourceClaim(c) => self.dra_or_new().claims.push(*c),
            Object::ResourceClaimTemplate(t) => self.dra_or_new().templates.push(*t),
            Object::SchedulingEvent { pod, when, event } => {
                self.scheduling_events.add(pod, when, event)
            }
        }
    }

    /// Says that these kinds were read, even if none was found.
    pub fn read(&mut self, kinds: Kinds) {
        match kinds {
            Kinds::Namespaces => {
                self.namespaces.get_or_insert_with(BTreeMap::new);
            }
            Kinds::Workloads => {
                self.workloads_or_new();
            }
            Kinds::Storage => {
                self.volumes_or_new();
            }
            Kinds::Dra => {
                self.dra_or_new();
            }
        }
    }

    /// Says which names of the nodes' images were read (a live read keeps only its pods'),
    /// so that an image left out can be told from one no node has.
    pub fn read_node_images(&mut self, names: ImageNames) {
        self.node_images = names;
    }

    fn workloads_or_new(&mut self) -> &mut WorkloadSelectors {
        self.workloads.get_or_insert_with(Default::default)
    }

    fn volumes_or_new(&mut self) -> &mut Volumes {
        self.volumes.get_or_insert_with(Default::default)
    }

    fn dra_or_new(&mut self) -> &mut DraObjects {
        self.dra.get_or_insert_with(Default::default)
    }

    /// The DRA objects; `None` when none of their kinds was read.
    #[inline]
    pub fn dra(&self) -> Option<&DraObjects> {
        self.dra.as_ref()
    }

    /// The DRA objects, to add the claims the resourceclaim controller would create for a
    /// `whatif` pod; `None` when none were read.
    pub fn dra_mut(&mut self) -> Option<&mut DraObjects> {
        self.dra.as_mut()
    }

    /// Namespace labels by name; `None` when namespaces were not read at all.
    #[inline]
    pub fn namespaces(&self) -> Option<&BTreeMap<String, Labels>> {
        self.namespaces.as_ref()
    }

    /// Services, ReplicaSets, ReplicationControllers and StatefulSets; `None` when none of
    /// these kinds was read, so default spreading cannot be derived.
    #[inline]
    pub fn workloads(&self) -> Option<&WorkloadSelectors> {
        self.workloads.as_ref()
    }

    #[inline]
    pub fn disruption_budgets(&self) -> &[DisruptionBudget] {
        &self.disruption_budgets
    }

    #[inline]
    pub fn priority_classes(&self) -> &[PriorityClass] {
        &self.priority_classes
    }

    #[inline]
    pub fn admission(&self) -> &AdmissionObjects {
        &self.admission
    }

    /// The storage objects; `None` when none of their kinds was read.
    #[inline]
    pub fn volumes(&self) -> Option<&Volumes> {
        self.volumes.as_ref()
    }

    /// The storage objects, to add what a `whatif` workload would create (its
    /// volumeClaimTemplates' claims); `None` when none were read.
    pub fn volumes_mut(&mut self) -> Option<&mut Volumes> {
        self.volumes.as_mut()
    }

    /// The latest FailedScheduling event of a pod, when the source held events.
    pub fn scheduling_event(&self, namespace: &str, name: &str) -> Option<&SchedulingEvent> {
        self.scheduling_events.latest(namespace, name)
    }

    /// Which names of the nodes' images were read.
    #[inline]
    pub fn node_images(&self) -> &ImageNames {
        &self.node_images
    }
}

impl Extend<Object> for Objects {
    fn extend<I: IntoIterator<Item = Object>>(&mut self, objects: I) {
        objects.into_iter().for_each(|o| self.add(o));
    }
}

#[cfg(test)]
impl Objects {
    /// Everything kept, in a stable order (the workloads' maps are hashed): for tests that
    /// compare two reads.
    pub(crate) fn stable_debug(&self) -> String {
        use std::collections::BTreeMap as Sorted;
        let workloads = self.workloads.as_ref().map(|w| {
            (
                w.services.iter().collect::<Sorted<_, _>>(),
                w.replication_controllers.iter().collect::<Sorted<_, _>>(),
                w.replica_sets.iter().collect::<Sorted<_, _>>(),
                w.stateful_sets.iter().collect::<Sorted<_, _>>(),
            )
        });
        format!(
            "{:?}",
            (
                &self.namespaces,
                workloads,
                &self.disruption_budgets,
                &self.priority_classes,
                &self.admission,
                &self.volumes,
                &self.dra,
                &self.scheduling_events,
            )
        )
    }
}

impl Object {
    /// The kinds [`Object::decode`] reads from a file, as their objects name them.
    pub const KINDS: [&'static str; 19] = [
        "Namespace",
        "Service",
        "ReplicationController",
        "ReplicaSet",
        "StatefulSet",
        "PodDisruptionBudget",
        "PriorityClass",
        "LimitRange",
        "RuntimeClass",
        "PersistentVolumeClaim",
        "PersistentVolume",
        "StorageClass",
        "CSINode",
        "CSIDriver",
        "DeviceClass",
        "ResourceSlice",
        "ResourceClaim",
        "ResourceClaimTemplate",
        "Event",
    ];

    /// An object of a snapshot or manifest file, as the model keeps it; `None` for a kind
    /// (or an event) the model does not read. Errors name the file, the object and the field.
    pub(crate) fn decode(obj: &Located, path: &str) -> Result<Option<Object>, SourceError> {
        let namespaced_name = |m: &ObjectName| {
            (
                m.namespace.clone().unwrap_or_else(|| "default".to_string()),
                m.name.clone().unwrap_or_default(),
            )
        };
        Ok(Some(match obj.kind() {
            "Namespace" => {
                let ns: core::Namespace = obj.decode(path)?;
                Object::Namespace {
                    name: ns.metadata.name.unwrap_or_default(),
                    labels: Some(ns.metadata.labels.unwrap_or_default().into()),
                    annotations: NamespaceAnnotations::of(ns.metadata.annotations.as_ref()),
                }
            }
            "Service" => {
                let o: MapSelectorObject = obj.decode(path)?;
                Object::Service {
                    namespace: namespaced_name(&o.metadata).0,
                    selector: o.spec.and_then(|s| s.selector),
                }
            }
            "ReplicationController" => {
                let o: MapSelectorObject = obj.decode(path)?;
                Object::ReplicationController {
                    key: namespaced_name(&o.metadata),
                    selector: o.spec.and_then(|s| s.selector),
                }
            }
            kind @ ("ReplicaSet" | "StatefulSet") => {
                let o: LabelSelectorObject = obj.decode(path)?;
                let key = namespaced_name(&o.metadata);
                let selector = o.spec.and_then(|s| s.selector);
                if kind == "StatefulSet" {
                    Object::StatefulSet { key, selector }
                } else {
                    Object::ReplicaSet { key, selector }
                }
            }
            "PodDisruptionBudget" => {
                Object::DisruptionBudget(obj.decode::<DisruptionBudgetObject>(path)?.into())
            }
            "PriorityClass" => {
                Object::PriorityClass(obj.decode::<PriorityClassObject>(path)?.into())
            }
            "LimitRange" => Object::LimitRange(LimitRange::from_api(&obj.decode(path)?)),
            "RuntimeClass" => Object::RuntimeClass(RuntimeClass::from_api(&obj.decode(path)?)),
            "PersistentVolumeClaim" => Object::Claim(Box::new(Claim::from_api(&obj.decode(path)?))),
            "PersistentVolume" => Object::Volume(Box::new(Volume::from_api(&obj.decode(path)?))),
            "StorageClass" => Object::StorageClass(StorageClass::from_api(&obj.decode(path)?)),
            "CSINode" => Object::CsiNode(CsiNode::from_api(&obj.decode(path)?)),
            "CSIDriver" => Object::CsiDriver(CsiDriver::from_api(&obj.decode(path)?)),
            "DeviceClass" => {
                Object::DeviceClass(Box::new(dra::from_api::device_class(&obj.decode(path)?)))
            }
            "ResourceSlice" => {
                Object::ResourceSlice(Box::new(dra::from_api::resource_slice(&obj.decode(path)?)))
            }
            "ResourceClaim" => {
                Object::ResourceClaim(Box::new(dra::from_api::resource_claim(&obj.decode(path)?)))
            }
            "ResourceClaimTemplate" => Object::ResourceClaimTemplate(Box::new(
                dra::from_api::resource_claim_template(&obj.decode(path)?),
            )),
            // A core/v1 Event, as `kubectl get events -o yaml` writes it.
            "Event" if obj.api_version() == "v1" => {
                match events::of(&obj.decode::<core::Event>(path)?) {
                    Some((pod, when, event)) => Object::SchedulingEvent { pod, when, event },
                    None => return Ok(None),
                }
            }
            _ => return Ok(None),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every kind listed is decoded, and a kind not listed is not.
    #[test]
    fn the_kinds_listed_are_those_decoded() {
        // Only an event is read by its apiVersion; the API's types refuse another group's.
        let decoded = |kind: &str, api_version: Option<&str>| {
            let mut value = serde_json::json!({
                "kind": kind,
                "metadata": {"name": "x", "namespace": "ns"},
                "involvedObject": {"kind": "Pod", "name": "p"},
                "reason": "FailedScheduling",
                "spec": {"limits": [], "drivers": []},
                "provisioner": "p", "handler": "h",
            });
            if let Some(v) = api_version {
                value["apiVersion"] = v.into();
            }
            let obj = Located { document: 1, value };
            Object::decode(&obj, "t").expect("decodes").is_some()
        };
        for kind in Object::KINDS {
            let api_version = (kind == "Event").then_some("v1");
            assert!(decoded(kind, api_version), "{kind}");
        }
        for kind in ["Node", "Pod", "Deployment", "ConfigMap", ""] {
            assert!(!decoded(kind, None), "{kind}");
        }
        assert!(!decoded("Event", Some("events.k8s.io/v1")));
    }

    /// A kind read with none found is read; one never read is not, and adding an object of it
    /// reads it.
    #[test]
    fn read_kinds_stay_apart_from_kinds_not_read() {
        let mut o = Objects::default();
        assert!(o.namespaces().is_none() && o.workloads().is_none() && o.volumes().is_none());
        o.read(Kinds::Namespaces);
        o.read(Kinds::Storage);
        assert_eq!(o.namespaces().map(BTreeMap::len), Some(0));
        assert!(o.volumes().is_some() && o.workloads().is_none());
        o.add(Object::Service {
            namespace: "ns".into(),
            selector: None,
        });
        assert!(o.workloads().is_some_and(|w| w.services.is_empty()));
        // A namespace's annotations alone (admission's read) leave its labels unread.
        let mut o = Objects::default();
        o.add(Object::Namespace {
            name: "ns".into(),
            labels: None,
            annotations: Some(NamespaceAnnotations {
                node_selector: Some("a=b".into()),
                ..Default::default()
            }),
        });
        assert!(o.namespaces().is_none());
        assert!(o.admission().namespaces.contains_key("ns"));
    }
}
