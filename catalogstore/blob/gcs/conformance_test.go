package gcs_test

import (
	"testing"

	"github.com/lakesql/lakesql/catalogstore/blob"
	"github.com/lakesql/lakesql/catalogstore/blob/blobtest"
	"github.com/lakesql/lakesql/catalogstore/blob/gcs"
)

func TestConformance(t *testing.T) {
	client := emulator(t)
	blobtest.Run(t, func(t *testing.T) blob.Store {
		return gcs.NewWithClient(client, testBucket, uniquePrefix(t))
	})
}
