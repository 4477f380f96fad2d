//! Reading the cluster: GET requests only, lists in pages folded into the compact state as
//! they arrive, bounded retries, and errors that say which permission is missing.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::convert::identity;
use std::fmt;
use std::future::Future;
use std::io::Write;
use std::sync::Arc;
use std::time::Duration;

use http_body_util::BodyExt;
use k8s_openapi::api::apps::v1 as apps;
use k8s_openapi::api::core::v1 as core;
use kube::api::{Api, ListParams};
use kube::core::Status;
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::ClusterError;
use super::config::{self, KubeArgs, Target, Timeout};
use super::error::Forbidden;
use crate::state::OwnerKind;
use crate::state::decode::protobuf::{ListStart, ProtobufError};
use crate::state::resources::normalized_image_name;
use crate::state::{
    ClusterState, LabelSelectorObject, MapSelectorObject, Node, Pod, WorkloadSelectors,
    resources::ImageNames, to_yaml_string,
};

/// The field selector of the scheduler's own pod informer: terminal pods hold nothing.
pub const NON_TERMINAL_PODS: &str = "status.phase!=Succeeded,status.phase!=Failed";
/// Retries of one request answered 429/500/503/504.
const MAX_RETRIES: u32 = 4;
/// Restarts of one list whose continue token expired.
const MAX_RESTARTS: usize = 3;

/// One request, as messages and RBAC hints name it.
#[derive(Debug, Clone)]
struct Request {
    verb: &'static str,
    resource: &'static str,
    /// `None`: cluster-scoped, or all namespaces for namespaced resources.
    namespace: Option<String>,
    name: Option<String>,
    namespaced: bool,
}

impl fmt::Display for Request {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.name, &self.namespace) {
            (Some(n), Some(ns)) => write!(f, "{} {} {ns}/{n}", self.verb, self.resource),
            (Some(n), None) => write!(f, "{} {} {n}", self.verb, self.resource),
            (None, Some(ns)) => write!(f, "{} {} in namespace {ns}", self.verb, self.resource),
            (None, None) if self.namespaced => {
                write!(f, "{} {} in all namespaces", self.verb, self.resource)
            }
            (None, None) => write!(f, "{} {}", self.verb, self.resource),
        }
    }
}

impl Request {
    fn new(verb: &'static str, resource: &'static str, namespaced: bool) -> Request {
        Request {
            verb,
            resource,
            namespace: None,
            name: None,
            namespaced,
        }
    }
    fn namespace(mut self, ns: &str) -> Request {
        self.namespace = Some(ns.to_string());
        self
    }
    fn name(mut self, name: &str) -> Request {
        self.name = Some(name.to_string());
        self
    }
}

/// Why a call did not return a value.
#[derive(Debug)]
enum Failure {
    /// An error Status the caller may want to handle (403, 404, 410), already past retries.
    Status(Box<Status>),
    Other(ClusterError),
}

/// What the scheduler last said about a pod.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LastEvent {
    pub message: String,
    pub last_seen: Option<String>,
    pub count: Option<i32>,
    pub reported_by: Option<String>,
}

/// The outcome of looking for the scheduler's FailedScheduling event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EventLookup {
    Found(LastEvent),
    NoEvent,
    /// Events could not be read; the note says why and what it costs.
    Unavailable(String),
}

/// Cluster state read live, with what the reading could not do.
#[derive(Debug)]
pub struct Fetched {
    pub state: ClusterState,
    pub notes: Vec<String>,
}

/// What shell completion wants names of.
#[derive(Debug, Clone, Copy)]
pub enum Names<'a> {
    Namespaces,
    Nodes,
    Pods(&'a str),
}

/// A connection to one cluster, with its own small runtime: the rest of the program stays
/// synchronous and never sees the client.
pub struct Live {
    rt: tokio::runtime::Runtime,
    client: kube::Client,
    target: Target,
    timeout: Timeout,
    chunk_size: u32,
    /// The context's namespace (or the service account's), "default" when it names none.
    pub default_namespace: String,
}

impl fmt::Debug for Live {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Live")
            .field("target", &self.target)
            .field("chunk_size", &self.chunk_size)
            .finish_non_exhaustive()
    }
}

impl Live {
    pub fn connect(args: &KubeArgs) -> Result<Live, ClusterError> {
        // Pages are decoded and folded on blocking threads. Threads beyond the cores add
        // no speed, only allocator heaps whose fresh memory the kernel must zero: at
        // 150,000 pods up to twelve were started for two cores (BENCHMARKS.md). One per
        // core and one for the folding thread, which waits between pages: never fewer than
        // two, or no page could decode while the folding thread waits for one.
        let blocking_threads = std::thread::available_parallelism().map_or(1, |n| n.get()) + 1;
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .max_blocking_threads(blocking_threads)
            .build()
            .map_err(|e| ClusterError::Setup {
                context: args.context.clone().unwrap_or_default(),
                message: format!("starting the I/O runtime: {e}"),
            })?;
        let (config, target) = rt.block_on(config::load(args))?;
        let default_namespace = config.default_namespace.clone();
        let client = {
            let _guard = rt.enter();
            config::client(config)
        }
        .map_err(|e| match e {
            // Credential sources are set up here (a token file, an exec plugin's first run).
            kube::Error::Auth(a) => ClusterError::Credentials {
                user: target.user.clone(),
                context: target.context.clone(),
                detail: auth_detail(&a, target.exec_command.as_deref()),
            },
            other => ClusterError::Setup {
                context: target.context.clone(),
                message: match other {
                    // TLS set-up errors name files and formats, never key material.
                    kube::Error::RustlsTls(e) => e.to_string(),
                    kube::Error::InferKubeconfig(e) => e.to_string(),
                    _ => "invalid client configuration".to_string(),
                },
            },
        })?;
        Ok(Live {
            rt,
            client,
            target,
            timeout: args.request_timeout.clone(),
            chunk_size: args.chunk_size,
            default_namespace,
        })
    }

    /// How outputs name this source: `context NAME (SERVER)`.
    pub fn source(&self) -> String {
        format!("context {} ({})", self.target.context, self.target.server)
    }

    /// `context NAME`, for "not found in ..." messages.
    pub fn context(&self) -> String {
        format!("context {}", self.target.context)
    }

    /// Gets one pod; `None` when it does not exist.
    pub fn get_pod(&self, namespace: &str, name: &str) -> Result<Option<core::Pod>, ClusterError> {
        let api: Api<core::Pod> = Api::namespaced(self.client.clone(), namespace);
        let req = Request::new("get", "pods", true)
            .namespace(namespace)
            .name(name);
        match self.rt.block_on(self.call(&req, || api.get(name))) {
            Ok(p) => Ok(Some(p)),
            Err(Failure::Status(s)) if s.code == 404 => Ok(None),
            Err(f) => Err(self.fail(&req, f)),
        }
    }

    /// Nodes, non-terminal pods, and namespaces when `incoming` pods or existing pods have a
    /// term that needs namespace labels.
    pub fn fetch_state(&self, incoming: &[&Pod]) -> Result<Fetched, ClusterError> {
        self.rt.block_on(self.fetch_state_async(incoming))
    }

    async fn fetch_state_async(&self, incoming: &[&Pod]) -> Result<Fetched, ClusterError> {
        let mut notes = Vec::new();
        // Nodes, pods and workloads are listed at once, every page decoded on a blocking
        // thread while the next ones download; pod pages that arrive before the nodes wait
        // for them. Errors are reported in the order the lists
        // were read one after the other: nodes, pods, namespaces, workloads.
        let nodes: RefCell<Vec<Node>> = RefCell::new(Vec::new());
        // The pages are folded into the state on a thread of their own: folding a page of
        // 500 pods on the thread that reads every answer held up the next request.
        let (fold, folded) = std::sync::mpsc::channel();
        let folding = tokio::task::spawn_blocking(move || fold_pods(folded));
        // ImageLocality looks up only the incoming pods' images: the nodes keep no other.
        let images = ImageNames::Only(
            incoming
                .iter()
                .flat_map(|p| &p.template.resources.images)
                .map(|i| normalized_image_name(i))
                .collect(),
        );
        let list_nodes = async {
            self.list_nodes_compact(
                &Request::new("list", "nodes", false),
                images.clone(),
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
            self.list_pods_compact(
                &Request::new("list", "pods", true),
                Some(NON_TERMINAL_PODS),
                &mut |page| {
                    let _ = fold.send(Fold::Pods(page));
                    Ok(())
                },
            )
            .await
        };
        // Default topology spreading applies to pods without their own constraints and
        // selects by the Services and controllers that select the pod.
        let spread_by_default: Vec<&Pod> = incoming
            .iter()
            .copied()
            .filter(|p| p.template.topology_spread.is_empty())
            .collect();
        let list_workloads = async {
            if spread_by_default.is_empty() {
                return Ok(None);
            }
            self.workloads(&spread_by_default).await.map(Some)
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
        state.image_names = images;
        // The existing pods' terms are those of the index's groups: a few hundred term sets
        // to look at, not 150,000 pods, once the last page is in.
        let needed = incoming
            .iter()
            .copied()
            .chain(&state.other_pods)
            .any(|p| p.affinity_terms().any(|t| t.needs_namespace_labels()))
            || state
                .index
                .affinity_groups()
                .iter()
                .any(|g| g.terms.all().any(|t| t.needs_namespace_labels()));
        if needed {
            match self.namespaces().await? {
                Some(ns) => state.namespaces = Some(ns),
                None => notes.push(format!(
                    "cannot list namespaces (403 Forbidden for user {} in context {}): terms with a \
                     namespaceSelector cannot be evaluated, so InterPodAffinity is shown as not \
                     evaluated; grant list on namespaces (cluster scope) to evaluate them",
                    self.target.user, self.target.context
                )),
            }
        }
        if let Some(workloads) = workloads? {
            match workloads {
                Ok(w) => state.workloads = Some(w),
                Err(refused) => notes.push(format!(
                    "cannot {refused} (403 Forbidden for user {} in context {}): \
                     PodTopologySpread's default constraints cannot derive the pod's selector \
                     and are left out; grant {} on {} in namespace {} to evaluate them",
                    self.target.user,
                    self.target.context,
                    refused.verb,
                    refused.resource,
                    refused.namespace.as_deref().unwrap_or_default(),
                )),
            }
        }
        Ok(Fetched { state, notes })
    }

    /// What `helper.DefaultSelector` reads for `pods`: the Services of their namespaces and
    /// the controller each one names, got by name. Nothing else is read: listing every
    /// Service, ReplicaSet, ReplicationController and StatefulSet of the cluster gave the same
    /// selectors for far more bytes and permissions (a real cluster keeps ten old
    /// ReplicaSets per Deployment, each with its pod template). `Err(request)` when one is
    /// forbidden.
    async fn workloads(
        &self,
        pods: &[&Pod],
    ) -> Result<Result<WorkloadSelectors, Request>, ClusterError> {
        /// A forbidden request is an answer (the request), anything else an error.
        fn allowed<T>(
            r: Result<T, ClusterError>,
            req: Request,
        ) -> Result<Result<T, Request>, ClusterError> {
            match r {
                Ok(v) => Ok(Ok(v)),
                Err(ClusterError::Forbidden(_)) => Ok(Err(req)),
                Err(e) => Err(e),
            }
        }
        let client = &self.client;
        let mut w = WorkloadSelectors::default();
        let namespaces: BTreeSet<&str> = pods.iter().map(|p| &*p.id.namespace).collect();
        for ns in namespaces {
            // Only the selector is decoded: every Service's other fields are stepped over.
            let req = Request::new("list", "services", true).namespace(ns);
            let services = self
                .collect(
                    Api::<core::Service>::namespaced(client.clone(), ns).resource_url(),
                    req.clone(),
                    |o: MapSelectorObject| Some(o.spec.and_then(|s| s.selector)),
                )
                .await;
            match allowed(services, req)? {
                Ok(selectors) => selectors
                    .into_iter()
                    .for_each(|s| w.add_service(ns.to_string(), s)),
                Err(refused) => return Ok(Err(refused)),
            }
        }
        let owners: BTreeSet<(&str, OwnerKind, &str)> = pods
            .iter()
            .filter_map(|p| {
                let owner = p.controller.as_deref()?;
                Some((&*p.id.namespace, OwnerKind::of(owner)?, owner.name.as_str()))
            })
            .collect();
        for (ns, kind, name) in owners {
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
                    self.get_slim(&url, name, &req).await.map(|o| {
                        o.map(|o: MapSelectorObject| {
                            w.add_replication_controller(key, o.spec.and_then(|s| s.selector))
                        })
                    })
                }
                OwnerKind::ReplicaSet | OwnerKind::StatefulSet => {
                    self.get_slim(&url, name, &req).await.map(|o| {
                        o.map(|o: LabelSelectorObject| {
                            let selector = o.spec.and_then(|s| s.selector);
                            w.add_label_selector(
                                kind == OwnerKind::StatefulSet,
                                key,
                                selector.as_ref(),
                            )
                        })
                    })
                }
            };
            if let Err(refused) = allowed(got, req)? {
                return Ok(Err(refused));
            }
        }
        Ok(Ok(w))
    }

    /// Gets one object of the collection at `url`, decoded as `K` (only the fields read);
    /// `None` when it does not exist, as a lister's miss.
    async fn get_slim<K: DeserializeOwned>(
        &self,
        url: &str,
        name: &str,
        req: &Request,
    ) -> Result<Option<K>, ClusterError> {
        let get = || async {
            let request = kube::core::Request::new(url)
                .get(name, &Default::default())
                .map_err(kube::Error::BuildRequest)?;
            self.client.request::<K>(request).await
        };
        match self.call(req, get).await {
            Ok(o) => Ok(Some(o)),
            Err(Failure::Status(s)) if s.code == 404 => Ok(None),
            Err(f) => Err(self.fail(req, f)),
        }
    }

    /// Namespace labels by name; `None` when listing namespaces is forbidden.
    async fn namespaces(
        &self,
    ) -> Result<Option<BTreeMap<String, crate::state::labels::Labels>>, ClusterError> {
        let api: Api<core::Namespace> = Api::all(self.client.clone());
        let mut all = BTreeMap::new();
        let result = self
            .list_paged(
                api.resource_url(),
                &Request::new("list", "namespaces", false),
                None,
                |ns: core::Namespace| {
                    (
                        ns.metadata.name.unwrap_or_default(),
                        crate::state::labels::Labels::from(ns.metadata.labels.unwrap_or_default()),
                    )
                },
                &mut |page| {
                    match page {
                        Page::Restart => all.clear(),
                        Page::Items(items) => all.extend(items),
                    }
                    Ok(())
                },
            )
            .await;
        match result {
            Ok(()) => Ok(Some(all)),
            Err(ClusterError::Forbidden(_)) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// The latest FailedScheduling event of the pod (matched by UID when the pod has one, so
    /// a deleted namesake's events do not count).
    pub fn scheduling_event(&self, pod: &core::Pod) -> Result<EventLookup, ClusterError> {
        let namespace = pod.metadata.namespace.clone().unwrap_or_default();
        let name = pod.metadata.name.clone().unwrap_or_default();
        let uid = pod.metadata.uid.clone().filter(|u| !u.is_empty());
        let api: Api<core::Event> = Api::namespaced(self.client.clone(), &namespace);
        let selector =
            format!("involvedObject.name={name},involvedObject.kind=Pod,reason=FailedScheduling");
        let req = Request::new("list", "events", true).namespace(&namespace);
        let mut latest: Option<(k8s_openapi::jiff::Timestamp, LastEvent)> = None;
        let result = self.rt.block_on(self.list_paged(
            api.resource_url(),
            &req,
            Some(&selector),
            identity::<core::Event>,
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
                            let event = LastEvent {
                                message: e.message.clone().unwrap_or_default(),
                                last_seen: when.map(|t| t.to_string()),
                                count: e.series.as_ref().and_then(|s| s.count).or(e.count),
                                reported_by: e
                                    .reporting_component
                                    .clone()
                                    .filter(|c| !c.is_empty())
                                    .or_else(|| {
                                        e.source.as_ref().and_then(|s| s.component.clone())
                                    }),
                            };
                            latest = Some((when.unwrap_or_default(), event));
                        }
                    }
                }
                Ok(())
            },
        ));
        match result {
            Ok(()) => Ok(latest.map_or(EventLookup::NoEvent, |(_, e)| EventLookup::Found(e))),
            Err(ClusterError::Forbidden(_)) => Ok(EventLookup::Unavailable(format!(
                "cannot list events in namespace {namespace} (403 Forbidden for user {} in context {}): \
                 the scheduler's own FailedScheduling message is not shown; grant list on events to see it",
                self.target.user, self.target.context
            ))),
            Err(e) => Err(e),
        }
    }

    /// Writes nodes, non-terminal pods, namespaces, Services, ReplicationControllers,
    /// ReplicaSets and StatefulSets as one `v1 List` in YAML, as
    /// `kubectl get -o yaml` does, page by page. Returns notes on what was left out.
    pub fn write_snapshot(&self, out: &mut dyn Write) -> Result<Vec<String>, ClusterError> {
        self.rt.block_on(self.write_snapshot_async(out))
    }

    async fn write_snapshot_async(&self, out: &mut dyn Write) -> Result<Vec<String>, ClusterError> {
        // A restarted list would repeat objects already written, so collect per resource in
        // their YAML form (compact next to the typed objects), then write.
        let mut notes = Vec::new();
        writeln!(out, "apiVersion: v1")?;
        writeln!(out, "items:")?;
        let nodes: Api<core::Node> = Api::all(self.client.clone());
        self.snapshot_resource(&nodes, Request::new("list", "nodes", false), None, out)
            .await?;
        let pods: Api<core::Pod> = Api::all(self.client.clone());
        self.snapshot_resource(
            &pods,
            Request::new("list", "pods", true),
            Some(NON_TERMINAL_PODS),
            out,
        )
        .await?;
        let namespaces: Api<core::Namespace> = Api::all(self.client.clone());
        match self
            .snapshot_resource(
                &namespaces,
                Request::new("list", "namespaces", false),
                None,
                out,
            )
            .await
        {
            Ok(()) => {}
            Err(ClusterError::Forbidden(_)) => notes.push(format!(
                "namespaces left out: list namespaces is forbidden for user {} in context {}; \
                 namespaceSelector terms will show as not evaluated",
                self.target.user, self.target.context
            )),
            Err(e) => return Err(e),
        }
        // What PodTopologySpread's default constraints select by.
        let services: Api<core::Service> = Api::all(self.client.clone());
        let rcs: Api<core::ReplicationController> = Api::all(self.client.clone());
        let rss: Api<apps::ReplicaSet> = Api::all(self.client.clone());
        let sss: Api<apps::StatefulSet> = Api::all(self.client.clone());
        let results = [
            (
                "services",
                self.snapshot_resource(
                    &services,
                    Request::new("list", "services", true),
                    None,
                    out,
                )
                .await,
            ),
            (
                "replicationcontrollers",
                self.snapshot_resource(
                    &rcs,
                    Request::new("list", "replicationcontrollers", true),
                    None,
                    out,
                )
                .await,
            ),
            (
                "replicasets",
                self.snapshot_resource(&rss, Request::new("list", "replicasets", true), None, out)
                    .await,
            ),
            (
                "statefulsets",
                self.snapshot_resource(&sss, Request::new("list", "statefulsets", true), None, out)
                    .await,
            ),
        ];
        for (resource, r) in results {
            match r {
                Ok(()) => {}
                Err(ClusterError::Forbidden(_)) => notes.push(format!(
                    "{resource} left out: list {resource} is forbidden for user {} in context {}; \
                     PodTopologySpread's default constraints will derive no selector",
                    self.target.user, self.target.context
                )),
                Err(e) => return Err(e),
            }
        }
        writeln!(out, "kind: List")?;
        writeln!(out, "metadata:")?;
        writeln!(out, "  resourceVersion: \"\"")?;
        for n in &notes {
            writeln!(out, "# {n}")?;
        }
        Ok(notes)
    }

    async fn snapshot_resource<K>(
        &self,
        api: &Api<K>,
        req: Request,
        fields: Option<&str>,
        out: &mut dyn Write,
    ) -> Result<(), ClusterError>
    where
        K: kube::Resource + Clone + DeserializeOwned + Serialize + fmt::Debug + Send + 'static,
    {
        let mut chunks: Vec<String> = Vec::new();
        let mut failed: Option<String> = None;
        self.list_paged(
            api.resource_url(),
            &req,
            fields,
            identity,
            &mut |page: Page<K>| {
                match page {
                    Page::Restart => chunks.clear(),
                    Page::Items(items) => {
                        for mut item in items {
                            // kubectl hides managedFields by default; they are large and unused.
                            item.meta_mut().managed_fields = None;
                            match to_yaml_string(&item) {
                                Ok(text) => chunks.push(list_item(&text)),
                                Err(e) => failed = Some(e),
                            }
                        }
                    }
                }
                Ok(())
            },
        )
        .await?;
        if let Some(e) = failed {
            return Err(ClusterError::Protocol {
                request: req.to_string(),
                server: self.target.server.clone(),
                detail: format!("cannot write an object as YAML: {e}"),
            });
        }
        for c in chunks {
            out.write_all(c.as_bytes())?;
        }
        Ok(())
    }

    /// Names for shell completion: namespaces, nodes, or the pods of one namespace.
    pub fn names(&self, what: Names<'_>) -> Result<Vec<String>, ClusterError> {
        fn name<K: kube::Resource>(o: K) -> Option<String> {
            o.meta().name.clone()
        }
        let client = self.client.clone();
        let mut names = self.rt.block_on(async {
            match what {
                Names::Namespaces => {
                    let api: Api<core::Namespace> = Api::all(client);
                    let req = Request::new("list", "namespaces", false);
                    self.collect(api.resource_url(), req, name::<core::Namespace>)
                        .await
                }
                Names::Nodes => {
                    let api: Api<core::Node> = Api::all(client);
                    let req = Request::new("list", "nodes", false);
                    self.collect(api.resource_url(), req, name::<core::Node>)
                        .await
                }
                Names::Pods(ns) => {
                    let api: Api<core::Pod> = Api::namespaced(client, ns);
                    let req = Request::new("list", "pods", true).namespace(ns);
                    self.collect(api.resource_url(), req, name::<core::Pod>)
                        .await
                }
            }
        })?;
        names.sort();
        Ok(names)
    }

    /// Lists a resource whole, keeping what `extract` takes of each object (a restarted list
    /// starts over).
    async fn collect<K, T>(
        &self,
        path: &str,
        req: Request,
        extract: fn(K) -> Option<T>,
    ) -> Result<Vec<T>, ClusterError>
    where
        K: DeserializeOwned + Send + 'static,
        T: Send + 'static,
    {
        let mut out = Vec::new();
        self.list_paged(path, &req, None, extract, &mut |page| {
            match page {
                Page::Restart => out.clear(),
                Page::Items(items) => out.extend(items.into_iter().flatten()),
            }
            Ok(())
        })
        .await?;
        Ok(out)
    }

    /// Lists `path` (an `Api`'s resource URL) in pages of `--chunk-size`, handing each page
    /// over as it arrives, each item decoded as `K` (the API's type, or one with only the
    /// fields read) and made what the caller keeps by `convert` on the decoding thread as soon
    /// as it is read. An expired continue token restarts the list (the consumer drops what it
    /// folded so far).
    async fn list_paged<K, T>(
        &self,
        path: &str,
        req: &Request,
        fields: Option<&str>,
        convert: fn(K) -> T,
        on_page: &mut dyn FnMut(Page<T>) -> Result<(), ClusterError>,
    ) -> Result<(), ClusterError>
    where
        K: DeserializeOwned + Send + 'static,
        T: Send + 'static,
    {
        // As kube's `Api::list`, but decoded on a blocking thread: at 5,000 nodes and 15,000
        // ReplicaSets the JSON held up the one thread that reads every answer, pod pages
        // included.
        let client = &self.client;
        let get = |lp: ListParams| async move {
            let (body, _) = list_body(client, path, &lp, ACCEPT_JSON).await?;
            decoding(move |on_continue| {
                let text = String::from_utf8(body.join()).map_err(kube::Error::FromUtf8)?;
                crate::state::decode::json::list_page(&text, on_continue, convert)
                    .map_err(kube::Error::SerdeError)
            })
            .await
        };
        self.list_pages(&get, req, fields, on_page).await
    }

    /// The pods of the cluster, decoded from each page's bytes straight into the compact model
    /// (the typed `k8s-openapi` pod would decode managedFields and the whole status, which no
    /// plugin reads: on large clusters that is most of the time and memory of a run).
    async fn list_pods_compact(
        &self,
        req: &Request,
        fields: Option<&str>,
        on_page: &mut dyn FnMut(Page<Pod>) -> Result<(), ClusterError>,
    ) -> Result<(), ClusterError> {
        let decode = Decode {
            protobuf: Arc::new(|frames: &[_], on_continue| {
                crate::state::decode::protobuf::pod_frames(frames, on_continue)
            }),
            json: Arc::new(|text: &str, on_continue| {
                crate::state::decode::json::pod_page(text, on_continue)
            }),
        };
        self.list_compact(req, "/api/v1/pods", "PodList", fields, decode, on_page)
            .await
    }

    /// The nodes, each built from its page's bytes as pods are, with the image names
    /// `images` keeps.
    async fn list_nodes_compact(
        &self,
        req: &Request,
        images: ImageNames,
        on_page: &mut dyn FnMut(Page<Node>) -> Result<(), ClusterError>,
    ) -> Result<(), ClusterError> {
        let (pb_images, json_images) = (images.clone(), images);
        let decode = Decode {
            protobuf: Arc::new(move |frames: &[_], on_continue| {
                crate::state::decode::protobuf::node_frames(frames, on_continue, &pb_images)
            }),
            json: Arc::new(move |text: &str, on_continue| {
                crate::state::decode::json::list_page(text, on_continue, |mut n: core::Node| {
                    if let Some(status) = &mut n.status {
                        json_images.retain(&mut status.images);
                    }
                    Node::from(n)
                })
            }),
        };
        self.list_compact(req, "/api/v1/nodes", "NodeList", None, decode, on_page)
            .await
    }

    /// Lists `path` (a list of `kind`) with pages asked for in protobuf, as kube-scheduler
    /// asks for them (JSON when the server answers that instead), each decoded on a blocking
    /// thread while the next ones download. The continue token is at the start of a page: in
    /// protobuf it is read from the first bytes, as they arrive, and the next page is asked
    /// for while the rest of this one still downloads (in JSON, as soon as the decoder reads
    /// it). Waiting for whole pages put a round trip per page on the critical path: 9% of a
    /// live run's wall time at 150,000 pods against a local server (BENCHMARKS.md), and more
    /// against a distant one.
    async fn list_compact<T: Send + 'static>(
        &self,
        req: &Request,
        path: &'static str,
        kind: &'static str,
        fields: Option<&str>,
        decode: Decode<T>,
        on_page: &mut dyn FnMut(Page<T>) -> Result<(), ClusterError>,
    ) -> Result<(), ClusterError> {
        let client = &self.client;
        let limit = self.timeout.duration;
        let decode = &decode;
        let get = |lp: ListParams| async move {
            let decode = decode.clone();
            let deadline = limit.map(|d| tokio::time::Instant::now() + d);
            let (mut stream, encoding) = list_answer(client, path, &lp, ACCEPT_PROTOBUF).await?;
            let mut body = Body::default();
            if encoding == Encoding::Protobuf
                && let Some(token) = early_token(&mut stream, &mut body, kind).await?
            {
                // The rest downloads, then decodes, while the next page is asked for.
                let page = tokio::spawn(async move {
                    let body = read_to_end(stream, body, deadline).await?;
                    let (_, items) =
                        decoding(move |on_continue| decode.page(body, encoding, on_continue))
                            .await?;
                    items.items().await
                });
                return Ok((token, Pending::Decoding(Task(page))));
            }
            let body = read_to_end(stream, body, deadline).await?;
            decoding(move |on_continue| decode.page(body, encoding, on_continue)).await
        };
        self.list_pages(&get, req, fields, on_page).await
    }

    /// The paging loop: `get` fetches one page (continue token and items, maybe still
    /// decoding). At most [`PAGES_IN_FLIGHT`] pages download or decode at once, so memory
    /// stays that of a few pages; they are handed over in order, and an error of an earlier
    /// page is reported before one of a later request, as when pages were read one after the
    /// other.
    async fn list_pages<K, F, Fut>(
        &self,
        get: &F,
        req: &Request,
        fields: Option<&str>,
        on_page: &mut dyn FnMut(Page<K>) -> Result<(), ClusterError>,
    ) -> Result<(), ClusterError>
    where
        F: Fn(ListParams) -> Fut,
        Fut: Future<Output = Result<(Option<String>, Pending<K>), kube::Error>>,
    {
        let mut restarts = 0;
        let mut pending: VecDeque<Pending<K>> = VecDeque::new();
        // The earlier pages' first error, once all of them are decoded.
        let settle = |pending: &mut VecDeque<Pending<K>>| {
            let drained: Vec<Pending<K>> = pending.drain(..).collect();
            async move {
                for p in drained {
                    p.items().await?;
                }
                Ok::<(), kube::Error>(())
            }
        };
        'list: loop {
            let mut token: Option<String> = None;
            loop {
                let mut lp = ListParams::default();
                if self.chunk_size > 0 {
                    lp = lp.limit(self.chunk_size);
                }
                if let Some(f) = fields {
                    lp = lp.fields(f);
                }
                if let Some(t) = &token {
                    lp = lp.continue_token(t);
                }
                let page: Result<(Option<String>, Pending<K>), Failure> =
                    self.call(req, || get(lp.clone())).await;
                match page {
                    Ok((next, items)) => {
                        let next = next.filter(|c| !c.is_empty());
                        pending.push_back(items);
                        while let Some(first) = pending.front() {
                            if !(first.is_done()
                                || pending.len() > PAGES_IN_FLIGHT
                                || next.is_none())
                            {
                                break;
                            }
                            let Some(first) = pending.pop_front() else {
                                break;
                            };
                            let items = first.items().await.map_err(|e| self.classify(req, e))?;
                            on_page(Page::Items(items))?;
                        }
                        match next {
                            Some(t) => token = Some(t),
                            None => return Ok(()),
                        }
                    }
                    Err(Failure::Status(s)) if s.code == 410 && token.is_some() => {
                        settle(&mut pending)
                            .await
                            .map_err(|e| self.classify(req, e))?;
                        if restarts >= MAX_RESTARTS {
                            return Err(ClusterError::Expired {
                                request: req.to_string(),
                                times: restarts + 1,
                            });
                        }
                        restarts += 1;
                        on_page(Page::Restart)?;
                        continue 'list;
                    }
                    Err(f) => {
                        settle(&mut pending)
                            .await
                            .map_err(|e| self.classify(req, e))?;
                        return Err(self.fail(req, f));
                    }
                }
            }
        }
    }

    /// One request with the timeout and bounded retries for transient statuses.
    async fn call<T, F, Fut>(&self, req: &Request, mut f: F) -> Result<T, Failure>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<T, kube::Error>>,
    {
        let mut attempt = 0;
        loop {
            let result = match self.timeout.duration {
                Some(d) => match tokio::time::timeout(d, f()).await {
                    Ok(r) => r,
                    Err(_) => {
                        return Err(Failure::Other(ClusterError::Timeout {
                            request: req.to_string(),
                            server: self.target.server.clone(),
                            timeout: self.timeout.text.clone(),
                        }));
                    }
                },
                None => f().await,
            };
            match result {
                Ok(v) => return Ok(v),
                Err(kube::Error::Api(s))
                    if matches!(s.code, 429 | 500 | 503 | 504) && attempt < MAX_RETRIES =>
                {
                    let hint = s
                        .details
                        .as_ref()
                        .map(|d| Duration::from_secs(u64::from(d.retry_after_seconds)))
                        .unwrap_or_default();
                    let backoff = Duration::from_millis(100 << attempt);
                    tokio::time::sleep(backoff.max(hint).min(Duration::from_secs(5))).await;
                    attempt += 1;
                }
                Err(kube::Error::Api(s)) => return Err(Failure::Status(s)),
                Err(e) => return Err(Failure::Other(self.classify(req, e))),
            }
        }
    }

    fn fail(&self, req: &Request, f: Failure) -> ClusterError {
        match f {
            Failure::Other(e) => e,
            Failure::Status(s) => self.status_error(req, &s),
        }
    }

    fn status_error(&self, req: &Request, s: &Status) -> ClusterError {
        let t = &self.target;
        match s.code {
            401 => ClusterError::Unauthorized {
                request: req.to_string(),
                user: t.user.clone(),
                context: t.context.clone(),
            },
            403 => {
                let (scope, can_i_scope) = match (&req.namespace, req.namespaced) {
                    (Some(ns), _) => (format!("in namespace {ns}"), format!(" -n {ns}")),
                    (None, true) => ("in all namespaces".to_string(), " -A".to_string()),
                    (None, false) => ("cluster scope".to_string(), String::new()),
                };
                ClusterError::Forbidden(Box::new(Forbidden {
                    request: req.to_string(),
                    verb: req.verb.to_string(),
                    resource: req.resource.to_string(),
                    scope,
                    can_i_scope,
                    user: t.user.clone(),
                    context: t.context.clone(),
                    message: one_line(&s.message),
                }))
            }
            404 => ClusterError::NotServed {
                request: req.to_string(),
                server: t.server.clone(),
                context: t.context.clone(),
                message: one_line(&s.message),
            },
            code => ClusterError::Api {
                request: req.to_string(),
                code,
                reason: if s.reason.is_empty() {
                    "(no reason)".to_string()
                } else {
                    s.reason.clone()
                },
                message: one_line(&s.message),
            },
        }
    }

    /// Sorts transport and credential failures into messages with a next step.
    fn classify(&self, req: &Request, e: kube::Error) -> ClusterError {
        let t = &self.target;
        if let kube::Error::Auth(auth) = &e {
            return ClusterError::Credentials {
                user: t.user.clone(),
                context: t.context.clone(),
                detail: auth_detail(auth, t.exec_command.as_deref()),
            };
        }
        // A body that does not read as the list asked for, in either encoding.
        let unreadable = match &e {
            kube::Error::SerdeError(err) => Some((err.is_eof(), "JSON object", err.to_string())),
            kube::Error::Service(err) => err
                .downcast_ref::<ProtobufError>()
                .map(|err| (err.is_truncated(), "protobuf list", err.to_string())),
            _ => None,
        };
        if let Some((truncated, expected, detail)) = unreadable {
            if truncated {
                return ClusterError::Truncated {
                    request: req.to_string(),
                    server: t.server.clone(),
                    detail,
                };
            }
            return ClusterError::Protocol {
                request: req.to_string(),
                server: t.server.clone(),
                detail: format!("the body is not the expected {expected}: {detail}"),
            };
        }
        let chain = error_chain(&e);
        let lower = chain.to_lowercase();
        if lower.contains("certificate")
            || lower.contains("tls")
            || lower.contains("handshake")
            || lower.contains("invalidcontenttype")
            || lower.contains("corrupt message")
        {
            return ClusterError::Tls {
                server: t.server.clone(),
                context: t.context.clone(),
                detail: chain,
            };
        }
        if lower.contains("timed out") || lower.contains("timeout") {
            return ClusterError::Timeout {
                request: req.to_string(),
                server: t.server.clone(),
                timeout: self.timeout.text.clone(),
            };
        }
        if matches!(e, kube::Error::HyperError(_) | kube::Error::Service(_)) {
            return ClusterError::Unreachable {
                server: t.server.clone(),
                context: t.context.clone(),
                detail: chain,
            };
        }
        ClusterError::Protocol {
            request: req.to_string(),
            server: t.server.clone(),
            detail: chain,
        }
    }
}

/// How [`Live::list_compact`] decodes a page, by the encoding the server answered in: shared
/// by the pages of a list, each decoded on a blocking thread of its own.
struct Decode<T> {
    protobuf: Arc<ProtobufDecode<T>>,
    json: Arc<JsonDecode<T>>,
}

type ProtobufDecode<T> =
    dyn Fn(&[prost::bytes::Bytes], ContinueToken) -> Result<Vec<T>, ProtobufError> + Send + Sync;
type JsonDecode<T> = dyn Fn(&str, ContinueToken) -> Result<Vec<T>, serde_json::Error> + Send + Sync;

impl<T> Clone for Decode<T> {
    fn clone(&self) -> Self {
        Decode {
            protobuf: self.protobuf.clone(),
            json: self.json.clone(),
        }
    }
}

impl<T> Decode<T> {
    /// A page's items from its body in `encoding`, the continue token to `on_continue`.
    fn page(
        self,
        body: Body,
        encoding: Encoding,
        on_continue: ContinueToken,
    ) -> Result<Vec<T>, kube::Error> {
        match encoding {
            // Read in the frames it came in: joining them cost more than the copy.
            Encoding::Protobuf => (self.protobuf)(&body.frames, on_continue)
                .map_err(|e| kube::Error::Service(Box::new(e))),
            Encoding::Json => {
                // As kube's `request_text`, without its copy of the body.
                let text = String::from_utf8(body.join()).map_err(kube::Error::FromUtf8)?;
                (self.json)(&text, on_continue).map_err(kube::Error::SerdeError)
            }
        }
    }
}

/// Pages downloading or decoding at once, besides the one being asked for. Two were enough
/// to keep both cores busy on average (three were no faster in session 17's runs), but at
/// 150,000 pods six took 3% off the wall time for the same CPU time in two batches of 30
/// same-minute rounds in random order (session 33): more pages downloaded ahead even out
/// the pages that decode slowly. The peak grew by about 3 MB (a page is ~1.5 MB).
const PAGES_IN_FLIGHT: usize = 6;

/// An answer's body as it arrived, in frames.
#[derive(Default)]
struct Body {
    frames: Vec<prost::bytes::Bytes>,
    len: usize,
}

impl Body {
    /// Reads the next frame of `stream` into the body; `false` once the stream has ended.
    /// Trailers are not part of the body.
    async fn read_frame(&mut self, stream: &mut kube::client::Body) -> Result<bool, kube::Error> {
        let Some(frame) = stream.frame().await else {
            return Ok(false);
        };
        if let Ok(data) = frame?.into_data() {
            self.len += data.len();
            self.frames.push(data);
        }
        Ok(true)
    }

    /// The whole body in one buffer, copied once (JSON is parsed from one slice; protobuf pod
    /// pages are read in their frames).
    fn join(self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.len);
        for f in &self.frames {
            out.extend_from_slice(f);
        }
        out
    }
}

/// A page's items: decoded, or being downloaded and decoded by a task.
enum Pending<K> {
    Ready(Vec<K>),
    Decoding(Task<Result<Vec<K>, kube::Error>>),
}

impl<K> Pending<K> {
    fn is_done(&self) -> bool {
        match self {
            Pending::Ready(_) => true,
            Pending::Decoding(Task(h)) => h.is_finished(),
        }
    }

    async fn items(self) -> Result<Vec<K>, kube::Error> {
        match self {
            Pending::Ready(items) => Ok(items),
            // Awaited through the `Task`, which stops it if this future is dropped first.
            Pending::Decoding(mut task) => match (&mut task.0).await {
                Ok(r) => r,
                // A panic while decoding stays a panic, as when pages were decoded in place.
                Err(e) => std::panic::resume_unwind(e.into_panic()),
            },
        }
    }
}

/// A task that stops when its handle is dropped: a page still downloading when its list
/// fails is not read to its end in the background (a decode already running on a
/// blocking thread finishes, as before).
struct Task<T>(tokio::task::JoinHandle<T>);

impl<T> Drop for Task<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// A page decoded on a blocking thread by `decode`, handed over as soon as the decoder gives
/// its continue token (list answers write it before their items), so that the next page
/// downloads while this one decodes.
async fn decoding<K: Send + 'static>(
    decode: impl FnOnce(ContinueToken) -> Result<Vec<K>, kube::Error> + Send + 'static,
) -> Result<(Option<String>, Pending<K>), kube::Error> {
    let (token_tx, token_rx) = tokio::sync::oneshot::channel();
    let decoding = tokio::task::spawn_blocking(move || {
        decode(Box::new(move |token| {
            let _ = token_tx.send(token);
        }))
    });
    let decoding = Task(decoding);
    match token_rx.await {
        Ok(token) => Ok((token, Pending::Decoding(decoding))),
        // The page failed before its metadata: the decode's error is the page's. (A decode
        // that succeeds has always given the token.)
        Err(_) => Pending::Decoding(decoding)
            .items()
            .await
            .map(|items| (None, Pending::Ready(items))),
    }
}

/// Where a page's decoder gives its continue token.
type ContinueToken = Box<dyn FnOnce(Option<String>) + Send>;

/// How a list answer is encoded (its Content-Type).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Encoding {
    Json,
    Protobuf,
}

/// What pod list requests accept: protobuf first (smaller, and its parts can be stepped over
/// without parsing them), JSON from servers or proxies that do not speak it.
const ACCEPT_PROTOBUF: &str = "application/vnd.kubernetes.protobuf, application/json";

/// What other list requests accept, as kube asks for them.
const ACCEPT_JSON: &str = "application/json";

/// A successful answer's body, whole, and its encoding; an error status becomes
/// `kube::Error::Api` as [`list_answer`] makes it.
async fn list_body(
    client: &kube::Client,
    path: &str,
    lp: &ListParams,
    accept: &'static str,
) -> Result<(Body, Encoding), kube::Error> {
    let (stream, encoding) = list_answer(client, path, lp, accept).await?;
    Ok((read_to_end(stream, Body::default(), None).await?, encoding))
}

/// A successful answer's body, still to be read, and its encoding; an error status becomes
/// `kube::Error::Api` exactly as kube's own `request_text` makes it (a `Status` body, in JSON
/// or protobuf, or one built from the text).
async fn list_answer(
    client: &kube::Client,
    path: &str,
    lp: &ListParams,
    accept: &'static str,
) -> Result<(kube::client::Body, Encoding), kube::Error> {
    let mut request = kube::core::Request::new(path)
        .list(lp)
        .map_err(kube::Error::BuildRequest)?;
    request
        .headers_mut()
        .insert(http::header::ACCEPT, http::HeaderValue::from_static(accept));
    let res = client.send(request.map(kube::client::Body::from)).await?;
    let status = res.status();
    let encoding = match res.headers().get(http::header::CONTENT_TYPE) {
        Some(t)
            if t.to_str().is_ok_and(|t| {
                t.split(';').next().map(str::trim)
                    == Some(crate::state::decode::protobuf::MEDIA_TYPE)
            }) =>
        {
            Encoding::Protobuf
        }
        _ => Encoding::Json,
    };
    let stream = res.into_body();
    if status.is_client_error() || status.is_server_error() {
        let body = read_to_end(stream, Body::default(), None).await?.join();
        if encoding == Encoding::Protobuf
            && let Some(s) = protobuf_status(&body, status.as_u16())
        {
            return Err(kube::Error::Api(s.boxed()));
        }
        let text = String::from_utf8_lossy(&body);
        return Err(kube::Error::Api(
            match serde_json::from_str::<Status>(&text) {
                Ok(s) => s,
                Err(_) => Status::failure(text.trim(), "Failed to parse error data")
                    .with_code(status.as_u16()),
            }
            .boxed(),
        ));
    }
    Ok((stream, encoding))
}

/// The rest of a body, after the frames already in `body`. The frames are kept as they
/// arrive (reference counts, no copy): joining 2.5 MB pages here held up the one thread that
/// reads the socket and folds the pages; the decoding thread reads protobuf pages in their
/// frames and joins JSON ones (`Body::join`). Past `deadline` (the request's, as
/// `--request-timeout` gives it), the read stops with a timeout.
async fn read_to_end(
    mut stream: kube::client::Body,
    mut body: Body,
    deadline: Option<tokio::time::Instant>,
) -> Result<Body, kube::Error> {
    let read = async {
        while body.read_frame(&mut stream).await? {}
        Ok::<(), kube::Error>(())
    };
    match deadline {
        Some(at) => tokio::time::timeout_at(at, read).await.map_err(|_| {
            kube::Error::Service(Box::new(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                "timed out reading the answer",
            )))
        })??,
        None => read.await?,
    }
    Ok(body)
}

/// Reads frames of a protobuf list until its continue token shows (see
/// [`crate::state::decode::protobuf::list_start`]): `Some(token)` then, the frames read kept in `body`;
/// `None` when the body ended first or does not start as a list of `kind`, for the whole
/// decode to read (and, if need be, refuse).
async fn early_token(
    stream: &mut kube::client::Body,
    body: &mut Body,
    kind: &str,
) -> Result<Option<Option<String>>, kube::Error> {
    // The token is within the first few hundred bytes; a start this long is not a list.
    const LOOK: usize = 64 * 1024;
    let mut start = Vec::new();
    while body.len < LOOK {
        if !body.read_frame(stream).await? {
            return Ok(None);
        }
        let prefix = match body.frames.as_slice() {
            [one] => &one[..],
            frames => {
                start.clear();
                frames.iter().for_each(|f| start.extend_from_slice(f));
                &start[..]
            }
        };
        match crate::state::decode::protobuf::list_start(prefix, kind) {
            ListStart::Continue(token) => return Ok(Some(token)),
            ListStart::NeedMore => {}
            ListStart::Unknown => return Ok(None),
        }
    }
    Ok(None)
}

/// An error answer's protobuf `Status` as kube's own `Status`; `None` when the body is not
/// one (the caller then reads it as text). A Status without a code takes the answer's HTTP
/// status, as kube does for a text body.
fn protobuf_status(body: &[u8], http_status: u16) -> Option<Status> {
    let s = crate::state::decode::protobuf::status(body).ok()?;
    let code = if s.code == 0 { http_status } else { s.code };
    let mut status = Status::failure(&s.message, &s.reason).with_code(code);
    if s.retry_after_seconds > 0 {
        status.details = Some(kube::core::response::StatusDetails {
            name: String::new(),
            group: String::new(),
            kind: String::new(),
            uid: String::new(),
            causes: Vec::new(),
            retry_after_seconds: s.retry_after_seconds,
        });
    }
    Some(status)
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
                state = Some(ClusterState::new(nodes, std::mem::take(&mut early), None));
            }
            (Fold::Pods(Page::Restart), Some(s)) => {
                let nodes = std::mem::take(&mut s.nodes);
                *s = ClusterState::new(nodes, Vec::new(), None);
            }
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

enum Page<K> {
    Items(Vec<K>),
    /// The list restarts from the beginning: drop what the earlier pages gave.
    Restart,
}

/// The innermost distinct messages of an error chain: transport errors nest the useful part
/// ("Connection refused") several levels down.
fn error_chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = cur {
        let text = err.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        cur = err.source();
    }
    // The last two levels say what happened; the outer ones only wrap.
    let keep = parts.len().saturating_sub(2);
    one_line(&parts[keep..].join(": "))
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// What went wrong getting credentials, without the plugin's output or arguments (they may
/// hold tokens, and kube's own messages include them).
fn auth_detail(e: &kube::client::AuthError, exec: Option<&str>) -> String {
    use kube::client::AuthError as A;
    let plugin = exec.map_or("the credential plugin".to_string(), |c| {
        format!("credential plugin {c:?}")
    });
    match e {
        A::AuthExecStart(io) => {
            format!("{plugin} could not be started: {io} (is it installed and on PATH?)")
        }
        A::AuthExecRun { out, .. } => format!("{plugin} exited with {}", out.status),
        A::AuthExecParse(_) | A::ExecPluginFailed => {
            format!("{plugin} did not print a valid ExecCredential")
        }
        A::ReadTokenFile(io, path) => format!("cannot read token file {}: {io}", path.display()),
        A::MissingCommand => "the user's exec section names no command".to_string(),
        A::UnrefreshableTokenResponse => {
            "the token expired and the auth provider cannot refresh it".to_string()
        }
        _ => format!("{plugin} or the auth provider failed"),
    }
}

fn event_time(e: &core::Event) -> Option<k8s_openapi::jiff::Timestamp> {
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

/// A YAML document as an item of the `items:` sequence.
fn list_item(yaml: &str) -> String {
    let mut out = String::with_capacity(yaml.len() + 64);
    for (i, line) in yaml.trim_start_matches("---\n").lines().enumerate() {
        out.push_str(if i == 0 { "- " } else { "  " });
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// The tests' protobuf encoder (through `k8s-pb`, independent of the tool's decoder).
#[cfg(test)]
#[path = "../../examples/support/pb_encode.rs"]
mod pb_encode;

#[cfg(test)]
mod tests {
    use super::pb_encode;
    use super::*;
    use k8s_pb::apimachinery::pkg::apis::meta::v1 as pb;
    use prost::Message;

    fn body(status: pb::Status) -> Vec<u8> {
        pb_encode::envelope("v1", "Status", &status.encode_to_vec())
    }

    /// A 429 in protobuf keeps its code, reason and retry hint (the retry loop reads them).
    #[test]
    fn protobuf_error_statuses_become_kube_statuses() {
        let s = protobuf_status(
            &body(pb::Status {
                message: Some("too many requests".into()),
                reason: Some("TooManyRequests".into()),
                details: Some(pb::StatusDetails {
                    retry_after_seconds: Some(2),
                    ..Default::default()
                }),
                code: Some(429),
                ..Default::default()
            }),
            500,
        )
        .expect("status");
        assert_eq!((s.code, s.reason.as_str()), (429, "TooManyRequests"));
        assert_eq!(s.message, "too many requests");
        assert_eq!(s.details.map(|d| d.retry_after_seconds), Some(2));
    }

    /// Without a code, the HTTP status is the code; a body that is no Status is left to the
    /// text reading.
    #[test]
    fn a_protobuf_status_without_a_code_takes_the_http_status() {
        let s = protobuf_status(
            &body(pb::Status {
                reason: Some("Forbidden".into()),
                ..Default::default()
            }),
            403,
        )
        .expect("status");
        assert_eq!(s.code, 403);
        assert!(s.details.is_none());
        assert!(protobuf_status(b"<html>proxy</html>", 403).is_none());
    }
}
