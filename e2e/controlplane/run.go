package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	apiserver "k8s.io/kubernetes/cmd/kube-apiserver/app"
)

// The service range, and the apiserver's own address in it (the kubernetes Service).
const (
	serviceRange = "10.96.0.0/16"
	serviceIP    = "10.96.0.1"
)

// run starts the control plane. With a nodeAddress it serves a node: the apiserver listens there (pods
// reach it through the kubernetes Service), authorises kubelets, and the scheduler and every controller run.
// With controllersAfter it says ready once the apiserver is, and starts the controllers once that file exists.
func run(dir string, port int, noFsync bool, nodeAddress string, controllersAfter string) error {
	creds, err := ensurePKI(filepath.Join(dir, "pki"), nodeAddress)
	if err != nil {
		return fmt.Errorf("pki: %w", err)
	}
	if port == 0 {
		if port, err = freePort(); err != nil {
			return err
		}
	}
	etcd, etcdURL, err := startEtcd(filepath.Join(dir, "etcd"), noFsync)
	if err != nil {
		return fmt.Errorf("etcd: %w", err)
	}
	defer etcd.Close()

	host := "127.0.0.1"
	if nodeAddress != "" {
		host = nodeAddress
	}
	kubeconfig := filepath.Join(dir, "kubeconfig")
	server := fmt.Sprintf("https://%s", net.JoinHostPort(host, strconv.Itoa(port)))
	if err := writeKubeconfig(kubeconfig, server, creds.caCert, "cluster-admin", creds.adminToken); err != nil {
		return err
	}
	if nodeAddress != "" {
		if err := writeKubeconfig(filepath.Join(dir, "kubelet.kubeconfig"), server, creds.caCert, "system:node:"+nodeName, creds.nodeToken); err != nil {
			return err
		}
		if err := writeKubeconfig(filepath.Join(dir, "kube-proxy.kubeconfig"), server, creds.caCert, "system:kube-proxy", creds.proxyToken); err != nil {
			return err
		}
	}

	cmd := apiserver.NewAPIServerCommand()
	cmd.SetArgs(apiserverArgs(host, port, etcdURL, creds, nodeAddress != ""))
	apiDone := make(chan error, 1)
	go func() { apiDone <- cmd.Execute() }()

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := waitReady(ctx, server, creds, apiDone); err != nil {
		return err
	}
	children := []*child{}
	defer func() { stopAll(children) }()
	if controllersAfter != "" {
		fmt.Printf("cw-controlplane ready %s\n", kubeconfig)
		if err := waitForFile(controllersAfter, apiDone); err != nil {
			return err
		}
	}
	kcm, err := startChild(filepath.Join(dir, "controller-manager.log"), "controller-manager", controllerManagerArgs(kubeconfig, creds, nodeAddress != "")...)
	if err != nil {
		return err
	}
	children = append(children, kcm)
	if nodeAddress != "" {
		scheduler, err := startChild(filepath.Join(dir, "scheduler.log"), "scheduler",
			"--kubeconfig="+kubeconfig, "--leader-elect=false", "--secure-port=0", "--v=0")
		if err != nil {
			return err
		}
		children = append(children, scheduler)
	}
	if controllersAfter == "" {
		fmt.Printf("cw-controlplane ready %s\n", kubeconfig)
	}

	// The apiserver command owns the SIGTERM/SIGINT handler and drains on its own; we only watch the same
	// signals to stop the controllers first, so they do not hold watches open on a draining server.
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
	select {
	case <-signals:
	case err = <-apiDone:
		apiDone <- err
	}
	stopAll(children)
	children = nil
	return <-apiDone
}

func apiserverArgs(host string, port int, etcdURL string, p *pki, withNode bool) []string {
	args := []string{
		"--etcd-servers=" + etcdURL,
		"--bind-address=" + host,
		"--advertise-address=" + host,
		"--secure-port=" + strconv.Itoa(port),
		"--tls-cert-file=" + p.serverCert,
		"--tls-private-key-file=" + p.serverKey,
		"--client-ca-file=" + p.caCert,
		"--token-auth-file=" + p.tokenFile,
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file=" + p.saPub,
		"--service-account-signing-key-file=" + p.saKey,
		"--service-cluster-ip-range=" + serviceRange,
		"--shutdown-delay-duration=0s",
		"--profiling=false",
		"--v=0",
	}
	if !withNode {
		// Without a node there is no pod network: the kubernetes Service's endpoints would point at
		// loopback, which endpoint validation rejects.
		return append(args, "--authorization-mode=RBAC", "--endpoint-reconciler-type=none")
	}
	return append(args,
		"--authorization-mode=Node,RBAC",
		"--enable-admission-plugins=NodeRestriction",
		"--kubelet-client-certificate="+p.kubeletClientCert,
		"--kubelet-client-key="+p.kubeletClientKey,
		// The node's name is not in any DNS the apiserver asks.
		"--kubelet-preferred-address-types=InternalIP",
	)
}

// controllerManagerArgs runs only the garbage-collector, namespace and resource-quota controllers without a
// node (the platform's tests need no more: the quota controller computes each ResourceQuota's usage, without
// which the apiserver's quota admission enforces nothing); with a node, all of them, as a real cluster has.
func controllerManagerArgs(kubeconfig string, p *pki, withNode bool) []string {
	args := []string{
		"--kubeconfig=" + kubeconfig,
		"--leader-elect=false",
		"--secure-port=0",
		"--use-service-account-credentials=false",
		"--v=0",
	}
	// The quota controller learns of custom resources defined after it started (the platform's, installed
	// right after the control plane) up to 30 s later, and counts a quota written meanwhile only at its next
	// full pass; until then the apiserver refuses creates of those kinds ("status unknown for quota"). A
	// pass every 10 s instead of every 5 minutes keeps that short for tests and make dev.
	args = append(args, "--resource-quota-sync-period=10s")
	if !withNode {
		return append(args, "--controllers=garbagecollector,namespace,resourcequota")
	}
	return append(args,
		"--controllers=*",
		"--root-ca-file="+p.caCert,
		"--service-account-private-key-file="+p.saKey,
		"--service-cluster-ip-range="+serviceRange,
	)
}

func startEtcd(dir string, noFsync bool) (*embed.Etcd, string, error) {
	clientPort, err := freePort()
	if err != nil {
		return nil, "", err
	}
	peerPort, err := freePort()
	if err != nil {
		return nil, "", err
	}
	cfg := embed.NewConfig()
	cfg.Name = "cw"
	cfg.Dir = dir
	cfg.LogLevel = "error"
	cfg.UnsafeNoFsync = noFsync
	clientURL := url.URL{Scheme: "http", Host: fmt.Sprintf("127.0.0.1:%d", clientPort)}
	peerURL := url.URL{Scheme: "http", Host: fmt.Sprintf("127.0.0.1:%d", peerPort)}
	cfg.ListenClientUrls = []url.URL{clientURL}
	cfg.AdvertiseClientUrls = []url.URL{clientURL}
	cfg.ListenPeerUrls = []url.URL{peerURL}
	cfg.AdvertisePeerUrls = []url.URL{peerURL}
	cfg.InitialCluster = fmt.Sprintf("cw=%s", peerURL.String())
	// Ports are new on every start; the member's stored peer URL must not pin the old one.
	cfg.ForceNewCluster = true
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return nil, "", err
	}
	select {
	case <-e.Server.ReadyNotify():
		return e, clientURL.String(), nil
	case <-time.After(60 * time.Second):
		e.Close()
		return nil, "", fmt.Errorf("etcd did not become ready within 60s")
	}
}

func waitReady(ctx context.Context, server string, p *pki, apiDone <-chan error) error {
	caPEM, err := os.ReadFile(p.caCert)
	if err != nil {
		return err
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	client := &http.Client{
		Timeout:   2 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}},
	}
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, server+"/readyz", nil)
		req.Header.Set("Authorization", "Bearer "+p.adminToken)
		if resp, err := client.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case err := <-apiDone:
			return fmt.Errorf("kube-apiserver exited before ready: %v", err)
		case <-ctx.Done():
			return fmt.Errorf("kube-apiserver not ready: %w", ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func writeKubeconfig(path, server, caCert, user, token string) error {
	caPEM, err := os.ReadFile(caCert)
	if err != nil {
		return err
	}
	content := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: cloudwright-local
  cluster:
    server: %s
    certificate-authority-data: %s
users:
- name: %[3]s
  user:
    token: %[4]s
contexts:
- name: cloudwright-local
  context:
    cluster: cloudwright-local
    user: %[3]s
current-context: cloudwright-local
`, server, base64.StdEncoding.EncodeToString(caPEM), user, token)
	return os.WriteFile(path, []byte(content), 0o600)
}

// child is one of the control plane's components run as a child process of this binary (see main).
type child struct {
	cmd  *exec.Cmd
	done chan struct{}
}

// startChild re-executes this binary as a component. Pdeathsig ends it with us even when we are killed
// without a chance to clean up.
func startChild(logPath, component string, args ...string) (*child, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	defer logFile.Close()
	cmd := exec.Command(self, append([]string{component}, args...)...)
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := &child{cmd: cmd, done: make(chan struct{})}
	go func() { _, _ = cmd.Process.Wait(); close(c.done) }()
	return c, nil
}

// stopAll stops the components together, so the whole stop takes one grace period, not one each.
func stopAll(children []*child) {
	var wg sync.WaitGroup
	for _, c := range children {
		wg.Add(1)
		go func() { defer wg.Done(); c.stop() }()
	}
	wg.Wait()
}

// stop asks the component to stop and kills it if it has not within a few seconds: the controllers and
// the scheduler hold no state of their own, so nothing is lost.
func (c *child) stop() {
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.done:
	case <-time.After(3 * time.Second):
		_ = c.cmd.Process.Kill()
		<-c.done
	}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// waitForFile returns once path exists, or with the apiserver's error if it stops first (or a signal comes).
func waitForFile(path string, apiDone chan error) error {
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
	defer signal.Stop(signals)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		if _, err := os.Stat(path); err == nil {
			return nil
		}
		select {
		case err := <-apiDone:
			apiDone <- err
			return fmt.Errorf("the apiserver stopped before the controllers started: %v", err)
		case <-signals:
			return fmt.Errorf("stopped before the controllers started")
		case <-tick.C:
		}
	}
}
