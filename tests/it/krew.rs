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

/// What `kubectl krew` checks of a plugin manifest (krew's `pkg/index/validation`), for the
/// plugin `name` (the manifest's file name in krew-index): `Err` with the first problem.
fn krew_validate(name: &str, m: &Value) -> Result<(), String> {
    let text = |v: &Value| v.as_str().unwrap_or_default().to_string();
    if text(&m["apiVersion"]) != "krew.googlecontainertools.github.com/v1alpha2" {
        return Err(format!("apiVersion {}", m["apiVersion"]));
    }
    if text(&m["kind"]) != "Plugin" {
        return Err(format!("kind {}", m["kind"]));
    }
    let safe = |n: &str| {
        !n.is_empty()
            && n.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
            && !["con", "prn", "aux", "nul"].contains(&n.to_lowercase().as_str())
    };
    if !safe(name) || text(&m["metadata"]["name"]) != name {
        return Err(format!(
            "name {} for the file {name}",
            m["metadata"]["name"]
        ));
    }
    let spec = &m["spec"];
    let known = |v: &Value, keys: &[&str]| -> Result<(), String> {
        for k in v.as_object().ok_or("not a mapping")?.keys() {
            if !keys.contains(&k.as_str()) {
                return Err(format!("unknown field {k}"));
            }
        }
        Ok(())
    };
    known(m, &["apiVersion", "kind", "metadata", "spec"])?;
    known(
        spec,
        &[
            "version",
            "homepage",
            "shortDescription",
            "description",
            "caveats",
            "platforms",
        ],
    )?;
    if text(&spec["shortDescription"]).is_empty() {
        return Err("no shortDescription".into());
    }
    if !is_semver_with_v(&text(&spec["version"])) {
        return Err(format!("version {} is not v + semver", spec["version"]));
    }
    let platforms = spec["platforms"].as_array().ok_or("no platforms")?;
    if platforms.is_empty() {
        return Err("no platforms".into());
    }
    for p in platforms {
        known(p, &["selector", "uri", "sha256", "bin", "files"])?;
        if text(&p["uri"]).is_empty() {
            return Err("a platform without uri".into());
        }
        let sha = text(&p["sha256"]);
        if sha.len() != 64 || !sha.chars().all(|c| matches!(c, '0'..='9' | 'a'..='f')) {
            return Err(format!("sha256 {sha:?}"));
        }
        if text(&p["bin"]).is_empty() {
            return Err("a platform without bin".into());
        }
        let files = p["files"].as_array().ok_or("a platform without files")?;
        if files.is_empty() {
            return Err("a platform without files".into());
        }
        for f in files {
            known(f, &["from", "to"])?;
            if text(&f["from"]).is_empty() || text(&f["to"]).is_empty() {
                return Err(format!("file operation {f}"));
            }
        }
        let selector = &p["selector"];
        known(selector, &["matchLabels", "matchExpressions"])?;
        let labels = selector["matchLabels"]
            .as_object()
            .ok_or("no matchLabels")?;
        if labels.is_empty() || labels.keys().any(|k| k != "os" && k != "arch") {
            return Err(format!("selector {selector}"));
        }
    }
    Ok(())
}

/// krew's `semver.Parse`: a leading `v`, then MAJOR.MINOR.PATCH with optional pre-release and
/// build parts.
fn is_semver_with_v(v: &str) -> bool {
    let Some(rest) = v.strip_prefix('v') else {
        return false;
    };
    let core = rest.split(['-', '+']).next().unwrap_or_default();
    let parts: Vec<&str> = core.split('.').collect();
    parts.len() == 3
        && parts.iter().all(|p| {
            !p.is_empty()
                && p.chars().all(|c| c.is_ascii_digit())
                && (p.len() == 1 || !p.starts_with('0'))
        })
}

#[test]
fn the_validation_refuses_what_krew_refuses() {
    let good = rendered();
    assert_eq!(krew_validate("affinity", &good), Ok(()));
    assert!(krew_validate("other", &good).is_err());
    let broken = |edit: &dyn Fn(&mut Value)| {
        let mut m = good.clone();
        edit(&mut m);
        krew_validate("affinity", &m)
    };
    assert!(broken(&|m| m["spec"]["version"] = "1.2.3".into()).is_err());
    assert!(broken(&|m| m["spec"]["version"] = "v1.2".into()).is_err());
    assert!(broken(&|m| m["spec"]["platforms"][0]["sha256"] = "AB".repeat(32).into()).is_err());
    assert!(broken(&|m| m["spec"]["platforms"][1]["bin"] = "".into()).is_err());
    assert!(
        broken(&|m| m["spec"]["platforms"][2]["selector"]["matchLabels"]["distro"] = "x".into())
            .is_err()
    );
    assert!(broken(&|m| m["spec"]["shortDescription"] = "".into()).is_err());
    assert!(broken(&|m| m["spec"]["extra"] = "x".into()).is_err());
    assert!(is_semver_with_v("v0.1.0-rc.1+abc") && !is_semver_with_v("v01.2.3"));
}

/// The files of an archive `scripts/package.sh` makes for `os`, with a stand-in binary.
fn archive_files(os: &str, arch: &str) -> BTreeSet<String> {
    let dir = tempfile::tempdir().expect("tempdir");
    // The script copies the binary it is given whatever it holds: a stand-in, as the test
    // build's binary is hundreds of MB to compress.
    let binary = dir.path().join("built");
    std::fs::write(&binary, "#!/bin/sh\n").expect("stand-in binary");
    let out = Command::new("sh")
        .arg(format!("{ROOT}/scripts/package.sh"))
        .arg(&binary)
        .args(["v1.2.3", os, arch])
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
        .join(format!("kubectl-affinity_v1.2.3_{os}_{arch}.tar.gz"));
    let list = Command::new("tar")
        .arg("-tzf")
        .arg(&archive)
        .output()
        .expect("tar");
    String::from_utf8_lossy(&list.stdout)
        .lines()
        .map(|l| l.trim_start_matches("./").to_string())
        .filter(|l| !l.is_empty())
        .collect()
}

#[test]
fn manifest_is_a_complete_krew_plugin() {
    let m = rendered();
    assert_eq!(krew_validate("affinity", &m), Ok(()));
    let short = m["spec"]["shortDescription"].as_str().expect("short");
    assert!(short.len() < 50, "shortDescription too long: {short}");
    let description = m["spec"]["description"].as_str().expect("description");
    assert!(
        !description.contains("kubectl affinity "),
        "krew asks for no usage examples in the description"
    );
    // What the plugin does today, each said.
    for feature in [
        "explain",
        "whatif",
        "audit",
        "preemption",
        "admission",
        "1.31 to 1.36",
        "DRA",
        "snapshot",
        "replica",
    ] {
        assert!(
            description.contains(feature),
            "description lacks {feature:?}"
        );
    }
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
        assert!(
            platforms.insert(format!("{os}/{arch}")),
            "{os}/{arch} twice: krew would pick either"
        );
        let uri = p["uri"].as_str().expect("uri");
        assert!(
            uri.ends_with(&format!("kubectl-affinity_v1.2.3_{os}_{arch}.tar.gz")),
            "{uri}"
        );
        let bin = p["bin"].as_str().expect("bin");
        let exe = if os == "windows" { ".exe" } else { "" };
        assert_eq!(bin, format!("kubectl-affinity{exe}"));
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
        // Every file the manifest moves is in the archive package.sh makes for it.
        let archive = archive_files(os, arch);
        for from in &files {
            assert!(
                archive.contains(*from),
                "{os}/{arch}: {from} not in {archive:?}"
            );
        }
    }
    let want: BTreeSet<String> = ["linux", "darwin", "windows"]
        .iter()
        .flat_map(|os| ["amd64", "arm64"].map(|arch| format!("{os}/{arch}")))
        .collect();
    assert_eq!(platforms, want);
}

/// The release workflow builds, for every platform the manifest names, the archive it names.
#[test]
fn the_release_workflow_builds_every_platform_of_the_manifest() {
    let workflow = std::fs::read_to_string(format!("{ROOT}/.github/workflows/release.yml"))
        .expect("release workflow");
    let w: Value = serde_saphyr::from_str(&workflow).expect("workflow is YAML");
    assert_eq!(w["on"]["push"]["tags"], serde_json::json!(["v*"]));
    let built: BTreeSet<String> = w["jobs"]["build"]["strategy"]["matrix"]["include"]
        .as_array()
        .expect("matrix")
        .iter()
        .map(|e| {
            format!(
                "{}/{}",
                e["os"].as_str().unwrap_or("?"),
                e["arch"].as_str().unwrap_or("?")
            )
        })
        .collect();
    let m = rendered();
    let named: BTreeSet<String> = m["spec"]["platforms"]
        .as_array()
        .expect("platforms")
        .iter()
        .map(|p| {
            let l = &p["selector"]["matchLabels"];
            format!(
                "{}/{}",
                l["os"].as_str().unwrap_or("?"),
                l["arch"].as_str().unwrap_or("?")
            )
        })
        .collect();
    assert_eq!(built, named);
    assert!(workflow.contains("scripts/package.sh"));
    assert!(workflow.contains("rajatjindal/krew-release-bot"));
    assert!(workflow.contains("krew_template_file: krew-manifest.yaml"));
}

#[test]
fn archive_holds_what_the_manifest_names() {
    let names = archive_files("linux", "amd64");
    for want in [
        "kubectl-affinity",
        "kubectl_complete-affinity",
        "LICENSE",
        "README.md",
    ] {
        assert!(names.contains(want), "{want} missing from {names:?}");
    }
    let names = archive_files("windows", "arm64");
    assert!(names.contains("kubectl-affinity.exe"), "{names:?}");
    assert!(!names.contains("kubectl_complete-affinity"), "{names:?}");
    let license = std::fs::read_to_string(format!("{ROOT}/LICENSE")).expect("LICENSE");
    assert!(license.contains("Apache License") && license.contains("Version 2.0"));
}
