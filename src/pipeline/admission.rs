//! A manifest's pod as the API server would store it, in two steps: [`Admission::create`]
//! makes the pod the manifest asks for (the namespace, a DaemonSet controller's
//! tolerations, the API server's defaulting; or the API server's own dry run), before the
//! cluster is read; [`Admission::admit`] runs the API server's built-in admission plugins on
//! it once the objects they read are read.

use std::path::PathBuf;

use k8s_openapi::api::core::v1::{self as core, PersistentVolumeClaim};

use crate::cluster::Live;
use crate::error::Error;
use crate::report::{DaemonTolerations, Manifest};
use crate::scheduler::release::Release;
use crate::state::{
    ClusterState, ManifestPod, Pod, add_daemon_tolerations, merge_match_label_keys,
};

/// `--validate`: what to do with a pod the API server would reject.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Validate {
    /// Stop at the first field (or admission plugin) that rejects it.
    Strict,
    /// Evaluate it anyway, with a note per field.
    Warn,
    /// Evaluate it without those notes.
    Ignore,
}

/// A manifest's pod as created, before the admission plugins.
#[derive(Debug)]
pub struct Created {
    pub pod: Pod,
    pub manifest: Manifest,
    /// The API object, which the admission plugins change.
    pub api_pod: core::Pod,
    /// A StatefulSet's claims for the pod, in its namespace.
    pub claims: Vec<PersistentVolumeClaim>,
}

/// How `whatif` makes and admits its pods.
#[derive(Debug)]
pub struct Admission<'a> {
    /// The release emulated: what its API server admits, how its scheduler counts the pod.
    pub release: Release,
    pub validate: Validate,
    /// The manifest's file, else the source's name, for messages.
    pub file: PathBuf,
    /// The source's name, for messages.
    pub source: String,
    /// The namespace of a manifest without one.
    pub namespace: String,
    /// `--server-dry-run`: the API server makes and admits the pods.
    pub dry_run: Option<&'a Live>,
    /// `--enable-admission-plugins`, `--disable-admission-plugins`.
    pub plugins: crate::state::admission::Plugins,
}

impl Admission<'_> {
    /// The pod `m` would create, as the API server (namespace, defaults, matchLabelKeys)
    /// and a DaemonSet's controller (daemon tolerations) would make it, and what was done to
    /// it. With a dry run, the API server makes it: the pod is the one its dry-run create
    /// returns.
    pub fn create(&self, m: ManifestPod) -> Result<Created, Error> {
        let mut api_pod = m.pod;
        if api_pod.metadata.namespace.is_none() {
            api_pod.metadata.namespace = Some(self.namespace.clone());
        }
        let mut claims = m.claims;
        for c in &mut claims {
            c.metadata.namespace.clone_from(&api_pod.metadata.namespace);
        }
        // The controller's tolerations are the pod's before the API server sees it.
        let daemon = (m.kind == "DaemonSet").then(|| DaemonTolerations {
            added: add_daemon_tolerations(&mut api_pod),
            host_network: api_pod.spec.as_ref().and_then(|s| s.host_network) == Some(true),
        });
        let merged = match self.dry_run {
            Some(live) => {
                // The owner this apply creates has no uid yet, which the API server refuses
                // ("must not be empty"): the pod goes to the dry run without that owner and
                // gets it back after.
                let owners = (api_pod.metadata.owner_references)
                    .take_if(|o| o.iter().any(|r| r.uid.is_empty()));
                api_pod = live.dry_run_pod(&api_pod)?;
                if owners.is_some() {
                    api_pod.metadata.owner_references = owners;
                }
                0
            }
            None => merge_match_label_keys(&mut api_pod),
        };
        let (pod, defaulted) = Pod::from_manifest(api_pod.clone());
        let manifest = Manifest {
            origin: m.origin,
            findings: m.findings,
            evaluated_anyway: self.validate == Validate::Warn,
            defaulted,
            merged,
            daemon,
            admitted: Vec::new(),
            rejected: None,
            server_dry_run: self.dry_run.is_some(),
        };
        Ok(Created {
            pod,
            manifest,
            api_pod,
            claims,
        })
    }

    /// The pod as the built-in admission plugins admit it, reading their objects from
    /// `state`: defaulted and built again from what the plugins admitted, with what they
    /// changed in its manifest. A dry run's pod was admitted by the API server already.
    pub fn admit(&self, created: Created, state: &ClusterState) -> Result<(Pod, Manifest), Error> {
        let Created {
            pod,
            mut manifest,
            mut api_pod,
            ..
        } = created;
        let rules = self.release.resource_rules();
        if self.dry_run.is_some() {
            return Ok((pod.under(rules), manifest));
        }
        let refused = |r: &crate::state::admission::Refused| Error::Manifest {
            path: self.file.display().to_string(),
            message: format!(
                "{} (the API server's {} admission plugin would refuse it; what it reads is read from {})",
                r.words(&pod.id.name),
                r.plugin,
                self.source
            ),
        };
        let holds_pods = state
            .all_pods()
            .any(|p| *p.id.namespace == *pod.id.namespace);
        // Every cluster has PriorityClasses (the API server makes the two system ones): none
        // at all means they were not read, and the class the pod names is unknown, not absent.
        let named = api_pod
            .spec
            .as_ref()
            .and_then(|s| s.priority_class_name.clone())
            .filter(|n| !n.is_empty() && !n.starts_with("system-"));
        if let (Some(name), true) = (named, state.priority_classes().is_empty()) {
            return Err(Error::Manifest {
                path: self.file.display().to_string(),
                message: format!(
                    "priorityClassName {name:?}: no PriorityClass is in {} (the kind was not \
                     read), so the pod's priority cannot be resolved; add priorityclasses to it \
                     (`kubectl affinity snapshot` saves them), or leave priorityClassName out",
                    self.source
                ),
            });
        }
        let admitted = crate::state::admission::admit(
            &mut api_pod,
            state.admission_objects(),
            state.priority_classes(),
            holds_pods,
            &self.plugins,
        )
        .map_err(|r| refused(&r))?;
        // A validating plugin's refusal stops a strict run; `--validate=warn` evaluates the
        // admitted pod anyway, as it does for the API server's validation.
        if let Some(r) = &admitted.rejected
            && self.validate == Validate::Strict
        {
            return Err(refused(r));
        }
        // The API server validates the pod admission left (`ValidatePodCreate`, 422): a
        // LimitRange's default limit below a request the manifest makes is refused there.
        let none = core::PodSpec::default();
        let spec = api_pod.spec.as_ref().unwrap_or(&none);
        let mut invalid = crate::state::validate::admitted_resources(spec);
        // What this release's API server admits (a pod 1.35 refuses, 1.36 admits).
        invalid.extend(crate::state::validate::restart_all_containers(
            spec,
            self.release.facts().node_declared_features,
        ));
        if let Some(first) = invalid.first() {
            match self.validate {
                Validate::Strict => {
                    return Err(Error::Manifest {
                        path: self.file.display().to_string(),
                        message: format!(
                            "Pod \"{}\" is invalid: {}: {} (the API server's validation of the \
                             pod as admission left it; what admission reads is read from {}): fix \
                             the manifest, or pass --validate=warn to evaluate it anyway",
                            pod.id.name, first.field, first.message, self.source
                        ),
                    });
                }
                Validate::Warn => manifest.findings.extend(invalid),
                Validate::Ignore => {}
            }
        }
        let (mut admitted_pod, defaulted) = Pod::from_manifest(api_pod);
        admitted.priority.apply(&mut admitted_pod);
        manifest.defaulted = defaulted;
        manifest.admitted = admitted.changes;
        manifest.rejected = admitted
            .rejected
            .map(|r| (r.plugin, r.words(&admitted_pod.id.name)));
        Ok((admitted_pod.under(rules), manifest))
    }
}
