//! Support shared by the test modules: the command line run in this process or through the
//! binary, the oracle corpus, the differential corpus, and the test kit's fake API server,
//! cluster generator and protobuf encoder.

pub mod envtest;
pub mod oracle;
pub mod oracle_diff;
pub mod replicas;

use std::ffi::{OsStr, OsString};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Output};

use clap::Parser;
use kubectl_affinity::app;
use kubectl_affinity::cli::Cli;
pub use kubectl_affinity_testkit::{cluster_gen, fake_api, pb_encode};

/// The kubeconfig the binary is given by [`kubectl_affinity`]: none there.
const NO_KUBECONFIG: &str = "/nonexistent/kubeconfig";

/// The environment variable that overrides the largest input read.
const INPUT_LIMIT_ENV: &str = "KUBECTL_AFFINITY_MAX_INPUT_BYTES";

/// The binary, hermetic: run from the package's root, without colour, with no kubeconfig of
/// the machine's user (its context namespace would apply), not as if inside a cluster, and
/// with the default input limit.
pub fn kubectl_affinity() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_kubectl-affinity"));
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .env("KUBECONFIG", NO_KUBECONFIG)
        .env_remove("KUBERNETES_SERVICE_HOST")
        .env_remove(INPUT_LIMIT_ENV);
    cmd
}

/// Runs a command line (the words after the program's name) and returns what
/// [`kubectl_affinity`]`().args(args).output()` would: exit code, standard output, standard
/// error. In this process, through the binary's own entry (`app::run`, then what `main` adds:
/// `error: ` and the error's exit code), where that answers byte for byte as the binary; the
/// relative paths of `args` are then read from this process's directory, which `cargo test`
/// makes the package's root, as the binary's. [`in_process`] says where it would not.
pub fn run<S: AsRef<OsStr>>(args: &[S]) -> Output {
    let args: Vec<OsString> = args.iter().map(|a| a.as_ref().to_owned()).collect();
    let Some(cli) = in_process(&args) else {
        return kubectl_affinity()
            .args(&args)
            .output()
            .expect("run the binary");
    };
    let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
    let code = match app::run(cli, &mut stdout, &mut stderr) {
        Ok(code) => code,
        // `main` ends quietly when the reader of its output has gone; memory never goes.
        Err(err) => {
            writeln!(stderr, "error: {err}").expect("write to memory");
            err.exit_code() as u8
        }
    };
    Output {
        status: exit_status(code),
        stdout,
        stderr,
    }
}

/// The command line as the binary parses it, when a run in this process answers as the
/// binary's would; `None` for those that need the binary:
/// - without `--snapshot`, or to complete words: a live run reads the kubeconfig, in-cluster
///   settings and home directory of the environment, which [`kubectl_affinity`] sets for the
///   binary alone;
/// - reading standard input (`-`), which the binary gets empty;
/// - a table (or an unparsed format) while this process's standard output is a terminal: the
///   table takes its width and colour from it, the binary's output is a pipe;
/// - with `KUBECTL_AFFINITY_MAX_INPUT_BYTES` set here, which the binary is run without;
/// - a command line clap refuses, or `--help` and `--version`: clap prints and ends the
///   process.
///
/// Offline, a kubeconfig only names the namespace a pod gets by default: a line that names
/// none gets the binary's, which does not exist.
fn in_process(args: &[OsString]) -> Option<Cli> {
    let words: Vec<&str> = args.iter().map(|a| a.to_str()).collect::<Option<_>>()?;
    let given = |flag: &str| {
        words
            .iter()
            .any(|w| *w == flag || w.strip_prefix(flag).is_some_and(|v| v.starts_with('=')))
    };
    let offline = given("--snapshot") && words.first() != Some(&"__complete");
    let stdin = words.iter().any(|w| *w == "-" || w.ends_with("=-"));
    let terminal =
        std::io::stdout().is_terminal() && !matches!(output_format(&words), Some("json" | "yaml"));
    if !offline || stdin || terminal || std::env::var_os(INPUT_LIMIT_ENV).is_some() {
        return None;
    }
    let mut line = vec!["kubectl-affinity"];
    if !given("--kubeconfig") {
        line.extend(["--kubeconfig", NO_KUBECONFIG]);
    }
    line.extend(words);
    Cli::try_parse_from(line).ok()
}

/// Runs a command line through the binary and fails unless it answers as `here`, the run of
/// the same line by [`run`], did.
pub fn assert_binary_agrees<S: AsRef<OsStr>>(args: &[S], here: &Output) {
    let binary = kubectl_affinity()
        .args(args)
        .output()
        .expect("run the binary");
    let text = |out: &Output| {
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let line: Vec<_> = args.iter().map(|a| a.as_ref().to_string_lossy()).collect();
    assert_eq!(
        text(&binary),
        text(here),
        "the binary (left) and a run in this process (right) differ on `{}`",
        line.join(" ")
    );
}

/// The value of the last `-o`/`--output` of a command line.
fn output_format<'a>(words: &[&'a str]) -> Option<&'a str> {
    let mut format = None;
    let mut words = words.iter();
    while let Some(w) = words.next() {
        if *w == "-o" || *w == "--output" {
            format = words.next().copied();
        } else if let Some(v) = w
            .strip_prefix("--output=")
            .or_else(|| w.strip_prefix("-o").filter(|v| !v.is_empty()))
        {
            format = Some(v);
        }
    }
    format
}

#[cfg(unix)]
fn exit_status(code: u8) -> ExitStatus {
    std::os::unix::process::ExitStatusExt::from_raw(i32::from(code) << 8)
}

#[cfg(windows)]
fn exit_status(code: u8) -> ExitStatus {
    std::os::windows::process::ExitStatusExt::from_raw(u32::from(code))
}

/// The command lines of the demo a user types most, and each way the binary ends: run here,
/// each answers byte for byte as the binary does.
#[test]
fn runs_in_this_process_answer_as_the_binary() {
    const DEMO: [&str; 2] = ["--snapshot", "examples/cluster.yaml"];
    let lines: &[&[&str]] = &[
        &[
            "explain",
            "pending-gpu",
            "-n",
            "default",
            "--node",
            "gpu-c-1",
        ],
        &["explain", "api-7d9c", "-n", "default", "-o", "json"],
        &["whatif", "-f", "examples/web-store.yaml", "-o", "wide"],
        &["whatif", "-f", "examples/redis-cache.yaml", "-oyaml"],
        &[
            "whatif",
            "-f",
            "examples/fluentd-daemonset.yaml",
            "--output=json",
        ],
        &["audit", "-A"],
        // The namespace the kubeconfig names when -n does not: there is none.
        &["explain", "pending-gpu", "--exit-code", "--no-headers"],
        &[
            "--kubeconfig",
            "/nonexistent/other",
            "explain",
            "pending-gpu",
        ],
        // Errors: a pod not there (1), a namespace the manifest contradicts (2).
        &["explain", "nope", "-n", "default"],
        &["whatif", "-f", "examples/web-store.yaml", "-n", "default"],
    ];
    let terminal = std::io::stdout().is_terminal();
    let mut not_here = Vec::new();
    for line in lines {
        let args: Vec<OsString> = line.iter().chain(&DEMO).map(OsString::from).collect();
        if in_process(&args).is_none() {
            assert!(terminal, "{line:?} does not run in this process");
            not_here.push(line.join(" "));
        }
        assert_binary_agrees(&args, &run(&args));
    }
    if !not_here.is_empty() {
        // Written past the test harness's capture, which hides a passing test's output.
        let _ = writeln!(
            std::io::stderr(),
            "note: standard output is a terminal, so these ran through the binary and were \
             not compared with a run in this process: {}",
            not_here.join("; ")
        );
    }
    // What must go through the binary.
    for line in [
        &["explain", "pending-gpu", "-n", "default"][..],
        &[
            "whatif",
            "-f",
            "-",
            "--snapshot",
            "examples/cluster.yaml",
            "-o",
            "json",
        ],
        &[
            "__complete",
            "explain",
            "--snapshot",
            "examples/cluster.yaml",
            "",
        ],
        &["explain", "--help", "--snapshot", "examples/cluster.yaml"],
        &[
            "explain",
            "pending-gpu",
            "--snapshot",
            "examples/cluster.yaml",
            "--bad",
        ],
    ] {
        let args: Vec<OsString> = line.iter().map(OsString::from).collect();
        assert!(in_process(&args).is_none(), "{line:?}");
    }
}

/// Writes `text` to `dir/name`, for a test's input file; its path.
pub fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write a test input");
    path
}

/// The explanation of node `name` in a JSON answer's `nodes`.
pub fn node<'a>(doc: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    doc["nodes"]
        .as_array()
        .and_then(|l| l.iter().find(|n| n["name"] == name))
        .unwrap_or_else(|| panic!("node {name} missing"))
}

/// Fails when any case disagrees (`bad`, from [`differing_cases`]), saying how many of
/// `total` do (`what`: "cases disagree with kube-scheduler"), how many cases show each class
/// of difference (`class`), and the first 40 cases with each difference a line (`line`).
pub fn assert_all_agree<D>(
    bad: &[(String, Vec<D>)],
    total: usize,
    what: &str,
    class: impl Fn(&D) -> &str,
    line: impl Fn(&D) -> String,
) {
    let mut classes: std::collections::BTreeMap<&str, usize> = Default::default();
    for (_, diffs) in bad {
        let seen: std::collections::BTreeSet<&str> = diffs.iter().map(&class).collect();
        for c in seen {
            *classes.entry(c).or_default() += 1;
        }
    }
    let shown: Vec<String> = bad
        .iter()
        .take(40)
        .map(|(case, diffs)| {
            let lines: Vec<String> = diffs.iter().map(|d| format!("    - {}", line(d))).collect();
            format!("{case}\n{}", lines.join("\n"))
        })
        .collect();
    assert!(
        bad.is_empty(),
        "{} of {total} {what}; by class: {classes:?}\n{}",
        bad.len(),
        shown.join("\n")
    );
}

/// Each case's differences on all cores, in order, keeping the cases that have any; `name`
/// says which case. The corpora share it: each runs hundreds of cases in this process.
pub fn differing_cases<D: Send>(
    cases: &[PathBuf],
    check: impl Fn(&PathBuf) -> Vec<D> + Sync,
    name: impl Fn(&PathBuf) -> String + Sync,
) -> Vec<(String, Vec<D>)> {
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    let chunk = cases.len().div_ceil(workers).max(1);
    let (check, name) = (&check, &name);
    std::thread::scope(|scope| {
        let handles: Vec<_> = cases
            .chunks(chunk)
            .map(|part| {
                scope.spawn(move || {
                    part.iter()
                        .map(|case| (case, check(case)))
                        .filter(|(_, diffs)| !diffs.is_empty())
                        .map(|(case, diffs)| (name(case), diffs))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a worker panicked"))
            .collect()
    })
}
