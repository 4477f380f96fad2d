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
complete -c kubectl-affinity -n "__fish_kubectl_affinity_needs_command" -f -a "audit" -d 'The cluster at once: Pending pods with the FailedScheduling message the scheduler would write now, and running pods whose node no longer satisfies their required rules'
complete -c kubectl-affinity -n "__fish_kubectl_affinity_needs_command" -f -a "snapshot" -d 'Save the cluster\'s nodes, pods and namespaces in the file format --snapshot reads, to analyse offline, share in a bug report, or replay in tests'
complete -c kubectl-affinity -n "__fish_kubectl_affinity_needs_command" -f -a "completion" -d 'Print a shell completion script for kubectl-affinity (bash, zsh, fish or powershell)'
complete -c kubectl-affinity -n "__fish_kubectl_affinity_needs_command" -f -a "__complete" -d 'Answers kubectl\'s plugin completion (cobra\'s __complete protocol); called by the kubectl_complete-affinity shim'
complete -c kubectl-affinity -n "__fish_kubectl_affinity_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand explain" -s l -l selector -d 'The pods whose labels match, in kubectl\'s syntax (app=web,tier!=db, env in (a,b)): a row each, then the first Pending one explained' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand explain" -l snapshot -d 'Read the cluster from a file instead of the live cluster: one written by `kubectl affinity snapshot`, which saves every kind the rules read. A `kubectl get nodes,pods,namespaces -A -o yaml` (or -o json) also reads; what it leaves out is said as not evaluated: add services,replicasets,replicationcontrollers,statefulsets for default spreading, persistentvolumeclaims,persistentvolumes,storageclasses,csinodes,csidrivers for volumes, deviceclasses,resourceslices,resourceclaims,resourceclaimtemplates for ResourceClaims, poddisruptionbudgets,priorityclasses for preemption and priorityClassName' -r -F
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand explain" -l scheduler-config -d 'A KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1); the profile whose schedulerName is the pod\'s is used. Default: kube-scheduler\'s default profile' -r -F
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand explain" -l feature-gates -d 'Feature gates as kube-scheduler takes them, e.g. TaintTolerationComparisonOperators=true (repeatable; later settings win)' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand explain" -l kubernetes-version -d 'The kube-scheduler release to emulate (1.31 to 1.35): its reason texts, default plugins and feature gates. Default: the API server\'s version when live, the version a snapshot records, else 1.35' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand explain" -s o -l output -d 'Output format' -r -f -a "table\t'Fits 80 columns: a column per rule kind and the total score'
wide\t'The table plus the score parts per plugin and the reason the scheduler records'
json\t''
yaml\t''"
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand explain" -l node -d 'Drill down into a node: every term and expression with the node\'s value, every taint, every pod term with its domain and pods, the score chain. A unique prefix of a name names that node. Repeatable' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand explain" -l color -d 'Colour: auto (a terminal and NO_COLOR unset), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand explain" -l cordon -d 'As after `kubectl cordon NODE` (with the taint the node controller then adds)' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand explain" -l uncordon -d 'As after `kubectl uncordon NODE`' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand explain" -l label -d 'As after `kubectl label --overwrite node NODE key=value` (key- removes the label)' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand explain" -l taint -d 'As after `kubectl taint --overwrite node NODE key=value:Effect` (key:Effect- or key- removes it)' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand explain" -l remove-pod -d 'As after the pod is deleted (and not recreated)' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand explain" -l add-node -d 'A new node like the one --like names: its labels (hostname renamed), taints, allocatable and images, no pods' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand explain" -l like -d 'The node each --add-node copies, in the same order' -r
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
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand explain" -l exit-code -d 'Exit with code 3 when no node can take the pod (a workload: when any replica stays Pending; a DaemonSet: when any of its pods would)'
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand explain" -l no-headers -d 'Leave out the header lines and the column headers'
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand explain" -l all-nodes -d 'List every node, also on clusters of more than 50 nodes (where the table otherwise shows the best candidates and groups the rest by reason)'
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand explain" -l diff -d 'With edits: also evaluate the cluster as it is, and show what the edits change'
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand explain" -l insecure-skip-tls-verify -d 'Do not verify the API server\'s certificate (insecure; for tests only)'
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand explain" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand explain" -s V -l version -d 'Print version'
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand whatif" -s f -l filename -d 'The manifests, as `kubectl apply -f` takes them: files ("-" reads standard input) or directories, repeated, each several YAML documents, a List or JSON. Their Pods and workloads (Deployment, ReplicaSet, StatefulSet, DaemonSet, Job, CronJob, PodTemplate) are scheduled in order; the objects scheduling reads (Namespaces, Services, PDBs, PriorityClasses, PVCs, StorageClasses, LimitRanges, RuntimeClasses...) join the cluster first; the rest are skipped, said in a note' -r -F
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand whatif" -l scale -d 'A Deployment, StatefulSet or ReplicaSet that exists (deploy/NAME=N, sts/NAME=N, rs/NAME=N): schedule the pods scaling it to N would add, beside the pods it runs now (read from --snapshot, else got from the cluster). Scale-down is not simulated' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand whatif" -l validate -d 'Check the manifest\'s scheduling fields as the API server does: strict (or true) stops at a field the API server would reject (kubectl apply would fail); warn evaluates such a pod anyway, as the scheduler would read it, with a note per field; ignore (or false) evaluates it without those notes' -r -f -a "strict\t''
warn\t''
ignore\t''"
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand whatif" -l replicas -d 'A workload (Deployment, ReplicaSet, ReplicationController, StatefulSet, Job, CronJob): schedule N pods instead of its replicas (a Job\'s parallelism)' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand whatif" -l replica -d 'A workload: show the per-node table of replica K (0 is the first scheduled) instead of the first Pending one' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand whatif" -l seed -d 'A workload: break ties between top-scored nodes at random with this seed, instead of taking the first by name' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand whatif" -l enable-admission-plugins -d 'Admission plugins to run besides kube-apiserver\'s defaults, as its flag of that name takes them (comma-separated): PodNodeSelector and PodTolerationRestriction apply their namespace annotations only when named here, as on the API server' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand whatif" -l disable-admission-plugins -d 'Admission plugins to leave out, as kube-apiserver\'s flag of that name takes them (comma-separated): LimitRanger, DefaultTolerationSeconds, RuntimeClass' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand whatif" -l snapshot -d 'Read the cluster from a file instead of the live cluster: one written by `kubectl affinity snapshot`, which saves every kind the rules read. A `kubectl get nodes,pods,namespaces -A -o yaml` (or -o json) also reads; what it leaves out is said as not evaluated: add services,replicasets,replicationcontrollers,statefulsets for default spreading, persistentvolumeclaims,persistentvolumes,storageclasses,csinodes,csidrivers for volumes, deviceclasses,resourceslices,resourceclaims,resourceclaimtemplates for ResourceClaims, poddisruptionbudgets,priorityclasses for preemption and priorityClassName' -r -F
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand whatif" -l scheduler-config -d 'A KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1); the profile whose schedulerName is the pod\'s is used. Default: kube-scheduler\'s default profile' -r -F
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand whatif" -l feature-gates -d 'Feature gates as kube-scheduler takes them, e.g. TaintTolerationComparisonOperators=true (repeatable; later settings win)' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand whatif" -l kubernetes-version -d 'The kube-scheduler release to emulate (1.31 to 1.35): its reason texts, default plugins and feature gates. Default: the API server\'s version when live, the version a snapshot records, else 1.35' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand whatif" -s o -l output -d 'Output format' -r -f -a "table\t'Fits 80 columns: a column per rule kind and the total score'
wide\t'The table plus the score parts per plugin and the reason the scheduler records'
json\t''
yaml\t''"
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand whatif" -l node -d 'Drill down into a node: every term and expression with the node\'s value, every taint, every pod term with its domain and pods, the score chain. A unique prefix of a name names that node. Repeatable' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand whatif" -l color -d 'Colour: auto (a terminal and NO_COLOR unset), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand whatif" -l cordon -d 'As after `kubectl cordon NODE` (with the taint the node controller then adds)' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand whatif" -l uncordon -d 'As after `kubectl uncordon NODE`' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand whatif" -l label -d 'As after `kubectl label --overwrite node NODE key=value` (key- removes the label)' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand whatif" -l taint -d 'As after `kubectl taint --overwrite node NODE key=value:Effect` (key:Effect- or key- removes it)' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand whatif" -l remove-pod -d 'As after the pod is deleted (and not recreated)' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand whatif" -l add-node -d 'A new node like the one --like names: its labels (hostname renamed), taints, allocatable and images, no pods' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand whatif" -l like -d 'The node each --add-node copies, in the same order' -r
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
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand whatif" -s R -l recursive -d 'Read the directories of -f with their subdirectories'
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand whatif" -l server-dry-run -d 'Ask the live API server: create the pod with dryRun=All (nothing is stored) and evaluate the pod it returns, with its defaulting, admission plugins and webhooks. The one request that is not a GET (needs create on pods); without it the tool only reads'
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand whatif" -l exit-code -d 'Exit with code 3 when no node can take the pod (a workload: when any replica stays Pending; a DaemonSet: when any of its pods would)'
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand whatif" -l no-headers -d 'Leave out the header lines and the column headers'
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand whatif" -l all-nodes -d 'List every node, also on clusters of more than 50 nodes (where the table otherwise shows the best candidates and groups the rest by reason)'
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand whatif" -l diff -d 'With edits: also evaluate the cluster as it is, and show what the edits change'
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand whatif" -l insecure-skip-tls-verify -d 'Do not verify the API server\'s certificate (insecure; for tests only)'
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand whatif" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand whatif" -s V -l version -d 'Print version'
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand audit" -l snapshot -d 'Read the cluster from a file instead of the live cluster: one written by `kubectl affinity snapshot`, which saves every kind the rules read. A `kubectl get nodes,pods,namespaces -A -o yaml` (or -o json) also reads; what it leaves out is said as not evaluated: add services,replicasets,replicationcontrollers,statefulsets for default spreading, persistentvolumeclaims,persistentvolumes,storageclasses,csinodes,csidrivers for volumes, deviceclasses,resourceslices,resourceclaims,resourceclaimtemplates for ResourceClaims, poddisruptionbudgets,priorityclasses for preemption and priorityClassName' -r -F
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand audit" -l scheduler-config -d 'A KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1); the profile whose schedulerName is the pod\'s is used. Default: kube-scheduler\'s default profile' -r -F
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand audit" -l feature-gates -d 'Feature gates as kube-scheduler takes them, e.g. TaintTolerationComparisonOperators=true (repeatable; later settings win)' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand audit" -l kubernetes-version -d 'The kube-scheduler release to emulate (1.31 to 1.35): its reason texts, default plugins and feature gates. Default: the API server\'s version when live, the version a snapshot records, else 1.35' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand audit" -s o -l output -d 'Output format' -r -f -a "table\t'Fits 80 columns: a column per rule kind and the total score'
wide\t'The table plus the score parts per plugin and the reason the scheduler records'
json\t''
yaml\t''"
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand audit" -l node -d 'Drill down into a node: every term and expression with the node\'s value, every taint, every pod term with its domain and pods, the score chain. A unique prefix of a name names that node. Repeatable' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand audit" -l color -d 'Colour: auto (a terminal and NO_COLOR unset), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand audit" -l cordon -d 'As after `kubectl cordon NODE` (with the taint the node controller then adds)' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand audit" -l uncordon -d 'As after `kubectl uncordon NODE`' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand audit" -l label -d 'As after `kubectl label --overwrite node NODE key=value` (key- removes the label)' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand audit" -l taint -d 'As after `kubectl taint --overwrite node NODE key=value:Effect` (key:Effect- or key- removes it)' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand audit" -l remove-pod -d 'As after the pod is deleted (and not recreated)' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand audit" -l add-node -d 'A new node like the one --like names: its labels (hostname renamed), taints, allocatable and images, no pods' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand audit" -l like -d 'The node each --add-node copies, in the same order' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand audit" -s n -l namespace -d 'Namespace of the pod, for explain and whatif (default: the kubeconfig context\'s, else "default"; whatif: a manifest\'s own namespace, which -n must then match, as for kubectl apply). Not for snapshot, which saves every namespace' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand audit" -l kubeconfig -d 'Path to the kubeconfig file. Default: $KUBECONFIG (a list of files, merged as kubectl merges them), else ~/.kube/config, else the in-cluster service account' -r -F
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand audit" -l context -d 'The kubeconfig context to use (default: its current-context)' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand audit" -l cluster -d 'The kubeconfig cluster to use (default: the context\'s)' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand audit" -l user -d 'The kubeconfig user to use (default: the context\'s)' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand audit" -l as -d 'Username to impersonate for the requests' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand audit" -l as-group -d 'Group to impersonate (repeatable)' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand audit" -l request-timeout -d 'How long to wait for each request: a duration such as 500ms, 10s, 1m (a bare number is seconds); 0 waits forever' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand audit" -l tls-server-name -d 'Server name to check the API server\'s certificate against (default: the server\'s host)' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand audit" -l chunk-size -d 'Objects per page when listing (0: no paging), as kubectl\'s --chunk-size' -r
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand audit" -s A -l all-namespaces -d 'Every namespace (-n and the kubeconfig context\'s namespace are then not used, as for kubectl get -A)'
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand audit" -l pending -d 'Only the Pending pods (with --violating: both, as without either)'
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand audit" -l violating -d 'Only the running pods whose node breaks their required rules: nodeSelector, required node affinity, NoSchedule/NoExecute taints, required pod (anti-)affinity'
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand audit" -l exit-code -d 'Exit with code 3 when no node can take the pod (a workload: when any replica stays Pending; a DaemonSet: when any of its pods would)'
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand audit" -l no-headers -d 'Leave out the header lines and the column headers'
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand audit" -l all-nodes -d 'List every node, also on clusters of more than 50 nodes (where the table otherwise shows the best candidates and groups the rest by reason)'
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand audit" -l diff -d 'With edits: also evaluate the cluster as it is, and show what the edits change'
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand audit" -l insecure-skip-tls-verify -d 'Do not verify the API server\'s certificate (insecure; for tests only)'
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand audit" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand audit" -s V -l version -d 'Print version'
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
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand snapshot" -s A -l all-namespaces -d 'Every namespace, as a snapshot always holds (accepted, as for kubectl get -A)'
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
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand help; and not __fish_seen_subcommand_from explain whatif audit snapshot completion __complete help" -f -a "explain" -d 'Explain the placement of an existing pod: every node, every rule, the score'
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand help; and not __fish_seen_subcommand_from explain whatif audit snapshot completion __complete help" -f -a "whatif" -d 'Evaluate a pod manifest that is not created yet (a Pod or a workload\'s pod template)'
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand help; and not __fish_seen_subcommand_from explain whatif audit snapshot completion __complete help" -f -a "audit" -d 'The cluster at once: Pending pods with the FailedScheduling message the scheduler would write now, and running pods whose node no longer satisfies their required rules'
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand help; and not __fish_seen_subcommand_from explain whatif audit snapshot completion __complete help" -f -a "snapshot" -d 'Save the cluster\'s nodes, pods and namespaces in the file format --snapshot reads, to analyse offline, share in a bug report, or replay in tests'
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand help; and not __fish_seen_subcommand_from explain whatif audit snapshot completion __complete help" -f -a "completion" -d 'Print a shell completion script for kubectl-affinity (bash, zsh, fish or powershell)'
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand help; and not __fish_seen_subcommand_from explain whatif audit snapshot completion __complete help" -f -a "__complete" -d 'Answers kubectl\'s plugin completion (cobra\'s __complete protocol); called by the kubectl_complete-affinity shim'
complete -c kubectl-affinity -n "__fish_kubectl_affinity_using_subcommand help; and not __fish_seen_subcommand_from explain whatif audit snapshot completion __complete help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
