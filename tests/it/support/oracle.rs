//! The oracle corpus: loading its cases and checking an explanation document (as JSON)
//! against a case's expectations.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

/// One oracle case (see tests/oracle/FORMAT.md).
#[derive(Debug, Clone)]
pub struct Case {
    pub path: PathBuf,
    pub doc: Value,
}

pub fn oracle_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oracle/cases")
}

/// The project's own translations of further rows of the same upstream test functions
/// (same format; see tests/oracle/extra/README.md). Kept apart so that `oracle_dir` stays an
/// exact copy of the shared corpus.
pub fn extra_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oracle/extra")
}

/// Every case file of a plugin folder of the corpus, sorted.
pub fn load_cases(folder: &str) -> Vec<Case> {
    load_cases_in(&oracle_dir(), folder)
}

/// Every case file of a plugin folder of the extra cases, sorted; none when there is no such
/// folder.
pub fn load_extra_cases(folder: &str) -> Vec<Case> {
    if !extra_dir().join(folder).is_dir() {
        return Vec::new();
    }
    load_cases_in(&extra_dir(), folder)
}

fn load_cases_in(root: &Path, folder: &str) -> Vec<Case> {
    let dir = root.join(folder);
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).expect("read case");
            let docs = kubectl_affinity::state::parse_documents(&text, &path.display().to_string())
                .unwrap_or_else(|e| panic!("{e}"));
            Case {
                path,
                doc: docs.into_iter().next().expect("one document"),
            }
        })
        .collect()
}

impl Case {
    pub fn name(&self) -> String {
        let p = &self.path;
        format!(
            "{}/{}",
            p.parent()
                .and_then(|d| d.file_name())
                .unwrap_or_default()
                .to_string_lossy(),
            p.file_name().unwrap_or_default().to_string_lossy()
        )
    }

    pub fn expect(&self) -> &serde_json::Map<String, Value> {
        self.doc["expect"].as_object().expect("expect is a map")
    }

    pub fn plugins(&self) -> Vec<String> {
        self.expect().keys().cloned().collect()
    }

    fn list(&self, key: &str) -> Vec<Value> {
        self.doc[key].as_array().cloned().unwrap_or_default()
    }

    /// Nodes that a score case leaves out of scoring: per FORMAT.md they were rejected by
    /// another filter upstream, reproduced by cordoning them.
    pub fn nodes_to_cordon(&self) -> Vec<String> {
        let all: Vec<String> = self
            .list("nodes")
            .iter()
            .filter_map(|n| n["metadata"]["name"].as_str().map(String::from))
            .collect();
        let mut cordon = Vec::new();
        for (_, e) in self.expect() {
            if let Some(score) = e.get("score").and_then(|s| s.as_object()) {
                for n in &all {
                    if !score.contains_key(n) && !cordon.contains(n) {
                        cordon.push(n.clone());
                    }
                }
            }
        }
        cordon
    }

    /// The cluster as a v1 List: nodes (cordoned where needed), existing pods, namespaces.
    pub fn snapshot(&self) -> Value {
        let cordon = self.nodes_to_cordon();
        let mut items = Vec::new();
        for mut n in self.list("nodes") {
            let name = n["metadata"]["name"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            if cordon.contains(&name) {
                n["spec"]["unschedulable"] = json!(true);
            }
            items.push(n);
        }
        items.extend(self.list("existingPods"));
        items.extend(self.list("namespaces"));
        items.extend(self.list("otherObjects"));
        json!({"apiVersion": "v1", "kind": "List", "items": items})
    }

    /// Plugins whose expectations are only about scoring: upstream's score tests call
    /// PreScore/Score/NormalizeScore directly on the listed candidates, never Filter, so such
    /// a plugin is enabled at those extension points only (its own Filter could otherwise
    /// reject a node the upstream test scored).
    pub fn score_only_plugins(&self) -> Vec<String> {
        self.expect()
            .iter()
            .filter(|(_, e)| {
                ["filter", "prefilterSkip", "unschedulableAndUnresolvable"]
                    .iter()
                    .all(|k| e.get(*k).is_none())
            })
            .map(|(p, _)| p.clone())
            .collect()
    }

    /// A KubeSchedulerConfiguration enabling only the case's plugins (plus NodeUnschedulable
    /// when nodes are cordoned), with the case's plugin args.
    pub fn scheduler_config(&self) -> Value {
        let mut enabled: Vec<Value> = self.plugins().iter().map(|p| json!({"name": p})).collect();
        let score_only: Vec<Value> = self
            .score_only_plugins()
            .iter()
            .map(|p| json!({"name": p}))
            .collect();
        // Upstream's score tests call Score on every listed node without running Filter (a
        // node may score while being too small for the pod): such a plugin is kept out of
        // PreFilter and Filter.
        if !self.nodes_to_cordon().is_empty()
            && !self.plugins().iter().any(|p| p == "NodeUnschedulable")
        {
            enabled.insert(0, json!({"name": "NodeUnschedulable"}));
        }
        let mut plugin_config = Vec::new();
        if let Some(cfg) = self.doc.get("schedulerConfig").and_then(|c| c.as_object()) {
            for (name, args) in cfg {
                if name != "featureGates" {
                    plugin_config.push(json!({"name": name, "args": args}));
                }
            }
        }
        json!({
            "apiVersion": "kubescheduler.config.k8s.io/v1",
            "kind": "KubeSchedulerConfiguration",
            "profiles": [{
                "schedulerName": self.doc["pod"]["spec"]["schedulerName"].as_str().unwrap_or("default-scheduler"),
                "plugins": {
                    "multiPoint": {"enabled": enabled, "disabled": [{"name": "*"}]},
                    "preFilter": {"disabled": score_only.clone()},
                    "filter": {"disabled": score_only},
                },
                "pluginConfig": plugin_config,
            }]
        })
    }

    /// `Name=bool,...` for `--feature-gates`, or `None`.
    pub fn feature_gates(&self) -> Option<String> {
        let g = self
            .doc
            .get("schedulerConfig")?
            .get("featureGates")?
            .as_object()?;
        Some(
            g.iter()
                .map(|(k, v)| format!("{k}={}", v.as_bool().unwrap_or(false)))
                .collect::<Vec<_>>()
                .join(","),
        )
    }
}

fn node<'a>(doc: &'a Value, name: &str) -> Option<&'a Value> {
    doc["nodes"].as_array()?.iter().find(|n| n["name"] == name)
}

fn entry<'a>(node: &'a Value, list: &str, plugin: &str) -> Option<&'a Value> {
    node[list]
        .as_array()?
        .iter()
        .find(|e| e["plugin"] == plugin)
}

/// Compares an explanation document with every expectation of the case; returns the
/// differences (empty when the case passes).
pub fn check(case: &Case, doc: &Value) -> Vec<String> {
    let mut fails = Vec::new();
    for (plugin, e) in case.expect() {
        if let Some(skip) = e.get("prefilterSkip").and_then(|v| v.as_bool()) {
            let got = doc["preFilter"]
                .as_array()
                .and_then(|l| l.iter().find(|p| p["plugin"] == *plugin))
                .map(|p| p["result"] == "Skip")
                .unwrap_or(false);
            if got != skip {
                fails.push(format!(
                    "{plugin}: prefilterSkip expected {skip}, got {got}"
                ));
            }
        }
        if let Some(skip) = e.get("prescoreSkip").and_then(|v| v.as_bool()) {
            let got = doc["preScore"]
                .as_array()
                .and_then(|l| l.iter().find(|p| p["plugin"] == *plugin))
                .map(|p| p["result"] == "Skip")
                .unwrap_or(false);
            if got != skip {
                fails.push(format!("{plugin}: prescoreSkip expected {skip}, got {got}"));
            }
        }
        let unresolvable: Vec<String> = e
            .get("unschedulableAndUnresolvable")
            .and_then(|v| v.as_array())
            .map(|l| {
                l.iter()
                    .filter_map(|x| x.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default();
        if let Some(filter) = e.get("filter").and_then(|f| f.as_object()) {
            for (name, want) in filter {
                let Some(n) = node(doc, name) else {
                    fails.push(format!("{plugin}: node {name} missing from the output"));
                    continue;
                };
                let Some(f) = entry(n, "filters", plugin) else {
                    fails.push(format!(
                        "{plugin}: node {name} has no {plugin} filter entry"
                    ));
                    continue;
                };
                match want {
                    Value::Bool(true) => {
                        if f["pass"] != true {
                            fails.push(format!(
                                "{plugin}: node {name}: expected pass, got {}",
                                f["reason"]
                            ));
                        }
                    }
                    Value::String(reason) => {
                        if f["pass"] != false || f["reason"] != *reason {
                            fails.push(format!(
                                "{plugin}: node {name}: expected {reason:?}, got pass={} reason={}",
                                f["pass"], f["reason"]
                            ));
                        }
                        let want_code = if unresolvable.contains(name) {
                            "UnschedulableAndUnresolvable"
                        } else {
                            "Unschedulable"
                        };
                        if f["code"] != want_code {
                            fails.push(format!(
                                "{plugin}: node {name}: expected code {want_code}, got {}",
                                f["code"]
                            ));
                        }
                    }
                    other => fails.push(format!(
                        "{plugin}: node {name}: unsupported expectation {other}"
                    )),
                }
            }
        }
        for (key, field) in [("score", "normalized"), ("rawScore", "raw")] {
            let Some(scores) = e.get(key).and_then(|s| s.as_object()) else {
                continue;
            };
            let mut got_all = BTreeMap::new();
            for (name, want) in scores {
                let got = node(doc, name)
                    .and_then(|n| entry(n, "scores", plugin))
                    .map(|s| s[field].clone())
                    .unwrap_or(Value::Null);
                got_all.insert(name.clone(), got.clone());
                if got.as_i64() != want.as_i64() {
                    fails.push(format!(
                        "{plugin}: node {name}: {key} expected {want}, got {got}"
                    ));
                }
            }
        }
    }
    fails
}

/// Writes the case's inputs to `dir` and returns the `whatif` arguments that evaluate it.
/// `--validate=warn`: upstream's scheduler tests build pods the API server would refuse (an
/// empty topologyKey, a required node affinity without terms...), which `whatif` refuses by
/// default; the corpus checks how the scheduler reads them.
pub fn write_inputs(case: &Case, dir: &Path) -> Vec<String> {
    let pod = dir.join("pod.json");
    let snapshot = dir.join("snapshot.json");
    let config = dir.join("scheduler.json");
    std::fs::write(&pod, serde_json::to_vec(&case.doc["pod"]).expect("json")).expect("write");
    std::fs::write(
        &snapshot,
        serde_json::to_vec(&case.snapshot()).expect("json"),
    )
    .expect("write");
    std::fs::write(
        &config,
        serde_json::to_vec(&case.scheduler_config()).expect("json"),
    )
    .expect("write");
    let mut args = vec![
        "whatif".to_string(),
        "-f".to_string(),
        pod.display().to_string(),
        "--snapshot".to_string(),
        snapshot.display().to_string(),
        "--scheduler-config".to_string(),
        config.display().to_string(),
        "-o".to_string(),
        "json".to_string(),
        "--validate=warn".to_string(),
    ];
    if let Some(g) = case.feature_gates() {
        args.push("--feature-gates".to_string());
        args.push(g);
    }
    args
}
