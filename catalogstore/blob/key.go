package blob

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// One set of key rules for every backend, so a key valid in one is valid
// in all (like io/fs.ValidPath for file systems).

// ReservedDir is reserved in every backend: no key may start with it. The
// local backend keeps Put's temporary files there.
const ReservedDir = ".tmp"

// MaxKeyLen is GCS's limit on object names, applied everywhere; with a
// backend prefix the full name may be longer, which GCS checks itself.
const MaxKeyLen = 1024

// CheckKey returns an ErrBadKey error unless key is a clean relative slash
// path outside ReservedDir.
func CheckKey(key string) error {
	if reason := KeyProblem(key); reason != "" {
		return fmt.Errorf("%w %q: %s", ErrBadKey, key, reason)
	}
	return nil
}

// KeyProblem says what CheckKey refuses in key, or "" (for messages about
// keys that are parts of something else, such as a URI's prefix).
func KeyProblem(key string) string {
	switch {
	case key == "":
		return "empty"
	case len(key) > MaxKeyLen:
		return "longer than 1024 bytes"
	case !utf8.ValidString(key):
		return "not UTF-8"
	case strings.HasPrefix(key, "/"):
		return "absolute"
	}
	for i := 0; i < len(key); i++ {
		if c := key[i]; c < 0x20 || c == 0x7f || c == '\\' {
			return "control character or backslash"
		}
	}
	for i, seg := range strings.Split(key, "/") {
		switch seg {
		case "":
			return "empty path segment"
		case ".", "..":
			return "\".\" or \"..\" path segment"
		case ReservedDir:
			if i == 0 {
				return "under the reserved " + ReservedDir + "/ folder"
			}
		}
	}
	return ""
}
