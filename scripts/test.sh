#!/usr/bin/env bash
# make test: every package, then the conformance suite verbosely so its
# per-file table and closing "N passed, N failed" line are printed.
set -euo pipefail
go=${GO:-go}
timeout=${TIMEOUT:-25m}
pkgs=$($go list ./... | grep -v '/conformance$')
$go test -count=1 -timeout "$timeout" $pkgs
# Readers lakesql did not write (iceberg-go, icebird), in their own module;
# -mod=mod lets it follow the main module's requirements as they change.
(cd interop && $go test -mod=mod -count=1 -timeout "$timeout" ./...)
$go test -count=1 -timeout "$timeout" -v ./conformance/ | grep -v -e '^=== RUN' -e '^=== PAUSE' -e '^=== CONT'
# bench/ is its own module (DuckDB's cgo): its tests include the TPC-H
# correctness check at SF 0.01 against DuckDB (about 75 s of test on a
# loaded 2-core machine, plus the first cgo build of DuckDB).
(cd bench && $go test -count=1 -timeout "$timeout" ./...)
