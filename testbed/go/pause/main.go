// Command pause holds a Pod's namespaces for the test bed's node, as the
// Kubernetes pause container does: it sleeps until SIGINT or SIGTERM and
// reaps any child that is re-parented to it (when the Pod shares one
// process namespace). Built static, it is the only file of the test bed's
// sandbox image.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	signals := make(chan os.Signal, 8)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM, syscall.SIGCHLD)
	for s := range signals {
		if s == syscall.SIGCHLD {
			for {
				var status syscall.WaitStatus
				pid, err := syscall.Wait4(-1, &status, syscall.WNOHANG, nil)
				if pid <= 0 || err != nil {
					break
				}
			}
			continue
		}
		os.Exit(0)
	}
}
