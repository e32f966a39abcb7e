package manifest

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"testing"
)

// withChecksums is sampleFiles with data file checksums recorded on some
// entries (an empty part list and a missing one included).
func withChecksums() []DataFile {
	files := sampleFiles()
	files[0].Checksum = FileChecksum(0xdeadbeef)
	files[0].PartChecksums = []uint32{1, 0xffffffff, 3}
	files[1].PartChecksums = []uint32{}
	files[2].Checksum = FileChecksum(0)
	return files
}

func TestChecksums_RoundTrip(t *testing.T) {
	ctx := context.Background()
	st := newMemStore()
	if _, err := Write(ctx, st, "m", withChecksums()); err != nil {
		t.Fatal(err)
	}
	got, err := Read(ctx, st, "m")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, withChecksums()) {
		t.Fatalf("read back\n%+v\nwant\n%+v", got, withChecksums())
	}
	// A projected decode (the planner's) still carries them: every read of
	// a data file verifies its parts.
	got, err = ReadWith(ctx, st, "m", DecodeOptions{Parts: PlanParts, FieldIDs: []int{1}})
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Checksum != "crc32c:deadbeef" || !reflect.DeepEqual(got[0].PartChecksums, []uint32{1, 0xffffffff, 3}) {
		t.Fatalf("projected decode lost the checksums: %q %v", got[0].Checksum, got[0].PartChecksums)
	}
}

// TestChecksums_OldManifestsRead: manifests written before data file
// checksums (versions 1 and 2, 21 columns) still read, with nothing
// recorded.
func TestChecksums_OldManifestsRead(t *testing.T) {
	for _, name := range []string{"valid_small_manifest", "valid_v2_manifest"} {
		b, err := readSeed(filepath.Join("testdata", "fuzz", "FuzzRead", name))
		if err != nil {
			t.Fatal(err)
		}
		files, err := Decode(b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, f := range files {
			if f.Checksum != "" || f.PartChecksums != nil {
				t.Fatalf("%s: %s has checksums %q %v", name, f.Path, f.Checksum, f.PartChecksums)
			}
		}
	}
}

func TestChecksums_BadValueRefused(t *testing.T) {
	files := sampleFiles()
	files[0].Checksum = "md5:abc"
	if _, err := Encode(files); !errors.Is(err, ErrInvalid) {
		t.Fatalf("Encode with a malformed checksum = %v, want ErrInvalid", err)
	}
	for s, ok := range map[string]bool{"crc32c:0123abcd": true, "crc32c:0123ABCD": false, "crc32c:123": false, "": false} {
		if ValidChecksum(s) != ok {
			t.Errorf("ValidChecksum(%q) = %v", s, !ok)
		}
	}
}
