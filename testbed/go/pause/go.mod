module kubectl-etcd.testbed/pause

go 1.24.0
