//! The command line mapped to a pipeline run (`crate::pipeline`), and its result rendered.

use std::io::Write;
use std::path::Path;

use crate::cli::{
    AuditArgs, Cli, ColorChoice, Command, CommonArgs, GlobalArgs, Output, SnapshotArgs, Validate,
    WhatifArgs,
};
use crate::cluster::{Contents, Live, Omission, context_namespace};
use crate::error::{EXIT_NO_FEASIBLE_NODE, Error};
use crate::pipeline::explain::{Explained, Several};
use crate::pipeline::whatif::{Ending, NothingToScale};
use crate::pipeline::{Options, audit, explain, whatif};
use crate::report::Note;
use crate::report::diff::WithDiff;
use crate::state::{SourceError, read_snapshot};

/// Runs the command; returns the process exit code for successful runs.
/// The answer goes to `out`; `warn` (standard error) gets what a user must not miss while
/// `out` goes to a file or a pipe.
pub fn run(cli: Cli, out: &mut dyn Write, warn: &mut dyn Write) -> Result<u8, Error> {
    match cli.command {
        Command::Explain(args) => {
            let target = explain_target(args.pod.as_deref(), args.selector)?;
            let options = options(&args.common, &cli.global)?;
            let explained = match &target {
                Target::Pod(name) => explain::explain(&options, name)?,
                Target::Several(several) => match explain::explain_several(&options, several) {
                    // kubectl's answer to a selector that selects nothing: not an error.
                    Err(e @ Error::NoPods { .. }) => {
                        writeln!(warn, "{e}")?;
                        return Ok(0);
                    }
                    other => other?,
                },
            };
            let code = render_explanation(&explained.output, &args.common, out);
            explained.exit_without_freeing();
            code
        }
        Command::Whatif(args) => whatif(&args, &cli.global, out, warn),
        Command::Completion(args) => {
            let mut cmd = <Cli as clap::CommandFactory>::command();
            clap_complete::generate(args.shell, &mut cmd, "kubectl-affinity", out);
            Ok(0)
        }
        Command::Complete(args) => complete(&args.words, out),
        Command::Snapshot(args) => snapshot(&args, &cli.global, out, warn),
        Command::Audit(args) => audit(&args, &cli.global, out),
    }
}

/// Answers kubectl's plugin completion. Failing to read the cluster is not an error for the
/// user's shell: it gets the `Error` directive and no candidates.
fn complete(words: &[String], out: &mut dyn Write) -> Result<u8, Error> {
    use crate::complete::{Candidate, Want, answer, directive, plan};
    let plan = plan(&crate::complete::built(), words);
    let names = match &plan.want {
        Want::Fixed(c) => Some(c.clone()),
        Want::Files | Want::Nothing => Some(Vec::new()),
        Want::Nodes | Want::Namespaces | Want::Pods { .. } => {
            completion_names(&plan).ok().map(|names| {
                names
                    .into_iter()
                    .map(|value| Candidate {
                        value,
                        description: String::new(),
                    })
                    .collect()
            })
        }
    };
    let dir = match plan.want {
        Want::Files => directive::DEFAULT,
        _ => directive::NO_FILE_COMP,
    };
    let text = match names {
        Some(c) => answer(&plan, &c, dir),
        None => answer(&plan, &[], directive::ERROR),
    };
    out.write_all(text.as_bytes())?;
    Ok(0)
}

/// Names for completion, from the `--snapshot` on the line, else from the cluster the line's
/// kubeconfig flags name (only the one list needed, never the whole cluster).
fn completion_names(plan: &crate::complete::Plan) -> Result<Vec<String>, Error> {
    use crate::cluster::Names;
    use crate::complete::Want;
    if let Some(path) = &plan.snapshot {
        let state = read_snapshot(Path::new(path))?;
        let mut v: Vec<String> = match &plan.want {
            Want::Nodes => state.nodes().iter().map(|n| n.name.clone()).collect(),
            Want::Namespaces => match state.namespaces() {
                Some(ns) => ns.keys().cloned().collect(),
                None => state
                    .all_pods()
                    .map(|p| p.id.namespace.to_string())
                    .collect(),
            },
            Want::Pods { namespace } => {
                let ns = match namespace {
                    Some(ns) => ns.clone(),
                    None => context_namespace(&completion_kube_args(plan)?)
                        .unwrap_or_else(|| "default".to_string()),
                };
                state
                    .all_pods()
                    .filter(|p| *p.id.namespace == *ns)
                    .map(|p| p.id.name.to_string())
                    .collect()
            }
            _ => Vec::new(),
        };
        v.sort();
        v.dedup();
        return Ok(v);
    }
    let live = Live::connect(&completion_kube_args(plan)?)?;
    let names = match &plan.want {
        Want::Nodes => live.names(Names::Nodes)?,
        Want::Namespaces => live.names(Names::Namespaces)?,
        Want::Pods { namespace } => {
            let ns = namespace
                .clone()
                .unwrap_or_else(|| live.default_namespace.clone());
            live.names(Names::Pods(&ns))?
        }
        _ => Vec::new(),
    };
    Ok(names)
}

/// The kubeconfig flags typed on the line being completed (other flags left aside).
fn completion_kube_args(plan: &crate::complete::Plan) -> Result<crate::cluster::KubeArgs, Error> {
    #[derive(clap::Parser)]
    struct Only {
        #[command(flatten)]
        kube: crate::cluster::KubeArgs,
    }
    let known = <Only as clap::CommandFactory>::command();
    let mut argv = vec!["kubectl-affinity".to_string()];
    for (flag, value) in &plan.flags {
        if known.get_arguments().any(|a| a.get_long() == Some(flag)) {
            argv.push(format!("--{flag}={value}"));
        }
    }
    <Only as clap::Parser>::try_parse_from(&argv)
        .map(|o| o.kube)
        .map_err(|e| Error::Usage(e.to_string()))
}

/// `kubectl affinity snapshot`: the live cluster, in the format `--snapshot` reads.
fn snapshot(
    args: &SnapshotArgs,
    global: &GlobalArgs,
    out: &mut dyn Write,
    warn: &mut dyn Write,
) -> Result<u8, Error> {
    // Flags are global (kubectl's way), but a snapshot is of every namespace: the rules read
    // pods of all of them. Ignoring -n would leave the user believing the file holds only
    // theirs.
    if let Some(ns) = &global.namespace {
        return Err(Error::Usage(format!(
            "snapshot saves every namespace (scheduling rules read pods of all of them), so \
             -n/--namespace {ns} does not apply; run it without -n"
        )));
    }
    let live = Live::connect(&global.kube)?;
    let contents = if args.full {
        crate::render::full_snapshot_warning(warn)?;
        Contents::Full
    } else {
        Contents::Scheduling
    };
    // Nothing is written until every list has been read: a list that fails leaves no partial
    // document (which would read as a smaller cluster), and a file given as it was.
    let mut document = Vec::new();
    let notes = write_snapshot(&live, &mut document, contents)?;
    match args.output.as_deref().filter(|p| p.as_os_str() != "-") {
        None => out.write_all(&document)?,
        Some(path) => {
            if let Err(source) = std::fs::write(path, &document) {
                let _ = std::fs::remove_file(path);
                return Err(SourceError::Io {
                    path: path.display().to_string(),
                    source,
                }
                .into());
            }
        }
    }
    // The file says what it lacks at its end; a user (or script) reading the terminal learns
    // it here. Still a usable snapshot: exit 0, as the README says.
    crate::render::snapshot_warnings(warn, &notes)?;
    Ok(0)
}

/// The snapshot, then what it left out as comments; returns those notes.
fn write_snapshot(
    live: &Live,
    out: &mut dyn Write,
    contents: Contents,
) -> Result<Vec<Note>, Error> {
    let omitted = live.write_snapshot(out, contents)?;
    let notes: Vec<Note> = omitted
        .into_iter()
        .map(|o| match o {
            Omission::Namespaces(r) => Note::SnapshotWithoutNamespaces(r.into()),
            Omission::Workloads(r) => Note::SnapshotWithoutWorkloads(r.into()),
            Omission::PreemptionObjects(r) => Note::SnapshotWithoutPreemptionObjects(r.into()),
            Omission::Storage(r) => Note::SnapshotWithoutStorage(r.into()),
            Omission::Dra(r) => Note::SnapshotWithoutDra(r.into()),
            Omission::Admission(r) => Note::SnapshotWithoutAdmissionObjects(r.into()),
            Omission::Events(r) => Note::SnapshotWithoutEvents(r.into()),
        })
        .collect();
    crate::render::snapshot_notes(out, &notes)?;
    Ok(notes)
}

/// What every run is given, from the flags: the edits are parsed first, so that a malformed
/// one fails before anything is read.
fn options(common: &CommonArgs, global: &GlobalArgs) -> Result<Options, Error> {
    Ok(Options {
        edits: edits(&common.edits)?,
        diff: common.edits.diff,
        snapshot: common.snapshot.clone(),
        kube: global.kube.clone(),
        namespace: global.namespace.clone(),
        scheduler_config: common.scheduler_config.clone(),
        feature_gates: common.feature_gates.clone(),
        kubernetes_version: common.kubernetes_version,
        nodes: common.nodes.clone(),
    })
}

/// What `explain` is asked about.
#[derive(Debug)]
enum Target {
    Pod(String),
    Several(Several),
}

/// `NAME`, `pod/NAME`, a workload (`deploy/NAME`, ...), or `-l SELECTOR`, with kubectl's
/// resource names and short names.
fn explain_target(pod: Option<&str>, selector: Option<String>) -> Result<Target, Error> {
    if let Some(text) = selector {
        let selector = crate::state::parse_selector_flag(&text)
            .map_err(|e| Error::Usage(format!("-l/--selector {text:?}: {e}")))?;
        return Ok(Target::Several(Several::Selector { text, selector }));
    }
    let target = pod.unwrap_or_default();
    let Some((resource, name)) = target.split_once('/') else {
        return Ok(Target::Pod(target.to_string()));
    };
    let kind = match resource {
        "pod" | "pods" | "po" => return Ok(Target::Pod(name.to_string())),
        "deploy" | "deployment" | "deployments" => "Deployment",
        "rs" | "replicaset" | "replicasets" => "ReplicaSet",
        "sts" | "statefulset" | "statefulsets" => "StatefulSet",
        "ds" | "daemonset" | "daemonsets" => "DaemonSet",
        "job" | "jobs" => "Job",
        other => {
            return Err(Error::Usage(format!(
                "explain takes a pod (NAME or pod/NAME) or a workload's pods (deploy/NAME, \
                 rs/NAME, sts/NAME, ds/NAME, job/NAME), not {other:?}; for another set of \
                 pods pass -l SELECTOR"
            )));
        }
    };
    Ok(Target::Several(Several::Workload {
        kind,
        name: name.to_string(),
    }))
}

/// The edits the flags ask for, in the order they are applied (see `EditArgs`).
fn edits(args: &crate::cli::EditArgs) -> Result<Vec<crate::state::edits::Edit>, Error> {
    use crate::state::edits::{Edit, parse_label, parse_pod, parse_taint};
    let usage = |e: crate::state::edits::EditError| Error::Usage(e.to_string());
    if args.add_node.len() != args.like.len() {
        return Err(Error::Usage(
            "each --add-node NAME needs its --like NODE (the node it copies)".to_string(),
        ));
    }
    let mut edits: Vec<Edit> = args
        .add_node
        .iter()
        .zip(&args.like)
        .map(|(name, like)| Edit::AddNode {
            name: name.clone(),
            like: like.clone(),
        })
        .collect();
    edits.extend(args.cordon.iter().cloned().map(Edit::Cordon));
    edits.extend(args.uncordon.iter().cloned().map(Edit::Uncordon));
    for pair in args.label.chunks(2) {
        if let [node, spec] = pair {
            edits.push(parse_label(node, spec).map_err(usage)?);
        }
    }
    for pair in args.taint.chunks(2) {
        if let [node, spec] = pair {
            edits.push(parse_taint(node, spec).map_err(usage)?);
        }
    }
    for pod in &args.remove_pod {
        edits.push(parse_pod(pod).map_err(usage)?);
    }
    if args.diff && edits.is_empty() {
        return Err(Error::Usage(
            "--diff shows what edits change: give --cordon, --uncordon, --label, --taint, \
             --remove-pod or --add-node"
                .to_string(),
        ));
    }
    Ok(edits)
}

/// `kubectl affinity whatif`: each explanation rendered as the run gives it out.
fn whatif(
    args: &WhatifArgs,
    global: &GlobalArgs,
    out: &mut dyn Write,
    warn: &mut dyn Write,
) -> Result<u8, Error> {
    let common = &args.common;
    let options = options(common, global)?;
    let request = whatif::Request {
        files: args.file.clone(),
        recursive: args.recursive,
        validate: match args.validate {
            Validate::Strict => whatif::Validate::Strict,
            Validate::Warn => whatif::Validate::Warn,
            Validate::Ignore => whatif::Validate::Ignore,
        },
        scale: args.scale.clone(),
        replicas: args.replicas,
        replica: args.replica,
        seed: args.seed,
        server_dry_run: args.server_dry_run,
        admission_plugins: crate::state::admission::Plugins::new(
            &args.enable_admission_plugins,
            &args.disable_admission_plugins,
        )
        .map_err(Error::Usage)?,
    };
    let mut code = 0;
    let ran = whatif::whatif(&options, &request, &mut |explained| {
        code = code.max(render_explanation(&explained, common, out)?);
        Ok(())
    })?;
    let code = match &ran.output {
        Ending::Evaluated => code,
        Ending::NothingToScale(nothing) => nothing_to_scale(nothing, common, out, warn)?,
    };
    ran.exit_without_freeing();
    Ok(code)
}

/// `--scale` to no more pods than the workload has: said plainly (on standard error when
/// the output is JSON or YAML, which then stays empty), exit 0.
fn nothing_to_scale(
    nothing: &NothingToScale,
    common: &CommonArgs,
    out: &mut dyn Write,
    warn: &mut dyn Write,
) -> Result<u8, Error> {
    let to: &mut dyn Write = match common.output {
        Output::Json | Output::Yaml => warn,
        Output::Table | Output::Wide => out,
    };
    let NothingToScale {
        target,
        namespace,
        current,
    } = nothing;
    writeln!(
        to,
        "{target} in namespace {namespace} has {current} pod(s); scaling it to {} adds none: \
         nothing to schedule (scale-down is not simulated)",
        target.replicas
    )?;
    Ok(0)
}

/// `kubectl affinity audit`: every Pending pod of the scope evaluated once, every bound pod
/// checked against its own node.
fn audit(args: &AuditArgs, global: &GlobalArgs, out: &mut dyn Write) -> Result<u8, Error> {
    let common = &args.common;
    if !common.nodes.is_empty() || common.all_nodes {
        return Err(Error::Usage(
            "--node and --all-nodes choose the nodes of one pod's explanation; audit lists \
             pods, not nodes: run explain POD --node NAME for a node's every rule"
                .to_string(),
        ));
    }
    let request = audit::Request {
        all_namespaces: args.all_namespaces,
        pending: args.pending,
        violating: args.violating,
    };
    let audited = audit::audit(&options(common, global)?, &request)?;
    let (doc, diff) = (&audited.output.doc, &audited.output.diff);
    match (common.output, diff) {
        (Output::Json, Some(diff)) => crate::render::json_of(out, &WithDiff { doc, diff })?,
        (Output::Yaml, Some(diff)) => crate::render::yaml_of(out, &WithDiff { doc, diff })?,
        (Output::Json, None) => crate::render::audit_json(out, doc)?,
        (Output::Yaml, None) => crate::render::audit_yaml(out, doc)?,
        (Output::Table | Output::Wide, _) => {
            let opts = crate::render::AuditOptions {
                no_headers: common.no_headers,
                wide: common.output == Output::Wide,
            };
            crate::render::audit_table(out, doc, opts)?;
            if let Some(diff) = diff {
                crate::render::audit_diff(out, diff)?;
            }
        }
    }
    let code = if common.exit_code && doc.anything_found() {
        EXIT_NO_FEASIBLE_NODE as u8
    } else {
        0
    };
    audited.exit_without_freeing();
    Ok(code)
}

/// An explanation in the format asked for, with what the edits change after it (`--diff`);
/// returns the exit code.
fn render_explanation(
    explained: &Explained,
    common: &CommonArgs,
    out: &mut dyn Write,
) -> Result<u8, Error> {
    let doc = &explained.doc;
    match (common.output, &explained.diff) {
        (Output::Json, Some(diff)) => crate::render::json_of(out, &WithDiff { doc, diff })?,
        (Output::Yaml, Some(diff)) => crate::render::yaml_of(out, &WithDiff { doc, diff })?,
        (Output::Json, None) => crate::render::json(out, doc)?,
        (Output::Yaml, None) => crate::render::yaml(out, doc)?,
        (Output::Table | Output::Wide, diff) => {
            use std::io::IsTerminal;
            let terminal = std::io::stdout().is_terminal();
            let color = match common.color {
                ColorChoice::Always => true,
                ColorChoice::Never => false,
                ColorChoice::Auto => {
                    terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                }
            };
            let opts = crate::render::TableOptions {
                color,
                nodes: common.nodes.clone(),
                no_headers: common.no_headers,
                wide: common.output == Output::Wide,
                all_nodes: common.all_nodes,
                width: match (terminal, common.output) {
                    (true, _) | (false, Output::Wide) => None,
                    (false, _) => Some(80),
                },
            };
            crate::render::table(out, doc, &opts)?;
            if let Some(diff) = diff {
                crate::render::explanation_diff(out, diff)?;
            }
        }
    }
    // `--exit-code`: 3 when no node can take the pod, or a replica (or DaemonSet pod) stays
    // Pending.
    let none_feasible = doc.summary.feasible == 0 && doc.summary.unknown == 0;
    let some_pending = doc.workload.as_ref().is_some_and(|w| w.pending > 0)
        || (doc.daemon_set.as_ref()).is_some_and(|d| !d.pending.is_empty());
    Ok(if common.exit_code && (none_feasible || some_pending) {
        EXIT_NO_FEASIBLE_NODE as u8
    } else {
        0
    })
}
