#!/usr/bin/env bash
# The stress run: the hardening tests with their memory bounds asserted
# (PROMPT_INSPECTOR_STRESS=1; `cargo test` only prints them, as a busy
# machine may pass a peak-memory bound by chance). Run it on an idle
# machine: bash scripts/stress.sh
set -euo pipefail
cd "$(dirname "$0")/.."
PROMPT_INSPECTOR_STRESS=1 cargo test --locked --test integration -- hardening_ --nocapture
