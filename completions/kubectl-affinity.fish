# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_kubectl_affinity_global_optspecs
    string join \n n/namespace= kubeconfig= context= cluster= user= as= as-group= request-timeout= insecure-skip-tls-verify tls-server-name= chunk-size= h/help V/version
end

function __fish_kubectl_affinity_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_kubectl_affinity_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_kubectl_affinity_using_subcommand
    set -l cmd (__fish_kubectl_affinity_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c kubectl-affinity -n "__fish_kubectl_affinity_needs_command" -s n -l namespace -d 'Namespace of the pod, for explain and whatif (default: the kubeconfig context\'s, else "default"; whatif: a manifest\'s own namespace, which -n must then match, as for kubectl apply). Not for snapshot, which saves every namespace' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_needs_command" -l kubeconfig -d 'Path to the kubeconfig file. Default: $KUBECONFIG (a list of files, merged as kubectl merges them), else ~/.kube/config, else the in-cluster service account' -r -F
complete -c kubectl-affinity -n "__fish_kubectl_affinity_needs_command" -l context -d 'The kubeconfig context to use (default: its current-context)' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_needs_command" -l cluster -d 'The kubeconfig cluster to use (default: the context\'s)' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_needs_command" -l user -d 'The kubeconfig user to use (default: the context\'s)' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_needs_command" -l as -d 'Username to impersonate for the requests' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_needs_command" -l as-group -d 'Group to impersonate (repeatable)' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_needs_command" -l request-timeout -d 'How long to wait for each request: a duration such as 500ms, 10s, 1m (a bare number is seconds); 0 waits forever' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_needs_command" -l tls-server-name -d 'Server name to check the API server\'s certificate against (default: the server\'s host)' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_needs_command" -l chunk-size -d 'Objects per page when listing (0: no paging), as kubectl\'s --chunk-size' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_needs_command" -l insecure-skip-tls-verify -d 'Do not verify the API server\'s certificate (insecure; for tests only)'
complete -c kubectl-affinity -n "__fish_kubectl_affinity_needs_command" -s h -l help -d 'Print help'
complete -c kubectl-affinity -n "__fish_kubectl_affinity_needs_command" -s V -l version -d 'Print version'
complete -c kubectl-affinity -n "__fish_kubectl_affinity_needs_command" -f -a "explain" -d 'Explain the placement of an existing pod: every node, every rule, the score'
complete -c kubectl-affinity -n "__fish_kubectl_affinity_needs_command" -f -a "whatif" -d 'Evaluate a pod manifest that is not created yet (a Pod or a workload\'s pod template)'
complete -c kubectl-affinity -n "__fish_kubectl_affinity_needs_command" -f -a "snapshot" -d 'Save the cluster\'s nodes, pods and namespaces in the file format --snapshot reads, to analyse offline, share in a bug report, or replay in tests'
complete -c kubectl-affinity -n "__fish_kubectl_affinity_needs_command" -f -a "completion" -d 'Print a shell completion script for kubectl-affinity (bash, zsh, fish or powershell)'
complete -c kubectl-affinity -n "__fish_kubectl_affinity_needs_command" -f -a "__complete" -d 'Answers kubectl\'s plugin completion (cobra\'s __complete protocol); called by the kubectl_complete-affinity shim'
complete -c kubectl-affinity -n "__fish_kubectl_affinity_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand explain" -l snapshot -d 'Read the cluster from a file written by `kubectl affinity snapshot` or `kubectl get nodes,pods,namespaces,services,replicasets,replicationcontrollers,statefulsets -A -o yaml` (or -o json) instead of the live cluster' -r -F
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand explain" -l scheduler-config -d 'A KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1); the profile whose schedulerName is the pod\'s is used. Default: kube-scheduler\'s default profile' -r -F
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand explain" -l feature-gates -d 'Feature gates as kube-scheduler takes them, e.g. TaintTolerationComparisonOperators=true (repeatable; later settings win)' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand explain" -s o -l output -d 'Output format' -r -f -a "table\t'Fits 80 columns: a column per rule kind and the total score'
wide\t'The table plus the score parts per plugin and the reason the scheduler records'
json\t''
yaml\t''"
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand explain" -l node -d 'Drill down into a node: every term and expression with the node\'s value, every taint, every pod term with its domain and pods, the score chain. Repeatable' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand explain" -l color -d 'Colour: auto (a terminal and NO_COLOR unset), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand explain" -s n -l namespace -d 'Namespace of the pod, for explain and whatif (default: the kubeconfig context\'s, else "default"; whatif: a manifest\'s own namespace, which -n must then match, as for kubectl apply). Not for snapshot, which saves every namespace' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand explain" -l kubeconfig -d 'Path to the kubeconfig file. Default: $KUBECONFIG (a list of files, merged as kubectl merges them), else ~/.kube/config, else the in-cluster service account' -r -F
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand explain" -l context -d 'The kubeconfig context to use (default: its current-context)' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand explain" -l cluster -d 'The kubeconfig cluster to use (default: the context\'s)' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand explain" -l user -d 'The kubeconfig user to use (default: the context\'s)' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand explain" -l as -d 'Username to impersonate for the requests' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand explain" -l as-group -d 'Group to impersonate (repeatable)' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand explain" -l request-timeout -d 'How long to wait for each request: a duration such as 500ms, 10s, 1m (a bare number is seconds); 0 waits forever' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand explain" -l tls-server-name -d 'Server name to check the API server\'s certificate against (default: the server\'s host)' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand explain" -l chunk-size -d 'Objects per page when listing (0: no paging), as kubectl\'s --chunk-size' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand explain" -l exit-code -d 'Exit with code 3 when no node can take the pod'
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand explain" -l no-headers -d 'Leave out the header lines and the column headers'
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand explain" -l all-nodes -d 'List every node, also on clusters of more than 50 nodes (where the table otherwise shows the best candidates and groups the rest by reason)'
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand explain" -l insecure-skip-tls-verify -d 'Do not verify the API server\'s certificate (insecure; for tests only)'
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand explain" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand explain" -s V -l version -d 'Print version'
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand whatif" -s f -l filename -d 'The manifest: a Pod, Deployment, ReplicaSet, StatefulSet, DaemonSet, Job, CronJob or PodTemplate ("-" reads standard input)' -r -F
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand whatif" -l validate -d 'Check the manifest\'s scheduling fields as the API server does: strict (or true) stops at a field the API server would reject (kubectl apply would fail); warn evaluates such a pod anyway, as the scheduler would read it, with a note per field; ignore (or false) evaluates it without those notes' -r -f -a "strict\t''
warn\t''
ignore\t''"
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand whatif" -l snapshot -d 'Read the cluster from a file written by `kubectl affinity snapshot` or `kubectl get nodes,pods,namespaces,services,replicasets,replicationcontrollers,statefulsets -A -o yaml` (or -o json) instead of the live cluster' -r -F
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand whatif" -l scheduler-config -d 'A KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1); the profile whose schedulerName is the pod\'s is used. Default: kube-scheduler\'s default profile' -r -F
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand whatif" -l feature-gates -d 'Feature gates as kube-scheduler takes them, e.g. TaintTolerationComparisonOperators=true (repeatable; later settings win)' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand whatif" -s o -l output -d 'Output format' -r -f -a "table\t'Fits 80 columns: a column per rule kind and the total score'
wide\t'The table plus the score parts per plugin and the reason the scheduler records'
json\t''
yaml\t''"
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand whatif" -l node -d 'Drill down into a node: every term and expression with the node\'s value, every taint, every pod term with its domain and pods, the score chain. Repeatable' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand whatif" -l color -d 'Colour: auto (a terminal and NO_COLOR unset), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand whatif" -s n -l namespace -d 'Namespace of the pod, for explain and whatif (default: the kubeconfig context\'s, else "default"; whatif: a manifest\'s own namespace, which -n must then match, as for kubectl apply). Not for snapshot, which saves every namespace' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand whatif" -l kubeconfig -d 'Path to the kubeconfig file. Default: $KUBECONFIG (a list of files, merged as kubectl merges them), else ~/.kube/config, else the in-cluster service account' -r -F
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand whatif" -l context -d 'The kubeconfig context to use (default: its current-context)' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand whatif" -l cluster -d 'The kubeconfig cluster to use (default: the context\'s)' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand whatif" -l user -d 'The kubeconfig user to use (default: the context\'s)' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand whatif" -l as -d 'Username to impersonate for the requests' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand whatif" -l as-group -d 'Group to impersonate (repeatable)' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand whatif" -l request-timeout -d 'How long to wait for each request: a duration such as 500ms, 10s, 1m (a bare number is seconds); 0 waits forever' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand whatif" -l tls-server-name -d 'Server name to check the API server\'s certificate against (default: the server\'s host)' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand whatif" -l chunk-size -d 'Objects per page when listing (0: no paging), as kubectl\'s --chunk-size' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand whatif" -l exit-code -d 'Exit with code 3 when no node can take the pod'
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand whatif" -l no-headers -d 'Leave out the header lines and the column headers'
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand whatif" -l all-nodes -d 'List every node, also on clusters of more than 50 nodes (where the table otherwise shows the best candidates and groups the rest by reason)'
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand whatif" -l insecure-skip-tls-verify -d 'Do not verify the API server\'s certificate (insecure; for tests only)'
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand whatif" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand whatif" -s V -l version -d 'Print version'
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand snapshot" -s o -l output -d 'The file to write ("-" or absent: standard output)' -r -F
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand snapshot" -s n -l namespace -d 'Namespace of the pod, for explain and whatif (default: the kubeconfig context\'s, else "default"; whatif: a manifest\'s own namespace, which -n must then match, as for kubectl apply). Not for snapshot, which saves every namespace' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand snapshot" -l kubeconfig -d 'Path to the kubeconfig file. Default: $KUBECONFIG (a list of files, merged as kubectl merges them), else ~/.kube/config, else the in-cluster service account' -r -F
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand snapshot" -l context -d 'The kubeconfig context to use (default: its current-context)' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand snapshot" -l cluster -d 'The kubeconfig cluster to use (default: the context\'s)' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand snapshot" -l user -d 'The kubeconfig user to use (default: the context\'s)' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand snapshot" -l as -d 'Username to impersonate for the requests' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand snapshot" -l as-group -d 'Group to impersonate (repeatable)' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand snapshot" -l request-timeout -d 'How long to wait for each request: a duration such as 500ms, 10s, 1m (a bare number is seconds); 0 waits forever' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand snapshot" -l tls-server-name -d 'Server name to check the API server\'s certificate against (default: the server\'s host)' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand snapshot" -l chunk-size -d 'Objects per page when listing (0: no paging), as kubectl\'s --chunk-size' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand snapshot" -l full -d 'Write every field of every object (environment values, commands, annotations), not only what scheduling reads; check the file before sharing it'
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand snapshot" -l insecure-skip-tls-verify -d 'Do not verify the API server\'s certificate (insecure; for tests only)'
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand snapshot" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand snapshot" -s V -l version -d 'Print version'
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand completion" -s n -l namespace -d 'Namespace of the pod, for explain and whatif (default: the kubeconfig context\'s, else "default"; whatif: a manifest\'s own namespace, which -n must then match, as for kubectl apply). Not for snapshot, which saves every namespace' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand completion" -l kubeconfig -d 'Path to the kubeconfig file. Default: $KUBECONFIG (a list of files, merged as kubectl merges them), else ~/.kube/config, else the in-cluster service account' -r -F
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand completion" -l context -d 'The kubeconfig context to use (default: its current-context)' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand completion" -l cluster -d 'The kubeconfig cluster to use (default: the context\'s)' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand completion" -l user -d 'The kubeconfig user to use (default: the context\'s)' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand completion" -l as -d 'Username to impersonate for the requests' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand completion" -l as-group -d 'Group to impersonate (repeatable)' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand completion" -l request-timeout -d 'How long to wait for each request: a duration such as 500ms, 10s, 1m (a bare number is seconds); 0 waits forever' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand completion" -l tls-server-name -d 'Server name to check the API server\'s certificate against (default: the server\'s host)' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand completion" -l chunk-size -d 'Objects per page when listing (0: no paging), as kubectl\'s --chunk-size' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand completion" -l insecure-skip-tls-verify -d 'Do not verify the API server\'s certificate (insecure; for tests only)'
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand completion" -s h -l help -d 'Print help'
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand completion" -s V -l version -d 'Print version'
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand __complete" -s n -l namespace -d 'Namespace of the pod, for explain and whatif (default: the kubeconfig context\'s, else "default"; whatif: a manifest\'s own namespace, which -n must then match, as for kubectl apply). Not for snapshot, which saves every namespace' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand __complete" -l kubeconfig -d 'Path to the kubeconfig file. Default: $KUBECONFIG (a list of files, merged as kubectl merges them), else ~/.kube/config, else the in-cluster service account' -r -F
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand __complete" -l context -d 'The kubeconfig context to use (default: its current-context)' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand __complete" -l cluster -d 'The kubeconfig cluster to use (default: the context\'s)' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand __complete" -l user -d 'The kubeconfig user to use (default: the context\'s)' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand __complete" -l as -d 'Username to impersonate for the requests' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand __complete" -l as-group -d 'Group to impersonate (repeatable)' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand __complete" -l request-timeout -d 'How long to wait for each request: a duration such as 500ms, 10s, 1m (a bare number is seconds); 0 waits forever' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand __complete" -l tls-server-name -d 'Server name to check the API server\'s certificate against (default: the server\'s host)' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand __complete" -l chunk-size -d 'Objects per page when listing (0: no paging), as kubectl\'s --chunk-size' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand __complete" -l insecure-skip-tls-verify -d 'Do not verify the API server\'s certificate (insecure; for tests only)'
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand __complete" -s h -l help -d 'Print help'
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand __complete" -s V -l version -d 'Print version'
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand help; and not __fish_seen_subcommand_from explain whatif snapshot completion __complete help" -f -a "explain" -d 'Explain the placement of an existing pod: every node, every rule, the score'
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand help; and not __fish_seen_subcommand_from explain whatif snapshot completion __complete help" -f -a "whatif" -d 'Evaluate a pod manifest that is not created yet (a Pod or a workload\'s pod template)'
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand help; and not __fish_seen_subcommand_from explain whatif snapshot completion __complete help" -f -a "snapshot" -d 'Save the cluster\'s nodes, pods and namespaces in the file format --snapshot reads, to analyse offline, share in a bug report, or replay in tests'
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand help; and not __fish_seen_subcommand_from explain whatif snapshot completion __complete help" -f -a "completion" -d 'Print a shell completion script for kubectl-affinity (bash, zsh, fish or powershell)'
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand help; and not __fish_seen_subcommand_from explain whatif snapshot completion __complete help" -f -a "__complete" -d 'Answers kubectl\'s plugin completion (cobra\'s __complete protocol); called by the kubectl_complete-affinity shim'
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand help; and not __fish_seen_subcommand_from explain whatif snapshot completion __complete help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
