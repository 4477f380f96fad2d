//! An in-process fake Kubernetes API server, real enough for kube-rs and kubectl: discovery
//! (/version, /api, /api/v1, /apis), get and paged list (limit/continue) of nodes, pods,
//! namespaces, events, Services, ReplicationControllers, ReplicaSets, StatefulSets and the
//! other kinds of `RESOURCES`, dry-run creates of pods (`dryRun=All`, nothing stored), and
//! metav1.Status errors. Faults (403, 410, 429, 500, hangs, 401, broken and slow bodies) are
//! injected per resource. As a real API server, it answers a request that accepts
//! `application/vnd.kubernetes.protobuf` with pod lists, node lists and errors in protobuf
//! (through `k8s-pb`, independent of the tool's own decoder), unless [`FakeApi::json_only`]
//! makes it a server that only speaks JSON.
//!
//! It serves one of two stores:
//! - [`FakeApi::start`]: the objects of a snapshot file such as examples/cluster.yaml, for
//!   tests: label and field selectors, server-side Tables for kubectl, objects that change
//!   between a get and a list; every request needs the kubeconfig's [`TOKEN`] and is recorded
//!   ([`FakeApi::seen`]).
//! - [`FakeApi::generated`]: a cluster of [`cluster_gen`](crate::cluster_gen), for
//!   whole-process benchmarks (`examples/bench_apiserver.rs`), which compare clients with a
//!   download from this server, so it must cost little next to them at any size: every object
//!   is serialized once and a page is its items' bytes concatenated. No selectors, Tables,
//!   credentials or recording.
//!
//! It runs on its own tokio runtime, so tests stay synchronous and run the binary as a
//! subprocess, reaching the fake through a kubeconfig file as a user reaches a cluster.

// A panic here is a test's failure report.
#![allow(clippy::unwrap_used)]

mod generated;
mod snapshot;

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::io;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use http_body_util::{BodyExt, Either, Full};
use hyper::body::{Bytes, Incoming};
use hyper::header::{HeaderMap, HeaderValue};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};

use crate::cluster_gen::Size;
use crate::pb_encode;

/// The media type of the Kubernetes API's protobuf encoding.
const PROTOBUF: &str = "application/vnd.kubernetes.protobuf";

/// The token the fake's kubeconfig user presents (tests check it never shows in messages).
pub const TOKEN: &str = "fake-token-Zx9qSECRET";

/// Resources the fake serves: (plural, kind, namespaced).
const RESOURCES: &[(&str, &str, bool)] = &[
    ("nodes", "Node", false),
    ("pods", "Pod", true),
    ("namespaces", "Namespace", false),
    ("events", "Event", true),
    ("services", "Service", true),
    ("replicationcontrollers", "ReplicationController", true),
    ("replicasets", "ReplicaSet", true),
    ("statefulsets", "StatefulSet", true),
    ("deployments", "Deployment", true),
    ("poddisruptionbudgets", "PodDisruptionBudget", true),
    ("priorityclasses", "PriorityClass", false),
    ("persistentvolumeclaims", "PersistentVolumeClaim", true),
    ("persistentvolumes", "PersistentVolume", false),
    ("storageclasses", "StorageClass", false),
    ("csinodes", "CSINode", false),
    ("csidrivers", "CSIDriver", false),
    ("limitranges", "LimitRange", true),
    ("runtimeclasses", "RuntimeClass", false),
    ("deviceclasses", "DeviceClass", false),
    ("resourceslices", "ResourceSlice", false),
    ("resourceclaims", "ResourceClaim", true),
    ("resourceclaimtemplates", "ResourceClaimTemplate", true),
];

fn api_version(plural: &str) -> &'static str {
    match group_of(plural) {
        "apps" => "apps/v1",
        "policy" => "policy/v1",
        "scheduling.k8s.io" => "scheduling.k8s.io/v1",
        "storage.k8s.io" => "storage.k8s.io/v1",
        "node.k8s.io" => "node.k8s.io/v1",
        "resource.k8s.io" => "resource.k8s.io/v1",
        _ => "v1",
    }
}

/// The API group of a resource: "" (core, under /api/v1) or the group it is served under
/// (/apis/GROUP/v1).
fn group_of(plural: &str) -> &'static str {
    match plural {
        "replicasets" | "statefulsets" | "deployments" => "apps",
        "poddisruptionbudgets" => "policy",
        "priorityclasses" => "scheduling.k8s.io",
        "storageclasses" | "csinodes" | "csidrivers" => "storage.k8s.io",
        "runtimeclasses" => "node.k8s.io",
        "deviceclasses" | "resourceslices" | "resourceclaims" | "resourceclaimtemplates" => {
            "resource.k8s.io"
        }
        _ => "",
    }
}

/// A request as the fake saw it.
#[derive(Debug, Clone)]
pub struct Seen {
    pub method: String,
    pub path: String,
    pub query: String,
    pub headers: BTreeMap<String, String>,
    /// When the request arrived.
    pub at: std::time::Instant,
}

#[derive(Debug, Clone)]
struct Fault {
    resource: String,
    /// 0 means: never answer (a hang).
    status: u16,
    remaining: usize,
    /// Only requests that carry a continue token.
    continue_only: bool,
}

/// What the tests control and observe of every request, whatever the store.
#[derive(Debug, Default)]
struct Control {
    /// Keep every request in `seen`.
    record: bool,
    seen: Vec<Seen>,
    faults: Vec<Fault>,
    token: Option<String>,
    /// Answer in JSON even when protobuf is accepted.
    json_only: bool,
    /// Fields a dry-run create of a pod merges into its `spec`, as a mutating webhook would.
    dry_run_spec: serde_json::Map<String, Value>,
    /// `/version`'s `gitVersion` when set (else v1.35.0).
    version: Option<String>,
}

#[derive(Debug)]
enum Store {
    Snapshot(Mutex<snapshot::Objects>),
    Generated(generated::Cluster),
}

#[derive(Debug)]
struct Server {
    control: Mutex<Control>,
    store: Store,
}

impl Server {
    fn control(&self) -> MutexGuard<'_, Control> {
        self.control.lock().unwrap()
    }

    fn objects(&self) -> MutexGuard<'_, snapshot::Objects> {
        match &self.store {
            Store::Snapshot(objects) => objects.lock().unwrap(),
            Store::Generated(_) => panic!("a generated cluster is not changed"),
        }
    }
}

/// A running fake; it stops when dropped.
#[derive(Debug)]
pub struct FakeApi {
    pub addr: SocketAddr,
    server: Arc<Server>,
    rt: Option<tokio::runtime::Runtime>,
}

impl Drop for FakeApi {
    fn drop(&mut self) {
        if let Some(rt) = self.rt.take() {
            rt.shutdown_background();
        }
    }
}

impl FakeApi {
    /// Starts a fake serving the objects of a snapshot file (YAML documents, `v1 List`s
    /// among them) on a free port.
    pub fn start(snapshot: &Path) -> FakeApi {
        let control = Control {
            record: true,
            token: Some(TOKEN.to_string()),
            ..Default::default()
        };
        let store = Store::Snapshot(Mutex::new(snapshot::read(snapshot)));
        FakeApi::serve(store, control, 0).expect("start the fake API server")
    }

    /// Starts a fake serving the cluster [`cluster_gen`](crate::cluster_gen) generates at
    /// `size`, on `port` (0: a free one), without credentials.
    pub fn generated(size: Size, port: u16) -> io::Result<FakeApi> {
        let store = Store::Generated(generated::Cluster::new(size)?);
        FakeApi::serve(store, Control::default(), port)
    }

    fn serve(store: Store, control: Control, port: u16) -> io::Result<FakeApi> {
        let server = Arc::new(Server {
            control: Mutex::new(control),
            store,
        });
        // One worker: a benchmark's clients, not the server, should have the other cores.
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()?;
        let listener = rt.block_on(tokio::net::TcpListener::bind(("127.0.0.1", port)))?;
        let addr = listener.local_addr()?;
        let s = server.clone();
        rt.spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    continue;
                };
                let s = s.clone();
                tokio::spawn(async move {
                    let svc = service_fn(move |req| {
                        let s = s.clone();
                        async move { Ok::<_, Infallible>(send_as(handle(&s, req).await)) }
                    });
                    let _ = http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), svc)
                        .await;
                });
            }
        });
        Ok(FakeApi {
            addr,
            server,
            rt: Some(rt),
        })
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The next `times` requests on `resource` are answered `status` (0: never answered;
    /// [`TRUNCATED_BODY`], [`INVALID_JSON_BODY`]: a broken 200; [`SLOW`]: a late 200;
    /// [`STALLED_BODY`]: a 200 whose second half trickles in).
    pub fn fail(&self, resource: &str, status: u16, times: usize) {
        self.server.control().faults.push(Fault {
            resource: resource.to_string(),
            status,
            remaining: times,
            continue_only: false,
        });
    }

    /// From now on the fake answers in JSON whatever the client accepts, as a server or proxy
    /// that does not speak protobuf.
    pub fn json_only(&self) {
        self.server.control().json_only = true;
    }

    /// Serves requests without credentials too (kubectl sends no bearer token over plain
    /// HTTP).
    pub fn allow_anonymous(&self) {
        self.server.control().token = None;
    }

    /// Every request on `resource` is forbidden.
    pub fn forbid(&self, resource: &str) {
        self.fail(resource, 403, usize::MAX);
    }

    /// The next `times` continue tokens of `resource` have expired (410 Gone).
    pub fn expire_continue(&self, resource: &str, times: usize) {
        self.fail_pages(resource, 410, times);
    }

    /// As [`FakeApi::fail`], for the next `times` requests of `resource` that carry a
    /// continue token (the second page of a list and later ones).
    pub fn fail_pages(&self, resource: &str, status: u16, times: usize) {
        self.server.control().faults.push(Fault {
            resource: resource.to_string(),
            status,
            remaining: times,
            continue_only: true,
        });
    }

    /// Adds an object (e.g. an Event) under its plural resource name.
    pub fn add(&self, resource: &str, object: Value) {
        self.server
            .objects()
            .objects
            .entry(resource.to_string())
            .or_default()
            .push(object);
    }

    /// Once the namespaced object `plural` `namespace/name` has been got by name, it is
    /// replaced by `after` (as when it changes between a client's get and its list).
    pub fn change_after_get(&self, plural: &str, namespace: &str, name: &str, after: Value) {
        self.server.objects().changes.push((
            plural.to_string(),
            namespace.to_string(),
            name.to_string(),
            after,
        ));
    }

    /// Makes a dry-run create of a pod (`POST .../pods?dryRun=All`) answer with `fields`
    /// merged into the pod's `spec`, as a mutating admission webhook would.
    pub fn mutate_dry_run(&self, fields: Value) {
        if let Value::Object(map) = fields {
            self.server.control().dry_run_spec = map;
        }
    }

    /// Makes `/version` answer `git_version` (`v1.33.4`).
    pub fn set_version(&self, git_version: &str) {
        self.server.control().version = Some(git_version.to_string());
    }

    /// Every request received so far (none for a generated cluster).
    pub fn seen(&self) -> Vec<Seen> {
        self.server.control().seen.clone()
    }

    pub fn clear_seen(&self) {
        self.server.control().seen.clear();
    }

    /// Writes a kubeconfig for this fake into `dir`, as a user's would be: one cluster, one
    /// token user, one context (named "fake") with an optional namespace.
    pub fn kubeconfig(&self, dir: &Path, namespace: Option<&str>) -> PathBuf {
        write_kubeconfig(dir, "config", &self.url(), namespace, &user_token(TOKEN))
    }
}

/// The YAML of a token user.
pub fn user_token(token: &str) -> String {
    format!("    token: {token}\n")
}

/// Writes a one-context kubeconfig; `user` is the YAML body of the user entry.
pub fn write_kubeconfig(
    dir: &Path,
    file: &str,
    server: &str,
    namespace: Option<&str>,
    user: &str,
) -> PathBuf {
    let ns = namespace
        .map(|n| format!("    namespace: {n}\n"))
        .unwrap_or_default();
    let text = format!(
        "apiVersion: v1\nkind: Config\nclusters:\n- name: fake\n  cluster:\n    server: {server}\n\
         contexts:\n- name: fake\n  context:\n    cluster: fake\n    user: tester\n{ns}\
         current-context: fake\nusers:\n- name: tester\n  user:\n{user}preferences: {{}}\n"
    );
    let path = dir.join(file);
    std::fs::write(&path, text).expect("write kubeconfig");
    path
}

fn status(code: u16, reason: &str, message: &str) -> Response<Full<Bytes>> {
    let body = json!({
        "kind": "Status", "apiVersion": "v1", "metadata": {},
        "status": "Failure", "message": message, "reason": reason, "code": code,
    });
    respond(code, &body)
}

fn respond(code: u16, body: &Value) -> Response<Full<Bytes>> {
    respond_json(code, serde_json::to_vec(body).unwrap())
}

/// An answer of already serialized JSON.
fn respond_json(code: u16, body: Vec<u8>) -> Response<Full<Bytes>> {
    Response::builder()
        .status(StatusCode::from_u16(code).unwrap())
        .header("content-type", "application/json")
        .body(Full::new(Bytes::from(body)))
        .unwrap()
}

/// An answer already encoded in protobuf.
fn respond_protobuf(body: Vec<u8>) -> Response<Full<Bytes>> {
    let mut resp = Response::new(Full::new(Bytes::from(body)));
    resp.headers_mut()
        .insert("content-type", HeaderValue::from_static(PROTOBUF));
    resp
}

fn not_found() -> Response<Full<Bytes>> {
    status(
        404,
        "NotFound",
        "the server could not find the requested resource",
    )
}

/// Where a list's page starts and how many items it holds at most, from the request's
/// `continue` (`prefix` then the offset, as the store writes it) and `limit`; `None` for a
/// token the fake never wrote.
fn page(params: &BTreeMap<String, String>, prefix: &str) -> Option<(usize, usize)> {
    let offset: usize = match params.get("continue").filter(|c| !c.is_empty()) {
        Some(c) => c.strip_prefix(prefix)?.parse().ok()?,
        None => 0,
    };
    let limit: usize = params
        .get("limit")
        .and_then(|l| l.parse().ok())
        .filter(|l| *l > 0)
        .unwrap_or(usize::MAX);
    Some((offset, limit))
}

fn invalid_continue() -> Response<Full<Bytes>> {
    status(400, "BadRequest", "invalid continue token")
}

fn query_params(query: &str) -> BTreeMap<String, String> {
    query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (decode(k), decode(v))
        })
        .collect()
}

/// Percent-decoding (and '+' as space) of a query component.
fn decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap_or("");
                match u8::from_str_radix(hex, 16) {
                    Ok(b) => out.push(b),
                    Err(_) => out.extend_from_slice(&bytes[i..i + 3]),
                }
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The body of a response to send as [`STALLED_BODY`] says, when `answer` marked it so.
#[derive(Clone)]
struct Stall(Bytes);

/// The answer as it goes out: whole, or its first half at once and the rest trickling in
/// over [`SLOW_BY`] (a slow link, or a server that writes a long list as it reads it), in
/// pieces close enough together that no single read waits long.
fn send_as(mut resp: Response<Full<Bytes>>) -> Response<Either<Full<Bytes>, Stalled>> {
    match resp.extensions_mut().remove::<Stall>() {
        None => resp.map(Either::Left),
        Some(Stall(bytes)) => {
            let half = bytes.len() / 2;
            resp.map(|_| {
                Either::Right(Stalled {
                    first: Some(bytes.slice(..half)),
                    piece: (bytes.len() - half).div_ceil(STALL_PIECES),
                    rest: bytes.slice(half..),
                    next: Box::pin(tokio::time::sleep(STALL_STEP)),
                })
            })
        }
    }
}

/// The pieces a stalled body's second half comes in, one every [`STALL_STEP`].
const STALL_PIECES: usize = 10;
const STALL_STEP: Duration =
    Duration::from_millis(SLOW_BY.as_millis() as u64 / STALL_PIECES as u64);

/// A body sent as its first part, then `piece` bytes each time `next` is over.
struct Stalled {
    first: Option<Bytes>,
    rest: Bytes,
    piece: usize,
    next: std::pin::Pin<Box<tokio::time::Sleep>>,
}

impl hyper::body::Body for Stalled {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<hyper::body::Frame<Bytes>, Infallible>>> {
        use std::future::Future;
        use std::task::Poll;
        if let Some(first) = self.first.take() {
            return Poll::Ready(Some(Ok(hyper::body::Frame::data(first))));
        }
        if self.rest.is_empty() {
            return Poll::Ready(None);
        }
        if self.next.as_mut().poll(cx).is_pending() {
            return Poll::Pending;
        }
        self.next
            .as_mut()
            .reset(tokio::time::Instant::now() + STALL_STEP);
        let n = self.piece.min(self.rest.len());
        let piece = self.rest.split_to(n);
        Poll::Ready(Some(Ok(hyper::body::Frame::data(piece))))
    }
}

/// As a real API server: the answer in JSON, re-encoded in protobuf when the client accepts
/// it and the fake can encode it (pod lists, node lists and Status errors).
async fn handle(server: &Server, req: Request<Incoming>) -> Response<Full<Bytes>> {
    let protobuf = req
        .headers()
        .get_all("accept")
        .iter()
        .filter_map(|a| a.to_str().ok())
        .any(|a| a.contains(PROTOBUF))
        && !server.control().json_only;
    negotiate(answer(server, req, protobuf).await, protobuf).await
}

/// The last value of a header, as [`Seen::headers`] keeps it; "" when there is none.
fn last_header<'a>(headers: &'a HeaderMap, name: &str) -> &'a str {
    headers
        .get_all(name)
        .iter()
        .next_back()
        .map_or("", |v| v.to_str().unwrap_or(""))
}

async fn answer(server: &Server, req: Request<Incoming>, protobuf: bool) -> Response<Full<Bytes>> {
    let method = req.method().to_string();
    let path = req.uri().path().to_string();
    let query = req.uri().query().unwrap_or("").to_string();
    let params = query_params(&query);
    let accept_table = last_header(req.headers(), "accept").contains("as=Table");
    let (token_ok, fault) = {
        let mut s = server.control();
        if s.record {
            s.seen.push(Seen {
                method: method.clone(),
                path: path.clone(),
                query: query.clone(),
                headers: req
                    .headers()
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_str().unwrap_or("").to_string()))
                    .collect(),
                at: std::time::Instant::now(),
            });
        }
        let token_ok = match &s.token {
            None => true,
            Some(t) => last_header(req.headers(), "authorization") == format!("Bearer {t}"),
        };
        let resource = resource_of(&path);
        let has_continue = params.get("continue").is_some_and(|c| !c.is_empty());
        let fault = s
            .faults
            .iter_mut()
            .find(|f| {
                f.remaining > 0
                    && Some(f.resource.as_str()) == resource.as_deref()
                    && (!f.continue_only || has_continue)
            })
            .map(|f| {
                f.remaining = f.remaining.saturating_sub(1);
                f.status
            });
        (token_ok, fault)
    };
    if !token_ok {
        return status(401, "Unauthorized", "Unauthorized");
    }
    let segs: Vec<String> = path
        .trim_matches('/')
        .split('/')
        .map(String::from)
        .collect();
    let pods_of = match segs.as_slice() {
        [api, v1, nss, ns, pods]
            if api == "api" && v1 == "v1" && nss == "namespaces" && pods == "pods" =>
        {
            Some(ns.clone())
        }
        _ => None,
    };
    if method == "POST"
        && params.get("dryRun").map(String::as_str) == Some("All")
        && let Some(ns) = pods_of
    {
        return dry_run_create(server, req, &ns).await;
    }
    if method != "GET" {
        return status(
            405,
            "MethodNotAllowed",
            &format!(
                "the fake API server only serves GET and dry-run creates of pods, got {method}"
            ),
        );
    }
    if fault == Some(SLOW) {
        tokio::time::sleep(SLOW_BY).await;
    } else if let Some(code) = fault {
        let resource = resource_of(&path).unwrap_or_default();
        return match code {
            0 => {
                tokio::time::sleep(Duration::from_secs(60)).await;
                status(504, "Timeout", "too late")
            }
            403 => status(
                403,
                "Forbidden",
                &format!(
                    "{resource} is forbidden: User \"tester\" cannot list resource \"{resource}\" in API group \"\" at the cluster scope"
                ),
            ),
            410 => status(
                410,
                "Expired",
                "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.",
            ),
            429 => status(
                429,
                "TooManyRequests",
                "too many requests, please try again later",
            ),
            500 => status(
                500,
                "InternalError",
                "Internal error occurred: etcdserver: leader changed",
            ),
            503 => status(
                503,
                "ServiceUnavailable",
                "the server is currently unable to handle the request",
            ),
            TRUNCATED_BODY => {
                let whole = negotiate(
                    route(server, &path, &params, accept_table, protobuf),
                    protobuf,
                )
                .await;
                let content_type = whole.headers()["content-type"].clone();
                let bytes = bytes_of(whole.into_body()).await;
                ok_body(content_type, bytes.slice(..bytes.len() / 2))
            }
            STALLED_BODY => {
                let whole = negotiate(
                    route(server, &path, &params, accept_table, protobuf),
                    protobuf,
                )
                .await;
                let (parts, body) = whole.into_parts();
                let mut resp = Response::from_parts(parts, Full::default());
                resp.extensions_mut().insert(Stall(bytes_of(body).await));
                resp
            }
            INVALID_PROTOBUF_BODY => ok_body(
                PROTOBUF,
                Bytes::from_static(
                    b"k8s\x00\x0a\x0e\x0a\x02v1\x12\x08NodeList\x12\x1btoken=fake-token-Zx9qSECRET",
                ),
            ),
            INVALID_JSON_BODY => ok_body(
                "application/json",
                Bytes::from_static(
                    b"<html><body>Proxy login required. token=fake-token-Zx9qSECRET</body></html>",
                ),
            ),
            404 => not_found(),
            other => status(other, "Unknown", "injected fault"),
        };
    }
    route(server, &path, &params, accept_table, protobuf)
}

/// A dry-run create of a pod: the pod sent, named (from `generateName` when it has no
/// name), in the namespace of the path, with what [`FakeApi::mutate_dry_run`] set merged
/// into its spec; nothing is stored.
async fn dry_run_create(
    server: &Server,
    req: Request<Incoming>,
    ns: &str,
) -> Response<Full<Bytes>> {
    let Ok(body) = req.into_body().collect().await else {
        return status(400, "BadRequest", "unreadable body");
    };
    let Ok(mut pod) = serde_json::from_slice::<Value>(&body.to_bytes()) else {
        return status(400, "BadRequest", "the body is not a JSON object");
    };
    let meta = &mut pod["metadata"];
    if meta["name"].is_null() {
        let prefix = meta["generateName"].as_str().unwrap_or("pod-").to_string();
        meta["name"] = json!(format!("{prefix}dry7x"));
    }
    meta["namespace"] = json!(ns);
    let fields = server.control().dry_run_spec.clone();
    for (k, v) in fields {
        pod["spec"][k] = v;
    }
    respond(201, &pod)
}

/// A 200 answer with this body, whatever it holds (the faults' malformed bodies).
fn ok_body(content_type: impl TryInto<HeaderValue>, body: Bytes) -> Response<Full<Bytes>> {
    let mut resp = Response::new(Full::new(body));
    if let Ok(t) = content_type.try_into() {
        resp.headers_mut().insert("content-type", t);
    }
    resp
}

/// A whole answer's bytes (a `Full` body cannot fail).
async fn bytes_of(body: Full<Bytes>) -> Bytes {
    body.collect()
        .await
        .map(|b| b.to_bytes())
        .unwrap_or_default()
}

/// A JSON answer re-encoded in protobuf, as `handle` says; anything else as it is.
async fn negotiate(resp: Response<Full<Bytes>>, protobuf: bool) -> Response<Full<Bytes>> {
    if !protobuf
        || resp
            .headers()
            .get("content-type")
            .is_some_and(|t| t == PROTOBUF)
    {
        return resp;
    }
    let (parts, body) = resp.into_parts();
    let bytes = bytes_of(body).await;
    let encoded =
        serde_json::from_slice::<Value>(&bytes)
            .ok()
            .and_then(|v| match v["kind"].as_str() {
                Some("PodList") => list_protobuf(&v, "PodList", pb_encode::pod_bytes),
                Some("NodeList") => list_protobuf(&v, "NodeList", pb_encode::node_bytes),
                Some("Status") => Some(status_protobuf(&v)),
                _ => None,
            });
    match encoded {
        Some(pb) => {
            let mut resp = Response::from_parts(parts, Full::new(Bytes::from(pb)));
            resp.headers_mut()
                .insert("content-type", HeaderValue::from_static(PROTOBUF));
            resp
        }
        None => Response::from_parts(parts, Full::new(bytes)),
    }
}

/// A JSON list of `kind` (`PodList`, `NodeList`) in protobuf, each item a `T` (`Pod`, `Node`)
/// encoded by `encode`; `None` when an item is not a valid `T` (a real server never holds one,
/// so it can only be served as JSON).
fn list_protobuf<T: serde::de::DeserializeOwned>(
    list: &Value,
    kind: &str,
    encode: fn(&T) -> Vec<u8>,
) -> Option<Vec<u8>> {
    let encoded: Vec<Vec<u8>> = list["items"]
        .as_array()?
        .iter()
        .map(|item| {
            serde_json::from_value::<T>(item.clone())
                .ok()
                .map(|o| encode(&o))
        })
        .collect::<Option<_>>()?;
    let items: Vec<&[u8]> = encoded.iter().map(Vec::as_slice).collect();
    let meta = &list["metadata"];
    Some(pb_encode::list_body(
        kind,
        &items,
        meta["resourceVersion"].as_str().unwrap_or_default(),
        meta["continue"].as_str(),
        meta["remainingItemCount"].as_i64(),
    ))
}

/// A JSON `Status` in protobuf.
fn status_protobuf(v: &Value) -> Vec<u8> {
    use k8s_pb::apimachinery::pkg::apis::meta::v1 as pb;
    use prost::Message;
    let text = |k: &str| v[k].as_str().map(str::to_string);
    let status = pb::Status {
        metadata: Some(pb::ListMeta::default()),
        status: text("status"),
        message: text("message"),
        reason: text("reason"),
        details: v["details"]["retryAfterSeconds"]
            .as_i64()
            .map(|r| pb::StatusDetails {
                retry_after_seconds: i32::try_from(r).ok(),
                ..Default::default()
            }),
        code: v["code"].as_i64().and_then(|c| i32::try_from(c).ok()),
    };
    pb_encode::envelope("v1", "Status", &status.encode_to_vec())
}

/// `fail` with this status: a 200 answer whose JSON body is cut in half.
pub const TRUNCATED_BODY: u16 = 1;
/// `fail` with this status: a 200 answer whose body is an HTML page, not JSON (a proxy).
pub const INVALID_JSON_BODY: u16 = 2;
/// `fail` with this status: a 200 answer in protobuf whose object is not the list asked for
/// (its bytes hold a token, which must not be shown).
pub const INVALID_PROTOBUF_BODY: u16 = 3;
/// A [`FakeApi::fail`] "status": the answer, a good one, comes [`SLOW_BY`] late.
pub const SLOW: u16 = 4;
pub const SLOW_BY: Duration = Duration::from_secs(2);
/// A [`FakeApi::fail`] "status": a good answer whose first half comes at once and the rest
/// trickles in over [`SLOW_BY`], a piece every fifth of a second.
pub const STALLED_BODY: u16 = 5;

fn route(
    server: &Server,
    path: &str,
    params: &BTreeMap<String, String>,
    accept_table: bool,
    protobuf: bool,
) -> Response<Full<Bytes>> {
    let list = |plural: &str, namespace: Option<&str>| {
        list(server, plural, namespace, params, accept_table, protobuf)
    };
    let segs: Vec<&str> = path.trim_matches('/').split('/').collect();
    match segs.as_slice() {
        ["version"] => {
            let git = server
                .control()
                .version
                .clone()
                .unwrap_or_else(|| "v1.35.0".to_string());
            let minor = git.split('.').nth(1).unwrap_or("35").to_string();
            respond(
                200,
                &json!({"major": "1", "minor": minor, "gitVersion": git, "platform": "linux/amd64"}),
            )
        }
        ["api"] => respond(
            200,
            &json!({"kind": "APIVersions", "versions": ["v1"],
                    "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": "127.0.0.1"}]}),
        ),
        ["apis"] => respond(
            200,
            &json!({"kind": "APIGroupList", "apiVersion": "v1",
                    "groups": [api_group("apps"), api_group("storage.k8s.io"), api_group("node.k8s.io")]}),
        ),
        ["api", "v1"] => respond(200, &discovery("")),
        [
            "apis",
            group @ ("apps" | "storage.k8s.io" | "node.k8s.io"),
            "v1",
        ] => respond(200, &discovery(group)),
        ["apis", group, "v1", "namespaces", ns, plural]
            if !group.is_empty() && group_of(plural) == *group =>
        {
            list(plural, Some(ns))
        }
        ["apis", group, "v1", "namespaces", ns, plural, name]
            if !group.is_empty() && group_of(plural) == *group =>
        {
            get(server, plural, Some(ns), name)
        }
        ["apis", group, "v1", plural] if !group.is_empty() && group_of(plural) == *group => {
            list(plural, None)
        }
        ["apis", group, "v1", plural, name] if !group.is_empty() && group_of(plural) == *group => {
            get(server, plural, None, name)
        }
        ["api", "v1", "namespaces", ns, plural] if group_of(plural).is_empty() => {
            list(plural, Some(ns))
        }
        ["api", "v1", "namespaces", ns, plural, name] if group_of(plural).is_empty() => {
            get(server, plural, Some(ns), name)
        }
        ["api", "v1", plural] if group_of(plural).is_empty() => list(plural, None),
        ["api", "v1", plural, name] if group_of(plural).is_empty() => {
            get(server, plural, None, name)
        }
        _ => not_found(),
    }
}

fn list(
    server: &Server,
    plural: &str,
    namespace: Option<&str>,
    params: &BTreeMap<String, String>,
    table: bool,
    protobuf: bool,
) -> Response<Full<Bytes>> {
    let Some(kind) = kind_of(plural) else {
        return not_found();
    };
    match &server.store {
        Store::Snapshot(objects) => snapshot::list(objects, plural, kind, namespace, params, table),
        Store::Generated(cluster) => cluster.list(plural, kind, namespace, params, protobuf),
    }
}

fn get(
    server: &Server,
    plural: &str,
    namespace: Option<&str>,
    name: &str,
) -> Response<Full<Bytes>> {
    let Some(kind) = kind_of(plural) else {
        return not_found();
    };
    match &server.store {
        Store::Snapshot(objects) => snapshot::get(objects, plural, kind, namespace, name),
        Store::Generated(cluster) => cluster.get(plural, kind, namespace, name),
    }
}

fn kind_of(plural: &str) -> Option<&'static str> {
    RESOURCES
        .iter()
        .find(|(p, _, _)| *p == plural)
        .map(|(_, k, _)| *k)
}

/// The resource a path names, for fault matching.
fn resource_of(path: &str) -> Option<String> {
    let segs: Vec<&str> = path.trim_matches('/').split('/').collect();
    match segs.as_slice() {
        ["api", "v1", "namespaces", _, plural, ..]
        | ["apis", _, "v1", "namespaces", _, plural, ..] => Some(plural.to_string()),
        ["api", "v1", plural, ..] | ["apis", _, "v1", plural, ..] => Some(plural.to_string()),
        _ => None,
    }
}

/// A group of the APIGroupList, served at v1.
fn api_group(name: &str) -> Value {
    let version = json!({"groupVersion": format!("{name}/v1"), "version": "v1"});
    json!({"name": name, "versions": [version.clone()], "preferredVersion": version})
}

fn discovery(group: &str) -> Value {
    let resources: Vec<Value> = RESOURCES
        .iter()
        .filter(|(plural, _, _)| group_of(plural) == group)
        .map(|(plural, kind, namespaced)| {
            let short: Vec<&str> = match *plural {
                "nodes" => vec!["no"],
                "pods" => vec!["po"],
                "namespaces" => vec!["ns"],
                "events" => vec!["ev"],
                _ => vec![],
            };
            json!({"name": plural, "singularName": kind.to_lowercase(), "namespaced": namespaced,
                   "kind": kind, "verbs": ["get", "list"], "shortNames": short})
        })
        .collect();
    let group_version = if group.is_empty() {
        "v1".to_string()
    } else {
        format!("{group}/v1")
    };
    json!({"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": group_version, "resources": resources})
}
