//! A deterministic generator of realistic clusters for benchmarks: nodes with the well-known
//! labels, some taints; pods shaped as a real API server returns them (managedFields, status
//! with conditions and containerStatuses, ownerReferences, default tolerations, the projected
//! token volume), about 4 KB of JSON each, spread over many namespaces and apps; a third of the
//! apps with pod (anti-)affinity, some with node affinity; Services and ReplicaSets so default
//! topology spreading has work to do; and one pending pod, `bench/probe`, carrying every rule
//! kind. Shared by `examples/gen_cluster.rs`, the fake API server's generated clusters and
//! `benches/`.

use std::io::{self, Write};

use serde_json::{Value, json};

/// splitmix64: tiny, deterministic, good enough for picking names and sizes.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }
    fn hex(&mut self, len: usize) -> String {
        let mut s = format!("{:016x}{:016x}", self.next_u64(), self.next_u64());
        s.truncate(len);
        s
    }
    fn alnum(&mut self, len: usize) -> String {
        const A: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
        (0..len)
            .map(|_| A[self.below(A.len() as u64) as usize] as char)
            .collect()
    }
    fn uid(&mut self) -> String {
        let h = self.hex(32);
        format!(
            "{}-{}-{}-{}-{}",
            &h[0..8],
            &h[8..12],
            &h[12..16],
            &h[16..20],
            &h[20..32]
        )
    }
}

/// Cluster size.
#[derive(Debug, Clone, Copy)]
pub struct Size {
    pub nodes: usize,
    pub pods_per_node: usize,
}

impl Size {
    pub fn pods(&self) -> usize {
        self.nodes * self.pods_per_node
    }
    pub fn namespaces(&self) -> usize {
        (self.nodes / 5).max(4)
    }
    /// Ten replicas per app.
    pub fn apps(&self) -> usize {
        self.pods().div_ceil(10)
    }
}

const ZONES: &[&str] = &["a", "b", "c"];
const REGIONS: &[&str] = &["us-east-1", "eu-west-1"];
const TYPES: &[&str] = &[
    "m5.xlarge",
    "m5.2xlarge",
    "c5.4xlarge",
    "r5.2xlarge",
    "m6g.xlarge",
];
const IMAGES: &[&str] = &[
    "registry.k8s.io/pause:3.10",
    "docker.io/library/nginx:1.27.3",
    "docker.io/library/redis:7.4.1",
    "quay.io/prometheus/node-exporter:v1.8.2",
    "registry.k8s.io/kube-proxy:v1.32.0",
    "docker.io/bitnami/postgresql:16.4.0",
    "ghcr.io/example/shop-frontend:2.14.7",
    "ghcr.io/example/shop-api:5.2.0",
];
const TIERS: &[&str] = &["frontend", "backend", "data"];
const TS: &str = "2025-01-15T10:00:00Z";

fn node_name(i: usize) -> String {
    format!(
        "ip-10-{}-{}-{}.ec2.internal",
        i / 65536 % 256,
        i / 256 % 256,
        i % 256
    )
}

fn zone_of(i: usize) -> (String, &'static str) {
    let region = REGIONS[i % 5 / 4];
    (format!("{region}{}", ZONES[i % ZONES.len()]), region)
}

pub fn namespace_name(i: usize) -> String {
    const TEAMS: &[&str] = &[
        "shop", "payments", "search", "data", "ml", "infra", "web", "auth",
    ];
    format!("{}-{i}", TEAMS[i % TEAMS.len()])
}

pub fn app_name(i: usize) -> String {
    const KINDS: &[&str] = &["api", "web", "worker", "cache", "db", "gateway", "indexer"];
    format!("{}-{i}", KINDS[i % KINDS.len()])
}

/// The namespace of app `a`.
pub fn app_namespace(size: Size, a: usize) -> usize {
    a % size.namespaces()
}

pub fn node(rng: &mut Rng, i: usize) -> Value {
    let name = node_name(i);
    let (zone, region) = zone_of(i);
    let ty = TYPES[i % TYPES.len()];
    let arch = if ty.starts_with("m6g") {
        "arm64"
    } else {
        "amd64"
    };
    let mut taints = Vec::new();
    if i % 20 == 7 {
        taints.push(json!({"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}));
    }
    if i % 100 == 42 {
        taints.push(json!({"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule", "timeAdded": TS}));
    }
    let mut spec = json!({"providerID": format!("aws:///{zone}/i-{}", rng.hex(17)), "podCIDR": format!("10.{}.{}.0/24", i / 256 % 256, i % 256)});
    if !taints.is_empty() {
        spec["taints"] = json!(taints);
    }
    if i % 100 == 42 {
        spec["unschedulable"] = json!(true);
    }
    let images: Vec<Value> = (0..6)
        .map(|k| {
            let img = IMAGES[(i + k * 3) % IMAGES.len()];
            json!({"names": [format!("{img}@sha256:{}", rng.hex(64)), img], "sizeBytes": 10_000_000 + rng.below(500_000_000)})
        })
        .collect();
    let cond = |t: &str, s: &str, r: &str| json!({"type": t, "status": s, "lastHeartbeatTime": TS, "lastTransitionTime": TS, "reason": r, "message": format!("kubelet has {r}")});
    json!({
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "uid": rng.uid(),
            "resourceVersion": format!("{}", 100000 + rng.below(900000)),
            "creationTimestamp": TS,
            "labels": {
                "beta.kubernetes.io/arch": arch,
                "beta.kubernetes.io/instance-type": ty,
                "beta.kubernetes.io/os": "linux",
                "failure-domain.beta.kubernetes.io/region": region,
                "failure-domain.beta.kubernetes.io/zone": zone,
                "kubernetes.io/arch": arch,
                "kubernetes.io/hostname": name,
                "kubernetes.io/os": "linux",
                "node.kubernetes.io/instance-type": ty,
                "topology.kubernetes.io/region": region,
                "topology.kubernetes.io/zone": zone,
                "node-pool": format!("pool-{}", i % 4),
            },
            "annotations": {
                "node.alpha.kubernetes.io/ttl": "0",
                "volumes.kubernetes.io/controller-managed-attach-detach": "true",
            },
        },
        "spec": spec,
        "status": {
            "capacity": {"cpu": "16", "ephemeral-storage": "104845292Ki", "hugepages-1Gi": "0", "hugepages-2Mi": "0", "memory": "65049064Ki", "pods": "110"},
            "allocatable": {"cpu": "15890m", "ephemeral-storage": "95551679124", "hugepages-1Gi": "0", "hugepages-2Mi": "0", "memory": "64031208Ki", "pods": "110"},
            "conditions": [
                cond("MemoryPressure", "False", "KubeletHasSufficientMemory"),
                cond("DiskPressure", "False", "KubeletHasNoDiskPressure"),
                cond("PIDPressure", "False", "KubeletHasSufficientPID"),
                cond("Ready", "True", "KubeletReady"),
            ],
            "addresses": [{"type": "InternalIP", "address": format!("10.{}.{}.{}", i / 65536 % 256, i / 256 % 256, i % 256)}, {"type": "Hostname", "address": name}],
            "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
            "nodeInfo": {"machineID": rng.hex(32), "systemUUID": rng.uid(), "bootID": rng.uid(), "kernelVersion": "6.1.115-126.197.amzn2023.x86_64", "osImage": "Amazon Linux 2023", "containerRuntimeVersion": "containerd://1.7.23", "kubeletVersion": "v1.32.0", "kubeProxyVersion": "v1.32.0", "operatingSystem": "linux", "architecture": arch},
            "images": images,
        }
    })
}

/// What rules the pods of app `a` carry: a third pod (anti-)affinity, some node affinity.
fn affinity_of(size: Size, a: usize) -> Option<Value> {
    let ns = namespace_name(app_namespace(size, a));
    let app = app_name(a);
    let term = |app: &str, key: &str| json!({"labelSelector": {"matchLabels": {"app": app}}, "topologyKey": key});
    match a % 9 {
        0 => Some(
            json!({"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 100, "podAffinityTerm": term(&app, "kubernetes.io/hostname")}]}}),
        ),
        1 => Some(
            json!({"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            term(&app, "kubernetes.io/hostname")]}}),
        ),
        2 => {
            // Near another app of the same namespace, in the same zone.
            let other = app_name(a + size.namespaces());
            let _ = ns;
            Some(
                json!({"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": 50, "podAffinityTerm": term(&other, "topology.kubernetes.io/zone")}]}}),
            )
        }
        3 => Some(
            json!({"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "node.kubernetes.io/instance-type", "operator": "In", "values": TYPES}]}]}}}),
        ),
        4 => Some(
            json!({"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 20, "preference": {"matchExpressions": [{"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["us-east-1a"]}]}}]}}),
        ),
        _ => None,
    }
}

fn hash_of(a: usize) -> String {
    let mut r = Rng::new(a as u64 ^ 0xabcdef);
    r.alnum(10)
}

/// Pod `p` of the cluster: app `p / 10`, bound to node `p % nodes` (so an app's ten replicas
/// land on ten different nodes).
pub fn pod(rng: &mut Rng, size: Size, p: usize) -> Value {
    let a = p / 10;
    let app = app_name(a);
    let ns = namespace_name(app_namespace(size, a));
    let hash = hash_of(a);
    let rs = format!("{app}-{hash}");
    let name = format!("{rs}-{}", rng.alnum(5));
    let node = node_name(p % size.nodes);
    let image = IMAGES[1 + a % (IMAGES.len() - 1)];
    let cpu = [50, 100, 250, 500][a % 4];
    let mem = [64, 128, 256, 512][(a / 4) % 4];
    let ip = format!("10.{}.{}.{}", 100 + p / 65536 % 100, p / 256 % 256, p % 256);
    let uid = rng.uid();
    // The ReplicaSet's uid, the same for all its pods as on a real cluster. A value is still
    // drawn where it was, so that every other generated value stays as it was.
    let owner_uid = |rng: &mut Rng| {
        let _ = rng.uid();
        format!("{a:08x}-0000-4000-8000-{a:012x}")
    };
    let mut spec = json!({
        "volumes": [{"name": format!("kube-api-access-{}", rng.alnum(5)), "projected": {"sources": [
            {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
            {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
            {"downwardAPI": {"items": [{"path": "namespace", "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}]}}
        ], "defaultMode": 420}}],
        "containers": [{
            "name": app,
            "image": image,
            "ports": [{"name": "http", "containerPort": 8080, "protocol": "TCP"}],
            "env": [{"name": "APP_NAME", "value": app}, {"name": "POD_IP", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "status.podIP"}}}],
            "resources": {"limits": {"memory": format!("{}Mi", mem * 2)}, "requests": {"cpu": format!("{cpu}m"), "memory": format!("{mem}Mi")}},
            "volumeMounts": [{"name": "kube-api-access", "readOnly": true, "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount"}],
            "readinessProbe": {"httpGet": {"path": "/healthz", "port": 8080, "scheme": "HTTP"}, "timeoutSeconds": 1, "periodSeconds": 10, "successThreshold": 1, "failureThreshold": 3},
            "terminationMessagePath": "/dev/termination-log",
            "terminationMessagePolicy": "File",
            "imagePullPolicy": "IfNotPresent"
        }],
        "restartPolicy": "Always",
        "terminationGracePeriodSeconds": 30,
        "dnsPolicy": "ClusterFirst",
        "serviceAccountName": "default",
        "serviceAccount": "default",
        "nodeName": node,
        "securityContext": {},
        "schedulerName": "default-scheduler",
        "tolerations": [
            {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
            {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}
        ],
        "priority": 0,
        "enableServiceLinks": true,
        "preemptionPolicy": "PreemptLowerPriority"
    });
    if let Some(aff) = affinity_of(size, a) {
        spec["affinity"] = aff;
    }
    let cond = |t: &str| json!({"type": t, "status": "True", "lastProbeTime": null, "lastTransitionTime": TS});
    json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "generateName": format!("{rs}-"),
            "namespace": ns,
            "uid": uid,
            "resourceVersion": format!("{}", 100000 + rng.below(900000)),
            "creationTimestamp": TS,
            "labels": {"app": app, "pod-template-hash": hash, "tier": TIERS[a % 3]},
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": rs, "uid": owner_uid(rng), "controller": true, "blockOwnerDeletion": true}],
            "managedFields": [
                {"manager": "kube-controller-manager", "operation": "Update", "apiVersion": "v1", "time": TS, "fieldsType": "FieldsV1", "fieldsV1": {
                    "f:metadata": {"f:generateName": {}, "f:labels": {".": {}, "f:app": {}, "f:pod-template-hash": {}, "f:tier": {}}, "f:ownerReferences": {".": {}, format!("k:{{\"uid\":\"{uid}\"}}"): {}}},
                    "f:spec": {"f:containers": {format!("k:{{\"name\":\"{app}\"}}"): {".": {}, "f:env": {".": {}, "k:{\"name\":\"APP_NAME\"}": {".": {}, "f:name": {}, "f:value": {}}}, "f:image": {}, "f:imagePullPolicy": {}, "f:name": {}, "f:ports": {".": {}, "k:{\"containerPort\":8080,\"protocol\":\"TCP\"}": {".": {}, "f:containerPort": {}, "f:name": {}, "f:protocol": {}}}, "f:resources": {".": {}, "f:limits": {".": {}, "f:memory": {}}, "f:requests": {".": {}, "f:cpu": {}, "f:memory": {}}}, "f:terminationMessagePath": {}, "f:terminationMessagePolicy": {}}},
                        "f:dnsPolicy": {}, "f:enableServiceLinks": {}, "f:restartPolicy": {}, "f:schedulerName": {}, "f:securityContext": {}, "f:terminationGracePeriodSeconds": {}}
                }},
                {"manager": "kubelet", "operation": "Update", "apiVersion": "v1", "time": TS, "fieldsType": "FieldsV1", "subresource": "status", "fieldsV1": {
                    "f:status": {"f:conditions": {"k:{\"type\":\"ContainersReady\"}": {".": {}, "f:lastProbeTime": {}, "f:lastTransitionTime": {}, "f:status": {}, "f:type": {}}, "k:{\"type\":\"Initialized\"}": {".": {}, "f:lastProbeTime": {}, "f:lastTransitionTime": {}, "f:status": {}, "f:type": {}}, "k:{\"type\":\"Ready\"}": {".": {}, "f:lastProbeTime": {}, "f:lastTransitionTime": {}, "f:status": {}, "f:type": {}}},
                        "f:containerStatuses": {}, "f:hostIP": {}, "f:hostIPs": {}, "f:phase": {}, "f:podIP": {}, "f:podIPs": {".": {}, format!("k:{{\"ip\":\"{ip}\"}}"): {".": {}, "f:ip": {}}}, "f:startTime": {}}
                }}
            ]
        },
        "spec": spec,
        "status": {
            "phase": "Running",
            "conditions": [cond("PodReadyToStartContainers"), cond("Initialized"), cond("Ready"), cond("ContainersReady"), cond("PodScheduled")],
            "hostIP": format!("10.{}.{}.{}", p % size.nodes / 65536 % 256, p % size.nodes / 256 % 256, p % size.nodes % 256),
            "podIP": ip,
            "podIPs": [{"ip": ip}],
            "startTime": TS,
            "containerStatuses": [{
                "name": app,
                "state": {"running": {"startedAt": TS}},
                "lastState": {},
                "ready": true,
                "restartCount": 0,
                "image": image,
                "imageID": format!("{image}@sha256:{}", rng.hex(64)),
                "containerID": format!("containerd://{}", rng.hex(64)),
                "started": true
            }],
            "qosClass": "Burstable"
        }
    })
}

/// The incoming pod every benchmark explains: pending, in namespace `bench`, with required and
/// preferred node affinity, pod affinity and anti-affinity on zone and hostname, tolerations.
pub fn probe(size: Size) -> Value {
    let near = app_name(2);
    let near_ns = namespace_name(app_namespace(size, 2));
    json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "probe", "namespace": "bench", "uid": "00000000-0000-4000-8000-000000000001", "creationTimestamp": TS,
            "labels": {"app": "probe", "tier": "backend"}},
        "spec": {
            "containers": [{"name": "probe", "image": IMAGES[1], "resources": {"requests": {"cpu": "500m", "memory": "512Mi"}}}],
            "schedulerName": "default-scheduler",
            "tolerations": [
                {"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"},
                {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}
            ],
            "affinity": {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{"matchExpressions": [
                        {"key": "kubernetes.io/os", "operator": "In", "values": ["linux"]},
                        {"key": "node.kubernetes.io/instance-type", "operator": "NotIn", "values": ["c5.4xlarge"]}]}]},
                    "preferredDuringSchedulingIgnoredDuringExecution": [
                        {"weight": 30, "preference": {"matchExpressions": [{"key": "kubernetes.io/arch", "operator": "In", "values": ["arm64"]}]}}]
                },
                "podAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": [
                        {"labelSelector": {"matchLabels": {"app": near}}, "namespaces": [near_ns], "topologyKey": "topology.kubernetes.io/zone"}],
                    "preferredDuringSchedulingIgnoredDuringExecution": [
                        {"weight": 40, "podAffinityTerm": {"labelSelector": {"matchExpressions": [{"key": "tier", "operator": "In", "values": ["data"]}]}, "namespaceSelector": {}, "topologyKey": "topology.kubernetes.io/zone"}}]
                },
                "podAntiAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": [
                        {"labelSelector": {"matchLabels": {"app": "probe"}}, "topologyKey": "kubernetes.io/hostname"}],
                    "preferredDuringSchedulingIgnoredDuringExecution": [
                        {"weight": 60, "podAffinityTerm": {"labelSelector": {"matchLabels": {"tier": "backend"}}, "namespaceSelector": {}, "topologyKey": "kubernetes.io/hostname"}}]
                }
            }
        },
        "status": {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False", "lastProbeTime": null, "lastTransitionTime": TS, "reason": "Unschedulable", "message": "0/3 nodes are available"}], "qosClass": "Burstable"}
    })
}

fn namespace(i: usize) -> Value {
    let name = if i == usize::MAX {
        "bench".to_string()
    } else {
        namespace_name(i)
    };
    json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "uid": format!("ns-{name}"), "creationTimestamp": TS,
        "labels": {"kubernetes.io/metadata.name": name, "team": name.split('-').next().unwrap_or("")}},
        "spec": {"finalizers": ["kubernetes"]}, "status": {"phase": "Active"}})
}

fn service(size: Size, a: usize) -> Value {
    json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": app_name(a), "namespace": namespace_name(app_namespace(size, a)), "creationTimestamp": TS},
        "spec": {"selector": {"app": app_name(a)}, "ports": [{"port": 80, "targetPort": 8080, "protocol": "TCP"}], "type": "ClusterIP"}})
}

fn replica_set(size: Size, a: usize) -> Value {
    let app = app_name(a);
    let hash = hash_of(a);
    json!({"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": format!("{app}-{hash}"), "namespace": namespace_name(app_namespace(size, a)), "creationTimestamp": TS,
        "labels": {"app": app, "pod-template-hash": hash}},
        "spec": {"replicas": 10, "selector": {"matchLabels": {"app": app, "pod-template-hash": hash}}}})
}

/// Every object of the cluster, in a fixed order: namespaces, nodes, pods (the probe last),
/// Services (every third app), ReplicaSets (every app).
pub fn objects(size: Size, mut sink: impl FnMut(&str, Value) -> io::Result<()>) -> io::Result<()> {
    let mut rng = Rng::new(0x5eed_0000 ^ size.nodes as u64);
    for i in 0..size.namespaces() {
        sink("namespaces", namespace(i))?;
    }
    sink("namespaces", namespace(usize::MAX))?;
    for i in 0..size.nodes {
        sink("nodes", node(&mut rng, i))?;
    }
    for p in 0..size.pods() {
        sink("pods", pod(&mut rng, size, p))?;
    }
    sink("pods", probe(size))?;
    for a in (0..size.apps()).step_by(3) {
        sink("services", service(size, a))?;
    }
    for a in 0..size.apps() {
        sink("replicasets", replica_set(size, a))?;
    }
    Ok(())
}

/// An object as an API server lists it: without its `kind` and `apiVersion` (the list
/// carries them), with the namespace and name lists are sorted by (as etcd keys are).
#[derive(Debug)]
pub struct ListItem {
    pub namespace: String,
    pub name: String,
    /// The item, serialized once.
    pub json: Vec<u8>,
}

impl ListItem {
    pub fn new(mut v: Value) -> io::Result<ListItem> {
        if let Some(m) = v.as_object_mut() {
            m.remove("apiVersion");
            m.remove("kind");
        }
        let s = |p: &str| {
            v.pointer(p)
                .and_then(|x| x.as_str())
                .unwrap_or("")
                .to_string()
        };
        Ok(ListItem {
            namespace: s("/metadata/namespace"),
            name: s("/metadata/name"),
            json: serde_json::to_vec(&v).map_err(io::Error::other)?,
        })
    }
}

/// Lists come sorted by namespace and name, as etcd keys are.
pub fn sort_as_listed(items: &mut [ListItem]) {
    items.sort_by(|a, b| (&a.namespace, &a.name).cmp(&(&b.namespace, &b.name)));
}

/// One page of a list as an API server writes it, `items` being the page's items and `end`
/// the offset after them in a list of `total`: while items remain, the list's metadata carries
/// the continue token `c-END` and the remaining count, before the items.
pub fn list_page(
    kind: &str,
    api_version: &str,
    items: &[&ListItem],
    end: usize,
    total: usize,
) -> Vec<u8> {
    let metadata = if end < total {
        format!(
            r#"{{"resourceVersion":"1000","continue":"c-{end}","remainingItemCount":{}}}"#,
            total - end
        )
    } else {
        r#"{"resourceVersion":"1000"}"#.to_string()
    };
    let mut body = Vec::with_capacity(items.iter().map(|o| o.json.len() + 1).sum::<usize>() + 200);
    body.extend_from_slice(
        format!(
            r#"{{"kind":"{kind}List","apiVersion":"{api_version}","metadata":{metadata},"items":["#
        )
        .as_bytes(),
    );
    for (i, o) in items.iter().enumerate() {
        if i > 0 {
            body.push(b',');
        }
        body.extend_from_slice(&o.json);
    }
    body.extend_from_slice(b"]}");
    body
}

/// Writes the cluster as one `v1 List` in JSON, as `kubectl get -o json` prints it.
pub fn write_list(size: Size, out: &mut dyn Write) -> io::Result<()> {
    out.write_all(b"{\"apiVersion\":\"v1\",\"kind\":\"List\",\"metadata\":{\"resourceVersion\":\"\"},\"items\":[\n")?;
    let mut first = true;
    objects(size, |_, v| {
        if !first {
            out.write_all(b",\n")?;
        }
        first = false;
        serde_json::to_writer(&mut *out, &v).map_err(io::Error::other)
    })?;
    out.write_all(b"\n]}\n")
}
