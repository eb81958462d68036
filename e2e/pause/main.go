// Command pause is the local node's pod sandbox image: the first process of every pod, which holds the
// pod's namespaces open, reaps the orphans its children leave, and exits on SIGINT or SIGTERM. Built here
// because no registry's pause image can be pulled on the machines this runs on.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	signals := make(chan os.Signal, 8)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM, syscall.SIGCHLD)
	for sig := range signals {
		if sig != syscall.SIGCHLD {
			os.Exit(0)
		}
		for {
			var status syscall.WaitStatus
			if pid, err := syscall.Wait4(-1, &status, syscall.WNOHANG, nil); pid <= 0 || err != nil {
				break
			}
		}
	}
}
