//! `whatif --server-dry-run`: the one request that is not a GET, and only with that flag. The
//! pod is created with `dryRun=All`: the API server defaults it and runs every admission
//! plugin and webhook on it, stores nothing, and returns the pod it would have stored, which
//! is then the pod evaluated.

use k8s_openapi::api::core::v1 as core;
use kube::api::{Api, PostParams};

use kube::core::Status;

use super::client::Live;
use super::error::ClusterError;
use super::requests::{Failure, NOT_A_STATUS, Request, one_line};
use crate::state::resources::is_dns1123_subdomain;

impl Live {
    /// The pod as the API server would create it (`POST .../pods?dryRun=All`). A name that is
    /// no valid object name (a workload template's pod has none of its own) is sent as
    /// `generateName`; the pod returned keeps the name the report knows it by.
    pub fn dry_run_pod(&self, pod: &core::Pod) -> Result<core::Pod, ClusterError> {
        let ns = pod.metadata.namespace.clone().unwrap_or_default();
        let api: Api<core::Pod> = Api::namespaced(self.server.client.clone(), &ns);
        let req = Request::new("create", "pods", true).namespace(&ns);
        let params = PostParams {
            dry_run: true,
            field_manager: None,
        };
        let mut sent = pod.clone();
        let name = sent.metadata.name.clone();
        if !name.as_deref().is_some_and(is_dns1123_subdomain) {
            sent.metadata.name = None;
            sent.metadata.generate_name = Some("kubectl-affinity-whatif-".to_string());
        }
        // A refusal is the answer, not a passing fault: only an API server that is not
        // serving (503, 504) is asked again.
        let mut got =
            self.rt
                .block_on(
                    self.server
                        .call_retrying(&req, &[503, 504], || api.create(&params, &sent)),
                )
                .map_err(|f| match f {
                    Failure::Status(s) => refusal(&req, &s)
                        .unwrap_or_else(|| self.server.fail(&req, Failure::Status(s))),
                    f => self.server.fail(&req, f),
                })?;
        got.metadata.name = name;
        Ok(got)
    }
}

/// A dry-run create's error Status as the server means it, from its code, reason, details
/// and causes; `None` for what every request shares (401, RBAC's 403, an answer that is no
/// Status).
fn refusal(req: &Request, s: &Status) -> Option<ClusterError> {
    if s.reason == NOT_A_STATUS {
        return None;
    }
    let request = req.to_string();
    let details = s.details.as_ref();
    match s.code {
        403 if !is_rbac_denial(&s.message) => Some(ClusterError::AdmissionRefused {
            request,
            plugin: admission_plugin(&s.message),
            code: s.code,
            reason: s.reason.clone(),
            message: one_line(&s.message),
        }),
        422 => {
            let causes: Vec<String> = details
                .map(|d| {
                    d.causes
                        .iter()
                        .map(|c| one_line(&format!("{}: {}", c.field, c.message)))
                        .collect()
                })
                .unwrap_or_default();
            Some(ClusterError::Invalid {
                request,
                causes: if causes.is_empty() {
                    one_line(&s.message)
                } else {
                    causes.join("; ")
                },
            })
        }
        404 => Some(ClusterError::Missing {
            request,
            missing: match details {
                // `namespaces "nope"`: the kind as the server names its resource.
                Some(d) if !d.kind.is_empty() => {
                    format!("{} \"{}\"", d.kind.trim_end_matches('s'), d.name)
                }
                _ => one_line(&s.message),
            },
        }),
        500 => Some(ClusterError::AdmissionFailed {
            request,
            code: s.code,
            reason: s.reason.clone(),
            message: one_line(&s.message),
        }),
        _ => None,
    }
}

/// RBAC's refusal: `pods "x" is forbidden: User "u" cannot create resource "pods" ...`.
fn is_rbac_denial(message: &str) -> bool {
    message.contains("cannot create resource \"pods\"")
}

/// The admission plugin (or webhook) a refusal's message comes from, by the words each one
/// uses upstream.
fn admission_plugin(message: &str) -> String {
    const PLUGINS: &[(&str, &str)] = &[
        ("per Container is", "LimitRanger admission plugin"),
        ("per Pod is", "LimitRanger admission plugin"),
        ("limit to request ratio", "LimitRanger admission plugin"),
        ("RuntimeClass", "RuntimeClass admission plugin"),
        ("PriorityClass", "Priority admission plugin"),
        ("priority admission controller", "Priority admission plugin"),
        (
            "pod node label selector",
            "PodNodeSelector admission plugin",
        ),
        (
            "pod tolerations",
            "PodTolerationRestriction admission plugin",
        ),
        ("service account", "ServiceAccount admission plugin"),
        ("exceeded quota", "ResourceQuota admission plugin"),
        ("violates PodSecurity", "PodSecurity admission plugin"),
    ];
    if let Some(rest) = message.split("admission webhook \"").nth(1)
        && let Some(name) = rest.split('"').next()
    {
        return format!("admission webhook {name}");
    }
    PLUGINS
        .iter()
        .find(|(words, _)| message.contains(words))
        .map_or_else(|| "admission".to_string(), |(_, plugin)| plugin.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_name_the_admission_plugin_by_its_words() {
        for (message, plugin) in [
            (
                "pods \"x\" is forbidden: maximum cpu usage per Container is 2, but limit is 4",
                "LimitRanger admission plugin",
            ),
            (
                "pods \"x\" is forbidden: pod rejected: RuntimeClass \"nope\" not found",
                "RuntimeClass admission plugin",
            ),
            (
                "pods \"x\" is forbidden: no PriorityClass with name nope was found",
                "Priority admission plugin",
            ),
            (
                "admission webhook \"policy.example.com\" denied the request: no",
                "admission webhook policy.example.com",
            ),
            ("something else", "admission"),
        ] {
            assert_eq!(admission_plugin(message), plugin, "{message}");
        }
        assert!(is_rbac_denial(
            "pods \"x\" is forbidden: User \"nobody\" cannot create resource \"pods\" in API group \"\" in the namespace \"default\""
        ));
        assert!(!is_rbac_denial(
            "pods \"x\" is forbidden: maximum cpu usage per Container is 2"
        ));
    }
}
