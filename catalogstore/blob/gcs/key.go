package gcs

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/lakesql/lakesql/catalogstore/blob"
)

// The key rules are those of blob/local, so a key valid in one backend is
// valid in the other: tmpDir is reserved there, and is here too.
const tmpDir = ".tmp"

// maxKeyLen is GCS's limit on object names; prefix and key together must
// fit, which Put leaves to GCS to check.
const maxKeyLen = 1024

// checkKey returns a blob.ErrBadKey error unless key is a clean relative
// slash path outside the reserved tmpDir.
func checkKey(key string) error {
	if reason := keyProblem(key); reason != "" {
		return fmt.Errorf("%w %q: %s", blob.ErrBadKey, key, reason)
	}
	return nil
}

func keyProblem(key string) string {
	switch {
	case key == "":
		return "empty"
	case len(key) > maxKeyLen:
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
		case tmpDir:
			if i == 0 {
				return "under the reserved " + tmpDir + "/ folder"
			}
		}
	}
	return ""
}
