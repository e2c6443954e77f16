package harness

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// keyPair is a certificate and its key, as PEM.
type keyPair struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	der  []byte
}

func (k keyPair) certPEM() []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: k.der})
}

func (k keyPair) keyPEM() []byte {
	b, err := x509.MarshalECPrivateKey(k.key)
	if err != nil {
		panic(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: b})
}

// write puts the pair in dir as NAME.crt and NAME.key (mode 0600 for the key).
func (k keyPair) write(dir, crt, key string) error {
	if err := os.WriteFile(filepath.Join(dir, crt), k.certPEM(), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, key), k.keyPEM(), 0o600)
}

var serial int64 = 1

// newPair makes a P-256 key and a certificate for it, signed by ca (self-signed when ca is nil).
// Valid for a day: each run makes new ones.
func newPair(ca *keyPair, subject pkix.Name, isCA bool, usage []x509.ExtKeyUsage, dns []string, ips []net.IP) keyPair {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		panic(err)
	}
	serial++
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(serial),
		Subject:               subject,
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           usage,
		BasicConstraintsValid: true,
		IsCA:                  isCA,
		DNSNames:              dns,
		IPAddresses:           ips,
	}
	if isCA {
		tmpl.KeyUsage |= x509.KeyUsageCertSign
	}
	parent, signer := tmpl, key
	if ca != nil {
		parent, signer = ca.cert, ca.key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, signer)
	if err != nil {
		panic(err)
	}
	cert, _ := x509.ParseCertificate(der)
	return keyPair{cert: cert, key: key, der: der}
}

// loopbackIPs are the addresses every serving certificate names: the harness may serve on
// any of 127.0.0.1-3.
var loopbackIPs = []net.IP{net.ParseIP("127.0.0.1"), net.ParseIP("127.0.0.2"), net.ParseIP("127.0.0.3")}

func serving(ca *keyPair, cn string, dns ...string) keyPair {
	return newPair(ca, pkix.Name{CommonName: cn}, false,
		[]x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, append([]string{"localhost"}, dns...), loopbackIPs)
}

func client(ca *keyPair, cn string, groups ...string) keyPair {
	return newPair(ca, pkix.Name{CommonName: cn, Organization: groups}, false,
		[]x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}, nil, nil)
}
