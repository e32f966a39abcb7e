package engine_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"database/sql"
	"math/big"
	"strings"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/lakesql/lakesql/engine"
)

// selfSigned returns a TLS certificate for 127.0.0.1.
func selfSigned(t *testing.T) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "lakesql-test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), DNSNames: []string{"localhost"}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// TestTLS_GuardedConnections: the wire guard sits under TLS (it follows
// TLS records there), so TLS clients are served as before, and a command
// over max_allowed_packet still gets 1153 (checked on the decrypted
// command) without being planned.
func TestTLS_GuardedConnections(t *testing.T) {
	e := openTestEngine(t)
	addr := wireServer(t, e, engine.ServerConfig{TLS: &tls.Config{Certificates: []tls.Certificate{selfSigned(t)}}, RequireTLS: true})
	if err := gomysql.RegisterTLSConfig("lakesql-test", &tls.Config{InsecureSkipVerify: true}); err != nil {
		t.Fatal(err)
	}
	cfg := gomysql.NewConfig()
	cfg.User, cfg.Net, cfg.Addr, cfg.TLSConfig = "root", "tcp", addr, "lakesql-test"
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	run := wire(t, db)
	if got, err := run("SELECT 1+1"); err != nil || strings.Join(got, ",") != "2" {
		t.Fatalf("over TLS: %v, %v", got, err)
	}
	if got, err := run("SELECT LENGTH('" + strings.Repeat("x", 3<<20) + "')"); err != nil || strings.Join(got, ",") != "3145728" {
		t.Fatalf("a 3 MiB command over TLS: %v, %v", got, err)
	}
	orig, err := run("SELECT @@global.max_allowed_packet")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := run("SET GLOBAL max_allowed_packet = 1048576"); err != nil {
		t.Fatal(err)
	}
	defer run("SET GLOBAL max_allowed_packet = " + orig[0])
	_, err = run("SELECT LENGTH('" + strings.Repeat("x", 2<<20) + "')")
	if code, msg := errCode(err); code != 1153 {
		t.Fatalf("a 2 MiB command with max_allowed_packet 1 MiB over TLS: %d %q (%v); want 1153", code, msg, err)
	}
}
