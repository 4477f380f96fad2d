//! Completion for `kubectl affinity <TAB>`: kubectl (1.26+) runs the executable
//! `kubectl_complete-affinity` with the words typed after `kubectl affinity`, the last being
//! the word to complete, and reads cobra's `__complete` answer: one candidate per line
//! (`value<TAB>description`), then `:<directive>`. The shim calls our hidden `__complete`
//! subcommand, and this module decides what to offer from the clap definition itself, so
//! subcommands and flags can never drift from the real CLI. Names of namespaces, pods and nodes
//! come from the cluster; deciding *which* of them is wanted is pure and lives here.

use clap::{Arg, Command};

/// Cobra's ShellCompDirective bits.
pub mod directive {
    /// Let the shell complete file names.
    pub const DEFAULT: u32 = 0;
    /// Something went wrong; the shell offers nothing.
    pub const ERROR: u32 = 1;
    /// Do not add a space after the completion (for `--flag=`).
    pub const NO_SPACE: u32 = 2;
    /// Do not fall back to file names.
    pub const NO_FILE_COMP: u32 = 4;
}

/// One candidate and what it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    pub value: String,
    pub description: String,
}

/// What the word being completed needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Want {
    /// Fixed candidates (subcommands, flags, enum values).
    Fixed(Vec<Candidate>),
    /// Namespace names from the cluster.
    Namespaces,
    /// Pod names in the namespace (`None`: the default namespace).
    Pods { namespace: Option<String> },
    /// Node names from the cluster.
    Nodes,
    /// A file name: the shell completes it.
    Files,
    /// Nothing to offer.
    Nothing,
}

/// The answer before cluster names are filled in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    pub want: Want,
    /// The part of the word candidates must start with.
    pub prefix: String,
    /// Put before each candidate (`--output=` when completing `--output=js`).
    pub lead: String,
    /// `--snapshot FILE` given on the line: names come from that file.
    pub snapshot: Option<String>,
    /// The flags of the cluster connection typed so far (`--context X`, `--kubeconfig F`...),
    /// as (long name, value), so names come from the cluster the command would use.
    pub flags: Vec<(String, String)>,
}

fn long_flags(cmd: &Command) -> impl Iterator<Item = &Arg> {
    cmd.get_arguments()
        .filter(|a| !a.is_positional() && !a.is_hide_set())
}

fn find_flag<'a>(cmd: &'a Command, word: &str) -> Option<&'a Arg> {
    if let Some(long) = word.strip_prefix("--") {
        let long = long.split_once('=').map(|(l, _)| l).unwrap_or(long);
        return cmd.get_arguments().find(|a| a.get_long() == Some(long));
    }
    let short = word.strip_prefix('-')?.chars().next()?;
    cmd.get_arguments().find(|a| a.get_short() == Some(short))
}

fn takes_value(arg: &Arg) -> bool {
    arg.get_action().takes_values()
}

fn help_line(arg: &Arg) -> String {
    arg.get_help()
        .map(|h| {
            let text = h.to_string();
            let first = text.split(['\n', '(']).next().unwrap_or_default();
            first
                .trim()
                .trim_end_matches('.')
                .trim_end_matches(':')
                .to_string()
        })
        .unwrap_or_default()
}

/// Values a flag takes, or what kind of name it wants.
fn values_for(arg: &Arg) -> Want {
    let id = arg.get_id().as_str();
    match id {
        "namespace" => return Want::Namespaces,
        "nodes" => return Want::Nodes,
        _ => {}
    }
    let possible = arg.get_possible_values();
    if !possible.is_empty() {
        return Want::Fixed(
            possible
                .iter()
                .filter(|v| !v.is_hide_set())
                .map(|v| Candidate {
                    value: v.get_name().to_string(),
                    description: v.get_help().map(|h| h.to_string()).unwrap_or_default(),
                })
                .collect(),
        );
    }
    match arg.get_value_hint() {
        clap::ValueHint::FilePath | clap::ValueHint::AnyPath | clap::ValueHint::Unknown
            if arg
                .get_value_names()
                .is_some_and(|n| n.iter().any(|n| n.as_str() == "FILE")) =>
        {
            Want::Files
        }
        _ => Want::Nothing,
    }
}

/// The CLI definition with its global flags (the kubeconfig flags, -n) copied into every
/// subcommand, as clap does when it parses: [`plan`] then finds them after the
/// subcommand as well as before it.
pub fn built() -> Command {
    let mut root = <crate::cli::Cli as clap::CommandFactory>::command();
    root.build();
    root
}

/// Decides what to offer for `words` (the words after `kubectl affinity`; the last one is
/// being completed, possibly empty) under the CLI definition `root`.
pub fn plan(root: &Command, words: &[String]) -> Plan {
    let (typed, current) = match words.split_last() {
        Some((last, rest)) => (rest, last.as_str()),
        None => (&[][..], ""),
    };
    let mut cmd = root;
    let mut sub: Option<&Command> = None;
    let mut snapshot = None;
    let mut namespace = None;
    let mut flags = Vec::new();
    let mut positionals = 0;
    let mut pending: Option<&Arg> = None;
    for w in typed {
        if let Some(arg) = pending.take() {
            note_value(arg, w, &mut snapshot, &mut namespace, &mut flags);
            continue;
        }
        if w == "--" {
            continue;
        }
        if w.starts_with('-') && w.len() > 1 {
            if let Some(arg) = find_flag(cmd, w) {
                if let Some((_, v)) = w.strip_prefix("--").and_then(|l| l.split_once('=')) {
                    note_value(arg, v, &mut snapshot, &mut namespace, &mut flags);
                } else if takes_value(arg) {
                    // `-nshop` carries its value.
                    let short_rest = w
                        .strip_prefix('-')
                        .filter(|r| !r.starts_with('-'))
                        .map(|r| &r[1..])
                        .filter(|r| !r.is_empty());
                    match short_rest {
                        Some(v) => note_value(arg, v, &mut snapshot, &mut namespace, &mut flags),
                        None => pending = Some(arg),
                    }
                }
            }
            continue;
        }
        if sub.is_none()
            && let Some(s) = root.find_subcommand(w)
        {
            sub = Some(s);
            cmd = s;
            continue;
        }
        positionals += 1;
    }
    let mut out = Plan {
        want: Want::Nothing,
        prefix: current.to_string(),
        lead: String::new(),
        snapshot,
        flags,
    };
    if let Some(arg) = pending {
        out.want = values_for(arg);
        return out;
    }
    if let Some(rest) = current.strip_prefix("--")
        && let Some((name, value)) = rest.split_once('=')
    {
        if let Some(arg) = cmd.get_arguments().find(|a| a.get_long() == Some(name)) {
            out.want = values_for(arg);
            out.lead = format!("--{name}=");
            out.prefix = value.to_string();
        }
        return out;
    }
    if current.starts_with('-') {
        let mut flags: Vec<Candidate> = long_flags(cmd)
            .filter_map(|a| {
                a.get_long().map(|l| Candidate {
                    value: format!("--{l}"),
                    description: help_line(a),
                })
            })
            .collect();
        if current.len() <= 2 && !current.starts_with("--") {
            flags.extend(long_flags(cmd).filter_map(|a| {
                a.get_short().map(|s| Candidate {
                    value: format!("-{s}"),
                    description: help_line(a),
                })
            }));
        }
        out.want = Want::Fixed(flags);
        return out;
    }
    out.want = match sub {
        None => Want::Fixed(
            root.get_subcommands()
                .filter(|s| !s.is_hide_set() && s.get_name() != "help")
                .map(|s| Candidate {
                    value: s.get_name().to_string(),
                    description: s
                        .get_about()
                        .map(|a| {
                            a.to_string()
                                .split(':')
                                .next()
                                .unwrap_or_default()
                                .trim_end_matches('.')
                                .to_string()
                        })
                        .unwrap_or_default(),
                })
                .collect(),
        ),
        Some(s) => match (s.get_name(), positionals) {
            ("explain", 0) => Want::Pods { namespace },
            ("completion", 0) => s
                .get_arguments()
                .find(|a| a.is_positional())
                .map(values_for)
                .unwrap_or(Want::Nothing),
            _ => Want::Nothing,
        },
    };
    out
}

fn note_value(
    arg: &Arg,
    value: &str,
    snapshot: &mut Option<String>,
    namespace: &mut Option<String>,
    flags: &mut Vec<(String, String)>,
) {
    match arg.get_id().as_str() {
        "snapshot" => *snapshot = Some(value.to_string()),
        "namespace" => *namespace = Some(value.to_string()),
        _ => {}
    }
    if let Some(long) = arg.get_long() {
        flags.push((long.to_string(), value.to_string()));
    }
}

/// Filters `candidates` by the plan's prefix and writes cobra's answer.
pub fn answer(plan: &Plan, candidates: &[Candidate], directive: u32) -> String {
    let mut out = String::new();
    for c in candidates
        .iter()
        .filter(|c| c.value.starts_with(&plan.prefix))
    {
        out.push_str(&plan.lead);
        out.push_str(&c.value);
        if !c.description.is_empty() {
            out.push('\t');
            out.push_str(&c.description);
        }
        out.push('\n');
    }
    out.push_str(&format!(":{directive}\n"));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan_for(words: &[&str]) -> Plan {
        let words: Vec<String> = words.iter().map(|w| w.to_string()).collect();
        plan(&built(), &words)
    }

    fn values(p: &Plan) -> Vec<String> {
        match &p.want {
            Want::Fixed(c) => c
                .iter()
                .filter(|c| c.value.starts_with(&p.prefix))
                .map(|c| c.value.clone())
                .collect(),
            other => panic!("expected fixed candidates, got {other:?}"),
        }
    }

    #[test]
    fn subcommands_without_hidden_ones() {
        let v = values(&plan_for(&[""]));
        assert!(v.contains(&"explain".to_string()));
        assert!(v.contains(&"whatif".to_string()));
        assert!(v.contains(&"completion".to_string()));
        assert!(!v.iter().any(|s| s.starts_with("__")));
        assert_eq!(values(&plan_for(&["wh"])), vec!["whatif"]);
    }

    #[test]
    fn output_values_in_both_forms() {
        assert_eq!(
            values(&plan_for(&["explain", "-o", ""])),
            vec!["table", "wide", "json", "yaml"]
        );
        let p = plan_for(&["explain", "--output=y"]);
        assert_eq!(p.lead, "--output=");
        assert_eq!(values(&p), vec!["yaml"]);
    }

    #[test]
    fn names_come_from_the_cluster() {
        let p = plan_for(&["explain", "-n", "shop", "--snapshot", "c.yaml", ""]);
        assert_eq!(
            p.want,
            Want::Pods {
                namespace: Some("shop".into())
            }
        );
        assert_eq!(p.snapshot.as_deref(), Some("c.yaml"));
        assert_eq!(plan_for(&["explain", "-n", ""]).want, Want::Namespaces);
        assert_eq!(plan_for(&["whatif", "--node", "w"]).want, Want::Nodes);
        assert_eq!(plan_for(&["whatif", "-f", ""]).want, Want::Files);
        // Once the pod is given, nothing more is positional.
        assert_eq!(plan_for(&["explain", "web", ""]).want, Want::Nothing);
    }

    #[test]
    fn flags_of_the_subcommand() {
        let v = values(&plan_for(&["whatif", "--sn"]));
        assert_eq!(v, vec!["--snapshot"]);
        let v = values(&plan_for(&["explain", "-"]));
        assert!(v.contains(&"-n".to_string()) && v.contains(&"--node".to_string()));
        let v = values(&plan_for(&["audit", "--"]));
        for flag in [
            "--all-namespaces",
            "--pending",
            "--violating",
            "--exit-code",
        ] {
            assert!(v.contains(&flag.to_string()), "{flag} in {v:?}");
        }
        assert_eq!(plan_for(&["audit", "-n", ""]).want, Want::Namespaces);
    }

    #[test]
    fn answer_format() {
        let p = plan_for(&["explain", "-o", "j"]);
        let Want::Fixed(c) = &p.want else {
            panic!("fixed")
        };
        assert_eq!(answer(&p, c, directive::NO_FILE_COMP), "json\n:4\n");
    }
}
