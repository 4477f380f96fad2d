//! The connection to one cluster, and the small reads that are not the cluster's state: one
//! pod by name, and names for shell completion.

use std::fmt;

use k8s_openapi::api::core::v1 as core;
use kube::api::Api;

use super::config::{self, KubeArgs};
use super::error::ClusterError;
use super::requests::{Failure, Request, Server, auth_detail};

/// A connection to one cluster, with its own small runtime: the rest of the program stays
/// synchronous and never sees the client.
pub struct Live {
    pub(super) rt: tokio::runtime::Runtime,
    pub(super) server: Server,
    /// The context's namespace (or the service account's), "default" when it names none.
    pub default_namespace: String,
}

impl fmt::Debug for Live {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Live")
            .field("target", &self.server.target)
            .field("chunk_size", &self.server.chunk_size)
            .finish_non_exhaustive()
    }
}

/// What shell completion wants names of.
#[derive(Debug, Clone, Copy)]
pub enum Names<'a> {
    Namespaces,
    Nodes,
    Pods(&'a str),
}

impl Live {
    pub fn connect(args: &KubeArgs) -> Result<Live, ClusterError> {
        // Pages are decoded and folded on blocking threads. Threads beyond the cores add
        // no speed, only allocator heaps whose fresh memory the kernel must zero. One per
        // core and one for the folding thread, which waits between pages: never fewer than
        // two, or no page could decode while the folding thread waits for one.
        let blocking_threads = std::thread::available_parallelism().map_or(1, |n| n.get()) + 1;
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .max_blocking_threads(blocking_threads)
            .build()
            .map_err(|e| ClusterError::Setup {
                context: args.context.clone().unwrap_or_default(),
                message: format!("starting the I/O runtime: {e}"),
            })?;
        let (config, target) = rt.block_on(config::load(args))?;
        let default_namespace = config.default_namespace.clone();
        let client = {
            let _guard = rt.enter();
            config::client(config)
        }
        .map_err(|e| match e {
            // Credential sources are set up here (a token file, an exec plugin's first run).
            kube::Error::Auth(a) => ClusterError::Credentials {
                user: target.user.clone(),
                context: target.context.clone(),
                detail: auth_detail(&a, target.exec_command.as_deref()),
            },
            other => ClusterError::Setup {
                context: target.context.clone(),
                message: match other {
                    // TLS set-up errors name files and formats, never key material.
                    kube::Error::RustlsTls(e) => e.to_string(),
                    kube::Error::InferKubeconfig(e) => e.to_string(),
                    _ => "invalid client configuration".to_string(),
                },
            },
        })?;
        Ok(Live {
            rt,
            server: Server {
                client,
                target,
                timeout: args.request_timeout.clone(),
                chunk_size: args.chunk_size,
            },
            default_namespace,
        })
    }

    /// How outputs name this source: `context NAME (SERVER)`.
    pub fn source(&self) -> String {
        let t = &self.server.target;
        format!("context {} ({})", t.context, t.server)
    }

    /// The API server's version (`GET /version`), its `gitVersion` (`v1.33.5`).
    pub fn server_version(&self) -> Result<String, ClusterError> {
        let req = Request::new("get", "version", false);
        let client = self.server.client.clone();
        self.rt
            .block_on(self.server.call(&req, || client.apiserver_version()))
            .map(|v| v.git_version)
            .map_err(|f| self.server.fail(&req, f))
    }

    /// `context NAME`, for "not found in ..." messages.
    pub fn context(&self) -> String {
        format!("context {}", self.server.target.context)
    }

    /// Gets one pod; `None` when it does not exist.
    pub fn get_pod(&self, namespace: &str, name: &str) -> Result<Option<core::Pod>, ClusterError> {
        let api: Api<core::Pod> = Api::namespaced(self.server.client.clone(), namespace);
        let req = Request::new("get", "pods", true)
            .namespace(namespace)
            .name(name);
        match self.rt.block_on(self.server.call(&req, || api.get(name))) {
            Ok(p) => Ok(Some(p)),
            Err(Failure::Status(s)) if s.code == 404 => Ok(None),
            Err(f) => Err(self.server.fail(&req, f)),
        }
    }

    /// Names for shell completion: namespaces, nodes, or the pods of one namespace.
    pub fn names(&self, what: Names<'_>) -> Result<Vec<String>, ClusterError> {
        fn name<K: kube::Resource>(o: K) -> Option<String> {
            o.meta().name.clone()
        }
        let client = self.server.client.clone();
        let mut names = self.rt.block_on(async {
            match what {
                Names::Namespaces => {
                    let api: Api<core::Namespace> = Api::all(client);
                    let req = Request::new("list", "namespaces", false);
                    self.server
                        .collect(api.resource_url(), req, name::<core::Namespace>)
                        .await
                }
                Names::Nodes => {
                    let api: Api<core::Node> = Api::all(client);
                    let req = Request::new("list", "nodes", false);
                    self.server
                        .collect(api.resource_url(), req, name::<core::Node>)
                        .await
                }
                Names::Pods(ns) => {
                    let api: Api<core::Pod> = Api::namespaced(client, ns);
                    let req = Request::new("list", "pods", true).namespace(ns);
                    self.server
                        .collect(api.resource_url(), req, name::<core::Pod>)
                        .await
                }
            }
        })?;
        names.sort();
        Ok(names)
    }
}
