package main

import (
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/spf13/cobra"

	"github.com/lakesql/lakesql/engine"
)

func newServeCmd(g *globalFlags, stderr io.Writer) *cobra.Command {
	var addr, certFile, keyFile, icebergAddr string
	var requireTLS, auth, readOnly bool
	var maxConns uint64
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the warehouse over the MySQL wire protocol",
		Long: `serve runs a MySQL-wire server on the warehouse. Connect with any MySQL
client, for example: mysql -h 127.0.0.1 -P 3306 -u root

Lakehouse statements (CREATE WORKSPACE, ...) work over the text protocol;
server-side prepared statements cannot carry them (a vitess limit).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if g.logLevel == "warn" {
				g.logLevel = "info"
			}
			g.auth, g.readOnly = auth, readOnly
			e, err := g.open(cmd.Context(), stderr)
			if err != nil {
				return err
			}
			defer e.Close()
			sc := engine.ServerConfig{Addr: addr, RequireTLS: requireTLS, MaxConnections: maxConns}
			if certFile != "" {
				cert, err := tls.LoadX509KeyPair(certFile, keyFile)
				if err != nil {
					return fmt.Errorf("load TLS key pair: %w", err)
				}
				sc.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
			}
			srv, err := e.NewServer(sc)
			if err != nil {
				return err
			}
			log := slog.New(slog.NewTextHandler(stderr, nil))
			log.Info("lakesql serving", "addr", srv.Addr().String(), "warehouse", g.warehouse, "workspace", e.Workspace())
			done := make(chan error, 2)
			go func() { done <- srv.Start() }()
			if icebergAddr != "" {
				stop, err := serveIcebergREST(e, icebergAddr, sc.TLS, log, done)
				if err != nil {
					srv.Close()
					<-done
					return err
				}
				defer stop()
			}
			select {
			case <-cmd.Context().Done():
				log.Info("lakesql shutting down")
				srv.Close()
				<-done
				return nil
			case err := <-done:
				return err
			}
		},
	}
	f := cmd.Flags()
	f.StringVar(&addr, "addr", "127.0.0.1:3306", "address to listen on")
	f.StringVar(&certFile, "tls-cert", "", "TLS certificate file (PEM)")
	f.StringVar(&keyFile, "tls-key", "", "TLS key file (PEM)")
	f.BoolVar(&requireTLS, "require-tls", false, "refuse connections without TLS")
	f.BoolVar(&auth, "auth", false, "require MySQL users (bootstrap root with $LAKESQL_ROOT_PASSWORD); without it root has no password")
	f.BoolVar(&readOnly, "read-only", false, "refuse every write")
	f.Uint64Var(&maxConns, "max-connections", 0, "maximum concurrent connections (0: unlimited)")
	f.StringVar(&icebergAddr, "iceberg-rest", "", "also serve a read-only Iceberg REST catalog on this address (for example 127.0.0.1:8181)")
	return cmd
}

// serveIcebergREST serves the read-only Iceberg REST catalog on addr (with
// the server's TLS configuration, if any) until stop is called; a failure
// to serve is sent on done.
func serveIcebergREST(e *engine.Engine, addr string, tlsCfg *tls.Config, log *slog.Logger, done chan<- error) (stop func(), err error) {
	h, err := e.IcebergRESTHandler(log)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("iceberg rest: %w", err)
	}
	hs := &http.Server{Handler: h, TLSConfig: tlsCfg, ReadHeaderTimeout: 10 * time.Second}
	log.Info("lakesql serving an Iceberg REST catalog", "addr", ln.Addr().String())
	go func() {
		var err error
		if tlsCfg != nil {
			err = hs.ServeTLS(ln, "", "")
		} else {
			err = hs.Serve(ln)
		}
		if !errors.Is(err, http.ErrServerClosed) {
			done <- fmt.Errorf("iceberg rest: %w", err)
		}
	}()
	return func() { _ = hs.Close() }, nil
}
