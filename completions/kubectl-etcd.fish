# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_kubectl_etcd_global_optspecs
    string join \n endpoints= cacert= cert= key= user= password= no-discover dial-timeout= command-timeout= quota-backend-bytes= k/kubeconfig= context= all-contexts n/namespace= p/pod= s/credentials-secret= as= as-group= request-timeout= connect= kind= agent-image= agent-namespace= o/output= v/verbose log-format= h/help V/version
end

function __fish_kubectl_etcd_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_kubectl_etcd_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_kubectl_etcd_using_subcommand
    set -l cmd (__fish_kubectl_etcd_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c kubectl-etcd -n "__fish_kubectl_etcd_needs_command" -l endpoints -d 'etcd client URLs to start from (comma-separated or repeated). A URL without a scheme uses https when --cacert is set, else http' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_needs_command" -l cacert -d 'CA bundle (PEM) that signed the members\' server certificates' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_needs_command" -l cert -d 'Client certificate (PEM) for mutual TLS; needs --key' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_needs_command" -l key -d 'Client private key (PEM) for mutual TLS; needs --cert' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_needs_command" -l user -d 'etcd user name, or `name:password`. Without a password (here, in --password or in ETCDCTL_PASSWORD) it is asked for on a terminal' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_needs_command" -l password -d 'Password for --user' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_needs_command" -l dial-timeout -d 'Time allowed to connect (TCP, TLS and authentication) to one member' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_needs_command" -l command-timeout -d 'Time allowed for one probe RPC (Status, MemberList, AlarmList) on one member; a member that does not answer in time is reported unreachable' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_needs_command" -l quota-backend-bytes -d 'Backend quota to assume for members that do not report one (etcd before 3.6). Kubernetes quantity, e.g. 8Gi. Default: etcd\'s 2Gi' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_needs_command" -s k -l kubeconfig -d 'Path to the kubeconfig file (plugin mode). Default: $KUBECONFIG (several paths are merged), else ~/.kube/config, else the in-cluster service account' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_needs_command" -l context -d 'The kubeconfig context to use (plugin mode); more than once, for `status -A`, `doctor -A`, `defrag -A`/`-l` over each' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_needs_command" -s n -l namespace -d 'Namespace of the EtcdCluster. Default: the context\'s namespace, else `default`' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_needs_command" -s p -l pod -d 'An etcd member\'s Pod, as the etcd-operator\'s own Go plugin takes it: selects the Pod\'s EtcdCluster and, for `snapshot save` and `leave`, its member (plugin mode)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_needs_command" -s s -l credentials-secret -d 'The operator plugin\'s credentials Secret: refused, since the EtcdCluster names its own (or use --user)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_needs_command" -l as -d 'Act as this Kubernetes user (impersonation), e.g. system:serviceaccount:NS:NAME' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_needs_command" -l as-group -d 'Group to impersonate along with --as (repeatable)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_needs_command" -l request-timeout -d 'How long to wait for the API server\'s answer to one request, as kubectl\'s flag: a duration (5s, 1m) or whole seconds (30); 0 waits as long as it takes. Default: 30 s to connect, then no limit. A watch or port-forward is bounded until it is answered, not after' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_needs_command" -l connect -d 'How to reach members in plugin mode: `direct` dials each member\'s Pod IP (or its in-cluster DNS name); `port-forward` tunnels to each member Pod through the API server; `auto` is direct inside a Pod, else port-forward. Certificates are always verified against the member\'s in-cluster DNS name' -r -f -a "auto\t''
direct\t''
port-forward\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_needs_command" -l kind -d 'The kind of cluster a name means (plugin mode). Default: every kind served; a name two kinds hold is refused until one is picked' -r -f -a "cozystack\t'The cozystack etcd-operator\'s EtcdCluster (etcd-operator.cozystack.io)'
etcd-io\t'The etcd project\'s operator\'s EtcdCluster (operator.etcd.io)'
control-plane\t'A control plane\'s own etcd: static Pods the kubelet runs (kubeadm, rke2), reached from their node through an agent Pod'"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_needs_command" -l agent-image -d 'A control plane\'s etcd (kubeadm\'s static Pods) is reached through a short-lived agent Pod on one of its nodes: this image of the tool' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_needs_command" -l agent-namespace -d 'The namespace of that agent\'s Job (hostNetwork and hostPath files: its Pod Security level must be privileged)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_needs_command" -s o -l output -d 'Output format. etcdctl\'s ETCDCTL_WRITE_OUT is read too (its `simple` is the table; `fields` and `protobuf` have no counterpart)' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_needs_command" -l log-format -d 'How stderr is written: `text` for a person, `json` for a log collector (one JSON object per line: timestamp, level, message and the event\'s fields; messages and errors too)' -r -f -a "text\t''
json\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_needs_command" -l no-discover -d 'Use only the given endpoints; do not add members found in MemberList'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_needs_command" -l all-contexts -d 'Every kubeconfig context, for `status -A`, `doctor -A`, `defrag -A`/`-l`'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_needs_command" -s v -l verbose -d 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_needs_command" -s V -l version -d 'Print version'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_needs_command" -f -a "status" -d 'One row per member: size, in use, quota use, leader, raft progress, alarms and a health verdict'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_needs_command" -f -a "members" -d 'The member list: ids, names, peer and client URLs, learner flag'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_needs_command" -f -a "doctor" -d 'One report of what needs attention and what to do about it'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_needs_command" -f -a "member" -d 'Add a member or a learner, promote a learner, remove a member, with quorum checked first (etcdctl\'s `member` verbs)'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_needs_command" -f -a "leave" -d 'The etcd-operator plugin\'s `leave -p POD`: `member remove` of the Pod\'s member, with its checks'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_needs_command" -f -a "remove-member" -d 'The etcd-operator plugin\'s `remove-member ID`: `member remove`'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_needs_command" -f -a "add-member" -d 'The etcd-operator plugin\'s `add-member URL`: refused, with the `member add` that does it'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_needs_command" -f -a "defrag" -d 'Health-gated, follower-first defragmentation, one member at a time'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_needs_command" -f -a "alarm" -d 'List or disarm alarms (NOSPACE, CORRUPT), with member names'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_needs_command" -f -a "move-leader" -d 'Transfer leadership to another voter (the most caught-up healthy one unless --to names it)'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_needs_command" -f -a "forfeit-leadership" -d 'Transfer leadership to another voter (the most caught-up healthy one unless --to names it)'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_needs_command" -f -a "compact" -d 'Compact the key-value history: drop every revision before the one kept, through the leader, after the health gate passes'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_needs_command" -f -a "usage" -d 'Which key prefixes hold the space and which take the writes'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_needs_command" -f -a "snapshot" -d 'Save a member\'s backend to a file (a backup etcdutl can restore), or describe a saved one'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_needs_command" -f -a "traffic" -d 'The client Service\'s spec.trafficDistribution, kept in step with the EtcdCluster annotation the operator reads'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_needs_command" -f -a "completion" -d 'Print a shell completion script'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_needs_command" -f -a "version" -d 'Print the version'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand status" -l max-raft-lag -d 'Largest tolerated raft lag, in entries: a member\'s committed index minus its applied index, and its distance behind the leader\'s index' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand status" -l endpoints -d 'etcd client URLs to start from (comma-separated or repeated). A URL without a scheme uses https when --cacert is set, else http' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand status" -l cacert -d 'CA bundle (PEM) that signed the members\' server certificates' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand status" -l cert -d 'Client certificate (PEM) for mutual TLS; needs --key' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand status" -l key -d 'Client private key (PEM) for mutual TLS; needs --cert' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand status" -l user -d 'etcd user name, or `name:password`. Without a password (here, in --password or in ETCDCTL_PASSWORD) it is asked for on a terminal' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand status" -l password -d 'Password for --user' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand status" -l dial-timeout -d 'Time allowed to connect (TCP, TLS and authentication) to one member' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand status" -l command-timeout -d 'Time allowed for one probe RPC (Status, MemberList, AlarmList) on one member; a member that does not answer in time is reported unreachable' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand status" -l quota-backend-bytes -d 'Backend quota to assume for members that do not report one (etcd before 3.6). Kubernetes quantity, e.g. 8Gi. Default: etcd\'s 2Gi' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand status" -s k -l kubeconfig -d 'Path to the kubeconfig file (plugin mode). Default: $KUBECONFIG (several paths are merged), else ~/.kube/config, else the in-cluster service account' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand status" -l context -d 'The kubeconfig context to use (plugin mode); more than once, for `status -A`, `doctor -A`, `defrag -A`/`-l` over each' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand status" -s n -l namespace -d 'Namespace of the EtcdCluster. Default: the context\'s namespace, else `default`' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand status" -s p -l pod -d 'An etcd member\'s Pod, as the etcd-operator\'s own Go plugin takes it: selects the Pod\'s EtcdCluster and, for `snapshot save` and `leave`, its member (plugin mode)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand status" -s s -l credentials-secret -d 'The operator plugin\'s credentials Secret: refused, since the EtcdCluster names its own (or use --user)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand status" -l as -d 'Act as this Kubernetes user (impersonation), e.g. system:serviceaccount:NS:NAME' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand status" -l as-group -d 'Group to impersonate along with --as (repeatable)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand status" -l request-timeout -d 'How long to wait for the API server\'s answer to one request, as kubectl\'s flag: a duration (5s, 1m) or whole seconds (30); 0 waits as long as it takes. Default: 30 s to connect, then no limit. A watch or port-forward is bounded until it is answered, not after' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand status" -l connect -d 'How to reach members in plugin mode: `direct` dials each member\'s Pod IP (or its in-cluster DNS name); `port-forward` tunnels to each member Pod through the API server; `auto` is direct inside a Pod, else port-forward. Certificates are always verified against the member\'s in-cluster DNS name' -r -f -a "auto\t''
direct\t''
port-forward\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand status" -l kind -d 'The kind of cluster a name means (plugin mode). Default: every kind served; a name two kinds hold is refused until one is picked' -r -f -a "cozystack\t'The cozystack etcd-operator\'s EtcdCluster (etcd-operator.cozystack.io)'
etcd-io\t'The etcd project\'s operator\'s EtcdCluster (operator.etcd.io)'
control-plane\t'A control plane\'s own etcd: static Pods the kubelet runs (kubeadm, rke2), reached from their node through an agent Pod'"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand status" -l agent-image -d 'A control plane\'s etcd (kubeadm\'s static Pods) is reached through a short-lived agent Pod on one of its nodes: this image of the tool' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand status" -l agent-namespace -d 'The namespace of that agent\'s Job (hostNetwork and hostPath files: its Pod Security level must be privileged)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand status" -s o -l output -d 'Output format. etcdctl\'s ETCDCTL_WRITE_OUT is read too (its `simple` is the table; `fields` and `protobuf` have no counterpart)' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand status" -l log-format -d 'How stderr is written: `text` for a person, `json` for a log collector (one JSON object per line: timestamp, level, message and the event\'s fields; messages and errors too)' -r -f -a "text\t''
json\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand status" -s A -l all-namespaces -d 'Every EtcdCluster in every namespace, probed concurrently'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand status" -l check -d 'Evaluate the health gate and exit 1, listing every reason, when it would refuse maintenance. Usable as a probe'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand status" -l allow-quorum-loss -d 'Accept a cluster with fewer than three voting members, where taking one member out for maintenance loses quorum'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand status" -l no-discover -d 'Use only the given endpoints; do not add members found in MemberList'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand status" -l all-contexts -d 'Every kubeconfig context, for `status -A`, `doctor -A`, `defrag -A`/`-l`'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand status" -s v -l verbose -d 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand status" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand members" -l endpoints -d 'etcd client URLs to start from (comma-separated or repeated). A URL without a scheme uses https when --cacert is set, else http' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand members" -l cacert -d 'CA bundle (PEM) that signed the members\' server certificates' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand members" -l cert -d 'Client certificate (PEM) for mutual TLS; needs --key' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand members" -l key -d 'Client private key (PEM) for mutual TLS; needs --cert' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand members" -l user -d 'etcd user name, or `name:password`. Without a password (here, in --password or in ETCDCTL_PASSWORD) it is asked for on a terminal' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand members" -l password -d 'Password for --user' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand members" -l dial-timeout -d 'Time allowed to connect (TCP, TLS and authentication) to one member' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand members" -l command-timeout -d 'Time allowed for one probe RPC (Status, MemberList, AlarmList) on one member; a member that does not answer in time is reported unreachable' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand members" -l quota-backend-bytes -d 'Backend quota to assume for members that do not report one (etcd before 3.6). Kubernetes quantity, e.g. 8Gi. Default: etcd\'s 2Gi' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand members" -s k -l kubeconfig -d 'Path to the kubeconfig file (plugin mode). Default: $KUBECONFIG (several paths are merged), else ~/.kube/config, else the in-cluster service account' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand members" -l context -d 'The kubeconfig context to use (plugin mode); more than once, for `status -A`, `doctor -A`, `defrag -A`/`-l` over each' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand members" -s n -l namespace -d 'Namespace of the EtcdCluster. Default: the context\'s namespace, else `default`' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand members" -s p -l pod -d 'An etcd member\'s Pod, as the etcd-operator\'s own Go plugin takes it: selects the Pod\'s EtcdCluster and, for `snapshot save` and `leave`, its member (plugin mode)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand members" -s s -l credentials-secret -d 'The operator plugin\'s credentials Secret: refused, since the EtcdCluster names its own (or use --user)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand members" -l as -d 'Act as this Kubernetes user (impersonation), e.g. system:serviceaccount:NS:NAME' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand members" -l as-group -d 'Group to impersonate along with --as (repeatable)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand members" -l request-timeout -d 'How long to wait for the API server\'s answer to one request, as kubectl\'s flag: a duration (5s, 1m) or whole seconds (30); 0 waits as long as it takes. Default: 30 s to connect, then no limit. A watch or port-forward is bounded until it is answered, not after' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand members" -l connect -d 'How to reach members in plugin mode: `direct` dials each member\'s Pod IP (or its in-cluster DNS name); `port-forward` tunnels to each member Pod through the API server; `auto` is direct inside a Pod, else port-forward. Certificates are always verified against the member\'s in-cluster DNS name' -r -f -a "auto\t''
direct\t''
port-forward\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand members" -l kind -d 'The kind of cluster a name means (plugin mode). Default: every kind served; a name two kinds hold is refused until one is picked' -r -f -a "cozystack\t'The cozystack etcd-operator\'s EtcdCluster (etcd-operator.cozystack.io)'
etcd-io\t'The etcd project\'s operator\'s EtcdCluster (operator.etcd.io)'
control-plane\t'A control plane\'s own etcd: static Pods the kubelet runs (kubeadm, rke2), reached from their node through an agent Pod'"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand members" -l agent-image -d 'A control plane\'s etcd (kubeadm\'s static Pods) is reached through a short-lived agent Pod on one of its nodes: this image of the tool' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand members" -l agent-namespace -d 'The namespace of that agent\'s Job (hostNetwork and hostPath files: its Pod Security level must be privileged)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand members" -s o -l output -d 'Output format. etcdctl\'s ETCDCTL_WRITE_OUT is read too (its `simple` is the table; `fields` and `protobuf` have no counterpart)' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand members" -l log-format -d 'How stderr is written: `text` for a person, `json` for a log collector (one JSON object per line: timestamp, level, message and the event\'s fields; messages and errors too)' -r -f -a "text\t''
json\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand members" -l no-discover -d 'Use only the given endpoints; do not add members found in MemberList'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand members" -l all-contexts -d 'Every kubeconfig context, for `status -A`, `doctor -A`, `defrag -A`/`-l`'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand members" -s v -l verbose -d 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand members" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand doctor" -l fail-on -d 'Exit 1 when any finding is at least this severe' -r -f -a "warning\t''
critical\t''
never\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand doctor" -l churn-window -d 'When a member needs a defrag: how long to count the writes, to name the prefix whose churn makes the free space (0: do not sample)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand doctor" -l upgrade-to -d 'Also check what stands in the way of upgrading to this etcd release (a minor line such as 3.6, or an exact release such as 3.6.16): patch floors, skipped minors, an unfinished upgrade or downgrade, flags the release no longer accepts, health. Blockers are critical' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand doctor" -l acknowledge -d 'Acknowledge a finding by its check id (the CHECK column, e.g. known-defect/v3.5-data-inconsistency): it stays listed, marked acknowledged, and no longer counts for --fail-on or for the severity --serve exposes. Repeat it, or separate ids with commas; KUBECTL_ETCD_ACKNOWLEDGE sets it for a CronJob or Deployment (the flag replaces it)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand doctor" -l max-raft-lag -d 'Largest tolerated raft lag, in entries: a member\'s committed index minus its applied index, and its distance behind the leader\'s index' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand doctor" -l serve -d 'Keep examining, and serve what is found as Prometheus metrics (/metrics) with probes (/healthz, /readyz) over HTTP on this IP:PORT, e.g. 0.0.0.0:9464 in a Pod. Every cluster in scope (-A: every namespace) is examined every --interval; stops on Ctrl-C or SIGTERM. Nothing is printed and the exit is 0, so --fail-on and -o are refused with it' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand doctor" -l interval -d 'With --serve: how often each cluster is examined (each cluster on its own clock, with up to a tenth more at random)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand doctor" -l examine-timeout -d 'With --serve: how long one examination may take before it is given up and the cluster shown as not examined' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand doctor" -l serve-as -d 'With --serve and --endpoints: the NAMESPACE/NAME to serve the cluster under, as `doctor -A` lists it (its kind from --kind), e.g. kube-system/etcd for a control plane\'s own etcd examined on its node with the node\'s certificates, so that alerts name the cluster as the plugin does and their advice runs as printed' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand doctor" -l max-concurrent -d 'With --serve: how many clusters are examined at once, 1 to 64' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand doctor" -l endpoints -d 'etcd client URLs to start from (comma-separated or repeated). A URL without a scheme uses https when --cacert is set, else http' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand doctor" -l cacert -d 'CA bundle (PEM) that signed the members\' server certificates' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand doctor" -l cert -d 'Client certificate (PEM) for mutual TLS; needs --key' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand doctor" -l key -d 'Client private key (PEM) for mutual TLS; needs --cert' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand doctor" -l user -d 'etcd user name, or `name:password`. Without a password (here, in --password or in ETCDCTL_PASSWORD) it is asked for on a terminal' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand doctor" -l password -d 'Password for --user' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand doctor" -l dial-timeout -d 'Time allowed to connect (TCP, TLS and authentication) to one member' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand doctor" -l command-timeout -d 'Time allowed for one probe RPC (Status, MemberList, AlarmList) on one member; a member that does not answer in time is reported unreachable' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand doctor" -l quota-backend-bytes -d 'Backend quota to assume for members that do not report one (etcd before 3.6). Kubernetes quantity, e.g. 8Gi. Default: etcd\'s 2Gi' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand doctor" -s k -l kubeconfig -d 'Path to the kubeconfig file (plugin mode). Default: $KUBECONFIG (several paths are merged), else ~/.kube/config, else the in-cluster service account' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand doctor" -l context -d 'The kubeconfig context to use (plugin mode); more than once, for `status -A`, `doctor -A`, `defrag -A`/`-l` over each' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand doctor" -s n -l namespace -d 'Namespace of the EtcdCluster. Default: the context\'s namespace, else `default`' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand doctor" -s p -l pod -d 'An etcd member\'s Pod, as the etcd-operator\'s own Go plugin takes it: selects the Pod\'s EtcdCluster and, for `snapshot save` and `leave`, its member (plugin mode)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand doctor" -s s -l credentials-secret -d 'The operator plugin\'s credentials Secret: refused, since the EtcdCluster names its own (or use --user)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand doctor" -l as -d 'Act as this Kubernetes user (impersonation), e.g. system:serviceaccount:NS:NAME' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand doctor" -l as-group -d 'Group to impersonate along with --as (repeatable)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand doctor" -l request-timeout -d 'How long to wait for the API server\'s answer to one request, as kubectl\'s flag: a duration (5s, 1m) or whole seconds (30); 0 waits as long as it takes. Default: 30 s to connect, then no limit. A watch or port-forward is bounded until it is answered, not after' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand doctor" -l connect -d 'How to reach members in plugin mode: `direct` dials each member\'s Pod IP (or its in-cluster DNS name); `port-forward` tunnels to each member Pod through the API server; `auto` is direct inside a Pod, else port-forward. Certificates are always verified against the member\'s in-cluster DNS name' -r -f -a "auto\t''
direct\t''
port-forward\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand doctor" -l kind -d 'The kind of cluster a name means (plugin mode). Default: every kind served; a name two kinds hold is refused until one is picked' -r -f -a "cozystack\t'The cozystack etcd-operator\'s EtcdCluster (etcd-operator.cozystack.io)'
etcd-io\t'The etcd project\'s operator\'s EtcdCluster (operator.etcd.io)'
control-plane\t'A control plane\'s own etcd: static Pods the kubelet runs (kubeadm, rke2), reached from their node through an agent Pod'"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand doctor" -l agent-image -d 'A control plane\'s etcd (kubeadm\'s static Pods) is reached through a short-lived agent Pod on one of its nodes: this image of the tool' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand doctor" -l agent-namespace -d 'The namespace of that agent\'s Job (hostNetwork and hostPath files: its Pod Security level must be privileged)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand doctor" -s o -l output -d 'Output format. etcdctl\'s ETCDCTL_WRITE_OUT is read too (its `simple` is the table; `fields` and `protobuf` have no counterpart)' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand doctor" -l log-format -d 'How stderr is written: `text` for a person, `json` for a log collector (one JSON object per line: timestamp, level, message and the event\'s fields; messages and errors too)' -r -f -a "text\t''
json\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand doctor" -s A -l all-namespaces -d 'Every EtcdCluster in every namespace'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand doctor" -l allow-quorum-loss -d 'Accept a cluster with fewer than three voting members, where taking one member out for maintenance loses quorum'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand doctor" -l no-discover -d 'Use only the given endpoints; do not add members found in MemberList'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand doctor" -l all-contexts -d 'Every kubeconfig context, for `status -A`, `doctor -A`, `defrag -A`/`-l`'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand doctor" -s v -l verbose -d 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand doctor" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and not __fish_seen_subcommand_from list add promote remove help" -l endpoints -d 'etcd client URLs to start from (comma-separated or repeated). A URL without a scheme uses https when --cacert is set, else http' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and not __fish_seen_subcommand_from list add promote remove help" -l cacert -d 'CA bundle (PEM) that signed the members\' server certificates' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and not __fish_seen_subcommand_from list add promote remove help" -l cert -d 'Client certificate (PEM) for mutual TLS; needs --key' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and not __fish_seen_subcommand_from list add promote remove help" -l key -d 'Client private key (PEM) for mutual TLS; needs --cert' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and not __fish_seen_subcommand_from list add promote remove help" -l user -d 'etcd user name, or `name:password`. Without a password (here, in --password or in ETCDCTL_PASSWORD) it is asked for on a terminal' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and not __fish_seen_subcommand_from list add promote remove help" -l password -d 'Password for --user' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and not __fish_seen_subcommand_from list add promote remove help" -l dial-timeout -d 'Time allowed to connect (TCP, TLS and authentication) to one member' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and not __fish_seen_subcommand_from list add promote remove help" -l command-timeout -d 'Time allowed for one probe RPC (Status, MemberList, AlarmList) on one member; a member that does not answer in time is reported unreachable' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and not __fish_seen_subcommand_from list add promote remove help" -l quota-backend-bytes -d 'Backend quota to assume for members that do not report one (etcd before 3.6). Kubernetes quantity, e.g. 8Gi. Default: etcd\'s 2Gi' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and not __fish_seen_subcommand_from list add promote remove help" -s k -l kubeconfig -d 'Path to the kubeconfig file (plugin mode). Default: $KUBECONFIG (several paths are merged), else ~/.kube/config, else the in-cluster service account' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and not __fish_seen_subcommand_from list add promote remove help" -l context -d 'The kubeconfig context to use (plugin mode); more than once, for `status -A`, `doctor -A`, `defrag -A`/`-l` over each' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and not __fish_seen_subcommand_from list add promote remove help" -s n -l namespace -d 'Namespace of the EtcdCluster. Default: the context\'s namespace, else `default`' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and not __fish_seen_subcommand_from list add promote remove help" -s p -l pod -d 'An etcd member\'s Pod, as the etcd-operator\'s own Go plugin takes it: selects the Pod\'s EtcdCluster and, for `snapshot save` and `leave`, its member (plugin mode)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and not __fish_seen_subcommand_from list add promote remove help" -s s -l credentials-secret -d 'The operator plugin\'s credentials Secret: refused, since the EtcdCluster names its own (or use --user)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and not __fish_seen_subcommand_from list add promote remove help" -l as -d 'Act as this Kubernetes user (impersonation), e.g. system:serviceaccount:NS:NAME' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and not __fish_seen_subcommand_from list add promote remove help" -l as-group -d 'Group to impersonate along with --as (repeatable)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and not __fish_seen_subcommand_from list add promote remove help" -l request-timeout -d 'How long to wait for the API server\'s answer to one request, as kubectl\'s flag: a duration (5s, 1m) or whole seconds (30); 0 waits as long as it takes. Default: 30 s to connect, then no limit. A watch or port-forward is bounded until it is answered, not after' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and not __fish_seen_subcommand_from list add promote remove help" -l connect -d 'How to reach members in plugin mode: `direct` dials each member\'s Pod IP (or its in-cluster DNS name); `port-forward` tunnels to each member Pod through the API server; `auto` is direct inside a Pod, else port-forward. Certificates are always verified against the member\'s in-cluster DNS name' -r -f -a "auto\t''
direct\t''
port-forward\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and not __fish_seen_subcommand_from list add promote remove help" -l kind -d 'The kind of cluster a name means (plugin mode). Default: every kind served; a name two kinds hold is refused until one is picked' -r -f -a "cozystack\t'The cozystack etcd-operator\'s EtcdCluster (etcd-operator.cozystack.io)'
etcd-io\t'The etcd project\'s operator\'s EtcdCluster (operator.etcd.io)'
control-plane\t'A control plane\'s own etcd: static Pods the kubelet runs (kubeadm, rke2), reached from their node through an agent Pod'"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and not __fish_seen_subcommand_from list add promote remove help" -l agent-image -d 'A control plane\'s etcd (kubeadm\'s static Pods) is reached through a short-lived agent Pod on one of its nodes: this image of the tool' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and not __fish_seen_subcommand_from list add promote remove help" -l agent-namespace -d 'The namespace of that agent\'s Job (hostNetwork and hostPath files: its Pod Security level must be privileged)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and not __fish_seen_subcommand_from list add promote remove help" -s o -l output -d 'Output format. etcdctl\'s ETCDCTL_WRITE_OUT is read too (its `simple` is the table; `fields` and `protobuf` have no counterpart)' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and not __fish_seen_subcommand_from list add promote remove help" -l log-format -d 'How stderr is written: `text` for a person, `json` for a log collector (one JSON object per line: timestamp, level, message and the event\'s fields; messages and errors too)' -r -f -a "text\t''
json\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and not __fish_seen_subcommand_from list add promote remove help" -l no-discover -d 'Use only the given endpoints; do not add members found in MemberList'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and not __fish_seen_subcommand_from list add promote remove help" -l all-contexts -d 'Every kubeconfig context, for `status -A`, `doctor -A`, `defrag -A`/`-l`'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and not __fish_seen_subcommand_from list add promote remove help" -s v -l verbose -d 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and not __fish_seen_subcommand_from list add promote remove help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and not __fish_seen_subcommand_from list add promote remove help" -f -a "list" -d 'The member list (the same as `members`)'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and not __fish_seen_subcommand_from list add promote remove help" -f -a "add" -d 'Add a member (a voter, or a learner with --learner) and print the settings to start it with'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and not __fish_seen_subcommand_from list add promote remove help" -f -a "promote" -d 'Make a learner a voter, once it has caught up with the leader'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and not __fish_seen_subcommand_from list add promote remove help" -f -a "remove" -d 'Remove a member (by name, or by hex id for one that never started)'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and not __fish_seen_subcommand_from list add promote remove help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from list" -l endpoints -d 'etcd client URLs to start from (comma-separated or repeated). A URL without a scheme uses https when --cacert is set, else http' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from list" -l cacert -d 'CA bundle (PEM) that signed the members\' server certificates' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from list" -l cert -d 'Client certificate (PEM) for mutual TLS; needs --key' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from list" -l key -d 'Client private key (PEM) for mutual TLS; needs --cert' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from list" -l user -d 'etcd user name, or `name:password`. Without a password (here, in --password or in ETCDCTL_PASSWORD) it is asked for on a terminal' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from list" -l password -d 'Password for --user' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from list" -l dial-timeout -d 'Time allowed to connect (TCP, TLS and authentication) to one member' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from list" -l command-timeout -d 'Time allowed for one probe RPC (Status, MemberList, AlarmList) on one member; a member that does not answer in time is reported unreachable' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from list" -l quota-backend-bytes -d 'Backend quota to assume for members that do not report one (etcd before 3.6). Kubernetes quantity, e.g. 8Gi. Default: etcd\'s 2Gi' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from list" -s k -l kubeconfig -d 'Path to the kubeconfig file (plugin mode). Default: $KUBECONFIG (several paths are merged), else ~/.kube/config, else the in-cluster service account' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from list" -l context -d 'The kubeconfig context to use (plugin mode); more than once, for `status -A`, `doctor -A`, `defrag -A`/`-l` over each' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from list" -s n -l namespace -d 'Namespace of the EtcdCluster. Default: the context\'s namespace, else `default`' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from list" -s p -l pod -d 'An etcd member\'s Pod, as the etcd-operator\'s own Go plugin takes it: selects the Pod\'s EtcdCluster and, for `snapshot save` and `leave`, its member (plugin mode)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from list" -s s -l credentials-secret -d 'The operator plugin\'s credentials Secret: refused, since the EtcdCluster names its own (or use --user)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from list" -l as -d 'Act as this Kubernetes user (impersonation), e.g. system:serviceaccount:NS:NAME' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from list" -l as-group -d 'Group to impersonate along with --as (repeatable)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from list" -l request-timeout -d 'How long to wait for the API server\'s answer to one request, as kubectl\'s flag: a duration (5s, 1m) or whole seconds (30); 0 waits as long as it takes. Default: 30 s to connect, then no limit. A watch or port-forward is bounded until it is answered, not after' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from list" -l connect -d 'How to reach members in plugin mode: `direct` dials each member\'s Pod IP (or its in-cluster DNS name); `port-forward` tunnels to each member Pod through the API server; `auto` is direct inside a Pod, else port-forward. Certificates are always verified against the member\'s in-cluster DNS name' -r -f -a "auto\t''
direct\t''
port-forward\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from list" -l kind -d 'The kind of cluster a name means (plugin mode). Default: every kind served; a name two kinds hold is refused until one is picked' -r -f -a "cozystack\t'The cozystack etcd-operator\'s EtcdCluster (etcd-operator.cozystack.io)'
etcd-io\t'The etcd project\'s operator\'s EtcdCluster (operator.etcd.io)'
control-plane\t'A control plane\'s own etcd: static Pods the kubelet runs (kubeadm, rke2), reached from their node through an agent Pod'"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from list" -l agent-image -d 'A control plane\'s etcd (kubeadm\'s static Pods) is reached through a short-lived agent Pod on one of its nodes: this image of the tool' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from list" -l agent-namespace -d 'The namespace of that agent\'s Job (hostNetwork and hostPath files: its Pod Security level must be privileged)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from list" -s o -l output -d 'Output format. etcdctl\'s ETCDCTL_WRITE_OUT is read too (its `simple` is the table; `fields` and `protobuf` have no counterpart)' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from list" -l log-format -d 'How stderr is written: `text` for a person, `json` for a log collector (one JSON object per line: timestamp, level, message and the event\'s fields; messages and errors too)' -r -f -a "text\t''
json\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from list" -l no-discover -d 'Use only the given endpoints; do not add members found in MemberList'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from list" -l all-contexts -d 'Every kubeconfig context, for `status -A`, `doctor -A`, `defrag -A`/`-l`'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from list" -s v -l verbose -d 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from add" -l peer-urls -d 'The new member\'s peer URLs, comma-separated' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from add" -l confirm -d 'The typed confirmation for --force without a terminal: the member\'s name or id, as given' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from add" -l endpoints -d 'etcd client URLs to start from (comma-separated or repeated). A URL without a scheme uses https when --cacert is set, else http' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from add" -l cacert -d 'CA bundle (PEM) that signed the members\' server certificates' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from add" -l cert -d 'Client certificate (PEM) for mutual TLS; needs --key' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from add" -l key -d 'Client private key (PEM) for mutual TLS; needs --cert' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from add" -l user -d 'etcd user name, or `name:password`. Without a password (here, in --password or in ETCDCTL_PASSWORD) it is asked for on a terminal' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from add" -l password -d 'Password for --user' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from add" -l dial-timeout -d 'Time allowed to connect (TCP, TLS and authentication) to one member' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from add" -l command-timeout -d 'Time allowed for one probe RPC (Status, MemberList, AlarmList) on one member; a member that does not answer in time is reported unreachable' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from add" -l quota-backend-bytes -d 'Backend quota to assume for members that do not report one (etcd before 3.6). Kubernetes quantity, e.g. 8Gi. Default: etcd\'s 2Gi' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from add" -s k -l kubeconfig -d 'Path to the kubeconfig file (plugin mode). Default: $KUBECONFIG (several paths are merged), else ~/.kube/config, else the in-cluster service account' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from add" -l context -d 'The kubeconfig context to use (plugin mode); more than once, for `status -A`, `doctor -A`, `defrag -A`/`-l` over each' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from add" -s n -l namespace -d 'Namespace of the EtcdCluster. Default: the context\'s namespace, else `default`' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from add" -s p -l pod -d 'An etcd member\'s Pod, as the etcd-operator\'s own Go plugin takes it: selects the Pod\'s EtcdCluster and, for `snapshot save` and `leave`, its member (plugin mode)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from add" -s s -l credentials-secret -d 'The operator plugin\'s credentials Secret: refused, since the EtcdCluster names its own (or use --user)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from add" -l as -d 'Act as this Kubernetes user (impersonation), e.g. system:serviceaccount:NS:NAME' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from add" -l as-group -d 'Group to impersonate along with --as (repeatable)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from add" -l request-timeout -d 'How long to wait for the API server\'s answer to one request, as kubectl\'s flag: a duration (5s, 1m) or whole seconds (30); 0 waits as long as it takes. Default: 30 s to connect, then no limit. A watch or port-forward is bounded until it is answered, not after' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from add" -l connect -d 'How to reach members in plugin mode: `direct` dials each member\'s Pod IP (or its in-cluster DNS name); `port-forward` tunnels to each member Pod through the API server; `auto` is direct inside a Pod, else port-forward. Certificates are always verified against the member\'s in-cluster DNS name' -r -f -a "auto\t''
direct\t''
port-forward\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from add" -l kind -d 'The kind of cluster a name means (plugin mode). Default: every kind served; a name two kinds hold is refused until one is picked' -r -f -a "cozystack\t'The cozystack etcd-operator\'s EtcdCluster (etcd-operator.cozystack.io)'
etcd-io\t'The etcd project\'s operator\'s EtcdCluster (operator.etcd.io)'
control-plane\t'A control plane\'s own etcd: static Pods the kubelet runs (kubeadm, rke2), reached from their node through an agent Pod'"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from add" -l agent-image -d 'A control plane\'s etcd (kubeadm\'s static Pods) is reached through a short-lived agent Pod on one of its nodes: this image of the tool' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from add" -l agent-namespace -d 'The namespace of that agent\'s Job (hostNetwork and hostPath files: its Pod Security level must be privileged)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from add" -s o -l output -d 'Output format. etcdctl\'s ETCDCTL_WRITE_OUT is read too (its `simple` is the table; `fields` and `protobuf` have no counterpart)' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from add" -l log-format -d 'How stderr is written: `text` for a person, `json` for a log collector (one JSON object per line: timestamp, level, message and the event\'s fields; messages and errors too)' -r -f -a "text\t''
json\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from add" -l learner -d 'Add it as a learner: it receives the log but does not vote until promoted, so quorum is never at risk while it catches up'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from add" -l force -d 'Act even when quorum would be at risk, or on an operator-managed EtcdCluster; asks for the member\'s name (or id) to be typed'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from add" -l dry-run -d 'Show the change and the quorum arithmetic, and change nothing'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from add" -s y -l yes -d 'Do not ask for confirmation (required when not on a terminal)'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from add" -l no-discover -d 'Use only the given endpoints; do not add members found in MemberList'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from add" -l all-contexts -d 'Every kubeconfig context, for `status -A`, `doctor -A`, `defrag -A`/`-l`'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from add" -s v -l verbose -d 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from add" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from promote" -l confirm -d 'The typed confirmation for --force without a terminal: the member\'s name or id, as given' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from promote" -l endpoints -d 'etcd client URLs to start from (comma-separated or repeated). A URL without a scheme uses https when --cacert is set, else http' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from promote" -l cacert -d 'CA bundle (PEM) that signed the members\' server certificates' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from promote" -l cert -d 'Client certificate (PEM) for mutual TLS; needs --key' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from promote" -l key -d 'Client private key (PEM) for mutual TLS; needs --cert' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from promote" -l user -d 'etcd user name, or `name:password`. Without a password (here, in --password or in ETCDCTL_PASSWORD) it is asked for on a terminal' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from promote" -l password -d 'Password for --user' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from promote" -l dial-timeout -d 'Time allowed to connect (TCP, TLS and authentication) to one member' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from promote" -l command-timeout -d 'Time allowed for one probe RPC (Status, MemberList, AlarmList) on one member; a member that does not answer in time is reported unreachable' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from promote" -l quota-backend-bytes -d 'Backend quota to assume for members that do not report one (etcd before 3.6). Kubernetes quantity, e.g. 8Gi. Default: etcd\'s 2Gi' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from promote" -s k -l kubeconfig -d 'Path to the kubeconfig file (plugin mode). Default: $KUBECONFIG (several paths are merged), else ~/.kube/config, else the in-cluster service account' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from promote" -l context -d 'The kubeconfig context to use (plugin mode); more than once, for `status -A`, `doctor -A`, `defrag -A`/`-l` over each' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from promote" -s n -l namespace -d 'Namespace of the EtcdCluster. Default: the context\'s namespace, else `default`' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from promote" -s p -l pod -d 'An etcd member\'s Pod, as the etcd-operator\'s own Go plugin takes it: selects the Pod\'s EtcdCluster and, for `snapshot save` and `leave`, its member (plugin mode)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from promote" -s s -l credentials-secret -d 'The operator plugin\'s credentials Secret: refused, since the EtcdCluster names its own (or use --user)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from promote" -l as -d 'Act as this Kubernetes user (impersonation), e.g. system:serviceaccount:NS:NAME' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from promote" -l as-group -d 'Group to impersonate along with --as (repeatable)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from promote" -l request-timeout -d 'How long to wait for the API server\'s answer to one request, as kubectl\'s flag: a duration (5s, 1m) or whole seconds (30); 0 waits as long as it takes. Default: 30 s to connect, then no limit. A watch or port-forward is bounded until it is answered, not after' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from promote" -l connect -d 'How to reach members in plugin mode: `direct` dials each member\'s Pod IP (or its in-cluster DNS name); `port-forward` tunnels to each member Pod through the API server; `auto` is direct inside a Pod, else port-forward. Certificates are always verified against the member\'s in-cluster DNS name' -r -f -a "auto\t''
direct\t''
port-forward\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from promote" -l kind -d 'The kind of cluster a name means (plugin mode). Default: every kind served; a name two kinds hold is refused until one is picked' -r -f -a "cozystack\t'The cozystack etcd-operator\'s EtcdCluster (etcd-operator.cozystack.io)'
etcd-io\t'The etcd project\'s operator\'s EtcdCluster (operator.etcd.io)'
control-plane\t'A control plane\'s own etcd: static Pods the kubelet runs (kubeadm, rke2), reached from their node through an agent Pod'"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from promote" -l agent-image -d 'A control plane\'s etcd (kubeadm\'s static Pods) is reached through a short-lived agent Pod on one of its nodes: this image of the tool' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from promote" -l agent-namespace -d 'The namespace of that agent\'s Job (hostNetwork and hostPath files: its Pod Security level must be privileged)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from promote" -s o -l output -d 'Output format. etcdctl\'s ETCDCTL_WRITE_OUT is read too (its `simple` is the table; `fields` and `protobuf` have no counterpart)' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from promote" -l log-format -d 'How stderr is written: `text` for a person, `json` for a log collector (one JSON object per line: timestamp, level, message and the event\'s fields; messages and errors too)' -r -f -a "text\t''
json\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from promote" -l force -d 'Act even when quorum would be at risk, or on an operator-managed EtcdCluster; asks for the member\'s name (or id) to be typed'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from promote" -l dry-run -d 'Show the change and the quorum arithmetic, and change nothing'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from promote" -s y -l yes -d 'Do not ask for confirmation (required when not on a terminal)'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from promote" -l no-discover -d 'Use only the given endpoints; do not add members found in MemberList'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from promote" -l all-contexts -d 'Every kubeconfig context, for `status -A`, `doctor -A`, `defrag -A`/`-l`'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from promote" -s v -l verbose -d 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from promote" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from remove" -l confirm -d 'The typed confirmation for --force without a terminal: the member\'s name or id, as given' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from remove" -l endpoints -d 'etcd client URLs to start from (comma-separated or repeated). A URL without a scheme uses https when --cacert is set, else http' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from remove" -l cacert -d 'CA bundle (PEM) that signed the members\' server certificates' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from remove" -l cert -d 'Client certificate (PEM) for mutual TLS; needs --key' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from remove" -l key -d 'Client private key (PEM) for mutual TLS; needs --cert' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from remove" -l user -d 'etcd user name, or `name:password`. Without a password (here, in --password or in ETCDCTL_PASSWORD) it is asked for on a terminal' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from remove" -l password -d 'Password for --user' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from remove" -l dial-timeout -d 'Time allowed to connect (TCP, TLS and authentication) to one member' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from remove" -l command-timeout -d 'Time allowed for one probe RPC (Status, MemberList, AlarmList) on one member; a member that does not answer in time is reported unreachable' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from remove" -l quota-backend-bytes -d 'Backend quota to assume for members that do not report one (etcd before 3.6). Kubernetes quantity, e.g. 8Gi. Default: etcd\'s 2Gi' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from remove" -s k -l kubeconfig -d 'Path to the kubeconfig file (plugin mode). Default: $KUBECONFIG (several paths are merged), else ~/.kube/config, else the in-cluster service account' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from remove" -l context -d 'The kubeconfig context to use (plugin mode); more than once, for `status -A`, `doctor -A`, `defrag -A`/`-l` over each' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from remove" -s n -l namespace -d 'Namespace of the EtcdCluster. Default: the context\'s namespace, else `default`' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from remove" -s p -l pod -d 'An etcd member\'s Pod, as the etcd-operator\'s own Go plugin takes it: selects the Pod\'s EtcdCluster and, for `snapshot save` and `leave`, its member (plugin mode)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from remove" -s s -l credentials-secret -d 'The operator plugin\'s credentials Secret: refused, since the EtcdCluster names its own (or use --user)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from remove" -l as -d 'Act as this Kubernetes user (impersonation), e.g. system:serviceaccount:NS:NAME' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from remove" -l as-group -d 'Group to impersonate along with --as (repeatable)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from remove" -l request-timeout -d 'How long to wait for the API server\'s answer to one request, as kubectl\'s flag: a duration (5s, 1m) or whole seconds (30); 0 waits as long as it takes. Default: 30 s to connect, then no limit. A watch or port-forward is bounded until it is answered, not after' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from remove" -l connect -d 'How to reach members in plugin mode: `direct` dials each member\'s Pod IP (or its in-cluster DNS name); `port-forward` tunnels to each member Pod through the API server; `auto` is direct inside a Pod, else port-forward. Certificates are always verified against the member\'s in-cluster DNS name' -r -f -a "auto\t''
direct\t''
port-forward\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from remove" -l kind -d 'The kind of cluster a name means (plugin mode). Default: every kind served; a name two kinds hold is refused until one is picked' -r -f -a "cozystack\t'The cozystack etcd-operator\'s EtcdCluster (etcd-operator.cozystack.io)'
etcd-io\t'The etcd project\'s operator\'s EtcdCluster (operator.etcd.io)'
control-plane\t'A control plane\'s own etcd: static Pods the kubelet runs (kubeadm, rke2), reached from their node through an agent Pod'"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from remove" -l agent-image -d 'A control plane\'s etcd (kubeadm\'s static Pods) is reached through a short-lived agent Pod on one of its nodes: this image of the tool' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from remove" -l agent-namespace -d 'The namespace of that agent\'s Job (hostNetwork and hostPath files: its Pod Security level must be privileged)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from remove" -s o -l output -d 'Output format. etcdctl\'s ETCDCTL_WRITE_OUT is read too (its `simple` is the table; `fields` and `protobuf` have no counterpart)' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from remove" -l log-format -d 'How stderr is written: `text` for a person, `json` for a log collector (one JSON object per line: timestamp, level, message and the event\'s fields; messages and errors too)' -r -f -a "text\t''
json\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from remove" -l force -d 'Act even when quorum would be at risk, or on an operator-managed EtcdCluster; asks for the member\'s name (or id) to be typed'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from remove" -l dry-run -d 'Show the change and the quorum arithmetic, and change nothing'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from remove" -s y -l yes -d 'Do not ask for confirmation (required when not on a terminal)'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from remove" -l no-discover -d 'Use only the given endpoints; do not add members found in MemberList'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from remove" -l all-contexts -d 'Every kubeconfig context, for `status -A`, `doctor -A`, `defrag -A`/`-l`'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from remove" -s v -l verbose -d 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from remove" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from help" -f -a "list" -d 'The member list (the same as `members`)'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from help" -f -a "add" -d 'Add a member (a voter, or a learner with --learner) and print the settings to start it with'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from help" -f -a "promote" -d 'Make a learner a voter, once it has caught up with the leader'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from help" -f -a "remove" -d 'Remove a member (by name, or by hex id for one that never started)'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand member; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand leave" -l confirm -d 'The typed confirmation for --force without a terminal: the member\'s name or id, as given' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand leave" -l endpoints -d 'etcd client URLs to start from (comma-separated or repeated). A URL without a scheme uses https when --cacert is set, else http' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand leave" -l cacert -d 'CA bundle (PEM) that signed the members\' server certificates' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand leave" -l cert -d 'Client certificate (PEM) for mutual TLS; needs --key' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand leave" -l key -d 'Client private key (PEM) for mutual TLS; needs --cert' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand leave" -l user -d 'etcd user name, or `name:password`. Without a password (here, in --password or in ETCDCTL_PASSWORD) it is asked for on a terminal' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand leave" -l password -d 'Password for --user' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand leave" -l dial-timeout -d 'Time allowed to connect (TCP, TLS and authentication) to one member' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand leave" -l command-timeout -d 'Time allowed for one probe RPC (Status, MemberList, AlarmList) on one member; a member that does not answer in time is reported unreachable' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand leave" -l quota-backend-bytes -d 'Backend quota to assume for members that do not report one (etcd before 3.6). Kubernetes quantity, e.g. 8Gi. Default: etcd\'s 2Gi' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand leave" -s k -l kubeconfig -d 'Path to the kubeconfig file (plugin mode). Default: $KUBECONFIG (several paths are merged), else ~/.kube/config, else the in-cluster service account' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand leave" -l context -d 'The kubeconfig context to use (plugin mode); more than once, for `status -A`, `doctor -A`, `defrag -A`/`-l` over each' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand leave" -s n -l namespace -d 'Namespace of the EtcdCluster. Default: the context\'s namespace, else `default`' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand leave" -s p -l pod -d 'An etcd member\'s Pod, as the etcd-operator\'s own Go plugin takes it: selects the Pod\'s EtcdCluster and, for `snapshot save` and `leave`, its member (plugin mode)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand leave" -s s -l credentials-secret -d 'The operator plugin\'s credentials Secret: refused, since the EtcdCluster names its own (or use --user)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand leave" -l as -d 'Act as this Kubernetes user (impersonation), e.g. system:serviceaccount:NS:NAME' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand leave" -l as-group -d 'Group to impersonate along with --as (repeatable)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand leave" -l request-timeout -d 'How long to wait for the API server\'s answer to one request, as kubectl\'s flag: a duration (5s, 1m) or whole seconds (30); 0 waits as long as it takes. Default: 30 s to connect, then no limit. A watch or port-forward is bounded until it is answered, not after' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand leave" -l connect -d 'How to reach members in plugin mode: `direct` dials each member\'s Pod IP (or its in-cluster DNS name); `port-forward` tunnels to each member Pod through the API server; `auto` is direct inside a Pod, else port-forward. Certificates are always verified against the member\'s in-cluster DNS name' -r -f -a "auto\t''
direct\t''
port-forward\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand leave" -l kind -d 'The kind of cluster a name means (plugin mode). Default: every kind served; a name two kinds hold is refused until one is picked' -r -f -a "cozystack\t'The cozystack etcd-operator\'s EtcdCluster (etcd-operator.cozystack.io)'
etcd-io\t'The etcd project\'s operator\'s EtcdCluster (operator.etcd.io)'
control-plane\t'A control plane\'s own etcd: static Pods the kubelet runs (kubeadm, rke2), reached from their node through an agent Pod'"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand leave" -l agent-image -d 'A control plane\'s etcd (kubeadm\'s static Pods) is reached through a short-lived agent Pod on one of its nodes: this image of the tool' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand leave" -l agent-namespace -d 'The namespace of that agent\'s Job (hostNetwork and hostPath files: its Pod Security level must be privileged)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand leave" -s o -l output -d 'Output format. etcdctl\'s ETCDCTL_WRITE_OUT is read too (its `simple` is the table; `fields` and `protobuf` have no counterpart)' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand leave" -l log-format -d 'How stderr is written: `text` for a person, `json` for a log collector (one JSON object per line: timestamp, level, message and the event\'s fields; messages and errors too)' -r -f -a "text\t''
json\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand leave" -l force -d 'Act even when quorum would be at risk, or on an operator-managed EtcdCluster; asks for the member\'s name (or id) to be typed'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand leave" -l dry-run -d 'Show the change and the quorum arithmetic, and change nothing'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand leave" -s y -l yes -d 'Do not ask for confirmation (required when not on a terminal)'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand leave" -l no-discover -d 'Use only the given endpoints; do not add members found in MemberList'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand leave" -l all-contexts -d 'Every kubeconfig context, for `status -A`, `doctor -A`, `defrag -A`/`-l`'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand leave" -s v -l verbose -d 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand leave" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand remove-member" -l confirm -d 'The typed confirmation for --force without a terminal: the member\'s name or id, as given' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand remove-member" -l endpoints -d 'etcd client URLs to start from (comma-separated or repeated). A URL without a scheme uses https when --cacert is set, else http' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand remove-member" -l cacert -d 'CA bundle (PEM) that signed the members\' server certificates' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand remove-member" -l cert -d 'Client certificate (PEM) for mutual TLS; needs --key' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand remove-member" -l key -d 'Client private key (PEM) for mutual TLS; needs --cert' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand remove-member" -l user -d 'etcd user name, or `name:password`. Without a password (here, in --password or in ETCDCTL_PASSWORD) it is asked for on a terminal' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand remove-member" -l password -d 'Password for --user' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand remove-member" -l dial-timeout -d 'Time allowed to connect (TCP, TLS and authentication) to one member' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand remove-member" -l command-timeout -d 'Time allowed for one probe RPC (Status, MemberList, AlarmList) on one member; a member that does not answer in time is reported unreachable' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand remove-member" -l quota-backend-bytes -d 'Backend quota to assume for members that do not report one (etcd before 3.6). Kubernetes quantity, e.g. 8Gi. Default: etcd\'s 2Gi' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand remove-member" -s k -l kubeconfig -d 'Path to the kubeconfig file (plugin mode). Default: $KUBECONFIG (several paths are merged), else ~/.kube/config, else the in-cluster service account' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand remove-member" -l context -d 'The kubeconfig context to use (plugin mode); more than once, for `status -A`, `doctor -A`, `defrag -A`/`-l` over each' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand remove-member" -s n -l namespace -d 'Namespace of the EtcdCluster. Default: the context\'s namespace, else `default`' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand remove-member" -s p -l pod -d 'An etcd member\'s Pod, as the etcd-operator\'s own Go plugin takes it: selects the Pod\'s EtcdCluster and, for `snapshot save` and `leave`, its member (plugin mode)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand remove-member" -s s -l credentials-secret -d 'The operator plugin\'s credentials Secret: refused, since the EtcdCluster names its own (or use --user)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand remove-member" -l as -d 'Act as this Kubernetes user (impersonation), e.g. system:serviceaccount:NS:NAME' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand remove-member" -l as-group -d 'Group to impersonate along with --as (repeatable)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand remove-member" -l request-timeout -d 'How long to wait for the API server\'s answer to one request, as kubectl\'s flag: a duration (5s, 1m) or whole seconds (30); 0 waits as long as it takes. Default: 30 s to connect, then no limit. A watch or port-forward is bounded until it is answered, not after' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand remove-member" -l connect -d 'How to reach members in plugin mode: `direct` dials each member\'s Pod IP (or its in-cluster DNS name); `port-forward` tunnels to each member Pod through the API server; `auto` is direct inside a Pod, else port-forward. Certificates are always verified against the member\'s in-cluster DNS name' -r -f -a "auto\t''
direct\t''
port-forward\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand remove-member" -l kind -d 'The kind of cluster a name means (plugin mode). Default: every kind served; a name two kinds hold is refused until one is picked' -r -f -a "cozystack\t'The cozystack etcd-operator\'s EtcdCluster (etcd-operator.cozystack.io)'
etcd-io\t'The etcd project\'s operator\'s EtcdCluster (operator.etcd.io)'
control-plane\t'A control plane\'s own etcd: static Pods the kubelet runs (kubeadm, rke2), reached from their node through an agent Pod'"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand remove-member" -l agent-image -d 'A control plane\'s etcd (kubeadm\'s static Pods) is reached through a short-lived agent Pod on one of its nodes: this image of the tool' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand remove-member" -l agent-namespace -d 'The namespace of that agent\'s Job (hostNetwork and hostPath files: its Pod Security level must be privileged)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand remove-member" -s o -l output -d 'Output format. etcdctl\'s ETCDCTL_WRITE_OUT is read too (its `simple` is the table; `fields` and `protobuf` have no counterpart)' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand remove-member" -l log-format -d 'How stderr is written: `text` for a person, `json` for a log collector (one JSON object per line: timestamp, level, message and the event\'s fields; messages and errors too)' -r -f -a "text\t''
json\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand remove-member" -l force -d 'Act even when quorum would be at risk, or on an operator-managed EtcdCluster; asks for the member\'s name (or id) to be typed'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand remove-member" -l dry-run -d 'Show the change and the quorum arithmetic, and change nothing'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand remove-member" -s y -l yes -d 'Do not ask for confirmation (required when not on a terminal)'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand remove-member" -l no-discover -d 'Use only the given endpoints; do not add members found in MemberList'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand remove-member" -l all-contexts -d 'Every kubeconfig context, for `status -A`, `doctor -A`, `defrag -A`/`-l`'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand remove-member" -s v -l verbose -d 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand remove-member" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand add-member" -l endpoints -d 'etcd client URLs to start from (comma-separated or repeated). A URL without a scheme uses https when --cacert is set, else http' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand add-member" -l cacert -d 'CA bundle (PEM) that signed the members\' server certificates' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand add-member" -l cert -d 'Client certificate (PEM) for mutual TLS; needs --key' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand add-member" -l key -d 'Client private key (PEM) for mutual TLS; needs --cert' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand add-member" -l user -d 'etcd user name, or `name:password`. Without a password (here, in --password or in ETCDCTL_PASSWORD) it is asked for on a terminal' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand add-member" -l password -d 'Password for --user' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand add-member" -l dial-timeout -d 'Time allowed to connect (TCP, TLS and authentication) to one member' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand add-member" -l command-timeout -d 'Time allowed for one probe RPC (Status, MemberList, AlarmList) on one member; a member that does not answer in time is reported unreachable' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand add-member" -l quota-backend-bytes -d 'Backend quota to assume for members that do not report one (etcd before 3.6). Kubernetes quantity, e.g. 8Gi. Default: etcd\'s 2Gi' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand add-member" -s k -l kubeconfig -d 'Path to the kubeconfig file (plugin mode). Default: $KUBECONFIG (several paths are merged), else ~/.kube/config, else the in-cluster service account' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand add-member" -l context -d 'The kubeconfig context to use (plugin mode); more than once, for `status -A`, `doctor -A`, `defrag -A`/`-l` over each' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand add-member" -s n -l namespace -d 'Namespace of the EtcdCluster. Default: the context\'s namespace, else `default`' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand add-member" -s p -l pod -d 'An etcd member\'s Pod, as the etcd-operator\'s own Go plugin takes it: selects the Pod\'s EtcdCluster and, for `snapshot save` and `leave`, its member (plugin mode)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand add-member" -s s -l credentials-secret -d 'The operator plugin\'s credentials Secret: refused, since the EtcdCluster names its own (or use --user)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand add-member" -l as -d 'Act as this Kubernetes user (impersonation), e.g. system:serviceaccount:NS:NAME' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand add-member" -l as-group -d 'Group to impersonate along with --as (repeatable)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand add-member" -l request-timeout -d 'How long to wait for the API server\'s answer to one request, as kubectl\'s flag: a duration (5s, 1m) or whole seconds (30); 0 waits as long as it takes. Default: 30 s to connect, then no limit. A watch or port-forward is bounded until it is answered, not after' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand add-member" -l connect -d 'How to reach members in plugin mode: `direct` dials each member\'s Pod IP (or its in-cluster DNS name); `port-forward` tunnels to each member Pod through the API server; `auto` is direct inside a Pod, else port-forward. Certificates are always verified against the member\'s in-cluster DNS name' -r -f -a "auto\t''
direct\t''
port-forward\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand add-member" -l kind -d 'The kind of cluster a name means (plugin mode). Default: every kind served; a name two kinds hold is refused until one is picked' -r -f -a "cozystack\t'The cozystack etcd-operator\'s EtcdCluster (etcd-operator.cozystack.io)'
etcd-io\t'The etcd project\'s operator\'s EtcdCluster (operator.etcd.io)'
control-plane\t'A control plane\'s own etcd: static Pods the kubelet runs (kubeadm, rke2), reached from their node through an agent Pod'"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand add-member" -l agent-image -d 'A control plane\'s etcd (kubeadm\'s static Pods) is reached through a short-lived agent Pod on one of its nodes: this image of the tool' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand add-member" -l agent-namespace -d 'The namespace of that agent\'s Job (hostNetwork and hostPath files: its Pod Security level must be privileged)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand add-member" -s o -l output -d 'Output format. etcdctl\'s ETCDCTL_WRITE_OUT is read too (its `simple` is the table; `fields` and `protobuf` have no counterpart)' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand add-member" -l log-format -d 'How stderr is written: `text` for a person, `json` for a log collector (one JSON object per line: timestamp, level, message and the event\'s fields; messages and errors too)' -r -f -a "text\t''
json\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand add-member" -l no-discover -d 'Use only the given endpoints; do not add members found in MemberList'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand add-member" -l all-contexts -d 'Every kubeconfig context, for `status -A`, `doctor -A`, `defrag -A`/`-l`'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand add-member" -s v -l verbose -d 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand add-member" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand defrag" -l free-space-above -d 'Defragment a member whose reclaimable space (size − in use) is more than this. Default: 10% of the member\'s quota, at most 200Mi (the operator\'s fixed default, which a small quota never reaches)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand defrag" -l quota-usage-above -d 'Also defragment a member whose size is more than this share of its quota, when at least --min-reclaim would come back. E.g. 80%' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand defrag" -l min-reclaim -d 'With --quota-usage-above: the least reclaimable space worth a defragmentation. Default: 5% of the member\'s quota, at most 32Mi' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand defrag" -l member -d 'Only this member (repeatable). Others are reported as NotSelected' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand defrag" -l move-leader -d 'How to treat the leader: `auto` transfers leadership first only when its predicted in-place defrag time (from its in-use size and the throughput measured on this sweep\'s followers) exceeds --move-leader-above; `always` / `never` force the choice' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand defrag" -l move-leader-above -d 'Threshold for --move-leader auto' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand defrag" -l timeout -d 'How long to wait for one member\'s Defragment. On timeout the member keeps defragmenting; the sweep waits for it to answer again before touching anyone else' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand defrag" -l wait-healthy -d 'When the health gate refuses, wait up to this long (with backoff) for it to pass instead of stopping with exit 1' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand defrag" -l max-raft-lag -d 'Largest tolerated raft lag, in entries: a member\'s committed index minus its applied index, and its distance behind the leader\'s index' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand defrag" -l ttl-after-finished -d 'With --via-operator: the run\'s ttlSecondsAfterFinished, how long the finished EtcdDefrag is kept before the operator deletes it (0s: at once). Default 24h' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand defrag" -l claim-timeout -d 'With --via-operator: how long to wait for any processor to take up the new run (write its status) before it is deleted again and the command fails. Default 60s' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand defrag" -s l -l selector -d 'A fleet sweep of the EtcdClusters matching this label selector (in the namespace, or every namespace with -A), e.g. `tier=prod`' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand defrag" -l max-concurrent -d 'In a fleet sweep (-A or -l): how many clusters are swept at once, 1 to 64 (members of one cluster are always defragmented one at a time). Default 2' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand defrag" -l recheck-processors -d 'With --watch: how often to ask again whether another EtcdDefrag processor has been installed (the operator upgraded to a release with its own controller); the watcher then stops after the member in flight and exits 2' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand defrag" -l lease-duration -d 'With --watch: how long the Lease `kubectl-etcd-watch` (which elects the one active watcher) stays ours without a renewal. A watcher that cannot renew for this long stops acting before another takes over' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand defrag" -l metrics-address -d 'With --watch: serve Prometheus metrics (/metrics) and probes (/healthz, /readyz) over HTTP on this IP:PORT, e.g. 127.0.0.1:9090 or 0.0.0.0:9090 in a Pod. Default: no server' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand defrag" -l endpoints -d 'etcd client URLs to start from (comma-separated or repeated). A URL without a scheme uses https when --cacert is set, else http' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand defrag" -l cacert -d 'CA bundle (PEM) that signed the members\' server certificates' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand defrag" -l cert -d 'Client certificate (PEM) for mutual TLS; needs --key' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand defrag" -l key -d 'Client private key (PEM) for mutual TLS; needs --cert' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand defrag" -l user -d 'etcd user name, or `name:password`. Without a password (here, in --password or in ETCDCTL_PASSWORD) it is asked for on a terminal' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand defrag" -l password -d 'Password for --user' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand defrag" -l dial-timeout -d 'Time allowed to connect (TCP, TLS and authentication) to one member' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand defrag" -l command-timeout -d 'Time allowed for one probe RPC (Status, MemberList, AlarmList) on one member; a member that does not answer in time is reported unreachable' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand defrag" -l quota-backend-bytes -d 'Backend quota to assume for members that do not report one (etcd before 3.6). Kubernetes quantity, e.g. 8Gi. Default: etcd\'s 2Gi' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand defrag" -s k -l kubeconfig -d 'Path to the kubeconfig file (plugin mode). Default: $KUBECONFIG (several paths are merged), else ~/.kube/config, else the in-cluster service account' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand defrag" -l context -d 'The kubeconfig context to use (plugin mode); more than once, for `status -A`, `doctor -A`, `defrag -A`/`-l` over each' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand defrag" -s n -l namespace -d 'Namespace of the EtcdCluster. Default: the context\'s namespace, else `default`' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand defrag" -s p -l pod -d 'An etcd member\'s Pod, as the etcd-operator\'s own Go plugin takes it: selects the Pod\'s EtcdCluster and, for `snapshot save` and `leave`, its member (plugin mode)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand defrag" -s s -l credentials-secret -d 'The operator plugin\'s credentials Secret: refused, since the EtcdCluster names its own (or use --user)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand defrag" -l as -d 'Act as this Kubernetes user (impersonation), e.g. system:serviceaccount:NS:NAME' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand defrag" -l as-group -d 'Group to impersonate along with --as (repeatable)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand defrag" -l request-timeout -d 'How long to wait for the API server\'s answer to one request, as kubectl\'s flag: a duration (5s, 1m) or whole seconds (30); 0 waits as long as it takes. Default: 30 s to connect, then no limit. A watch or port-forward is bounded until it is answered, not after' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand defrag" -l connect -d 'How to reach members in plugin mode: `direct` dials each member\'s Pod IP (or its in-cluster DNS name); `port-forward` tunnels to each member Pod through the API server; `auto` is direct inside a Pod, else port-forward. Certificates are always verified against the member\'s in-cluster DNS name' -r -f -a "auto\t''
direct\t''
port-forward\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand defrag" -l kind -d 'The kind of cluster a name means (plugin mode). Default: every kind served; a name two kinds hold is refused until one is picked' -r -f -a "cozystack\t'The cozystack etcd-operator\'s EtcdCluster (etcd-operator.cozystack.io)'
etcd-io\t'The etcd project\'s operator\'s EtcdCluster (operator.etcd.io)'
control-plane\t'A control plane\'s own etcd: static Pods the kubelet runs (kubeadm, rke2), reached from their node through an agent Pod'"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand defrag" -l agent-image -d 'A control plane\'s etcd (kubeadm\'s static Pods) is reached through a short-lived agent Pod on one of its nodes: this image of the tool' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand defrag" -l agent-namespace -d 'The namespace of that agent\'s Job (hostNetwork and hostPath files: its Pod Security level must be privileged)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand defrag" -s o -l output -d 'Output format. etcdctl\'s ETCDCTL_WRITE_OUT is read too (its `simple` is the table; `fields` and `protobuf` have no counterpart)' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand defrag" -l log-format -d 'How stderr is written: `text` for a person, `json` for a log collector (one JSON object per line: timestamp, level, message and the event\'s fields; messages and errors too)' -r -f -a "text\t''
json\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand defrag" -l all -d 'Defragment every member regardless of size (cannot be combined with the thresholds)'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand defrag" -l dry-run -d 'Print the plan (order, leader handling, each member\'s verdict and predicted reclaim) and change nothing'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand defrag" -s y -l yes -d 'Do not ask for confirmation (required when not on a terminal)'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand defrag" -l compact -d 'Compact at the current revision first, and wait until every member\'s in-use size has settled'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand defrag" -l allow-probe-restart -d 'Defragment a member even when its Pod\'s liveness (or startup) probe fails while etcd defragments and the kubelet would restart it before the predicted defrag ends. Without it such a member is held back (Skipped, reason ProbeBudget). Plugin mode reads the probes; with --watch it applies to every run'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand defrag" -l allow-quorum-loss -d 'Accept a cluster with fewer than three voting members, where taking one member out for maintenance loses quorum'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand defrag" -l watch -d 'Run as the EtcdDefrag controller: process every EtcdDefrag in the namespace (-n, or all with -A) the way the etcd-operator\'s controller does, until Ctrl-C or SIGTERM. Uses --move-leader, --timeout and --max-raft-lag; the rule comes from each object. Run exactly one processor per cluster'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand defrag" -l via-operator -d 'Hand the sweep to the etcd-operator\'s own defrag controller (v0.5.5 on): create an EtcdDefrag from the rule flags, then follow it live and report it like a direct run. Needs only the Kubernetes API (no etcd credentials). The operator never moves leadership, never compacts and reads no probes, so those flags are refused'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand defrag" -s A -l all-namespaces -d 'Every EtcdCluster in every namespace (a fleet sweep), or with --watch every namespace\'s EtcdDefrags'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand defrag" -l force-takeover -d 'With --watch: start even though another processor (e.g. the operator\'s defrag controller) wrote EtcdDefrag status in the last 15 minutes. Two processors both defragment: stop the other one first. Never overrides an installed processor (a role that lets someone else write EtcdDefrag status, as the operator\'s from v0.5.5 does)'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand defrag" -l no-discover -d 'Use only the given endpoints; do not add members found in MemberList'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand defrag" -l all-contexts -d 'Every kubeconfig context, for `status -A`, `doctor -A`, `defrag -A`/`-l`'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand defrag" -s v -l verbose -d 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand defrag" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and not __fish_seen_subcommand_from list disarm help" -l endpoints -d 'etcd client URLs to start from (comma-separated or repeated). A URL without a scheme uses https when --cacert is set, else http' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and not __fish_seen_subcommand_from list disarm help" -l cacert -d 'CA bundle (PEM) that signed the members\' server certificates' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and not __fish_seen_subcommand_from list disarm help" -l cert -d 'Client certificate (PEM) for mutual TLS; needs --key' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and not __fish_seen_subcommand_from list disarm help" -l key -d 'Client private key (PEM) for mutual TLS; needs --cert' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and not __fish_seen_subcommand_from list disarm help" -l user -d 'etcd user name, or `name:password`. Without a password (here, in --password or in ETCDCTL_PASSWORD) it is asked for on a terminal' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and not __fish_seen_subcommand_from list disarm help" -l password -d 'Password for --user' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and not __fish_seen_subcommand_from list disarm help" -l dial-timeout -d 'Time allowed to connect (TCP, TLS and authentication) to one member' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and not __fish_seen_subcommand_from list disarm help" -l command-timeout -d 'Time allowed for one probe RPC (Status, MemberList, AlarmList) on one member; a member that does not answer in time is reported unreachable' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and not __fish_seen_subcommand_from list disarm help" -l quota-backend-bytes -d 'Backend quota to assume for members that do not report one (etcd before 3.6). Kubernetes quantity, e.g. 8Gi. Default: etcd\'s 2Gi' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and not __fish_seen_subcommand_from list disarm help" -s k -l kubeconfig -d 'Path to the kubeconfig file (plugin mode). Default: $KUBECONFIG (several paths are merged), else ~/.kube/config, else the in-cluster service account' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and not __fish_seen_subcommand_from list disarm help" -l context -d 'The kubeconfig context to use (plugin mode); more than once, for `status -A`, `doctor -A`, `defrag -A`/`-l` over each' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and not __fish_seen_subcommand_from list disarm help" -s n -l namespace -d 'Namespace of the EtcdCluster. Default: the context\'s namespace, else `default`' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and not __fish_seen_subcommand_from list disarm help" -s p -l pod -d 'An etcd member\'s Pod, as the etcd-operator\'s own Go plugin takes it: selects the Pod\'s EtcdCluster and, for `snapshot save` and `leave`, its member (plugin mode)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and not __fish_seen_subcommand_from list disarm help" -s s -l credentials-secret -d 'The operator plugin\'s credentials Secret: refused, since the EtcdCluster names its own (or use --user)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and not __fish_seen_subcommand_from list disarm help" -l as -d 'Act as this Kubernetes user (impersonation), e.g. system:serviceaccount:NS:NAME' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and not __fish_seen_subcommand_from list disarm help" -l as-group -d 'Group to impersonate along with --as (repeatable)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and not __fish_seen_subcommand_from list disarm help" -l request-timeout -d 'How long to wait for the API server\'s answer to one request, as kubectl\'s flag: a duration (5s, 1m) or whole seconds (30); 0 waits as long as it takes. Default: 30 s to connect, then no limit. A watch or port-forward is bounded until it is answered, not after' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and not __fish_seen_subcommand_from list disarm help" -l connect -d 'How to reach members in plugin mode: `direct` dials each member\'s Pod IP (or its in-cluster DNS name); `port-forward` tunnels to each member Pod through the API server; `auto` is direct inside a Pod, else port-forward. Certificates are always verified against the member\'s in-cluster DNS name' -r -f -a "auto\t''
direct\t''
port-forward\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and not __fish_seen_subcommand_from list disarm help" -l kind -d 'The kind of cluster a name means (plugin mode). Default: every kind served; a name two kinds hold is refused until one is picked' -r -f -a "cozystack\t'The cozystack etcd-operator\'s EtcdCluster (etcd-operator.cozystack.io)'
etcd-io\t'The etcd project\'s operator\'s EtcdCluster (operator.etcd.io)'
control-plane\t'A control plane\'s own etcd: static Pods the kubelet runs (kubeadm, rke2), reached from their node through an agent Pod'"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and not __fish_seen_subcommand_from list disarm help" -l agent-image -d 'A control plane\'s etcd (kubeadm\'s static Pods) is reached through a short-lived agent Pod on one of its nodes: this image of the tool' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and not __fish_seen_subcommand_from list disarm help" -l agent-namespace -d 'The namespace of that agent\'s Job (hostNetwork and hostPath files: its Pod Security level must be privileged)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and not __fish_seen_subcommand_from list disarm help" -s o -l output -d 'Output format. etcdctl\'s ETCDCTL_WRITE_OUT is read too (its `simple` is the table; `fields` and `protobuf` have no counterpart)' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and not __fish_seen_subcommand_from list disarm help" -l log-format -d 'How stderr is written: `text` for a person, `json` for a log collector (one JSON object per line: timestamp, level, message and the event\'s fields; messages and errors too)' -r -f -a "text\t''
json\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and not __fish_seen_subcommand_from list disarm help" -l no-discover -d 'Use only the given endpoints; do not add members found in MemberList'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and not __fish_seen_subcommand_from list disarm help" -l all-contexts -d 'Every kubeconfig context, for `status -A`, `doctor -A`, `defrag -A`/`-l`'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and not __fish_seen_subcommand_from list disarm help" -s v -l verbose -d 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and not __fish_seen_subcommand_from list disarm help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and not __fish_seen_subcommand_from list disarm help" -f -a "list" -d 'Every raised alarm, with the member\'s name and id'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and not __fish_seen_subcommand_from list disarm help" -f -a "disarm" -d 'Disarm NOSPACE on members back under their quota. CORRUPT and members still over quota need --force (CORRUPT also a typed confirmation)'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and not __fish_seen_subcommand_from list disarm help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and __fish_seen_subcommand_from list" -l endpoints -d 'etcd client URLs to start from (comma-separated or repeated). A URL without a scheme uses https when --cacert is set, else http' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and __fish_seen_subcommand_from list" -l cacert -d 'CA bundle (PEM) that signed the members\' server certificates' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and __fish_seen_subcommand_from list" -l cert -d 'Client certificate (PEM) for mutual TLS; needs --key' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and __fish_seen_subcommand_from list" -l key -d 'Client private key (PEM) for mutual TLS; needs --cert' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and __fish_seen_subcommand_from list" -l user -d 'etcd user name, or `name:password`. Without a password (here, in --password or in ETCDCTL_PASSWORD) it is asked for on a terminal' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and __fish_seen_subcommand_from list" -l password -d 'Password for --user' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and __fish_seen_subcommand_from list" -l dial-timeout -d 'Time allowed to connect (TCP, TLS and authentication) to one member' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and __fish_seen_subcommand_from list" -l command-timeout -d 'Time allowed for one probe RPC (Status, MemberList, AlarmList) on one member; a member that does not answer in time is reported unreachable' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and __fish_seen_subcommand_from list" -l quota-backend-bytes -d 'Backend quota to assume for members that do not report one (etcd before 3.6). Kubernetes quantity, e.g. 8Gi. Default: etcd\'s 2Gi' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and __fish_seen_subcommand_from list" -s k -l kubeconfig -d 'Path to the kubeconfig file (plugin mode). Default: $KUBECONFIG (several paths are merged), else ~/.kube/config, else the in-cluster service account' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and __fish_seen_subcommand_from list" -l context -d 'The kubeconfig context to use (plugin mode); more than once, for `status -A`, `doctor -A`, `defrag -A`/`-l` over each' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and __fish_seen_subcommand_from list" -s n -l namespace -d 'Namespace of the EtcdCluster. Default: the context\'s namespace, else `default`' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and __fish_seen_subcommand_from list" -s p -l pod -d 'An etcd member\'s Pod, as the etcd-operator\'s own Go plugin takes it: selects the Pod\'s EtcdCluster and, for `snapshot save` and `leave`, its member (plugin mode)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and __fish_seen_subcommand_from list" -s s -l credentials-secret -d 'The operator plugin\'s credentials Secret: refused, since the EtcdCluster names its own (or use --user)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and __fish_seen_subcommand_from list" -l as -d 'Act as this Kubernetes user (impersonation), e.g. system:serviceaccount:NS:NAME' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and __fish_seen_subcommand_from list" -l as-group -d 'Group to impersonate along with --as (repeatable)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and __fish_seen_subcommand_from list" -l request-timeout -d 'How long to wait for the API server\'s answer to one request, as kubectl\'s flag: a duration (5s, 1m) or whole seconds (30); 0 waits as long as it takes. Default: 30 s to connect, then no limit. A watch or port-forward is bounded until it is answered, not after' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and __fish_seen_subcommand_from list" -l connect -d 'How to reach members in plugin mode: `direct` dials each member\'s Pod IP (or its in-cluster DNS name); `port-forward` tunnels to each member Pod through the API server; `auto` is direct inside a Pod, else port-forward. Certificates are always verified against the member\'s in-cluster DNS name' -r -f -a "auto\t''
direct\t''
port-forward\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and __fish_seen_subcommand_from list" -l kind -d 'The kind of cluster a name means (plugin mode). Default: every kind served; a name two kinds hold is refused until one is picked' -r -f -a "cozystack\t'The cozystack etcd-operator\'s EtcdCluster (etcd-operator.cozystack.io)'
etcd-io\t'The etcd project\'s operator\'s EtcdCluster (operator.etcd.io)'
control-plane\t'A control plane\'s own etcd: static Pods the kubelet runs (kubeadm, rke2), reached from their node through an agent Pod'"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and __fish_seen_subcommand_from list" -l agent-image -d 'A control plane\'s etcd (kubeadm\'s static Pods) is reached through a short-lived agent Pod on one of its nodes: this image of the tool' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and __fish_seen_subcommand_from list" -l agent-namespace -d 'The namespace of that agent\'s Job (hostNetwork and hostPath files: its Pod Security level must be privileged)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and __fish_seen_subcommand_from list" -s o -l output -d 'Output format. etcdctl\'s ETCDCTL_WRITE_OUT is read too (its `simple` is the table; `fields` and `protobuf` have no counterpart)' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and __fish_seen_subcommand_from list" -l log-format -d 'How stderr is written: `text` for a person, `json` for a log collector (one JSON object per line: timestamp, level, message and the event\'s fields; messages and errors too)' -r -f -a "text\t''
json\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and __fish_seen_subcommand_from list" -l no-discover -d 'Use only the given endpoints; do not add members found in MemberList'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and __fish_seen_subcommand_from list" -l all-contexts -d 'Every kubeconfig context, for `status -A`, `doctor -A`, `defrag -A`/`-l`'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and __fish_seen_subcommand_from list" -s v -l verbose -d 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and __fish_seen_subcommand_from disarm" -l member -d 'Only alarms of this member (repeatable)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and __fish_seen_subcommand_from disarm" -l confirm-corrupt -d 'The typed confirmation for clearing CORRUPT without a terminal: the name of the member whose CORRUPT alarm is cleared' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and __fish_seen_subcommand_from disarm" -l endpoints -d 'etcd client URLs to start from (comma-separated or repeated). A URL without a scheme uses https when --cacert is set, else http' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and __fish_seen_subcommand_from disarm" -l cacert -d 'CA bundle (PEM) that signed the members\' server certificates' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and __fish_seen_subcommand_from disarm" -l cert -d 'Client certificate (PEM) for mutual TLS; needs --key' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and __fish_seen_subcommand_from disarm" -l key -d 'Client private key (PEM) for mutual TLS; needs --cert' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and __fish_seen_subcommand_from disarm" -l user -d 'etcd user name, or `name:password`. Without a password (here, in --password or in ETCDCTL_PASSWORD) it is asked for on a terminal' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and __fish_seen_subcommand_from disarm" -l password -d 'Password for --user' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and __fish_seen_subcommand_from disarm" -l dial-timeout -d 'Time allowed to connect (TCP, TLS and authentication) to one member' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and __fish_seen_subcommand_from disarm" -l command-timeout -d 'Time allowed for one probe RPC (Status, MemberList, AlarmList) on one member; a member that does not answer in time is reported unreachable' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and __fish_seen_subcommand_from disarm" -l quota-backend-bytes -d 'Backend quota to assume for members that do not report one (etcd before 3.6). Kubernetes quantity, e.g. 8Gi. Default: etcd\'s 2Gi' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and __fish_seen_subcommand_from disarm" -s k -l kubeconfig -d 'Path to the kubeconfig file (plugin mode). Default: $KUBECONFIG (several paths are merged), else ~/.kube/config, else the in-cluster service account' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and __fish_seen_subcommand_from disarm" -l context -d 'The kubeconfig context to use (plugin mode); more than once, for `status -A`, `doctor -A`, `defrag -A`/`-l` over each' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and __fish_seen_subcommand_from disarm" -s n -l namespace -d 'Namespace of the EtcdCluster. Default: the context\'s namespace, else `default`' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and __fish_seen_subcommand_from disarm" -s p -l pod -d 'An etcd member\'s Pod, as the etcd-operator\'s own Go plugin takes it: selects the Pod\'s EtcdCluster and, for `snapshot save` and `leave`, its member (plugin mode)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and __fish_seen_subcommand_from disarm" -s s -l credentials-secret -d 'The operator plugin\'s credentials Secret: refused, since the EtcdCluster names its own (or use --user)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and __fish_seen_subcommand_from disarm" -l as -d 'Act as this Kubernetes user (impersonation), e.g. system:serviceaccount:NS:NAME' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and __fish_seen_subcommand_from disarm" -l as-group -d 'Group to impersonate along with --as (repeatable)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and __fish_seen_subcommand_from disarm" -l request-timeout -d 'How long to wait for the API server\'s answer to one request, as kubectl\'s flag: a duration (5s, 1m) or whole seconds (30); 0 waits as long as it takes. Default: 30 s to connect, then no limit. A watch or port-forward is bounded until it is answered, not after' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and __fish_seen_subcommand_from disarm" -l connect -d 'How to reach members in plugin mode: `direct` dials each member\'s Pod IP (or its in-cluster DNS name); `port-forward` tunnels to each member Pod through the API server; `auto` is direct inside a Pod, else port-forward. Certificates are always verified against the member\'s in-cluster DNS name' -r -f -a "auto\t''
direct\t''
port-forward\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and __fish_seen_subcommand_from disarm" -l kind -d 'The kind of cluster a name means (plugin mode). Default: every kind served; a name two kinds hold is refused until one is picked' -r -f -a "cozystack\t'The cozystack etcd-operator\'s EtcdCluster (etcd-operator.cozystack.io)'
etcd-io\t'The etcd project\'s operator\'s EtcdCluster (operator.etcd.io)'
control-plane\t'A control plane\'s own etcd: static Pods the kubelet runs (kubeadm, rke2), reached from their node through an agent Pod'"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and __fish_seen_subcommand_from disarm" -l agent-image -d 'A control plane\'s etcd (kubeadm\'s static Pods) is reached through a short-lived agent Pod on one of its nodes: this image of the tool' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and __fish_seen_subcommand_from disarm" -l agent-namespace -d 'The namespace of that agent\'s Job (hostNetwork and hostPath files: its Pod Security level must be privileged)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and __fish_seen_subcommand_from disarm" -s o -l output -d 'Output format. etcdctl\'s ETCDCTL_WRITE_OUT is read too (its `simple` is the table; `fields` and `protobuf` have no counterpart)' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and __fish_seen_subcommand_from disarm" -l log-format -d 'How stderr is written: `text` for a person, `json` for a log collector (one JSON object per line: timestamp, level, message and the event\'s fields; messages and errors too)' -r -f -a "text\t''
json\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and __fish_seen_subcommand_from disarm" -l force -d 'Also disarm NOSPACE on a member still over its quota, and CORRUPT or unknown alarms (which additionally need a typed confirmation)'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and __fish_seen_subcommand_from disarm" -l dry-run -d 'Show what would be disarmed and change nothing'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and __fish_seen_subcommand_from disarm" -s y -l yes -d 'Do not ask for confirmation (required when not on a terminal)'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and __fish_seen_subcommand_from disarm" -l no-discover -d 'Use only the given endpoints; do not add members found in MemberList'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and __fish_seen_subcommand_from disarm" -l all-contexts -d 'Every kubeconfig context, for `status -A`, `doctor -A`, `defrag -A`/`-l`'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and __fish_seen_subcommand_from disarm" -s v -l verbose -d 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and __fish_seen_subcommand_from disarm" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and __fish_seen_subcommand_from help" -f -a "list" -d 'Every raised alarm, with the member\'s name and id'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and __fish_seen_subcommand_from help" -f -a "disarm" -d 'Disarm NOSPACE on members back under their quota. CORRUPT and members still over quota need --force (CORRUPT also a typed confirmation)'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand alarm; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand move-leader" -l to -d 'The member to hand leadership to (a voter, never a learner): its name, its hex id as `status` shows it, or its decimal id' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand move-leader" -l max-raft-lag -d 'Largest tolerated raft lag, in entries: a member\'s committed index minus its applied index, and its distance behind the leader\'s index' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand move-leader" -l endpoints -d 'etcd client URLs to start from (comma-separated or repeated). A URL without a scheme uses https when --cacert is set, else http' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand move-leader" -l cacert -d 'CA bundle (PEM) that signed the members\' server certificates' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand move-leader" -l cert -d 'Client certificate (PEM) for mutual TLS; needs --key' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand move-leader" -l key -d 'Client private key (PEM) for mutual TLS; needs --cert' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand move-leader" -l user -d 'etcd user name, or `name:password`. Without a password (here, in --password or in ETCDCTL_PASSWORD) it is asked for on a terminal' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand move-leader" -l password -d 'Password for --user' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand move-leader" -l dial-timeout -d 'Time allowed to connect (TCP, TLS and authentication) to one member' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand move-leader" -l command-timeout -d 'Time allowed for one probe RPC (Status, MemberList, AlarmList) on one member; a member that does not answer in time is reported unreachable' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand move-leader" -l quota-backend-bytes -d 'Backend quota to assume for members that do not report one (etcd before 3.6). Kubernetes quantity, e.g. 8Gi. Default: etcd\'s 2Gi' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand move-leader" -s k -l kubeconfig -d 'Path to the kubeconfig file (plugin mode). Default: $KUBECONFIG (several paths are merged), else ~/.kube/config, else the in-cluster service account' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand move-leader" -l context -d 'The kubeconfig context to use (plugin mode); more than once, for `status -A`, `doctor -A`, `defrag -A`/`-l` over each' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand move-leader" -s n -l namespace -d 'Namespace of the EtcdCluster. Default: the context\'s namespace, else `default`' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand move-leader" -s p -l pod -d 'An etcd member\'s Pod, as the etcd-operator\'s own Go plugin takes it: selects the Pod\'s EtcdCluster and, for `snapshot save` and `leave`, its member (plugin mode)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand move-leader" -s s -l credentials-secret -d 'The operator plugin\'s credentials Secret: refused, since the EtcdCluster names its own (or use --user)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand move-leader" -l as -d 'Act as this Kubernetes user (impersonation), e.g. system:serviceaccount:NS:NAME' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand move-leader" -l as-group -d 'Group to impersonate along with --as (repeatable)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand move-leader" -l request-timeout -d 'How long to wait for the API server\'s answer to one request, as kubectl\'s flag: a duration (5s, 1m) or whole seconds (30); 0 waits as long as it takes. Default: 30 s to connect, then no limit. A watch or port-forward is bounded until it is answered, not after' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand move-leader" -l connect -d 'How to reach members in plugin mode: `direct` dials each member\'s Pod IP (or its in-cluster DNS name); `port-forward` tunnels to each member Pod through the API server; `auto` is direct inside a Pod, else port-forward. Certificates are always verified against the member\'s in-cluster DNS name' -r -f -a "auto\t''
direct\t''
port-forward\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand move-leader" -l kind -d 'The kind of cluster a name means (plugin mode). Default: every kind served; a name two kinds hold is refused until one is picked' -r -f -a "cozystack\t'The cozystack etcd-operator\'s EtcdCluster (etcd-operator.cozystack.io)'
etcd-io\t'The etcd project\'s operator\'s EtcdCluster (operator.etcd.io)'
control-plane\t'A control plane\'s own etcd: static Pods the kubelet runs (kubeadm, rke2), reached from their node through an agent Pod'"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand move-leader" -l agent-image -d 'A control plane\'s etcd (kubeadm\'s static Pods) is reached through a short-lived agent Pod on one of its nodes: this image of the tool' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand move-leader" -l agent-namespace -d 'The namespace of that agent\'s Job (hostNetwork and hostPath files: its Pod Security level must be privileged)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand move-leader" -s o -l output -d 'Output format. etcdctl\'s ETCDCTL_WRITE_OUT is read too (its `simple` is the table; `fields` and `protobuf` have no counterpart)' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand move-leader" -l log-format -d 'How stderr is written: `text` for a person, `json` for a log collector (one JSON object per line: timestamp, level, message and the event\'s fields; messages and errors too)' -r -f -a "text\t''
json\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand move-leader" -l dry-run -d 'Show the transfer and change nothing'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand move-leader" -s y -l yes -d 'Do not ask for confirmation (required when not on a terminal)'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand move-leader" -l allow-quorum-loss -d 'Accept a cluster with fewer than three voting members, where taking one member out for maintenance loses quorum'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand move-leader" -l no-discover -d 'Use only the given endpoints; do not add members found in MemberList'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand move-leader" -l all-contexts -d 'Every kubeconfig context, for `status -A`, `doctor -A`, `defrag -A`/`-l`'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand move-leader" -s v -l verbose -d 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand move-leader" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand forfeit-leadership" -l to -d 'The member to hand leadership to (a voter, never a learner): its name, its hex id as `status` shows it, or its decimal id' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand forfeit-leadership" -l max-raft-lag -d 'Largest tolerated raft lag, in entries: a member\'s committed index minus its applied index, and its distance behind the leader\'s index' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand forfeit-leadership" -l endpoints -d 'etcd client URLs to start from (comma-separated or repeated). A URL without a scheme uses https when --cacert is set, else http' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand forfeit-leadership" -l cacert -d 'CA bundle (PEM) that signed the members\' server certificates' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand forfeit-leadership" -l cert -d 'Client certificate (PEM) for mutual TLS; needs --key' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand forfeit-leadership" -l key -d 'Client private key (PEM) for mutual TLS; needs --cert' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand forfeit-leadership" -l user -d 'etcd user name, or `name:password`. Without a password (here, in --password or in ETCDCTL_PASSWORD) it is asked for on a terminal' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand forfeit-leadership" -l password -d 'Password for --user' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand forfeit-leadership" -l dial-timeout -d 'Time allowed to connect (TCP, TLS and authentication) to one member' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand forfeit-leadership" -l command-timeout -d 'Time allowed for one probe RPC (Status, MemberList, AlarmList) on one member; a member that does not answer in time is reported unreachable' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand forfeit-leadership" -l quota-backend-bytes -d 'Backend quota to assume for members that do not report one (etcd before 3.6). Kubernetes quantity, e.g. 8Gi. Default: etcd\'s 2Gi' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand forfeit-leadership" -s k -l kubeconfig -d 'Path to the kubeconfig file (plugin mode). Default: $KUBECONFIG (several paths are merged), else ~/.kube/config, else the in-cluster service account' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand forfeit-leadership" -l context -d 'The kubeconfig context to use (plugin mode); more than once, for `status -A`, `doctor -A`, `defrag -A`/`-l` over each' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand forfeit-leadership" -s n -l namespace -d 'Namespace of the EtcdCluster. Default: the context\'s namespace, else `default`' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand forfeit-leadership" -s p -l pod -d 'An etcd member\'s Pod, as the etcd-operator\'s own Go plugin takes it: selects the Pod\'s EtcdCluster and, for `snapshot save` and `leave`, its member (plugin mode)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand forfeit-leadership" -s s -l credentials-secret -d 'The operator plugin\'s credentials Secret: refused, since the EtcdCluster names its own (or use --user)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand forfeit-leadership" -l as -d 'Act as this Kubernetes user (impersonation), e.g. system:serviceaccount:NS:NAME' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand forfeit-leadership" -l as-group -d 'Group to impersonate along with --as (repeatable)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand forfeit-leadership" -l request-timeout -d 'How long to wait for the API server\'s answer to one request, as kubectl\'s flag: a duration (5s, 1m) or whole seconds (30); 0 waits as long as it takes. Default: 30 s to connect, then no limit. A watch or port-forward is bounded until it is answered, not after' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand forfeit-leadership" -l connect -d 'How to reach members in plugin mode: `direct` dials each member\'s Pod IP (or its in-cluster DNS name); `port-forward` tunnels to each member Pod through the API server; `auto` is direct inside a Pod, else port-forward. Certificates are always verified against the member\'s in-cluster DNS name' -r -f -a "auto\t''
direct\t''
port-forward\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand forfeit-leadership" -l kind -d 'The kind of cluster a name means (plugin mode). Default: every kind served; a name two kinds hold is refused until one is picked' -r -f -a "cozystack\t'The cozystack etcd-operator\'s EtcdCluster (etcd-operator.cozystack.io)'
etcd-io\t'The etcd project\'s operator\'s EtcdCluster (operator.etcd.io)'
control-plane\t'A control plane\'s own etcd: static Pods the kubelet runs (kubeadm, rke2), reached from their node through an agent Pod'"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand forfeit-leadership" -l agent-image -d 'A control plane\'s etcd (kubeadm\'s static Pods) is reached through a short-lived agent Pod on one of its nodes: this image of the tool' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand forfeit-leadership" -l agent-namespace -d 'The namespace of that agent\'s Job (hostNetwork and hostPath files: its Pod Security level must be privileged)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand forfeit-leadership" -s o -l output -d 'Output format. etcdctl\'s ETCDCTL_WRITE_OUT is read too (its `simple` is the table; `fields` and `protobuf` have no counterpart)' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand forfeit-leadership" -l log-format -d 'How stderr is written: `text` for a person, `json` for a log collector (one JSON object per line: timestamp, level, message and the event\'s fields; messages and errors too)' -r -f -a "text\t''
json\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand forfeit-leadership" -l dry-run -d 'Show the transfer and change nothing'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand forfeit-leadership" -s y -l yes -d 'Do not ask for confirmation (required when not on a terminal)'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand forfeit-leadership" -l allow-quorum-loss -d 'Accept a cluster with fewer than three voting members, where taking one member out for maintenance loses quorum'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand forfeit-leadership" -l no-discover -d 'Use only the given endpoints; do not add members found in MemberList'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand forfeit-leadership" -l all-contexts -d 'Every kubeconfig context, for `status -A`, `doctor -A`, `defrag -A`/`-l`'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand forfeit-leadership" -s v -l verbose -d 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand forfeit-leadership" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand compact" -l revision -d 'Keep revision N and later: compact every revision before it' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand compact" -l keep -d 'Keep the N revisions before the current one: compact at the current revision minus N (0 keeps only the current revision: each key\'s latest value, no history)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand compact" -l keep-duration -d 'Keep what was written in the last DURATION (e.g. 6h): compact at the newest revision written before then. etcd records no time per revision; the Lease objects a Kubernetes API server keeps renewing date them (found by a binary search over revisions), so this works for an etcd that backs Kubernetes' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand compact" -l leases-prefix -d 'With --keep-duration: where the Lease objects are (kube-apiserver\'s --etcd-prefix followed by /leases/)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand compact" -l max-raft-lag -d 'Largest tolerated raft lag, in entries: a member\'s committed index minus its applied index, and its distance behind the leader\'s index' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand compact" -l endpoints -d 'etcd client URLs to start from (comma-separated or repeated). A URL without a scheme uses https when --cacert is set, else http' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand compact" -l cacert -d 'CA bundle (PEM) that signed the members\' server certificates' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand compact" -l cert -d 'Client certificate (PEM) for mutual TLS; needs --key' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand compact" -l key -d 'Client private key (PEM) for mutual TLS; needs --cert' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand compact" -l user -d 'etcd user name, or `name:password`. Without a password (here, in --password or in ETCDCTL_PASSWORD) it is asked for on a terminal' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand compact" -l password -d 'Password for --user' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand compact" -l dial-timeout -d 'Time allowed to connect (TCP, TLS and authentication) to one member' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand compact" -l command-timeout -d 'Time allowed for one probe RPC (Status, MemberList, AlarmList) on one member; a member that does not answer in time is reported unreachable' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand compact" -l quota-backend-bytes -d 'Backend quota to assume for members that do not report one (etcd before 3.6). Kubernetes quantity, e.g. 8Gi. Default: etcd\'s 2Gi' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand compact" -s k -l kubeconfig -d 'Path to the kubeconfig file (plugin mode). Default: $KUBECONFIG (several paths are merged), else ~/.kube/config, else the in-cluster service account' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand compact" -l context -d 'The kubeconfig context to use (plugin mode); more than once, for `status -A`, `doctor -A`, `defrag -A`/`-l` over each' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand compact" -s n -l namespace -d 'Namespace of the EtcdCluster. Default: the context\'s namespace, else `default`' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand compact" -s p -l pod -d 'An etcd member\'s Pod, as the etcd-operator\'s own Go plugin takes it: selects the Pod\'s EtcdCluster and, for `snapshot save` and `leave`, its member (plugin mode)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand compact" -s s -l credentials-secret -d 'The operator plugin\'s credentials Secret: refused, since the EtcdCluster names its own (or use --user)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand compact" -l as -d 'Act as this Kubernetes user (impersonation), e.g. system:serviceaccount:NS:NAME' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand compact" -l as-group -d 'Group to impersonate along with --as (repeatable)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand compact" -l request-timeout -d 'How long to wait for the API server\'s answer to one request, as kubectl\'s flag: a duration (5s, 1m) or whole seconds (30); 0 waits as long as it takes. Default: 30 s to connect, then no limit. A watch or port-forward is bounded until it is answered, not after' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand compact" -l connect -d 'How to reach members in plugin mode: `direct` dials each member\'s Pod IP (or its in-cluster DNS name); `port-forward` tunnels to each member Pod through the API server; `auto` is direct inside a Pod, else port-forward. Certificates are always verified against the member\'s in-cluster DNS name' -r -f -a "auto\t''
direct\t''
port-forward\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand compact" -l kind -d 'The kind of cluster a name means (plugin mode). Default: every kind served; a name two kinds hold is refused until one is picked' -r -f -a "cozystack\t'The cozystack etcd-operator\'s EtcdCluster (etcd-operator.cozystack.io)'
etcd-io\t'The etcd project\'s operator\'s EtcdCluster (operator.etcd.io)'
control-plane\t'A control plane\'s own etcd: static Pods the kubelet runs (kubeadm, rke2), reached from their node through an agent Pod'"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand compact" -l agent-image -d 'A control plane\'s etcd (kubeadm\'s static Pods) is reached through a short-lived agent Pod on one of its nodes: this image of the tool' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand compact" -l agent-namespace -d 'The namespace of that agent\'s Job (hostNetwork and hostPath files: its Pod Security level must be privileged)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand compact" -s o -l output -d 'Output format. etcdctl\'s ETCDCTL_WRITE_OUT is read too (its `simple` is the table; `fields` and `protobuf` have no counterpart)' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand compact" -l log-format -d 'How stderr is written: `text` for a person, `json` for a log collector (one JSON object per line: timestamp, level, message and the event\'s fields; messages and errors too)' -r -f -a "text\t''
json\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand compact" -l physical -d 'Answer only once the leader has compacted its backend (etcdctl\'s --physical); the sizes reported after are then final'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand compact" -l dry-run -d 'Show the revision that would be compacted and change nothing'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand compact" -s y -l yes -d 'Do not ask for confirmation (required when not on a terminal)'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand compact" -l allow-quorum-loss -d 'Accept a cluster with fewer than three voting members, where taking one member out for maintenance loses quorum'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand compact" -l no-discover -d 'Use only the given endpoints; do not add members found in MemberList'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand compact" -l all-contexts -d 'Every kubeconfig context, for `status -A`, `doctor -A`, `defrag -A`/`-l`'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand compact" -s v -l verbose -d 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand compact" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand usage" -l prefix -d 'Only keys starting with PREFIX, grouped one segment below it' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand usage" -l depth -d 'Group by the first N `/`-separated segments below --prefix (default: the Kubernetes layout for the whole keyspace, 1 below a --prefix)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand usage" -l top -d 'How many prefixes each ranking shows (-o json|yaml lists them all)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand usage" -l window -d 'How long to count writes, with a Watch from the revision read (0: no sample). The read and the sample run side by side' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand usage" -l member -d 'The member to read from (default: the most caught-up healthy follower)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand usage" -l endpoints -d 'etcd client URLs to start from (comma-separated or repeated). A URL without a scheme uses https when --cacert is set, else http' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand usage" -l cacert -d 'CA bundle (PEM) that signed the members\' server certificates' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand usage" -l cert -d 'Client certificate (PEM) for mutual TLS; needs --key' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand usage" -l key -d 'Client private key (PEM) for mutual TLS; needs --cert' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand usage" -l user -d 'etcd user name, or `name:password`. Without a password (here, in --password or in ETCDCTL_PASSWORD) it is asked for on a terminal' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand usage" -l password -d 'Password for --user' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand usage" -l dial-timeout -d 'Time allowed to connect (TCP, TLS and authentication) to one member' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand usage" -l command-timeout -d 'Time allowed for one probe RPC (Status, MemberList, AlarmList) on one member; a member that does not answer in time is reported unreachable' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand usage" -l quota-backend-bytes -d 'Backend quota to assume for members that do not report one (etcd before 3.6). Kubernetes quantity, e.g. 8Gi. Default: etcd\'s 2Gi' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand usage" -s k -l kubeconfig -d 'Path to the kubeconfig file (plugin mode). Default: $KUBECONFIG (several paths are merged), else ~/.kube/config, else the in-cluster service account' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand usage" -l context -d 'The kubeconfig context to use (plugin mode); more than once, for `status -A`, `doctor -A`, `defrag -A`/`-l` over each' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand usage" -s n -l namespace -d 'Namespace of the EtcdCluster. Default: the context\'s namespace, else `default`' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand usage" -s p -l pod -d 'An etcd member\'s Pod, as the etcd-operator\'s own Go plugin takes it: selects the Pod\'s EtcdCluster and, for `snapshot save` and `leave`, its member (plugin mode)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand usage" -s s -l credentials-secret -d 'The operator plugin\'s credentials Secret: refused, since the EtcdCluster names its own (or use --user)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand usage" -l as -d 'Act as this Kubernetes user (impersonation), e.g. system:serviceaccount:NS:NAME' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand usage" -l as-group -d 'Group to impersonate along with --as (repeatable)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand usage" -l request-timeout -d 'How long to wait for the API server\'s answer to one request, as kubectl\'s flag: a duration (5s, 1m) or whole seconds (30); 0 waits as long as it takes. Default: 30 s to connect, then no limit. A watch or port-forward is bounded until it is answered, not after' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand usage" -l connect -d 'How to reach members in plugin mode: `direct` dials each member\'s Pod IP (or its in-cluster DNS name); `port-forward` tunnels to each member Pod through the API server; `auto` is direct inside a Pod, else port-forward. Certificates are always verified against the member\'s in-cluster DNS name' -r -f -a "auto\t''
direct\t''
port-forward\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand usage" -l kind -d 'The kind of cluster a name means (plugin mode). Default: every kind served; a name two kinds hold is refused until one is picked' -r -f -a "cozystack\t'The cozystack etcd-operator\'s EtcdCluster (etcd-operator.cozystack.io)'
etcd-io\t'The etcd project\'s operator\'s EtcdCluster (operator.etcd.io)'
control-plane\t'A control plane\'s own etcd: static Pods the kubelet runs (kubeadm, rke2), reached from their node through an agent Pod'"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand usage" -l agent-image -d 'A control plane\'s etcd (kubeadm\'s static Pods) is reached through a short-lived agent Pod on one of its nodes: this image of the tool' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand usage" -l agent-namespace -d 'The namespace of that agent\'s Job (hostNetwork and hostPath files: its Pod Security level must be privileged)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand usage" -s o -l output -d 'Output format. etcdctl\'s ETCDCTL_WRITE_OUT is read too (its `simple` is the table; `fields` and `protobuf` have no counterpart)' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand usage" -l log-format -d 'How stderr is written: `text` for a person, `json` for a log collector (one JSON object per line: timestamp, level, message and the event\'s fields; messages and errors too)' -r -f -a "text\t''
json\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand usage" -l keys-only -d 'Count keys without reading values (no bytes): far less to send, and from etcd 3.7 on served from the member\'s index alone'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand usage" -l no-discover -d 'Use only the given endpoints; do not add members found in MemberList'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand usage" -l all-contexts -d 'Every kubeconfig context, for `status -A`, `doctor -A`, `defrag -A`/`-l`'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand usage" -s v -l verbose -d 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand usage" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and not __fish_seen_subcommand_from save status usage help" -l endpoints -d 'etcd client URLs to start from (comma-separated or repeated). A URL without a scheme uses https when --cacert is set, else http' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and not __fish_seen_subcommand_from save status usage help" -l cacert -d 'CA bundle (PEM) that signed the members\' server certificates' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and not __fish_seen_subcommand_from save status usage help" -l cert -d 'Client certificate (PEM) for mutual TLS; needs --key' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and not __fish_seen_subcommand_from save status usage help" -l key -d 'Client private key (PEM) for mutual TLS; needs --cert' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and not __fish_seen_subcommand_from save status usage help" -l user -d 'etcd user name, or `name:password`. Without a password (here, in --password or in ETCDCTL_PASSWORD) it is asked for on a terminal' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and not __fish_seen_subcommand_from save status usage help" -l password -d 'Password for --user' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and not __fish_seen_subcommand_from save status usage help" -l dial-timeout -d 'Time allowed to connect (TCP, TLS and authentication) to one member' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and not __fish_seen_subcommand_from save status usage help" -l command-timeout -d 'Time allowed for one probe RPC (Status, MemberList, AlarmList) on one member; a member that does not answer in time is reported unreachable' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and not __fish_seen_subcommand_from save status usage help" -l quota-backend-bytes -d 'Backend quota to assume for members that do not report one (etcd before 3.6). Kubernetes quantity, e.g. 8Gi. Default: etcd\'s 2Gi' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and not __fish_seen_subcommand_from save status usage help" -s k -l kubeconfig -d 'Path to the kubeconfig file (plugin mode). Default: $KUBECONFIG (several paths are merged), else ~/.kube/config, else the in-cluster service account' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and not __fish_seen_subcommand_from save status usage help" -l context -d 'The kubeconfig context to use (plugin mode); more than once, for `status -A`, `doctor -A`, `defrag -A`/`-l` over each' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and not __fish_seen_subcommand_from save status usage help" -s n -l namespace -d 'Namespace of the EtcdCluster. Default: the context\'s namespace, else `default`' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and not __fish_seen_subcommand_from save status usage help" -s p -l pod -d 'An etcd member\'s Pod, as the etcd-operator\'s own Go plugin takes it: selects the Pod\'s EtcdCluster and, for `snapshot save` and `leave`, its member (plugin mode)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and not __fish_seen_subcommand_from save status usage help" -s s -l credentials-secret -d 'The operator plugin\'s credentials Secret: refused, since the EtcdCluster names its own (or use --user)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and not __fish_seen_subcommand_from save status usage help" -l as -d 'Act as this Kubernetes user (impersonation), e.g. system:serviceaccount:NS:NAME' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and not __fish_seen_subcommand_from save status usage help" -l as-group -d 'Group to impersonate along with --as (repeatable)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and not __fish_seen_subcommand_from save status usage help" -l request-timeout -d 'How long to wait for the API server\'s answer to one request, as kubectl\'s flag: a duration (5s, 1m) or whole seconds (30); 0 waits as long as it takes. Default: 30 s to connect, then no limit. A watch or port-forward is bounded until it is answered, not after' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and not __fish_seen_subcommand_from save status usage help" -l connect -d 'How to reach members in plugin mode: `direct` dials each member\'s Pod IP (or its in-cluster DNS name); `port-forward` tunnels to each member Pod through the API server; `auto` is direct inside a Pod, else port-forward. Certificates are always verified against the member\'s in-cluster DNS name' -r -f -a "auto\t''
direct\t''
port-forward\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and not __fish_seen_subcommand_from save status usage help" -l kind -d 'The kind of cluster a name means (plugin mode). Default: every kind served; a name two kinds hold is refused until one is picked' -r -f -a "cozystack\t'The cozystack etcd-operator\'s EtcdCluster (etcd-operator.cozystack.io)'
etcd-io\t'The etcd project\'s operator\'s EtcdCluster (operator.etcd.io)'
control-plane\t'A control plane\'s own etcd: static Pods the kubelet runs (kubeadm, rke2), reached from their node through an agent Pod'"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and not __fish_seen_subcommand_from save status usage help" -l agent-image -d 'A control plane\'s etcd (kubeadm\'s static Pods) is reached through a short-lived agent Pod on one of its nodes: this image of the tool' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and not __fish_seen_subcommand_from save status usage help" -l agent-namespace -d 'The namespace of that agent\'s Job (hostNetwork and hostPath files: its Pod Security level must be privileged)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and not __fish_seen_subcommand_from save status usage help" -s o -l output -d 'Output format. etcdctl\'s ETCDCTL_WRITE_OUT is read too (its `simple` is the table; `fields` and `protobuf` have no counterpart)' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and not __fish_seen_subcommand_from save status usage help" -l log-format -d 'How stderr is written: `text` for a person, `json` for a log collector (one JSON object per line: timestamp, level, message and the event\'s fields; messages and errors too)' -r -f -a "text\t''
json\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and not __fish_seen_subcommand_from save status usage help" -l no-discover -d 'Use only the given endpoints; do not add members found in MemberList'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and not __fish_seen_subcommand_from save status usage help" -l all-contexts -d 'Every kubeconfig context, for `status -A`, `doctor -A`, `defrag -A`/`-l`'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and not __fish_seen_subcommand_from save status usage help" -s v -l verbose -d 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and not __fish_seen_subcommand_from save status usage help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and not __fish_seen_subcommand_from save status usage help" -f -a "save" -d 'Stream one member\'s backend into FILE, check it and print its SHA-256'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and not __fish_seen_subcommand_from save status usage help" -f -a "status" -d 'The hash, revision, key count and size of a saved snapshot (the figures `etcdutl snapshot status` prints), read here without etcdutl, and whether the checksum etcd appended still matches'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and not __fish_seen_subcommand_from save status usage help" -f -a "usage" -d 'Which key prefixes hold a saved snapshot\'s space: live keys and bytes per prefix, and the history each still keeps (older revisions and deletions: what a compaction at the snapshot\'s revision would drop), with the free pages a defrag would return. Read offline, so the heavy analysis never touches a running member'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and not __fish_seen_subcommand_from save status usage help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from save" -l member -d 'The member to stream from (default: the most caught-up healthy follower)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from save" -l endpoints -d 'etcd client URLs to start from (comma-separated or repeated). A URL without a scheme uses https when --cacert is set, else http' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from save" -l cacert -d 'CA bundle (PEM) that signed the members\' server certificates' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from save" -l cert -d 'Client certificate (PEM) for mutual TLS; needs --key' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from save" -l key -d 'Client private key (PEM) for mutual TLS; needs --cert' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from save" -l user -d 'etcd user name, or `name:password`. Without a password (here, in --password or in ETCDCTL_PASSWORD) it is asked for on a terminal' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from save" -l password -d 'Password for --user' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from save" -l dial-timeout -d 'Time allowed to connect (TCP, TLS and authentication) to one member' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from save" -l command-timeout -d 'Time allowed for one probe RPC (Status, MemberList, AlarmList) on one member; a member that does not answer in time is reported unreachable' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from save" -l quota-backend-bytes -d 'Backend quota to assume for members that do not report one (etcd before 3.6). Kubernetes quantity, e.g. 8Gi. Default: etcd\'s 2Gi' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from save" -s k -l kubeconfig -d 'Path to the kubeconfig file (plugin mode). Default: $KUBECONFIG (several paths are merged), else ~/.kube/config, else the in-cluster service account' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from save" -l context -d 'The kubeconfig context to use (plugin mode); more than once, for `status -A`, `doctor -A`, `defrag -A`/`-l` over each' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from save" -s n -l namespace -d 'Namespace of the EtcdCluster. Default: the context\'s namespace, else `default`' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from save" -s p -l pod -d 'An etcd member\'s Pod, as the etcd-operator\'s own Go plugin takes it: selects the Pod\'s EtcdCluster and, for `snapshot save` and `leave`, its member (plugin mode)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from save" -s s -l credentials-secret -d 'The operator plugin\'s credentials Secret: refused, since the EtcdCluster names its own (or use --user)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from save" -l as -d 'Act as this Kubernetes user (impersonation), e.g. system:serviceaccount:NS:NAME' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from save" -l as-group -d 'Group to impersonate along with --as (repeatable)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from save" -l request-timeout -d 'How long to wait for the API server\'s answer to one request, as kubectl\'s flag: a duration (5s, 1m) or whole seconds (30); 0 waits as long as it takes. Default: 30 s to connect, then no limit. A watch or port-forward is bounded until it is answered, not after' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from save" -l connect -d 'How to reach members in plugin mode: `direct` dials each member\'s Pod IP (or its in-cluster DNS name); `port-forward` tunnels to each member Pod through the API server; `auto` is direct inside a Pod, else port-forward. Certificates are always verified against the member\'s in-cluster DNS name' -r -f -a "auto\t''
direct\t''
port-forward\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from save" -l kind -d 'The kind of cluster a name means (plugin mode). Default: every kind served; a name two kinds hold is refused until one is picked' -r -f -a "cozystack\t'The cozystack etcd-operator\'s EtcdCluster (etcd-operator.cozystack.io)'
etcd-io\t'The etcd project\'s operator\'s EtcdCluster (operator.etcd.io)'
control-plane\t'A control plane\'s own etcd: static Pods the kubelet runs (kubeadm, rke2), reached from their node through an agent Pod'"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from save" -l agent-image -d 'A control plane\'s etcd (kubeadm\'s static Pods) is reached through a short-lived agent Pod on one of its nodes: this image of the tool' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from save" -l agent-namespace -d 'The namespace of that agent\'s Job (hostNetwork and hostPath files: its Pod Security level must be privileged)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from save" -s o -l output -d 'Output format. etcdctl\'s ETCDCTL_WRITE_OUT is read too (its `simple` is the table; `fields` and `protobuf` have no counterpart)' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from save" -l log-format -d 'How stderr is written: `text` for a person, `json` for a log collector (one JSON object per line: timestamp, level, message and the event\'s fields; messages and errors too)' -r -f -a "text\t''
json\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from save" -l force -d 'Replace FILE (and FILE.sha256) when it exists'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from save" -l no-discover -d 'Use only the given endpoints; do not add members found in MemberList'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from save" -l all-contexts -d 'Every kubeconfig context, for `status -A`, `doctor -A`, `defrag -A`/`-l`'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from save" -s v -l verbose -d 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from save" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from status" -l endpoints -d 'etcd client URLs to start from (comma-separated or repeated). A URL without a scheme uses https when --cacert is set, else http' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from status" -l cacert -d 'CA bundle (PEM) that signed the members\' server certificates' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from status" -l cert -d 'Client certificate (PEM) for mutual TLS; needs --key' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from status" -l key -d 'Client private key (PEM) for mutual TLS; needs --cert' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from status" -l user -d 'etcd user name, or `name:password`. Without a password (here, in --password or in ETCDCTL_PASSWORD) it is asked for on a terminal' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from status" -l password -d 'Password for --user' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from status" -l dial-timeout -d 'Time allowed to connect (TCP, TLS and authentication) to one member' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from status" -l command-timeout -d 'Time allowed for one probe RPC (Status, MemberList, AlarmList) on one member; a member that does not answer in time is reported unreachable' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from status" -l quota-backend-bytes -d 'Backend quota to assume for members that do not report one (etcd before 3.6). Kubernetes quantity, e.g. 8Gi. Default: etcd\'s 2Gi' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from status" -s k -l kubeconfig -d 'Path to the kubeconfig file (plugin mode). Default: $KUBECONFIG (several paths are merged), else ~/.kube/config, else the in-cluster service account' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from status" -l context -d 'The kubeconfig context to use (plugin mode); more than once, for `status -A`, `doctor -A`, `defrag -A`/`-l` over each' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from status" -s n -l namespace -d 'Namespace of the EtcdCluster. Default: the context\'s namespace, else `default`' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from status" -s p -l pod -d 'An etcd member\'s Pod, as the etcd-operator\'s own Go plugin takes it: selects the Pod\'s EtcdCluster and, for `snapshot save` and `leave`, its member (plugin mode)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from status" -s s -l credentials-secret -d 'The operator plugin\'s credentials Secret: refused, since the EtcdCluster names its own (or use --user)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from status" -l as -d 'Act as this Kubernetes user (impersonation), e.g. system:serviceaccount:NS:NAME' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from status" -l as-group -d 'Group to impersonate along with --as (repeatable)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from status" -l request-timeout -d 'How long to wait for the API server\'s answer to one request, as kubectl\'s flag: a duration (5s, 1m) or whole seconds (30); 0 waits as long as it takes. Default: 30 s to connect, then no limit. A watch or port-forward is bounded until it is answered, not after' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from status" -l connect -d 'How to reach members in plugin mode: `direct` dials each member\'s Pod IP (or its in-cluster DNS name); `port-forward` tunnels to each member Pod through the API server; `auto` is direct inside a Pod, else port-forward. Certificates are always verified against the member\'s in-cluster DNS name' -r -f -a "auto\t''
direct\t''
port-forward\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from status" -l kind -d 'The kind of cluster a name means (plugin mode). Default: every kind served; a name two kinds hold is refused until one is picked' -r -f -a "cozystack\t'The cozystack etcd-operator\'s EtcdCluster (etcd-operator.cozystack.io)'
etcd-io\t'The etcd project\'s operator\'s EtcdCluster (operator.etcd.io)'
control-plane\t'A control plane\'s own etcd: static Pods the kubelet runs (kubeadm, rke2), reached from their node through an agent Pod'"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from status" -l agent-image -d 'A control plane\'s etcd (kubeadm\'s static Pods) is reached through a short-lived agent Pod on one of its nodes: this image of the tool' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from status" -l agent-namespace -d 'The namespace of that agent\'s Job (hostNetwork and hostPath files: its Pod Security level must be privileged)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from status" -s o -l output -d 'Output format. etcdctl\'s ETCDCTL_WRITE_OUT is read too (its `simple` is the table; `fields` and `protobuf` have no counterpart)' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from status" -l log-format -d 'How stderr is written: `text` for a person, `json` for a log collector (one JSON object per line: timestamp, level, message and the event\'s fields; messages and errors too)' -r -f -a "text\t''
json\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from status" -l no-discover -d 'Use only the given endpoints; do not add members found in MemberList'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from status" -l all-contexts -d 'Every kubeconfig context, for `status -A`, `doctor -A`, `defrag -A`/`-l`'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from status" -s v -l verbose -d 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from status" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from usage" -l prefix -d 'Only keys starting with PREFIX, grouped one segment below it' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from usage" -l depth -d 'Group by the first N `/`-separated segments below --prefix (default: the Kubernetes layout for the whole keyspace, 1 below a --prefix)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from usage" -l top -d 'How many prefixes each ranking shows (-o json|yaml lists them all)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from usage" -l endpoints -d 'etcd client URLs to start from (comma-separated or repeated). A URL without a scheme uses https when --cacert is set, else http' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from usage" -l cacert -d 'CA bundle (PEM) that signed the members\' server certificates' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from usage" -l cert -d 'Client certificate (PEM) for mutual TLS; needs --key' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from usage" -l key -d 'Client private key (PEM) for mutual TLS; needs --cert' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from usage" -l user -d 'etcd user name, or `name:password`. Without a password (here, in --password or in ETCDCTL_PASSWORD) it is asked for on a terminal' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from usage" -l password -d 'Password for --user' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from usage" -l dial-timeout -d 'Time allowed to connect (TCP, TLS and authentication) to one member' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from usage" -l command-timeout -d 'Time allowed for one probe RPC (Status, MemberList, AlarmList) on one member; a member that does not answer in time is reported unreachable' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from usage" -l quota-backend-bytes -d 'Backend quota to assume for members that do not report one (etcd before 3.6). Kubernetes quantity, e.g. 8Gi. Default: etcd\'s 2Gi' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from usage" -s k -l kubeconfig -d 'Path to the kubeconfig file (plugin mode). Default: $KUBECONFIG (several paths are merged), else ~/.kube/config, else the in-cluster service account' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from usage" -l context -d 'The kubeconfig context to use (plugin mode); more than once, for `status -A`, `doctor -A`, `defrag -A`/`-l` over each' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from usage" -s n -l namespace -d 'Namespace of the EtcdCluster. Default: the context\'s namespace, else `default`' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from usage" -s p -l pod -d 'An etcd member\'s Pod, as the etcd-operator\'s own Go plugin takes it: selects the Pod\'s EtcdCluster and, for `snapshot save` and `leave`, its member (plugin mode)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from usage" -s s -l credentials-secret -d 'The operator plugin\'s credentials Secret: refused, since the EtcdCluster names its own (or use --user)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from usage" -l as -d 'Act as this Kubernetes user (impersonation), e.g. system:serviceaccount:NS:NAME' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from usage" -l as-group -d 'Group to impersonate along with --as (repeatable)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from usage" -l request-timeout -d 'How long to wait for the API server\'s answer to one request, as kubectl\'s flag: a duration (5s, 1m) or whole seconds (30); 0 waits as long as it takes. Default: 30 s to connect, then no limit. A watch or port-forward is bounded until it is answered, not after' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from usage" -l connect -d 'How to reach members in plugin mode: `direct` dials each member\'s Pod IP (or its in-cluster DNS name); `port-forward` tunnels to each member Pod through the API server; `auto` is direct inside a Pod, else port-forward. Certificates are always verified against the member\'s in-cluster DNS name' -r -f -a "auto\t''
direct\t''
port-forward\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from usage" -l kind -d 'The kind of cluster a name means (plugin mode). Default: every kind served; a name two kinds hold is refused until one is picked' -r -f -a "cozystack\t'The cozystack etcd-operator\'s EtcdCluster (etcd-operator.cozystack.io)'
etcd-io\t'The etcd project\'s operator\'s EtcdCluster (operator.etcd.io)'
control-plane\t'A control plane\'s own etcd: static Pods the kubelet runs (kubeadm, rke2), reached from their node through an agent Pod'"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from usage" -l agent-image -d 'A control plane\'s etcd (kubeadm\'s static Pods) is reached through a short-lived agent Pod on one of its nodes: this image of the tool' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from usage" -l agent-namespace -d 'The namespace of that agent\'s Job (hostNetwork and hostPath files: its Pod Security level must be privileged)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from usage" -s o -l output -d 'Output format. etcdctl\'s ETCDCTL_WRITE_OUT is read too (its `simple` is the table; `fields` and `protobuf` have no counterpart)' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from usage" -l log-format -d 'How stderr is written: `text` for a person, `json` for a log collector (one JSON object per line: timestamp, level, message and the event\'s fields; messages and errors too)' -r -f -a "text\t''
json\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from usage" -l no-discover -d 'Use only the given endpoints; do not add members found in MemberList'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from usage" -l all-contexts -d 'Every kubeconfig context, for `status -A`, `doctor -A`, `defrag -A`/`-l`'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from usage" -s v -l verbose -d 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from usage" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from help" -f -a "save" -d 'Stream one member\'s backend into FILE, check it and print its SHA-256'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from help" -f -a "status" -d 'The hash, revision, key count and size of a saved snapshot (the figures `etcdutl snapshot status` prints), read here without etcdutl, and whether the checksum etcd appended still matches'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from help" -f -a "usage" -d 'Which key prefixes hold a saved snapshot\'s space: live keys and bytes per prefix, and the history each still keeps (older revisions and deletions: what a compaction at the snapshot\'s revision would drop), with the free pages a defrag would return. Read offline, so the heavy analysis never touches a running member'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand snapshot; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and not __fish_seen_subcommand_from show set clear help" -l endpoints -d 'etcd client URLs to start from (comma-separated or repeated). A URL without a scheme uses https when --cacert is set, else http' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and not __fish_seen_subcommand_from show set clear help" -l cacert -d 'CA bundle (PEM) that signed the members\' server certificates' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and not __fish_seen_subcommand_from show set clear help" -l cert -d 'Client certificate (PEM) for mutual TLS; needs --key' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and not __fish_seen_subcommand_from show set clear help" -l key -d 'Client private key (PEM) for mutual TLS; needs --cert' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and not __fish_seen_subcommand_from show set clear help" -l user -d 'etcd user name, or `name:password`. Without a password (here, in --password or in ETCDCTL_PASSWORD) it is asked for on a terminal' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and not __fish_seen_subcommand_from show set clear help" -l password -d 'Password for --user' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and not __fish_seen_subcommand_from show set clear help" -l dial-timeout -d 'Time allowed to connect (TCP, TLS and authentication) to one member' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and not __fish_seen_subcommand_from show set clear help" -l command-timeout -d 'Time allowed for one probe RPC (Status, MemberList, AlarmList) on one member; a member that does not answer in time is reported unreachable' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and not __fish_seen_subcommand_from show set clear help" -l quota-backend-bytes -d 'Backend quota to assume for members that do not report one (etcd before 3.6). Kubernetes quantity, e.g. 8Gi. Default: etcd\'s 2Gi' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and not __fish_seen_subcommand_from show set clear help" -s k -l kubeconfig -d 'Path to the kubeconfig file (plugin mode). Default: $KUBECONFIG (several paths are merged), else ~/.kube/config, else the in-cluster service account' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and not __fish_seen_subcommand_from show set clear help" -l context -d 'The kubeconfig context to use (plugin mode); more than once, for `status -A`, `doctor -A`, `defrag -A`/`-l` over each' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and not __fish_seen_subcommand_from show set clear help" -s n -l namespace -d 'Namespace of the EtcdCluster. Default: the context\'s namespace, else `default`' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and not __fish_seen_subcommand_from show set clear help" -s p -l pod -d 'An etcd member\'s Pod, as the etcd-operator\'s own Go plugin takes it: selects the Pod\'s EtcdCluster and, for `snapshot save` and `leave`, its member (plugin mode)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and not __fish_seen_subcommand_from show set clear help" -s s -l credentials-secret -d 'The operator plugin\'s credentials Secret: refused, since the EtcdCluster names its own (or use --user)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and not __fish_seen_subcommand_from show set clear help" -l as -d 'Act as this Kubernetes user (impersonation), e.g. system:serviceaccount:NS:NAME' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and not __fish_seen_subcommand_from show set clear help" -l as-group -d 'Group to impersonate along with --as (repeatable)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and not __fish_seen_subcommand_from show set clear help" -l request-timeout -d 'How long to wait for the API server\'s answer to one request, as kubectl\'s flag: a duration (5s, 1m) or whole seconds (30); 0 waits as long as it takes. Default: 30 s to connect, then no limit. A watch or port-forward is bounded until it is answered, not after' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and not __fish_seen_subcommand_from show set clear help" -l connect -d 'How to reach members in plugin mode: `direct` dials each member\'s Pod IP (or its in-cluster DNS name); `port-forward` tunnels to each member Pod through the API server; `auto` is direct inside a Pod, else port-forward. Certificates are always verified against the member\'s in-cluster DNS name' -r -f -a "auto\t''
direct\t''
port-forward\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and not __fish_seen_subcommand_from show set clear help" -l kind -d 'The kind of cluster a name means (plugin mode). Default: every kind served; a name two kinds hold is refused until one is picked' -r -f -a "cozystack\t'The cozystack etcd-operator\'s EtcdCluster (etcd-operator.cozystack.io)'
etcd-io\t'The etcd project\'s operator\'s EtcdCluster (operator.etcd.io)'
control-plane\t'A control plane\'s own etcd: static Pods the kubelet runs (kubeadm, rke2), reached from their node through an agent Pod'"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and not __fish_seen_subcommand_from show set clear help" -l agent-image -d 'A control plane\'s etcd (kubeadm\'s static Pods) is reached through a short-lived agent Pod on one of its nodes: this image of the tool' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and not __fish_seen_subcommand_from show set clear help" -l agent-namespace -d 'The namespace of that agent\'s Job (hostNetwork and hostPath files: its Pod Security level must be privileged)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and not __fish_seen_subcommand_from show set clear help" -s o -l output -d 'Output format. etcdctl\'s ETCDCTL_WRITE_OUT is read too (its `simple` is the table; `fields` and `protobuf` have no counterpart)' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and not __fish_seen_subcommand_from show set clear help" -l log-format -d 'How stderr is written: `text` for a person, `json` for a log collector (one JSON object per line: timestamp, level, message and the event\'s fields; messages and errors too)' -r -f -a "text\t''
json\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and not __fish_seen_subcommand_from show set clear help" -l no-discover -d 'Use only the given endpoints; do not add members found in MemberList'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and not __fish_seen_subcommand_from show set clear help" -l all-contexts -d 'Every kubeconfig context, for `status -A`, `doctor -A`, `defrag -A`/`-l`'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and not __fish_seen_subcommand_from show set clear help" -s v -l verbose -d 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and not __fish_seen_subcommand_from show set clear help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and not __fish_seen_subcommand_from show set clear help" -f -a "show" -d 'The Service\'s value, the managers that own it, the EtcdCluster annotation, and which values this API server release keeps'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and not __fish_seen_subcommand_from show set clear help" -f -a "set" -d 'Annotate the EtcdCluster and apply VALUE to the client Service, then read it back. The server is asked first with a dry run: a value it rejects (422) or accepts and drops (servers before 1.31) is an error (exit 1) that writes nothing. If the real apply fails, the annotation is put back and nothing is left owned by the field manager'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and not __fish_seen_subcommand_from show set clear help" -f -a "clear" -d 'Remove the annotation and release the field manager\'s ownership. The value stays if another manager also owns it; a value set by hand is left alone'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and not __fish_seen_subcommand_from show set clear help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from show" -l endpoints -d 'etcd client URLs to start from (comma-separated or repeated). A URL without a scheme uses https when --cacert is set, else http' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from show" -l cacert -d 'CA bundle (PEM) that signed the members\' server certificates' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from show" -l cert -d 'Client certificate (PEM) for mutual TLS; needs --key' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from show" -l key -d 'Client private key (PEM) for mutual TLS; needs --cert' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from show" -l user -d 'etcd user name, or `name:password`. Without a password (here, in --password or in ETCDCTL_PASSWORD) it is asked for on a terminal' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from show" -l password -d 'Password for --user' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from show" -l dial-timeout -d 'Time allowed to connect (TCP, TLS and authentication) to one member' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from show" -l command-timeout -d 'Time allowed for one probe RPC (Status, MemberList, AlarmList) on one member; a member that does not answer in time is reported unreachable' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from show" -l quota-backend-bytes -d 'Backend quota to assume for members that do not report one (etcd before 3.6). Kubernetes quantity, e.g. 8Gi. Default: etcd\'s 2Gi' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from show" -s k -l kubeconfig -d 'Path to the kubeconfig file (plugin mode). Default: $KUBECONFIG (several paths are merged), else ~/.kube/config, else the in-cluster service account' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from show" -l context -d 'The kubeconfig context to use (plugin mode); more than once, for `status -A`, `doctor -A`, `defrag -A`/`-l` over each' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from show" -s n -l namespace -d 'Namespace of the EtcdCluster. Default: the context\'s namespace, else `default`' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from show" -s p -l pod -d 'An etcd member\'s Pod, as the etcd-operator\'s own Go plugin takes it: selects the Pod\'s EtcdCluster and, for `snapshot save` and `leave`, its member (plugin mode)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from show" -s s -l credentials-secret -d 'The operator plugin\'s credentials Secret: refused, since the EtcdCluster names its own (or use --user)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from show" -l as -d 'Act as this Kubernetes user (impersonation), e.g. system:serviceaccount:NS:NAME' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from show" -l as-group -d 'Group to impersonate along with --as (repeatable)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from show" -l request-timeout -d 'How long to wait for the API server\'s answer to one request, as kubectl\'s flag: a duration (5s, 1m) or whole seconds (30); 0 waits as long as it takes. Default: 30 s to connect, then no limit. A watch or port-forward is bounded until it is answered, not after' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from show" -l connect -d 'How to reach members in plugin mode: `direct` dials each member\'s Pod IP (or its in-cluster DNS name); `port-forward` tunnels to each member Pod through the API server; `auto` is direct inside a Pod, else port-forward. Certificates are always verified against the member\'s in-cluster DNS name' -r -f -a "auto\t''
direct\t''
port-forward\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from show" -l kind -d 'The kind of cluster a name means (plugin mode). Default: every kind served; a name two kinds hold is refused until one is picked' -r -f -a "cozystack\t'The cozystack etcd-operator\'s EtcdCluster (etcd-operator.cozystack.io)'
etcd-io\t'The etcd project\'s operator\'s EtcdCluster (operator.etcd.io)'
control-plane\t'A control plane\'s own etcd: static Pods the kubelet runs (kubeadm, rke2), reached from their node through an agent Pod'"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from show" -l agent-image -d 'A control plane\'s etcd (kubeadm\'s static Pods) is reached through a short-lived agent Pod on one of its nodes: this image of the tool' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from show" -l agent-namespace -d 'The namespace of that agent\'s Job (hostNetwork and hostPath files: its Pod Security level must be privileged)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from show" -s o -l output -d 'Output format. etcdctl\'s ETCDCTL_WRITE_OUT is read too (its `simple` is the table; `fields` and `protobuf` have no counterpart)' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from show" -l log-format -d 'How stderr is written: `text` for a person, `json` for a log collector (one JSON object per line: timestamp, level, message and the event\'s fields; messages and errors too)' -r -f -a "text\t''
json\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from show" -l no-discover -d 'Use only the given endpoints; do not add members found in MemberList'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from show" -l all-contexts -d 'Every kubeconfig context, for `status -A`, `doctor -A`, `defrag -A`/`-l`'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from show" -s v -l verbose -d 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from set" -l take-from -d 'Take spec.trafficDistribution from this server-side-apply field manager (repeat for several). Without it, a value another manager applied (Argo CD, Flux, a Helm apply) is left alone and nothing changes: taking it makes that manager\'s next apply fail with a conflict. Hand edits (kubectl edit, replace) are taken back without it' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from set" -l endpoints -d 'etcd client URLs to start from (comma-separated or repeated). A URL without a scheme uses https when --cacert is set, else http' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from set" -l cacert -d 'CA bundle (PEM) that signed the members\' server certificates' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from set" -l cert -d 'Client certificate (PEM) for mutual TLS; needs --key' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from set" -l key -d 'Client private key (PEM) for mutual TLS; needs --cert' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from set" -l user -d 'etcd user name, or `name:password`. Without a password (here, in --password or in ETCDCTL_PASSWORD) it is asked for on a terminal' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from set" -l password -d 'Password for --user' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from set" -l dial-timeout -d 'Time allowed to connect (TCP, TLS and authentication) to one member' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from set" -l command-timeout -d 'Time allowed for one probe RPC (Status, MemberList, AlarmList) on one member; a member that does not answer in time is reported unreachable' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from set" -l quota-backend-bytes -d 'Backend quota to assume for members that do not report one (etcd before 3.6). Kubernetes quantity, e.g. 8Gi. Default: etcd\'s 2Gi' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from set" -s k -l kubeconfig -d 'Path to the kubeconfig file (plugin mode). Default: $KUBECONFIG (several paths are merged), else ~/.kube/config, else the in-cluster service account' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from set" -l context -d 'The kubeconfig context to use (plugin mode); more than once, for `status -A`, `doctor -A`, `defrag -A`/`-l` over each' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from set" -s n -l namespace -d 'Namespace of the EtcdCluster. Default: the context\'s namespace, else `default`' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from set" -s p -l pod -d 'An etcd member\'s Pod, as the etcd-operator\'s own Go plugin takes it: selects the Pod\'s EtcdCluster and, for `snapshot save` and `leave`, its member (plugin mode)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from set" -s s -l credentials-secret -d 'The operator plugin\'s credentials Secret: refused, since the EtcdCluster names its own (or use --user)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from set" -l as -d 'Act as this Kubernetes user (impersonation), e.g. system:serviceaccount:NS:NAME' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from set" -l as-group -d 'Group to impersonate along with --as (repeatable)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from set" -l request-timeout -d 'How long to wait for the API server\'s answer to one request, as kubectl\'s flag: a duration (5s, 1m) or whole seconds (30); 0 waits as long as it takes. Default: 30 s to connect, then no limit. A watch or port-forward is bounded until it is answered, not after' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from set" -l connect -d 'How to reach members in plugin mode: `direct` dials each member\'s Pod IP (or its in-cluster DNS name); `port-forward` tunnels to each member Pod through the API server; `auto` is direct inside a Pod, else port-forward. Certificates are always verified against the member\'s in-cluster DNS name' -r -f -a "auto\t''
direct\t''
port-forward\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from set" -l kind -d 'The kind of cluster a name means (plugin mode). Default: every kind served; a name two kinds hold is refused until one is picked' -r -f -a "cozystack\t'The cozystack etcd-operator\'s EtcdCluster (etcd-operator.cozystack.io)'
etcd-io\t'The etcd project\'s operator\'s EtcdCluster (operator.etcd.io)'
control-plane\t'A control plane\'s own etcd: static Pods the kubelet runs (kubeadm, rke2), reached from their node through an agent Pod'"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from set" -l agent-image -d 'A control plane\'s etcd (kubeadm\'s static Pods) is reached through a short-lived agent Pod on one of its nodes: this image of the tool' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from set" -l agent-namespace -d 'The namespace of that agent\'s Job (hostNetwork and hostPath files: its Pod Security level must be privileged)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from set" -s o -l output -d 'Output format. etcdctl\'s ETCDCTL_WRITE_OUT is read too (its `simple` is the table; `fields` and `protobuf` have no counterpart)' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from set" -l log-format -d 'How stderr is written: `text` for a person, `json` for a log collector (one JSON object per line: timestamp, level, message and the event\'s fields; messages and errors too)' -r -f -a "text\t''
json\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from set" -l exact -d 'Write VALUE as given, even where the API server names it otherwise (deprecated, or not kept with its default feature gates)'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from set" -l dry-run -d 'Send every write as a server-side dry run (the server validates it and stores nothing) and print what would change'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from set" -s y -l yes -d 'Do not ask for confirmation (required when not on a terminal)'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from set" -l no-discover -d 'Use only the given endpoints; do not add members found in MemberList'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from set" -l all-contexts -d 'Every kubeconfig context, for `status -A`, `doctor -A`, `defrag -A`/`-l`'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from set" -s v -l verbose -d 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from set" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from clear" -l endpoints -d 'etcd client URLs to start from (comma-separated or repeated). A URL without a scheme uses https when --cacert is set, else http' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from clear" -l cacert -d 'CA bundle (PEM) that signed the members\' server certificates' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from clear" -l cert -d 'Client certificate (PEM) for mutual TLS; needs --key' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from clear" -l key -d 'Client private key (PEM) for mutual TLS; needs --cert' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from clear" -l user -d 'etcd user name, or `name:password`. Without a password (here, in --password or in ETCDCTL_PASSWORD) it is asked for on a terminal' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from clear" -l password -d 'Password for --user' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from clear" -l dial-timeout -d 'Time allowed to connect (TCP, TLS and authentication) to one member' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from clear" -l command-timeout -d 'Time allowed for one probe RPC (Status, MemberList, AlarmList) on one member; a member that does not answer in time is reported unreachable' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from clear" -l quota-backend-bytes -d 'Backend quota to assume for members that do not report one (etcd before 3.6). Kubernetes quantity, e.g. 8Gi. Default: etcd\'s 2Gi' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from clear" -s k -l kubeconfig -d 'Path to the kubeconfig file (plugin mode). Default: $KUBECONFIG (several paths are merged), else ~/.kube/config, else the in-cluster service account' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from clear" -l context -d 'The kubeconfig context to use (plugin mode); more than once, for `status -A`, `doctor -A`, `defrag -A`/`-l` over each' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from clear" -s n -l namespace -d 'Namespace of the EtcdCluster. Default: the context\'s namespace, else `default`' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from clear" -s p -l pod -d 'An etcd member\'s Pod, as the etcd-operator\'s own Go plugin takes it: selects the Pod\'s EtcdCluster and, for `snapshot save` and `leave`, its member (plugin mode)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from clear" -s s -l credentials-secret -d 'The operator plugin\'s credentials Secret: refused, since the EtcdCluster names its own (or use --user)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from clear" -l as -d 'Act as this Kubernetes user (impersonation), e.g. system:serviceaccount:NS:NAME' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from clear" -l as-group -d 'Group to impersonate along with --as (repeatable)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from clear" -l request-timeout -d 'How long to wait for the API server\'s answer to one request, as kubectl\'s flag: a duration (5s, 1m) or whole seconds (30); 0 waits as long as it takes. Default: 30 s to connect, then no limit. A watch or port-forward is bounded until it is answered, not after' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from clear" -l connect -d 'How to reach members in plugin mode: `direct` dials each member\'s Pod IP (or its in-cluster DNS name); `port-forward` tunnels to each member Pod through the API server; `auto` is direct inside a Pod, else port-forward. Certificates are always verified against the member\'s in-cluster DNS name' -r -f -a "auto\t''
direct\t''
port-forward\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from clear" -l kind -d 'The kind of cluster a name means (plugin mode). Default: every kind served; a name two kinds hold is refused until one is picked' -r -f -a "cozystack\t'The cozystack etcd-operator\'s EtcdCluster (etcd-operator.cozystack.io)'
etcd-io\t'The etcd project\'s operator\'s EtcdCluster (operator.etcd.io)'
control-plane\t'A control plane\'s own etcd: static Pods the kubelet runs (kubeadm, rke2), reached from their node through an agent Pod'"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from clear" -l agent-image -d 'A control plane\'s etcd (kubeadm\'s static Pods) is reached through a short-lived agent Pod on one of its nodes: this image of the tool' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from clear" -l agent-namespace -d 'The namespace of that agent\'s Job (hostNetwork and hostPath files: its Pod Security level must be privileged)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from clear" -s o -l output -d 'Output format. etcdctl\'s ETCDCTL_WRITE_OUT is read too (its `simple` is the table; `fields` and `protobuf` have no counterpart)' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from clear" -l log-format -d 'How stderr is written: `text` for a person, `json` for a log collector (one JSON object per line: timestamp, level, message and the event\'s fields; messages and errors too)' -r -f -a "text\t''
json\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from clear" -l dry-run -d 'Send every write as a server-side dry run (the server validates it and stores nothing) and print what would change'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from clear" -s y -l yes -d 'Do not ask for confirmation (required when not on a terminal)'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from clear" -l no-discover -d 'Use only the given endpoints; do not add members found in MemberList'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from clear" -l all-contexts -d 'Every kubeconfig context, for `status -A`, `doctor -A`, `defrag -A`/`-l`'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from clear" -s v -l verbose -d 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from clear" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from help" -f -a "show" -d 'The Service\'s value, the managers that own it, the EtcdCluster annotation, and which values this API server release keeps'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from help" -f -a "set" -d 'Annotate the EtcdCluster and apply VALUE to the client Service, then read it back. The server is asked first with a dry run: a value it rejects (422) or accepts and drops (servers before 1.31) is an error (exit 1) that writes nothing. If the real apply fails, the annotation is put back and nothing is left owned by the field manager'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from help" -f -a "clear" -d 'Remove the annotation and release the field manager\'s ownership. The value stays if another manager also owns it; a value set by hand is left alone'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand traffic; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand completion" -l endpoints -d 'etcd client URLs to start from (comma-separated or repeated). A URL without a scheme uses https when --cacert is set, else http' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand completion" -l cacert -d 'CA bundle (PEM) that signed the members\' server certificates' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand completion" -l cert -d 'Client certificate (PEM) for mutual TLS; needs --key' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand completion" -l key -d 'Client private key (PEM) for mutual TLS; needs --cert' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand completion" -l user -d 'etcd user name, or `name:password`. Without a password (here, in --password or in ETCDCTL_PASSWORD) it is asked for on a terminal' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand completion" -l password -d 'Password for --user' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand completion" -l dial-timeout -d 'Time allowed to connect (TCP, TLS and authentication) to one member' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand completion" -l command-timeout -d 'Time allowed for one probe RPC (Status, MemberList, AlarmList) on one member; a member that does not answer in time is reported unreachable' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand completion" -l quota-backend-bytes -d 'Backend quota to assume for members that do not report one (etcd before 3.6). Kubernetes quantity, e.g. 8Gi. Default: etcd\'s 2Gi' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand completion" -s k -l kubeconfig -d 'Path to the kubeconfig file (plugin mode). Default: $KUBECONFIG (several paths are merged), else ~/.kube/config, else the in-cluster service account' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand completion" -l context -d 'The kubeconfig context to use (plugin mode); more than once, for `status -A`, `doctor -A`, `defrag -A`/`-l` over each' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand completion" -s n -l namespace -d 'Namespace of the EtcdCluster. Default: the context\'s namespace, else `default`' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand completion" -s p -l pod -d 'An etcd member\'s Pod, as the etcd-operator\'s own Go plugin takes it: selects the Pod\'s EtcdCluster and, for `snapshot save` and `leave`, its member (plugin mode)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand completion" -s s -l credentials-secret -d 'The operator plugin\'s credentials Secret: refused, since the EtcdCluster names its own (or use --user)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand completion" -l as -d 'Act as this Kubernetes user (impersonation), e.g. system:serviceaccount:NS:NAME' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand completion" -l as-group -d 'Group to impersonate along with --as (repeatable)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand completion" -l request-timeout -d 'How long to wait for the API server\'s answer to one request, as kubectl\'s flag: a duration (5s, 1m) or whole seconds (30); 0 waits as long as it takes. Default: 30 s to connect, then no limit. A watch or port-forward is bounded until it is answered, not after' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand completion" -l connect -d 'How to reach members in plugin mode: `direct` dials each member\'s Pod IP (or its in-cluster DNS name); `port-forward` tunnels to each member Pod through the API server; `auto` is direct inside a Pod, else port-forward. Certificates are always verified against the member\'s in-cluster DNS name' -r -f -a "auto\t''
direct\t''
port-forward\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand completion" -l kind -d 'The kind of cluster a name means (plugin mode). Default: every kind served; a name two kinds hold is refused until one is picked' -r -f -a "cozystack\t'The cozystack etcd-operator\'s EtcdCluster (etcd-operator.cozystack.io)'
etcd-io\t'The etcd project\'s operator\'s EtcdCluster (operator.etcd.io)'
control-plane\t'A control plane\'s own etcd: static Pods the kubelet runs (kubeadm, rke2), reached from their node through an agent Pod'"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand completion" -l agent-image -d 'A control plane\'s etcd (kubeadm\'s static Pods) is reached through a short-lived agent Pod on one of its nodes: this image of the tool' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand completion" -l agent-namespace -d 'The namespace of that agent\'s Job (hostNetwork and hostPath files: its Pod Security level must be privileged)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand completion" -s o -l output -d 'Output format. etcdctl\'s ETCDCTL_WRITE_OUT is read too (its `simple` is the table; `fields` and `protobuf` have no counterpart)' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand completion" -l log-format -d 'How stderr is written: `text` for a person, `json` for a log collector (one JSON object per line: timestamp, level, message and the event\'s fields; messages and errors too)' -r -f -a "text\t''
json\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand completion" -l no-discover -d 'Use only the given endpoints; do not add members found in MemberList'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand completion" -l all-contexts -d 'Every kubeconfig context, for `status -A`, `doctor -A`, `defrag -A`/`-l`'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand completion" -s v -l verbose -d 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand completion" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand version" -l endpoints -d 'etcd client URLs to start from (comma-separated or repeated). A URL without a scheme uses https when --cacert is set, else http' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand version" -l cacert -d 'CA bundle (PEM) that signed the members\' server certificates' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand version" -l cert -d 'Client certificate (PEM) for mutual TLS; needs --key' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand version" -l key -d 'Client private key (PEM) for mutual TLS; needs --cert' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand version" -l user -d 'etcd user name, or `name:password`. Without a password (here, in --password or in ETCDCTL_PASSWORD) it is asked for on a terminal' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand version" -l password -d 'Password for --user' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand version" -l dial-timeout -d 'Time allowed to connect (TCP, TLS and authentication) to one member' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand version" -l command-timeout -d 'Time allowed for one probe RPC (Status, MemberList, AlarmList) on one member; a member that does not answer in time is reported unreachable' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand version" -l quota-backend-bytes -d 'Backend quota to assume for members that do not report one (etcd before 3.6). Kubernetes quantity, e.g. 8Gi. Default: etcd\'s 2Gi' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand version" -s k -l kubeconfig -d 'Path to the kubeconfig file (plugin mode). Default: $KUBECONFIG (several paths are merged), else ~/.kube/config, else the in-cluster service account' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand version" -l context -d 'The kubeconfig context to use (plugin mode); more than once, for `status -A`, `doctor -A`, `defrag -A`/`-l` over each' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand version" -s n -l namespace -d 'Namespace of the EtcdCluster. Default: the context\'s namespace, else `default`' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand version" -s p -l pod -d 'An etcd member\'s Pod, as the etcd-operator\'s own Go plugin takes it: selects the Pod\'s EtcdCluster and, for `snapshot save` and `leave`, its member (plugin mode)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand version" -s s -l credentials-secret -d 'The operator plugin\'s credentials Secret: refused, since the EtcdCluster names its own (or use --user)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand version" -l as -d 'Act as this Kubernetes user (impersonation), e.g. system:serviceaccount:NS:NAME' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand version" -l as-group -d 'Group to impersonate along with --as (repeatable)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand version" -l request-timeout -d 'How long to wait for the API server\'s answer to one request, as kubectl\'s flag: a duration (5s, 1m) or whole seconds (30); 0 waits as long as it takes. Default: 30 s to connect, then no limit. A watch or port-forward is bounded until it is answered, not after' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand version" -l connect -d 'How to reach members in plugin mode: `direct` dials each member\'s Pod IP (or its in-cluster DNS name); `port-forward` tunnels to each member Pod through the API server; `auto` is direct inside a Pod, else port-forward. Certificates are always verified against the member\'s in-cluster DNS name' -r -f -a "auto\t''
direct\t''
port-forward\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand version" -l kind -d 'The kind of cluster a name means (plugin mode). Default: every kind served; a name two kinds hold is refused until one is picked' -r -f -a "cozystack\t'The cozystack etcd-operator\'s EtcdCluster (etcd-operator.cozystack.io)'
etcd-io\t'The etcd project\'s operator\'s EtcdCluster (operator.etcd.io)'
control-plane\t'A control plane\'s own etcd: static Pods the kubelet runs (kubeadm, rke2), reached from their node through an agent Pod'"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand version" -l agent-image -d 'A control plane\'s etcd (kubeadm\'s static Pods) is reached through a short-lived agent Pod on one of its nodes: this image of the tool' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand version" -l agent-namespace -d 'The namespace of that agent\'s Job (hostNetwork and hostPath files: its Pod Security level must be privileged)' -r
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand version" -s o -l output -d 'Output format. etcdctl\'s ETCDCTL_WRITE_OUT is read too (its `simple` is the table; `fields` and `protobuf` have no counterpart)' -r -f -a "table\t''
wide\t''
json\t''
yaml\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand version" -l log-format -d 'How stderr is written: `text` for a person, `json` for a log collector (one JSON object per line: timestamp, level, message and the event\'s fields; messages and errors too)' -r -f -a "text\t''
json\t''"
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand version" -l no-discover -d 'Use only the given endpoints; do not add members found in MemberList'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand version" -l all-contexts -d 'Every kubeconfig context, for `status -A`, `doctor -A`, `defrag -A`/`-l`'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand version" -s v -l verbose -d 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand version" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand help; and not __fish_seen_subcommand_from status members doctor member leave remove-member add-member defrag alarm move-leader compact usage snapshot traffic completion version help" -f -a "status" -d 'One row per member: size, in use, quota use, leader, raft progress, alarms and a health verdict'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand help; and not __fish_seen_subcommand_from status members doctor member leave remove-member add-member defrag alarm move-leader compact usage snapshot traffic completion version help" -f -a "members" -d 'The member list: ids, names, peer and client URLs, learner flag'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand help; and not __fish_seen_subcommand_from status members doctor member leave remove-member add-member defrag alarm move-leader compact usage snapshot traffic completion version help" -f -a "doctor" -d 'One report of what needs attention and what to do about it'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand help; and not __fish_seen_subcommand_from status members doctor member leave remove-member add-member defrag alarm move-leader compact usage snapshot traffic completion version help" -f -a "member" -d 'Add a member or a learner, promote a learner, remove a member, with quorum checked first (etcdctl\'s `member` verbs)'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand help; and not __fish_seen_subcommand_from status members doctor member leave remove-member add-member defrag alarm move-leader compact usage snapshot traffic completion version help" -f -a "leave" -d 'The etcd-operator plugin\'s `leave -p POD`: `member remove` of the Pod\'s member, with its checks'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand help; and not __fish_seen_subcommand_from status members doctor member leave remove-member add-member defrag alarm move-leader compact usage snapshot traffic completion version help" -f -a "remove-member" -d 'The etcd-operator plugin\'s `remove-member ID`: `member remove`'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand help; and not __fish_seen_subcommand_from status members doctor member leave remove-member add-member defrag alarm move-leader compact usage snapshot traffic completion version help" -f -a "add-member" -d 'The etcd-operator plugin\'s `add-member URL`: refused, with the `member add` that does it'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand help; and not __fish_seen_subcommand_from status members doctor member leave remove-member add-member defrag alarm move-leader compact usage snapshot traffic completion version help" -f -a "defrag" -d 'Health-gated, follower-first defragmentation, one member at a time'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand help; and not __fish_seen_subcommand_from status members doctor member leave remove-member add-member defrag alarm move-leader compact usage snapshot traffic completion version help" -f -a "alarm" -d 'List or disarm alarms (NOSPACE, CORRUPT), with member names'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand help; and not __fish_seen_subcommand_from status members doctor member leave remove-member add-member defrag alarm move-leader compact usage snapshot traffic completion version help" -f -a "move-leader" -d 'Transfer leadership to another voter (the most caught-up healthy one unless --to names it)'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand help; and not __fish_seen_subcommand_from status members doctor member leave remove-member add-member defrag alarm move-leader compact usage snapshot traffic completion version help" -f -a "compact" -d 'Compact the key-value history: drop every revision before the one kept, through the leader, after the health gate passes'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand help; and not __fish_seen_subcommand_from status members doctor member leave remove-member add-member defrag alarm move-leader compact usage snapshot traffic completion version help" -f -a "usage" -d 'Which key prefixes hold the space and which take the writes'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand help; and not __fish_seen_subcommand_from status members doctor member leave remove-member add-member defrag alarm move-leader compact usage snapshot traffic completion version help" -f -a "snapshot" -d 'Save a member\'s backend to a file (a backup etcdutl can restore), or describe a saved one'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand help; and not __fish_seen_subcommand_from status members doctor member leave remove-member add-member defrag alarm move-leader compact usage snapshot traffic completion version help" -f -a "traffic" -d 'The client Service\'s spec.trafficDistribution, kept in step with the EtcdCluster annotation the operator reads'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand help; and not __fish_seen_subcommand_from status members doctor member leave remove-member add-member defrag alarm move-leader compact usage snapshot traffic completion version help" -f -a "completion" -d 'Print a shell completion script'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand help; and not __fish_seen_subcommand_from status members doctor member leave remove-member add-member defrag alarm move-leader compact usage snapshot traffic completion version help" -f -a "version" -d 'Print the version'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand help; and not __fish_seen_subcommand_from status members doctor member leave remove-member add-member defrag alarm move-leader compact usage snapshot traffic completion version help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand help; and __fish_seen_subcommand_from member" -f -a "list" -d 'The member list (the same as `members`)'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand help; and __fish_seen_subcommand_from member" -f -a "add" -d 'Add a member (a voter, or a learner with --learner) and print the settings to start it with'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand help; and __fish_seen_subcommand_from member" -f -a "promote" -d 'Make a learner a voter, once it has caught up with the leader'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand help; and __fish_seen_subcommand_from member" -f -a "remove" -d 'Remove a member (by name, or by hex id for one that never started)'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand help; and __fish_seen_subcommand_from alarm" -f -a "list" -d 'Every raised alarm, with the member\'s name and id'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand help; and __fish_seen_subcommand_from alarm" -f -a "disarm" -d 'Disarm NOSPACE on members back under their quota. CORRUPT and members still over quota need --force (CORRUPT also a typed confirmation)'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand help; and __fish_seen_subcommand_from snapshot" -f -a "save" -d 'Stream one member\'s backend into FILE, check it and print its SHA-256'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand help; and __fish_seen_subcommand_from snapshot" -f -a "status" -d 'The hash, revision, key count and size of a saved snapshot (the figures `etcdutl snapshot status` prints), read here without etcdutl, and whether the checksum etcd appended still matches'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand help; and __fish_seen_subcommand_from snapshot" -f -a "usage" -d 'Which key prefixes hold a saved snapshot\'s space: live keys and bytes per prefix, and the history each still keeps (older revisions and deletions: what a compaction at the snapshot\'s revision would drop), with the free pages a defrag would return. Read offline, so the heavy analysis never touches a running member'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand help; and __fish_seen_subcommand_from traffic" -f -a "show" -d 'The Service\'s value, the managers that own it, the EtcdCluster annotation, and which values this API server release keeps'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand help; and __fish_seen_subcommand_from traffic" -f -a "set" -d 'Annotate the EtcdCluster and apply VALUE to the client Service, then read it back. The server is asked first with a dry run: a value it rejects (422) or accepts and drops (servers before 1.31) is an error (exit 1) that writes nothing. If the real apply fails, the annotation is put back and nothing is left owned by the field manager'
complete -c kubectl-etcd -n "__fish_kubectl_etcd_using_subcommand help; and __fish_seen_subcommand_from traffic" -f -a "clear" -d 'Remove the annotation and release the field manager\'s ownership. The value stays if another manager also owns it; a value set by hand is left alone'
