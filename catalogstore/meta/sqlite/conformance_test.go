package sqlite

import (
	"path/filepath"
	"testing"

	"github.com/lakesql/lakesql/catalogstore/meta"
	"github.com/lakesql/lakesql/catalogstore/meta/metatest"
)

func TestConformance(t *testing.T) {
	metatest.Run(t, func(t *testing.T) meta.Store {
		s, err := Open(t.Context(), filepath.Join(t.TempDir(), "meta.db"))
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}
