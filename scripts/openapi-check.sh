#!/usr/bin/env bash
# Checks the OpenAPI document jobpilot serves: Redocly CLI (recommended rules) and Spectral (spectral:oas, .spectral.yaml)
# must report no error, and the TypeScript types of the client example must be what openapi-typescript generates from it.
# The tools run through npx at pinned versions (nothing to install in the project; npm caches them after the first run).
#
# Usage: scripts/openapi-check.sh [--binary PATH] [--write]
#   --binary PATH  check the document the compiled executable serves (CI), instead of the one of the app built in-process
#   --write        regenerate examples/typescript-client/src/schema.d.ts instead of failing when it differs
set -euo pipefail
cd "$(dirname "$0")/.."

REDOCLY="@redocly/cli@2.77.0"
SPECTRAL="@stoplight/spectral-cli@6.16.3"
OPENAPI_TYPESCRIPT="openapi-typescript@7.13.0"
TYPES="examples/typescript-client/src/schema.d.ts"

binary=()
write=""
while [ $# -gt 0 ]; do
  case "$1" in
    --binary) binary=(--binary "$2"); shift 2 ;;
    --write) write=1; shift ;;
    *) echo "usage: $0 [--binary PATH] [--write]" >&2; exit 2 ;;
  esac
done

work="$(mktemp -d "${TMPDIR:-/tmp}/jobpilot-openapi.XXXXXX")"
trap 'rm -rf "$work"' EXIT
doc="$work/openapi.json"
bun run scripts/openapi.ts "${binary[@]}" --out "$doc"
echo "== openapi: $(bun -e "const d = await Bun.file('$doc').json(); console.log('OpenAPI', d.openapi + ',', Object.keys(d.paths).length, 'paths,', Object.keys(d.webhooks ?? {}).length, 'webhooks')")"

echo "== openapi: redocly lint (recommended)"
npx --yes "$REDOCLY" lint "$doc" --extends=recommended --format=codeframe
echo "== openapi: spectral lint (spectral:oas)"
npx --yes "$SPECTRAL" lint "$doc" --ruleset .spectral.yaml --fail-severity=error

echo "== openapi: $TYPES is what openapi-typescript generates"
npx --yes "$OPENAPI_TYPESCRIPT" "$doc" --output "$work/schema.d.ts" >/dev/null
if [ -n "$write" ]; then
  cp "$work/schema.d.ts" "$TYPES"
  echo "wrote $TYPES"
elif ! diff -u "$TYPES" "$work/schema.d.ts"; then
  echo "$TYPES is not what the served document generates: run \`bun run openapi:client\` and commit it" >&2
  exit 1
fi
