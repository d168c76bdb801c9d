#!/usr/bin/env bash
# Starts jobpilot the way a newcomer does and checks that it answers, then stops it.
#   scripts/smoke-start.sh DIR COMMAND...
# Runs COMMAND (a shell line, as a user types it) in DIR with PORT set to a free loopback port, waits up to
# 120 s for GET /healthz to answer 200, checks that GET /dashboard answers (200, or 303 to sign in), that the
# first-run banner printed an API key, and that the database and its secret key file are private (0600), then
# stops the whole process group with SIGTERM. Exits non-zero, printing the command's output, on any failure.
set -euo pipefail
dir="$1"
shift
line="$*"
port="$(bun -e 'const s = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } }); console.log(s.port); s.stop(true);')"
out="$(mktemp)"
echo "== smoke: in $dir, PORT=$port: $line"
# setsid: the line may start several processes (bun run start → build, then serve); they are stopped together.
(cd "$dir" && PORT="$port" exec setsid bash -c "$line") >"$out" 2>&1 </dev/null &
pid=$!
fail() {
  echo "smoke: $1" >&2
  echo "---- what the command printed" >&2
  tail -n 80 "$out" >&2
  kill -TERM -- "-$pid" 2>/dev/null || true
  rm -f "$out"
  exit 1
}
healthy=""
for _ in $(seq 1 240); do
  if ! kill -0 "$pid" 2>/dev/null; then fail "the command exited before /healthz answered"; fi
  if [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/healthz" || true)" = 200 ]; then
    healthy=1
    break
  fi
  sleep 0.5
done
[ -n "$healthy" ] || fail "/healthz did not answer 200 within 120 s"
dashboard="$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/dashboard" || true)"
case "$dashboard" in 200 | 303) ;; *) fail "/dashboard answered $dashboard" ;; esac
grep -q 'API key (shown once, store it now): jp_live_' "$out" || fail "the first-run banner printed no API key"
for f in data/jobpilot.db data/jobpilot-secret.key; do
  [ -f "$dir/$f" ] || fail "$f was not created"
  mode="$(stat -c '%a' "$dir/$f")"
  [ "$mode" = 600 ] || fail "$f has mode $mode, not 600"
done
kill -TERM -- "-$pid" 2>/dev/null || true
for _ in $(seq 1 40); do
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.25
done
if kill -0 "$pid" 2>/dev/null; then
  kill -KILL -- "-$pid" 2>/dev/null || true
  fail "it did not stop within 10 s of SIGTERM"
fi
rm -f "$out"
echo "== smoke: /healthz 200, /dashboard $dashboard, key printed, files 0600, stopped"
