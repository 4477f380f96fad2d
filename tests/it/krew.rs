//! The krew manifest renders to a valid Plugin for every platform we ship, and the archive
//! script puts exactly what the manifest names (binary, completion shim, LICENSE) in it.

use std::collections::BTreeSet;
use std::process::Command;

use serde_json::Value;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// Renders the krew-release-bot template the way the bot does, with a fixed digest.
fn rendered() -> Value {
    let text = std::fs::read_to_string(format!("{ROOT}/krew-manifest.yaml")).expect("manifest");
    let mut out = String::new();
    for line in text.lines() {
        let line = line.replace("{{ .TagName }}", "v1.2.3");
        if let Some(start) = line.find("{{addURIAndSha \"") {
            let indent = &line[..start];
            let rest = &line[start + "{{addURIAndSha \"".len()..];
            let uri = &rest[..rest.find('"').expect("uri end")];
            out.push_str(&format!(
                "{indent}uri: {uri}\n{indent}sha256: {}\n",
                "ab".repeat(32)
            ));
        } else {
            out.push_str(&line);
            out.push('\n');
        }
    }
    serde_saphyr::from_str(&out).expect("rendered manifest is YAML")
}

#[test]
fn manifest_is_a_complete_krew_plugin() {
    let m = rendered();
    assert_eq!(
        m["apiVersion"],
        "krew.googlecontainertools.github.com/v1alpha2"
    );
    assert_eq!(m["kind"], "Plugin");
    assert_eq!(m["metadata"]["name"], "affinity");
    let short = m["spec"]["shortDescription"].as_str().expect("short");
    assert!(short.len() < 50, "shortDescription too long: {short}");
    let description = m["spec"]["description"].as_str().expect("description");
    assert!(
        !description.contains("kubectl affinity "),
        "krew asks for no usage examples in the description"
    );
    let caveats = m["spec"]["caveats"].as_str().expect("caveats");
    for rbac in [
        "get pods",
        "list pods, nodes and namespaces",
        "list events",
        "kubectl_complete-affinity",
    ] {
        assert!(caveats.contains(rbac), "caveats lack {rbac:?}");
    }
    let mut platforms = BTreeSet::new();
    for p in m["spec"]["platforms"].as_array().expect("platforms") {
        let labels = &p["selector"]["matchLabels"];
        let os = labels["os"].as_str().expect("os");
        let arch = labels["arch"].as_str().expect("arch");
        platforms.insert(format!("{os}/{arch}"));
        let uri = p["uri"].as_str().expect("uri");
        assert!(
            uri.ends_with(&format!("kubectl-affinity_v1.2.3_{os}_{arch}.tar.gz")),
            "{uri}"
        );
        assert_eq!(p["sha256"].as_str().map(str::len), Some(64));
        let bin = p["bin"].as_str().expect("bin");
        let files: Vec<&str> = p["files"]
            .as_array()
            .expect("files")
            .iter()
            .filter_map(|f| f["from"].as_str())
            .collect();
        assert!(
            files.contains(&bin) && files.contains(&"LICENSE"),
            "{os}/{arch}: {files:?}"
        );
        if os != "windows" {
            assert!(files.contains(&"kubectl_complete-affinity"), "{os}/{arch}");
        }
    }
    let want: BTreeSet<String> = [
        "linux/amd64",
        "linux/arm64",
        "darwin/amd64",
        "darwin/arm64",
        "windows/amd64",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    assert_eq!(platforms, want);
}

#[test]
fn archive_holds_what_the_manifest_names() {
    let dir = tempfile::tempdir().expect("tempdir");
    // The script copies the binary it is given whatever it holds: a stand-in, as the test
    // build's binary is hundreds of MB to compress.
    let binary = dir.path().join("built");
    std::fs::write(&binary, "#!/bin/sh\n").expect("stand-in binary");
    let out = Command::new("sh")
        .arg(format!("{ROOT}/scripts/package.sh"))
        .arg(&binary)
        .args(["v1.2.3", "linux", "amd64"])
        .arg(dir.path())
        .output()
        .expect("package.sh");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let archive = dir
        .path()
        .join("kubectl-affinity_v1.2.3_linux_amd64.tar.gz");
    let list = Command::new("tar")
        .arg("-tzf")
        .arg(&archive)
        .output()
        .expect("tar");
    let names: BTreeSet<String> = String::from_utf8_lossy(&list.stdout)
        .lines()
        .map(|l| l.trim_start_matches("./").to_string())
        .filter(|l| !l.is_empty())
        .collect();
    for want in [
        "kubectl-affinity",
        "kubectl_complete-affinity",
        "LICENSE",
        "README.md",
    ] {
        assert!(names.contains(want), "{want} missing from {names:?}");
    }
    let license = std::fs::read_to_string(format!("{ROOT}/LICENSE")).expect("LICENSE");
    assert!(license.contains("Apache License") && license.contains("Version 2.0"));
}
