//! The first steps of every run: where the cluster comes from (a snapshot file, or the
//! cluster the kubeconfig flags name), how the scheduler is configured, and the state read
//! from the source with what the pods and profiles need.

use std::path::{Path, PathBuf};

use crate::cluster::{KubeArgs, Live, Omission, Refused, context_namespace};
use crate::error::Error;
use crate::report::{Note, Refusal};
use crate::scheduler::config::FeatureGates;
use crate::scheduler::config::ProfileError;
use crate::scheduler::profile::Profile;
use crate::scheduler::release::{Closest, Release};
use crate::state::needs::Needs;
use crate::state::{ClusterState, read_objects, read_snapshot, recorded_version, require_nodes};

/// Where the cluster comes from: a file, or the cluster the kubeconfig flags name.
#[derive(Debug)]
pub enum Source {
    Snapshot(PathBuf),
    Live(Box<Live>),
}

impl Source {
    pub fn open(snapshot: Option<&Path>, kube: &KubeArgs) -> Result<Source, Error> {
        Ok(match snapshot {
            Some(path) => Source::Snapshot(path.to_path_buf()),
            None => Source::Live(Box::new(Live::connect(kube)?)),
        })
    }

    /// `snapshot FILE` or `context NAME (SERVER)`, for the report.
    pub fn name(&self) -> String {
        match self {
            Source::Snapshot(path) => format!("snapshot {}", path.display()),
            Source::Live(live) => live.source(),
        }
    }

    pub fn live(&self) -> Option<&Live> {
        match self {
            Source::Live(live) => Some(live),
            Source::Snapshot(_) => None,
        }
    }

    /// The namespace when the manifest gives none: -n, else the kubeconfig context's (also
    /// offline, when a kubeconfig is readable), else "default", as kubectl does.
    pub fn namespace(&self, flag: Option<&str>, kube: &KubeArgs) -> String {
        if let Some(ns) = flag {
            return ns.to_string();
        }
        match self {
            Source::Live(live) => live.default_namespace.clone(),
            Source::Snapshot(_) => context_namespace(kube).unwrap_or_else(|| "default".to_string()),
        }
    }

    /// The cluster state, with notes on what could not be read. Live, what is read besides
    /// nodes and pods is what `needs` says; a snapshot is read whole.
    pub fn load(&self, needs: &Needs) -> Result<(ClusterState, Vec<Note>), Error> {
        match self {
            Source::Snapshot(path) => {
                let state = read_snapshot(path)?;
                require_nodes(&state, path)?;
                Ok((state, Vec::new()))
            }
            Source::Live(live) => {
                let fetched = live.fetch_state(needs)?;
                let notes = fetched.omissions.into_iter().map(|o| match o {
                    Omission::Namespaces(r) => Note::NamespacesForbidden(r.into()),
                    Omission::Workloads(r) => Note::WorkloadsForbidden(r.into()),
                    Omission::PreemptionObjects(r) => Note::PreemptionObjectsForbidden(r.into()),
                    Omission::Storage(r) => Note::StorageForbidden(r.into()),
                    Omission::Dra(r) => Note::DraForbidden(r.into()),
                    Omission::Admission(r) => Note::AdmissionObjectsForbidden(r.into()),
                    Omission::Events(r) => Note::EventsForbidden(r.into()),
                });
                Ok((fetched.state, notes.collect()))
            }
        }
    }
}

impl From<Refused> for Refusal {
    fn from(r: Refused) -> Refusal {
        Refusal {
            user: r.user,
            context: r.context,
            verb: r.verb.to_string(),
            resource: r.resource.to_string(),
            namespace: r.namespace,
            name: r.name,
        }
    }
}

/// `--feature-gates` and `--scheduler-config`, read and checked before the cluster is: a typo
/// fails before any list, not after 150,000 pods. The profile is chosen once the pod's
/// scheduler is known.
#[derive(Debug)]
pub struct SchedulerFlags {
    gates: FeatureGates,
    /// The `KubeSchedulerConfiguration` document and the file it came from.
    config: Option<(serde_json::Value, String)>,
}

impl SchedulerFlags {
    pub fn read(feature_gates: &[String], config: Option<&Path>) -> Result<SchedulerFlags, Error> {
        let gates = FeatureGates::parse(&feature_gates.join(","))?;
        let config = match config {
            None => None,
            Some(path) => {
                let source = path.display().to_string();
                let config = read_objects(path)?
                    .into_iter()
                    .find(|o| o.kind() == "KubeSchedulerConfiguration")
                    .ok_or_else(|| Error::Manifest {
                        path: source.clone(),
                        message: "no KubeSchedulerConfiguration document found (kind: KubeSchedulerConfiguration, apiVersion: kubescheduler.config.k8s.io/v1)".to_string(),
                    })?;
                Some((config.value, source))
            }
        };
        Ok(SchedulerFlags { gates, config })
    }

    /// Emulates `version` (`--kubernetes-version`), else the live API server's release (the
    /// closest one emulated), else the release a snapshot records, else 1.35.
    pub fn emulate(&mut self, version: Option<Release>, source: &Source) -> Result<(), Error> {
        let seen = match (version, source) {
            (Some(_), _) => None,
            // A server whose `/version` cannot be read is emulated as 1.35; the lists that
            // follow report what is wrong with the connection.
            (None, Source::Live(live)) => live.server_version().ok(),
            (None, Source::Snapshot(path)) => recorded_version(path),
        };
        let release = match (version, seen.as_deref()) {
            (Some(r), _) => r,
            (None, None) => Release::default(),
            (None, Some(v)) => match Release::closest(v).map_err(ProfileError)? {
                Closest::Same(r) => r,
                Closest::Newer(r) => {
                    self.gates.newer_than_emulated = Some(v.trim().to_string());
                    r
                }
            },
        };
        self.gates = std::mem::take(&mut self.gates).for_release(release)?;
        Ok(())
    }

    /// The release emulated (1.35 until [`SchedulerFlags::emulate`] chose one).
    pub fn release(&self) -> Release {
        self.gates.release
    }

    /// The profile for the pod's scheduler: from `--scheduler-config`, else upstream's default.
    /// A pod whose scheduler no profile serves is evaluated with the default scheduler's
    /// profile, and the report says the scheduler would never take it.
    pub fn profile(&self, scheduler_name: &str) -> Result<Profile, Error> {
        let gates = self.gates.clone();
        match &self.config {
            None => Ok(Profile::default_profile(gates)),
            Some((config, source)) => {
                Ok(Profile::from_config(config, scheduler_name, gates, source)?)
            }
        }
    }
}
