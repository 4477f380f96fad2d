//! Edits to try before doing them: cordon, uncordon, label, taint, remove a pod, add a node
//! like another. A pure function over the model's nodes and pods that rebuilds the state, so
//! every index, usage sum and topology domain is derived again exactly as from a source; it
//! runs after loading and before evaluation, and nothing is ever written to a cluster.
//!
//! The flags take kubectl's syntax (`kubectl label`, `kubectl taint`, both as with
//! `--overwrite`), and refuse what kubectl refuses in its words.

use std::fmt;

use super::selector::{validate_label_key, validate_label_value};
use super::{ClusterState, Node, Pod, PodRef, Taint};

/// The taint the node lifecycle controller keeps on a node with `spec.unschedulable`
/// (`TaintNodeUnschedulable`, staging/src/k8s.io/api/core/v1/well_known_taints.go; added and
/// removed by pkg/controller/nodelifecycle with TaintNodesByCondition): cordoning a node
/// brings it, uncordoning takes it away.
const UNSCHEDULABLE_TAINT: &str = "node.kubernetes.io/unschedulable";

/// One edit, on a node or a pod of the state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Edit {
    /// A copy of node `like` named `name`: its labels (the hostname label renamed),
    /// taints, allocatable and images, and no pods.
    AddNode {
        name: String,
        like: String,
    },
    Cordon(String),
    Uncordon(String),
    /// `value: None` removes the label (`key-`).
    Label {
        node: String,
        key: String,
        value: Option<String>,
    },
    /// `remove`: `key:Effect-` (or `key-`, every effect, with `effect` empty).
    Taint {
        node: String,
        taint: Taint,
        remove: bool,
    },
    RemovePod(PodRef),
}

impl fmt::Display for Edit {
    /// As the flag that asked for it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Edit::AddNode { name, like } => write!(f, "--add-node {name} --like {like}"),
            Edit::Cordon(n) => write!(f, "--cordon {n}"),
            Edit::Uncordon(n) => write!(f, "--uncordon {n}"),
            Edit::Label { node, key, value } => match value {
                Some(v) => write!(f, "--label {node} {key}={v}"),
                None => write!(f, "--label {node} {key}-"),
            },
            Edit::Taint {
                node,
                taint,
                remove,
            } => {
                write!(f, "--taint {node} {}", taint.key)?;
                if !taint.value.is_empty() {
                    write!(f, "={}", taint.value)?;
                }
                if !taint.effect.is_empty() {
                    write!(f, ":{}", taint.effect)?;
                }
                if *remove {
                    f.write_str("-")?;
                }
                Ok(())
            }
            Edit::RemovePod(p) => write!(f, "--remove-pod {p}"),
        }
    }
}

/// An edit that cannot be made, in the words of the flag and what to do.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{flag}: {message}")]
pub struct EditError {
    pub flag: String,
    pub message: String,
}

fn error(flag: impl fmt::Display, message: impl Into<String>) -> EditError {
    EditError {
        flag: flag.to_string(),
        message: message.into(),
    }
}

/// `key=value` or `key-`, as `kubectl label` takes them.
pub fn parse_label(node: &str, spec: &str) -> Result<Edit, EditError> {
    let flag = format!("--label {node} {spec}");
    let (key, value) = match spec.strip_suffix('-') {
        Some(key) if !spec.contains('=') => (key, None),
        _ => match spec.split_once('=') {
            Some((k, v)) => (k, Some(v)),
            None => {
                return Err(error(
                    flag,
                    "at least one label update is required: give key=value, or key- to remove it",
                ));
            }
        },
    };
    validate_label_key(key).map_err(|e| error(&flag, format!("invalid label key {key:?}: {e}")))?;
    if let Some(v) = value {
        validate_label_value(v)
            .map_err(|e| error(&flag, format!("invalid label value {v:?}: {e}")))?;
    }
    Ok(Edit::Label {
        node: node.to_string(),
        key: key.to_string(),
        value: value.map(str::to_string),
    })
}

/// `key=value:Effect`, `key:Effect`, `key:Effect-` or `key-`, as `kubectl taint` takes them
/// (`parseTaints` in staging/src/k8s.io/kubectl/pkg/cmd/taint/utils.go).
pub fn parse_taint(node: &str, spec: &str) -> Result<Edit, EditError> {
    let flag = format!("--taint {node} {spec}");
    let invalid = || error(&flag, format!("invalid taint spec: {spec}"));
    let (body, remove) = match spec.strip_suffix('-') {
        Some(b) => (b, true),
        None => (spec, false),
    };
    let (key_value, effect) = match body.split_once(':') {
        Some((kv, e)) => (kv, e),
        None if remove => (body, ""),
        None => return Err(invalid()),
    };
    let (key, value) = match key_value.split_once('=') {
        Some((k, v)) => (k, v),
        None => (key_value, ""),
    };
    if key.is_empty() || (remove && !value.is_empty()) {
        return Err(invalid());
    }
    let every_effect = effect.is_empty() && remove;
    let known = matches!(effect, "NoSchedule" | "PreferNoSchedule" | "NoExecute");
    if !known && !every_effect {
        return Err(error(
            &flag,
            format!("invalid taint effect: {effect}, unsupported taint effect"),
        ));
    }
    validate_label_key(key).map_err(|e| error(&flag, format!("invalid taint key {key:?}: {e}")))?;
    if !value.is_empty() {
        validate_label_value(value)
            .map_err(|e| error(&flag, format!("invalid taint value {value:?}: {e}")))?;
    }
    Ok(Edit::Taint {
        node: node.to_string(),
        taint: Taint {
            key: key.to_string(),
            value: value.to_string(),
            effect: effect.to_string(),
        },
        remove,
    })
}

/// `NAMESPACE/NAME`.
pub fn parse_pod(spec: &str) -> Result<Edit, EditError> {
    match spec.split_once('/') {
        Some((ns, name)) if !ns.is_empty() && !name.is_empty() && !name.contains('/') => {
            Ok(Edit::RemovePod(PodRef {
                namespace: ns.into(),
                name: name.into(),
            }))
        }
        _ => Err(error(
            format!("--remove-pod {spec}"),
            "give the pod as NAMESPACE/NAME",
        )),
    }
}

/// The state with `edits` made, in order; an edit naming a node or pod that is not there is
/// an error naming the flag.
pub fn apply(state: ClusterState, edits: &[Edit]) -> Result<ClusterState, EditError> {
    if edits.is_empty() {
        return Ok(state);
    }
    let mut nodes: Vec<Node> = state.nodes().to_vec();
    let mut pods: Vec<Pod> = state.all_pods().cloned().collect();
    for edit in edits {
        let node_index = |nodes: &[Node], name: &str| {
            nodes.iter().position(|n| n.name == name).ok_or_else(|| {
                error(
                    edit,
                    format!("node {name:?} not found in the cluster state"),
                )
            })
        };
        match edit {
            Edit::AddNode { name, like } => {
                if nodes.iter().any(|n| n.name == *name) {
                    return Err(error(edit, format!("node {name:?} exists already")));
                }
                let mut node = nodes[node_index(&nodes, like)?].clone();
                node.labels = node
                    .labels
                    .iter()
                    .map(|(k, v)| {
                        // The kubelet labels its node with its own name.
                        if k == "kubernetes.io/hostname" && v == like {
                            (k, name.as_str())
                        } else {
                            (k, v)
                        }
                    })
                    .collect();
                node.name.clone_from(name);
                nodes.push(node);
            }
            Edit::Cordon(n) | Edit::Uncordon(n) => {
                let i = node_index(&nodes, n)?;
                let node = &mut nodes[i];
                let cordon = matches!(edit, Edit::Cordon(_));
                node.unschedulable = cordon;
                node.taints
                    .retain(|t| !(t.key == UNSCHEDULABLE_TAINT && t.effect == "NoSchedule"));
                if cordon {
                    node.taints.push(Taint {
                        key: UNSCHEDULABLE_TAINT.to_string(),
                        value: String::new(),
                        effect: "NoSchedule".to_string(),
                    });
                }
            }
            Edit::Label { node, key, value } => {
                let i = node_index(&nodes, node)?;
                let node = &mut nodes[i];
                let others = node.labels.iter().filter(|(k, _)| k != key);
                node.labels = match value {
                    Some(v) => others.chain([(key.as_str(), v.as_str())]).collect(),
                    None => others.collect(),
                };
            }
            Edit::Taint {
                node,
                taint,
                remove,
            } => {
                let i = node_index(&nodes, node)?;
                let n = &mut nodes[i];
                let same = |t: &Taint| {
                    t.key == taint.key && (taint.effect.is_empty() || t.effect == taint.effect)
                };
                let before = n.taints.len();
                n.taints.retain(|t| !same(t));
                if *remove && n.taints.len() == before {
                    return Err(error(
                        edit,
                        format!("taint {:?} not found on node {node:?}", taint.key),
                    ));
                }
                if !remove {
                    n.taints.push(taint.clone());
                }
            }
            Edit::RemovePod(id) => {
                let before = pods.len();
                pods.retain(|p| *p.id != *id);
                if pods.len() == before {
                    return Err(error(
                        edit,
                        format!("pod {id} not found in the cluster state"),
                    ));
                }
            }
        }
    }
    Ok(state.with_nodes_and_pods(nodes, pods))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::read_snapshot_str;

    fn state() -> ClusterState {
        read_snapshot_str(
            r#"{"apiVersion":"v1","kind":"List","items":[
              {"apiVersion":"v1","kind":"Node","metadata":{"name":"a","labels":{"kubernetes.io/hostname":"a","zone":"z1"}},
               "spec":{"taints":[{"key":"gpu","value":"true","effect":"NoSchedule"}]},
               "status":{"allocatable":{"cpu":"4","pods":"10"}}},
              {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"default"},
               "spec":{"nodeName":"a","containers":[{"name":"c","image":"x","resources":{"requests":{"cpu":"1"}}}]}}
            ]}"#,
            "test",
        )
        .expect("state")
    }

    #[test]
    fn kubectls_syntax_and_errors() {
        assert_eq!(
            parse_taint("a", "k=v:NoSchedule").expect("taint"),
            Edit::Taint {
                node: "a".into(),
                taint: Taint {
                    key: "k".into(),
                    value: "v".into(),
                    effect: "NoSchedule".into()
                },
                remove: false
            }
        );
        assert!(matches!(
            parse_taint("a", "k:NoExecute-"),
            Ok(Edit::Taint { remove: true, .. })
        ));
        assert!(matches!(
            parse_taint("a", "k-"),
            Ok(Edit::Taint { remove: true, .. })
        ));
        assert_eq!(
            parse_taint("a", "k=v:Sometimes")
                .expect_err("effect")
                .to_string(),
            "--taint a k=v:Sometimes: invalid taint effect: Sometimes, unsupported taint effect"
        );
        assert_eq!(
            parse_taint("a", "k=v").expect_err("no effect").message,
            "invalid taint spec: k=v"
        );
        assert!(matches!(
            parse_label("a", "zone-"),
            Ok(Edit::Label { value: None, .. })
        ));
        assert!(parse_label("a", "zone").is_err());
        assert!(parse_label("a", "bad key=x").is_err());
        assert!(parse_pod("default/p").is_ok());
        assert!(parse_pod("p").is_err());
    }

    #[test]
    fn edits_rebuild_the_state() {
        let edits = [
            Edit::AddNode {
                name: "b".into(),
                like: "a".into(),
            },
            parse_label("b", "zone=z2").expect("label"),
            parse_taint("a", "gpu:NoSchedule-").expect("taint"),
            Edit::Cordon("b".into()),
            parse_pod("default/p").expect("pod"),
        ];
        let s = apply(state(), &edits).expect("apply");
        let b = &s.nodes()[s.node_index("b").expect("b")];
        assert_eq!(b.labels.get("kubernetes.io/hostname"), Some("b"));
        assert_eq!(b.labels.get("zone"), Some("z2"));
        assert!(b.unschedulable);
        assert_eq!(
            b.taints.len(),
            2,
            "the copy keeps a's taint, and the cordon's"
        );
        assert!(s.nodes()[0].taints.is_empty());
        assert!(s.pods().is_empty() && s.other_pods().is_empty());
        assert!(s.pods_on(0).is_empty() && s.pods_on(1).is_empty());
        let s = apply(s, &[Edit::Uncordon("b".into())]).expect("uncordon");
        let b = &s.nodes()[1];
        assert!(!b.unschedulable && b.taints.len() == 1);
    }

    #[test]
    fn an_edit_naming_nothing_there_is_an_error() {
        let e = apply(state(), &[Edit::Cordon("zz".into())]).expect_err("no node");
        assert_eq!(
            e.to_string(),
            "--cordon zz: node \"zz\" not found in the cluster state"
        );
        let e = apply(state(), &[parse_pod("default/q").expect("pod")]).expect_err("no pod");
        assert_eq!(
            e.to_string(),
            "--remove-pod default/q: pod default/q not found in the cluster state"
        );
        let e = apply(state(), &[parse_taint("a", "nope-").expect("t")]).expect_err("no taint");
        assert!(e.message.contains("taint \"nope\" not found"), "{e}");
    }
}
