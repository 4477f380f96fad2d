//! What can go wrong between us and an API server. Each message names the request, the
//! context, and the next step; none ever carries a credential (tokens, client keys, the output
//! of a credential plugin), because these messages end up pasted into bug reports.

/// A failure to configure the client or to read from the API server.
#[derive(Debug, thiserror::Error)]
pub enum ClusterError {
    /// No kubeconfig was found and we are not running inside a pod.
    #[error(
        "no cluster configured: no kubeconfig found ({looked}) and not running inside a pod; \
         pass --kubeconfig FILE, set KUBECONFIG, or read a saved cluster with --snapshot FILE"
    )]
    NoConfig { looked: String },
    /// The kubeconfig could not be read or does not name a usable context/cluster/user.
    #[error(
        "kubeconfig {origin}: {message}; check it with `kubectl config view` and the --context/--cluster/--user flags"
    )]
    Kubeconfig { origin: String, message: String },
    /// The server's address, a CA bundle or a flag value cannot be turned into a client.
    #[error(
        "cannot set up a client for context {context}: {message}; check the context's cluster and \
         user entries (server, certificate-authority, client-certificate, client-key) with \
         `kubectl config view --context {context}`"
    )]
    Setup { context: String, message: String },
    /// Nothing answers at the server's address (refused, unknown host, no route).
    #[error(
        "cannot reach the API server {server} of context {context}: {detail}; check that the cluster \
         is running and reachable (VPN, proxy, `kubectl cluster-info --context {context}`)"
    )]
    Unreachable {
        server: String,
        context: String,
        detail: String,
    },
    /// The TLS handshake failed (unknown CA, wrong server name, not a TLS endpoint).
    #[error(
        "TLS handshake with {server} (context {context}) failed: {detail}; check the cluster's \
         certificate-authority in the kubeconfig or pass --tls-server-name NAME \
         (--insecure-skip-tls-verify only to test)"
    )]
    Tls {
        server: String,
        context: String,
        detail: String,
    },
    /// A request took longer than --request-timeout.
    #[error(
        "{request}: no answer from {server} within {timeout} (--request-timeout); retry with a longer \
         --request-timeout, or check the API server's load"
    )]
    Timeout {
        request: String,
        server: String,
        timeout: String,
    },
    /// 401: the server does not accept our credentials.
    #[error(
        "{request}: the API server rejected the credentials of user {user} in context {context} \
         (401 Unauthorized: missing, expired or invalid); log in again (refresh the token, re-run \
         your credential plugin), then check with `kubectl get --raw /version --context {context}`"
    )]
    Unauthorized {
        request: String,
        user: String,
        context: String,
    },
    /// The credential plugin or token source failed before any request was sent. Its output is
    /// never shown: it may hold a token.
    #[error(
        "getting credentials for user {user} in context {context} failed: {detail}; run the \
         credential command by hand to see why (its output is not shown here: it may hold secrets)"
    )]
    Credentials {
        user: String,
        context: String,
        detail: String,
    },
    /// 403 on a request the answer cannot do without.
    #[error(transparent)]
    Forbidden(Box<Forbidden>),
    /// A list kept losing its continue token (410 Gone) while paging.
    #[error(
        "{request}: the list changed faster than it could be read (continue token expired {times} \
         times, 410 Gone); retry, or pass a larger --chunk-size"
    )]
    Expired { request: String, times: usize },
    /// Any other error status, after the retries for 429/500/503/504.
    #[error(
        "{request}: the API server answered {code} {reason}: {message}; retry later, or check the API server's health"
    )]
    Api {
        request: String,
        code: u16,
        reason: String,
        message: String,
    },
    /// 404 on a list: the server does not serve the resource at that path.
    #[error(
        "{request}: the API server answered 404 NotFound ({message}): {server} does not serve \
         this resource; check that the kubeconfig's server URL is the API server itself (no extra \
         path, not a proxy or a dashboard), e.g. with `kubectl api-resources --context {context}`"
    )]
    NotServed {
        request: String,
        server: String,
        context: String,
        message: String,
    },
    /// The body ended before the JSON did: the connection or a proxy cut it.
    #[error(
        "{request}: the answer from {server} ended early ({detail}): the connection or a proxy cut \
         it; retry, and if it persists check the proxies or load balancers in front of the API server"
    )]
    Truncated {
        request: String,
        server: String,
        detail: String,
    },
    /// The answer was not what the API promises (a proxy in the way, a non-Kubernetes server).
    #[error(
        "{request}: unexpected answer from {server}: {detail}; check that the kubeconfig points at a Kubernetes API server"
    )]
    Protocol {
        request: String,
        server: String,
        detail: String,
    },
    /// `--server-dry-run`: an admission plugin or webhook refused the pod (403 that is not
    /// RBAC's). Nothing to retry: the pod or the cluster's objects must change.
    #[error(
        "{request}: the API server's {plugin} refused the pod (dry run, nothing stored; {code} \
         {reason}): {message}; change the manifest, or the objects {plugin} reads"
    )]
    AdmissionRefused {
        request: String,
        plugin: String,
        code: u16,
        reason: String,
        message: String,
    },
    /// `--server-dry-run`: the pod, as admission left it, is invalid (422).
    #[error(
        "{request}: the API server found the pod invalid after admission (dry run, nothing \
         stored; 422 Invalid): {causes}; fix these fields of the manifest (admission's \
         defaults, such as a LimitRange's, count)"
    )]
    Invalid { request: String, causes: String },
    /// `--server-dry-run`: what the pod needs does not exist (404), e.g. its namespace.
    #[error(
        "{request}: the API server refused the pod (dry run, nothing stored; 404 NotFound): \
         {missing} does not exist; create it, or name one that exists"
    )]
    Missing { request: String, missing: String },
    /// `--server-dry-run`: admitting the pod failed inside the API server (500 from an
    /// admission plugin or webhook). Not retried: a create is not a read.
    #[error(
        "{request}: the API server failed while admitting the pod (dry run, nothing stored; \
         {code} {reason}): {message}; an admission webhook or plugin failed, ask the cluster's \
         admins (not retried)"
    )]
    AdmissionFailed {
        request: String,
        code: u16,
        reason: String,
        message: String,
    },
    /// Writing the snapshot failed.
    #[error("writing the snapshot: {0}")]
    Write(#[from] std::io::Error),
}

/// A forbidden request as an answer the caller does without (and names the request it
/// lacked, for the note); any other error stays an error.
pub(super) fn unless_forbidden<T, R>(
    result: Result<T, ClusterError>,
    req: R,
) -> Result<Result<T, R>, ClusterError> {
    match result {
        Ok(v) => Ok(Ok(v)),
        Err(ClusterError::Forbidden(_)) => Ok(Err(req)),
        Err(e) => Err(e),
    }
}

/// A missing permission: the request, the verb and resource to grant, and who lacks it.
#[derive(Debug, thiserror::Error)]
#[error(
    "{request}: forbidden for user {user} in context {context}: {message}; kubectl-affinity needs \
     RBAC permission to {verb} {resource} ({scope}); see README \"RBAC\", or check with \
     `kubectl auth can-i {verb} {resource}{can_i_scope} --context {context}`"
)]
pub struct Forbidden {
    pub request: String,
    pub verb: String,
    pub resource: String,
    /// "cluster scope", "in all namespaces", "in namespace NS".
    pub scope: String,
    /// The `kubectl auth can-i` flags for that scope.
    pub can_i_scope: String,
    pub user: String,
    pub context: String,
    /// The API server's own message.
    pub message: String,
}
