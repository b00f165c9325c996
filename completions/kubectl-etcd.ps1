
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'kubectl-etcd' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'kubectl-etcd'
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
        'kubectl-etcd' {
            [CompletionResult]::new('--endpoints', '--endpoints', [CompletionResultType]::ParameterName, 'etcd client URLs to start from (comma-separated or repeated). A URL without a scheme uses https when --cacert is set, else http')
            [CompletionResult]::new('--cacert', '--cacert', [CompletionResultType]::ParameterName, 'CA bundle (PEM) that signed the members'' server certificates')
            [CompletionResult]::new('--cert', '--cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM) for mutual TLS; needs --key')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'Client private key (PEM) for mutual TLS; needs --cert')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'etcd user name, or `name:password`. Without a password (here, in --password or in ETCDCTL_PASSWORD) it is asked for on a terminal')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Password for --user')
            [CompletionResult]::new('--dial-timeout', '--dial-timeout', [CompletionResultType]::ParameterName, 'Time allowed to connect (TCP, TLS and authentication) to one member')
            [CompletionResult]::new('--command-timeout', '--command-timeout', [CompletionResultType]::ParameterName, 'Time allowed for one probe RPC (Status, MemberList, AlarmList) on one member; a member that does not answer in time is reported unreachable')
            [CompletionResult]::new('--quota-backend-bytes', '--quota-backend-bytes', [CompletionResultType]::ParameterName, 'Backend quota to assume for members that do not report one (etcd before 3.6). Kubernetes quantity, e.g. 8Gi. Default: etcd''s 2Gi')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (plugin mode). Default: $KUBECONFIG (several paths are merged), else ~/.kube/config, else the in-cluster service account')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use (plugin mode)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace of the EtcdCluster. Default: the context''s namespace, else `default`')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace of the EtcdCluster. Default: the context''s namespace, else `default`')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Act as this Kubernetes user (impersonation), e.g. system:serviceaccount:NS:NAME')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate along with --as (repeatable)')
            [CompletionResult]::new('--connect', '--connect', [CompletionResultType]::ParameterName, 'How to reach members in plugin mode: `direct` dials each member''s Pod IP (or its in-cluster DNS name); `port-forward` tunnels to each member Pod through the API server; `auto` is direct inside a Pod, else port-forward. Certificates are always verified against the member''s in-cluster DNS name')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'How stderr is written: `text` for a person, `json` for a log collector (one JSON object per line: timestamp, level, message and the event''s fields; messages and errors too)')
            [CompletionResult]::new('--no-discover', '--no-discover', [CompletionResultType]::ParameterName, 'Use only the given endpoints; do not add members found in MemberList')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'One row per member: size, in use, quota use, leader, raft progress, alarms and a health verdict')
            [CompletionResult]::new('members', 'members', [CompletionResultType]::ParameterValue, 'The member list: ids, names, peer and client URLs, learner flag')
            [CompletionResult]::new('doctor', 'doctor', [CompletionResultType]::ParameterValue, 'One report of what needs attention and what to do about it')
            [CompletionResult]::new('member', 'member', [CompletionResultType]::ParameterValue, 'Add a member or a learner, promote a learner, remove a member, with quorum checked first (etcdctl''s `member` verbs)')
            [CompletionResult]::new('defrag', 'defrag', [CompletionResultType]::ParameterValue, 'Health-gated, follower-first defragmentation, one member at a time')
            [CompletionResult]::new('alarm', 'alarm', [CompletionResultType]::ParameterValue, 'List or disarm alarms (NOSPACE, CORRUPT), with member names')
            [CompletionResult]::new('move-leader', 'move-leader', [CompletionResultType]::ParameterValue, 'Transfer leadership to another voter (the most caught-up healthy one unless --to names it)')
            [CompletionResult]::new('forfeit-leadership', 'forfeit-leadership', [CompletionResultType]::ParameterValue, 'Transfer leadership to another voter (the most caught-up healthy one unless --to names it)')
            [CompletionResult]::new('compact', 'compact', [CompletionResultType]::ParameterValue, 'Compact the key-value history: drop every revision before the one kept, through the leader, after the health gate passes')
            [CompletionResult]::new('usage', 'usage', [CompletionResultType]::ParameterValue, 'Which key prefixes hold the space and which take the writes')
            [CompletionResult]::new('snapshot', 'snapshot', [CompletionResultType]::ParameterValue, 'Save a member''s backend to a file (a backup etcdutl can restore), or describe a saved one')
            [CompletionResult]::new('traffic', 'traffic', [CompletionResultType]::ParameterValue, 'The client Service''s spec.trafficDistribution, kept in step with the EtcdCluster annotation the operator reads')
            [CompletionResult]::new('completion', 'completion', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('version', 'version', [CompletionResultType]::ParameterValue, 'Print the version')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'kubectl-etcd;status' {
            [CompletionResult]::new('--max-raft-lag', '--max-raft-lag', [CompletionResultType]::ParameterName, 'Largest tolerated raft lag, in entries: a member''s committed index minus its applied index, and its distance behind the leader''s index')
            [CompletionResult]::new('--endpoints', '--endpoints', [CompletionResultType]::ParameterName, 'etcd client URLs to start from (comma-separated or repeated). A URL without a scheme uses https when --cacert is set, else http')
            [CompletionResult]::new('--cacert', '--cacert', [CompletionResultType]::ParameterName, 'CA bundle (PEM) that signed the members'' server certificates')
            [CompletionResult]::new('--cert', '--cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM) for mutual TLS; needs --key')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'Client private key (PEM) for mutual TLS; needs --cert')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'etcd user name, or `name:password`. Without a password (here, in --password or in ETCDCTL_PASSWORD) it is asked for on a terminal')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Password for --user')
            [CompletionResult]::new('--dial-timeout', '--dial-timeout', [CompletionResultType]::ParameterName, 'Time allowed to connect (TCP, TLS and authentication) to one member')
            [CompletionResult]::new('--command-timeout', '--command-timeout', [CompletionResultType]::ParameterName, 'Time allowed for one probe RPC (Status, MemberList, AlarmList) on one member; a member that does not answer in time is reported unreachable')
            [CompletionResult]::new('--quota-backend-bytes', '--quota-backend-bytes', [CompletionResultType]::ParameterName, 'Backend quota to assume for members that do not report one (etcd before 3.6). Kubernetes quantity, e.g. 8Gi. Default: etcd''s 2Gi')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (plugin mode). Default: $KUBECONFIG (several paths are merged), else ~/.kube/config, else the in-cluster service account')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use (plugin mode)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace of the EtcdCluster. Default: the context''s namespace, else `default`')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace of the EtcdCluster. Default: the context''s namespace, else `default`')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Act as this Kubernetes user (impersonation), e.g. system:serviceaccount:NS:NAME')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate along with --as (repeatable)')
            [CompletionResult]::new('--connect', '--connect', [CompletionResultType]::ParameterName, 'How to reach members in plugin mode: `direct` dials each member''s Pod IP (or its in-cluster DNS name); `port-forward` tunnels to each member Pod through the API server; `auto` is direct inside a Pod, else port-forward. Certificates are always verified against the member''s in-cluster DNS name')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'How stderr is written: `text` for a person, `json` for a log collector (one JSON object per line: timestamp, level, message and the event''s fields; messages and errors too)')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Every EtcdCluster in every namespace, probed concurrently')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'Every EtcdCluster in every namespace, probed concurrently')
            [CompletionResult]::new('--check', '--check', [CompletionResultType]::ParameterName, 'Evaluate the health gate and exit 1, listing every reason, when it would refuse maintenance. Usable as a probe')
            [CompletionResult]::new('--allow-quorum-loss', '--allow-quorum-loss', [CompletionResultType]::ParameterName, 'Accept a cluster with fewer than three voting members, where taking one member out for maintenance loses quorum')
            [CompletionResult]::new('--no-discover', '--no-discover', [CompletionResultType]::ParameterName, 'Use only the given endpoints; do not add members found in MemberList')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'kubectl-etcd;members' {
            [CompletionResult]::new('--endpoints', '--endpoints', [CompletionResultType]::ParameterName, 'etcd client URLs to start from (comma-separated or repeated). A URL without a scheme uses https when --cacert is set, else http')
            [CompletionResult]::new('--cacert', '--cacert', [CompletionResultType]::ParameterName, 'CA bundle (PEM) that signed the members'' server certificates')
            [CompletionResult]::new('--cert', '--cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM) for mutual TLS; needs --key')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'Client private key (PEM) for mutual TLS; needs --cert')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'etcd user name, or `name:password`. Without a password (here, in --password or in ETCDCTL_PASSWORD) it is asked for on a terminal')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Password for --user')
            [CompletionResult]::new('--dial-timeout', '--dial-timeout', [CompletionResultType]::ParameterName, 'Time allowed to connect (TCP, TLS and authentication) to one member')
            [CompletionResult]::new('--command-timeout', '--command-timeout', [CompletionResultType]::ParameterName, 'Time allowed for one probe RPC (Status, MemberList, AlarmList) on one member; a member that does not answer in time is reported unreachable')
            [CompletionResult]::new('--quota-backend-bytes', '--quota-backend-bytes', [CompletionResultType]::ParameterName, 'Backend quota to assume for members that do not report one (etcd before 3.6). Kubernetes quantity, e.g. 8Gi. Default: etcd''s 2Gi')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (plugin mode). Default: $KUBECONFIG (several paths are merged), else ~/.kube/config, else the in-cluster service account')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use (plugin mode)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace of the EtcdCluster. Default: the context''s namespace, else `default`')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace of the EtcdCluster. Default: the context''s namespace, else `default`')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Act as this Kubernetes user (impersonation), e.g. system:serviceaccount:NS:NAME')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate along with --as (repeatable)')
            [CompletionResult]::new('--connect', '--connect', [CompletionResultType]::ParameterName, 'How to reach members in plugin mode: `direct` dials each member''s Pod IP (or its in-cluster DNS name); `port-forward` tunnels to each member Pod through the API server; `auto` is direct inside a Pod, else port-forward. Certificates are always verified against the member''s in-cluster DNS name')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'How stderr is written: `text` for a person, `json` for a log collector (one JSON object per line: timestamp, level, message and the event''s fields; messages and errors too)')
            [CompletionResult]::new('--no-discover', '--no-discover', [CompletionResultType]::ParameterName, 'Use only the given endpoints; do not add members found in MemberList')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'kubectl-etcd;doctor' {
            [CompletionResult]::new('--fail-on', '--fail-on', [CompletionResultType]::ParameterName, 'Exit 1 when any finding is at least this severe')
            [CompletionResult]::new('--churn-window', '--churn-window', [CompletionResultType]::ParameterName, 'When a member needs a defrag: how long to count the writes, to name the prefix whose churn makes the free space (0: do not sample)')
            [CompletionResult]::new('--max-raft-lag', '--max-raft-lag', [CompletionResultType]::ParameterName, 'Largest tolerated raft lag, in entries: a member''s committed index minus its applied index, and its distance behind the leader''s index')
            [CompletionResult]::new('--endpoints', '--endpoints', [CompletionResultType]::ParameterName, 'etcd client URLs to start from (comma-separated or repeated). A URL without a scheme uses https when --cacert is set, else http')
            [CompletionResult]::new('--cacert', '--cacert', [CompletionResultType]::ParameterName, 'CA bundle (PEM) that signed the members'' server certificates')
            [CompletionResult]::new('--cert', '--cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM) for mutual TLS; needs --key')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'Client private key (PEM) for mutual TLS; needs --cert')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'etcd user name, or `name:password`. Without a password (here, in --password or in ETCDCTL_PASSWORD) it is asked for on a terminal')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Password for --user')
            [CompletionResult]::new('--dial-timeout', '--dial-timeout', [CompletionResultType]::ParameterName, 'Time allowed to connect (TCP, TLS and authentication) to one member')
            [CompletionResult]::new('--command-timeout', '--command-timeout', [CompletionResultType]::ParameterName, 'Time allowed for one probe RPC (Status, MemberList, AlarmList) on one member; a member that does not answer in time is reported unreachable')
            [CompletionResult]::new('--quota-backend-bytes', '--quota-backend-bytes', [CompletionResultType]::ParameterName, 'Backend quota to assume for members that do not report one (etcd before 3.6). Kubernetes quantity, e.g. 8Gi. Default: etcd''s 2Gi')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (plugin mode). Default: $KUBECONFIG (several paths are merged), else ~/.kube/config, else the in-cluster service account')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use (plugin mode)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace of the EtcdCluster. Default: the context''s namespace, else `default`')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace of the EtcdCluster. Default: the context''s namespace, else `default`')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Act as this Kubernetes user (impersonation), e.g. system:serviceaccount:NS:NAME')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate along with --as (repeatable)')
            [CompletionResult]::new('--connect', '--connect', [CompletionResultType]::ParameterName, 'How to reach members in plugin mode: `direct` dials each member''s Pod IP (or its in-cluster DNS name); `port-forward` tunnels to each member Pod through the API server; `auto` is direct inside a Pod, else port-forward. Certificates are always verified against the member''s in-cluster DNS name')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'How stderr is written: `text` for a person, `json` for a log collector (one JSON object per line: timestamp, level, message and the event''s fields; messages and errors too)')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Every EtcdCluster in every namespace')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'Every EtcdCluster in every namespace')
            [CompletionResult]::new('--allow-quorum-loss', '--allow-quorum-loss', [CompletionResultType]::ParameterName, 'Accept a cluster with fewer than three voting members, where taking one member out for maintenance loses quorum')
            [CompletionResult]::new('--no-discover', '--no-discover', [CompletionResultType]::ParameterName, 'Use only the given endpoints; do not add members found in MemberList')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'kubectl-etcd;member' {
            [CompletionResult]::new('--endpoints', '--endpoints', [CompletionResultType]::ParameterName, 'etcd client URLs to start from (comma-separated or repeated). A URL without a scheme uses https when --cacert is set, else http')
            [CompletionResult]::new('--cacert', '--cacert', [CompletionResultType]::ParameterName, 'CA bundle (PEM) that signed the members'' server certificates')
            [CompletionResult]::new('--cert', '--cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM) for mutual TLS; needs --key')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'Client private key (PEM) for mutual TLS; needs --cert')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'etcd user name, or `name:password`. Without a password (here, in --password or in ETCDCTL_PASSWORD) it is asked for on a terminal')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Password for --user')
            [CompletionResult]::new('--dial-timeout', '--dial-timeout', [CompletionResultType]::ParameterName, 'Time allowed to connect (TCP, TLS and authentication) to one member')
            [CompletionResult]::new('--command-timeout', '--command-timeout', [CompletionResultType]::ParameterName, 'Time allowed for one probe RPC (Status, MemberList, AlarmList) on one member; a member that does not answer in time is reported unreachable')
            [CompletionResult]::new('--quota-backend-bytes', '--quota-backend-bytes', [CompletionResultType]::ParameterName, 'Backend quota to assume for members that do not report one (etcd before 3.6). Kubernetes quantity, e.g. 8Gi. Default: etcd''s 2Gi')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (plugin mode). Default: $KUBECONFIG (several paths are merged), else ~/.kube/config, else the in-cluster service account')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use (plugin mode)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace of the EtcdCluster. Default: the context''s namespace, else `default`')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace of the EtcdCluster. Default: the context''s namespace, else `default`')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Act as this Kubernetes user (impersonation), e.g. system:serviceaccount:NS:NAME')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate along with --as (repeatable)')
            [CompletionResult]::new('--connect', '--connect', [CompletionResultType]::ParameterName, 'How to reach members in plugin mode: `direct` dials each member''s Pod IP (or its in-cluster DNS name); `port-forward` tunnels to each member Pod through the API server; `auto` is direct inside a Pod, else port-forward. Certificates are always verified against the member''s in-cluster DNS name')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'How stderr is written: `text` for a person, `json` for a log collector (one JSON object per line: timestamp, level, message and the event''s fields; messages and errors too)')
            [CompletionResult]::new('--no-discover', '--no-discover', [CompletionResultType]::ParameterName, 'Use only the given endpoints; do not add members found in MemberList')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'The member list (the same as `members`)')
            [CompletionResult]::new('add', 'add', [CompletionResultType]::ParameterValue, 'Add a member (a voter, or a learner with --learner) and print the settings to start it with')
            [CompletionResult]::new('promote', 'promote', [CompletionResultType]::ParameterValue, 'Make a learner a voter, once it has caught up with the leader')
            [CompletionResult]::new('remove', 'remove', [CompletionResultType]::ParameterValue, 'Remove a member (by name, or by hex id for one that never started)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'kubectl-etcd;member;list' {
            [CompletionResult]::new('--endpoints', '--endpoints', [CompletionResultType]::ParameterName, 'etcd client URLs to start from (comma-separated or repeated). A URL without a scheme uses https when --cacert is set, else http')
            [CompletionResult]::new('--cacert', '--cacert', [CompletionResultType]::ParameterName, 'CA bundle (PEM) that signed the members'' server certificates')
            [CompletionResult]::new('--cert', '--cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM) for mutual TLS; needs --key')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'Client private key (PEM) for mutual TLS; needs --cert')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'etcd user name, or `name:password`. Without a password (here, in --password or in ETCDCTL_PASSWORD) it is asked for on a terminal')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Password for --user')
            [CompletionResult]::new('--dial-timeout', '--dial-timeout', [CompletionResultType]::ParameterName, 'Time allowed to connect (TCP, TLS and authentication) to one member')
            [CompletionResult]::new('--command-timeout', '--command-timeout', [CompletionResultType]::ParameterName, 'Time allowed for one probe RPC (Status, MemberList, AlarmList) on one member; a member that does not answer in time is reported unreachable')
            [CompletionResult]::new('--quota-backend-bytes', '--quota-backend-bytes', [CompletionResultType]::ParameterName, 'Backend quota to assume for members that do not report one (etcd before 3.6). Kubernetes quantity, e.g. 8Gi. Default: etcd''s 2Gi')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (plugin mode). Default: $KUBECONFIG (several paths are merged), else ~/.kube/config, else the in-cluster service account')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use (plugin mode)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace of the EtcdCluster. Default: the context''s namespace, else `default`')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace of the EtcdCluster. Default: the context''s namespace, else `default`')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Act as this Kubernetes user (impersonation), e.g. system:serviceaccount:NS:NAME')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate along with --as (repeatable)')
            [CompletionResult]::new('--connect', '--connect', [CompletionResultType]::ParameterName, 'How to reach members in plugin mode: `direct` dials each member''s Pod IP (or its in-cluster DNS name); `port-forward` tunnels to each member Pod through the API server; `auto` is direct inside a Pod, else port-forward. Certificates are always verified against the member''s in-cluster DNS name')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'How stderr is written: `text` for a person, `json` for a log collector (one JSON object per line: timestamp, level, message and the event''s fields; messages and errors too)')
            [CompletionResult]::new('--no-discover', '--no-discover', [CompletionResultType]::ParameterName, 'Use only the given endpoints; do not add members found in MemberList')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'kubectl-etcd;member;add' {
            [CompletionResult]::new('--peer-urls', '--peer-urls', [CompletionResultType]::ParameterName, 'The new member''s peer URLs, comma-separated')
            [CompletionResult]::new('--confirm', '--confirm', [CompletionResultType]::ParameterName, 'The typed confirmation for --force without a terminal: the member''s name or id, as given')
            [CompletionResult]::new('--endpoints', '--endpoints', [CompletionResultType]::ParameterName, 'etcd client URLs to start from (comma-separated or repeated). A URL without a scheme uses https when --cacert is set, else http')
            [CompletionResult]::new('--cacert', '--cacert', [CompletionResultType]::ParameterName, 'CA bundle (PEM) that signed the members'' server certificates')
            [CompletionResult]::new('--cert', '--cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM) for mutual TLS; needs --key')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'Client private key (PEM) for mutual TLS; needs --cert')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'etcd user name, or `name:password`. Without a password (here, in --password or in ETCDCTL_PASSWORD) it is asked for on a terminal')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Password for --user')
            [CompletionResult]::new('--dial-timeout', '--dial-timeout', [CompletionResultType]::ParameterName, 'Time allowed to connect (TCP, TLS and authentication) to one member')
            [CompletionResult]::new('--command-timeout', '--command-timeout', [CompletionResultType]::ParameterName, 'Time allowed for one probe RPC (Status, MemberList, AlarmList) on one member; a member that does not answer in time is reported unreachable')
            [CompletionResult]::new('--quota-backend-bytes', '--quota-backend-bytes', [CompletionResultType]::ParameterName, 'Backend quota to assume for members that do not report one (etcd before 3.6). Kubernetes quantity, e.g. 8Gi. Default: etcd''s 2Gi')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (plugin mode). Default: $KUBECONFIG (several paths are merged), else ~/.kube/config, else the in-cluster service account')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use (plugin mode)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace of the EtcdCluster. Default: the context''s namespace, else `default`')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace of the EtcdCluster. Default: the context''s namespace, else `default`')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Act as this Kubernetes user (impersonation), e.g. system:serviceaccount:NS:NAME')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate along with --as (repeatable)')
            [CompletionResult]::new('--connect', '--connect', [CompletionResultType]::ParameterName, 'How to reach members in plugin mode: `direct` dials each member''s Pod IP (or its in-cluster DNS name); `port-forward` tunnels to each member Pod through the API server; `auto` is direct inside a Pod, else port-forward. Certificates are always verified against the member''s in-cluster DNS name')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'How stderr is written: `text` for a person, `json` for a log collector (one JSON object per line: timestamp, level, message and the event''s fields; messages and errors too)')
            [CompletionResult]::new('--learner', '--learner', [CompletionResultType]::ParameterName, 'Add it as a learner: it receives the log but does not vote until promoted, so quorum is never at risk while it catches up')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Act even when quorum would be at risk, or on an operator-managed EtcdCluster; asks for the member''s name (or id) to be typed')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show the change and the quorum arithmetic, and change nothing')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (required when not on a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (required when not on a terminal)')
            [CompletionResult]::new('--no-discover', '--no-discover', [CompletionResultType]::ParameterName, 'Use only the given endpoints; do not add members found in MemberList')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'kubectl-etcd;member;promote' {
            [CompletionResult]::new('--confirm', '--confirm', [CompletionResultType]::ParameterName, 'The typed confirmation for --force without a terminal: the member''s name or id, as given')
            [CompletionResult]::new('--endpoints', '--endpoints', [CompletionResultType]::ParameterName, 'etcd client URLs to start from (comma-separated or repeated). A URL without a scheme uses https when --cacert is set, else http')
            [CompletionResult]::new('--cacert', '--cacert', [CompletionResultType]::ParameterName, 'CA bundle (PEM) that signed the members'' server certificates')
            [CompletionResult]::new('--cert', '--cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM) for mutual TLS; needs --key')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'Client private key (PEM) for mutual TLS; needs --cert')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'etcd user name, or `name:password`. Without a password (here, in --password or in ETCDCTL_PASSWORD) it is asked for on a terminal')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Password for --user')
            [CompletionResult]::new('--dial-timeout', '--dial-timeout', [CompletionResultType]::ParameterName, 'Time allowed to connect (TCP, TLS and authentication) to one member')
            [CompletionResult]::new('--command-timeout', '--command-timeout', [CompletionResultType]::ParameterName, 'Time allowed for one probe RPC (Status, MemberList, AlarmList) on one member; a member that does not answer in time is reported unreachable')
            [CompletionResult]::new('--quota-backend-bytes', '--quota-backend-bytes', [CompletionResultType]::ParameterName, 'Backend quota to assume for members that do not report one (etcd before 3.6). Kubernetes quantity, e.g. 8Gi. Default: etcd''s 2Gi')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (plugin mode). Default: $KUBECONFIG (several paths are merged), else ~/.kube/config, else the in-cluster service account')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use (plugin mode)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace of the EtcdCluster. Default: the context''s namespace, else `default`')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace of the EtcdCluster. Default: the context''s namespace, else `default`')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Act as this Kubernetes user (impersonation), e.g. system:serviceaccount:NS:NAME')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate along with --as (repeatable)')
            [CompletionResult]::new('--connect', '--connect', [CompletionResultType]::ParameterName, 'How to reach members in plugin mode: `direct` dials each member''s Pod IP (or its in-cluster DNS name); `port-forward` tunnels to each member Pod through the API server; `auto` is direct inside a Pod, else port-forward. Certificates are always verified against the member''s in-cluster DNS name')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'How stderr is written: `text` for a person, `json` for a log collector (one JSON object per line: timestamp, level, message and the event''s fields; messages and errors too)')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Act even when quorum would be at risk, or on an operator-managed EtcdCluster; asks for the member''s name (or id) to be typed')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show the change and the quorum arithmetic, and change nothing')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (required when not on a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (required when not on a terminal)')
            [CompletionResult]::new('--no-discover', '--no-discover', [CompletionResultType]::ParameterName, 'Use only the given endpoints; do not add members found in MemberList')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'kubectl-etcd;member;remove' {
            [CompletionResult]::new('--confirm', '--confirm', [CompletionResultType]::ParameterName, 'The typed confirmation for --force without a terminal: the member''s name or id, as given')
            [CompletionResult]::new('--endpoints', '--endpoints', [CompletionResultType]::ParameterName, 'etcd client URLs to start from (comma-separated or repeated). A URL without a scheme uses https when --cacert is set, else http')
            [CompletionResult]::new('--cacert', '--cacert', [CompletionResultType]::ParameterName, 'CA bundle (PEM) that signed the members'' server certificates')
            [CompletionResult]::new('--cert', '--cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM) for mutual TLS; needs --key')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'Client private key (PEM) for mutual TLS; needs --cert')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'etcd user name, or `name:password`. Without a password (here, in --password or in ETCDCTL_PASSWORD) it is asked for on a terminal')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Password for --user')
            [CompletionResult]::new('--dial-timeout', '--dial-timeout', [CompletionResultType]::ParameterName, 'Time allowed to connect (TCP, TLS and authentication) to one member')
            [CompletionResult]::new('--command-timeout', '--command-timeout', [CompletionResultType]::ParameterName, 'Time allowed for one probe RPC (Status, MemberList, AlarmList) on one member; a member that does not answer in time is reported unreachable')
            [CompletionResult]::new('--quota-backend-bytes', '--quota-backend-bytes', [CompletionResultType]::ParameterName, 'Backend quota to assume for members that do not report one (etcd before 3.6). Kubernetes quantity, e.g. 8Gi. Default: etcd''s 2Gi')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (plugin mode). Default: $KUBECONFIG (several paths are merged), else ~/.kube/config, else the in-cluster service account')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use (plugin mode)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace of the EtcdCluster. Default: the context''s namespace, else `default`')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace of the EtcdCluster. Default: the context''s namespace, else `default`')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Act as this Kubernetes user (impersonation), e.g. system:serviceaccount:NS:NAME')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate along with --as (repeatable)')
            [CompletionResult]::new('--connect', '--connect', [CompletionResultType]::ParameterName, 'How to reach members in plugin mode: `direct` dials each member''s Pod IP (or its in-cluster DNS name); `port-forward` tunnels to each member Pod through the API server; `auto` is direct inside a Pod, else port-forward. Certificates are always verified against the member''s in-cluster DNS name')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'How stderr is written: `text` for a person, `json` for a log collector (one JSON object per line: timestamp, level, message and the event''s fields; messages and errors too)')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Act even when quorum would be at risk, or on an operator-managed EtcdCluster; asks for the member''s name (or id) to be typed')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show the change and the quorum arithmetic, and change nothing')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (required when not on a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (required when not on a terminal)')
            [CompletionResult]::new('--no-discover', '--no-discover', [CompletionResultType]::ParameterName, 'Use only the given endpoints; do not add members found in MemberList')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'kubectl-etcd;member;help' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'The member list (the same as `members`)')
            [CompletionResult]::new('add', 'add', [CompletionResultType]::ParameterValue, 'Add a member (a voter, or a learner with --learner) and print the settings to start it with')
            [CompletionResult]::new('promote', 'promote', [CompletionResultType]::ParameterValue, 'Make a learner a voter, once it has caught up with the leader')
            [CompletionResult]::new('remove', 'remove', [CompletionResultType]::ParameterValue, 'Remove a member (by name, or by hex id for one that never started)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'kubectl-etcd;member;help;list' {
            break
        }
        'kubectl-etcd;member;help;add' {
            break
        }
        'kubectl-etcd;member;help;promote' {
            break
        }
        'kubectl-etcd;member;help;remove' {
            break
        }
        'kubectl-etcd;member;help;help' {
            break
        }
        'kubectl-etcd;defrag' {
            [CompletionResult]::new('--free-space-above', '--free-space-above', [CompletionResultType]::ParameterName, 'Defragment a member whose reclaimable space (size − in use) is more than this. Default 200Mi')
            [CompletionResult]::new('--quota-usage-above', '--quota-usage-above', [CompletionResultType]::ParameterName, 'Also defragment a member whose size is more than this share of its quota, when at least --min-reclaim would come back. E.g. 80%')
            [CompletionResult]::new('--min-reclaim', '--min-reclaim', [CompletionResultType]::ParameterName, 'With --quota-usage-above: the least reclaimable space worth a defragmentation. Default 32Mi')
            [CompletionResult]::new('--member', '--member', [CompletionResultType]::ParameterName, 'Only this member (repeatable). Others are reported as NotSelected')
            [CompletionResult]::new('--move-leader', '--move-leader', [CompletionResultType]::ParameterName, 'How to treat the leader: `auto` transfers leadership first only when its predicted in-place defrag time (from its in-use size and the throughput measured on this sweep''s followers) exceeds --move-leader-above; `always` / `never` force the choice')
            [CompletionResult]::new('--move-leader-above', '--move-leader-above', [CompletionResultType]::ParameterName, 'Threshold for --move-leader auto')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long to wait for one member''s Defragment. On timeout the member keeps defragmenting; the sweep waits for it to answer again before touching anyone else')
            [CompletionResult]::new('--wait-healthy', '--wait-healthy', [CompletionResultType]::ParameterName, 'When the health gate refuses, wait up to this long (with backoff) for it to pass instead of stopping with exit 1')
            [CompletionResult]::new('--max-raft-lag', '--max-raft-lag', [CompletionResultType]::ParameterName, 'Largest tolerated raft lag, in entries: a member''s committed index minus its applied index, and its distance behind the leader''s index')
            [CompletionResult]::new('--ttl-after-finished', '--ttl-after-finished', [CompletionResultType]::ParameterName, 'With --via-operator: the run''s ttlSecondsAfterFinished, how long the finished EtcdDefrag is kept before the operator deletes it (0s: at once). Default 24h')
            [CompletionResult]::new('--claim-timeout', '--claim-timeout', [CompletionResultType]::ParameterName, 'With --via-operator: how long to wait for any processor to take up the new run (write its status) before it is deleted again and the command fails. Default 60s')
            [CompletionResult]::new('-l', '-l', [CompletionResultType]::ParameterName, 'A fleet sweep of the EtcdClusters matching this label selector (in the namespace, or every namespace with -A), e.g. `tier=prod`')
            [CompletionResult]::new('--selector', '--selector', [CompletionResultType]::ParameterName, 'A fleet sweep of the EtcdClusters matching this label selector (in the namespace, or every namespace with -A), e.g. `tier=prod`')
            [CompletionResult]::new('--max-concurrent', '--max-concurrent', [CompletionResultType]::ParameterName, 'In a fleet sweep (-A or -l): how many clusters are swept at once, 1 to 64 (members of one cluster are always defragmented one at a time). Default 2')
            [CompletionResult]::new('--recheck-processors', '--recheck-processors', [CompletionResultType]::ParameterName, 'With --watch: how often to ask again whether another EtcdDefrag processor has been installed (the operator upgraded to a release with its own controller); the watcher then stops after the member in flight and exits 2')
            [CompletionResult]::new('--lease-duration', '--lease-duration', [CompletionResultType]::ParameterName, 'With --watch: how long the Lease `kubectl-etcd-watch` (which elects the one active watcher) stays ours without a renewal. A watcher that cannot renew for this long stops acting before another takes over')
            [CompletionResult]::new('--metrics-address', '--metrics-address', [CompletionResultType]::ParameterName, 'With --watch: serve Prometheus metrics (/metrics) and probes (/healthz, /readyz) over HTTP on this IP:PORT, e.g. 127.0.0.1:9090 or 0.0.0.0:9090 in a Pod. Default: no server')
            [CompletionResult]::new('--endpoints', '--endpoints', [CompletionResultType]::ParameterName, 'etcd client URLs to start from (comma-separated or repeated). A URL without a scheme uses https when --cacert is set, else http')
            [CompletionResult]::new('--cacert', '--cacert', [CompletionResultType]::ParameterName, 'CA bundle (PEM) that signed the members'' server certificates')
            [CompletionResult]::new('--cert', '--cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM) for mutual TLS; needs --key')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'Client private key (PEM) for mutual TLS; needs --cert')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'etcd user name, or `name:password`. Without a password (here, in --password or in ETCDCTL_PASSWORD) it is asked for on a terminal')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Password for --user')
            [CompletionResult]::new('--dial-timeout', '--dial-timeout', [CompletionResultType]::ParameterName, 'Time allowed to connect (TCP, TLS and authentication) to one member')
            [CompletionResult]::new('--command-timeout', '--command-timeout', [CompletionResultType]::ParameterName, 'Time allowed for one probe RPC (Status, MemberList, AlarmList) on one member; a member that does not answer in time is reported unreachable')
            [CompletionResult]::new('--quota-backend-bytes', '--quota-backend-bytes', [CompletionResultType]::ParameterName, 'Backend quota to assume for members that do not report one (etcd before 3.6). Kubernetes quantity, e.g. 8Gi. Default: etcd''s 2Gi')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (plugin mode). Default: $KUBECONFIG (several paths are merged), else ~/.kube/config, else the in-cluster service account')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use (plugin mode)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace of the EtcdCluster. Default: the context''s namespace, else `default`')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace of the EtcdCluster. Default: the context''s namespace, else `default`')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Act as this Kubernetes user (impersonation), e.g. system:serviceaccount:NS:NAME')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate along with --as (repeatable)')
            [CompletionResult]::new('--connect', '--connect', [CompletionResultType]::ParameterName, 'How to reach members in plugin mode: `direct` dials each member''s Pod IP (or its in-cluster DNS name); `port-forward` tunnels to each member Pod through the API server; `auto` is direct inside a Pod, else port-forward. Certificates are always verified against the member''s in-cluster DNS name')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'How stderr is written: `text` for a person, `json` for a log collector (one JSON object per line: timestamp, level, message and the event''s fields; messages and errors too)')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Defragment every member regardless of size (cannot be combined with the thresholds)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print the plan (order, leader handling, each member''s verdict and predicted reclaim) and change nothing')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (required when not on a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (required when not on a terminal)')
            [CompletionResult]::new('--compact', '--compact', [CompletionResultType]::ParameterName, 'Compact at the current revision first, and wait until every member''s in-use size has settled')
            [CompletionResult]::new('--allow-probe-restart', '--allow-probe-restart', [CompletionResultType]::ParameterName, 'Defragment a member even when its Pod''s liveness (or startup) probe fails while etcd defragments and the kubelet would restart it before the predicted defrag ends. Without it such a member is held back (Skipped, reason ProbeBudget). Plugin mode reads the probes; with --watch it applies to every run')
            [CompletionResult]::new('--allow-quorum-loss', '--allow-quorum-loss', [CompletionResultType]::ParameterName, 'Accept a cluster with fewer than three voting members, where taking one member out for maintenance loses quorum')
            [CompletionResult]::new('--watch', '--watch', [CompletionResultType]::ParameterName, 'Run as the EtcdDefrag controller: process every EtcdDefrag in the namespace (-n, or all with -A) the way the etcd-operator''s controller does, until Ctrl-C or SIGTERM. Uses --move-leader and --timeout; the rule comes from each object. Run exactly one processor per cluster')
            [CompletionResult]::new('--via-operator', '--via-operator', [CompletionResultType]::ParameterName, 'Hand the sweep to the etcd-operator''s own defrag controller (v0.5.5 on): create an EtcdDefrag from the rule flags, then follow it live and report it like a direct run. Needs only the Kubernetes API (no etcd credentials). The operator never moves leadership, never compacts and reads no probes, so those flags are refused')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Every EtcdCluster in every namespace (a fleet sweep), or with --watch every namespace''s EtcdDefrags')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'Every EtcdCluster in every namespace (a fleet sweep), or with --watch every namespace''s EtcdDefrags')
            [CompletionResult]::new('--force-takeover', '--force-takeover', [CompletionResultType]::ParameterName, 'With --watch: start even though another processor (e.g. the operator''s defrag controller) wrote EtcdDefrag status in the last 15 minutes. Two processors both defragment: stop the other one first. Never overrides an installed processor (a role that lets someone else write EtcdDefrag status, as the operator''s from v0.5.5 does)')
            [CompletionResult]::new('--no-discover', '--no-discover', [CompletionResultType]::ParameterName, 'Use only the given endpoints; do not add members found in MemberList')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'kubectl-etcd;alarm' {
            [CompletionResult]::new('--endpoints', '--endpoints', [CompletionResultType]::ParameterName, 'etcd client URLs to start from (comma-separated or repeated). A URL without a scheme uses https when --cacert is set, else http')
            [CompletionResult]::new('--cacert', '--cacert', [CompletionResultType]::ParameterName, 'CA bundle (PEM) that signed the members'' server certificates')
            [CompletionResult]::new('--cert', '--cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM) for mutual TLS; needs --key')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'Client private key (PEM) for mutual TLS; needs --cert')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'etcd user name, or `name:password`. Without a password (here, in --password or in ETCDCTL_PASSWORD) it is asked for on a terminal')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Password for --user')
            [CompletionResult]::new('--dial-timeout', '--dial-timeout', [CompletionResultType]::ParameterName, 'Time allowed to connect (TCP, TLS and authentication) to one member')
            [CompletionResult]::new('--command-timeout', '--command-timeout', [CompletionResultType]::ParameterName, 'Time allowed for one probe RPC (Status, MemberList, AlarmList) on one member; a member that does not answer in time is reported unreachable')
            [CompletionResult]::new('--quota-backend-bytes', '--quota-backend-bytes', [CompletionResultType]::ParameterName, 'Backend quota to assume for members that do not report one (etcd before 3.6). Kubernetes quantity, e.g. 8Gi. Default: etcd''s 2Gi')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (plugin mode). Default: $KUBECONFIG (several paths are merged), else ~/.kube/config, else the in-cluster service account')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use (plugin mode)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace of the EtcdCluster. Default: the context''s namespace, else `default`')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace of the EtcdCluster. Default: the context''s namespace, else `default`')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Act as this Kubernetes user (impersonation), e.g. system:serviceaccount:NS:NAME')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate along with --as (repeatable)')
            [CompletionResult]::new('--connect', '--connect', [CompletionResultType]::ParameterName, 'How to reach members in plugin mode: `direct` dials each member''s Pod IP (or its in-cluster DNS name); `port-forward` tunnels to each member Pod through the API server; `auto` is direct inside a Pod, else port-forward. Certificates are always verified against the member''s in-cluster DNS name')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'How stderr is written: `text` for a person, `json` for a log collector (one JSON object per line: timestamp, level, message and the event''s fields; messages and errors too)')
            [CompletionResult]::new('--no-discover', '--no-discover', [CompletionResultType]::ParameterName, 'Use only the given endpoints; do not add members found in MemberList')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'Every raised alarm, with the member''s name and id')
            [CompletionResult]::new('disarm', 'disarm', [CompletionResultType]::ParameterValue, 'Disarm NOSPACE on members back under their quota. CORRUPT and members still over quota need --force (CORRUPT also a typed confirmation)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'kubectl-etcd;alarm;list' {
            [CompletionResult]::new('--endpoints', '--endpoints', [CompletionResultType]::ParameterName, 'etcd client URLs to start from (comma-separated or repeated). A URL without a scheme uses https when --cacert is set, else http')
            [CompletionResult]::new('--cacert', '--cacert', [CompletionResultType]::ParameterName, 'CA bundle (PEM) that signed the members'' server certificates')
            [CompletionResult]::new('--cert', '--cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM) for mutual TLS; needs --key')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'Client private key (PEM) for mutual TLS; needs --cert')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'etcd user name, or `name:password`. Without a password (here, in --password or in ETCDCTL_PASSWORD) it is asked for on a terminal')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Password for --user')
            [CompletionResult]::new('--dial-timeout', '--dial-timeout', [CompletionResultType]::ParameterName, 'Time allowed to connect (TCP, TLS and authentication) to one member')
            [CompletionResult]::new('--command-timeout', '--command-timeout', [CompletionResultType]::ParameterName, 'Time allowed for one probe RPC (Status, MemberList, AlarmList) on one member; a member that does not answer in time is reported unreachable')
            [CompletionResult]::new('--quota-backend-bytes', '--quota-backend-bytes', [CompletionResultType]::ParameterName, 'Backend quota to assume for members that do not report one (etcd before 3.6). Kubernetes quantity, e.g. 8Gi. Default: etcd''s 2Gi')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (plugin mode). Default: $KUBECONFIG (several paths are merged), else ~/.kube/config, else the in-cluster service account')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use (plugin mode)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace of the EtcdCluster. Default: the context''s namespace, else `default`')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace of the EtcdCluster. Default: the context''s namespace, else `default`')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Act as this Kubernetes user (impersonation), e.g. system:serviceaccount:NS:NAME')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate along with --as (repeatable)')
            [CompletionResult]::new('--connect', '--connect', [CompletionResultType]::ParameterName, 'How to reach members in plugin mode: `direct` dials each member''s Pod IP (or its in-cluster DNS name); `port-forward` tunnels to each member Pod through the API server; `auto` is direct inside a Pod, else port-forward. Certificates are always verified against the member''s in-cluster DNS name')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'How stderr is written: `text` for a person, `json` for a log collector (one JSON object per line: timestamp, level, message and the event''s fields; messages and errors too)')
            [CompletionResult]::new('--no-discover', '--no-discover', [CompletionResultType]::ParameterName, 'Use only the given endpoints; do not add members found in MemberList')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'kubectl-etcd;alarm;disarm' {
            [CompletionResult]::new('--member', '--member', [CompletionResultType]::ParameterName, 'Only alarms of this member (repeatable)')
            [CompletionResult]::new('--confirm-corrupt', '--confirm-corrupt', [CompletionResultType]::ParameterName, 'The typed confirmation for clearing CORRUPT without a terminal: the name of the member whose CORRUPT alarm is cleared')
            [CompletionResult]::new('--endpoints', '--endpoints', [CompletionResultType]::ParameterName, 'etcd client URLs to start from (comma-separated or repeated). A URL without a scheme uses https when --cacert is set, else http')
            [CompletionResult]::new('--cacert', '--cacert', [CompletionResultType]::ParameterName, 'CA bundle (PEM) that signed the members'' server certificates')
            [CompletionResult]::new('--cert', '--cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM) for mutual TLS; needs --key')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'Client private key (PEM) for mutual TLS; needs --cert')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'etcd user name, or `name:password`. Without a password (here, in --password or in ETCDCTL_PASSWORD) it is asked for on a terminal')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Password for --user')
            [CompletionResult]::new('--dial-timeout', '--dial-timeout', [CompletionResultType]::ParameterName, 'Time allowed to connect (TCP, TLS and authentication) to one member')
            [CompletionResult]::new('--command-timeout', '--command-timeout', [CompletionResultType]::ParameterName, 'Time allowed for one probe RPC (Status, MemberList, AlarmList) on one member; a member that does not answer in time is reported unreachable')
            [CompletionResult]::new('--quota-backend-bytes', '--quota-backend-bytes', [CompletionResultType]::ParameterName, 'Backend quota to assume for members that do not report one (etcd before 3.6). Kubernetes quantity, e.g. 8Gi. Default: etcd''s 2Gi')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (plugin mode). Default: $KUBECONFIG (several paths are merged), else ~/.kube/config, else the in-cluster service account')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use (plugin mode)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace of the EtcdCluster. Default: the context''s namespace, else `default`')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace of the EtcdCluster. Default: the context''s namespace, else `default`')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Act as this Kubernetes user (impersonation), e.g. system:serviceaccount:NS:NAME')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate along with --as (repeatable)')
            [CompletionResult]::new('--connect', '--connect', [CompletionResultType]::ParameterName, 'How to reach members in plugin mode: `direct` dials each member''s Pod IP (or its in-cluster DNS name); `port-forward` tunnels to each member Pod through the API server; `auto` is direct inside a Pod, else port-forward. Certificates are always verified against the member''s in-cluster DNS name')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'How stderr is written: `text` for a person, `json` for a log collector (one JSON object per line: timestamp, level, message and the event''s fields; messages and errors too)')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Also disarm NOSPACE on a member still over its quota, and CORRUPT or unknown alarms (which additionally need a typed confirmation)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would be disarmed and change nothing')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (required when not on a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (required when not on a terminal)')
            [CompletionResult]::new('--no-discover', '--no-discover', [CompletionResultType]::ParameterName, 'Use only the given endpoints; do not add members found in MemberList')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'kubectl-etcd;alarm;help' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'Every raised alarm, with the member''s name and id')
            [CompletionResult]::new('disarm', 'disarm', [CompletionResultType]::ParameterValue, 'Disarm NOSPACE on members back under their quota. CORRUPT and members still over quota need --force (CORRUPT also a typed confirmation)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'kubectl-etcd;alarm;help;list' {
            break
        }
        'kubectl-etcd;alarm;help;disarm' {
            break
        }
        'kubectl-etcd;alarm;help;help' {
            break
        }
        'kubectl-etcd;move-leader' {
            [CompletionResult]::new('--to', '--to', [CompletionResultType]::ParameterName, 'The member to hand leadership to (a voter, never a learner): its name, its hex id as `status` shows it, or its decimal id')
            [CompletionResult]::new('--max-raft-lag', '--max-raft-lag', [CompletionResultType]::ParameterName, 'Largest tolerated raft lag, in entries: a member''s committed index minus its applied index, and its distance behind the leader''s index')
            [CompletionResult]::new('--endpoints', '--endpoints', [CompletionResultType]::ParameterName, 'etcd client URLs to start from (comma-separated or repeated). A URL without a scheme uses https when --cacert is set, else http')
            [CompletionResult]::new('--cacert', '--cacert', [CompletionResultType]::ParameterName, 'CA bundle (PEM) that signed the members'' server certificates')
            [CompletionResult]::new('--cert', '--cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM) for mutual TLS; needs --key')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'Client private key (PEM) for mutual TLS; needs --cert')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'etcd user name, or `name:password`. Without a password (here, in --password or in ETCDCTL_PASSWORD) it is asked for on a terminal')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Password for --user')
            [CompletionResult]::new('--dial-timeout', '--dial-timeout', [CompletionResultType]::ParameterName, 'Time allowed to connect (TCP, TLS and authentication) to one member')
            [CompletionResult]::new('--command-timeout', '--command-timeout', [CompletionResultType]::ParameterName, 'Time allowed for one probe RPC (Status, MemberList, AlarmList) on one member; a member that does not answer in time is reported unreachable')
            [CompletionResult]::new('--quota-backend-bytes', '--quota-backend-bytes', [CompletionResultType]::ParameterName, 'Backend quota to assume for members that do not report one (etcd before 3.6). Kubernetes quantity, e.g. 8Gi. Default: etcd''s 2Gi')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (plugin mode). Default: $KUBECONFIG (several paths are merged), else ~/.kube/config, else the in-cluster service account')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use (plugin mode)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace of the EtcdCluster. Default: the context''s namespace, else `default`')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace of the EtcdCluster. Default: the context''s namespace, else `default`')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Act as this Kubernetes user (impersonation), e.g. system:serviceaccount:NS:NAME')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate along with --as (repeatable)')
            [CompletionResult]::new('--connect', '--connect', [CompletionResultType]::ParameterName, 'How to reach members in plugin mode: `direct` dials each member''s Pod IP (or its in-cluster DNS name); `port-forward` tunnels to each member Pod through the API server; `auto` is direct inside a Pod, else port-forward. Certificates are always verified against the member''s in-cluster DNS name')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'How stderr is written: `text` for a person, `json` for a log collector (one JSON object per line: timestamp, level, message and the event''s fields; messages and errors too)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show the transfer and change nothing')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (required when not on a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (required when not on a terminal)')
            [CompletionResult]::new('--allow-quorum-loss', '--allow-quorum-loss', [CompletionResultType]::ParameterName, 'Accept a cluster with fewer than three voting members, where taking one member out for maintenance loses quorum')
            [CompletionResult]::new('--no-discover', '--no-discover', [CompletionResultType]::ParameterName, 'Use only the given endpoints; do not add members found in MemberList')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'kubectl-etcd;forfeit-leadership' {
            [CompletionResult]::new('--to', '--to', [CompletionResultType]::ParameterName, 'The member to hand leadership to (a voter, never a learner): its name, its hex id as `status` shows it, or its decimal id')
            [CompletionResult]::new('--max-raft-lag', '--max-raft-lag', [CompletionResultType]::ParameterName, 'Largest tolerated raft lag, in entries: a member''s committed index minus its applied index, and its distance behind the leader''s index')
            [CompletionResult]::new('--endpoints', '--endpoints', [CompletionResultType]::ParameterName, 'etcd client URLs to start from (comma-separated or repeated). A URL without a scheme uses https when --cacert is set, else http')
            [CompletionResult]::new('--cacert', '--cacert', [CompletionResultType]::ParameterName, 'CA bundle (PEM) that signed the members'' server certificates')
            [CompletionResult]::new('--cert', '--cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM) for mutual TLS; needs --key')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'Client private key (PEM) for mutual TLS; needs --cert')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'etcd user name, or `name:password`. Without a password (here, in --password or in ETCDCTL_PASSWORD) it is asked for on a terminal')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Password for --user')
            [CompletionResult]::new('--dial-timeout', '--dial-timeout', [CompletionResultType]::ParameterName, 'Time allowed to connect (TCP, TLS and authentication) to one member')
            [CompletionResult]::new('--command-timeout', '--command-timeout', [CompletionResultType]::ParameterName, 'Time allowed for one probe RPC (Status, MemberList, AlarmList) on one member; a member that does not answer in time is reported unreachable')
            [CompletionResult]::new('--quota-backend-bytes', '--quota-backend-bytes', [CompletionResultType]::ParameterName, 'Backend quota to assume for members that do not report one (etcd before 3.6). Kubernetes quantity, e.g. 8Gi. Default: etcd''s 2Gi')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (plugin mode). Default: $KUBECONFIG (several paths are merged), else ~/.kube/config, else the in-cluster service account')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use (plugin mode)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace of the EtcdCluster. Default: the context''s namespace, else `default`')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace of the EtcdCluster. Default: the context''s namespace, else `default`')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Act as this Kubernetes user (impersonation), e.g. system:serviceaccount:NS:NAME')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate along with --as (repeatable)')
            [CompletionResult]::new('--connect', '--connect', [CompletionResultType]::ParameterName, 'How to reach members in plugin mode: `direct` dials each member''s Pod IP (or its in-cluster DNS name); `port-forward` tunnels to each member Pod through the API server; `auto` is direct inside a Pod, else port-forward. Certificates are always verified against the member''s in-cluster DNS name')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'How stderr is written: `text` for a person, `json` for a log collector (one JSON object per line: timestamp, level, message and the event''s fields; messages and errors too)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show the transfer and change nothing')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (required when not on a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (required when not on a terminal)')
            [CompletionResult]::new('--allow-quorum-loss', '--allow-quorum-loss', [CompletionResultType]::ParameterName, 'Accept a cluster with fewer than three voting members, where taking one member out for maintenance loses quorum')
            [CompletionResult]::new('--no-discover', '--no-discover', [CompletionResultType]::ParameterName, 'Use only the given endpoints; do not add members found in MemberList')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'kubectl-etcd;compact' {
            [CompletionResult]::new('--revision', '--revision', [CompletionResultType]::ParameterName, 'Keep revision N and later: compact every revision before it')
            [CompletionResult]::new('--keep', '--keep', [CompletionResultType]::ParameterName, 'Keep the N revisions before the current one: compact at the current revision minus N (0 keeps only the current revision: each key''s latest value, no history)')
            [CompletionResult]::new('--keep-duration', '--keep-duration', [CompletionResultType]::ParameterName, 'Keep what was written in the last DURATION (e.g. 6h): compact at the newest revision written before then. etcd records no time per revision; the Lease objects a Kubernetes API server keeps renewing date them (found by a binary search over revisions), so this works for an etcd that backs Kubernetes')
            [CompletionResult]::new('--leases-prefix', '--leases-prefix', [CompletionResultType]::ParameterName, 'With --keep-duration: where the Lease objects are (kube-apiserver''s --etcd-prefix followed by /leases/)')
            [CompletionResult]::new('--max-raft-lag', '--max-raft-lag', [CompletionResultType]::ParameterName, 'Largest tolerated raft lag, in entries: a member''s committed index minus its applied index, and its distance behind the leader''s index')
            [CompletionResult]::new('--endpoints', '--endpoints', [CompletionResultType]::ParameterName, 'etcd client URLs to start from (comma-separated or repeated). A URL without a scheme uses https when --cacert is set, else http')
            [CompletionResult]::new('--cacert', '--cacert', [CompletionResultType]::ParameterName, 'CA bundle (PEM) that signed the members'' server certificates')
            [CompletionResult]::new('--cert', '--cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM) for mutual TLS; needs --key')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'Client private key (PEM) for mutual TLS; needs --cert')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'etcd user name, or `name:password`. Without a password (here, in --password or in ETCDCTL_PASSWORD) it is asked for on a terminal')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Password for --user')
            [CompletionResult]::new('--dial-timeout', '--dial-timeout', [CompletionResultType]::ParameterName, 'Time allowed to connect (TCP, TLS and authentication) to one member')
            [CompletionResult]::new('--command-timeout', '--command-timeout', [CompletionResultType]::ParameterName, 'Time allowed for one probe RPC (Status, MemberList, AlarmList) on one member; a member that does not answer in time is reported unreachable')
            [CompletionResult]::new('--quota-backend-bytes', '--quota-backend-bytes', [CompletionResultType]::ParameterName, 'Backend quota to assume for members that do not report one (etcd before 3.6). Kubernetes quantity, e.g. 8Gi. Default: etcd''s 2Gi')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (plugin mode). Default: $KUBECONFIG (several paths are merged), else ~/.kube/config, else the in-cluster service account')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use (plugin mode)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace of the EtcdCluster. Default: the context''s namespace, else `default`')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace of the EtcdCluster. Default: the context''s namespace, else `default`')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Act as this Kubernetes user (impersonation), e.g. system:serviceaccount:NS:NAME')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate along with --as (repeatable)')
            [CompletionResult]::new('--connect', '--connect', [CompletionResultType]::ParameterName, 'How to reach members in plugin mode: `direct` dials each member''s Pod IP (or its in-cluster DNS name); `port-forward` tunnels to each member Pod through the API server; `auto` is direct inside a Pod, else port-forward. Certificates are always verified against the member''s in-cluster DNS name')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'How stderr is written: `text` for a person, `json` for a log collector (one JSON object per line: timestamp, level, message and the event''s fields; messages and errors too)')
            [CompletionResult]::new('--physical', '--physical', [CompletionResultType]::ParameterName, 'Answer only once the leader has compacted its backend (etcdctl''s --physical); the sizes reported after are then final')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show the revision that would be compacted and change nothing')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (required when not on a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (required when not on a terminal)')
            [CompletionResult]::new('--allow-quorum-loss', '--allow-quorum-loss', [CompletionResultType]::ParameterName, 'Accept a cluster with fewer than three voting members, where taking one member out for maintenance loses quorum')
            [CompletionResult]::new('--no-discover', '--no-discover', [CompletionResultType]::ParameterName, 'Use only the given endpoints; do not add members found in MemberList')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'kubectl-etcd;usage' {
            [CompletionResult]::new('--prefix', '--prefix', [CompletionResultType]::ParameterName, 'Only keys starting with PREFIX, grouped one segment below it')
            [CompletionResult]::new('--depth', '--depth', [CompletionResultType]::ParameterName, 'Group by the first N `/`-separated segments below --prefix (default: the Kubernetes layout for the whole keyspace, 1 below a --prefix)')
            [CompletionResult]::new('--top', '--top', [CompletionResultType]::ParameterName, 'How many prefixes each ranking shows (-o json|yaml lists them all)')
            [CompletionResult]::new('--window', '--window', [CompletionResultType]::ParameterName, 'How long to count writes, with a Watch from the revision read (0: no sample). The read and the sample run side by side')
            [CompletionResult]::new('--member', '--member', [CompletionResultType]::ParameterName, 'The member to read from (default: the most caught-up healthy follower)')
            [CompletionResult]::new('--endpoints', '--endpoints', [CompletionResultType]::ParameterName, 'etcd client URLs to start from (comma-separated or repeated). A URL without a scheme uses https when --cacert is set, else http')
            [CompletionResult]::new('--cacert', '--cacert', [CompletionResultType]::ParameterName, 'CA bundle (PEM) that signed the members'' server certificates')
            [CompletionResult]::new('--cert', '--cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM) for mutual TLS; needs --key')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'Client private key (PEM) for mutual TLS; needs --cert')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'etcd user name, or `name:password`. Without a password (here, in --password or in ETCDCTL_PASSWORD) it is asked for on a terminal')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Password for --user')
            [CompletionResult]::new('--dial-timeout', '--dial-timeout', [CompletionResultType]::ParameterName, 'Time allowed to connect (TCP, TLS and authentication) to one member')
            [CompletionResult]::new('--command-timeout', '--command-timeout', [CompletionResultType]::ParameterName, 'Time allowed for one probe RPC (Status, MemberList, AlarmList) on one member; a member that does not answer in time is reported unreachable')
            [CompletionResult]::new('--quota-backend-bytes', '--quota-backend-bytes', [CompletionResultType]::ParameterName, 'Backend quota to assume for members that do not report one (etcd before 3.6). Kubernetes quantity, e.g. 8Gi. Default: etcd''s 2Gi')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (plugin mode). Default: $KUBECONFIG (several paths are merged), else ~/.kube/config, else the in-cluster service account')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use (plugin mode)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace of the EtcdCluster. Default: the context''s namespace, else `default`')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace of the EtcdCluster. Default: the context''s namespace, else `default`')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Act as this Kubernetes user (impersonation), e.g. system:serviceaccount:NS:NAME')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate along with --as (repeatable)')
            [CompletionResult]::new('--connect', '--connect', [CompletionResultType]::ParameterName, 'How to reach members in plugin mode: `direct` dials each member''s Pod IP (or its in-cluster DNS name); `port-forward` tunnels to each member Pod through the API server; `auto` is direct inside a Pod, else port-forward. Certificates are always verified against the member''s in-cluster DNS name')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'How stderr is written: `text` for a person, `json` for a log collector (one JSON object per line: timestamp, level, message and the event''s fields; messages and errors too)')
            [CompletionResult]::new('--keys-only', '--keys-only', [CompletionResultType]::ParameterName, 'Count keys without reading values (no bytes): far less to send, and from etcd 3.7 on served from the member''s index alone')
            [CompletionResult]::new('--no-discover', '--no-discover', [CompletionResultType]::ParameterName, 'Use only the given endpoints; do not add members found in MemberList')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'kubectl-etcd;snapshot' {
            [CompletionResult]::new('--endpoints', '--endpoints', [CompletionResultType]::ParameterName, 'etcd client URLs to start from (comma-separated or repeated). A URL without a scheme uses https when --cacert is set, else http')
            [CompletionResult]::new('--cacert', '--cacert', [CompletionResultType]::ParameterName, 'CA bundle (PEM) that signed the members'' server certificates')
            [CompletionResult]::new('--cert', '--cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM) for mutual TLS; needs --key')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'Client private key (PEM) for mutual TLS; needs --cert')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'etcd user name, or `name:password`. Without a password (here, in --password or in ETCDCTL_PASSWORD) it is asked for on a terminal')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Password for --user')
            [CompletionResult]::new('--dial-timeout', '--dial-timeout', [CompletionResultType]::ParameterName, 'Time allowed to connect (TCP, TLS and authentication) to one member')
            [CompletionResult]::new('--command-timeout', '--command-timeout', [CompletionResultType]::ParameterName, 'Time allowed for one probe RPC (Status, MemberList, AlarmList) on one member; a member that does not answer in time is reported unreachable')
            [CompletionResult]::new('--quota-backend-bytes', '--quota-backend-bytes', [CompletionResultType]::ParameterName, 'Backend quota to assume for members that do not report one (etcd before 3.6). Kubernetes quantity, e.g. 8Gi. Default: etcd''s 2Gi')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (plugin mode). Default: $KUBECONFIG (several paths are merged), else ~/.kube/config, else the in-cluster service account')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use (plugin mode)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace of the EtcdCluster. Default: the context''s namespace, else `default`')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace of the EtcdCluster. Default: the context''s namespace, else `default`')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Act as this Kubernetes user (impersonation), e.g. system:serviceaccount:NS:NAME')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate along with --as (repeatable)')
            [CompletionResult]::new('--connect', '--connect', [CompletionResultType]::ParameterName, 'How to reach members in plugin mode: `direct` dials each member''s Pod IP (or its in-cluster DNS name); `port-forward` tunnels to each member Pod through the API server; `auto` is direct inside a Pod, else port-forward. Certificates are always verified against the member''s in-cluster DNS name')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'How stderr is written: `text` for a person, `json` for a log collector (one JSON object per line: timestamp, level, message and the event''s fields; messages and errors too)')
            [CompletionResult]::new('--no-discover', '--no-discover', [CompletionResultType]::ParameterName, 'Use only the given endpoints; do not add members found in MemberList')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('save', 'save', [CompletionResultType]::ParameterValue, 'Stream one member''s backend into FILE, check it and print its SHA-256')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'The hash, revision, key count and size of a saved snapshot (the figures `etcdutl snapshot status` prints), read here without etcdutl, and whether the checksum etcd appended still matches')
            [CompletionResult]::new('usage', 'usage', [CompletionResultType]::ParameterValue, 'Which key prefixes hold a saved snapshot''s space: live keys and bytes per prefix, and the history each still keeps (older revisions and deletions: what a compaction at the snapshot''s revision would drop), with the free pages a defrag would return. Read offline, so the heavy analysis never touches a running member')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'kubectl-etcd;snapshot;save' {
            [CompletionResult]::new('--member', '--member', [CompletionResultType]::ParameterName, 'The member to stream from (default: the most caught-up healthy follower)')
            [CompletionResult]::new('--endpoints', '--endpoints', [CompletionResultType]::ParameterName, 'etcd client URLs to start from (comma-separated or repeated). A URL without a scheme uses https when --cacert is set, else http')
            [CompletionResult]::new('--cacert', '--cacert', [CompletionResultType]::ParameterName, 'CA bundle (PEM) that signed the members'' server certificates')
            [CompletionResult]::new('--cert', '--cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM) for mutual TLS; needs --key')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'Client private key (PEM) for mutual TLS; needs --cert')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'etcd user name, or `name:password`. Without a password (here, in --password or in ETCDCTL_PASSWORD) it is asked for on a terminal')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Password for --user')
            [CompletionResult]::new('--dial-timeout', '--dial-timeout', [CompletionResultType]::ParameterName, 'Time allowed to connect (TCP, TLS and authentication) to one member')
            [CompletionResult]::new('--command-timeout', '--command-timeout', [CompletionResultType]::ParameterName, 'Time allowed for one probe RPC (Status, MemberList, AlarmList) on one member; a member that does not answer in time is reported unreachable')
            [CompletionResult]::new('--quota-backend-bytes', '--quota-backend-bytes', [CompletionResultType]::ParameterName, 'Backend quota to assume for members that do not report one (etcd before 3.6). Kubernetes quantity, e.g. 8Gi. Default: etcd''s 2Gi')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (plugin mode). Default: $KUBECONFIG (several paths are merged), else ~/.kube/config, else the in-cluster service account')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use (plugin mode)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace of the EtcdCluster. Default: the context''s namespace, else `default`')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace of the EtcdCluster. Default: the context''s namespace, else `default`')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Act as this Kubernetes user (impersonation), e.g. system:serviceaccount:NS:NAME')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate along with --as (repeatable)')
            [CompletionResult]::new('--connect', '--connect', [CompletionResultType]::ParameterName, 'How to reach members in plugin mode: `direct` dials each member''s Pod IP (or its in-cluster DNS name); `port-forward` tunnels to each member Pod through the API server; `auto` is direct inside a Pod, else port-forward. Certificates are always verified against the member''s in-cluster DNS name')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'How stderr is written: `text` for a person, `json` for a log collector (one JSON object per line: timestamp, level, message and the event''s fields; messages and errors too)')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Replace FILE (and FILE.sha256) when it exists')
            [CompletionResult]::new('--no-discover', '--no-discover', [CompletionResultType]::ParameterName, 'Use only the given endpoints; do not add members found in MemberList')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'kubectl-etcd;snapshot;status' {
            [CompletionResult]::new('--endpoints', '--endpoints', [CompletionResultType]::ParameterName, 'etcd client URLs to start from (comma-separated or repeated). A URL without a scheme uses https when --cacert is set, else http')
            [CompletionResult]::new('--cacert', '--cacert', [CompletionResultType]::ParameterName, 'CA bundle (PEM) that signed the members'' server certificates')
            [CompletionResult]::new('--cert', '--cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM) for mutual TLS; needs --key')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'Client private key (PEM) for mutual TLS; needs --cert')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'etcd user name, or `name:password`. Without a password (here, in --password or in ETCDCTL_PASSWORD) it is asked for on a terminal')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Password for --user')
            [CompletionResult]::new('--dial-timeout', '--dial-timeout', [CompletionResultType]::ParameterName, 'Time allowed to connect (TCP, TLS and authentication) to one member')
            [CompletionResult]::new('--command-timeout', '--command-timeout', [CompletionResultType]::ParameterName, 'Time allowed for one probe RPC (Status, MemberList, AlarmList) on one member; a member that does not answer in time is reported unreachable')
            [CompletionResult]::new('--quota-backend-bytes', '--quota-backend-bytes', [CompletionResultType]::ParameterName, 'Backend quota to assume for members that do not report one (etcd before 3.6). Kubernetes quantity, e.g. 8Gi. Default: etcd''s 2Gi')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (plugin mode). Default: $KUBECONFIG (several paths are merged), else ~/.kube/config, else the in-cluster service account')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use (plugin mode)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace of the EtcdCluster. Default: the context''s namespace, else `default`')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace of the EtcdCluster. Default: the context''s namespace, else `default`')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Act as this Kubernetes user (impersonation), e.g. system:serviceaccount:NS:NAME')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate along with --as (repeatable)')
            [CompletionResult]::new('--connect', '--connect', [CompletionResultType]::ParameterName, 'How to reach members in plugin mode: `direct` dials each member''s Pod IP (or its in-cluster DNS name); `port-forward` tunnels to each member Pod through the API server; `auto` is direct inside a Pod, else port-forward. Certificates are always verified against the member''s in-cluster DNS name')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'How stderr is written: `text` for a person, `json` for a log collector (one JSON object per line: timestamp, level, message and the event''s fields; messages and errors too)')
            [CompletionResult]::new('--no-discover', '--no-discover', [CompletionResultType]::ParameterName, 'Use only the given endpoints; do not add members found in MemberList')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'kubectl-etcd;snapshot;usage' {
            [CompletionResult]::new('--prefix', '--prefix', [CompletionResultType]::ParameterName, 'Only keys starting with PREFIX, grouped one segment below it')
            [CompletionResult]::new('--depth', '--depth', [CompletionResultType]::ParameterName, 'Group by the first N `/`-separated segments below --prefix (default: the Kubernetes layout for the whole keyspace, 1 below a --prefix)')
            [CompletionResult]::new('--top', '--top', [CompletionResultType]::ParameterName, 'How many prefixes each ranking shows (-o json|yaml lists them all)')
            [CompletionResult]::new('--endpoints', '--endpoints', [CompletionResultType]::ParameterName, 'etcd client URLs to start from (comma-separated or repeated). A URL without a scheme uses https when --cacert is set, else http')
            [CompletionResult]::new('--cacert', '--cacert', [CompletionResultType]::ParameterName, 'CA bundle (PEM) that signed the members'' server certificates')
            [CompletionResult]::new('--cert', '--cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM) for mutual TLS; needs --key')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'Client private key (PEM) for mutual TLS; needs --cert')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'etcd user name, or `name:password`. Without a password (here, in --password or in ETCDCTL_PASSWORD) it is asked for on a terminal')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Password for --user')
            [CompletionResult]::new('--dial-timeout', '--dial-timeout', [CompletionResultType]::ParameterName, 'Time allowed to connect (TCP, TLS and authentication) to one member')
            [CompletionResult]::new('--command-timeout', '--command-timeout', [CompletionResultType]::ParameterName, 'Time allowed for one probe RPC (Status, MemberList, AlarmList) on one member; a member that does not answer in time is reported unreachable')
            [CompletionResult]::new('--quota-backend-bytes', '--quota-backend-bytes', [CompletionResultType]::ParameterName, 'Backend quota to assume for members that do not report one (etcd before 3.6). Kubernetes quantity, e.g. 8Gi. Default: etcd''s 2Gi')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (plugin mode). Default: $KUBECONFIG (several paths are merged), else ~/.kube/config, else the in-cluster service account')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use (plugin mode)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace of the EtcdCluster. Default: the context''s namespace, else `default`')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace of the EtcdCluster. Default: the context''s namespace, else `default`')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Act as this Kubernetes user (impersonation), e.g. system:serviceaccount:NS:NAME')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate along with --as (repeatable)')
            [CompletionResult]::new('--connect', '--connect', [CompletionResultType]::ParameterName, 'How to reach members in plugin mode: `direct` dials each member''s Pod IP (or its in-cluster DNS name); `port-forward` tunnels to each member Pod through the API server; `auto` is direct inside a Pod, else port-forward. Certificates are always verified against the member''s in-cluster DNS name')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'How stderr is written: `text` for a person, `json` for a log collector (one JSON object per line: timestamp, level, message and the event''s fields; messages and errors too)')
            [CompletionResult]::new('--no-discover', '--no-discover', [CompletionResultType]::ParameterName, 'Use only the given endpoints; do not add members found in MemberList')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'kubectl-etcd;snapshot;help' {
            [CompletionResult]::new('save', 'save', [CompletionResultType]::ParameterValue, 'Stream one member''s backend into FILE, check it and print its SHA-256')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'The hash, revision, key count and size of a saved snapshot (the figures `etcdutl snapshot status` prints), read here without etcdutl, and whether the checksum etcd appended still matches')
            [CompletionResult]::new('usage', 'usage', [CompletionResultType]::ParameterValue, 'Which key prefixes hold a saved snapshot''s space: live keys and bytes per prefix, and the history each still keeps (older revisions and deletions: what a compaction at the snapshot''s revision would drop), with the free pages a defrag would return. Read offline, so the heavy analysis never touches a running member')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'kubectl-etcd;snapshot;help;save' {
            break
        }
        'kubectl-etcd;snapshot;help;status' {
            break
        }
        'kubectl-etcd;snapshot;help;usage' {
            break
        }
        'kubectl-etcd;snapshot;help;help' {
            break
        }
        'kubectl-etcd;traffic' {
            [CompletionResult]::new('--endpoints', '--endpoints', [CompletionResultType]::ParameterName, 'etcd client URLs to start from (comma-separated or repeated). A URL without a scheme uses https when --cacert is set, else http')
            [CompletionResult]::new('--cacert', '--cacert', [CompletionResultType]::ParameterName, 'CA bundle (PEM) that signed the members'' server certificates')
            [CompletionResult]::new('--cert', '--cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM) for mutual TLS; needs --key')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'Client private key (PEM) for mutual TLS; needs --cert')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'etcd user name, or `name:password`. Without a password (here, in --password or in ETCDCTL_PASSWORD) it is asked for on a terminal')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Password for --user')
            [CompletionResult]::new('--dial-timeout', '--dial-timeout', [CompletionResultType]::ParameterName, 'Time allowed to connect (TCP, TLS and authentication) to one member')
            [CompletionResult]::new('--command-timeout', '--command-timeout', [CompletionResultType]::ParameterName, 'Time allowed for one probe RPC (Status, MemberList, AlarmList) on one member; a member that does not answer in time is reported unreachable')
            [CompletionResult]::new('--quota-backend-bytes', '--quota-backend-bytes', [CompletionResultType]::ParameterName, 'Backend quota to assume for members that do not report one (etcd before 3.6). Kubernetes quantity, e.g. 8Gi. Default: etcd''s 2Gi')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (plugin mode). Default: $KUBECONFIG (several paths are merged), else ~/.kube/config, else the in-cluster service account')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use (plugin mode)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace of the EtcdCluster. Default: the context''s namespace, else `default`')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace of the EtcdCluster. Default: the context''s namespace, else `default`')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Act as this Kubernetes user (impersonation), e.g. system:serviceaccount:NS:NAME')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate along with --as (repeatable)')
            [CompletionResult]::new('--connect', '--connect', [CompletionResultType]::ParameterName, 'How to reach members in plugin mode: `direct` dials each member''s Pod IP (or its in-cluster DNS name); `port-forward` tunnels to each member Pod through the API server; `auto` is direct inside a Pod, else port-forward. Certificates are always verified against the member''s in-cluster DNS name')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'How stderr is written: `text` for a person, `json` for a log collector (one JSON object per line: timestamp, level, message and the event''s fields; messages and errors too)')
            [CompletionResult]::new('--no-discover', '--no-discover', [CompletionResultType]::ParameterName, 'Use only the given endpoints; do not add members found in MemberList')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'The Service''s value, the managers that own it, the EtcdCluster annotation, and which values this API server release keeps')
            [CompletionResult]::new('set', 'set', [CompletionResultType]::ParameterValue, 'Annotate the EtcdCluster and apply VALUE to the client Service, then read it back. The server is asked first with a dry run: a value it rejects (422) or accepts and drops (servers before 1.31) is an error (exit 1) that writes nothing. If the real apply fails, the annotation is put back and nothing is left owned by the field manager')
            [CompletionResult]::new('clear', 'clear', [CompletionResultType]::ParameterValue, 'Remove the annotation and release the field manager''s ownership. The value stays if another manager also owns it; a value set by hand is left alone')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'kubectl-etcd;traffic;show' {
            [CompletionResult]::new('--endpoints', '--endpoints', [CompletionResultType]::ParameterName, 'etcd client URLs to start from (comma-separated or repeated). A URL without a scheme uses https when --cacert is set, else http')
            [CompletionResult]::new('--cacert', '--cacert', [CompletionResultType]::ParameterName, 'CA bundle (PEM) that signed the members'' server certificates')
            [CompletionResult]::new('--cert', '--cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM) for mutual TLS; needs --key')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'Client private key (PEM) for mutual TLS; needs --cert')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'etcd user name, or `name:password`. Without a password (here, in --password or in ETCDCTL_PASSWORD) it is asked for on a terminal')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Password for --user')
            [CompletionResult]::new('--dial-timeout', '--dial-timeout', [CompletionResultType]::ParameterName, 'Time allowed to connect (TCP, TLS and authentication) to one member')
            [CompletionResult]::new('--command-timeout', '--command-timeout', [CompletionResultType]::ParameterName, 'Time allowed for one probe RPC (Status, MemberList, AlarmList) on one member; a member that does not answer in time is reported unreachable')
            [CompletionResult]::new('--quota-backend-bytes', '--quota-backend-bytes', [CompletionResultType]::ParameterName, 'Backend quota to assume for members that do not report one (etcd before 3.6). Kubernetes quantity, e.g. 8Gi. Default: etcd''s 2Gi')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (plugin mode). Default: $KUBECONFIG (several paths are merged), else ~/.kube/config, else the in-cluster service account')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use (plugin mode)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace of the EtcdCluster. Default: the context''s namespace, else `default`')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace of the EtcdCluster. Default: the context''s namespace, else `default`')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Act as this Kubernetes user (impersonation), e.g. system:serviceaccount:NS:NAME')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate along with --as (repeatable)')
            [CompletionResult]::new('--connect', '--connect', [CompletionResultType]::ParameterName, 'How to reach members in plugin mode: `direct` dials each member''s Pod IP (or its in-cluster DNS name); `port-forward` tunnels to each member Pod through the API server; `auto` is direct inside a Pod, else port-forward. Certificates are always verified against the member''s in-cluster DNS name')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'How stderr is written: `text` for a person, `json` for a log collector (one JSON object per line: timestamp, level, message and the event''s fields; messages and errors too)')
            [CompletionResult]::new('--no-discover', '--no-discover', [CompletionResultType]::ParameterName, 'Use only the given endpoints; do not add members found in MemberList')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'kubectl-etcd;traffic;set' {
            [CompletionResult]::new('--endpoints', '--endpoints', [CompletionResultType]::ParameterName, 'etcd client URLs to start from (comma-separated or repeated). A URL without a scheme uses https when --cacert is set, else http')
            [CompletionResult]::new('--cacert', '--cacert', [CompletionResultType]::ParameterName, 'CA bundle (PEM) that signed the members'' server certificates')
            [CompletionResult]::new('--cert', '--cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM) for mutual TLS; needs --key')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'Client private key (PEM) for mutual TLS; needs --cert')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'etcd user name, or `name:password`. Without a password (here, in --password or in ETCDCTL_PASSWORD) it is asked for on a terminal')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Password for --user')
            [CompletionResult]::new('--dial-timeout', '--dial-timeout', [CompletionResultType]::ParameterName, 'Time allowed to connect (TCP, TLS and authentication) to one member')
            [CompletionResult]::new('--command-timeout', '--command-timeout', [CompletionResultType]::ParameterName, 'Time allowed for one probe RPC (Status, MemberList, AlarmList) on one member; a member that does not answer in time is reported unreachable')
            [CompletionResult]::new('--quota-backend-bytes', '--quota-backend-bytes', [CompletionResultType]::ParameterName, 'Backend quota to assume for members that do not report one (etcd before 3.6). Kubernetes quantity, e.g. 8Gi. Default: etcd''s 2Gi')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (plugin mode). Default: $KUBECONFIG (several paths are merged), else ~/.kube/config, else the in-cluster service account')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use (plugin mode)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace of the EtcdCluster. Default: the context''s namespace, else `default`')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace of the EtcdCluster. Default: the context''s namespace, else `default`')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Act as this Kubernetes user (impersonation), e.g. system:serviceaccount:NS:NAME')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate along with --as (repeatable)')
            [CompletionResult]::new('--connect', '--connect', [CompletionResultType]::ParameterName, 'How to reach members in plugin mode: `direct` dials each member''s Pod IP (or its in-cluster DNS name); `port-forward` tunnels to each member Pod through the API server; `auto` is direct inside a Pod, else port-forward. Certificates are always verified against the member''s in-cluster DNS name')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'How stderr is written: `text` for a person, `json` for a log collector (one JSON object per line: timestamp, level, message and the event''s fields; messages and errors too)')
            [CompletionResult]::new('--exact', '--exact', [CompletionResultType]::ParameterName, 'Write VALUE as given, even where the API server names it otherwise (deprecated, or not kept with its default feature gates)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Send every write as a server-side dry run (the server validates it and stores nothing) and print what would change')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (required when not on a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (required when not on a terminal)')
            [CompletionResult]::new('--no-discover', '--no-discover', [CompletionResultType]::ParameterName, 'Use only the given endpoints; do not add members found in MemberList')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'kubectl-etcd;traffic;clear' {
            [CompletionResult]::new('--endpoints', '--endpoints', [CompletionResultType]::ParameterName, 'etcd client URLs to start from (comma-separated or repeated). A URL without a scheme uses https when --cacert is set, else http')
            [CompletionResult]::new('--cacert', '--cacert', [CompletionResultType]::ParameterName, 'CA bundle (PEM) that signed the members'' server certificates')
            [CompletionResult]::new('--cert', '--cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM) for mutual TLS; needs --key')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'Client private key (PEM) for mutual TLS; needs --cert')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'etcd user name, or `name:password`. Without a password (here, in --password or in ETCDCTL_PASSWORD) it is asked for on a terminal')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Password for --user')
            [CompletionResult]::new('--dial-timeout', '--dial-timeout', [CompletionResultType]::ParameterName, 'Time allowed to connect (TCP, TLS and authentication) to one member')
            [CompletionResult]::new('--command-timeout', '--command-timeout', [CompletionResultType]::ParameterName, 'Time allowed for one probe RPC (Status, MemberList, AlarmList) on one member; a member that does not answer in time is reported unreachable')
            [CompletionResult]::new('--quota-backend-bytes', '--quota-backend-bytes', [CompletionResultType]::ParameterName, 'Backend quota to assume for members that do not report one (etcd before 3.6). Kubernetes quantity, e.g. 8Gi. Default: etcd''s 2Gi')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (plugin mode). Default: $KUBECONFIG (several paths are merged), else ~/.kube/config, else the in-cluster service account')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use (plugin mode)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace of the EtcdCluster. Default: the context''s namespace, else `default`')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace of the EtcdCluster. Default: the context''s namespace, else `default`')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Act as this Kubernetes user (impersonation), e.g. system:serviceaccount:NS:NAME')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate along with --as (repeatable)')
            [CompletionResult]::new('--connect', '--connect', [CompletionResultType]::ParameterName, 'How to reach members in plugin mode: `direct` dials each member''s Pod IP (or its in-cluster DNS name); `port-forward` tunnels to each member Pod through the API server; `auto` is direct inside a Pod, else port-forward. Certificates are always verified against the member''s in-cluster DNS name')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'How stderr is written: `text` for a person, `json` for a log collector (one JSON object per line: timestamp, level, message and the event''s fields; messages and errors too)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Send every write as a server-side dry run (the server validates it and stores nothing) and print what would change')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (required when not on a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Do not ask for confirmation (required when not on a terminal)')
            [CompletionResult]::new('--no-discover', '--no-discover', [CompletionResultType]::ParameterName, 'Use only the given endpoints; do not add members found in MemberList')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'kubectl-etcd;traffic;help' {
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'The Service''s value, the managers that own it, the EtcdCluster annotation, and which values this API server release keeps')
            [CompletionResult]::new('set', 'set', [CompletionResultType]::ParameterValue, 'Annotate the EtcdCluster and apply VALUE to the client Service, then read it back. The server is asked first with a dry run: a value it rejects (422) or accepts and drops (servers before 1.31) is an error (exit 1) that writes nothing. If the real apply fails, the annotation is put back and nothing is left owned by the field manager')
            [CompletionResult]::new('clear', 'clear', [CompletionResultType]::ParameterValue, 'Remove the annotation and release the field manager''s ownership. The value stays if another manager also owns it; a value set by hand is left alone')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'kubectl-etcd;traffic;help;show' {
            break
        }
        'kubectl-etcd;traffic;help;set' {
            break
        }
        'kubectl-etcd;traffic;help;clear' {
            break
        }
        'kubectl-etcd;traffic;help;help' {
            break
        }
        'kubectl-etcd;completion' {
            [CompletionResult]::new('--endpoints', '--endpoints', [CompletionResultType]::ParameterName, 'etcd client URLs to start from (comma-separated or repeated). A URL without a scheme uses https when --cacert is set, else http')
            [CompletionResult]::new('--cacert', '--cacert', [CompletionResultType]::ParameterName, 'CA bundle (PEM) that signed the members'' server certificates')
            [CompletionResult]::new('--cert', '--cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM) for mutual TLS; needs --key')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'Client private key (PEM) for mutual TLS; needs --cert')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'etcd user name, or `name:password`. Without a password (here, in --password or in ETCDCTL_PASSWORD) it is asked for on a terminal')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Password for --user')
            [CompletionResult]::new('--dial-timeout', '--dial-timeout', [CompletionResultType]::ParameterName, 'Time allowed to connect (TCP, TLS and authentication) to one member')
            [CompletionResult]::new('--command-timeout', '--command-timeout', [CompletionResultType]::ParameterName, 'Time allowed for one probe RPC (Status, MemberList, AlarmList) on one member; a member that does not answer in time is reported unreachable')
            [CompletionResult]::new('--quota-backend-bytes', '--quota-backend-bytes', [CompletionResultType]::ParameterName, 'Backend quota to assume for members that do not report one (etcd before 3.6). Kubernetes quantity, e.g. 8Gi. Default: etcd''s 2Gi')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (plugin mode). Default: $KUBECONFIG (several paths are merged), else ~/.kube/config, else the in-cluster service account')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use (plugin mode)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace of the EtcdCluster. Default: the context''s namespace, else `default`')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace of the EtcdCluster. Default: the context''s namespace, else `default`')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Act as this Kubernetes user (impersonation), e.g. system:serviceaccount:NS:NAME')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate along with --as (repeatable)')
            [CompletionResult]::new('--connect', '--connect', [CompletionResultType]::ParameterName, 'How to reach members in plugin mode: `direct` dials each member''s Pod IP (or its in-cluster DNS name); `port-forward` tunnels to each member Pod through the API server; `auto` is direct inside a Pod, else port-forward. Certificates are always verified against the member''s in-cluster DNS name')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'How stderr is written: `text` for a person, `json` for a log collector (one JSON object per line: timestamp, level, message and the event''s fields; messages and errors too)')
            [CompletionResult]::new('--no-discover', '--no-discover', [CompletionResultType]::ParameterName, 'Use only the given endpoints; do not add members found in MemberList')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'kubectl-etcd;version' {
            [CompletionResult]::new('--endpoints', '--endpoints', [CompletionResultType]::ParameterName, 'etcd client URLs to start from (comma-separated or repeated). A URL without a scheme uses https when --cacert is set, else http')
            [CompletionResult]::new('--cacert', '--cacert', [CompletionResultType]::ParameterName, 'CA bundle (PEM) that signed the members'' server certificates')
            [CompletionResult]::new('--cert', '--cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM) for mutual TLS; needs --key')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'Client private key (PEM) for mutual TLS; needs --cert')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'etcd user name, or `name:password`. Without a password (here, in --password or in ETCDCTL_PASSWORD) it is asked for on a terminal')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Password for --user')
            [CompletionResult]::new('--dial-timeout', '--dial-timeout', [CompletionResultType]::ParameterName, 'Time allowed to connect (TCP, TLS and authentication) to one member')
            [CompletionResult]::new('--command-timeout', '--command-timeout', [CompletionResultType]::ParameterName, 'Time allowed for one probe RPC (Status, MemberList, AlarmList) on one member; a member that does not answer in time is reported unreachable')
            [CompletionResult]::new('--quota-backend-bytes', '--quota-backend-bytes', [CompletionResultType]::ParameterName, 'Backend quota to assume for members that do not report one (etcd before 3.6). Kubernetes quantity, e.g. 8Gi. Default: etcd''s 2Gi')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (plugin mode). Default: $KUBECONFIG (several paths are merged), else ~/.kube/config, else the in-cluster service account')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use (plugin mode)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace of the EtcdCluster. Default: the context''s namespace, else `default`')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace of the EtcdCluster. Default: the context''s namespace, else `default`')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Act as this Kubernetes user (impersonation), e.g. system:serviceaccount:NS:NAME')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate along with --as (repeatable)')
            [CompletionResult]::new('--connect', '--connect', [CompletionResultType]::ParameterName, 'How to reach members in plugin mode: `direct` dials each member''s Pod IP (or its in-cluster DNS name); `port-forward` tunnels to each member Pod through the API server; `auto` is direct inside a Pod, else port-forward. Certificates are always verified against the member''s in-cluster DNS name')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'How stderr is written: `text` for a person, `json` for a log collector (one JSON object per line: timestamp, level, message and the event''s fields; messages and errors too)')
            [CompletionResult]::new('--no-discover', '--no-discover', [CompletionResultType]::ParameterName, 'Use only the given endpoints; do not add members found in MemberList')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'More logging on stderr (-v info, -vv debug, -vvv trace). RUST_LOG wins')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'kubectl-etcd;help' {
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'One row per member: size, in use, quota use, leader, raft progress, alarms and a health verdict')
            [CompletionResult]::new('members', 'members', [CompletionResultType]::ParameterValue, 'The member list: ids, names, peer and client URLs, learner flag')
            [CompletionResult]::new('doctor', 'doctor', [CompletionResultType]::ParameterValue, 'One report of what needs attention and what to do about it')
            [CompletionResult]::new('member', 'member', [CompletionResultType]::ParameterValue, 'Add a member or a learner, promote a learner, remove a member, with quorum checked first (etcdctl''s `member` verbs)')
            [CompletionResult]::new('defrag', 'defrag', [CompletionResultType]::ParameterValue, 'Health-gated, follower-first defragmentation, one member at a time')
            [CompletionResult]::new('alarm', 'alarm', [CompletionResultType]::ParameterValue, 'List or disarm alarms (NOSPACE, CORRUPT), with member names')
            [CompletionResult]::new('move-leader', 'move-leader', [CompletionResultType]::ParameterValue, 'Transfer leadership to another voter (the most caught-up healthy one unless --to names it)')
            [CompletionResult]::new('compact', 'compact', [CompletionResultType]::ParameterValue, 'Compact the key-value history: drop every revision before the one kept, through the leader, after the health gate passes')
            [CompletionResult]::new('usage', 'usage', [CompletionResultType]::ParameterValue, 'Which key prefixes hold the space and which take the writes')
            [CompletionResult]::new('snapshot', 'snapshot', [CompletionResultType]::ParameterValue, 'Save a member''s backend to a file (a backup etcdutl can restore), or describe a saved one')
            [CompletionResult]::new('traffic', 'traffic', [CompletionResultType]::ParameterValue, 'The client Service''s spec.trafficDistribution, kept in step with the EtcdCluster annotation the operator reads')
            [CompletionResult]::new('completion', 'completion', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('version', 'version', [CompletionResultType]::ParameterValue, 'Print the version')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'kubectl-etcd;help;status' {
            break
        }
        'kubectl-etcd;help;members' {
            break
        }
        'kubectl-etcd;help;doctor' {
            break
        }
        'kubectl-etcd;help;member' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'The member list (the same as `members`)')
            [CompletionResult]::new('add', 'add', [CompletionResultType]::ParameterValue, 'Add a member (a voter, or a learner with --learner) and print the settings to start it with')
            [CompletionResult]::new('promote', 'promote', [CompletionResultType]::ParameterValue, 'Make a learner a voter, once it has caught up with the leader')
            [CompletionResult]::new('remove', 'remove', [CompletionResultType]::ParameterValue, 'Remove a member (by name, or by hex id for one that never started)')
            break
        }
        'kubectl-etcd;help;member;list' {
            break
        }
        'kubectl-etcd;help;member;add' {
            break
        }
        'kubectl-etcd;help;member;promote' {
            break
        }
        'kubectl-etcd;help;member;remove' {
            break
        }
        'kubectl-etcd;help;defrag' {
            break
        }
        'kubectl-etcd;help;alarm' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'Every raised alarm, with the member''s name and id')
            [CompletionResult]::new('disarm', 'disarm', [CompletionResultType]::ParameterValue, 'Disarm NOSPACE on members back under their quota. CORRUPT and members still over quota need --force (CORRUPT also a typed confirmation)')
            break
        }
        'kubectl-etcd;help;alarm;list' {
            break
        }
        'kubectl-etcd;help;alarm;disarm' {
            break
        }
        'kubectl-etcd;help;move-leader' {
            break
        }
        'kubectl-etcd;help;compact' {
            break
        }
        'kubectl-etcd;help;usage' {
            break
        }
        'kubectl-etcd;help;snapshot' {
            [CompletionResult]::new('save', 'save', [CompletionResultType]::ParameterValue, 'Stream one member''s backend into FILE, check it and print its SHA-256')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'The hash, revision, key count and size of a saved snapshot (the figures `etcdutl snapshot status` prints), read here without etcdutl, and whether the checksum etcd appended still matches')
            [CompletionResult]::new('usage', 'usage', [CompletionResultType]::ParameterValue, 'Which key prefixes hold a saved snapshot''s space: live keys and bytes per prefix, and the history each still keeps (older revisions and deletions: what a compaction at the snapshot''s revision would drop), with the free pages a defrag would return. Read offline, so the heavy analysis never touches a running member')
            break
        }
        'kubectl-etcd;help;snapshot;save' {
            break
        }
        'kubectl-etcd;help;snapshot;status' {
            break
        }
        'kubectl-etcd;help;snapshot;usage' {
            break
        }
        'kubectl-etcd;help;traffic' {
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'The Service''s value, the managers that own it, the EtcdCluster annotation, and which values this API server release keeps')
            [CompletionResult]::new('set', 'set', [CompletionResultType]::ParameterValue, 'Annotate the EtcdCluster and apply VALUE to the client Service, then read it back. The server is asked first with a dry run: a value it rejects (422) or accepts and drops (servers before 1.31) is an error (exit 1) that writes nothing. If the real apply fails, the annotation is put back and nothing is left owned by the field manager')
            [CompletionResult]::new('clear', 'clear', [CompletionResultType]::ParameterValue, 'Remove the annotation and release the field manager''s ownership. The value stays if another manager also owns it; a value set by hand is left alone')
            break
        }
        'kubectl-etcd;help;traffic;show' {
            break
        }
        'kubectl-etcd;help;traffic;set' {
            break
        }
        'kubectl-etcd;help;traffic;clear' {
            break
        }
        'kubectl-etcd;help;completion' {
            break
        }
        'kubectl-etcd;help;version' {
            break
        }
        'kubectl-etcd;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
