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
	"syscall"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	apiserver "k8s.io/kubernetes/cmd/kube-apiserver/app"
)

func run(dir string, port int, noFsync bool) error {
	creds, err := ensurePKI(filepath.Join(dir, "pki"))
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

	kubeconfig := filepath.Join(dir, "kubeconfig")
	server := fmt.Sprintf("https://127.0.0.1:%d", port)
	if err := writeKubeconfig(kubeconfig, server, creds); err != nil {
		return err
	}

	cmd := apiserver.NewAPIServerCommand()
	cmd.SetArgs(apiserverArgs(port, etcdURL, creds))
	apiDone := make(chan error, 1)
	go func() { apiDone <- cmd.Execute() }()

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := waitReady(ctx, server, creds, apiDone); err != nil {
		return err
	}
	kcm, err := startControllerManager(kubeconfig, filepath.Join(dir, "controller-manager.log"))
	if err != nil {
		return err
	}
	fmt.Printf("cw-controlplane ready %s\n", kubeconfig)

	// The apiserver command owns the SIGTERM/SIGINT handler and drains on its own; we only watch the same
	// signals to stop the controller manager first, so it does not hold watches open on a draining server.
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
	kcmDone := make(chan struct{})
	go func() { _, _ = kcm.Process.Wait(); close(kcmDone) }()
	select {
	case <-signals:
	case err = <-apiDone:
		apiDone <- err
	}
	stopChild(kcm, kcmDone)
	return <-apiDone
}

// stopChild asks the controller manager to stop and kills it if it has not within a few seconds: it holds
// no state of its own, so nothing is lost.
func stopChild(cmd *exec.Cmd, done <-chan struct{}) {
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(3 * time.Second):
		_ = cmd.Process.Kill()
		<-done
	}
}

func apiserverArgs(port int, etcdURL string, p *pki) []string {
	return []string{
		"--etcd-servers=" + etcdURL,
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(port),
		"--tls-cert-file=" + p.serverCert,
		"--tls-private-key-file=" + p.serverKey,
		"--client-ca-file=" + p.caCert,
		"--token-auth-file=" + p.tokenFile,
		"--authorization-mode=RBAC",
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file=" + p.saPub,
		"--service-account-signing-key-file=" + p.saKey,
		"--service-cluster-ip-range=10.96.0.0/16",
		// There is no node or pod network: the kubernetes Service endpoints would point at loopback,
		// which endpoint validation rejects.
		"--endpoint-reconciler-type=none",
		"--shutdown-delay-duration=0s",
		"--profiling=false",
		"--v=0",
	}
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

func writeKubeconfig(path, server string, p *pki) error {
	caPEM, err := os.ReadFile(p.caCert)
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
- name: cluster-admin
  user:
    token: %s
contexts:
- name: cloudwright-local
  context:
    cluster: cloudwright-local
    user: cluster-admin
current-context: cloudwright-local
`, server, base64.StdEncoding.EncodeToString(caPEM), p.adminToken)
	return os.WriteFile(path, []byte(content), 0o600)
}

// startControllerManager re-executes this binary as the controller manager. Pdeathsig ends it with us even
// when we are killed without a chance to clean up.
func startControllerManager(kubeconfig, logPath string) (*exec.Cmd, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self, "controller-manager",
		"--kubeconfig="+kubeconfig,
		"--controllers=garbagecollector,namespace",
		"--leader-elect=false",
		"--secure-port=0",
		"--use-service-account-credentials=false",
		"--v=0",
	)
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return cmd, nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
