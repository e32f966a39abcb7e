#!/usr/bin/env bash
# Installs icebird (pinned by package-lock.json) for the interop tests.
set -euo pipefail
cd "$(dirname "$0")"
npm ci --no-audit --no-fund --silent
