//! What an evaluation needs read from a cluster besides its nodes and pods. The scheduler
//! decides it (`scheduler::needs`), the live client reads exactly that: plain data here, so
//! that neither has to know the other.

use std::collections::BTreeSet;

use super::OwnerKind;

/// What to read for the pods to evaluate, merged over them with [`Needs::add`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Needs {
    /// Node image names to keep (normalized): ImageLocality looks up only these.
    pub images: BTreeSet<String>,
    pub namespace_labels: NamespaceLabels,
    /// The namespaces whose Services default topology spreading selects by.
    pub services: BTreeSet<String>,
    /// The controllers default topology spreading selects by, got by name.
    pub controllers: BTreeSet<Controller>,
    /// PodDisruptionBudgets: DefaultPreemption picks victims by them.
    pub disruption_budgets: bool,
    /// PriorityClasses: Priority admission resolves a new pod's priority from them.
    pub priority_classes: bool,
    /// PersistentVolumeClaims, PersistentVolumes, StorageClasses, CSINodes and CSIDrivers:
    /// a pod uses claims or volumes the storage plugins count.
    pub storage: bool,
    /// DeviceClasses, ResourceSlices, ResourceClaims and ResourceClaimTemplates: a pod has
    /// ResourceClaims.
    pub dra: bool,
    /// Namespaces of pods to admit: their LimitRanges and admission annotations.
    pub admission_namespaces: BTreeSet<String>,
    /// RuntimeClasses: a pod to admit names one.
    pub runtime_classes: bool,
    /// Pods known only once read (`explain -l`, a workload's pods, `audit`): what any pod of
    /// the scope may need of node images and workloads is read, as a snapshot holds it.
    pub any_pod: AnyPod,
}

/// Where the pods known only once read are: nowhere (every pod is known first), one
/// namespace, or the whole cluster. Ordered from the least to the most read.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum AnyPod {
    #[default]
    No,
    Namespace(String),
    Cluster,
}

impl AnyPod {
    /// Where both scopes' pods are.
    fn merge(self, other: AnyPod) -> AnyPod {
        match (self, other) {
            (AnyPod::No, o) | (o, AnyPod::No) => o,
            (AnyPod::Namespace(a), AnyPod::Namespace(b)) if a == b => AnyPod::Namespace(a),
            _ => AnyPod::Cluster,
        }
    }
}

/// A pod's controller, as default spreading reads it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Controller {
    pub namespace: String,
    pub kind: OwnerKind,
    pub name: String,
}

/// Whether namespace labels are needed; ordered from the least to the most needed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum NamespaceLabels {
    #[default]
    No,
    /// When a term of an existing pod has a namespaceSelector: known once the pods are read.
    ForExistingTerms,
    /// A term of a pod to evaluate has a namespaceSelector.
    Yes,
}

impl Needs {
    /// Adds what `other` needs.
    pub fn add(&mut self, other: Needs) {
        self.images.extend(other.images);
        self.namespace_labels = self.namespace_labels.max(other.namespace_labels);
        self.services.extend(other.services);
        self.controllers.extend(other.controllers);
        self.disruption_budgets |= other.disruption_budgets;
        self.priority_classes |= other.priority_classes;
        self.storage |= other.storage;
        self.dra |= other.dra;
        self.admission_namespaces.extend(other.admission_namespaces);
        self.runtime_classes |= other.runtime_classes;
        self.any_pod = std::mem::take(&mut self.any_pod).merge(other.any_pod);
    }

    /// Whether default spreading needs any Service or controller.
    pub fn workloads(&self) -> bool {
        !self.services.is_empty() || !self.controllers.is_empty() || self.any_pod != AnyPod::No
    }
}
