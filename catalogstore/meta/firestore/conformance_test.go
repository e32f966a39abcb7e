package firestore

import (
	"os"
	"testing"

	"github.com/lakesql/lakesql/catalogstore/meta"
	"github.com/lakesql/lakesql/catalogstore/meta/metatest"
)

// needEmulator skips the test without a Firestore emulator, or fails it in
// CI, where one must run.
func needEmulator(t *testing.T) {
	t.Helper()
	if os.Getenv("FIRESTORE_EMULATOR_HOST") != "" {
		return
	}
	const msg = `FIRESTORE_EMULATOR_HOST not set: run eval "$(scripts/firestore-emulator.sh start)"`
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

func TestConformance(t *testing.T) {
	needEmulator(t)
	metatest.Run(t, func(t *testing.T) meta.Store {
		// A project of its own per subtest: every store starts empty.
		s, err := Open(t.Context(), "lakesql-test-"+metatest.UniqueName(), "")
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}
