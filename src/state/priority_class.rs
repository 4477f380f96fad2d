//! PriorityClasses (scheduling.k8s.io/v1) and what the API server's Priority admission plugin
//! does with them when a pod is created (`plugin/pkg/admission/priority/admission.go`): the
//! pod's `spec.priority` and `spec.preemptionPolicy` come from the class it names, or from
//! the global default class when it names none.

use std::sync::Arc;

use serde::Deserialize;

use super::pod::Pod;
use super::workloads::ObjectName;

/// A PriorityClass: name, value, whether it is the global default, and its preemption policy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PriorityClass {
    pub name: String,
    pub value: i32,
    pub global_default: bool,
    /// `preemptionPolicy: Never` (the API defaults it to PreemptLowerPriority).
    pub preempt_never: bool,
}

/// A PriorityClass as written, the fields read.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PriorityClassObject {
    #[serde(default)]
    pub metadata: ObjectName,
    #[serde(default)]
    pub value: i32,
    #[serde(default)]
    pub global_default: Option<bool>,
    #[serde(default)]
    pub preemption_policy: Option<String>,
}

impl From<PriorityClassObject> for PriorityClass {
    fn from(o: PriorityClassObject) -> PriorityClass {
        PriorityClass {
            name: o.metadata.name.unwrap_or_default(),
            value: o.value,
            global_default: o.global_default.unwrap_or(false),
            preempt_never: o.preemption_policy.as_deref() == Some("Never"),
        }
    }
}

/// The classes every API server creates (`pkg/apis/scheduling` `SystemPriorityClasses`): a
/// snapshot that does not list them still has them.
const SYSTEM_CLASSES: [(&str, i32); 2] = [
    ("system-node-critical", 2_000_001_000),
    ("system-cluster-critical", 2_000_000_000),
];

/// What admission resolved for a pod: its priority and preemption policy, and the class.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Admitted {
    pub class: Option<String>,
    pub priority: i32,
    pub preempt_never: bool,
}

impl Admitted {
    /// Sets `pod`'s priority and preemption policy to what admission resolved.
    pub fn apply(&self, pod: &mut Pod) {
        let template = Arc::make_mut(&mut pod.template);
        template.priority = self.priority;
        template.preempt_never = self.preempt_never;
    }
}

/// Priority admission on create. `class` is the pod's `priorityClassName`, `priority` and
/// `preemption_policy` what its spec already says (the API server refuses values that differ
/// from the class's). `Err` is upstream's refusal, verbatim.
pub fn admit(
    classes: &[PriorityClass],
    class: Option<&str>,
    priority: Option<i32>,
    preemption_policy: Option<&str>,
) -> Result<Admitted, String> {
    let resolved = match class.filter(|c| !c.is_empty()) {
        Some(name) => {
            let found = classes
                .iter()
                .find(|c| c.name == name)
                .cloned()
                .or_else(|| {
                    SYSTEM_CLASSES
                        .iter()
                        .find(|(n, _)| *n == name)
                        .map(|&(n, value)| PriorityClass {
                            name: n.to_string(),
                            value,
                            global_default: false,
                            preempt_never: false,
                        })
                });
            match found {
                Some(c) => Some(c),
                None => return Err(format!("no PriorityClass with name {name} was found")),
            }
        }
        // Several global defaults (a race): the lowest value wins.
        None => classes
            .iter()
            .filter(|c| c.global_default)
            .min_by_key(|c| c.value)
            .cloned(),
    };
    // Without any default class: priority 0, PreemptLowerPriority.
    let (value, never) = resolved
        .as_ref()
        .map_or((0, false), |c| (c.value, c.preempt_never));
    if let Some(p) = priority.filter(|&p| p != value) {
        return Err(format!(
            "the integer value of priority ({p}) must not be provided in pod spec; priority admission controller computed {value} from the given PriorityClass name"
        ));
    }
    let computed = if never {
        "Never"
    } else {
        "PreemptLowerPriority"
    };
    if let Some(p) = preemption_policy.filter(|&p| p != computed) {
        return Err(format!(
            "the string value of PreemptionPolicy ({p}) must not be provided in pod spec; priority admission controller computed {computed} from the given PriorityClass name"
        ));
    }
    Ok(Admitted {
        class: resolved.map(|c| c.name),
        priority: value,
        preempt_never: never,
    })
}

#[cfg(test)]
mod tests {
    use super::{Admitted, PriorityClass, admit};

    fn class(name: &str, value: i32, global_default: bool, preempt_never: bool) -> PriorityClass {
        PriorityClass {
            name: name.to_string(),
            value,
            global_default,
            preempt_never,
        }
    }

    #[test]
    fn admission_resolves_the_named_or_default_class() {
        let classes = [
            class("high", 1000, false, true),
            class("low-default", -5, true, false),
            class("lower-default", -10, true, false),
        ];
        let admitted = |c, p, pp| admit(&classes, c, p, pp);
        assert_eq!(
            admitted(Some("high"), None, None),
            Ok(Admitted {
                class: Some("high".to_string()),
                priority: 1000,
                preempt_never: true
            })
        );
        // No class named: the global default with the lowest value.
        assert_eq!(admitted(None, None, None).map(|a| a.priority), Ok(-10));
        assert_eq!(
            admit(&[], None, None, None),
            Ok(Admitted {
                class: None,
                priority: 0,
                preempt_never: false
            })
        );
        assert_eq!(
            admit(&[], Some("system-node-critical"), None, None).map(|a| a.priority),
            Ok(2_000_001_000)
        );
        assert_eq!(
            admitted(Some("gold"), None, None),
            Err("no PriorityClass with name gold was found".to_string())
        );
        assert!(
            admitted(Some("high"), Some(7), None)
                .is_err_and(|e| e.contains("priority (7) must not be provided"))
        );
        assert!(
            admitted(Some("high"), Some(1000), Some("PreemptLowerPriority"))
                .is_err_and(|e| e.contains("computed Never"))
        );
    }
}
