
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'kubectl-affinity' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'kubectl-affinity'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'kubectl-affinity' {
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace of the pod, for explain and whatif (default: the kubeconfig context''s, else "default"; whatif: a manifest''s own namespace, which -n must then match, as for kubectl apply). Not for snapshot, which saves every namespace')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace of the pod, for explain and whatif (default: the kubeconfig context''s, else "default"; whatif: a manifest''s own namespace, which -n must then match, as for kubectl apply). Not for snapshot, which saves every namespace')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file. Default: $KUBECONFIG (a list of files, merged as kubectl merges them), else ~/.kube/config, else the in-cluster service account')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use (default: its current-context)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use (default: the context''s)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use (default: the context''s)')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Username to impersonate for the requests')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate (repeatable)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'How long to wait for each request: a duration such as 500ms, 10s, 1m (a bare number is seconds); 0 waits forever')
            [CompletionResult]::new('--tls-server-name', '--tls-server-name', [CompletionResultType]::ParameterName, 'Server name to check the API server''s certificate against (default: the server''s host)')
            [CompletionResult]::new('--chunk-size', '--chunk-size', [CompletionResultType]::ParameterName, 'Objects per page when listing (0: no paging), as kubectl''s --chunk-size')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Do not verify the API server''s certificate (insecure; for tests only)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('explain', 'explain', [CompletionResultType]::ParameterValue, 'Explain the placement of an existing pod: every node, every rule, the score')
            [CompletionResult]::new('whatif', 'whatif', [CompletionResultType]::ParameterValue, 'Evaluate a pod manifest that is not created yet (a Pod or a workload''s pod template)')
            [CompletionResult]::new('audit', 'audit', [CompletionResultType]::ParameterValue, 'The cluster at once: Pending pods with the FailedScheduling message the scheduler would write now, and running pods whose node no longer satisfies their required rules')
            [CompletionResult]::new('snapshot', 'snapshot', [CompletionResultType]::ParameterValue, 'Save the cluster''s nodes, pods and namespaces in the file format --snapshot reads, to analyse offline, share in a bug report, or replay in tests')
            [CompletionResult]::new('completion', 'completion', [CompletionResultType]::ParameterValue, 'Print a shell completion script for kubectl-affinity (bash, zsh, fish or powershell)')
            [CompletionResult]::new('__complete', '__complete', [CompletionResultType]::ParameterValue, 'Answers kubectl''s plugin completion (cobra''s __complete protocol); called by the kubectl_complete-affinity shim')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'kubectl-affinity;explain' {
            [CompletionResult]::new('-l', '-l', [CompletionResultType]::ParameterName, 'The pods whose labels match, in kubectl''s syntax (app=web,tier!=db, env in (a,b)): a row each, then the first Pending one explained')
            [CompletionResult]::new('--selector', '--selector', [CompletionResultType]::ParameterName, 'The pods whose labels match, in kubectl''s syntax (app=web,tier!=db, env in (a,b)): a row each, then the first Pending one explained')
            [CompletionResult]::new('--snapshot', '--snapshot', [CompletionResultType]::ParameterName, 'Read the cluster from a file instead of the live cluster: one written by `kubectl affinity snapshot`, which saves every kind the rules read. A `kubectl get nodes,pods,namespaces -A -o yaml` (or -o json) also reads; what it leaves out is said as not evaluated: add services,replicasets,replicationcontrollers,statefulsets for default spreading, persistentvolumeclaims,persistentvolumes,storageclasses,csinodes,csidrivers for volumes, deviceclasses,resourceslices,resourceclaims,resourceclaimtemplates for ResourceClaims, poddisruptionbudgets,priorityclasses for preemption and priorityClassName')
            [CompletionResult]::new('--scheduler-config', '--scheduler-config', [CompletionResultType]::ParameterName, 'A KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1); the profile whose schedulerName is the pod''s is used. Default: kube-scheduler''s default profile')
            [CompletionResult]::new('--feature-gates', '--feature-gates', [CompletionResultType]::ParameterName, 'Feature gates as kube-scheduler takes them, e.g. TaintTolerationComparisonOperators=true (repeatable; later settings win)')
            [CompletionResult]::new('--kubernetes-version', '--kubernetes-version', [CompletionResultType]::ParameterName, 'The kube-scheduler release to emulate (1.31 to 1.35): its reason texts, default plugins and feature gates. Default: the API server''s version when live, the version a snapshot records, else 1.35')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--node', '--node', [CompletionResultType]::ParameterName, 'Drill down into a node: every term and expression with the node''s value, every taint, every pod term with its domain and pods, the score chain. A unique prefix of a name names that node. Repeatable')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto (a terminal and NO_COLOR unset), always or never')
            [CompletionResult]::new('--cordon', '--cordon', [CompletionResultType]::ParameterName, 'As after `kubectl cordon NODE` (with the taint the node controller then adds)')
            [CompletionResult]::new('--uncordon', '--uncordon', [CompletionResultType]::ParameterName, 'As after `kubectl uncordon NODE`')
            [CompletionResult]::new('--label', '--label', [CompletionResultType]::ParameterName, 'As after `kubectl label --overwrite node NODE key=value` (key- removes the label)')
            [CompletionResult]::new('--taint', '--taint', [CompletionResultType]::ParameterName, 'As after `kubectl taint --overwrite node NODE key=value:Effect` (key:Effect- or key- removes it)')
            [CompletionResult]::new('--remove-pod', '--remove-pod', [CompletionResultType]::ParameterName, 'As after the pod is deleted (and not recreated)')
            [CompletionResult]::new('--add-node', '--add-node', [CompletionResultType]::ParameterName, 'A new node like the one --like names: its labels (hostname renamed), taints, allocatable and images, no pods')
            [CompletionResult]::new('--like', '--like', [CompletionResultType]::ParameterName, 'The node each --add-node copies, in the same order')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace of the pod, for explain and whatif (default: the kubeconfig context''s, else "default"; whatif: a manifest''s own namespace, which -n must then match, as for kubectl apply). Not for snapshot, which saves every namespace')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace of the pod, for explain and whatif (default: the kubeconfig context''s, else "default"; whatif: a manifest''s own namespace, which -n must then match, as for kubectl apply). Not for snapshot, which saves every namespace')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file. Default: $KUBECONFIG (a list of files, merged as kubectl merges them), else ~/.kube/config, else the in-cluster service account')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use (default: its current-context)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use (default: the context''s)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use (default: the context''s)')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Username to impersonate for the requests')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate (repeatable)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'How long to wait for each request: a duration such as 500ms, 10s, 1m (a bare number is seconds); 0 waits forever')
            [CompletionResult]::new('--tls-server-name', '--tls-server-name', [CompletionResultType]::ParameterName, 'Server name to check the API server''s certificate against (default: the server''s host)')
            [CompletionResult]::new('--chunk-size', '--chunk-size', [CompletionResultType]::ParameterName, 'Objects per page when listing (0: no paging), as kubectl''s --chunk-size')
            [CompletionResult]::new('--exit-code', '--exit-code', [CompletionResultType]::ParameterName, 'Exit with code 3 when no node can take the pod (a workload: when any replica stays Pending; a DaemonSet: when any of its pods would)')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave out the header lines and the column headers')
            [CompletionResult]::new('--all-nodes', '--all-nodes', [CompletionResultType]::ParameterName, 'List every node, also on clusters of more than 50 nodes (where the table otherwise shows the best candidates and groups the rest by reason)')
            [CompletionResult]::new('--diff', '--diff', [CompletionResultType]::ParameterName, 'With edits: also evaluate the cluster as it is, and show what the edits change')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Do not verify the API server''s certificate (insecure; for tests only)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'kubectl-affinity;whatif' {
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'The manifests, as `kubectl apply -f` takes them: files ("-" reads standard input) or directories, repeated, each several YAML documents, a List or JSON. Their Pods and workloads (Deployment, ReplicaSet, StatefulSet, DaemonSet, Job, CronJob, PodTemplate) are scheduled in order; the objects scheduling reads (Namespaces, Services, PDBs, PriorityClasses, PVCs, StorageClasses, LimitRanges, RuntimeClasses...) join the cluster first; the rest are skipped, said in a note')
            [CompletionResult]::new('--filename', '--filename', [CompletionResultType]::ParameterName, 'The manifests, as `kubectl apply -f` takes them: files ("-" reads standard input) or directories, repeated, each several YAML documents, a List or JSON. Their Pods and workloads (Deployment, ReplicaSet, StatefulSet, DaemonSet, Job, CronJob, PodTemplate) are scheduled in order; the objects scheduling reads (Namespaces, Services, PDBs, PriorityClasses, PVCs, StorageClasses, LimitRanges, RuntimeClasses...) join the cluster first; the rest are skipped, said in a note')
            [CompletionResult]::new('--scale', '--scale', [CompletionResultType]::ParameterName, 'A Deployment, StatefulSet or ReplicaSet that exists (deploy/NAME=N, sts/NAME=N, rs/NAME=N): schedule the pods scaling it to N would add, beside the pods it runs now (read from --snapshot, else got from the cluster). Scale-down is not simulated')
            [CompletionResult]::new('--validate', '--validate', [CompletionResultType]::ParameterName, 'Check the manifest''s scheduling fields as the API server does: strict (or true) stops at a field the API server would reject (kubectl apply would fail); warn evaluates such a pod anyway, as the scheduler would read it, with a note per field; ignore (or false) evaluates it without those notes')
            [CompletionResult]::new('--replicas', '--replicas', [CompletionResultType]::ParameterName, 'A workload (Deployment, ReplicaSet, ReplicationController, StatefulSet, Job, CronJob): schedule N pods instead of its replicas (a Job''s parallelism)')
            [CompletionResult]::new('--replica', '--replica', [CompletionResultType]::ParameterName, 'A workload: show the per-node table of replica K (0 is the first scheduled) instead of the first Pending one')
            [CompletionResult]::new('--seed', '--seed', [CompletionResultType]::ParameterName, 'A workload: break ties between top-scored nodes at random with this seed, instead of taking the first by name')
            [CompletionResult]::new('--enable-admission-plugins', '--enable-admission-plugins', [CompletionResultType]::ParameterName, 'Admission plugins to run besides kube-apiserver''s defaults, as its flag of that name takes them (comma-separated): PodNodeSelector and PodTolerationRestriction apply their namespace annotations only when named here, as on the API server')
            [CompletionResult]::new('--disable-admission-plugins', '--disable-admission-plugins', [CompletionResultType]::ParameterName, 'Admission plugins to leave out, as kube-apiserver''s flag of that name takes them (comma-separated): LimitRanger, DefaultTolerationSeconds, RuntimeClass')
            [CompletionResult]::new('--snapshot', '--snapshot', [CompletionResultType]::ParameterName, 'Read the cluster from a file instead of the live cluster: one written by `kubectl affinity snapshot`, which saves every kind the rules read. A `kubectl get nodes,pods,namespaces -A -o yaml` (or -o json) also reads; what it leaves out is said as not evaluated: add services,replicasets,replicationcontrollers,statefulsets for default spreading, persistentvolumeclaims,persistentvolumes,storageclasses,csinodes,csidrivers for volumes, deviceclasses,resourceslices,resourceclaims,resourceclaimtemplates for ResourceClaims, poddisruptionbudgets,priorityclasses for preemption and priorityClassName')
            [CompletionResult]::new('--scheduler-config', '--scheduler-config', [CompletionResultType]::ParameterName, 'A KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1); the profile whose schedulerName is the pod''s is used. Default: kube-scheduler''s default profile')
            [CompletionResult]::new('--feature-gates', '--feature-gates', [CompletionResultType]::ParameterName, 'Feature gates as kube-scheduler takes them, e.g. TaintTolerationComparisonOperators=true (repeatable; later settings win)')
            [CompletionResult]::new('--kubernetes-version', '--kubernetes-version', [CompletionResultType]::ParameterName, 'The kube-scheduler release to emulate (1.31 to 1.35): its reason texts, default plugins and feature gates. Default: the API server''s version when live, the version a snapshot records, else 1.35')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--node', '--node', [CompletionResultType]::ParameterName, 'Drill down into a node: every term and expression with the node''s value, every taint, every pod term with its domain and pods, the score chain. A unique prefix of a name names that node. Repeatable')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto (a terminal and NO_COLOR unset), always or never')
            [CompletionResult]::new('--cordon', '--cordon', [CompletionResultType]::ParameterName, 'As after `kubectl cordon NODE` (with the taint the node controller then adds)')
            [CompletionResult]::new('--uncordon', '--uncordon', [CompletionResultType]::ParameterName, 'As after `kubectl uncordon NODE`')
            [CompletionResult]::new('--label', '--label', [CompletionResultType]::ParameterName, 'As after `kubectl label --overwrite node NODE key=value` (key- removes the label)')
            [CompletionResult]::new('--taint', '--taint', [CompletionResultType]::ParameterName, 'As after `kubectl taint --overwrite node NODE key=value:Effect` (key:Effect- or key- removes it)')
            [CompletionResult]::new('--remove-pod', '--remove-pod', [CompletionResultType]::ParameterName, 'As after the pod is deleted (and not recreated)')
            [CompletionResult]::new('--add-node', '--add-node', [CompletionResultType]::ParameterName, 'A new node like the one --like names: its labels (hostname renamed), taints, allocatable and images, no pods')
            [CompletionResult]::new('--like', '--like', [CompletionResultType]::ParameterName, 'The node each --add-node copies, in the same order')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace of the pod, for explain and whatif (default: the kubeconfig context''s, else "default"; whatif: a manifest''s own namespace, which -n must then match, as for kubectl apply). Not for snapshot, which saves every namespace')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace of the pod, for explain and whatif (default: the kubeconfig context''s, else "default"; whatif: a manifest''s own namespace, which -n must then match, as for kubectl apply). Not for snapshot, which saves every namespace')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file. Default: $KUBECONFIG (a list of files, merged as kubectl merges them), else ~/.kube/config, else the in-cluster service account')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use (default: its current-context)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use (default: the context''s)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use (default: the context''s)')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Username to impersonate for the requests')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate (repeatable)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'How long to wait for each request: a duration such as 500ms, 10s, 1m (a bare number is seconds); 0 waits forever')
            [CompletionResult]::new('--tls-server-name', '--tls-server-name', [CompletionResultType]::ParameterName, 'Server name to check the API server''s certificate against (default: the server''s host)')
            [CompletionResult]::new('--chunk-size', '--chunk-size', [CompletionResultType]::ParameterName, 'Objects per page when listing (0: no paging), as kubectl''s --chunk-size')
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Read the directories of -f with their subdirectories')
            [CompletionResult]::new('--recursive', '--recursive', [CompletionResultType]::ParameterName, 'Read the directories of -f with their subdirectories')
            [CompletionResult]::new('--server-dry-run', '--server-dry-run', [CompletionResultType]::ParameterName, 'Ask the live API server: create the pod with dryRun=All (nothing is stored) and evaluate the pod it returns, with its defaulting, admission plugins and webhooks. The one request that is not a GET (needs create on pods); without it the tool only reads')
            [CompletionResult]::new('--exit-code', '--exit-code', [CompletionResultType]::ParameterName, 'Exit with code 3 when no node can take the pod (a workload: when any replica stays Pending; a DaemonSet: when any of its pods would)')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave out the header lines and the column headers')
            [CompletionResult]::new('--all-nodes', '--all-nodes', [CompletionResultType]::ParameterName, 'List every node, also on clusters of more than 50 nodes (where the table otherwise shows the best candidates and groups the rest by reason)')
            [CompletionResult]::new('--diff', '--diff', [CompletionResultType]::ParameterName, 'With edits: also evaluate the cluster as it is, and show what the edits change')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Do not verify the API server''s certificate (insecure; for tests only)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'kubectl-affinity;audit' {
            [CompletionResult]::new('--snapshot', '--snapshot', [CompletionResultType]::ParameterName, 'Read the cluster from a file instead of the live cluster: one written by `kubectl affinity snapshot`, which saves every kind the rules read. A `kubectl get nodes,pods,namespaces -A -o yaml` (or -o json) also reads; what it leaves out is said as not evaluated: add services,replicasets,replicationcontrollers,statefulsets for default spreading, persistentvolumeclaims,persistentvolumes,storageclasses,csinodes,csidrivers for volumes, deviceclasses,resourceslices,resourceclaims,resourceclaimtemplates for ResourceClaims, poddisruptionbudgets,priorityclasses for preemption and priorityClassName')
            [CompletionResult]::new('--scheduler-config', '--scheduler-config', [CompletionResultType]::ParameterName, 'A KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1); the profile whose schedulerName is the pod''s is used. Default: kube-scheduler''s default profile')
            [CompletionResult]::new('--feature-gates', '--feature-gates', [CompletionResultType]::ParameterName, 'Feature gates as kube-scheduler takes them, e.g. TaintTolerationComparisonOperators=true (repeatable; later settings win)')
            [CompletionResult]::new('--kubernetes-version', '--kubernetes-version', [CompletionResultType]::ParameterName, 'The kube-scheduler release to emulate (1.31 to 1.35): its reason texts, default plugins and feature gates. Default: the API server''s version when live, the version a snapshot records, else 1.35')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--node', '--node', [CompletionResultType]::ParameterName, 'Drill down into a node: every term and expression with the node''s value, every taint, every pod term with its domain and pods, the score chain. A unique prefix of a name names that node. Repeatable')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto (a terminal and NO_COLOR unset), always or never')
            [CompletionResult]::new('--cordon', '--cordon', [CompletionResultType]::ParameterName, 'As after `kubectl cordon NODE` (with the taint the node controller then adds)')
            [CompletionResult]::new('--uncordon', '--uncordon', [CompletionResultType]::ParameterName, 'As after `kubectl uncordon NODE`')
            [CompletionResult]::new('--label', '--label', [CompletionResultType]::ParameterName, 'As after `kubectl label --overwrite node NODE key=value` (key- removes the label)')
            [CompletionResult]::new('--taint', '--taint', [CompletionResultType]::ParameterName, 'As after `kubectl taint --overwrite node NODE key=value:Effect` (key:Effect- or key- removes it)')
            [CompletionResult]::new('--remove-pod', '--remove-pod', [CompletionResultType]::ParameterName, 'As after the pod is deleted (and not recreated)')
            [CompletionResult]::new('--add-node', '--add-node', [CompletionResultType]::ParameterName, 'A new node like the one --like names: its labels (hostname renamed), taints, allocatable and images, no pods')
            [CompletionResult]::new('--like', '--like', [CompletionResultType]::ParameterName, 'The node each --add-node copies, in the same order')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace of the pod, for explain and whatif (default: the kubeconfig context''s, else "default"; whatif: a manifest''s own namespace, which -n must then match, as for kubectl apply). Not for snapshot, which saves every namespace')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace of the pod, for explain and whatif (default: the kubeconfig context''s, else "default"; whatif: a manifest''s own namespace, which -n must then match, as for kubectl apply). Not for snapshot, which saves every namespace')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file. Default: $KUBECONFIG (a list of files, merged as kubectl merges them), else ~/.kube/config, else the in-cluster service account')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use (default: its current-context)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use (default: the context''s)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use (default: the context''s)')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Username to impersonate for the requests')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate (repeatable)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'How long to wait for each request: a duration such as 500ms, 10s, 1m (a bare number is seconds); 0 waits forever')
            [CompletionResult]::new('--tls-server-name', '--tls-server-name', [CompletionResultType]::ParameterName, 'Server name to check the API server''s certificate against (default: the server''s host)')
            [CompletionResult]::new('--chunk-size', '--chunk-size', [CompletionResultType]::ParameterName, 'Objects per page when listing (0: no paging), as kubectl''s --chunk-size')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Every namespace (-n and the kubeconfig context''s namespace are then not used, as for kubectl get -A)')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'Every namespace (-n and the kubeconfig context''s namespace are then not used, as for kubectl get -A)')
            [CompletionResult]::new('--pending', '--pending', [CompletionResultType]::ParameterName, 'Only the Pending pods (with --violating: both, as without either)')
            [CompletionResult]::new('--violating', '--violating', [CompletionResultType]::ParameterName, 'Only the running pods whose node breaks their required rules: nodeSelector, required node affinity, NoSchedule/NoExecute taints, required pod (anti-)affinity')
            [CompletionResult]::new('--exit-code', '--exit-code', [CompletionResultType]::ParameterName, 'Exit with code 3 when no node can take the pod (a workload: when any replica stays Pending; a DaemonSet: when any of its pods would)')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave out the header lines and the column headers')
            [CompletionResult]::new('--all-nodes', '--all-nodes', [CompletionResultType]::ParameterName, 'List every node, also on clusters of more than 50 nodes (where the table otherwise shows the best candidates and groups the rest by reason)')
            [CompletionResult]::new('--diff', '--diff', [CompletionResultType]::ParameterName, 'With edits: also evaluate the cluster as it is, and show what the edits change')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Do not verify the API server''s certificate (insecure; for tests only)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'kubectl-affinity;snapshot' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'The file to write ("-" or absent: standard output)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'The file to write ("-" or absent: standard output)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace of the pod, for explain and whatif (default: the kubeconfig context''s, else "default"; whatif: a manifest''s own namespace, which -n must then match, as for kubectl apply). Not for snapshot, which saves every namespace')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace of the pod, for explain and whatif (default: the kubeconfig context''s, else "default"; whatif: a manifest''s own namespace, which -n must then match, as for kubectl apply). Not for snapshot, which saves every namespace')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file. Default: $KUBECONFIG (a list of files, merged as kubectl merges them), else ~/.kube/config, else the in-cluster service account')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use (default: its current-context)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use (default: the context''s)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use (default: the context''s)')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Username to impersonate for the requests')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate (repeatable)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'How long to wait for each request: a duration such as 500ms, 10s, 1m (a bare number is seconds); 0 waits forever')
            [CompletionResult]::new('--tls-server-name', '--tls-server-name', [CompletionResultType]::ParameterName, 'Server name to check the API server''s certificate against (default: the server''s host)')
            [CompletionResult]::new('--chunk-size', '--chunk-size', [CompletionResultType]::ParameterName, 'Objects per page when listing (0: no paging), as kubectl''s --chunk-size')
            [CompletionResult]::new('--full', '--full', [CompletionResultType]::ParameterName, 'Write every field of every object (environment values, commands, annotations), not only what scheduling reads; check the file before sharing it')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Every namespace, as a snapshot always holds (accepted, as for kubectl get -A)')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'Every namespace, as a snapshot always holds (accepted, as for kubectl get -A)')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Do not verify the API server''s certificate (insecure; for tests only)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'kubectl-affinity;completion' {
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace of the pod, for explain and whatif (default: the kubeconfig context''s, else "default"; whatif: a manifest''s own namespace, which -n must then match, as for kubectl apply). Not for snapshot, which saves every namespace')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace of the pod, for explain and whatif (default: the kubeconfig context''s, else "default"; whatif: a manifest''s own namespace, which -n must then match, as for kubectl apply). Not for snapshot, which saves every namespace')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file. Default: $KUBECONFIG (a list of files, merged as kubectl merges them), else ~/.kube/config, else the in-cluster service account')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use (default: its current-context)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use (default: the context''s)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use (default: the context''s)')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Username to impersonate for the requests')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate (repeatable)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'How long to wait for each request: a duration such as 500ms, 10s, 1m (a bare number is seconds); 0 waits forever')
            [CompletionResult]::new('--tls-server-name', '--tls-server-name', [CompletionResultType]::ParameterName, 'Server name to check the API server''s certificate against (default: the server''s host)')
            [CompletionResult]::new('--chunk-size', '--chunk-size', [CompletionResultType]::ParameterName, 'Objects per page when listing (0: no paging), as kubectl''s --chunk-size')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Do not verify the API server''s certificate (insecure; for tests only)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'kubectl-affinity;__complete' {
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace of the pod, for explain and whatif (default: the kubeconfig context''s, else "default"; whatif: a manifest''s own namespace, which -n must then match, as for kubectl apply). Not for snapshot, which saves every namespace')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace of the pod, for explain and whatif (default: the kubeconfig context''s, else "default"; whatif: a manifest''s own namespace, which -n must then match, as for kubectl apply). Not for snapshot, which saves every namespace')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file. Default: $KUBECONFIG (a list of files, merged as kubectl merges them), else ~/.kube/config, else the in-cluster service account')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use (default: its current-context)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use (default: the context''s)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use (default: the context''s)')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Username to impersonate for the requests')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate (repeatable)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'How long to wait for each request: a duration such as 500ms, 10s, 1m (a bare number is seconds); 0 waits forever')
            [CompletionResult]::new('--tls-server-name', '--tls-server-name', [CompletionResultType]::ParameterName, 'Server name to check the API server''s certificate against (default: the server''s host)')
            [CompletionResult]::new('--chunk-size', '--chunk-size', [CompletionResultType]::ParameterName, 'Objects per page when listing (0: no paging), as kubectl''s --chunk-size')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Do not verify the API server''s certificate (insecure; for tests only)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'kubectl-affinity;help' {
            [CompletionResult]::new('explain', 'explain', [CompletionResultType]::ParameterValue, 'Explain the placement of an existing pod: every node, every rule, the score')
            [CompletionResult]::new('whatif', 'whatif', [CompletionResultType]::ParameterValue, 'Evaluate a pod manifest that is not created yet (a Pod or a workload''s pod template)')
            [CompletionResult]::new('audit', 'audit', [CompletionResultType]::ParameterValue, 'The cluster at once: Pending pods with the FailedScheduling message the scheduler would write now, and running pods whose node no longer satisfies their required rules')
            [CompletionResult]::new('snapshot', 'snapshot', [CompletionResultType]::ParameterValue, 'Save the cluster''s nodes, pods and namespaces in the file format --snapshot reads, to analyse offline, share in a bug report, or replay in tests')
            [CompletionResult]::new('completion', 'completion', [CompletionResultType]::ParameterValue, 'Print a shell completion script for kubectl-affinity (bash, zsh, fish or powershell)')
            [CompletionResult]::new('__complete', '__complete', [CompletionResultType]::ParameterValue, 'Answers kubectl''s plugin completion (cobra''s __complete protocol); called by the kubectl_complete-affinity shim')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'kubectl-affinity;help;explain' {
            break
        }
        'kubectl-affinity;help;whatif' {
            break
        }
        'kubectl-affinity;help;audit' {
            break
        }
        'kubectl-affinity;help;snapshot' {
            break
        }
        'kubectl-affinity;help;completion' {
            break
        }
        'kubectl-affinity;help;__complete' {
            break
        }
        'kubectl-affinity;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
