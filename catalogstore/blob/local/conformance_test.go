package local_test

import (
	"testing"

	"github.com/lakesql/lakesql/catalogstore/blob"
	"github.com/lakesql/lakesql/catalogstore/blob/blobtest"
	"github.com/lakesql/lakesql/catalogstore/blob/local"
)

func TestConformance(t *testing.T) {
	blobtest.Run(t, func(t *testing.T) blob.Store {
		s, err := local.Open(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}
