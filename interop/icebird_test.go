package interop

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// icebirdDir holds the npm package icebird, an independent JavaScript
// Iceberg reader, and the script that runs it (testdata/icebird/read.mjs).
const icebirdDir = "testdata/icebird"

// needIcebird installs icebird when missing. Without node or npm the test
// skips, except in CI, where it fails.
func needIcebird(t *testing.T) {
	t.Helper()
	missing := func(why string) {
		if os.Getenv("CI") == "true" {
			t.Fatalf("icebird interop test cannot run in CI: %s", why)
		}
		t.Skipf("skipping the icebird interop test: %s", why)
	}
	if _, err := exec.LookPath("node"); err != nil {
		missing("node is not installed")
	}
	if _, err := os.Stat(filepath.Join(icebirdDir, "node_modules", "icebird")); err == nil {
		return
	}
	if _, err := exec.LookPath("npm"); err != nil {
		missing("npm is not installed and icebird is not in " + icebirdDir)
	}
	out, err := exec.Command("bash", filepath.Join(icebirdDir, "install.sh")).CombinedOutput()
	if err != nil {
		missing(fmt.Sprintf("installing icebird: %v\n%s", err, out))
	}
}

// icebirdRows reads a table with icebird through version-hint.text, or a
// given metadata file, and renders its rows as canonical does. kinds says
// how to render each column: "int", "float" or "string".
func icebirdRows(t *testing.T, tableURL, metadataFile string, kinds map[string]string, order []string) rows {
	t.Helper()
	args := []string{"read.mjs", tableURL}
	if metadataFile != "" {
		args = append(args, metadataFile)
	}
	cmd := exec.Command("node", args...)
	cmd.Dir = icebirdDir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("icebird: %v\n%s", err, stderr.String())
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.UseNumber()
	var objs []map[string]any
	if err := dec.Decode(&objs); err != nil {
		t.Fatalf("icebird output: %v\n%s", err, out)
	}
	res := make(rows, 0, len(objs))
	for _, o := range objs {
		cells := make([]string, len(order))
		for i, col := range order {
			cells[i] = col + "=" + jsText(t, o[col], kinds[col])
		}
		res = append(res, strings.Join(cells, "|"))
	}
	sort.Strings(res)
	return res
}

func jsText(t *testing.T, v any, kind string) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case string: // strings, and 64-bit integers printed as text
		return x
	case json.Number:
		if kind == "float" {
			f, err := strconv.ParseFloat(string(x), 64)
			if err != nil {
				t.Fatalf("icebird float %q: %v", x, err)
			}
			return floatText(f, 64)
		}
		return string(x)
	}
	t.Fatalf("icebird returned %T %v", v, v)
	return ""
}

// TestIcebird_ReadsExportedTables: a JavaScript reader that shares no code
// with lakesql or iceberg-go reads a partitioned table after a DELETE and
// a compaction, and an older metadata version, exactly as lakesql does.
func TestIcebird_ReadsExportedTables(t *testing.T) {
	needIcebird(t)
	l := newLake(t)
	l.exec("CREATE DATABASE c",
		"CREATE TABLE c.t (id BIGINT, i INT, s VARCHAR(20), f DOUBLE) PARTITIONED BY (bucket(2, id))",
		"INSERT INTO c.t VALUES (1, 10, 'one', 1.5), (2, NULL, 'two', NULL), (3, -30, NULL, 0.1)",
		"INSERT INTO c.t VALUES (4, 40, 'four', -2.25), (5, 50, 'five', 1e10)")
	first := l.metadata("c.t")
	before := canonical(l.query("SELECT id, i, s, f FROM c.t"), nil)
	l.exec("DELETE FROM c.t WHERE id = 2", "UPDATE c.t SET s = 'FOUR' WHERE id = 4", "OPTIMIZE TABLE c.t",
		"INSERT INTO c.t VALUES (6, 60, 'six', 6)")
	l.metadata("c.t")

	tableURL := strings.TrimSuffix(first, "/metadata/"+filepath.Base(first))
	kinds := map[string]string{"id": "int", "i": "int", "s": "string", "f": "float"}
	order := []string{"id", "i", "s", "f"}
	equalRows(t, "icebird head", icebirdRows(t, tableURL, "", kinds, order), canonical(l.query("SELECT id, i, s, f FROM c.t"), nil))
	equalRows(t, "icebird older version", icebirdRows(t, tableURL, filepath.Base(first), kinds, order), before)
}
