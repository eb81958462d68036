package main

import (
	"fmt"
	"os"

	kcm "k8s.io/kubernetes/cmd/kube-controller-manager/app"
)

// runControllerManager runs kube-controller-manager with the given flags in this process.
func runControllerManager(args []string) int {
	cmd := kcm.NewControllerManagerCommand()
	cmd.SetArgs(args)
	if err := cmd.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "controller-manager:", err)
		return 1
	}
	return 0
}
