//! The cluster's state, read live: nodes and non-terminal pods in pages folded into the
//! compact model as they arrive, and exactly what else the evaluation [`Needs`].

use std::cell::RefCell;

use k8s_openapi::api::apps::v1 as apps;
use k8s_openapi::api::core::v1 as core;
use k8s_openapi::api::policy::v1 as policy;
use k8s_openapi::api::resource::v1 as resource;
use k8s_openapi::api::scheduling::v1 as scheduling;
use k8s_openapi::api::storage::v1 as storage;
use kube::api::Api;

use super::client::Live;
use super::error::{ClusterError, unless_forbidden};
use super::notes::{Omission, Refused};
use super::pager::{Decode, Page};
use super::requests::Request;
use crate::state::dra;
use crate::state::labels::Labels;
use crate::state::needs::{AnyPod, NamespaceLabels, Needs};
use crate::state::resources::ImageNames;
use crate::state::volumes::{Claim, CsiDriver, CsiNode, StorageClass, Volume};
use crate::state::{
    ClusterState, DisruptionBudgetObject, Kinds, LabelSelectorObject, MapSelectorObject, Node,
    Object, Objects, OwnerKind, Pod, PriorityClassObject,
};

/// The field selector of the scheduler's own pod informer: terminal pods hold nothing.
pub(super) const NON_TERMINAL_PODS: &str = "status.phase!=Succeeded,status.phase!=Failed";

/// Cluster state read live, with what the reading left out.
#[derive(Debug)]
pub struct Fetched {
    pub state: ClusterState,
    pub omissions: Vec<Omission>,
}

impl Live {
    /// Nodes (keeping the image names `needs` asks for), non-terminal pods, and the
    /// namespaces and workloads `needs` asks for.
    pub fn fetch_state(&self, needs: &Needs) -> Result<Fetched, ClusterError> {
        self.rt.block_on(self.fetch_state_async(needs))
    }

    async fn fetch_state_async(&self, needs: &Needs) -> Result<Fetched, ClusterError> {
        let mut omissions = Vec::new();
        // Nodes, pods and workloads are listed at once, every page decoded on a blocking
        // thread while the next ones download; pod pages that arrive before the nodes wait
        // for them. Errors are reported in the order the lists
        // were read one after the other: nodes, pods, namespaces, workloads.
        let nodes: RefCell<Vec<Node>> = RefCell::new(Vec::new());
        // The pages are folded into the state on a thread of their own: folding a page on
        // the thread that reads every answer held up the next request.
        let (fold, folded) = std::sync::mpsc::channel();
        let folding = tokio::task::spawn_blocking(move || fold_pods(folded));
        let images = if needs.any_pod == AnyPod::No {
            ImageNames::Only(needs.images.iter().cloned().collect())
        } else {
            ImageNames::All
        };
        let list_nodes = async {
            self.server
                .list(
                    "/api/v1/nodes",
                    &Request::new("list", "nodes", false),
                    None,
                    node_pages(images.clone()),
                    &mut |page| {
                        match page {
                            Page::Restart => nodes.borrow_mut().clear(),
                            Page::Items(items) => nodes.borrow_mut().extend(items),
                        }
                        Ok(())
                    },
                )
                .await?;
            // The folding thread only ends once `fold` is dropped, below.
            let _ = fold.send(Fold::Nodes(nodes.take()));
            Ok::<(), ClusterError>(())
        };
        let list_pods = async {
            self.server
                .list(
                    "/api/v1/pods",
                    &Request::new("list", "pods", true),
                    Some(NON_TERMINAL_PODS),
                    pod_pages(),
                    &mut |page| {
                        let _ = fold.send(Fold::Pods(page));
                        Ok(())
                    },
                )
                .await
        };
        let list_workloads = async {
            if !needs.workloads() {
                return Ok(None);
            }
            self.workloads(needs).await.map(Some)
        };
        let (listed_nodes, listed_pods, workloads) =
            tokio::join!(list_nodes, list_pods, list_workloads);
        drop(fold);
        listed_nodes?;
        listed_pods?;
        // The nodes were listed, so the state is built.
        let mut state = match folding.await {
            Ok(state) => state.expect("the nodes were listed, so the state was built"),
            // A panic while folding stays a panic, as when pages were folded in place.
            Err(e) => std::panic::resume_unwind(e.into_panic()),
        };
        state.objects_mut().read_node_images(images);
        let namespaces = match needs.namespace_labels {
            NamespaceLabels::No => false,
            NamespaceLabels::ForExistingTerms => existing_terms_need_namespace_labels(&state),
            NamespaceLabels::Yes => true,
        };
        // What is read beside the nodes and pods joins them one object at a time; a kind
        // whose list was refused is left unread, and said.
        let objects = state.objects_mut();
        let target = &self.server.target;
        if namespaces {
            match self.namespaces().await? {
                Ok(listed) => {
                    objects.read(Kinds::Namespaces);
                    objects.extend(listed);
                }
                Err(refused) => {
                    omissions.push(Omission::Namespaces(Refused::new(&refused, target)))
                }
            }
        }
        if needs.disruption_budgets || needs.priority_classes {
            let listed = self.preemption_objects(needs, &mut omissions).await?;
            objects.extend(listed);
        }
        if !needs.admission_namespaces.is_empty() || needs.runtime_classes {
            match self.admission_objects(needs).await? {
                Ok(listed) => objects.extend(listed),
                Err(refused) => omissions.push(Omission::Admission(Refused::new(&refused, target))),
            }
        }
        if needs.storage {
            match self.storage().await? {
                Ok(listed) => {
                    objects.read(Kinds::Storage);
                    objects.extend(listed);
                }
                Err(refused) => omissions.push(Omission::Storage(Refused::new(&refused, target))),
            }
        }
        if needs.dra {
            match self.dra().await? {
                Ok(listed) => {
                    objects.read(Kinds::Dra);
                    objects.extend(listed);
                }
                Err(refused) => omissions.push(Omission::Dra(Refused::new(&refused, target))),
            }
        }
        if let Some(workloads) = workloads? {
            match workloads {
                Ok(listed) => {
                    objects.read(Kinds::Workloads);
                    objects.extend(listed);
                }
                Err(refused) => omissions.push(Omission::Workloads(Refused::new(&refused, target))),
            }
        }
        Ok(Fetched { state, omissions })
    }

    /// What `helper.DefaultSelector` reads: the Services of the namespaces and the
    /// controllers `needs` names, got by name. Nothing else is read: listing every Service,
    /// ReplicaSet, ReplicationController and StatefulSet of the cluster gave the same
    /// selectors for far more bytes and permissions (a real cluster keeps ten old
    /// ReplicaSets per Deployment, each with its pod template). `Err(request)` when one is
    /// forbidden.
    async fn workloads(&self, needs: &Needs) -> Result<Result<Vec<Object>, Request>, ClusterError> {
        let scope = match &needs.any_pod {
            AnyPod::No => None,
            AnyPod::Namespace(ns) => Some(Some(ns.as_str())),
            AnyPod::Cluster => Some(None),
        };
        if let Some(namespace) = scope {
            return self.all_workloads(namespace).await;
        }
        let client = &self.server.client;
        let mut w = Vec::new();
        for ns in &needs.services {
            // Only the selector is decoded: every Service's other fields are stepped over.
            let req = Request::new("list", "services", true).namespace(ns);
            let services = self
                .server
                .collect(
                    Api::<core::Service>::namespaced(client.clone(), ns).resource_url(),
                    req.clone(),
                    |o: MapSelectorObject| Some(o.spec.and_then(|s| s.selector)),
                )
                .await;
            match unless_forbidden(services, req)? {
                Ok(selectors) => w.extend(selectors.into_iter().map(|selector| Object::Service {
                    namespace: ns.to_string(),
                    selector,
                })),
                Err(refused) => return Ok(Err(refused)),
            }
        }
        for c in &needs.controllers {
            let (ns, kind, name) = (c.namespace.as_str(), c.kind, c.name.as_str());
            let key = (ns.to_string(), name.to_string());
            let (resource, url) = match kind {
                OwnerKind::ReplicationController => (
                    "replicationcontrollers",
                    Api::<core::ReplicationController>::namespaced(client.clone(), ns)
                        .resource_url()
                        .to_string(),
                ),
                OwnerKind::ReplicaSet => (
                    "replicasets",
                    Api::<apps::ReplicaSet>::namespaced(client.clone(), ns)
                        .resource_url()
                        .to_string(),
                ),
                OwnerKind::StatefulSet => (
                    "statefulsets",
                    Api::<apps::StatefulSet>::namespaced(client.clone(), ns)
                        .resource_url()
                        .to_string(),
                ),
            };
            let req = Request::new("get", resource, true).namespace(ns).name(name);
            let got = match kind {
                OwnerKind::ReplicationController => {
                    self.server.get_slim(&url, name, &req).await.map(|o| {
                        o.map(|o: MapSelectorObject| Object::ReplicationController {
                            key,
                            selector: o.spec.and_then(|s| s.selector),
                        })
                    })
                }
                OwnerKind::ReplicaSet | OwnerKind::StatefulSet => {
                    self.server.get_slim(&url, name, &req).await.map(|o| {
                        o.map(|o: LabelSelectorObject| {
                            let selector = o.spec.and_then(|s| s.selector);
                            if kind == OwnerKind::StatefulSet {
                                Object::StatefulSet { key, selector }
                            } else {
                                Object::ReplicaSet { key, selector }
                            }
                        })
                    })
                }
            };
            match unless_forbidden(got, req)? {
                Ok(got) => w.extend(got),
                Err(refused) => return Ok(Err(refused)),
            }
        }
        Ok(Ok(w))
    }

    /// Every Service, ReplicationController, ReplicaSet and StatefulSet of `namespace` (of
    /// the cluster for `None`), their selectors only: what default spreading may read for
    /// pods known only once read. `Err(request)` when one list is forbidden.
    async fn all_workloads(
        &self,
        namespace: Option<&str>,
    ) -> Result<Result<Vec<Object>, Request>, ClusterError> {
        fn url<K: kube::Resource<DynamicType = (), Scope = k8s_openapi::NamespaceResourceScope>>(
            client: &kube::Client,
            ns: Option<&str>,
        ) -> String {
            match ns {
                Some(ns) => Api::<K>::namespaced(client.clone(), ns)
                    .resource_url()
                    .to_string(),
                None => Api::<K>::all(client.clone()).resource_url().to_string(),
            }
        }
        fn key(m: crate::state::ObjectName) -> (String, String) {
            (m.namespace.unwrap_or_default(), m.name.unwrap_or_default())
        }
        let client = &self.server.client;
        let req = |resource: &'static str| {
            let req = Request::new("list", resource, true);
            match namespace {
                Some(ns) => req.namespace(ns),
                None => req,
            }
        };
        let mut w = Vec::new();
        let r = req("services");
        let listed = self
            .server
            .collect(
                &url::<core::Service>(client, namespace),
                r.clone(),
                |o: MapSelectorObject| {
                    Some(Object::Service {
                        namespace: key(o.metadata).0,
                        selector: o.spec.and_then(|s| s.selector),
                    })
                },
            )
            .await;
        match unless_forbidden(listed, r)? {
            Ok(items) => w.extend(items),
            Err(refused) => return Ok(Err(refused)),
        }
        let r = req("replicationcontrollers");
        let listed = self
            .server
            .collect(
                &url::<core::ReplicationController>(client, namespace),
                r.clone(),
                |o: MapSelectorObject| {
                    Some(Object::ReplicationController {
                        key: key(o.metadata),
                        selector: o.spec.and_then(|s| s.selector),
                    })
                },
            )
            .await;
        match unless_forbidden(listed, r)? {
            Ok(items) => w.extend(items),
            Err(refused) => return Ok(Err(refused)),
        }
        let r = req("replicasets");
        let listed = self
            .server
            .collect(
                &url::<apps::ReplicaSet>(client, namespace),
                r.clone(),
                |o: LabelSelectorObject| {
                    Some(Object::ReplicaSet {
                        key: key(o.metadata),
                        selector: o.spec.and_then(|s| s.selector),
                    })
                },
            )
            .await;
        match unless_forbidden(listed, r)? {
            Ok(items) => w.extend(items),
            Err(refused) => return Ok(Err(refused)),
        }
        let r = req("statefulsets");
        let listed = self
            .server
            .collect(
                &url::<apps::StatefulSet>(client, namespace),
                r.clone(),
                |o: LabelSelectorObject| {
                    Some(Object::StatefulSet {
                        key: key(o.metadata),
                        selector: o.spec.and_then(|s| s.selector),
                    })
                },
            )
            .await;
        match unless_forbidden(listed, r)? {
            Ok(items) => w.extend(items),
            Err(refused) => return Ok(Err(refused)),
        }
        Ok(Ok(w))
    }

    /// The PodDisruptionBudgets and PriorityClasses `needs` asks for, their selectors and
    /// values only; a list the API server refuses is left out, and said.
    async fn preemption_objects(
        &self,
        needs: &Needs,
        omissions: &mut Vec<Omission>,
    ) -> Result<Vec<Object>, ClusterError> {
        let client = &self.server.client;
        let refused =
            |req: &Request| Omission::PreemptionObjects(Refused::new(req, &self.server.target));
        let mut objects = Vec::new();
        if needs.disruption_budgets {
            let req = Request::new("list", "poddisruptionbudgets", true);
            let api: Api<policy::PodDisruptionBudget> = Api::all(client.clone());
            let listed = self
                .server
                .collect(
                    api.resource_url(),
                    req.clone(),
                    |o: DisruptionBudgetObject| Some(Object::DisruptionBudget(o.into())),
                )
                .await;
            match unless_forbidden(listed, req)? {
                Ok(b) => objects.extend(b),
                Err(req) => omissions.push(refused(&req)),
            }
        }
        if needs.priority_classes {
            let req = Request::new("list", "priorityclasses", false);
            let api: Api<scheduling::PriorityClass> = Api::all(client.clone());
            let listed = self
                .server
                .collect(api.resource_url(), req.clone(), |o: PriorityClassObject| {
                    Some(Object::PriorityClass(o.into()))
                })
                .await;
            match unless_forbidden(listed, req)? {
                Ok(c) => objects.extend(c),
                Err(req) => omissions.push(refused(&req)),
            }
        }
        Ok(objects)
    }

    /// Every PersistentVolumeClaim, PersistentVolume, StorageClass, CSINode and CSIDriver,
    /// each decoded to what the volume plugins read; `Err(request)` when a list is forbidden.
    async fn storage(&self) -> Result<Result<Vec<Object>, Request>, ClusterError> {
        let mut objects = Vec::new();
        let claims = self.list_all(
            "persistentvolumeclaims",
            true,
            |o: core::PersistentVolumeClaim| Some(Object::Claim(Box::new(Claim::from_api(&o)))),
        );
        match claims.await? {
            Ok(items) => objects.extend(items),
            Err(req) => return Ok(Err(req)),
        }
        let volumes = self.list_all("persistentvolumes", false, |o: core::PersistentVolume| {
            Some(Object::Volume(Box::new(Volume::from_api(&o))))
        });
        match volumes.await? {
            Ok(items) => objects.extend(items),
            Err(req) => return Ok(Err(req)),
        }
        let classes = self.list_all("storageclasses", false, |o: storage::StorageClass| {
            Some(Object::StorageClass(StorageClass::from_api(&o)))
        });
        match classes.await? {
            Ok(items) => objects.extend(items),
            Err(req) => return Ok(Err(req)),
        }
        let csi_nodes = self.list_all("csinodes", false, |o: storage::CSINode| {
            Some(Object::CsiNode(CsiNode::from_api(&o)))
        });
        match csi_nodes.await? {
            Ok(items) => objects.extend(items),
            Err(req) => return Ok(Err(req)),
        }
        let drivers = self.list_all("csidrivers", false, |o: storage::CSIDriver| {
            Some(Object::CsiDriver(CsiDriver::from_api(&o)))
        });
        match drivers.await? {
            Ok(items) => objects.extend(items),
            Err(req) => return Ok(Err(req)),
        }
        Ok(Ok(objects))
    }

    /// Every DeviceClass, ResourceSlice, ResourceClaim and ResourceClaimTemplate
    /// (resource.k8s.io/v1), what DynamicResources reads; `Err(request)` when one list is
    /// forbidden.
    async fn dra(&self) -> Result<Result<Vec<Object>, Request>, ClusterError> {
        let lists = [
            self.list_all("deviceclasses", false, |o: resource::DeviceClass| {
                Some(Object::DeviceClass(Box::new(dra::from_api::device_class(
                    &o,
                ))))
            })
            .await,
            self.list_all("resourceslices", false, |o: resource::ResourceSlice| {
                Some(Object::ResourceSlice(Box::new(
                    dra::from_api::resource_slice(&o),
                )))
            })
            .await,
            self.list_all("resourceclaims", true, |o: resource::ResourceClaim| {
                Some(Object::ResourceClaim(Box::new(
                    dra::from_api::resource_claim(&o),
                )))
            })
            .await,
            self.list_all(
                "resourceclaimtemplates",
                true,
                |o: resource::ResourceClaimTemplate| {
                    Some(Object::ResourceClaimTemplate(Box::new(
                        dra::from_api::resource_claim_template(&o),
                    )))
                },
            )
            .await,
        ];
        let mut objects = Vec::new();
        for list in lists {
            match list {
                Ok(Ok(items)) => objects.extend(items),
                Ok(Err(req)) => return Ok(Err(req)),
                // A server without resource.k8s.io/v1 (before 1.34) has none of them.
                Err(ClusterError::NotServed { .. }) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(Ok(objects))
    }

    /// Every object of a kind, each made into what the model keeps; `Err(request)` when the
    /// list is forbidden.
    async fn list_all<K, T>(
        &self,
        resource: &'static str,
        namespaced: bool,
        extract: fn(K) -> Option<T>,
    ) -> Result<Result<Vec<T>, Request>, ClusterError>
    where
        K: kube::Resource<DynamicType = ()> + serde::de::DeserializeOwned + Send + 'static,
        T: Send + 'static,
    {
        let req = Request::new("list", resource, namespaced);
        let url = Api::<K>::all(self.server.client.clone())
            .resource_url()
            .to_string();
        unless_forbidden(self.server.collect(&url, req.clone(), extract).await, req)
    }

    /// Every namespace, with its labels; `Err(request)` when listing namespaces is forbidden.
    async fn namespaces(&self) -> Result<Result<Vec<Object>, Request>, ClusterError> {
        self.list_all("namespaces", false, |ns: core::Namespace| {
            Some(Object::Namespace {
                name: ns.metadata.name.unwrap_or_default(),
                labels: Some(Labels::from(ns.metadata.labels.unwrap_or_default())),
                annotations: None,
            })
        })
        .await
    }
}

/// Pod pages, decoded from their bytes straight into the compact model (the typed
/// `k8s-openapi` pod would decode managedFields and the whole status, which no plugin reads:
/// on large clusters that is most of the time and memory of a run).
fn pod_pages() -> Decode<Pod> {
    Decode::protobuf(
        "PodList",
        crate::state::decode::protobuf::pod_frames,
        crate::state::decode::json::pod_page,
    )
}

/// Node pages, each node built from its page's bytes as pods are, with the image names
/// `images` keeps.
fn node_pages(images: ImageNames) -> Decode<Node> {
    let json_images = images.clone();
    Decode::protobuf(
        "NodeList",
        move |frames: &[_], on_continue| {
            crate::state::decode::protobuf::node_frames(frames, on_continue, &images)
        },
        move |text: &str, on_continue| json_node_page(text, on_continue, &json_images),
    )
}

/// A node page served as JSON, each node built with the image names `images` keeps.
pub(crate) fn json_node_page(
    text: &str,
    on_continue: impl FnOnce(Option<String>),
    images: &ImageNames,
) -> Result<Vec<Node>, serde_json::Error> {
    crate::state::decode::json::list_page(text, on_continue, |mut n: core::Node| {
        if let Some(status) = &mut n.status {
            images.retain(&mut status.images);
        }
        Node::from(n)
    })
}

/// Whether a term of an existing pod has a namespaceSelector. The existing pods' terms are
/// those of the index's groups: far fewer term sets to look at than pods.
fn existing_terms_need_namespace_labels(state: &ClusterState) -> bool {
    state
        .other_pods()
        .iter()
        .any(|p| p.affinity_terms().any(|t| t.needs_namespace_labels()))
        || state
            .index()
            .affinity_groups()
            .iter()
            .any(|g| g.terms.all().any(|t| t.needs_namespace_labels()))
}

/// What the folding thread is given, in the order the lists gave it.
enum Fold {
    /// Every node: the state is built from them.
    Nodes(Vec<Node>),
    Pods(Page<Pod>),
}

/// Folds pod pages into the state as they come; pods listed before the last node page wait
/// for it. `None` when the nodes never came (their list failed, and says so).
fn fold_pods(folded: std::sync::mpsc::Receiver<Fold>) -> Option<ClusterState> {
    let mut state: Option<ClusterState> = None;
    let mut early = Vec::new();
    for message in folded {
        match (message, state.as_mut()) {
            (Fold::Nodes(nodes), _) => {
                state = Some(ClusterState::new(
                    nodes,
                    std::mem::take(&mut early),
                    Objects::default(),
                ));
            }
            (Fold::Pods(Page::Restart), Some(s)) => s.clear_pods(),
            (Fold::Pods(Page::Restart), None) => early.clear(),
            (Fold::Pods(Page::Items(items)), Some(s)) => {
                for p in items {
                    s.add_pod(p);
                }
            }
            (Fold::Pods(Page::Items(items)), None) => early.extend(items),
        }
    }
    state
}

impl Live {
    /// The namespaces holding a pod named `name`, in one list by field selector: for the
    /// hint of a pod not found, never the big lists. `None` when listing pods cluster-wide is
    /// refused (the hint is then left out, not the error changed).
    pub fn namespaces_with_pod(&self, name: &str) -> Result<Option<Vec<String>>, ClusterError> {
        let api: Api<core::Pod> = Api::all(self.server.client.clone());
        let req = Request::new("list", "pods", true);
        let fields = format!("metadata.name={name}");
        let mut namespaces = Vec::new();
        let listed = self.rt.block_on(self.server.list(
            api.resource_url(),
            &req,
            Some(&fields),
            Decode::items(|p: core::Pod| p.metadata.namespace.unwrap_or_default()),
            &mut |page| {
                match page {
                    Page::Restart => namespaces.clear(),
                    Page::Items(items) => namespaces.extend(items),
                }
                Ok(())
            },
        ));
        match listed {
            Ok(()) => {
                namespaces.sort();
                namespaces.dedup();
                Ok(Some(namespaces))
            }
            Err(ClusterError::Forbidden(_)) => Ok(None),
            Err(e) => Err(e),
        }
    }
}
