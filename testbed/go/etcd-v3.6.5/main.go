// Command etcd is the etcd server, built from its published Go module so the
// test bed can pin an exact release. It only hands over to etcdmain.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
