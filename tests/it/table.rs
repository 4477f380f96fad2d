//! The table and the drill-down a new user reads, end to end through the command line (run
//! in this process as the binary runs it): a node's value said as the node's, topology spread
//! in its own column, and the line that says which rule rejects most nodes and why.

use serde_json::Value;

use crate::support;

fn run(args: &[&str]) -> String {
    let mut line = args.to_vec();
    line.extend(["--snapshot", "examples/cluster.yaml"]);
    let out = support::run(&line);
    assert!(
        out.status.code().is_some_and(|c| c == 0 || c == 3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

/// The table row of a node (its first line).
fn row<'a>(page: &'a str, node: &str) -> &'a str {
    page.lines()
        .find(|l| l.starts_with(&format!(" {node} ")) || l.starts_with(&format!(" {node}* ")))
        .unwrap_or_else(|| panic!("no row for {node}:\n{page}"))
}

/// The header row of the node table.
fn head(page: &str) -> &str {
    page.lines()
        .find(|l| l.starts_with(" NODE "))
        .unwrap_or_else(|| panic!("no header:\n{page}"))
}

/// Item 9: `✗ zone=eu-west-1c` read like the requirement; the node's value is said as the
/// node's, in the table's cell and in the drill-down alike.
#[test]
fn a_nodes_value_is_said_as_the_nodes() {
    let page = run(&[
        "explain",
        "api-7d9c",
        "-n",
        "default",
        "-o",
        "wide",
        "--node",
        "worker-c-1",
    ]);
    assert!(
        row(&page, "worker-c-1").contains("✗ node has zone=eu-west-1c "),
        "{page}"
    );
    assert!(
        page.contains(
            "✗ topology.kubernetes.io/zone In [eu-west-1a,eu-west-1b]  \
             node has topology.kubernetes.io/zone=eu-west-1c"
        ),
        "{page}"
    );
    assert!(!page.contains("  node: "), "{page}");

    // A label the node lacks.
    let page = run(&[
        "explain",
        "pending-gpu",
        "-n",
        "default",
        "-o",
        "wide",
        "--node",
        "worker-a-1",
    ]);
    assert!(
        row(&page, "worker-a-1").contains("✗ node has no gpu "),
        "{page}"
    );
    assert!(
        page.contains("✗ gpu In [true]  node has no gpu\n"),
        "{page}"
    );
}

/// Item 9: topology spread hid under OTHER; it has its own column, with the skew, when the
/// pod's constraints (or the default ones) apply, and no column when nothing spreads the pod.
#[test]
fn topology_spread_has_its_own_column() {
    let page = run(&[
        "explain",
        "checkout-6b9d4c7f58-x2v9k",
        "-n",
        "shop",
        "-o",
        "wide",
    ]);
    let columns: Vec<&str> = head(&page).split_whitespace().collect();
    let spread = columns.iter().position(|c| *c == "SPREAD");
    let other = columns.iter().position(|c| *c == "OTHER");
    assert!(spread.is_some() && spread < other, "{page}");
    let worker = row(&page, "worker-a-1");
    assert!(worker.contains("✗ skew 2>1 in zone=eu-west-1a "), "{page}");

    // The narrow table: the column is there, and OTHER no longer says it.
    let page = run(&["explain", "checkout-6b9d4c7f58-x2v9k", "-n", "shop"]);
    assert!(head(&page).contains(" SPREAD "), "{page}");
    let worker = row(&page, "worker-b-1");
    assert!(worker.contains("✗ skew 2>1"), "{page}");
    assert!(!worker.contains("spread"), "{page}");

    // Only the default constraints (ScheduleAnyway): they score, so the column says what
    // the node's domain holds, without a mark.
    let page = run(&[
        "explain",
        "web-store-5b8c7f9d6f-2ltqz",
        "-n",
        "shop",
        "-o",
        "wide",
    ]);
    assert!(
        row(&page, "worker-a-1").contains(" soft: 0 here "),
        "{page}"
    );

    // Nothing spreads the pod: no column in the narrow table, and the line below says so.
    let page = run(&["explain", "pending-gpu", "-n", "default"]);
    assert!(!head(&page).contains("SPREAD"), "{page}");
    assert!(
        page.contains("(no rules of the pod for POD-AFF, ANTI, SPREAD;"),
        "{page}"
    );
}

/// Item 10: `Feasible: 0 of 7` said nothing about why; the next line says which rule rejects
/// most nodes (as FailedScheduling counts them) and what in the cluster makes it: for the
/// README's first command, the three running web-store replicas.
#[test]
fn the_rule_that_rejects_most_nodes_is_said_after_the_count() {
    let page = run(&["whatif", "-f", "examples/web-store.yaml"]);
    let lines: Vec<&str> = page.lines().collect();
    let at = lines
        .iter()
        .position(|l| *l == "Feasible: 0 of 7 nodes")
        .unwrap_or_else(|| panic!("{page}"));
    let why = lines[at + 1];
    assert!(
        why.starts_with(
            "Most rejected: 3 of 7 nodes by InterPodAffinity (node(s) didn't match pod \
             anti-affinity rules): the pod's required anti-affinity matches pods already on \
             them: "
        ),
        "{page}"
    );
    for pod in ["2ltqz", "hx6nc", "wq8jp"] {
        assert!(
            why.contains(&format!("shop/web-store-5b8c7f9d6f-{pod}")),
            "{page}"
        );
    }

    // The document carries it as data.
    let doc: Value = serde_json::from_str(&run(&[
        "whatif",
        "-f",
        "examples/web-store.yaml",
        "-o",
        "json",
    ]))
    .expect("json");
    let most = &doc["summary"]["rejectedMost"];
    assert_eq!(most["plugin"], "InterPodAffinity", "{most}");
    assert_eq!(most["nodes"], 3, "{most}");
    assert_eq!(most["of"], 7, "{most}");
    assert_eq!(most["cause"]["kind"], "AntiAffinityPods", "{most}");
    assert_eq!(
        most["cause"]["topologyKey"], "kubernetes.io/hostname",
        "{most}"
    );
    assert_eq!(
        most["cause"]["pods"],
        serde_json::json!([
            "shop/web-store-5b8c7f9d6f-2ltqz",
            "shop/web-store-5b8c7f9d6f-hx6nc",
            "shop/web-store-5b8c7f9d6f-wq8jp"
        ]),
        "{most}"
    );

    // A label the pod requires and the nodes lack.
    let page = run(&["explain", "pending-gpu", "-n", "default"]);
    assert!(
        page.contains(
            "Feasible: 0 of 7 nodes\nMost rejected: 4 of 7 nodes by NodeAffinity (node(s) \
             didn't match Pod's node affinity/selector): 4 nodes have no gpu\n"
        ),
        "{page}"
    );

    // Three of seven nodes can take the pod: not "few", no such line.
    let page = run(&["explain", "api-7d9c", "-n", "default", "-o", "json"]);
    let doc: Value = serde_json::from_str(&page).expect("json");
    assert!(doc["summary"].get("rejectedMost").is_none(), "{page}");
}
