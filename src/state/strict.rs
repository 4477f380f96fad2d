//! Server-side field validation, as `kubectl apply` meets it: strict by default, so a field the
//! API has no place for (`nodeSelecter`, `afinity`) is refused ("strict decoding error: unknown
//! field \"spec.nodeSelecter\"") where a lenient decode would drop it without a word, and the
//! what-if would answer for a pod the user did not write. The schema is k8s-openapi's, the
//! API's own OpenAPI, so each unknown field is named with the closest field that the object
//! does have at that place.

use k8s_openapi::api::{apps::v1 as apps, batch::v1 as batch, core::v1 as core};
use k8s_openapi::schemars::{JsonSchema, SchemaGenerator};
use serde_json::{Map, Value};

use super::validate::Finding;

/// How the scheduler sees a pod whose unknown fields were evaluated anyway (`--validate=warn`).
const IGNORED: &str = "the field is dropped, as a lenient decode (`kubectl apply --validate=false`) \
                       would drop it";

/// Every field of `object` (a manifest of `kind`) that its kind's schema has no place for,
/// as a finding the API server rejects. Kinds without a schema here are not checked.
pub(crate) fn unknown_fields(kind: &str, object: &Value) -> Vec<Finding> {
    let Some(root) = root_schema(kind) else {
        return Vec::new();
    };
    let defs = root
        .get("$defs")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let mut out = Vec::new();
    walk(&root, object, "", &defs, &mut out);
    out
}

fn root_schema(kind: &str) -> Option<Value> {
    fn of<T: JsonSchema>() -> Value {
        SchemaGenerator::default()
            .into_root_schema_for::<T>()
            .to_value()
    }
    Some(match kind {
        "Pod" => of::<core::Pod>(),
        "PodTemplate" => of::<core::PodTemplate>(),
        "ReplicationController" => of::<core::ReplicationController>(),
        "Deployment" => of::<apps::Deployment>(),
        "ReplicaSet" => of::<apps::ReplicaSet>(),
        "StatefulSet" => of::<apps::StatefulSet>(),
        "DaemonSet" => of::<apps::DaemonSet>(),
        "Job" => of::<batch::Job>(),
        "CronJob" => of::<batch::CronJob>(),
        _ => return None,
    })
}

/// The candidate most like `name` (Jaro-Winkler, case ignored), if at least `min` alike: the
/// "did you mean" of a misspelt field or gate.
pub fn closest<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
    min: f64,
) -> Option<&'a str> {
    let name = name.to_lowercase();
    candidates
        .into_iter()
        .map(|c| (strsim::jaro_winkler(&name, &c.to_lowercase()), c))
        .filter(|(similarity, _)| *similarity >= min)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c)
}

/// Follows `$ref`s into the root's definitions.
fn resolve<'a>(mut schema: &'a Value, defs: &'a Map<String, Value>) -> &'a Value {
    while let Some(name) = schema
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix("#/$defs/"))
    {
        match defs.get(name) {
            Some(def) => schema = def,
            None => break,
        }
    }
    schema
}

fn walk(
    schema: &Value,
    value: &Value,
    at: &str,
    defs: &Map<String, Value>,
    out: &mut Vec<Finding>,
) {
    let schema = resolve(schema, defs);
    match value {
        Value::Object(fields) => {
            if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
                for (name, v) in fields {
                    let here = if at.is_empty() {
                        name.clone()
                    } else {
                        format!("{at}.{name}")
                    };
                    match properties.get(name) {
                        Some(s) => walk(s, v, &here, defs, out),
                        None => out.push(unknown(name, properties, here)),
                    }
                }
            } else if let Some(values) = schema.get("additionalProperties") {
                // A map (labels, resource lists): any key, each value of one schema.
                for (key, v) in fields {
                    walk(values, v, &format!("{at}[{key}]"), defs, out);
                }
            }
            // A schema without either (RawExtension, FieldsV1) takes any object.
        }
        Value::Array(items) => {
            if let Some(item) = schema.get("items") {
                for (i, v) in items.iter().enumerate() {
                    walk(item, v, &format!("{at}[{i}]"), defs, out);
                }
            }
        }
        _ => {}
    }
}

fn unknown(name: &str, known: &Map<String, Value>, field: String) -> Finding {
    let closest = closest(name, known.keys().map(String::as_str), 0.8);
    let message = match closest {
        Some(k) => format!("unknown field {name:?}; did you mean {k:?}?"),
        None => format!("unknown field {name:?}"),
    };
    Finding {
        field,
        message,
        rejected: true,
        reading: Some(IGNORED),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn fields(kind: &str, object: Value) -> Vec<(String, String)> {
        unknown_fields(kind, &object)
            .into_iter()
            .map(|f| (f.field, f.message))
            .collect()
    }

    #[test]
    fn a_misspelt_field_is_named_with_the_closest_field_at_its_place() {
        let found = fields(
            "Pod",
            json!({
                "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "x"},
                "spec": {
                    "nodeSelecter": {"a": "b"},
                    "afinity": {},
                    "containers": [{"name": "c", "image": "i", "resources": {"request": {}}}],
                    "tolerations": [{"key": "k", "opertor": "Exists"}],
                    "zzz": 1
                }
            }),
        );
        assert_eq!(
            found,
            [
                (
                    "spec.afinity".to_string(),
                    "unknown field \"afinity\"; did you mean \"affinity\"?".to_string()
                ),
                (
                    "spec.containers[0].resources.request".to_string(),
                    "unknown field \"request\"; did you mean \"requests\"?".to_string()
                ),
                (
                    "spec.nodeSelecter".to_string(),
                    "unknown field \"nodeSelecter\"; did you mean \"nodeSelector\"?".to_string()
                ),
                (
                    "spec.tolerations[0].opertor".to_string(),
                    "unknown field \"opertor\"; did you mean \"operator\"?".to_string()
                ),
                ("spec.zzz".to_string(), "unknown field \"zzz\"".to_string()),
            ]
        );
    }

    #[test]
    fn maps_and_open_objects_take_any_key_and_a_whole_workload_is_checked() {
        let deployment = json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "d", "labels": {"any/key": "v"}, "annotations": {"x": "y"}},
            "spec": {
                "replicas": 2,
                "selector": {"matchLabels": {"app": "d"}},
                "template": {
                    "metadata": {"labels": {"app": "d"}},
                    "spec": {
                        "containers": [{"name": "c", "image": "i",
                            "resources": {"limits": {"example.com/gpu": 1}}}],
                        "nodeSelector": {"disk": "ssd"}
                    }
                }
            },
            "status": {}
        });
        assert_eq!(fields("Deployment", deployment.clone()), []);
        let mut typo = deployment;
        typo["spec"]["template"]["spec"]["tolerationz"] = json!([]);
        assert_eq!(
            fields("Deployment", typo),
            [(
                "spec.template.spec.tolerationz".to_string(),
                "unknown field \"tolerationz\"; did you mean \"tolerations\"?".to_string()
            )]
        );
    }

    #[test]
    fn every_manifest_kind_has_a_schema() {
        for &kind in super::super::manifest::WORKLOADS {
            let found = fields(kind, json!({"kind": kind, "metadata": {"nmae": "x"}}));
            assert_eq!(
                found,
                [(
                    "metadata.nmae".to_string(),
                    "unknown field \"nmae\"; did you mean \"name\"?".to_string()
                )],
                "{kind}"
            );
        }
        assert!(fields("Service", json!({"spek": {}})).is_empty());
    }
}
