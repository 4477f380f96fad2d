//! A fast local API server for whole-process benchmarks: it generates the cluster of
//! `kubectl_affinity_testkit::cluster_gen` in memory, serializes every object once, and answers
//! paged lists (limit/continue) by concatenating those bytes, so the server costs as little as
//! possible next to the clients being measured (kubectl, kubectl-affinity, curl).
//!
//! ```text
//! cargo run --release --example bench_apiserver -- NODES PODS_PER_NODE PORT
//! ```
//!
//! Serves discovery, `get` and `list` of nodes, pods, namespaces, events (none), services,
//! replicationcontrollers (none), replicasets and statefulsets (none), without authentication.
//! Pod and node lists come in protobuf when the request accepts
//! `application/vnd.kubernetes.protobuf` (each pod and node is encoded once too), in JSON
//! otherwise. Continue tokens are `c-OFFSET`, the same in both encodings. The field selector on
//! pods is ignored: every generated pod is Running or Pending. Prints `ready` on stdout once
//! listening.

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::Arc;

use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use kubectl_affinity_testkit::{cluster_gen, pb_encode};
use serde_json::{Value, json};

const RESOURCES: &[(&str, &str, bool, &str)] = &[
    ("nodes", "Node", false, ""),
    ("pods", "Pod", true, ""),
    ("namespaces", "Namespace", false, ""),
    ("events", "Event", true, ""),
    ("services", "Service", true, ""),
    ("replicationcontrollers", "ReplicationController", true, ""),
    ("replicasets", "ReplicaSet", true, "apps"),
    ("statefulsets", "StatefulSet", true, "apps"),
];

#[derive(Default)]
struct Store {
    objects: HashMap<String, Vec<cluster_gen::ListItem>>,
    /// The pods of `objects["pods"]`, in the same order, encoded in protobuf.
    pods_protobuf: Vec<Vec<u8>>,
    /// The nodes of `objects["nodes"]`, in the same order, encoded in protobuf.
    nodes_protobuf: Vec<Vec<u8>>,
}

/// Whether a request's Accept header asks for protobuf.
fn accepts_protobuf(req: &Request<Incoming>) -> bool {
    req.headers()
        .get_all("accept")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .any(|v| v.contains("application/vnd.kubernetes.protobuf"))
}

fn respond(code: u16, content: impl Into<Bytes>) -> Response<Full<Bytes>> {
    Response::builder()
        .status(code)
        .header("content-type", "application/json")
        .body(Full::new(content.into()))
        .unwrap_or_default()
}

fn json_response(v: &Value) -> Response<Full<Bytes>> {
    respond(200, serde_json::to_vec(v).unwrap_or_default())
}

fn not_found() -> Response<Full<Bytes>> {
    respond(
        404,
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"not found","reason":"NotFound","code":404}"#,
    )
}

fn discovery(group: &str) -> Value {
    let resources: Vec<Value> = RESOURCES
        .iter()
        .filter(|r| r.3 == group)
        .map(|(plural, kind, namespaced, _)| {
            json!({"name": plural, "singularName": kind.to_lowercase(), "namespaced": namespaced,
                   "kind": kind, "verbs": ["get", "list"]})
        })
        .collect();
    let gv = if group.is_empty() {
        "v1".to_string()
    } else {
        format!("{group}/v1")
    };
    json!({"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv, "resources": resources})
}

fn list(
    store: &Store,
    plural: &str,
    namespace: Option<&str>,
    query: &str,
    protobuf: bool,
) -> Response<Full<Bytes>> {
    let Some((_, kind, _, group)) = RESOURCES.iter().find(|r| r.0 == plural) else {
        return not_found();
    };
    let mut limit = usize::MAX;
    let mut offset: usize = 0;
    for p in query.split('&') {
        if let Some(v) = p.strip_prefix("limit=") {
            limit = v.parse().ok().filter(|l| *l > 0).unwrap_or(usize::MAX);
        } else if let Some(v) = p.strip_prefix("continue=") {
            offset = v.trim_start_matches("c-").parse().unwrap_or(0);
        }
    }
    let empty = Vec::new();
    let all = store.objects.get(plural).unwrap_or(&empty);
    let encoded = match plural {
        "pods" => Some(&store.pods_protobuf),
        "nodes" => Some(&store.nodes_protobuf),
        _ => None,
    };
    if let Some(encoded) = encoded.filter(|_| protobuf && namespace.is_none()) {
        let end = offset.saturating_add(limit).min(encoded.len());
        let items: Vec<&[u8]> = encoded[offset.min(end)..end]
            .iter()
            .map(Vec::as_slice)
            .collect();
        let more = end < encoded.len();
        let token = format!("c-{end}");
        let body = pb_encode::list_body(
            &format!("{kind}List"),
            &items,
            "1000",
            more.then_some(token.as_str()),
            more.then(|| (encoded.len() - end) as i64),
        );
        return Response::builder()
            .status(200)
            .header("content-type", "application/vnd.kubernetes.protobuf")
            .body(Full::new(body.into()))
            .unwrap_or_default();
    }
    let selected: Vec<&cluster_gen::ListItem> = all
        .iter()
        .filter(|o| namespace.is_none_or(|ns| o.namespace == ns))
        .collect();
    let end = offset.saturating_add(limit).min(selected.len());
    let page = &selected[offset.min(end)..end];
    let api_version = if group.is_empty() {
        "v1".to_string()
    } else {
        format!("{group}/v1")
    };
    let body = cluster_gen::list_page(kind, &api_version, page, end, selected.len());
    respond(200, body)
}

fn get(store: &Store, plural: &str, namespace: Option<&str>, name: &str) -> Response<Full<Bytes>> {
    let Some((_, kind, _, group)) = RESOURCES.iter().find(|r| r.0 == plural) else {
        return not_found();
    };
    let found = store.objects.get(plural).and_then(|l| {
        l.iter()
            .find(|o| o.name == name && namespace.is_none_or(|ns| o.namespace == ns))
    });
    let Some(o) = found else {
        return not_found();
    };
    let Ok(mut v) = serde_json::from_slice::<Value>(&o.json) else {
        return not_found();
    };
    v["apiVersion"] = json!(if group.is_empty() {
        "v1".to_string()
    } else {
        format!("{group}/v1")
    });
    v["kind"] = json!(kind);
    json_response(&v)
}

fn handle(store: &Store, req: &Request<Incoming>) -> Response<Full<Bytes>> {
    let path = req.uri().path();
    let query = req.uri().query().unwrap_or("");
    let protobuf = accepts_protobuf(req);
    let segs: Vec<&str> = path.trim_matches('/').split('/').collect();
    let core = |p: &str| RESOURCES.iter().any(|r| r.0 == p && r.3.is_empty());
    let apps = |p: &str| RESOURCES.iter().any(|r| r.0 == p && r.3 == "apps");
    match segs.as_slice() {
        ["version"] => json_response(
            &json!({"major": "1", "minor": "32", "gitVersion": "v1.32.0", "platform": "linux/amd64"}),
        ),
        ["api"] => json_response(&json!({"kind": "APIVersions", "versions": ["v1"],
            "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": "127.0.0.1"}]})),
        ["apis"] => json_response(
            &json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": [{"name": "apps",
            "versions": [{"groupVersion": "apps/v1", "version": "v1"}], "preferredVersion": {"groupVersion": "apps/v1", "version": "v1"}}]}),
        ),
        ["api", "v1"] => json_response(&discovery("")),
        ["apis", "apps", "v1"] => json_response(&discovery("apps")),
        ["api", "v1", "namespaces", ns, p] if core(p) => list(store, p, Some(ns), query, protobuf),
        ["api", "v1", "namespaces", ns, p, name] if core(p) => get(store, p, Some(ns), name),
        ["api", "v1", p] if core(p) => list(store, p, None, query, protobuf),
        ["api", "v1", p, name] if core(p) => get(store, p, None, name),
        ["apis", "apps", "v1", "namespaces", ns, p] if apps(p) => {
            list(store, p, Some(ns), query, protobuf)
        }
        ["apis", "apps", "v1", "namespaces", ns, p, name] if apps(p) => {
            get(store, p, Some(ns), name)
        }
        ["apis", "apps", "v1", p] if apps(p) => list(store, p, None, query, protobuf),
        _ => not_found(),
    }
}

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [nodes, per_node, port] = args.as_slice() else {
        eprintln!("usage: bench_apiserver NODES PODS_PER_NODE PORT");
        std::process::exit(2);
    };
    let size = cluster_gen::Size {
        nodes: nodes.parse().map_err(std::io::Error::other)?,
        pods_per_node: per_node.parse().map_err(std::io::Error::other)?,
    };
    let mut store = Store::default();
    cluster_gen::objects(size, |plural, v| {
        let item = cluster_gen::ListItem::new(v)?;
        store
            .objects
            .entry(plural.to_string())
            .or_default()
            .push(item);
        Ok(())
    })?;
    for list in store.objects.values_mut() {
        cluster_gen::sort_as_listed(list);
    }
    for item in store.objects.get("pods").into_iter().flatten() {
        let pod: k8s_openapi::api::core::v1::Pod =
            serde_json::from_slice(&item.json).map_err(std::io::Error::other)?;
        store.pods_protobuf.push(pb_encode::pod_bytes(&pod));
    }
    for item in store.objects.get("nodes").into_iter().flatten() {
        let node: k8s_openapi::api::core::v1::Node =
            serde_json::from_slice(&item.json).map_err(std::io::Error::other)?;
        store.nodes_protobuf.push(pb_encode::node_bytes(&node));
    }
    let store = Arc::new(store);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()?;
    rt.block_on(async move {
        let listener =
            tokio::net::TcpListener::bind(("127.0.0.1", port.parse().unwrap_or(0))).await?;
        println!("ready {}", listener.local_addr()?);
        loop {
            let (stream, _) = listener.accept().await?;
            let store = store.clone();
            tokio::spawn(async move {
                let svc = service_fn(move |req| {
                    let store = store.clone();
                    async move { Ok::<_, Infallible>(handle(&store, &req)) }
                });
                let _ = http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), svc)
                    .await;
            });
        }
    })
}
