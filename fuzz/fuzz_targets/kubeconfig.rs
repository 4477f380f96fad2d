//! A kubeconfig, read as the binary reads one (`src/cluster/config.rs`, through
//! `Live::connect`): the context's namespace, the client configuration, then the HTTP client
//! (TLS roots, client certificate and key, the authentication layer). No request is sent.
//!
//! The credential programs a kubeconfig can name (an exec plugin, the `gcp` auth provider's
//! command) are taken out before the client is built: the client runs them, and a fuzzer
//! must not run programs its input names.

#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use kubectl_affinity::cluster::{KubeArgs, Timeout, context_namespace};
use kubectl_affinity::fuzz_entry;
use libfuzzer_sys::fuzz_target;

/// One file per fuzzing process, written again for each input.
fn input_file() -> &'static PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        std::env::temp_dir().join(format!(
            "kubectl-affinity-fuzz-{}.kubeconfig",
            std::process::id()
        ))
    })
}

fn runtime() -> &'static tokio::runtime::Runtime {
    static RT: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RT.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a Tokio runtime")
    })
}

fuzz_target!(|data: &[u8]| {
    let path = input_file();
    std::fs::write(path, data).expect("writing the fuzz input to a temporary file");
    let args = KubeArgs {
        kubeconfig: Some(path.clone()),
        context: None,
        cluster: None,
        user: None,
        as_user: None,
        as_group: Vec::new(),
        request_timeout: Timeout {
            text: "0".to_string(),
            duration: None,
        },
        insecure_skip_tls_verify: false,
        tls_server_name: None,
        chunk_size: 500,
    };
    let _ = context_namespace(&args);
    let rt = runtime();
    let Ok(mut config) = rt.block_on(fuzz_entry::kubeconfig(&args)) else {
        return;
    };
    config.auth_info.exec = None;
    if config
        .auth_info
        .auth_provider
        .as_ref()
        .is_some_and(|p| p.name == "gcp")
    {
        config.auth_info.auth_provider = None;
    }
    let _guard = rt.enter();
    let _ = fuzz_entry::client(config);
});
