//! The storage objects the volume plugins read (PersistentVolumeClaims, PersistentVolumes,
//! StorageClasses, CSINodes, CSIDrivers), each reduced to the fields a plugin looks at, and
//! the volumes of a pod that refer to them.
//!
//! Upstream readers: pkg/scheduler/framework/plugins/{volumebinding,volumezone,
//! volumerestrictions,nodevolumelimits} and component-helpers/storage/volume.
//!
//! Each object is read as its whole API type (`k8s-openapi`) and reduced here to the model's;
//! a PersistentVolume's node affinity becomes the model's own selector (`decode/api.rs`).

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1 as core;
use k8s_openapi::api::storage::v1 as storage;
use k8s_openapi::apimachinery::pkg::apis::meta::v1 as meta;

use super::labels::Labels;
use super::quantity::Quantity;
use super::selector::{LabelSelector, NodeSelector};

/// `v1.BetaStorageClassAnnotation`: read before `storageClassName` by
/// `GetPersistentVolumeClaimClass` and `GetPersistentVolumeClass`.
const BETA_STORAGE_CLASS: &str = "volume.beta.kubernetes.io/storage-class";
/// `volume.AnnBindCompleted`: with `spec.volumeName`, what makes a claim bound for the
/// scheduler (`isPVCFullyBound`).
const BIND_COMPLETED: &str = "pv.kubernetes.io/bind-completed";
/// `volume.AnnSelectedNode`: the node a delayed-binding claim is being provisioned for.
const SELECTED_NODE: &str = "volume.kubernetes.io/selected-node";
/// `storageutil.IsDefaultStorageClassAnnotation`.
const DEFAULT_CLASS: &str = "storageclass.kubernetes.io/is-default-class";
/// `v1.MigratedPluginsAnnotationKey` on a CSINode.
const MIGRATED_PLUGINS: &str = "storage.alpha.kubernetes.io/migrated-plugins";

/// A pod volume the storage plugins read, in the pod's order.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum PodVolume {
    /// A `persistentVolumeClaim` volume.
    Claim { claim: String },
    /// A generic `ephemeral` volume: its claim is `<pod>-<volume>` (`ephemeral.VolumeClaimName`).
    Ephemeral { volume: String },
    /// A GCE PD, AWS EBS, RBD or iSCSI volume, which VolumeRestrictions checks for conflicts.
    Disk(InlineDisk),
}

impl PodVolume {
    /// The claim this volume uses, for a pod named `pod`.
    pub fn claim_name(&self, pod: &str) -> Option<String> {
        match self {
            PodVolume::Claim { claim } => Some(claim.clone()),
            PodVolume::Ephemeral { volume } => Some(format!("{pod}-{volume}")),
            PodVolume::Disk(_) => None,
        }
    }
}

/// An inline disk, the fields `isVolumeConflict` compares.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum InlineDisk {
    GcePersistentDisk {
        pd_name: String,
        read_only: bool,
    },
    AwsElasticBlockStore {
        volume_id: String,
    },
    Rbd {
        monitors: Vec<String>,
        pool: String,
        image: String,
        read_only: bool,
    },
    Iscsi {
        iqn: String,
        read_only: bool,
    },
}

impl InlineDisk {
    /// `isVolumeConflict` (volumerestrictions/volume_restrictions.go): the same disk, unless
    /// both mount it read-only (an EBS volume conflicts even then).
    pub fn conflicts_with(&self, other: &InlineDisk) -> bool {
        use InlineDisk::*;
        match (self, other) {
            (
                GcePersistentDisk { pd_name, read_only },
                GcePersistentDisk {
                    pd_name: other,
                    read_only: other_ro,
                },
            ) => pd_name == other && !(*read_only && *other_ro),
            (AwsElasticBlockStore { volume_id }, AwsElasticBlockStore { volume_id: other }) => {
                volume_id == other
            }
            (
                Iscsi { iqn, read_only },
                Iscsi {
                    iqn: other,
                    read_only: other_ro,
                },
            ) => iqn == other && !(*read_only && *other_ro),
            (
                Rbd {
                    monitors,
                    pool,
                    image,
                    read_only,
                },
                Rbd {
                    monitors: other_monitors,
                    pool: other_pool,
                    image: other_image,
                    read_only: other_ro,
                },
            ) => {
                monitors.iter().any(|m| other_monitors.contains(m))
                    && pool == other_pool
                    && image == other_image
                    && !(*read_only && *other_ro)
            }
            _ => false,
        }
    }

    /// How the disk is named in the output: its kind and identity.
    pub fn describe(&self) -> String {
        match self {
            InlineDisk::GcePersistentDisk { pd_name, .. } => format!("gcePersistentDisk {pd_name}"),
            InlineDisk::AwsElasticBlockStore { volume_id } => {
                format!("awsElasticBlockStore {volume_id}")
            }
            InlineDisk::Rbd { pool, image, .. } => format!("rbd {pool}/{image}"),
            InlineDisk::Iscsi { iqn, .. } => format!("iscsi {iqn}"),
        }
    }
}

/// A PersistentVolumeClaim, the fields the storage plugins read.
#[derive(Debug, Clone)]
pub struct Claim {
    pub namespace: String,
    pub name: String,
    pub uid: String,
    /// `spec.volumeName`; empty when unbound.
    pub volume_name: String,
    /// `GetPersistentVolumeClaimClass`: the beta annotation, else `spec.storageClassName`.
    pub class: String,
    /// `pv.kubernetes.io/bind-completed` is set.
    pub bind_completed: bool,
    /// `volume.kubernetes.io/selected-node`.
    pub selected_node: Option<String>,
    pub access_modes: Vec<String>,
    /// `spec.resources.requests.storage`; `None` when absent.
    pub request: Option<Quantity>,
    /// `spec.selector`, parsed; `Err` keeps the parse error.
    pub selector: Option<Result<LabelSelector, String>>,
    /// `spec.volumeMode`, `Filesystem` when unset.
    pub volume_mode: String,
    /// `spec.volumeAttributesClassName`, empty when unset.
    pub attributes_class: String,
    /// `status.phase: Lost`.
    pub lost: bool,
    pub deleting: bool,
    /// The name of the Pod controlling the claim (`metav1.GetControllerOf`), for generic
    /// ephemeral volumes: `ephemeral.VolumeIsForPod` compares UIDs, which the model does not
    /// keep; the name and namespace identify the pod as well while it exists.
    pub owner_pod: Option<String>,
    /// `whatif`: the claim a StatefulSet's volumeClaimTemplate would create, not in the
    /// cluster yet.
    pub from_template: bool,
}

impl Claim {
    pub fn from_api(c: &core::PersistentVolumeClaim) -> Claim {
        let m = &c.metadata;
        let annotations = m.annotations.as_ref();
        let annotation = |key: &str| annotations.and_then(|a| a.get(key)).cloned();
        let spec = c.spec.as_ref();
        let class = annotation(BETA_STORAGE_CLASS)
            .or_else(|| spec.and_then(|s| s.storage_class_name.clone()))
            .unwrap_or_default();
        Claim {
            namespace: m.namespace.clone().unwrap_or_else(|| "default".to_string()),
            name: m.name.clone().unwrap_or_default(),
            uid: m.uid.clone().unwrap_or_default(),
            volume_name: spec.and_then(|s| s.volume_name.clone()).unwrap_or_default(),
            class,
            bind_completed: annotation(BIND_COMPLETED).is_some(),
            selected_node: annotation(SELECTED_NODE),
            access_modes: spec
                .and_then(|s| s.access_modes.clone())
                .unwrap_or_default(),
            request: spec
                .and_then(|s| s.resources.as_ref())
                .and_then(|r| r.requests.as_ref())
                .and_then(|r| r.get("storage"))
                .map(|q| Quantity::parse(&q.0).unwrap_or_default()),
            selector: spec
                .and_then(|s| s.selector.as_ref())
                .map(|s| LabelSelector::from_api(Some(&s.clone().into()))),
            volume_mode: spec
                .and_then(|s| s.volume_mode.clone())
                .unwrap_or_else(|| "Filesystem".to_string()),
            attributes_class: spec
                .and_then(|s| s.volume_attributes_class_name.clone())
                .unwrap_or_default(),
            lost: c.status.as_ref().and_then(|s| s.phase.as_deref()) == Some("Lost"),
            deleting: m.deletion_timestamp.is_some(),
            owner_pod: m
                .owner_references
                .iter()
                .flatten()
                .find(|o| o.controller == Some(true) && o.kind == "Pod" && o.api_version == "v1")
                .map(|o| o.name.clone()),
            from_template: false,
        }
    }

    /// `isPVCFullyBound`: a volume name and the bind-completed annotation.
    pub fn is_bound(&self) -> bool {
        !self.volume_name.is_empty() && self.bind_completed
    }

    /// Whether the claim asks for `ReadWriteOncePod`.
    pub fn read_write_once_pod(&self) -> bool {
        self.access_modes.iter().any(|m| m == "ReadWriteOncePod")
    }
}

/// Where a PersistentVolume's data lives, as far as the plugins care.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VolumeSource {
    /// A CSI volume: its driver and handle.
    Csi { driver: String, handle: String },
    /// An in-tree volume whose plugin is migrated to CSI (`kubernetes.io/gce-pd`...).
    Migratable(&'static str),
    /// Any other in-tree volume (local, hostPath, nfs...).
    Other,
}

/// A PersistentVolume, the fields the storage plugins read.
#[derive(Debug, Clone)]
pub struct Volume {
    pub name: String,
    pub labels: Labels,
    /// `spec.nodeAffinity.required`, parsed, with the terms as written for the drill-down.
    pub node_affinity: Option<NodeSelector>,
    pub capacity: Quantity,
    pub access_modes: Vec<String>,
    /// `GetPersistentVolumeClass`: the beta annotation, else `spec.storageClassName`.
    pub class: String,
    pub claim_ref: Option<ClaimRef>,
    pub phase: String,
    pub volume_mode: String,
    pub attributes_class: String,
    pub deleting: bool,
    pub source: VolumeSource,
}

/// `spec.claimRef`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaimRef {
    pub namespace: String,
    pub name: String,
    pub uid: String,
}

impl Volume {
    pub fn from_api(v: &core::PersistentVolume) -> Volume {
        let m = &v.metadata;
        let spec = v.spec.clone().unwrap_or_default();
        let class = m
            .annotations
            .as_ref()
            .and_then(|a| a.get(BETA_STORAGE_CLASS))
            .cloned()
            .or(spec.storage_class_name.clone())
            .unwrap_or_default();
        Volume {
            name: m.name.clone().unwrap_or_default(),
            labels: m.labels.clone().unwrap_or_default().into(),
            node_affinity: spec
                .node_affinity
                .as_ref()
                .and_then(|a| a.required.clone())
                .map(|r| NodeSelector::parse(&r.into())),
            capacity: spec
                .capacity
                .as_ref()
                .and_then(|c| c.get("storage"))
                .map(|q| Quantity::parse(&q.0).unwrap_or_default())
                .unwrap_or_default(),
            access_modes: spec.access_modes.clone().unwrap_or_default(),
            class,
            claim_ref: spec.claim_ref.as_ref().map(|r| ClaimRef {
                namespace: r.namespace.clone().unwrap_or_default(),
                name: r.name.clone().unwrap_or_default(),
                uid: r.uid.clone().unwrap_or_default(),
            }),
            phase: v
                .status
                .as_ref()
                .and_then(|s| s.phase.clone())
                .unwrap_or_default(),
            volume_mode: spec
                .volume_mode
                .clone()
                .unwrap_or_else(|| "Filesystem".to_string()),
            attributes_class: spec
                .volume_attributes_class_name
                .clone()
                .unwrap_or_default(),
            deleting: m.deletion_timestamp.is_some(),
            source: source_of(&spec),
        }
    }

    /// `IsVolumeBoundToClaim`: the claim reference names the claim (and its UID, when set).
    pub fn is_bound_to(&self, claim: &Claim) -> bool {
        self.claim_ref.as_ref().is_some_and(|r| {
            r.name == claim.name
                && r.namespace == claim.namespace
                && (r.uid.is_empty() || r.uid == claim.uid)
        })
    }

    /// `CheckNodeAffinity` (component-helpers/storage/volume): the required terms against a
    /// node made of its labels only, so a `matchFields` term sees an empty node name.
    pub fn affinity_matches(&self, labels: &Labels) -> bool {
        self.node_affinity
            .as_ref()
            .is_none_or(|s| s.matches("", labels))
    }
}

/// The in-tree plugins csi-translation-lib migrates, by the volume source that names them.
fn source_of(spec: &core::PersistentVolumeSpec) -> VolumeSource {
    if let Some(csi) = &spec.csi {
        return VolumeSource::Csi {
            driver: csi.driver.clone(),
            handle: csi.volume_handle.clone(),
        };
    }
    let migratable = [
        (spec.gce_persistent_disk.is_some(), "kubernetes.io/gce-pd"),
        (
            spec.aws_elastic_block_store.is_some(),
            "kubernetes.io/aws-ebs",
        ),
        (spec.azure_disk.is_some(), "kubernetes.io/azure-disk"),
        (spec.azure_file.is_some(), "kubernetes.io/azure-file"),
        (spec.cinder.is_some(), "kubernetes.io/cinder"),
        (
            spec.vsphere_volume.is_some(),
            "kubernetes.io/vsphere-volume",
        ),
        (
            spec.portworx_volume.is_some(),
            "kubernetes.io/portworx-volume",
        ),
    ];
    migratable
        .into_iter()
        .find(|(set, _)| *set)
        .map_or(VolumeSource::Other, |(_, plugin)| {
            VolumeSource::Migratable(plugin)
        })
}

/// A StorageClass, the fields the storage plugins read.
#[derive(Debug, Clone)]
pub struct StorageClass {
    pub name: String,
    pub provisioner: String,
    /// `volumeBindingMode`; `None` when unset (the API server defaults it to `Immediate`).
    pub binding_mode: Option<String>,
    /// `allowedTopologies`: each term's label requirements (key, values).
    pub allowed_topologies: Vec<Vec<(String, Vec<String>)>>,
    pub is_default: bool,
    pub created: Option<meta::Time>,
}

impl StorageClass {
    pub fn from_api(c: &storage::StorageClass) -> StorageClass {
        StorageClass {
            name: c.metadata.name.clone().unwrap_or_default(),
            provisioner: c.provisioner.clone(),
            binding_mode: c.volume_binding_mode.clone(),
            allowed_topologies: c
                .allowed_topologies
                .iter()
                .flatten()
                .map(|t| {
                    t.match_label_expressions
                        .iter()
                        .flatten()
                        .map(|e| (e.key.clone(), e.values.clone()))
                        .collect()
                })
                .collect(),
            is_default: c
                .metadata
                .annotations
                .as_ref()
                .and_then(|a| a.get(DEFAULT_CLASS))
                .is_some_and(|v| v == "true"),
            created: c.metadata.creation_timestamp.clone(),
        }
    }

    /// `MatchTopologySelectorTerms`: no terms match every node; otherwise some term whose
    /// every requirement the node's labels satisfy.
    pub fn topology_allows(&self, labels: &Labels) -> bool {
        self.allowed_topologies.is_empty()
            || self.allowed_topologies.iter().any(|term| {
                term.iter().all(|(key, values)| {
                    labels
                        .get(key)
                        .is_some_and(|v| values.iter().any(|x| x == v))
                })
            })
    }

    pub fn wait_for_first_consumer(&self) -> bool {
        self.binding_mode.as_deref() == Some("WaitForFirstConsumer")
    }
}

/// A CSINode: the drivers installed on a node with their attach limits.
#[derive(Debug, Clone, Default)]
pub struct CsiNode {
    pub name: String,
    /// The in-tree plugins the node migrated to CSI (its migrated-plugins annotation).
    pub migrated_plugins: Vec<String>,
    pub drivers: Vec<CsiNodeDriver>,
}

#[derive(Debug, Clone)]
pub struct CsiNodeDriver {
    pub name: String,
    /// `allocatable.count`: how many of its volumes the node can attach.
    pub allocatable: Option<i32>,
}

impl CsiNode {
    pub fn from_api(n: &storage::CSINode) -> CsiNode {
        CsiNode {
            name: n.metadata.name.clone().unwrap_or_default(),
            migrated_plugins: n
                .metadata
                .annotations
                .as_ref()
                .and_then(|a| a.get(MIGRATED_PLUGINS))
                .map(|v| v.split(',').map(str::to_string).collect())
                .unwrap_or_default(),
            drivers: n
                .spec
                .drivers
                .iter()
                .map(|d| CsiNodeDriver {
                    name: d.name.clone(),
                    allocatable: d.allocatable.as_ref().and_then(|a| a.count),
                })
                .collect(),
        }
    }

    /// `isCSIMigrationOn`: the node lists the in-tree plugin as migrated (every migration
    /// feature gate is locked on in 1.35).
    pub fn migrated(&self, plugin: &str) -> bool {
        self.migrated_plugins.iter().any(|p| p == plugin)
    }
}

/// A CSIDriver, the field VolumeBinding reads.
#[derive(Debug, Clone)]
pub struct CsiDriver {
    pub name: String,
    /// `spec.storageCapacity`: provisioning checks CSIStorageCapacity objects.
    pub storage_capacity: bool,
}

impl CsiDriver {
    pub fn from_api(d: &storage::CSIDriver) -> CsiDriver {
        CsiDriver {
            name: d.metadata.name.clone().unwrap_or_default(),
            storage_capacity: d.spec.storage_capacity == Some(true),
        }
    }
}

/// Every storage object read, by the keys the plugins' listers look them up by.
#[derive(Debug, Clone, Default)]
pub struct Volumes {
    claims: BTreeMap<(String, String), Claim>,
    volumes: BTreeMap<String, Volume>,
    classes: BTreeMap<String, StorageClass>,
    csi_nodes: BTreeMap<String, CsiNode>,
    csi_drivers: BTreeMap<String, CsiDriver>,
}

impl Volumes {
    pub fn add_claim(&mut self, c: Claim) {
        self.claims.insert((c.namespace.clone(), c.name.clone()), c);
    }
    pub fn add_volume(&mut self, v: Volume) {
        self.volumes.insert(v.name.clone(), v);
    }
    pub fn add_class(&mut self, c: StorageClass) {
        self.classes.insert(c.name.clone(), c);
    }
    pub fn add_csi_node(&mut self, n: CsiNode) {
        self.csi_nodes.insert(n.name.clone(), n);
    }
    pub fn add_csi_driver(&mut self, d: CsiDriver) {
        self.csi_drivers.insert(d.name.clone(), d);
    }

    /// Adds a claim a `whatif` workload would create (a StatefulSet's from its
    /// volumeClaimTemplates), as the API server would store it (the DefaultStorageClass
    /// admission plugin names the default class when it names none); an existing claim of
    /// that name is the one the replica uses (a bound one pins it), and stays.
    pub fn add_template_claim(&mut self, claim: &core::PersistentVolumeClaim) {
        let mut c = Claim::from_api(claim);
        if self.claim(&c.namespace, &c.name).is_some() {
            return;
        }
        let named = claim
            .spec
            .as_ref()
            .is_some_and(|s| s.storage_class_name.is_some())
            || !c.class.is_empty();
        if !named && let Some(default) = self.default_class() {
            c.class = default.name.clone();
        }
        c.from_template = true;
        self.add_claim(c);
    }

    pub fn claim(&self, namespace: &str, name: &str) -> Option<&Claim> {
        self.claims.get(&(namespace.to_string(), name.to_string()))
    }
    pub fn volume(&self, name: &str) -> Option<&Volume> {
        self.volumes.get(name)
    }
    pub fn class(&self, name: &str) -> Option<&StorageClass> {
        self.classes.get(name)
    }
    pub fn csi_node(&self, name: &str) -> Option<&CsiNode> {
        self.csi_nodes.get(name)
    }
    pub fn csi_driver(&self, name: &str) -> Option<&CsiDriver> {
        self.csi_drivers.get(name)
    }
    /// `pvCache.ListPVs(class)`: the volumes of a storage class, by name.
    pub fn volumes_of_class<'a>(&'a self, class: &'a str) -> impl Iterator<Item = &'a Volume> {
        self.volumes.values().filter(move |v| v.class == class)
    }

    /// The class the DefaultStorageClass admission plugin gives a new claim without one
    /// (`GetDefaultClass`): of the classes marked default, the newest, then the first by
    /// name; `None` when none is.
    pub fn default_class(&self) -> Option<&StorageClass> {
        self.classes
            .values()
            .filter(|c| c.is_default)
            .max_by(|a, b| {
                a.created
                    .as_ref()
                    .map(|t| t.0)
                    .cmp(&b.created.as_ref().map(|t| t.0))
                    .then_with(|| b.name.cmp(&a.name))
            })
    }
}

/// Whether `labels` has any of the zone and region keys VolumeZone reads.
pub fn has_zone_labels(labels: &Labels) -> bool {
    ZONE_LABELS.iter().any(|k| labels.get(k).is_some())
}

/// `topologyLabels` (volumezone/volume_zone.go): the beta and GA zone and region keys.
pub const ZONE_LABELS: [&str; 4] = [
    "failure-domain.beta.kubernetes.io/zone",
    "failure-domain.beta.kubernetes.io/region",
    "topology.kubernetes.io/zone",
    "topology.kubernetes.io/region",
];

#[cfg(test)]
mod tests {
    use super::*;

    fn rbd(monitors: &[&str], ro: bool) -> InlineDisk {
        InlineDisk::Rbd {
            monitors: monitors.iter().map(|s| s.to_string()).collect(),
            pool: "rbd".into(),
            image: "img".into(),
            read_only: ro,
        }
    }

    /// `isVolumeConflict`: read-only on both sides is no conflict, save for EBS; RBD images
    /// are the same when a monitor is shared.
    #[test]
    fn disk_conflicts_follow_upstream() {
        let gce = |ro| InlineDisk::GcePersistentDisk {
            pd_name: "pd".into(),
            read_only: ro,
        };
        assert!(gce(false).conflicts_with(&gce(true)));
        assert!(!gce(true).conflicts_with(&gce(true)));
        let ebs = InlineDisk::AwsElasticBlockStore {
            volume_id: "vol".into(),
        };
        assert!(ebs.conflicts_with(&ebs.clone()));
        assert!(rbd(&["a", "b"], false).conflicts_with(&rbd(&["b"], true)));
        assert!(!rbd(&["a"], false).conflicts_with(&rbd(&["b"], false)));
        assert!(!rbd(&["a"], true).conflicts_with(&rbd(&["a"], true)));
        assert!(!gce(false).conflicts_with(&ebs));
    }

    #[test]
    fn default_class_is_the_newest_default() {
        let class = |name: &str, default: bool, created: &str| {
            let c: storage::StorageClass = serde_json::from_value(serde_json::json!({
                "metadata": {"name": name, "creationTimestamp": created, "annotations":
                    {DEFAULT_CLASS: if default { "true" } else { "false" }}},
                "provisioner": "p"
            }))
            .expect("class");
            StorageClass::from_api(&c)
        };
        let mut v = Volumes::default();
        v.add_class(class("old", true, "2024-01-01T00:00:00Z"));
        v.add_class(class("new", true, "2025-01-01T00:00:00Z"));
        v.add_class(class("newest", false, "2026-01-01T00:00:00Z"));
        assert_eq!(v.default_class().map(|c| c.name.as_str()), Some("new"));
    }
}
