//! A real API server for the tests, by envtest's convention: `KUBEBUILDER_ASSETS` names a
//! folder holding `kube-apiserver` and `etcd` (`.ci/run` unpacks them there from
//! `../shared/envtest`). One etcd and one API server serve the whole test run, started by the
//! first test that asks ([`shared`]); a second API server on the same etcd, with the admission
//! plugins most clusters leave off, only for the test that asks for it ([`with_admission`]).
//!
//! The cluster is put there through the API as a cluster's controllers would have left it:
//! objects created, nodes' and pods' status written through the `status` subresource, pods
//! bound by `spec.nodeName` (there is no scheduler, controller or kubelet). Users are tokens:
//! an admin, the README's `kubectl-affinity-reader` role, a pods-and-nodes reader and one with
//! no rights. Every request is in the server's audit log.
//!
//! When the assets are missing the tests say so in their output and do not run.

// Tests may unwrap: a panic is the failure report.
#![allow(clippy::unwrap_used)]

use std::io::Write;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// The users of the server, by their token file's line: name, groups.
pub const ADMIN: &str = "envtest-admin";
/// Bound to the README's `kubectl-affinity-reader` ClusterRole.
pub const PLUGIN: &str = "affinity-user";
/// In `system:masters`: what `--server-dry-run` runs as (it creates, with `dryRun=All`).
pub const PLUGIN_ADMIN: &str = "affinity-admin";
/// May get and list pods and nodes, nothing else.
pub const READER: &str = "pods-nodes-reader";
/// Authenticated, with no rights at all.
pub const NOBODY: &str = "nobody";
/// The users the plugin runs as, whose requests the audit log check reads.
pub const PLUGIN_USERS: [&str; 4] = [PLUGIN, PLUGIN_ADMIN, READER, NOBODY];

/// The objects put in the server: the demo cluster, then what it lacks of a real one.
const CLUSTER: &str = "examples/cluster.yaml";
const EXTRAS: &str = "tests/envtest/cluster.yaml";

/// A running API server and what the tests need to reach it.
#[derive(Debug)]
pub struct Envtest {
    /// The folder of certificates, tokens, kubeconfigs and logs; removed by the watchdog.
    pub dir: PathBuf,
    pub url: String,
    pub audit_log: PathBuf,
}

/// Why the real-server tests cannot run here, or the server.
static SHARED: OnceLock<Result<Envtest, String>> = OnceLock::new();
static ADMISSION: OnceLock<Result<Envtest, String>> = OnceLock::new();
/// etcd's client URL, shared by both API servers.
static ETCD: OnceLock<Result<(String, PathBuf), String>> = OnceLock::new();

/// The API server shared by the test run, populated; `None` (said on standard error, past the
/// harness's capture) when this machine has no assets for it. A server that was found but does
/// not start fails the test.
pub fn shared(test: &str) -> Option<&'static Envtest> {
    available(test, SHARED.get_or_init(start_populated))
}

/// A second API server on the same etcd (so the same cluster) with PodNodeSelector and
/// PodTolerationRestriction enabled, as few clusters run them.
pub fn with_admission(test: &str) -> Option<&'static Envtest> {
    shared(test)?;
    available(
        test,
        ADMISSION.get_or_init(|| {
            let (etcd, root) = etcd()?.clone();
            let dir = root.join("admission");
            std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
            for f in [
                "ca.crt",
                "ca.key",
                "server.crt",
                "server.key",
                "sa.key",
                "sa.pub",
                "tokens.csv",
                "policy.yaml",
            ] {
                std::fs::copy(root.join(f), dir.join(f)).map_err(|e| e.to_string())?;
            }
            apiserver(
                &dir,
                &etcd,
                &["--enable-admission-plugins=PodNodeSelector,PodTolerationRestriction"],
            )
        }),
    )
}

fn available(test: &str, server: &'static Result<Envtest, String>) -> Option<&'static Envtest> {
    match server {
        Ok(env) => Some(env),
        Err(why) if why.starts_with(NOT_HERE) => {
            let _ = writeln!(std::io::stderr(), "note: {test} did not run: {why}");
            None
        }
        Err(why) => panic!("the real API server: {why}"),
    }
}

/// The start of the reason a test does not run (rather than fail).
const NOT_HERE: &str = "no real API server here: ";

/// The folder of the assets, or why there is none.
fn assets() -> Result<PathBuf, String> {
    let dir = std::env::var_os("KUBEBUILDER_ASSETS").ok_or_else(|| {
        format!(
            "{NOT_HERE}KUBEBUILDER_ASSETS is not set (it names a folder with kube-apiserver and \
             etcd; .ci/run sets it where ../shared/envtest exists)"
        )
    })?;
    let dir = PathBuf::from(dir);
    for bin in ["kube-apiserver", "etcd"] {
        if !dir.join(bin).is_file() {
            return Err(format!(
                "KUBEBUILDER_ASSETS={} holds no {bin}",
                dir.display()
            ));
        }
    }
    if Command::new("openssl").arg("version").output().is_err() {
        return Err(format!(
            "{NOT_HERE}openssl, which makes its certificates, is not installed"
        ));
    }
    Ok(dir)
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap()
}

/// Ends `child` when this test process has ended (a static is never dropped), then removes
/// `remove`: a shell that polls this process.
// The watchdog outlives this process by design: it is never waited for.
#[allow(clippy::zombie_processes)]
fn watchdog(child: &Child, remove: Option<&Path>) {
    let rm = remove
        .map(|d| format!("; sleep 1; rm -rf '{}'", d.display()))
        .unwrap_or_default();
    let script = format!(
        "while kill -0 {} 2>/dev/null; do sleep 1; done; kill -9 {} 2>/dev/null{rm}",
        std::process::id(),
        child.id()
    );
    Command::new("sh")
        .args(["-c", &script])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
}

fn run(cmd: &mut Command) -> Result<(), String> {
    let out = cmd.output().map_err(|e| format!("{cmd:?}: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!("{cmd:?}: {}", String::from_utf8_lossy(&out.stderr)))
    }
}

/// etcd, and the folder of the certificates and tokens both API servers use.
fn etcd() -> Result<&'static (String, PathBuf), String> {
    ETCD.get_or_init(|| {
        let bin = assets()?;
        let dir = tempfile::Builder::new()
            .prefix("kubectl-affinity-envtest-")
            .tempdir()
            .map_err(|e| e.to_string())?
            .keep();
        credentials(&dir)?;
        let (client, peer) = (free_port(), free_port());
        let url = format!("http://127.0.0.1:{client}");
        let child = Command::new(bin.join("etcd"))
            .arg("--data-dir")
            .arg(dir.join("etcd"))
            .args([
                "--listen-client-urls",
                &url,
                "--advertise-client-urls",
                &url,
            ])
            .args(["--listen-peer-urls", &format!("http://127.0.0.1:{peer}")])
            .args(["--unsafe-no-fsync", "--log-level", "error"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(dir.join("etcd.log")).map_err(|e| e.to_string())?)
            .spawn()
            .map_err(|e| format!("starting etcd: {e}"))?;
        watchdog(&child, Some(&dir));
        Ok((url, dir))
    })
    .as_ref()
    .map_err(Clone::clone)
}

/// A CA, the server's certificate for 127.0.0.1, the service-account key pair, the tokens
/// and the audit policy.
fn credentials(dir: &Path) -> Result<(), String> {
    let openssl = |args: &[&str]| run(Command::new("openssl").current_dir(dir).args(args));
    openssl(&[
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "ca.key",
        "-out",
        "ca.crt",
        "-days",
        "2",
        "-subj",
        "/CN=envtest-ca",
    ])?;
    openssl(&[
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "server.key",
        "-out",
        "server.csr",
        "-subj",
        "/CN=127.0.0.1",
    ])?;
    std::fs::write(dir.join("ext.cnf"), "subjectAltName=IP:127.0.0.1\n")
        .map_err(|e| e.to_string())?;
    openssl(&[
        "x509",
        "-req",
        "-in",
        "server.csr",
        "-CA",
        "ca.crt",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-out",
        "server.crt",
        "-days",
        "2",
        "-extfile",
        "ext.cnf",
    ])?;
    openssl(&["genrsa", "-out", "sa.key", "2048"])?;
    openssl(&["rsa", "-in", "sa.key", "-pubout", "-out", "sa.pub"])?;
    let tokens: String = [
        (ADMIN, "system:masters"),
        (PLUGIN, "affinity-users"),
        (PLUGIN_ADMIN, "system:masters"),
        (READER, "readers"),
        (NOBODY, "nobodies"),
    ]
    .iter()
    .map(|(user, group)| format!("{},{user},uid-{user},\"{group}\"\n", token(user)))
    .collect();
    std::fs::write(dir.join("tokens.csv"), tokens).map_err(|e| e.to_string())?;
    std::fs::write(
        dir.join("policy.yaml"),
        "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n",
    )
    .map_err(|e| e.to_string())
}

/// The bearer token of `user`.
pub fn token(user: &str) -> String {
    format!("token-{user}")
}

/// Starts an API server in `dir` (its certificates there) and waits until it is ready.
fn apiserver(dir: &Path, etcd: &str, extra: &[&str]) -> Result<Envtest, String> {
    let bin = assets()?;
    let port = free_port();
    let audit_log = dir.join("audit.log");
    let log = std::fs::File::create(dir.join("kube-apiserver.log")).map_err(|e| e.to_string())?;
    let mut child = Command::new(bin.join("kube-apiserver"))
        .current_dir(dir)
        .arg(format!("--etcd-servers={etcd}"))
        .args(["--bind-address=127.0.0.1", "--advertise-address=127.0.0.1"])
        .arg(format!("--secure-port={port}"))
        .args([
            "--tls-cert-file=server.crt",
            "--tls-private-key-file=server.key",
            "--client-ca-file=ca.crt",
            "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
            "--service-account-key-file=sa.pub",
            "--service-account-signing-key-file=sa.key",
            "--token-auth-file=tokens.csv",
            "--authorization-mode=Node,RBAC",
            "--service-cluster-ip-range=10.0.0.0/24",
            "--profiling=false",
            // As clusters that run kube-proxy and device plugins allow.
            "--allow-privileged=true",
            "--audit-policy-file=policy.yaml",
            "--audit-log-path=audit.log",
        ])
        .args(extra)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .map_err(|e| format!("starting kube-apiserver: {e}"))?;
    watchdog(&child, None);
    let env = Envtest {
        dir: dir.to_path_buf(),
        url: format!("https://127.0.0.1:{port}"),
        audit_log,
    };
    let start = Instant::now();
    let rt = runtime();
    loop {
        let ready = rt.block_on(async {
            let req = http::Request::get("/readyz").body(Vec::new()).unwrap();
            env.client(ADMIN).await.request_text(req).await
        });
        match ready {
            Ok(body) if body.trim() == "ok" => return Ok(env),
            _ if start.elapsed() > Duration::from_secs(60) => {
                let _ = child.kill();
                let log =
                    std::fs::read_to_string(dir.join("kube-apiserver.log")).unwrap_or_default();
                let tail: Vec<&str> = log.lines().rev().take(20).collect();
                return Err(format!(
                    "kube-apiserver was not ready in 60 s; its log ends:\n{}",
                    tail.into_iter().rev().collect::<Vec<_>>().join("\n")
                ));
            }
            _ => std::thread::sleep(Duration::from_millis(200)),
        }
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

fn start_populated() -> Result<Envtest, String> {
    let (etcd, dir) = etcd()?.clone();
    let env = apiserver(&dir, &etcd, &[])?;
    let started = Instant::now();
    env.populate()?;
    let _ = writeln!(
        std::io::stderr(),
        "note: the real API server ({}) was populated in {:.1} s",
        env.url,
        started.elapsed().as_secs_f64()
    );
    Ok(env)
}

impl Envtest {
    /// A kubeconfig for `user` (written once).
    pub fn kubeconfig(&self, user: &str) -> PathBuf {
        let path = self.dir.join(format!("kubeconfig-{user}"));
        if !path.exists() {
            let text = format!(
                "apiVersion: v1\nkind: Config\nclusters:\n- name: envtest\n  cluster:\n    \
                 server: {}\n    certificate-authority: {}\ncontexts:\n- name: envtest\n  \
                 context:\n    cluster: envtest\n    user: {user}\ncurrent-context: envtest\n\
                 users:\n- name: {user}\n  user:\n    token: {}\n",
                self.url,
                self.dir.join("ca.crt").display(),
                token(user)
            );
            // Written aside and renamed: tests running at once may write it together.
            static WRITTEN: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
            let n = WRITTEN.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let tmp = self.dir.join(format!("kubeconfig-{user}.{n}"));
            std::fs::write(&tmp, text).unwrap();
            std::fs::rename(&tmp, &path).unwrap();
        }
        path
    }

    /// A client of `user`, made inside the runtime that uses it.
    pub async fn client(&self, user: &str) -> kube::Client {
        let kubeconfig = kube::config::Kubeconfig::read_from(self.kubeconfig(user)).unwrap();
        let config = kube::Config::from_custom_kubeconfig(kubeconfig, &Default::default())
            .await
            .unwrap();
        kube::Client::try_from(config).unwrap()
    }

    /// Every object of the demo cluster and its extras, then the users' rights.
    fn populate(&self) -> Result<(), String> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut objects = Vec::new();
        for file in [CLUSTER, EXTRAS] {
            let read = kubectl_affinity::state::read_objects(&root.join(file))
                .map_err(|e| format!("{file}: {e}"))?;
            objects.extend(read.into_iter().map(|o| o.value));
        }
        objects.extend(rbac(&readme_role()?));
        // Owners before what they own, as controllers create them: namespaces, what pods
        // need to be admitted, workloads, their ReplicaSets, pods, then events.
        let rank = |o: &Value| match o["kind"].as_str() {
            Some("Namespace") => 0,
            Some("ServiceAccount" | "PriorityClass" | "RuntimeClass" | "LimitRange") => 1,
            Some("ReplicaSet") => 3,
            Some("Pod") => 4,
            Some("Event") => 5,
            _ => 2,
        };
        objects.sort_by_key(rank);
        runtime().block_on(async {
            let client = self.client(ADMIN).await;
            let mut uids = Uids::default();
            for o in objects {
                create(&client, o, &mut uids).await?;
            }
            Ok(())
        })
    }
}

/// The uids the server gave, by kind, namespace and name: owner references and events name
/// their objects by them.
#[derive(Debug, Default)]
struct Uids(std::collections::HashMap<(String, String, String), String>);

impl Uids {
    fn get(&self, kind: &Value, namespace: &Value, name: &Value) -> Option<&String> {
        let s = |v: &Value| v.as_str().unwrap_or_default().to_string();
        self.0.get(&(s(kind), s(namespace), s(name)))
    }

    /// Points `o`'s owner references and an event's object at the uids the server gave; a
    /// ReplicaSet `NAME-HASH` gets the Deployment `NAME` as its owner.
    fn link(&self, o: &mut Value) {
        let ns = o["metadata"]["namespace"].clone();
        if o["kind"] == "ReplicaSet" && o["metadata"]["ownerReferences"].is_null() {
            let name = o["metadata"]["name"].as_str().unwrap_or_default();
            if let Some((deploy, _)) = name.rsplit_once('-') {
                let deploy = Value::from(deploy);
                if let Some(uid) = self.get(&"Deployment".into(), &ns, &deploy) {
                    o["metadata"]["ownerReferences"] = json!([{"apiVersion": "apps/v1",
                        "kind": "Deployment", "name": deploy, "uid": uid,
                        "controller": true, "blockOwnerDeletion": true}]);
                }
            }
        }
        if let Some(owners) = o["metadata"]["ownerReferences"].as_array_mut() {
            for r in owners {
                let scope = if r["kind"] == "Node" {
                    Value::Null
                } else {
                    ns.clone()
                };
                if let Some(uid) = self.get(&r["kind"], &scope, &r["name"]) {
                    r["uid"] = uid.as_str().into();
                }
            }
        }
        for field in ["involvedObject", "regarding"] {
            let r = &o[field];
            if let Some(uid) = self.get(&r["kind"], &r["namespace"], &r["name"]).cloned() {
                o[field]["uid"] = uid.into();
            }
        }
    }
}

/// Sends a request; the status and the body (`null` when it is not JSON).
async fn send(
    client: &kube::Client,
    method: &str,
    path: &str,
    body: Option<&Value>,
) -> (u16, Value) {
    let content_type = if method == "PATCH" {
        "application/merge-patch+json"
    } else {
        "application/json"
    };
    let req = http::Request::builder()
        .method(method)
        .uri(path)
        .header("content-type", content_type)
        .body(
            body.map(|b| serde_json::to_vec(b).unwrap())
                .unwrap_or_default(),
        )
        .unwrap();
    let res = client.send(req.map(Into::into)).await.unwrap();
    let status = res.status().as_u16();
    let bytes = http_body_util::BodyExt::collect(res.into_body())
        .await
        .unwrap()
        .to_bytes();
    (
        status,
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    )
}

/// The collection URL of an object's kind, in its namespace.
pub fn collection(o: &Value) -> Result<String, String> {
    let kind = o["kind"].as_str().unwrap_or_default();
    let api = o["apiVersion"].as_str().unwrap_or_default();
    let (plural, namespaced) = match kind {
        "Namespace" => ("namespaces", false),
        "Node" => ("nodes", false),
        "PriorityClass" => ("priorityclasses", false),
        "RuntimeClass" => ("runtimeclasses", false),
        "ClusterRole" => ("clusterroles", false),
        "ClusterRoleBinding" => ("clusterrolebindings", false),
        "StorageClass" => ("storageclasses", false),
        "PersistentVolume" => ("persistentvolumes", false),
        "Pod" => ("pods", true),
        "Service" => ("services", true),
        "ServiceAccount" => ("serviceaccounts", true),
        "LimitRange" => ("limitranges", true),
        "Event" => ("events", true),
        "ReplicationController" => ("replicationcontrollers", true),
        "PersistentVolumeClaim" => ("persistentvolumeclaims", true),
        "ReplicaSet" => ("replicasets", true),
        "Deployment" => ("deployments", true),
        "StatefulSet" => ("statefulsets", true),
        "DaemonSet" => ("daemonsets", true),
        "Job" => ("jobs", true),
        "PodDisruptionBudget" => ("poddisruptionbudgets", true),
        other => return Err(format!("the kit does not know where a {other} goes")),
    };
    let group = if api.contains('/') {
        format!("/apis/{api}")
    } else {
        format!("/api/{api}")
    };
    Ok(if namespaced {
        let ns = o["metadata"]["namespace"].as_str().unwrap_or("default");
        format!("{group}/namespaces/{ns}/{plural}")
    } else {
        format!("{group}/{plural}")
    })
}

/// Creates `o` as its controller would have (without what the server sets), then writes its
/// status through the `status` subresource.
async fn create(client: &kube::Client, mut o: Value, uids: &mut Uids) -> Result<(), String> {
    let url = collection(&o)?;
    uids.link(&mut o);
    let name = o["metadata"]["name"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    if let Some(meta) = o["metadata"].as_object_mut() {
        for f in [
            "resourceVersion",
            "uid",
            "creationTimestamp",
            "managedFields",
            "generation",
            "selfLink",
        ] {
            meta.remove(f);
        }
    }
    if o["kind"] == "Service" {
        // The demo's addresses are not in this server's service range: it allocates its own.
        if let Some(spec) = o["spec"].as_object_mut() {
            spec.remove("clusterIP");
            spec.remove("clusterIPs");
        }
    }
    let status = o.as_object_mut().and_then(|o| o.remove("status"));
    let (code, mut body) = send(client, "POST", &url, Some(&o)).await;
    if code == 409 && (o["kind"] == "Namespace" || (o["kind"] == "Service" && name == "kubernetes"))
    {
        // The API server's own: there already.
        body = send(client, "GET", &format!("{url}/{name}"), None).await.1;
    } else if code >= 300 {
        return Err(format!("creating {url}/{name}: {code} {}", body["message"]));
    }
    if o["kind"] == "Node" && body["spec"]["taints"] != o["spec"]["taints"] {
        // The API server taints a new node not-ready; the node lifecycle controller lifts it
        // once the kubelet reports Ready.
        let taints = json!({"spec": {"taints": o["spec"]["taints"]}});
        let (code, body) = send(client, "PATCH", &format!("{url}/{name}"), Some(&taints)).await;
        if code >= 300 {
            return Err(format!(
                "untainting {url}/{name}: {code} {}",
                body["message"]
            ));
        }
    }
    if let Some(uid) = body["metadata"]["uid"].as_str() {
        let key = |v: &Value| v.as_str().unwrap_or_default().to_string();
        uids.0.insert(
            (
                key(&o["kind"]),
                key(&o["metadata"]["namespace"]),
                name.clone(),
            ),
            uid.to_string(),
        );
    }
    if let Some(status) =
        status.filter(|s| s.is_object() && matches!(o["kind"].as_str(), Some("Node" | "Pod")))
    {
        let path = format!("{url}/{name}/status");
        let (code, body) = send(client, "PATCH", &path, Some(&json!({ "status": status }))).await;
        if code >= 300 {
            return Err(format!("writing {path}: {code} {}", body["message"]));
        }
    }
    Ok(())
}

/// The README's ClusterRole, as a user copies it.
fn readme_role() -> Result<Value, String> {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .map_err(|e| e.to_string())?;
    let block = readme
        .split("```yaml")
        .skip(1)
        .filter_map(|b| b.split("```").next())
        .find(|b| b.contains("name: kubectl-affinity-reader"))
        .ok_or("README.md has no yaml block with the ClusterRole kubectl-affinity-reader")?;
    kubectl_affinity::state::parse_documents(block, "README.md")
        .map_err(|e| format!("README.md's ClusterRole: {e}"))?
        .into_iter()
        .find(|d| d["kind"] == "ClusterRole")
        .ok_or_else(|| "README.md's block has no ClusterRole".to_string())
}

/// The README's role bound to [`PLUGIN`]; get and list of pods and nodes for [`READER`].
fn rbac(role: &Value) -> Vec<Value> {
    let binding = |name: &str, role: &str, subject: &str| {
        json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
            "metadata": {"name": name},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": role},
            "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": subject}]})
    };
    vec![
        role.clone(),
        binding("kubectl-affinity-reader", "kubectl-affinity-reader", PLUGIN),
        json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
            "metadata": {"name": "pods-nodes-reader"},
            "rules": [{"apiGroups": [""], "resources": ["pods", "nodes"], "verbs": ["get", "list"]}]}),
        binding("pods-nodes-reader", "pods-nodes-reader", READER),
    ]
}

/// The audit log's entries (one JSON object a line), at their final stage.
pub fn audit_entries(env: &Envtest) -> Vec<Value> {
    std::fs::read_to_string(&env.audit_log)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["stage"] == "ResponseComplete")
        .collect()
}
