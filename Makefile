# lakesql — build, test, lint, demo, bench.
# The README gives the two commands a newcomer runs: `make demo` and `make test`.

GO      ?= go
PKGS    := ./...
TIMEOUT ?= 25m

.PHONY: all build test unit lint vet fmt demo demo-cloud run serve bench bench-iceberg conformance difftest enginetest fuzz clean

all: build

build:
	$(GO) build -o bin/lakesql ./cmd/lakesql

# Every test: unit tests, both metastore and object-store backends (the
# Firestore emulator and fake-gcs-server; see scripts/test-env.sh), SQL over
# the embedded engine and the MySQL wire, and the conformance scripts.
test: lint
	GO=$(GO) TIMEOUT=$(TIMEOUT) scripts/test-env.sh scripts/test.sh

# Unit tests only, without starting emulators (tests that need one skip).
unit:
	$(GO) test -count=1 $(PKGS)

lint: vet fmt

vet:
	$(GO) vet $(PKGS)

fmt:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

# Loads a TPC-H-shaped sample (scripts/demodata) into ./lake and shows joins,
# aggregates, time travel, a materialized view, EXPLAIN ANALYZE and compaction.
demo: build
	scripts/demo.sh

# The same demo on the production backends' emulators: the Firestore
# emulator and fake-gcs-server (see the README's "Production" section).
demo-cloud: build
	scripts/demo-cloud.sh

# The REPL on the embedded default warehouse (./lake).
run: build
	bin/lakesql

serve: build
	bin/lakesql serve

conformance:
	scripts/test-env.sh $(GO) test -count=1 -timeout $(TIMEOUT) -run TestConformance -v ./conformance/

# Differential run against a throwaway MariaDB (Debian mariadb-server):
# make difftest SEED=7 QUERIES=50000. make test runs the fixed seed with
# 2,500 queries.
SEED    ?= $(shell date +%s)
QUERIES ?= 20000
difftest:
	$(GO) test -count=1 -timeout $(TIMEOUT) -run 'TestDifferential$$' -v ./difftest/ \
		-difftest.seed=$(SEED) -difftest.queries=$(QUERIES)

fuzz:
	$(GO) test -run=NONE -fuzz=FuzzParse -fuzztime=30s ./ddl/
	$(GO) test -run=NONE -fuzz=FuzzRead -fuzztime=30s ./catalogstore/manifest/

# Benchmarks against DuckDB on the same Parquet files (bench/ is its own
# module, so DuckDB's cgo never enters the main build).
# `make bench` runs the TPC-H suite (BENCHFLAGS go to it) and then the
# Iceberg export benchmark (bench/results-iceberg.md).
bench:
	cd bench && $(GO) run . $(BENCHFLAGS)
	cd bench && $(GO) run . -suite iceberg

bench-iceberg:
	cd bench && $(GO) run . -suite iceberg

# GMS's own engine test suites on lakesql tables (conformance/gmssuite;
# also part of `make test`): every case passes or fails as
# conformance/gmssuite/testdata/skiplist.txt explains. Prints each suite's
# counts and its failures per reason.
enginetest:
	$(GO) test -count=1 -timeout $(TIMEOUT) -run 'TestSuites' -v ./conformance/gmssuite

clean:
	rm -rf bin
