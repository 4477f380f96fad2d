//! What kube-apiserver's pod validation (`pkg/apis/core/validation`, Kubernetes 1.35) says
//! about a manifest's scheduling fields, for `whatif`: a pod the API server would refuse is
//! refused here too, naming the field, unless the user asks to evaluate it anyway
//! (`--validate=warn`, which the oracle runner uses: upstream's scheduler tests feed it pods
//! the API server would never admit).
//!
//! Each [`Finding`] says whether the API server rejects the field, and, where upstream's
//! scheduler gives the invalid field a defined reading, what that reading is: a required node
//! affinity without terms matches no node; an invalid required term never matches; an invalid
//! preferred term fails the scheduling attempt; a pod-affinity term with an empty topologyKey
//! finds no topology domain. Some of these the API server accepts (`Gt`/`Lt` bounds are never
//! checked to be integers, nor the values of preferred terms to be label values): those are
//! always evaluated, exactly as upstream, with a note that says so.
//!
//! Invalid label values in pod (anti-)affinity selectors are noted by
//! [`super::Pod::from_api`] (the scheduler's PreFilter fails on them); here they only count as
//! rejected.
//!
//! It validates the pod as written (`k8s-openapi`'s PodSpec), before it becomes the model's
//! parts: why this module names the API's types.

use k8s_openapi::api::core::v1 as core;
use k8s_openapi::apimachinery::pkg::apis::meta::v1 as meta;

use super::quantity::Quantity;
use super::selector::{label_key_errors, label_value_errors, validate_label_value};

/// A finding about one field of a pod spec.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// From the object's root: `spec.template.spec.affinity...topologyKey`.
    pub field: String,
    /// As the API server words it: `Invalid value: "Is": not a valid selector operator`.
    pub message: String,
    /// The API server refuses the pod (`whatif` stops unless `--validate=warn|ignore`);
    /// `false`: it accepts it, and only the scheduler reads it specially.
    pub rejected: bool,
    /// How upstream's scheduler reads the field, where that is special.
    pub reading: Option<&'static str>,
}

impl Finding {
    fn rejected(field: String, message: String) -> Finding {
        Finding {
            field,
            message,
            rejected: true,
            reading: None,
        }
    }
}

const TERM_NEVER_MATCHES: &str = "this required node-affinity term never matches any node";
const NO_TERMS: &str = "a required node affinity without terms matches no node";
const PREFERRED_FAILS: &str = "an invalid preferred node-affinity term fails the scheduling \
                               attempt (NodeAffinity PreScore error) whenever two or more nodes \
                               are feasible";
const POD_AFFINITY_FAILS: &str = "an invalid pod (anti-)affinity selector fails InterPodAffinity's \
                                  PreFilter: no node can take the pod";
const NO_DOMAIN: &str = "no node has a label with an empty key, so the term has no topology \
                         domain on any node";
const SPREAD_FAILS: &str = "PodTopologySpread cannot parse the constraint: its PreFilter fails";
const TOLERATES_NOTHING: &str = "this toleration tolerates no taint";
const ANY_KEY: &str = "an empty key matches every taint key";
const SECONDS_IGNORED: &str = "tolerationSeconds plays no part in scheduling";
const VALUE_IGNORED: &str = "`Exists` ignores the value";
const VALUE_AS_WRITTEN: &str = "the value is compared with each taint's value as written";

/// `field.NotSupported`: a value outside an enumeration, refused with the supported values in
/// upstream's order.
fn one_of(
    value: &str,
    supported: &[&str],
    field: String,
    reading: Option<&'static str>,
    out: &mut Vec<Finding>,
) {
    if !supported.contains(&value) {
        let list: Vec<String> = supported.iter().map(|s| format!("{s:?}")).collect();
        out.push(Finding {
            field,
            message: format!(
                "Unsupported value: {value:?}: supported values: {}",
                list.join(", ")
            ),
            rejected: true,
            reading,
        });
    }
}

/// `ValidateTolerations` (pkg/apis/core/validation). `Lt`/`Gt` stay with the scheduler's
/// TaintTolerationComparisonOperators gate, which decides how they are read.
fn tolerations(ts: &[core::Toleration], at: &str, out: &mut Vec<Finding>) {
    for (i, t) in ts.iter().enumerate() {
        let at = format!("{at}.tolerations[{i}]");
        let key = t.key.as_deref().unwrap_or("");
        let op = t.operator.as_deref().unwrap_or("");
        let value = t.value.as_deref().unwrap_or("");
        let effect = t.effect.as_deref().unwrap_or("");
        if !key.is_empty() {
            label_key(key, format!("{at}.key"), TOLERATES_NOTHING, out);
        }
        if key.is_empty() && op != "Exists" {
            out.push(Finding {
                field: format!("{at}.operator"),
                message: format!(
                    "Invalid value: {op:?}: operator must be Exists when `key` is empty, which \
                     means \"match all values and all keys\""
                ),
                rejected: true,
                reading: Some(ANY_KEY),
            });
        }
        if t.toleration_seconds.is_some() && effect != "NoExecute" {
            out.push(Finding {
                field: format!("{at}.effect"),
                message: format!(
                    "Invalid value: {effect:?}: effect must be 'NoExecute' when \
                     `tolerationSeconds` is set"
                ),
                rejected: true,
                reading: Some(SECONDS_IGNORED),
            });
        }
        match op {
            // Upstream names the operator's field for an invalid value.
            "Equal" | "" => {
                let errs = label_value_errors(value);
                if !errs.is_empty() {
                    out.push(Finding {
                        field: format!("{at}.operator"),
                        message: format!("Invalid value: {value:?}: {}", errs.join(";")),
                        rejected: true,
                        reading: Some(VALUE_AS_WRITTEN),
                    });
                }
            }
            "Exists" if !value.is_empty() => out.push(Finding {
                field: format!("{at}.operator"),
                message: format!(
                    "Invalid value: {{key: {key:?}, operator: \"Exists\", value: {value:?}}}: \
                     value must be empty when `operator` is 'Exists'"
                ),
                rejected: true,
                reading: Some(VALUE_IGNORED),
            }),
            "Exists" | "Lt" | "Gt" => {}
            other => one_of(
                other,
                &["Equal", "Exists"],
                format!("{at}.operator"),
                Some(TOLERATES_NOTHING),
                out,
            ),
        }
        if !effect.is_empty() {
            one_of(
                effect,
                &["NoSchedule", "PreferNoSchedule", "NoExecute"],
                format!("{at}.effect"),
                Some(TOLERATES_NOTHING),
                out,
            );
        }
    }
}

/// The enumerations of a pod spec the scheduler reads, besides tolerations and selectors.
fn enumerations(spec: &core::PodSpec, at: &str, out: &mut Vec<Finding>) {
    if let Some(policy) = &spec.preemption_policy {
        one_of(
            policy,
            &["PreemptLowerPriority", "Never"],
            format!("{at}.preemptionPolicy"),
            None,
            out,
        );
    }
    for (list, containers) in [
        (
            "initContainers",
            spec.init_containers.as_deref().unwrap_or(&[]),
        ),
        ("containers", &spec.containers[..]),
    ] {
        for (i, c) in containers.iter().enumerate() {
            for (j, p) in c.ports.iter().flatten().enumerate() {
                if let Some(protocol) = &p.protocol {
                    one_of(
                        protocol,
                        &["SCTP", "TCP", "UDP"],
                        format!("{at}.{list}[{i}].ports[{j}].protocol"),
                        None,
                        out,
                    );
                }
            }
        }
    }
    for (i, c) in spec
        .topology_spread_constraints
        .iter()
        .flatten()
        .enumerate()
    {
        let at = format!("{at}.topologySpreadConstraints[{i}]");
        one_of(
            &c.when_unsatisfiable,
            &["DoNotSchedule", "ScheduleAnyway"],
            format!("{at}.whenUnsatisfiable"),
            None,
            out,
        );
        for (name, policy) in [
            ("nodeAffinityPolicy", &c.node_affinity_policy),
            ("nodeTaintsPolicy", &c.node_taints_policy),
        ] {
            if let Some(policy) = policy {
                one_of(
                    policy,
                    &["Honor", "Ignore"],
                    format!("{at}.{name}"),
                    None,
                    out,
                );
            }
        }
    }
}

/// `ValidateLabelName`, worded as the API server words it: one error per problem.
fn label_key(key: &str, field: String, reading: &'static str, out: &mut Vec<Finding>) {
    for e in label_key_errors(key) {
        out.push(Finding {
            field: field.clone(),
            message: format!("Invalid value: {key:?}: {e}"),
            rejected: true,
            reading: Some(reading),
        });
    }
}

fn weight(w: i32, field: String, out: &mut Vec<Finding>) {
    if !(1..=100).contains(&w) {
        out.push(Finding::rejected(
            field,
            format!("Invalid value: {w}: must be in the range 1-100"),
        ));
    }
}

/// Go's `strconv.ParseInt(s, 10, 64)` succeeds.
fn is_go_int(s: &str) -> bool {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) && s.parse::<i64>().is_ok()
}

/// The operator/value-count rules shared by node-selector and label-selector requirements;
/// `gt_lt`: whether `Gt`/`Lt` exist (node selectors only).
fn operator_and_values(
    op: &str,
    values: &[String],
    gt_lt: bool,
    at: &str,
) -> Option<(String, String)> {
    let (field, message) = match op {
        "In" | "NotIn" if values.is_empty() => (
            "values",
            "Required value: must be specified when `operator` is 'In' or 'NotIn'".to_string(),
        ),
        "Exists" | "DoesNotExist" if !values.is_empty() => (
            "values",
            "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'"
                .to_string(),
        ),
        "Gt" | "Lt" if gt_lt && values.len() != 1 => (
            "values",
            "Required value: must be specified single value when `operator` is 'Lt' or 'Gt'"
                .to_string(),
        ),
        "In" | "NotIn" | "Exists" | "DoesNotExist" => return None,
        "Gt" | "Lt" if gt_lt => return None,
        other => (
            "operator",
            format!("Invalid value: {other:?}: not a valid selector operator"),
        ),
    };
    Some((format!("{at}.{field}"), message))
}

/// One node-selector term (`required` or `preferred`), at `at`.
fn node_selector_term(term: &core::NodeSelectorTerm, at: &str, required: bool) -> Vec<Finding> {
    let mut out = Vec::new();
    let reading = if required {
        TERM_NEVER_MATCHES
    } else {
        PREFERRED_FAILS
    };
    for (j, e) in term.match_expressions.iter().flatten().enumerate() {
        let at = format!("{at}.matchExpressions[{j}]");
        let values = e.values.as_deref().unwrap_or_default();
        if let Some((field, message)) = operator_and_values(&e.operator, values, true, &at) {
            out.push(Finding {
                field,
                message,
                rejected: true,
                reading: Some(reading),
            });
        } else if matches!(e.operator.as_str(), "Gt" | "Lt")
            && !is_go_int(&values[0])
            && validate_label_value(&values[0]).is_ok()
        {
            out.push(Finding {
                field: format!("{at}.values[0]"),
                message: format!(
                    "Invalid value: {:?}: for 'Gt', 'Lt' operators, the value must be an integer",
                    values[0]
                ),
                rejected: false,
                reading: Some(reading),
            });
        }
        label_key(&e.key, format!("{at}.key"), reading, &mut out);
        // The scheduler's parser (`labels.NewRequirement`) checks every value as a label
        // value; the API server checks those of required terms only.
        for (i, v) in values.iter().enumerate() {
            for msg in label_value_errors(v) {
                out.push(Finding {
                    field: format!("{at}.values[{i}]"),
                    message: format!("Invalid value: {v:?}: {msg}"),
                    rejected: required,
                    reading: Some(reading),
                });
            }
        }
    }
    for (j, e) in term.match_fields.iter().flatten().enumerate() {
        let at = format!("{at}.matchFields[{j}]");
        let values = e.values.as_deref().unwrap_or_default();
        let problem = match e.operator.as_str() {
            "In" | "NotIn" if values.len() != 1 => Some((
                format!("{at}.values"),
                "Required value: must be only one value when `operator` is 'In' or 'NotIn' for \
                 node field selector"
                    .to_string(),
            )),
            "In" | "NotIn" => None,
            other => Some((
                format!("{at}.operator"),
                format!("Invalid value: {other:?}: not a valid selector operator"),
            )),
        };
        if let Some((field, message)) = problem {
            out.push(Finding {
                field,
                message,
                rejected: true,
                reading: Some(reading),
            });
        }
        if e.key != "metadata.name" {
            out.push(Finding {
                field: format!("{at}.key"),
                message: format!("Invalid value: {:?}: not a valid field selector key", e.key),
                rejected: true,
                // Upstream's field selector reads any other key as an empty field.
                reading: Some("the scheduler reads any node field but metadata.name as empty"),
            });
        }
    }
    out
}

/// `ValidateLabelSelector`: operators, value counts, label keys and values.
fn label_selector(sel: &meta::LabelSelector, at: &str, reading: &'static str) -> Vec<Finding> {
    let mut out = Vec::new();
    let value = |v: &str, field: String, out: &mut Vec<Finding>| {
        for msg in label_value_errors(v) {
            out.push(Finding {
                field: field.clone(),
                message: format!("Invalid value: {v:?}: {msg}"),
                rejected: true,
                reading: Some(reading),
            });
        }
    };
    for (k, v) in sel.match_labels.iter().flatten() {
        label_key(k, format!("{at}.matchLabels"), reading, &mut out);
        value(v, format!("{at}.matchLabels"), &mut out);
    }
    for (j, e) in sel.match_expressions.iter().flatten().enumerate() {
        let at = format!("{at}.matchExpressions[{j}]");
        let values = e.values.as_deref().unwrap_or_default();
        if let Some((field, message)) = operator_and_values(&e.operator, values, false, &at) {
            out.push(Finding {
                field,
                message,
                rejected: true,
                reading: Some(reading),
            });
        }
        label_key(&e.key, format!("{at}.key"), reading, &mut out);
        for (i, v) in values.iter().enumerate() {
            value(v, format!("{at}.values[{i}]"), &mut out);
        }
    }
    out
}

fn pod_affinity_term(t: &core::PodAffinityTerm, at: &str, out: &mut Vec<Finding>) {
    if let Some(sel) = &t.label_selector {
        out.extend(label_selector(
            sel,
            &format!("{at}.labelSelector"),
            POD_AFFINITY_FAILS,
        ));
    }
    if let Some(sel) = &t.namespace_selector {
        out.extend(label_selector(
            sel,
            &format!("{at}.namespaceSelector"),
            POD_AFFINITY_FAILS,
        ));
    }
    topology_key(&t.topology_key, format!("{at}.topologyKey"), out);
}

fn topology_key(key: &str, field: String, out: &mut Vec<Finding>) {
    if key.is_empty() {
        out.push(Finding {
            field,
            message: "Required value: can not be empty".to_string(),
            rejected: true,
            reading: Some(NO_DOMAIN),
        });
    } else {
        label_key(key, field, NO_DOMAIN, out);
    }
}

/// What the API server's validation says of the containers' resources once admission has
/// set them (`ValidateResourceRequirements`: a request above its limit, or a resource that
/// cannot be overcommitted whose request is not its limit), init containers first, as it
/// validates them: a LimitRange's default limit can fall below a request the manifest
/// makes. Every finding is a rejection.
pub fn admitted_resources(spec: &core::PodSpec) -> Vec<Finding> {
    let mut findings = Vec::new();
    let lists = [
        (
            "initContainers",
            spec.init_containers.as_deref().unwrap_or_default(),
        ),
        ("containers", spec.containers.as_slice()),
    ];
    for (list, containers) in lists {
        for (i, c) in containers.iter().enumerate() {
            let Some(r) = &c.resources else { continue };
            let at = format!("spec.{list}[{i}].resources");
            let limits = r.limits.as_ref();
            for (name, request) in r.requests.iter().flatten() {
                let limit = limits.and_then(|l| l.get(name));
                let overcommit = overcommit_allowed(name);
                let Some(limit) = limit else {
                    if !overcommit {
                        findings.push(Finding::rejected(
                            format!("{at}.limits"),
                            "Required value: Limit must be set for non overcommitable resources"
                                .to_string(),
                        ));
                    }
                    continue;
                };
                let (Ok(req), Ok(lim)) = (Quantity::parse(&request.0), Quantity::parse(&limit.0))
                else {
                    continue;
                };
                let words = if !overcommit && req.nanos() != lim.nanos() {
                    "must be equal to"
                } else if req.nanos() > lim.nanos() {
                    "must be less than or equal to"
                } else {
                    continue;
                };
                findings.push(Finding::rejected(
                    format!("{at}.requests"),
                    format!(
                        "Invalid value: \"{}\": {words} {name} limit of {}",
                        request.0, limit.0
                    ),
                ));
            }
        }
    }
    findings
}

/// What the API server of a release before 1.36 says of a `restartPolicyRules` action
/// `RestartAllContainers` (`validateContainerRestartPolicy` in
/// `pkg/apis/core/validation/validation.go`): without the RestartAllContainersOnContainerExits
/// gate (Alpha, off in 1.35) only `Restart` is supported. Init containers first, as it
/// validates them. Every finding is a rejection; `admitted` (1.36 on) finds nothing.
pub fn restart_all_containers(spec: &core::PodSpec, admitted: bool) -> Vec<Finding> {
    if admitted {
        return Vec::new();
    }
    let lists = [
        (
            "initContainers",
            spec.init_containers.as_deref().unwrap_or_default(),
        ),
        ("containers", spec.containers.as_slice()),
    ];
    let mut findings = Vec::new();
    for (list, containers) in lists {
        for (i, c) in containers.iter().enumerate() {
            for (j, rule) in c.restart_policy_rules.iter().flatten().enumerate() {
                if rule.action == crate::state::pod::RESTART_ALL_CONTAINERS {
                    findings.push(Finding::rejected(
                        format!("spec.{list}[{i}].restartPolicyRules[{j}].action"),
                        format!(
                            "Unsupported value: \"{}\": supported values: \"Restart\"",
                            rule.action
                        ),
                    ));
                }
            }
        }
    }
    findings
}

/// Whether a resource may be requested below its limit (`helper.IsOvercommitAllowed`): a
/// native resource (no domain, or a `kubernetes.io/` one) other than hugepages.
fn overcommit_allowed(name: &str) -> bool {
    let native = !name.contains('/') || name.contains("kubernetes.io/");
    native && !name.starts_with("hugepages-")
}

/// Every finding about the scheduling fields of `spec`; `at` is the path of the pod spec in
/// its object (`spec`, `spec.template.spec`...).
pub fn pod_spec(spec: &core::PodSpec, at: &str) -> Vec<Finding> {
    let mut out = Vec::new();
    if let Some(aff) = &spec.affinity {
        let at = format!("{at}.affinity");
        if let Some(na) = &aff.node_affinity {
            let at = format!("{at}.nodeAffinity");
            if let Some(req) = &na.required_during_scheduling_ignored_during_execution {
                let at = format!("{at}.requiredDuringSchedulingIgnoredDuringExecution");
                if req.node_selector_terms.is_empty() {
                    out.push(Finding {
                        field: format!("{at}.nodeSelectorTerms"),
                        message: "Required value: must have at least one node selector term"
                            .to_string(),
                        rejected: true,
                        reading: Some(NO_TERMS),
                    });
                }
                for (i, t) in req.node_selector_terms.iter().enumerate() {
                    out.extend(node_selector_term(
                        t,
                        &format!("{at}.nodeSelectorTerms[{i}]"),
                        true,
                    ));
                }
            }
            let at = format!("{at}.preferredDuringSchedulingIgnoredDuringExecution");
            for (i, p) in na
                .preferred_during_scheduling_ignored_during_execution
                .iter()
                .flatten()
                .enumerate()
            {
                weight(p.weight, format!("{at}[{i}].weight"), &mut out);
                out.extend(node_selector_term(
                    &p.preference,
                    &format!("{at}[{i}].preference"),
                    false,
                ));
            }
        }
        for (name, pa) in [
            (
                "podAffinity",
                aff.pod_affinity.as_ref().map(|p| {
                    (
                        &p.required_during_scheduling_ignored_during_execution,
                        &p.preferred_during_scheduling_ignored_during_execution,
                    )
                }),
            ),
            (
                "podAntiAffinity",
                aff.pod_anti_affinity.as_ref().map(|p| {
                    (
                        &p.required_during_scheduling_ignored_during_execution,
                        &p.preferred_during_scheduling_ignored_during_execution,
                    )
                }),
            ),
        ] {
            let Some((required, preferred)) = pa else {
                continue;
            };
            let at = format!("{at}.{name}");
            for (i, t) in required.iter().flatten().enumerate() {
                pod_affinity_term(
                    t,
                    &format!("{at}.requiredDuringSchedulingIgnoredDuringExecution[{i}]"),
                    &mut out,
                );
            }
            for (i, w) in preferred.iter().flatten().enumerate() {
                let at = format!("{at}.preferredDuringSchedulingIgnoredDuringExecution[{i}]");
                weight(w.weight, format!("{at}.weight"), &mut out);
                pod_affinity_term(
                    &w.pod_affinity_term,
                    &format!("{at}.podAffinityTerm"),
                    &mut out,
                );
            }
        }
    }
    tolerations(spec.tolerations.as_deref().unwrap_or(&[]), at, &mut out);
    enumerations(spec, at, &mut out);
    for (i, c) in spec
        .topology_spread_constraints
        .iter()
        .flatten()
        .enumerate()
    {
        let at = format!("{at}.topologySpreadConstraints[{i}]");
        topology_key(&c.topology_key, format!("{at}.topologyKey"), &mut out);
        if let Some(sel) = &c.label_selector {
            out.extend(label_selector(
                sel,
                &format!("{at}.labelSelector"),
                SPREAD_FAILS,
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn findings(spec: serde_json::Value) -> Vec<Finding> {
        let spec: core::PodSpec = serde_json::from_value(spec).expect("spec");
        pod_spec(&spec, "spec")
    }

    fn node_expr(expr: serde_json::Value) -> serde_json::Value {
        json!({"containers": [], "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution":
            {"nodeSelectorTerms": [{"matchExpressions": [expr]}]}}}})
    }

    const EXPR: &str = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0]";

    #[test]
    fn enumerations_are_refused_with_the_supported_values_in_upstream_order() {
        let found: Vec<(String, String, Option<&str>)> = findings(json!({
            "containers": [{"name": "c", "ports": [{"containerPort": 80, "protocol": "tcp"}]}],
            "preemptionPolicy": "Sometimes",
            "tolerations": [
                {"key": "k", "operator": "Exist"},
                {"key": "k", "operator": "Exists", "effect": "NoScheduling"},
                {"operator": "Equal", "value": "v"},
                {"key": "k", "operator": "Exists", "value": "v"},
                {"key": "k", "value": "not valid!"},
                {"key": "k", "operator": "Exists", "effect": "NoSchedule", "tolerationSeconds": 5},
                {"operator": "Exists"},
                {"key": "k", "operator": "Gt", "value": "3"}
            ],
            "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "zone",
                "whenUnsatisfiable": "DoNotScheduled", "nodeTaintsPolicy": "honor"}]
        }))
        .into_iter()
        .map(|f| {
            assert!(f.rejected, "{f:?}");
            (f.field, f.message, f.reading)
        })
        .collect();
        let t = |i: usize, f: &str| format!("spec.tolerations[{i}].{f}");
        assert_eq!(
            found,
            [
                (
                    t(0, "operator"),
                    r#"Unsupported value: "Exist": supported values: "Equal", "Exists""#.into(),
                    Some(TOLERATES_NOTHING)
                ),
                (
                    t(1, "effect"),
                    r#"Unsupported value: "NoScheduling": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute""#.into(),
                    Some(TOLERATES_NOTHING)
                ),
                (
                    t(2, "operator"),
                    r#"Invalid value: "Equal": operator must be Exists when `key` is empty, which means "match all values and all keys""#.into(),
                    Some(ANY_KEY)
                ),
                (
                    t(3, "operator"),
                    r#"Invalid value: {key: "k", operator: "Exists", value: "v"}: value must be empty when `operator` is 'Exists'"#.into(),
                    Some(VALUE_IGNORED)
                ),
                (
                    t(4, "operator"),
                    format!(r#"Invalid value: "not valid!": {}"#, label_value_errors("not valid!").join(";")),
                    Some(VALUE_AS_WRITTEN)
                ),
                (
                    t(5, "effect"),
                    r#"Invalid value: "NoSchedule": effect must be 'NoExecute' when `tolerationSeconds` is set"#.into(),
                    Some(SECONDS_IGNORED)
                ),
                (
                    "spec.preemptionPolicy".into(),
                    r#"Unsupported value: "Sometimes": supported values: "PreemptLowerPriority", "Never""#.into(),
                    None
                ),
                (
                    "spec.containers[0].ports[0].protocol".into(),
                    r#"Unsupported value: "tcp": supported values: "SCTP", "TCP", "UDP""#.into(),
                    None
                ),
                (
                    "spec.topologySpreadConstraints[0].whenUnsatisfiable".into(),
                    r#"Unsupported value: "DoNotScheduled": supported values: "DoNotSchedule", "ScheduleAnyway""#.into(),
                    None
                ),
                (
                    "spec.topologySpreadConstraints[0].nodeTaintsPolicy".into(),
                    r#"Unsupported value: "honor": supported values: "Honor", "Ignore""#.into(),
                    None
                ),
            ]
        );
    }

    #[test]
    fn what_the_api_server_rejects_is_rejected_with_its_path() {
        let cases = [
            (
                json!({"key": "k", "operator": "Is", "values": ["a"]}),
                "operator",
                "Invalid value: \"Is\": not a valid selector operator",
            ),
            (
                json!({"key": "k", "operator": "In"}),
                "values",
                "Required value: must be specified when `operator` is 'In' or 'NotIn'",
            ),
            (
                json!({"key": "k", "operator": "Exists", "values": ["a"]}),
                "values",
                "Forbidden: may not be specified",
            ),
            (
                json!({"key": "k", "operator": "Gt", "values": ["1", "2"]}),
                "values",
                "must be specified single value when `operator` is 'Lt' or 'Gt'",
            ),
            (
                json!({"key": "bad key", "operator": "Exists"}),
                "key",
                "Invalid value: \"bad key\"",
            ),
        ];
        for (expr, field, message) in cases {
            let f = findings(node_expr(expr));
            assert_eq!(f.len(), 1, "{f:?}");
            assert!(f[0].rejected);
            assert_eq!(f[0].reading, Some(TERM_NEVER_MATCHES));
            assert_eq!(f[0].field, format!("{EXPR}.{field}"));
            assert!(f[0].message.contains(message), "{}", f[0].message);
        }
    }

    #[test]
    fn what_the_scheduler_reads_specially_is_noted() {
        let f = findings(node_expr(
            json!({"key": "k", "operator": "Gt", "values": ["abc"]}),
        ));
        assert!(
            matches!(
                &f[..],
                [Finding {
                    rejected: false,
                    reading: Some(TERM_NEVER_MATCHES),
                    ..
                }]
            ),
            "{f:?}"
        );
        let f = findings(json!({"containers": [], "affinity": {"nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": []}}}}));
        assert!(matches!(&f[..], [Finding { rejected: true, .. }]), "{f:?}");
        assert_eq!(f[0].reading, Some(NO_TERMS));
    }

    #[test]
    fn pod_affinity_weights_and_topology_keys() {
        let f = findings(json!({"containers": [], "affinity": {"podAntiAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [{"labelSelector": {}, "topologyKey": ""}],
            "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 0, "podAffinityTerm":
                {"labelSelector": {"matchExpressions": [{"key": "a", "operator": "Gt", "values": ["1"]}]},
                 "topologyKey": "zone"}}]}}}));
        let fields: Vec<&str> = f.iter().map(|f| f.field.as_str()).collect();
        assert_eq!(
            fields,
            [
                "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey",
                "spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight",
                "spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.labelSelector.matchExpressions[0].operator",
            ]
        );
    }

    #[test]
    fn admitted_resources_are_refused_as_the_api_server_words_it() {
        let spec: core::PodSpec = serde_json::from_value(serde_json::json!({
            "initContainers": [{"name": "i", "resources": {"requests": {"nvidia.com/gpu": "1"}}}],
            "containers": [
                {"name": "a", "resources": {"requests": {"memory": "1Gi"}, "limits": {"memory": "512Mi"}}},
                {"name": "b", "resources": {"requests": {"cpu": "500m"}, "limits": {"cpu": "1"}}},
                {"name": "c", "resources": {"requests": {"hugepages-2Mi": "2Mi"}, "limits": {"hugepages-2Mi": "4Mi"}}},
            ],
        }))
        .expect("spec");
        let found: Vec<(String, String)> = admitted_resources(&spec)
            .into_iter()
            .inspect(|f| assert!(f.rejected))
            .map(|f| (f.field, f.message))
            .collect();
        assert_eq!(
            found,
            [
                (
                    "spec.initContainers[0].resources.limits".to_string(),
                    "Required value: Limit must be set for non overcommitable resources"
                        .to_string()
                ),
                (
                    "spec.containers[0].resources.requests".to_string(),
                    "Invalid value: \"1Gi\": must be less than or equal to memory limit of 512Mi"
                        .to_string()
                ),
                (
                    "spec.containers[2].resources.requests".to_string(),
                    "Invalid value: \"2Mi\": must be equal to hugepages-2Mi limit of 4Mi"
                        .to_string()
                ),
            ]
        );
    }
}
