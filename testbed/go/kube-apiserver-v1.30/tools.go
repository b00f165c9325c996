//go:build tools

// Package tools pins kube-apiserver v1.30 for the test bed: a release older
// than 1.31, where spec.trafficDistribution is alpha and off by default, so
// the server accepts the field and silently drops it.
package tools

import _ "k8s.io/kubernetes/cmd/kube-apiserver"
