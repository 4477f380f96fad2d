//! The store of [`FakeApi::start`](super::FakeApi::start): the objects of a snapshot file as
//! values, for tests. Lists take label and field selectors and come as server-side Tables when
//! kubectl asks; their continue tokens are `fake-continue-OFFSET`.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Mutex;

use http_body_util::Full;
use hyper::Response;
use hyper::body::Bytes;
use serde_json::{Value, json};

use super::{RESOURCES, api_version, invalid_continue, page, respond, status};

#[derive(Debug, Default)]
pub(super) struct Objects {
    /// By plural resource name.
    pub(super) objects: BTreeMap<String, Vec<Value>>,
    /// Objects that change once they have been got by name: (plural, namespace, name, the
    /// object after).
    pub(super) changes: Vec<(String, String, String, Value)>,
}

/// The objects of a snapshot file: YAML documents, `v1 List`s among them.
pub(super) fn read(snapshot: &Path) -> Objects {
    let text = std::fs::read_to_string(snapshot).expect("read snapshot");
    // Not through the tool's own reader: the test kit does not depend on the library it
    // tests.
    let docs: Vec<Value> = serde_saphyr::from_multiple(&text).expect("parse snapshot");
    let mut objects: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for (plural, _, _) in RESOURCES {
        objects.insert(plural.to_string(), Vec::new());
    }
    let mut stack: Vec<Value> = docs.into_iter().filter(|d| !d.is_null()).collect();
    while let Some(doc) = stack.pop() {
        if let Some(items) = doc.get("items").and_then(|i| i.as_array()) {
            stack.extend(items.iter().cloned());
            continue;
        }
        let kind = doc["kind"].as_str().unwrap_or_default();
        if let Some((plural, _, _)) = RESOURCES.iter().find(|(_, k, _)| *k == kind) {
            objects.get_mut(*plural).unwrap().push(doc);
        }
    }
    Objects {
        objects,
        changes: Vec::new(),
    }
}

fn field(obj: &Value, path: &str) -> String {
    let mut cur = obj;
    for part in path.split('.') {
        cur = &cur[part];
    }
    match cur {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// Field selectors as the API server takes them: `path=value`, `path==value`, `path!=value`,
/// comma-separated and ANDed.
fn field_selector_matches(obj: &Value, selector: &str) -> bool {
    selector.split(',').filter(|p| !p.is_empty()).all(|req| {
        if let Some((k, v)) = req.split_once("!=") {
            field(obj, k.trim()) != v.trim()
        } else if let Some((k, v)) = req.split_once("==").or_else(|| req.split_once('=')) {
            field(obj, k.trim()) == v.trim()
        } else {
            false
        }
    })
}

/// Label selectors: `k=v`, `k==v`, `k!=v`, `k`, `!k`, `k in (a,b)`, `k notin (a,b)`.
fn label_selector_matches(obj: &Value, selector: &str) -> bool {
    let labels = obj["metadata"]["labels"].as_object();
    let get = |k: &str| labels.and_then(|l| l.get(k)).and_then(|v| v.as_str());
    // Split on commas outside parentheses.
    let mut reqs = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in selector.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                reqs.push(&selector[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    reqs.push(&selector[start..]);
    reqs.into_iter()
        .map(str::trim)
        .filter(|r| !r.is_empty())
        .all(|r| {
            let set = |s: &str| -> Vec<String> {
                s.trim()
                    .trim_start_matches('(')
                    .trim_end_matches(')')
                    .split(',')
                    .map(|v| v.trim().to_string())
                    .collect()
            };
            if let Some((k, vs)) = r.split_once(" notin ") {
                !get(k.trim()).is_some_and(|v| set(vs).iter().any(|x| x == v))
            } else if let Some((k, vs)) = r.split_once(" in ") {
                get(k.trim()).is_some_and(|v| set(vs).iter().any(|x| x == v))
            } else if let Some((k, v)) = r.split_once("!=") {
                get(k.trim()) != Some(v.trim())
            } else if let Some((k, v)) = r.split_once("==").or_else(|| r.split_once('=')) {
                get(k.trim()) == Some(v.trim())
            } else if let Some(k) = r.strip_prefix('!') {
                get(k.trim()).is_none()
            } else {
                get(r).is_some()
            }
        })
}

/// An item as a list carries it: without apiVersion and kind, as the API server sends them.
fn as_item(obj: &Value) -> Value {
    let mut o = obj.clone();
    if let Some(m) = o.as_object_mut() {
        m.remove("apiVersion");
        m.remove("kind");
    }
    o
}

pub(super) fn list(
    objects: &Mutex<Objects>,
    plural: &str,
    kind: &str,
    namespace: Option<&str>,
    params: &BTreeMap<String, String>,
    table: bool,
) -> Response<Full<Bytes>> {
    let Some((offset, limit)) = page(params, "fake-continue-") else {
        return invalid_continue();
    };
    let mut items: Vec<Value> = {
        let s = objects.lock().unwrap();
        s.objects.get(plural).cloned().unwrap_or_default()
    };
    items.retain(|o| {
        namespace.is_none_or(|ns| o["metadata"]["namespace"].as_str() == Some(ns))
            && params
                .get("fieldSelector")
                .is_none_or(|f| field_selector_matches(o, f))
            && params
                .get("labelSelector")
                .is_none_or(|l| label_selector_matches(o, l))
    });
    items.sort_by_key(|o| (field(o, "metadata.namespace"), field(o, "metadata.name")));
    let total = items.len();
    let page: Vec<Value> = items.into_iter().skip(offset).take(limit).collect();
    let end = offset + page.len();
    let mut metadata = json!({"resourceVersion": "1000"});
    if end < total {
        metadata["continue"] = json!(format!("fake-continue-{end}"));
        metadata["remainingItemCount"] = json!(total - end);
    }
    if table {
        return respond(200, &table_of(plural, &page, metadata));
    }
    respond(
        200,
        &json!({"kind": format!("{kind}List"), "apiVersion": api_version(plural), "metadata": metadata,
                "items": page.iter().map(as_item).collect::<Vec<_>>()}),
    )
}

/// A meta.k8s.io/v1 Table, the form kubectl asks for to print columns.
fn table_of(plural: &str, page: &[Value], metadata: Value) -> Value {
    let col = |name: &str, format: &str| json!({"name": name, "type": "string", "format": format, "description": name, "priority": 0});
    type Cells = Box<dyn Fn(&Value) -> Vec<Value>>;
    let (columns, cells): (Vec<Value>, Cells) = match plural {
        "pods" => (
            vec![col("Name", "name"), col("Status", ""), col("Node", "")],
            Box::new(|o: &Value| {
                vec![
                    json!(field(o, "metadata.name")),
                    json!(field(o, "status.phase")),
                    json!(field(o, "spec.nodeName")),
                ]
            }),
        ),
        "nodes" => (
            vec![col("Name", "name"), col("Status", "")],
            Box::new(|o: &Value| {
                let unsched = o["spec"]["unschedulable"].as_bool().unwrap_or(false);
                vec![
                    json!(field(o, "metadata.name")),
                    json!(if unsched {
                        "Ready,SchedulingDisabled"
                    } else {
                        "Ready"
                    }),
                ]
            }),
        ),
        _ => (
            vec![col("Name", "name")],
            Box::new(|o: &Value| vec![json!(field(o, "metadata.name"))]),
        ),
    };
    let rows: Vec<Value> = page
        .iter()
        .map(|o| {
            json!({"cells": cells(o), "object": {"kind": "PartialObjectMetadata",
                   "apiVersion": "meta.k8s.io/v1", "metadata": o["metadata"]}})
        })
        .collect();
    json!({"kind": "Table", "apiVersion": "meta.k8s.io/v1", "metadata": metadata,
           "columnDefinitions": columns, "rows": rows})
}

pub(super) fn get(
    objects: &Mutex<Objects>,
    plural: &str,
    kind: &str,
    namespace: Option<&str>,
    name: &str,
) -> Response<Full<Bytes>> {
    let mut s = objects.lock().unwrap();
    let s = &mut *s;
    let found = s.objects.get_mut(plural).and_then(|l| {
        l.iter_mut().find(|o| {
            o["metadata"]["name"].as_str() == Some(name)
                && namespace.is_none_or(|ns| o["metadata"]["namespace"].as_str() == Some(ns))
        })
    });
    match found {
        Some(o) => {
            let got = o.clone();
            if let Some(i) = s.changes.iter().position(|(p, ns, n, _)| {
                p == plural && Some(ns.as_str()) == namespace && n == name
            }) {
                *o = s.changes.remove(i).3;
            }
            let mut o = got;
            o["apiVersion"] = json!(api_version(plural));
            o["kind"] = json!(kind);
            respond(200, &o)
        }
        None => status(404, "NotFound", &format!("{plural} \"{name}\" not found")),
    }
}
