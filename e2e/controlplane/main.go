// Command cw-controlplane is the real local Kubernetes control plane used by `make dev` and the end-to-end
// tests: an embedded etcd and a kube-apiserver in one process, plus kube-controller-manager's
// garbage-collector and namespace controllers in a child process of the same binary.
//
// The controller manager runs as a child rather than a goroutine because kube-apiserver and
// kube-controller-manager both own process-wide state (the signal handler, the global feature gates and the
// legacy metrics registry) that may only be set up once per process.
//
// Usage:
//
//	cw-controlplane --dir DIR [--port N] [--unsafe-no-fsync]
//	cw-controlplane controller-manager [kube-controller-manager flags]
//
// It writes DIR/kubeconfig (cluster-admin through a static token) and prints one line
// "cw-controlplane ready <kubeconfig>" once the apiserver answers /readyz.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "controller-manager" {
		os.Exit(runControllerManager(os.Args[2:]))
	}
	fs := flag.NewFlagSet("cw-controlplane", flag.ExitOnError)
	dir := fs.String("dir", "", "state directory (etcd data, PKI, kubeconfig); required")
	port := fs.Int("port", 0, "apiserver secure port on 127.0.0.1 (0 picks a free one)")
	noFsync := fs.Bool("unsafe-no-fsync", false, "skip etcd fsync (throwaway test clusters only)")
	_ = fs.Parse(os.Args[1:])
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "cw-controlplane: --dir is required")
		os.Exit(2)
	}
	abs, err := filepath.Abs(*dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "cw-controlplane:", err)
		os.Exit(2)
	}
	if err := run(abs, *port, *noFsync); err != nil {
		fmt.Fprintln(os.Stderr, "cw-controlplane:", err)
		os.Exit(1)
	}
}
