//! Client configuration the way kubectl builds it, so that a user's `kubectl` set-up (files,
//! contexts, exec plugins, impersonation) works here unchanged.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::Args;
use kube::config::{KubeConfigOptions, Kubeconfig, KubeconfigError};

use super::error::ClusterError;

/// Cluster access flags, named and defaulted as kubectl's; global, as kubectl's are (see
/// `cli::GlobalArgs`).
#[derive(Debug, Clone, Args)]
#[command(next_help_heading = "Cluster access (as kubectl)")]
pub struct KubeArgs {
    /// Path to the kubeconfig file. Default: $KUBECONFIG (a list of files, merged as kubectl
    /// merges them), else ~/.kube/config, else the in-cluster service account.
    #[arg(long, value_name = "FILE", global = true)]
    pub kubeconfig: Option<PathBuf>,
    /// The kubeconfig context to use (default: its current-context).
    #[arg(long, value_name = "NAME", global = true)]
    pub context: Option<String>,
    /// The kubeconfig cluster to use (default: the context's).
    #[arg(long, value_name = "NAME", global = true)]
    pub cluster: Option<String>,
    /// The kubeconfig user to use (default: the context's).
    #[arg(long, value_name = "NAME", global = true)]
    pub user: Option<String>,
    /// Username to impersonate for the requests.
    #[arg(long = "as", value_name = "USER", global = true)]
    pub as_user: Option<String>,
    /// Group to impersonate (repeatable).
    #[arg(long = "as-group", value_name = "GROUP", global = true)]
    pub as_group: Vec<String>,
    /// How long to wait for each request: a duration such as 500ms, 10s, 1m (a bare number is
    /// seconds); 0 waits forever.
    #[arg(long, value_name = "DURATION", default_value = "0", value_parser = parse_timeout, global = true)]
    pub request_timeout: Timeout,
    /// Do not verify the API server's certificate (insecure; for tests only).
    #[arg(long, global = true)]
    pub insecure_skip_tls_verify: bool,
    /// Server name to check the API server's certificate against (default: the server's host).
    #[arg(long, value_name = "NAME", global = true)]
    pub tls_server_name: Option<String>,
    /// Objects per page when listing (0: no paging), as kubectl's --chunk-size.
    #[arg(long, value_name = "N", default_value_t = 500, global = true)]
    pub chunk_size: u32,
}

/// `--request-timeout`, kept with the text the user gave so messages can quote it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Timeout {
    pub text: String,
    /// `None`: wait forever.
    pub duration: Option<Duration>,
}

/// Parses kubectl's `--request-timeout`: Go durations made of `<number><unit>` parts
/// (ns, us, ms, s, m, h), or a bare integer of seconds.
pub fn parse_timeout(text: &str) -> Result<Timeout, String> {
    let bad = || format!("{text:?} is not a duration such as 500ms, 10s or 1m30s (0: no timeout)");
    let t = text.trim();
    let total = if let Ok(secs) = t.parse::<u64>() {
        Duration::from_secs(secs)
    } else {
        let mut total = Duration::ZERO;
        let mut rest = t;
        if rest.is_empty() {
            return Err(bad());
        }
        while !rest.is_empty() {
            let num_len = rest
                .find(|c: char| !(c.is_ascii_digit() || c == '.'))
                .ok_or_else(bad)?;
            let value: f64 = rest[..num_len].parse().map_err(|_| bad())?;
            rest = &rest[num_len..];
            let unit_len = rest
                .find(|c: char| c.is_ascii_digit() || c == '.')
                .unwrap_or(rest.len());
            let scale = match &rest[..unit_len] {
                "ns" => 1e-9,
                "us" | "µs" => 1e-6,
                "ms" => 1e-3,
                "s" => 1.0,
                "m" => 60.0,
                "h" => 3600.0,
                _ => return Err(bad()),
            };
            rest = &rest[unit_len..];
            total += Duration::try_from_secs_f64(value * scale).map_err(|_| bad())?;
        }
        total
    };
    Ok(Timeout {
        text: text.to_string(),
        duration: (!total.is_zero()).then_some(total),
    })
}

/// Who we talk to, for messages. Never holds a credential.
#[derive(Debug, Clone)]
pub struct Target {
    pub context: String,
    pub server: String,
    pub user: String,
    /// The program of the user's exec credential plugin, if any (no arguments, no env).
    pub exec_command: Option<String>,
}

/// The kubeconfig that applies, and where it came from (for messages).
fn read_kubeconfig(args: &KubeArgs) -> Result<Option<(Kubeconfig, String)>, ClusterError> {
    let read = |path: &Path| {
        let origin = path.display().to_string();
        if odd_utf16(path) {
            return Err(ClusterError::Kubeconfig {
                origin,
                message: "not a valid kubeconfig (UTF-16 text with an odd number of bytes)"
                    .to_string(),
            });
        }
        Kubeconfig::read_from(path).map_err(|e| ClusterError::Kubeconfig {
            origin,
            message: kubeconfig_message(&e),
        })
    };
    if let Some(path) = &args.kubeconfig {
        return read(path).map(|k| Some((k, path.display().to_string())));
    }
    if let Some(value) = std::env::var_os("KUBECONFIG").filter(|v| !v.is_empty()) {
        // As kubectl: files of the list that do not exist are skipped; the first file to set
        // a value wins.
        let paths: Vec<PathBuf> = std::env::split_paths(&value)
            .filter(|p| !p.as_os_str().is_empty() && p.exists())
            .collect();
        let origin = format!("$KUBECONFIG ({})", value.to_string_lossy());
        if paths.is_empty() {
            return Err(ClusterError::Kubeconfig {
                origin,
                message: "none of the listed files exists".to_string(),
            });
        }
        let mut merged = Kubeconfig::default();
        for p in &paths {
            merged = merged
                .merge(read(p)?)
                .map_err(|e| ClusterError::Kubeconfig {
                    origin: origin.clone(),
                    message: kubeconfig_message(&e),
                })?;
        }
        return Ok(Some((merged, origin)));
    }
    match default_path() {
        Some(path) if path.exists() => read(&path).map(|k| Some((k, path.display().to_string()))),
        _ => Ok(None),
    }
}

/// A regular file that starts with a UTF-16 byte-order mark and has an odd number of bytes,
/// which `Kubeconfig::read_from` would panic on: it reads such a file two bytes at a time
/// and indexes past the end of the last, short pair (kube-client 5.0.0,
/// `src/config/file_config.rs`, `read_path`). Other files (a pipe) are not read here, which
/// would leave nothing for kube to read.
fn odd_utf16(path: &Path) -> bool {
    use std::io::Read;
    let Ok(mut file) = std::fs::File::open(path) else {
        return false;
    };
    let mut bom = [0u8; 2];
    file.metadata()
        .is_ok_and(|m| m.is_file() && m.len() % 2 == 1)
        && file.read_exact(&mut bom).is_ok()
        && matches!(bom, [0xFF, 0xFE] | [0xFE, 0xFF])
}

fn default_path() -> Option<PathBuf> {
    let home: OsString = std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .or_else(|| std::env::var_os("USERPROFILE"))?;
    Some(PathBuf::from(home).join(".kube").join("config"))
}

/// kube's messages, minus the parser's, which may quote a line of the file (and so a token).
fn kubeconfig_message(e: &KubeconfigError) -> String {
    match e {
        KubeconfigError::Parse(_) => "not a valid kubeconfig (YAML syntax error)".to_string(),
        KubeconfigError::CurrentContextNotSet => {
            "no current-context is set; pass --context NAME".to_string()
        }
        KubeconfigError::LoadContext(name) => format!("no context named {name:?}"),
        KubeconfigError::LoadClusterOfContext(name) => format!("no cluster named {name:?}"),
        other => other.to_string(),
    }
}

/// The namespace the context names, for commands that get no -n and no namespace in the
/// manifest. `None` when no kubeconfig is readable or the context names none: kubectl then
/// uses "default". Never fails: an offline run must not depend on a kubeconfig.
pub fn context_namespace(args: &KubeArgs) -> Option<String> {
    let (kc, _) = read_kubeconfig(args).ok()??;
    let name = args.context.as_ref().or(kc.current_context.as_ref())?;
    kc.contexts
        .iter()
        .find(|c| &c.name == name)?
        .context
        .as_ref()?
        .namespace
        .clone()
        .filter(|n| !n.is_empty())
}

/// Builds the client configuration: kubeconfig (or in-cluster), then the flag overrides.
pub async fn load(args: &KubeArgs) -> Result<(kube::Config, Target), ClusterError> {
    let (mut config, mut target) = match read_kubeconfig(args)? {
        Some((kc, origin)) => {
            let context = args
                .context
                .clone()
                .or_else(|| kc.current_context.clone())
                .ok_or_else(|| ClusterError::Kubeconfig {
                    origin: origin.clone(),
                    message: "no current-context is set; pass --context NAME".to_string(),
                })?;
            let ctx = kc
                .contexts
                .iter()
                .find(|c| c.name == context)
                .and_then(|c| c.context.clone());
            let user = args
                .user
                .clone()
                .or_else(|| ctx.as_ref().and_then(|c| c.user.clone()))
                .unwrap_or_default();
            let exec_command = kc
                .auth_infos
                .iter()
                .find(|a| a.name == user)
                .and_then(|a| a.auth_info.as_ref())
                .and_then(|a| a.exec.as_ref())
                .and_then(|e| e.command.clone())
                .map(|c| {
                    Path::new(&c)
                        .file_name()
                        .map(|f| f.to_string_lossy().into_owned())
                        .unwrap_or(c)
                });
            let options = KubeConfigOptions {
                context: args.context.clone(),
                cluster: args.cluster.clone(),
                user: args.user.clone(),
            };
            let config = kube::Config::from_custom_kubeconfig(kc, &options)
                .await
                .map_err(|e| ClusterError::Kubeconfig {
                    origin,
                    message: kubeconfig_message(&e),
                })?;
            let target = Target {
                context,
                server: config.cluster_url.to_string(),
                user: if user.is_empty() {
                    "(none)".to_string()
                } else {
                    user
                },
                exec_command,
            };
            (config, target)
        }
        None => {
            let config = kube::Config::incluster().map_err(|_| ClusterError::NoConfig {
                looked: match default_path() {
                    Some(p) => {
                        format!("--kubeconfig and KUBECONFIG unset, {} missing", p.display())
                    }
                    None => "--kubeconfig, KUBECONFIG and HOME unset".to_string(),
                },
            })?;
            let target = Target {
                context: "in-cluster".to_string(),
                server: config.cluster_url.to_string(),
                user: "the pod's service account".to_string(),
                exec_command: None,
            };
            (config, target)
        }
    };
    if let Some(user) = &args.as_user {
        config.auth_info.impersonate = Some(user.clone());
        target.user = format!("{user} (impersonated)");
    }
    if !args.as_group.is_empty() {
        config.auth_info.impersonate_groups = Some(args.as_group.clone());
    }
    if args.insecure_skip_tls_verify {
        config.accept_invalid_certs = true;
    }
    if let Some(name) = &args.tls_server_name {
        config.tls_server_name = Some(name.clone());
    }
    // An `http` server makes no TLS handshake, so nothing is verified against a CA. Without
    // one in the kubeconfig, kube-client still builds the OS verifier, which reads the whole
    // trust store before the first request (tens of milliseconds) and
    // fails on a machine without one. No roots at all are what such a server needs. A proxy
    // may speak TLS with these roots, so with one nothing is changed.
    if config.cluster_url.scheme_str() == Some("http")
        && config.root_cert.is_none()
        && config.proxy_url.is_none()
    {
        config.root_cert = Some(Vec::new());
    }
    // Our own retry loop handles 429/500/503/504 with a bounded backoff and says so; kube's
    // would retry silently a second time around it.
    config.default_retry = false;
    if let Some(d) = args.request_timeout.duration {
        config.connect_timeout = Some(d);
        config.read_timeout = Some(d);
    }
    Ok((config, target))
}

/// hyper's read buffer, at most. At hyper's default (about 400 KiB) each read past a buffer
/// still shared with a page's frames allocated a new 400-800 KiB one, a size the allocator
/// serves from its arena and did not hand out again soon: the reads wrote several times more
/// fresh memory than the frames alive at once, and memory first written is slow (see
/// BENCHMARKS.md, "The machine").
const READ_BUFFER: usize = 64 * 1024;

/// The client kube builds from `config` (kube-client's `ClientBuilder::try_from`: an HTTP
/// connector through rustls with the connect, read and write timeouts, then the base URI,
/// authentication and extra-header layers), with hyper's reads capped at [`READ_BUFFER`].
/// A proxy is left to kube's own builder (which refuses it in this build, as before: its
/// `http-proxy` and `socks5` features are off). Not added: kube's retry layer, which
/// [`load`] turns off for the tool's own retries; its tracing layer, which only logs; the
/// expiry of an exec plugin's client certificate, which tells long-lived clients when to
/// rebuild and a command never reaches.
pub fn client(config: kube::Config) -> Result<kube::Client, kube::Error> {
    use kube::client::ConfigExt;
    if config.proxy_url.is_some() {
        return kube::Client::try_from(config);
    }
    let auth = config.auth_layer()?;
    let mut http = hyper_util::client::legacy::connect::HttpConnector::new();
    http.enforce_http(false);
    let mut connector =
        hyper_timeout::TimeoutConnector::new(config.rustls_https_connector_with_connector(http)?);
    connector.set_connect_timeout(config.connect_timeout);
    connector.set_read_timeout(config.read_timeout);
    connector.set_write_timeout(config.write_timeout);
    connector.set_reset_reader_on_write(config.reset_reader_on_write);
    let mut builder =
        hyper_util::client::legacy::Builder::new(hyper_util::rt::TokioExecutor::new());
    builder.http1_max_buf_size(READ_BUFFER);
    let http: hyper_util::client::legacy::Client<_, kube::client::Body> = builder.build(connector);
    let service = tower::ServiceBuilder::new()
        .layer(config.base_uri_layer())
        .option_layer(auth)
        .layer(config.extra_headers_layer()?)
        .map_err(tower::BoxError::from)
        .service(http);
    Ok(kube::Client::new(service, config.default_namespace))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeouts_parse_as_kubectl_takes_them() {
        let d = |s: &str| parse_timeout(s).map(|t| t.duration);
        assert_eq!(d("0"), Ok(None));
        assert_eq!(d("5"), Ok(Some(Duration::from_secs(5))));
        assert_eq!(d("500ms"), Ok(Some(Duration::from_millis(500))));
        assert_eq!(d("1m30s"), Ok(Some(Duration::from_secs(90))));
        assert_eq!(d("0s"), Ok(None));
        assert!(d("fast").is_err());
        assert!(d("10x").is_err());
        assert!(d("").is_err());
    }
}
