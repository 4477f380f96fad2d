//! `kubectl affinity snapshot`: the cluster as one `v1 List` in YAML, as `kubectl get -o yaml`
//! writes it, in the format `--snapshot` reads.
//!
//! The list is framed here by hand, each object written by the model's YAML writer: the
//! objects arrive page by page, and serializing the whole list at once would hold every
//! typed object of the cluster in memory.

use std::fmt;
use std::io::Write;

use k8s_openapi::api::apps::v1 as apps;
use k8s_openapi::api::core::v1 as core;
use k8s_openapi::api::node::v1 as node;
use k8s_openapi::api::policy::v1 as policy;
use k8s_openapi::api::scheduling::v1 as scheduling;
use k8s_openapi::api::storage::v1 as storage;
use kube::api::Api;
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::client::Live;
use super::error::ClusterError;
use super::fetch::NON_TERMINAL_PODS;
use super::notes::{Omission, Refused};
use super::pager::{Decode, Page};
use super::requests::Request;
use crate::state::admission::ADMISSION_ANNOTATIONS;
use crate::state::{VERSION_COMMENT, to_yaml_string};

impl Live {
    /// Writes nodes, non-terminal pods, namespaces, Services, ReplicationControllers,
    /// ReplicaSets, StatefulSets, PodDisruptionBudgets, PriorityClasses,
    /// PersistentVolumeClaims, PersistentVolumes, StorageClasses, CSINodes, CSIDrivers,
    /// LimitRanges and RuntimeClasses as one `v1 List` in YAML, page by page. Returns what was
    /// left out: a list the API server refused.
    pub fn write_snapshot(&self, out: &mut dyn Write) -> Result<Vec<Omission>, ClusterError> {
        self.rt.block_on(self.write_snapshot_async(out))
    }

    async fn write_snapshot_async(
        &self,
        out: &mut dyn Write,
    ) -> Result<Vec<Omission>, ClusterError> {
        let mut omitted = Vec::new();
        // The release the snapshot is of, which `--snapshot` emulates by default.
        let req = Request::new("get", "version", false);
        let client = self.server.client.clone();
        let version = self
            .server
            .call(&req, || client.apiserver_version())
            .await
            .map_err(|f| self.server.fail(&req, f))?;
        writeln!(out, "{VERSION_COMMENT}{}", version.git_version)?;
        writeln!(out, "apiVersion: v1")?;
        writeln!(out, "items:")?;
        let nodes: Api<core::Node> = Api::all(self.server.client.clone());
        self.snapshot_resource(&nodes, Request::new("list", "nodes", false), None, out)
            .await?;
        let pods: Api<core::Pod> = Api::all(self.server.client.clone());
        self.snapshot_resource(
            &pods,
            Request::new("list", "pods", true),
            Some(NON_TERMINAL_PODS),
            out,
        )
        .await?;
        let namespaces: Api<core::Namespace> = Api::all(self.server.client.clone());
        let req = Request::new("list", "namespaces", false);
        match self
            .snapshot_resource(&namespaces, req.clone(), None, out)
            .await
        {
            Ok(()) => {}
            Err(ClusterError::Forbidden(_)) => omitted.push(Omission::Namespaces(Refused::new(
                &req,
                &self.server.target,
            ))),
            Err(e) => return Err(e),
        }
        // What PodTopologySpread's default constraints select by.
        let services: Api<core::Service> = Api::all(self.server.client.clone());
        let rcs: Api<core::ReplicationController> = Api::all(self.server.client.clone());
        let rss: Api<apps::ReplicaSet> = Api::all(self.server.client.clone());
        let sss: Api<apps::StatefulSet> = Api::all(self.server.client.clone());
        let [svc, rc, rs, ss] = [
            "services",
            "replicationcontrollers",
            "replicasets",
            "statefulsets",
        ]
        .map(|resource| Request::new("list", resource, true));
        let results = [
            self.snapshot_resource(&services, svc.clone(), None, out)
                .await
                .map_err(|e| (e, svc)),
            self.snapshot_resource(&rcs, rc.clone(), None, out)
                .await
                .map_err(|e| (e, rc)),
            self.snapshot_resource(&rss, rs.clone(), None, out)
                .await
                .map_err(|e| (e, rs)),
            self.snapshot_resource(&sss, ss.clone(), None, out)
                .await
                .map_err(|e| (e, ss)),
        ];
        for r in results {
            match r {
                Ok(()) => {}
                Err((ClusterError::Forbidden(_), req)) => {
                    omitted.push(Omission::Workloads(Refused::new(&req, &self.server.target)))
                }
                Err((e, _)) => return Err(e),
            }
        }
        // What preemption (PodDisruptionBudgets) and Priority admission (PriorityClasses) read.
        let pdbs: Api<policy::PodDisruptionBudget> = Api::all(self.server.client.clone());
        let classes: Api<scheduling::PriorityClass> = Api::all(self.server.client.clone());
        let pdb = Request::new("list", "poddisruptionbudgets", true);
        let pc = Request::new("list", "priorityclasses", false);
        let results = [
            self.snapshot_resource(&pdbs, pdb.clone(), None, out)
                .await
                .map_err(|e| (e, pdb)),
            self.snapshot_resource(&classes, pc.clone(), None, out)
                .await
                .map_err(|e| (e, pc)),
        ];
        for r in results {
            match r {
                Ok(()) => {}
                Err((ClusterError::Forbidden(_), req)) => omitted.push(
                    Omission::PreemptionObjects(Refused::new(&req, &self.server.target)),
                ),
                Err((e, _)) => return Err(e),
            }
        }
        // What the volume plugins read; one refused list leaves the others in.
        let claims: Api<core::PersistentVolumeClaim> = Api::all(self.server.client.clone());
        let volumes: Api<core::PersistentVolume> = Api::all(self.server.client.clone());
        let classes: Api<storage::StorageClass> = Api::all(self.server.client.clone());
        let csi_nodes: Api<storage::CSINode> = Api::all(self.server.client.clone());
        let csi_drivers: Api<storage::CSIDriver> = Api::all(self.server.client.clone());
        let [pvc, pv, sc, csinode, csidriver] = [
            ("persistentvolumeclaims", true),
            ("persistentvolumes", false),
            ("storageclasses", false),
            ("csinodes", false),
            ("csidrivers", false),
        ]
        .map(|(resource, namespaced)| Request::new("list", resource, namespaced));
        let results = [
            self.snapshot_resource(&claims, pvc.clone(), None, out)
                .await
                .map_err(|e| (e, pvc)),
            self.snapshot_resource(&volumes, pv.clone(), None, out)
                .await
                .map_err(|e| (e, pv)),
            self.snapshot_resource(&classes, sc.clone(), None, out)
                .await
                .map_err(|e| (e, sc)),
            self.snapshot_resource(&csi_nodes, csinode.clone(), None, out)
                .await
                .map_err(|e| (e, csinode)),
            self.snapshot_resource(&csi_drivers, csidriver.clone(), None, out)
                .await
                .map_err(|e| (e, csidriver)),
        ];
        for r in results {
            match r {
                Ok(()) => {}
                Err((ClusterError::Forbidden(_), req)) => {
                    omitted.push(Omission::Storage(Refused::new(&req, &self.server.target)))
                }
                Err((e, _)) => return Err(e),
            }
        }
        // What the admission plugins read for a what-if pod (LimitRanger, RuntimeClass).
        let limit_ranges: Api<core::LimitRange> = Api::all(self.server.client.clone());
        let runtime_classes: Api<node::RuntimeClass> = Api::all(self.server.client.clone());
        for (req, written) in [
            (
                Request::new("list", "limitranges", true),
                self.snapshot_resource(
                    &limit_ranges,
                    Request::new("list", "limitranges", true),
                    None,
                    out,
                )
                .await,
            ),
            (
                Request::new("list", "runtimeclasses", false),
                self.snapshot_resource(
                    &runtime_classes,
                    Request::new("list", "runtimeclasses", false),
                    None,
                    out,
                )
                .await,
            ),
        ] {
            match written {
                Ok(()) => {}
                Err(ClusterError::Forbidden(_)) => {
                    omitted.push(Omission::Admission(Refused::new(&req, &self.server.target)))
                }
                Err(e) => return Err(e),
            }
        }
        writeln!(out, "kind: List")?;
        writeln!(out, "metadata:")?;
        writeln!(out, "  resourceVersion: \"\"")?;
        Ok(omitted)
    }

    /// Writes every object of one list as items of the `items:` sequence. A restarted list
    /// would repeat objects already written, so they are collected first, in their YAML form
    /// (compact next to the typed objects).
    async fn snapshot_resource<K>(
        &self,
        api: &Api<K>,
        req: Request,
        fields: Option<&str>,
        out: &mut dyn Write,
    ) -> Result<(), ClusterError>
    where
        K: kube::Resource + Clone + DeserializeOwned + Serialize + fmt::Debug + Send + 'static,
    {
        let mut chunks: Vec<String> = Vec::new();
        let mut failed: Option<String> = None;
        self.server
            .list(
                api.resource_url(),
                &req,
                fields,
                Decode::items(std::convert::identity),
                &mut |page: Page<K>| {
                    match page {
                        Page::Restart => chunks.clear(),
                        Page::Items(items) => {
                            for mut item in items {
                                // kubectl hides managedFields by default; they are large and unused.
                                item.meta_mut().managed_fields = None;
                                // Of a namespace's annotations, only those admission reads.
                                if req.resource == "namespaces"
                                    && let Some(a) = item.meta_mut().annotations.as_mut()
                                {
                                    a.retain(|k, _| ADMISSION_ANNOTATIONS.contains(&k.as_str()));
                                }
                                match to_yaml_string(&item) {
                                    Ok(text) => chunks.push(list_item(&text)),
                                    Err(e) => failed = Some(e),
                                }
                            }
                        }
                    }
                    Ok(())
                },
            )
            .await?;
        if let Some(e) = failed {
            return Err(ClusterError::Protocol {
                request: req.to_string(),
                server: self.server.target.server.clone(),
                detail: format!("cannot write an object as YAML: {e}"),
            });
        }
        for c in chunks {
            out.write_all(c.as_bytes())?;
        }
        Ok(())
    }
}

/// A YAML document as an item of the `items:` sequence.
fn list_item(yaml: &str) -> String {
    let mut out = String::with_capacity(yaml.len() + 64);
    for (i, line) in yaml.trim_start_matches("---\n").lines().enumerate() {
        out.push_str(if i == 0 { "- " } else { "  " });
        out.push_str(line);
        out.push('\n');
    }
    out
}
