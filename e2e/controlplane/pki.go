package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// pki holds the paths of the credentials the apiserver is started with. They are created once per state
// directory and reused on restart, so a kubeconfig written earlier stays valid.
type pki struct {
	caCert, serverCert, serverKey, saKey, saPub, tokenFile string
	adminToken                                             string
	// Set only for a cluster with a node: the client certificate the apiserver shows kubelets, and the
	// tokens of the kubelet and kube-proxy.
	kubeletClientCert, kubeletClientKey string
	nodeToken, proxyToken               string
}

// nodeName is the one node a local cluster can have.
const nodeName = "cw-node"

// ensurePKI creates the credentials once per directory. nodeAddress, when set, is also in the serving
// certificate (pods reach the apiserver there) and adds the node's credentials; a directory created without
// them is refused rather than re-issued, since the CA key is not kept.
func ensurePKI(dir, nodeAddress string) (*pki, error) {
	p := &pki{
		caCert:     filepath.Join(dir, "ca.crt"),
		serverCert: filepath.Join(dir, "apiserver.crt"),
		serverKey:  filepath.Join(dir, "apiserver.key"),
		saKey:      filepath.Join(dir, "sa.key"),
		saPub:      filepath.Join(dir, "sa.pub"),
		tokenFile:  filepath.Join(dir, "tokens.csv"),
	}
	if nodeAddress != "" {
		p.kubeletClientCert = filepath.Join(dir, "apiserver-kubelet-client.crt")
		p.kubeletClientKey = filepath.Join(dir, "apiserver-kubelet-client.key")
	}
	tokenPath := filepath.Join(dir, "admin-token")
	if raw, err := os.ReadFile(tokenPath); err == nil {
		p.adminToken = string(raw)
		if nodeAddress != "" {
			if err := p.checkServes(nodeAddress); err != nil {
				return nil, err
			}
			return p, p.readNodeTokens(dir)
		}
		return p, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	caKey, caCert, err := newCA()
	if err != nil {
		return nil, err
	}
	srvKey, srvDER, err := newLeafCert(caKey, caCert, servingTemplate(nodeAddress))
	if err != nil {
		return nil, err
	}
	saKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, err
	}
	p.adminToken = randomToken()
	tokens := fmt.Sprintf("%s,cluster-admin,cluster-admin,\"system:masters\"\n", p.adminToken)
	type file struct {
		path string
		data []byte
	}
	writes := []file{
		{p.caCert, pemBlock("CERTIFICATE", caCert.Raw)},
		{p.serverCert, pemBlock("CERTIFICATE", srvDER)},
		{p.serverKey, mustPKCS8(srvKey)},
		{p.saKey, mustPKCS8(saKey)},
		{p.saPub, mustPKIX(&saKey.PublicKey)},
	}
	if nodeAddress != "" {
		clientKey, clientDER, err := newLeafCert(caKey, caCert, kubeletClientTemplate())
		if err != nil {
			return nil, err
		}
		p.nodeToken, p.proxyToken = randomToken(), randomToken()
		tokens += fmt.Sprintf("%s,system:node:%s,system:node:%s,\"system:nodes\"\n", p.nodeToken, nodeName, nodeName)
		tokens += fmt.Sprintf("%s,system:kube-proxy,system:kube-proxy\n", p.proxyToken)
		writes = append(writes,
			file{p.kubeletClientCert, pemBlock("CERTIFICATE", clientDER)},
			file{p.kubeletClientKey, mustPKCS8(clientKey)},
			file{filepath.Join(dir, "node-token"), []byte(p.nodeToken)},
			file{filepath.Join(dir, "proxy-token"), []byte(p.proxyToken)},
		)
	}
	writes = append(writes,
		file{p.tokenFile, []byte(tokens)},
		// Written last: its presence marks a complete PKI.
		file{tokenPath, []byte(p.adminToken)},
	)
	for _, w := range writes {
		if err := os.WriteFile(w.path, w.data, 0o600); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func newCA() (*ecdsa.PrivateKey, *x509.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "cloudwright-local-ca"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().AddDate(10, 0, 0),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, err
	}
	cert, err := x509.ParseCertificate(der)
	return key, cert, err
}

// checkServes refuses a directory whose serving certificate was made for another node address: pods would
// fail TLS against it with nothing saying why.
func (p *pki) checkServes(nodeAddress string) error {
	raw, err := os.ReadFile(p.serverCert)
	if err != nil {
		return err
	}
	block, _ := pem.Decode(raw)
	if block == nil {
		return fmt.Errorf("%s holds no certificate", p.serverCert)
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		return err
	}
	if cert.VerifyHostname(nodeAddress) != nil {
		return fmt.Errorf("%s was created for another node address than %s; start with a new --dir", filepath.Dir(p.serverCert), nodeAddress)
	}
	return nil
}

// readNodeTokens loads the node's tokens from a directory made for a node, or says how to get one.
func (p *pki) readNodeTokens(dir string) error {
	node, err := os.ReadFile(filepath.Join(dir, "node-token"))
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%s was created for a cluster without a node; start with a new --dir", dir)
	} else if err != nil {
		return err
	}
	proxy, err := os.ReadFile(filepath.Join(dir, "proxy-token"))
	if err != nil {
		return err
	}
	p.nodeToken, p.proxyToken = string(node), string(proxy)
	return nil
}

func servingTemplate(nodeAddress string) *x509.Certificate {
	ips := []net.IP{net.ParseIP("127.0.0.1"), net.ParseIP("::1"), net.ParseIP(serviceIP)}
	if nodeAddress != "" {
		ips = append(ips, net.ParseIP(nodeAddress))
	}
	return &x509.Certificate{
		SerialNumber: big.NewInt(2),
		Subject:      pkix.Name{CommonName: "kube-apiserver"},
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:     []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc.cluster.local"},
		IPAddresses:  ips,
	}
}

// kubeletClientTemplate is the identity the apiserver shows a kubelet for logs, exec and port-forward.
func kubeletClientTemplate() *x509.Certificate {
	return &x509.Certificate{
		SerialNumber: big.NewInt(3),
		Subject:      pkix.Name{CommonName: "kube-apiserver-kubelet-client", Organization: []string{"system:masters"}},
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
}

func newLeafCert(caKey *ecdsa.PrivateKey, ca *x509.Certificate, tmpl *x509.Certificate) (*ecdsa.PrivateKey, []byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	tmpl.NotBefore = time.Now().Add(-time.Hour)
	tmpl.NotAfter = time.Now().AddDate(10, 0, 0)
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	return key, der, err
}

func randomToken() string {
	token := make([]byte, 32)
	if _, err := rand.Read(token); err != nil {
		panic(err)
	}
	return hex.EncodeToString(token)
}

func pemBlock(kind string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der})
}

func mustPKCS8(key any) []byte {
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		panic(err)
	}
	return pemBlock("PRIVATE KEY", der)
}

func mustPKIX(key any) []byte {
	der, err := x509.MarshalPKIXPublicKey(key)
	if err != nil {
		panic(err)
	}
	return pemBlock("PUBLIC KEY", der)
}
