package main

import (
	"context"
	"crypto/rsa"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/lakesql/lakesql/engine"
	"github.com/lakesql/lakesql/engine/jobs"
)

func newWorkerCmd(g *globalFlags, stdout, stderr io.Writer) *cobra.Command {
	var listen, audience, issuer, publicKey, jwks string
	cmd := &cobra.Command{
		Use:   "worker",
		Short: "Run materialized-view refresh jobs",
		Long: `worker runs the refresh jobs that commits on materialized-view sources write
(jobs/{execution-id} documents).

Without --listen it runs every pending job, oldest first, and exits.

With --listen it is the HTTP task target of LAKESQL_JOBS=http (the production
queue, Cloud-Tasks style): each POST carries {"execution_id": ...} and an
"Authorization: Bearer" JWT, RS256, for --audience, verified against
--public-key (PEM) or --jwks (a JSON Web Key Set URL, e.g. Google's
https://www.googleapis.com/oauth2/v3/certs for Cloud Tasks OIDC tokens).
A missing, forged or expired token is answered 401, another audience 403.
The refresh runs as the author of the commit that fired it.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			var verifier *jobs.TokenVerifier
			if listen != "" {
				v, err := workerVerifier(audience, issuer, publicKey, jwks)
				if err != nil {
					return err
				}
				verifier = v
			}
			e, err := g.open(ctx, stderr)
			if err != nil {
				return err
			}
			defer e.Close()
			if listen == "" {
				n, err := e.DrainJobs(ctx)
				fmt.Fprintf(stdout, "ran %d refresh jobs\n", n)
				return err
			}
			return serveWorker(ctx, e, verifier, listen, stderr)
		},
	}
	f := cmd.Flags()
	f.StringVar(&listen, "listen", "", "serve HTTP tasks on this address (host:port) instead of draining pending jobs")
	f.StringVar(&audience, "audience", os.Getenv("LAKESQL_TASKS_AUDIENCE"), "the audience task tokens must carry (with --listen)")
	f.StringVar(&issuer, "issuer", os.Getenv("LAKESQL_TASKS_ISSUER"), "the issuer task tokens must carry (optional)")
	f.StringVar(&publicKey, "public-key", os.Getenv("LAKESQL_TASKS_PUBLIC_KEY_FILE"), "PEM file of the RSA key that signs task tokens")
	f.StringVar(&jwks, "jwks", os.Getenv("LAKESQL_TASKS_JWKS"), "JSON Web Key Set URL of the keys that sign task tokens")
	return cmd
}

func workerVerifier(audience, issuer, publicKey, jwks string) (*jobs.TokenVerifier, error) {
	if audience == "" {
		return nil, errors.New("worker --listen needs --audience (or LAKESQL_TASKS_AUDIENCE)")
	}
	v := &jobs.TokenVerifier{Audience: audience, Issuer: issuer}
	switch {
	case publicKey != "" && jwks != "":
		return nil, errors.New("worker: give --public-key or --jwks, not both")
	case publicKey != "":
		b, err := os.ReadFile(publicKey)
		if err != nil {
			return nil, fmt.Errorf("--public-key: %w", err)
		}
		var k *rsa.PublicKey
		if k, err = jobs.PublicKeyFromPEM(b); err != nil {
			return nil, fmt.Errorf("--public-key %s: %w", publicKey, err)
		}
		v.Keys = jobs.StaticKeys(k)
	case jwks != "":
		v.Keys = jobs.JWKSKeys(jwks, nil)
	default:
		return nil, errors.New("worker --listen needs --public-key or --jwks to verify task tokens")
	}
	return v, nil
}

func serveWorker(ctx context.Context, e *engine.Engine, v *jobs.TokenVerifier, addr string, stderr io.Writer) error {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("worker: listen on %s: %w", addr, err)
	}
	wk := e.NewWorker(v)
	srv := &http.Server{Handler: wk, ReadHeaderTimeout: 10 * time.Second}
	log := slog.New(slog.NewTextHandler(stderr, nil))
	log.Info("lakesql worker serving", "addr", l.Addr().String(), "audience", v.Audience)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(l) }()
	select {
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
		wk.Wait()
		return nil
	case err := <-done:
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return err
	}
}
