#!/usr/bin/env bash
# Installs the MCP test server the end-to-end tests talk to,
# @modelcontextprotocol/server-everything at a pinned version, into
# .cache/mcp-everything (node and npm from apt when missing), and prints the
# path of its executable. Reruns reuse the installed copy.
set -euo pipefail
cd "$(dirname "$0")/.."
version=2026.8.31
prefix=.cache/mcp-everything
bin="$prefix/node_modules/.bin/mcp-server-everything"
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
	echo "installing: nodejs npm" >&2
	apt-get update -qq >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null
fi
installed=$(node -p "require('./$prefix/node_modules/@modelcontextprotocol/server-everything/package.json').version" 2>/dev/null || true)
if [ "$installed" != "$version" ] || [ ! -x "$bin" ]; then
	echo "installing: @modelcontextprotocol/server-everything@$version" >&2
	mkdir -p "$prefix"
	npm install --prefix "$prefix" --no-audit --no-fund --no-save --loglevel=error \
		"@modelcontextprotocol/server-everything@$version" >&2
fi
echo "$PWD/$bin"
