//! The project's layout: the repository's root holds the project's own files only (a file
//! committed or about to be by accident, a shell redirection's `100:` or an editor's backup,
//! fails here by name), and the integration tests are one crate.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::Path;
use std::process::Command;

/// Every entry of the root: add a new one here when the project's layout grows.
const EXPECTED: &[&str] = &[
    ".ci",
    ".github",
    ".gitignore",
    "BENCHMARKS.md",
    "Cargo.lock",
    "Cargo.toml",
    "LICENSE",
    "README.md",
    "benches",
    "clippy.toml",
    "completions",
    "examples",
    "fuzz",
    "krew-manifest.yaml",
    "proptest-regressions",
    "scripts",
    "src",
    "testkit",
    "tests",
];

/// The root's entries that git tracks or would add (untracked and not ignored); `None` when
/// git cannot tell (not installed, or not a git checkout).
fn git_entries(root: &Path) -> Option<BTreeSet<String>> {
    let out = Command::new("git")
        .arg("-C")
        .arg(root)
        .args([
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard",
        ])
        .output()
        .ok()
        .filter(|out| out.status.success())?;
    let paths = String::from_utf8(out.stdout).expect("git lists UTF-8 paths here");
    Some(
        paths
            .split('\0')
            .filter(|p| !p.is_empty())
            .map(|p| p.split('/').next().unwrap_or(p).to_string())
            .collect(),
    )
}

/// The root's entries as the directory lists them, but for the build's output, git's own
/// (a directory, or in a worktree a file) and the hidden directories of other tools (an
/// editor's settings).
fn listed_entries(root: &Path) -> BTreeSet<String> {
    std::fs::read_dir(root)
        .expect("read the package's root")
        .map(|e| e.expect("a directory entry"))
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| {
            let tools = name.starts_with('.')
                && root.join(name).is_dir()
                && !EXPECTED.contains(&name.as_str());
            name != "target" && name != ".git" && !tools
        })
        .collect()
}

#[test]
fn the_root_holds_only_the_projects_files() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let entries = git_entries(root).unwrap_or_else(|| {
        // Written past the test harness's capture, which hides a passing test's output.
        let _ = writeln!(
            std::io::stderr(),
            "note: git could not list {}; the root's directory listing is checked instead",
            root.display()
        );
        listed_entries(root)
    });
    let strays: Vec<&String> = entries
        .iter()
        .filter(|e| !EXPECTED.contains(&e.as_str()))
        .collect();
    assert!(
        strays.is_empty(),
        "not part of the project's layout, at {}: {strays:?} (remove them, or add a new part \
         of the layout to EXPECTED in tests/it/layout.rs)",
        root.display()
    );
}

/// One test crate links the library once: a new file of tests is a module of `tests/it`, not
/// a crate of its own (every `tests/*.rs` and `tests/*/main.rs` is one).
#[test]
fn the_integration_tests_are_one_crate() {
    let tests = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let crates: BTreeSet<String> = std::fs::read_dir(&tests)
        .expect("read tests/")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "rs") || p.join("main.rs").is_file())
        .map(|p| {
            p.file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    assert_eq!(
        crates,
        BTreeSet::from(["it".to_string()]),
        "test crates under tests/ (make each a module of tests/it instead)"
    );
}
