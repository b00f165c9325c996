// Command coredns is the cluster DNS of the test bed's real node: CoreDNS
// (github.com/coredns/coredns, from its Go module) with only the plugins
// the node needs compiled in — errors, kubernetes (Service and Pod names
// of the cluster) and whoami-free defaults — so the build stays small.
// It runs as a process in the node's network namespace, not as a Pod, so
// no image and no pull are involved.
package main

import (
	"github.com/coredns/coredns/core/dnsserver"
	"github.com/coredns/coredns/coremain"

	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/kubernetes"
)

func init() {
	// The order plugins run in; only these are known to the Corefile.
	dnsserver.Directives = []string{"errors", "kubernetes"}
}

func main() {
	coremain.Run()
}
