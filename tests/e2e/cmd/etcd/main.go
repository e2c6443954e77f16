// etcd for the end-to-end control plane: upstream's own main, built at the version that the
// kube-apiserver's client was built against (go.mod's go.etcd.io/etcd/server/v3).
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
