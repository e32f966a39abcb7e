#!/usr/bin/env bash
# make demo-cloud: the demo (scripts/demo.sh) on the production backends,
# emulated on this machine: the Firestore emulator as the metastore
# (scripts/firestore-emulator.sh; needs java and the Cloud SDK's emulator
# jar) and fake-gcs-server as GCS (built from the version go.mod pins).
# No credentials, no network. It stops what it started.
#
# The same flags and variables run lakesql against the emulators by hand:
#   export FIRESTORE_EMULATOR_HOST=127.0.0.1:8681 STORAGE_EMULATOR_HOST=127.0.0.1:4443
#   bin/lakesql --metastore firestore://lakesql-demo --storage gs://lakesql-demo/lake
#
# Settings (environment):
#   FIRESTORE_EMULATOR_HOST  an emulator already running (default: start one)
#   STORAGE_EMULATOR_HOST    a GCS emulator already running, with the bucket
#                            (default: start fake-gcs-server)
#   LAKESQL_DEMO_PROJECT     Firestore project and bucket name (default lakesql-demo-TIME)
set -euo pipefail
cd "$(dirname "$0")/.."
# A fresh project per run: the emulator may be shared and keep old runs.
project=${LAKESQL_DEMO_PROJECT:-lakesql-demo-$(date +%s)}
state=$(mktemp -d "${TMPDIR:-/tmp}/lakesql-demo-cloud.XXXXXX")
started_fs="" gcs_pid=""
cleanup() {
	if [ -n "$gcs_pid" ]; then kill "$gcs_pid" 2>/dev/null || true; fi
	if [ -n "$started_fs" ]; then scripts/firestore-emulator.sh stop >/dev/null 2>&1 || true; fi
	rm -rf "$state"
}
trap cleanup EXIT

if [ -z "${FIRESTORE_EMULATOR_HOST:-}" ]; then
	# Reuse an emulator this script's helper already runs; stop only ours.
	scripts/firestore-emulator.sh status >/dev/null 2>&1 || started_fs=1
	eval "$(scripts/firestore-emulator.sh start)"
fi
echo "demo-cloud: Firestore emulator at $FIRESTORE_EMULATOR_HOST"

if [ -z "${STORAGE_EMULATOR_HOST:-}" ]; then
	go build -o "$state/fake-gcs-server" github.com/fsouza/fake-gcs-server
	port=4443
	while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
	# No -public-host: lakesql reads through the JSON API and needs none.
	"$state/fake-gcs-server" -scheme http -host 127.0.0.1 -port "$port" -backend memory -log-level error \
		>"$state/fake-gcs.log" 2>&1 &
	gcs_pid=$!
	export STORAGE_EMULATOR_HOST=127.0.0.1:$port
	for _ in $(seq 100); do
		curl -sf "http://$STORAGE_EMULATOR_HOST/storage/v1/b" >/dev/null 2>&1 && break
		kill -0 "$gcs_pid" 2>/dev/null || { cat "$state/fake-gcs.log" >&2; exit 1; }
		sleep 0.1
	done
	curl -sf -X POST -H 'Content-Type: application/json' -d "{\"name\":\"$project\"}" \
		"http://$STORAGE_EMULATOR_HOST/storage/v1/b?project=$project" >/dev/null
fi
echo "demo-cloud: GCS emulator at $STORAGE_EMULATOR_HOST"

LAKESQL_DEMO_FLAGS="--metastore firestore://$project --storage gs://$project/lake" scripts/demo.sh
echo "demo-cloud: stopping the emulators it started; their data goes with them."
