#!/usr/bin/env bash
# readme-steps.sh - follow README.md's install and serve steps literally, in
# a fresh temporary directory, so that the text cannot drift from what works.
#
#   scripts/readme-steps.sh
#
# It runs the shell blocks of README.md marked <!-- readme-steps: NAME -->:
#
#   checkout      in TMP: the git clone line becomes a copy of this checkout's
#                 files, tracked and untracked but not ignored (the module is
#                 not published); the rest of the block runs as written but
#                 for lines commented "# optional"; go install puts pqkex into TMP/bin (GOBIN), which
#                 is first on PATH.
#   replace       each in a fresh TMP/your-module beside TMP/pqkex, holding
#   workspace     "go mod init example.com/your-module" and
#                 examples/client/main.go, as a user's module would; the
#                 program it builds (./your-module) then logs in to pqkex
#                 serve and must print kex=mlkem768x25519-sha256.
#   serve         started in the background, twice: the second time with the
#                 host key the first one created (XDG_CONFIG_HOME is TMP/config).
#   serve-client  run after each start of serve, with ssh's own config and
#                 the user's known_hosts replaced by -F none,
#                 UserKnownHostsFile=TMP/known_hosts and BatchMode=yes put
#                 before the block's options; after a restart it must still
#                 print kex=sntrup761x25519-sha512 (StrictHostKeyChecking=
#                 accept-new refuses a changed host key).
#
# Needs go, git, ssh and ssh-keygen, and 127.0.0.1:2222 free (the README's
# port). Exit status 0 only if every step did what the README says.
set -euo pipefail
REPO="$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)"
README="$REPO/README.md"
say() { printf '[readme-steps] %s\n' "$*"; }
die() { say "FAIL: $*" >&2; exit 1; }

# block NAME: the lines of the fenced block after <!-- readme-steps: NAME -->
block() {
	awk -v name="$1" '
		$0 == "<!-- readme-steps: " name " -->" { want = 1; next }
		want && /^```/ { if (inside) exit; inside = 1; next }
		inside { print }
	' "$README"
}
for b in checkout replace workspace serve serve-client; do
	[ -n "$(block "$b")" ] || die "README.md has no block marked <!-- readme-steps: $b -->"
done

TMP="$(mktemp -d "${TMPDIR:-/tmp}/readme-steps.XXXXXX")"
SERVE_PID=""
cleanup() {
	[ -z "$SERVE_PID" ] || { kill "$SERVE_PID" 2>/dev/null || true; wait "$SERVE_PID" 2>/dev/null || true; }
	rm -rf "$TMP"
}
trap cleanup EXIT
export GOBIN="$TMP/bin" PATH="$TMP/bin:$PATH" XDG_CONFIG_HOME="$TMP/config"
mkdir -p "$GOBIN"

# run_block NAME DIR: run the block's lines in DIR with bash -e, echoing them.
run_block() {
	local script
	script="$(block "$1" | grep -v '# optional')"
	say "block $1 (in ${2#"$TMP"/}):"
	printf '%s\n' "$script" | sed 's/^/    $ /'
	(cd "$2" && bash -euo pipefail -c "$script") || die "block $1 failed"
}

# --- checkout: the clone becomes a copy of this checkout's tracked files
clone_block="$(block checkout)"
grep -qx 'git clone https://github.com/pqkex/pqkex' <<<"$clone_block" || die "the checkout block's clone line changed: update this script"
mkdir "$TMP/pqkex"
git -C "$REPO" ls-files -z --cached --others --exclude-standard | (cd "$REPO" && xargs -0 cp --parents -t "$TMP/pqkex")
say "git clone https://github.com/pqkex/pqkex -> copied $(git -C "$REPO" ls-files --cached --others --exclude-standard | wc -l) files of $REPO"
script="$(grep -vx 'git clone https://github.com/pqkex/pqkex' <<<"$clone_block" | grep -v '# optional')"
say "block checkout, the rest:"; printf '%s\n' "$script" | sed 's/^/    $ /'
(cd "$TMP" && bash -euo pipefail -c "$script") || die "block checkout failed"
[ -x "$GOBIN/pqkex" ] || die "go install left no pqkex in GOBIN"

# --- serve, in the background; waits until it listens and returns its log
start_serve() { # LOG
	local script
	script="$(block serve)"
	say "block serve (in the background):"; printf '%s\n' "$script" | sed 's/^/    $ /'
	(cd "$TMP" && exec bash -euo pipefail -c "exec $script") >"$1" 2>&1 &
	SERVE_PID=$!
	for _ in $(seq 300); do
		grep -q '^listening on ' "$1" && return 0
		kill -0 "$SERVE_PID" 2>/dev/null || { cat "$1"; die "pqkex serve exited"; }
		sleep 0.05
	done
	cat "$1"; die "pqkex serve does not listen"
}
stop_serve() { kill "$SERVE_PID"; wait "$SERVE_PID" || true; SERVE_PID=""; }

# ssh, as the serve-client block calls it: our options first (ssh keeps
# the first value of each), then the block's.
mkdir -p "$TMP/sshbin"
cat >"$TMP/sshbin/ssh" <<EOS
#!/bin/sh
exec $(command -v ssh) -F none -o BatchMode=yes -o UserKnownHostsFile=$TMP/known_hosts -o GlobalKnownHostsFile=/dev/null -o ConnectTimeout=10 "\$@"
EOS
chmod +x "$TMP/sshbin/ssh"

serve_client() { # WANT
	local out script
	script="$(block serve-client)"
	say "block serve-client (ssh with -F none, BatchMode=yes, UserKnownHostsFile=TMP/known_hosts first):"
	printf '%s\n' "$script" | sed 's/^/    $ /'
	out="$(cd "$TMP" && PATH="$TMP/sshbin:$PATH" bash -euo pipefail -c "$script" 2>"$TMP/ssh.err")" || { echo "$out"; cat "$TMP/ssh.err"; die "block serve-client failed"; }
	[ "$out" = "kex=$1" ] || { echo "$out"; cat "$TMP/ssh.err"; die "serve-client printed the above, want kex=$1"; }
	say "  -> $out $(sed 's/^/(ssh: /; s/$/)/' "$TMP/ssh.err")"
}

for round in 1 2; do
	start_serve "$TMP/serve$round.log"
	head -2 "$TMP/serve$round.log" | sed 's/^/    | /'
	serve_client sntrup761x25519-sha512
	[ "$round" = 2 ] || stop_serve
done
fp1="$(grep -o 'SHA256:[^ ]*' "$TMP/serve1.log" | head -1)"
fp2="$(grep -o 'SHA256:[^ ]*' "$TMP/serve2.log" | head -1)"
[ -n "$fp1" ] && [ "$fp1" = "$fp2" ] || die "the host key changed across the restart: $fp1, then $fp2"
say "same host key after the restart: $fp1"

# --- a user's module, built by each route, logs in to the running serve
key="$TMP/config/pqkex/serve_ed25519"
printf '[127.0.0.1]:2222 %s\n' "$(ssh-keygen -y -f "$key")" >"$TMP/client_known_hosts"
ssh-keygen -q -t ed25519 -N '' -f "$TMP/id_ed25519"
for route in replace workspace; do
	rm -rf "$TMP/your-module"
	mkdir "$TMP/your-module"
	(cd "$TMP/your-module" && go mod init example.com/your-module >/dev/null 2>&1 && cp "$REPO/examples/client/main.go" .)
	run_block "$route" "$TMP"
	[ -x "$TMP/your-module/your-module" ] || die "block $route built no ./your-module"
	out="$("$TMP/your-module/your-module" -addr 127.0.0.1:2222 -user x -identity "$TMP/id_ed25519" -known-hosts "$TMP/client_known_hosts" 2>&1)" ||
		{ echo "$out"; die "the program built by block $route failed"; }
	[ "$out" = "kex=mlkem768x25519-sha256" ] || { echo "$out"; die "the program built by block $route printed the above"; }
	say "  -> ./your-module printed $out"
done
stop_serve
say "ok: README's checkout, replace, workspace and serve steps work as written (serve twice)"
