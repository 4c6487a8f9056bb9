#!/usr/bin/env bash
# Installs mitmproxy's mitmdump (from PyPI) in a virtual environment of its
# own (~/.cache/mitm-venv), so that its pinned dependencies never replace the
# SDKs' in the main Python: `cargo bench --bench proxy` runs it beside the
# proxy when it finds it there (or on PATH, or in PROMPT_INSPECTOR_MITMDUMP).
set -euo pipefail
venv="${HOME}/.cache/mitm-venv"
if [ ! -x "$venv/bin/mitmdump" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet mitmproxy
fi
"$venv/bin/mitmdump" --version | head -1
