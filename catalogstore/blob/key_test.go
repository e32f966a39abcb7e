package blob

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckKey(t *testing.T) {
	for _, ok := range []string{"a", "ws/c/t/data/x.parquet", "a/.tmp/b", "ä/ü", strings.Repeat("k", MaxKeyLen)} {
		if err := CheckKey(ok); err != nil {
			t.Errorf("CheckKey(%q) = %v", ok, err)
		}
	}
	for key, why := range map[string]string{
		"": "empty", "/a": "absolute", "a//b": "empty path segment", "a/../b": `".." path segment`,
		"./a": `"." or`, "a\\b": "backslash", "a\x00b": "control", "\xff": "UTF-8",
		".tmp/x": "reserved", strings.Repeat("k", MaxKeyLen+1): "1024",
	} {
		err := CheckKey(key)
		if !errors.Is(err, ErrBadKey) || !strings.Contains(err.Error(), why) || !strings.Contains(KeyProblem(key), why) {
			t.Errorf("CheckKey(%q) = %v, want ErrBadKey mentioning %q", key, err, why)
		}
	}
}
