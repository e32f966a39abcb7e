#!/usr/bin/env bash
# Runs a command (the test suite) with the test services up:
#   - the Firestore emulator from the Cloud SDK (FIRESTORE_EMULATOR_HOST),
#     unless one is already configured;
#   - fake-gcs-server runs in-process inside the GCS tests.
# Outside CI a missing emulator is reported and the tests that need it skip;
# with CI=true it is an error.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)

started=""
if [ -z "${FIRESTORE_EMULATOR_HOST:-}" ]; then
  if out=$("$here/firestore-emulator.sh" start); then
    eval "$out"
    started=1
  elif [ "${CI:-}" = "true" ]; then
    echo "test-env: the Firestore emulator did not start (see above); CI needs it" >&2
    exit 1
  else
    echo "test-env: no Firestore emulator; the Firestore tests will skip" >&2
  fi
fi

"$@"
rc=$?

if [ -n "$started" ]; then
  "$here/firestore-emulator.sh" stop >/dev/null 2>&1 || true
fi
exit $rc
