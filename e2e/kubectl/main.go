// kubectl from its published module, at the version of the local control plane, for the tests that drive
// the platform as a GitOps tool does (`kubectl apply --server-side`, `kubectl diff`).
package main

import (
	"os"

	"k8s.io/component-base/cli"
	"k8s.io/kubectl/pkg/cmd"
)

func main() {
	os.Exit(cli.Run(cmd.NewDefaultKubectlCommand()))
}
