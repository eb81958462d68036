// Command cw-controlplane is the real local Kubernetes control plane used by `make dev` and the end-to-end
// tests: an embedded etcd and a kube-apiserver in one process, plus kube-controller-manager's
// garbage-collector, namespace and resource-quota controllers in a child process of the same binary.
//
// With --node-address it serves a node (e2e/harness/kube-node.ts): every controller and the scheduler run
// too, and the same binary is the node's kubelet and kube-proxy, so they are always of the control plane's
// Kubernetes version.
//
// Components run as children rather than goroutines because each owns process-wide state (the signal
// handler, the global feature gates and the legacy metrics registry) that may only be set up once per
// process.
//
// Usage:
//
//	cw-controlplane --dir DIR [--port N] [--unsafe-no-fsync] [--node-address IP]
//	cw-controlplane controller-manager|scheduler|kubelet|kube-proxy [that component's flags]
//
// It writes DIR/kubeconfig (cluster-admin through a static token; with a node also kubelet.kubeconfig and
// kube-proxy.kubeconfig) and prints one line "cw-controlplane ready <kubeconfig>" once the apiserver answers
// /readyz.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	if len(os.Args) > 1 {
		if component, ok := components[os.Args[1]]; ok {
			os.Exit(runComponent(os.Args[1], component(), os.Args[2:]))
		}
	}
	fs := flag.NewFlagSet("cw-controlplane", flag.ExitOnError)
	dir := fs.String("dir", "", "state directory (etcd data, PKI, kubeconfig); required")
	port := fs.Int("port", 0, "apiserver secure port on 127.0.0.1 (0 picks a free one)")
	noFsync := fs.Bool("unsafe-no-fsync", false, "skip etcd fsync (throwaway test clusters only)")
	nodeAddress := fs.String("node-address", "", "serve a node: the apiserver listens on this local address, which pods reach")
	controllersAfter := fs.String("controllers-after", "", "start the controllers once this file exists (say ready before): CRDs installed meanwhile are known to the garbage collector from its start, not after its 30 s rediscovery")
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
	if err := run(abs, *port, *noFsync, *nodeAddress, *controllersAfter); err != nil {
		fmt.Fprintln(os.Stderr, "cw-controlplane:", err)
		os.Exit(1)
	}
}
