#!/usr/bin/env bash
# The crawl criterion on loopback: `ratewise crawl` with 40 concurrent requests for 25 s against
# serve-mock models of 30 req/s and 350 ms (capacity ~750 ok in 25 s). Prints one --json summary
# per run. Usage: bench/crawl-loopback.sh [runs per model] (after npm ci, which builds dist/).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for model in fixed-window sliding-log token-bucket; do
  for run in $(seq "$runs"); do
    node dist/cli/main.js serve-mock --model "$model" --rate 30 --latency 350 --port 0 --json >"$work/server.json" &
    server=$!
    until [ -s "$work/server.json" ]; do sleep 0.1; done
    url=$(node -e "console.log(JSON.parse(require('fs').readFileSync('$work/server.json','utf8')).url)")
    seq 0 9999 | sed "s#^#$url/item/#" >"$work/urls.txt"
    rm -f "$work/results.jsonl"
    printf '%s %s: ' "$model" "$run"
    node dist/cli/main.js crawl "$work/urls.txt" --max-concurrency 40 --duration 25 \
      --out "$work/results.jsonl" --json 2>/dev/null | tail -1
    kill -TERM "$server"
    wait "$server" 2>/dev/null || true
    rm -f "$work/server.json"
  done
done
