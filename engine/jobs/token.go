package jobs

import (
	"context"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// TokenVerifier checks a task's bearer token: an RS256 JWT for Audience,
// signed by one of the keys, not expired (and from Issuer, when set).
type TokenVerifier struct {
	Audience string
	Issuer   string
	// Keys returns the public key for a token's kid (which may be empty).
	Keys func(ctx context.Context, kid string) (*rsa.PublicKey, error)
}

// Token errors, as the worker answers them.
var (
	// ErrUnauthenticated: no token, a malformed or forged one, or an
	// expired one (401).
	ErrUnauthenticated = errors.New("unauthenticated")
	// ErrForbidden: a valid token for another audience or issuer (403).
	ErrForbidden = errors.New("forbidden")
)

// Verify checks the Authorization header's bearer token.
func (v *TokenVerifier) Verify(ctx context.Context, header string) (*jwt.RegisteredClaims, error) {
	raw, ok := strings.CutPrefix(header, "Bearer ")
	if !ok || strings.TrimSpace(raw) == "" {
		return nil, fmt.Errorf("%w: no bearer token", ErrUnauthenticated)
	}
	if v.Audience == "" {
		return nil, fmt.Errorf("%w: the worker has no audience configured", ErrForbidden)
	}
	claims := &jwt.RegisteredClaims{}
	_, err := jwt.ParseWithClaims(strings.TrimSpace(raw), claims, func(t *jwt.Token) (any, error) {
		kid, _ := t.Header["kid"].(string)
		return v.Keys(ctx, kid)
	}, jwt.WithValidMethods([]string{"RS256"}), jwt.WithExpirationRequired(), jwt.WithLeeway(30*time.Second))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnauthenticated, err)
	}
	audOK := false
	for _, a := range claims.Audience {
		audOK = audOK || a == v.Audience
	}
	if !audOK {
		return nil, fmt.Errorf("%w: token audience %v is not %q", ErrForbidden, []string(claims.Audience), v.Audience)
	}
	if v.Issuer != "" && claims.Issuer != v.Issuer {
		return nil, fmt.Errorf("%w: token issuer %q is not %q", ErrForbidden, claims.Issuer, v.Issuer)
	}
	return claims, nil
}

// StaticKeys serves one public key whatever the kid.
func StaticKeys(k *rsa.PublicKey) func(context.Context, string) (*rsa.PublicKey, error) {
	return func(context.Context, string) (*rsa.PublicKey, error) { return k, nil }
}

// PublicKeyFromPEM parses an RSA public key (PKIX "PUBLIC KEY" or a
// certificate).
func PublicKeyFromPEM(b []byte) (*rsa.PublicKey, error) {
	if k, err := jwt.ParseRSAPublicKeyFromPEM(b); err == nil {
		return k, nil
	}
	blk, _ := pem.Decode(b)
	if blk == nil {
		return nil, errors.New("no PEM block")
	}
	cert, err := x509.ParseCertificate(blk.Bytes)
	if err != nil {
		return nil, err
	}
	k, ok := cert.PublicKey.(*rsa.PublicKey)
	if !ok {
		return nil, errors.New("the certificate's key is not RSA")
	}
	return k, nil
}

// JWKSKeys fetches signing keys from a JSON Web Key Set URL (for Google's
// OIDC tokens: https://www.googleapis.com/oauth2/v3/certs), caching them
// for an hour and refetching on an unknown kid.
func JWKSKeys(url string, client *http.Client) func(context.Context, string) (*rsa.PublicKey, error) {
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Second}
	}
	var mu sync.Mutex
	var keys map[string]*rsa.PublicKey
	var fetched time.Time
	fetch := func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("fetch %s: %s", url, resp.Status)
		}
		var set struct {
			Keys []struct {
				Kid, Kty, N, E string
			} `json:"keys"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&set); err != nil {
			return fmt.Errorf("fetch %s: %w", url, err)
		}
		m := map[string]*rsa.PublicKey{}
		for _, k := range set.Keys {
			if k.Kty != "RSA" {
				continue
			}
			n, err1 := base64.RawURLEncoding.DecodeString(k.N)
			e, err2 := base64.RawURLEncoding.DecodeString(k.E)
			if err1 != nil || err2 != nil {
				continue
			}
			m[k.Kid] = &rsa.PublicKey{N: new(big.Int).SetBytes(n), E: int(new(big.Int).SetBytes(e).Int64())}
		}
		keys, fetched = m, time.Now()
		return nil
	}
	return func(ctx context.Context, kid string) (*rsa.PublicKey, error) {
		mu.Lock()
		defer mu.Unlock()
		if k, ok := keys[kid]; ok && time.Since(fetched) < time.Hour {
			return k, nil
		}
		if err := fetch(ctx); err != nil {
			return nil, err
		}
		if k, ok := keys[kid]; ok {
			return k, nil
		}
		return nil, fmt.Errorf("no key %q in %s", kid, url)
	}
}
