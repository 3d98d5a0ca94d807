# shellcheck shell=bash disable=SC2034 # variables here are used by the sourcing scripts
# peers-lib.sh - helpers shared by install-peers.sh, peer-server.sh
# and verify-peers.sh.  Sourced, never executed.  No mirror host name appears
# anywhere here: apt URIs are read from the machine's own apt sources.

# Where everything that is not a system package lives (OpenSSH 9.2 tree,
# trixie and forky chroots, wrappers).  Override with PQKEX_PEERS_DIR.
PEERS_DIR="${PQKEX_PEERS_DIR:-/opt/pqkex-peers}"
OSSH92_DIR="$PEERS_DIR/openssh-9.2"
TRIXIE_ROOT="$PEERS_DIR/trixie"
FORKY_ROOT="$PEERS_DIR/forky"
PEERS_BIN="$PEERS_DIR/bin"

_peers_tag="${_peers_tag:-peers}"
log() { printf '[%s] %s\n' "$_peers_tag" "$*" >&2; }
die() { printf '[%s] ERROR: %s\n' "$_peers_tag" "$*" >&2; exit 1; }

# usage_from_header FILE: print FILE's leading comment block (after the shebang)
usage_from_header() { awk 'NR == 1 { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$1" >&2; }

need_root() { [ "$(id -u)" = 0 ] || die "must run as root"; }

# pkg_ver PKG: installed Debian version of PKG, empty if not installed
pkg_ver() { dpkg-query -W -f='${db:Status-Status} ${Version}' "$1" 2>/dev/null | awk '$1=="installed"{print $2}'; }

# derive_source SUITE...: prints "URI<TAB>SIGNED_BY" of the first enabled apt
# source that serves one of the given suites (deb822 .sources first, then
# one-line .list files).  This is how we learn the mirror without naming it.
derive_source() {
	local f suites="$*"
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk -v want="$suites" '
			BEGIN { n = split(want, w, " "); for (i = 1; i <= n; i++) ok_s[w[i]] = 1 }
			function flush() {
				if (ok && uri != "" && !off && deb) { printf "%s\t%s\n", uri, sb; found = 1; exit }
				uri = ""; sb = ""; ok = 0; off = 0; deb = 0
			}
			/^[ \t]*#/ { next }
			/^[ \t]*$/ { flush(); next }
			tolower($1) == "types:"     { for (i = 2; i <= NF; i++) if ($i == "deb") deb = 1 }
			tolower($1) == "uris:"      { uri = $2 }
			tolower($1) == "signed-by:" { sb = $2 }
			tolower($1) == "enabled:" && tolower($2) == "no" { off = 1 }
			tolower($1) == "suites:"    { for (i = 2; i <= NF; i++) if ($i in ok_s) ok = 1 }
			END { if (!found) flush() }
		' "$f" | head -n1 | grep . && return 0
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		awk -v want="$suites" '
			BEGIN { n = split(want, w, " "); for (i = 1; i <= n; i++) ok_s[w[i]] = 1 }
			/^[ \t]*deb[ \t]/ {
				sb = ""; i = 2
				if ($2 ~ /^\[/) {
					for (; i <= NF; i++) {
						if ($i ~ /signed-by=/) { sb = $i; sub(/.*signed-by=/, "", sb); sub(/\]$/, "", sb) }
						if ($i ~ /\]$/) { i++; break }
					}
				}
				if ($(i + 1) in ok_s) { printf "%s\t%s\n", $i, sb; exit }
			}' "$f" | head -n1 | grep . && return 0
	done
	return 1
}

# apt_update_once: at most one "apt-get update" per script run
_APT_UPDATED=0
apt_update_once() {
	[ "$_APT_UPDATED" = 1 ] && return 0
	log "apt-get update"
	local t0=$SECONDS
	# an unrelated broken source must not stop us; later checks decide
	apt-get update -qq -o DPkg::Lock::Timeout=300 >/dev/null 2>&1 || log "WARNING: apt-get update reported errors"
	_APT_UPDATED=1
	log "apt-get update took $((SECONDS - t0)) s"
}

APT_INSTALL=(apt-get install -y -qq --no-install-recommends -o DPkg::Lock::Timeout=300
	-o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold)

# apt_install PKG...: install, running apt-get update first if the plain
# attempt fails (stale or missing package lists on a fresh machine)
apt_install() {
	export DEBIAN_FRONTEND=noninteractive
	if [ "$_APT_UPDATED" = 1 ] || ! "${APT_INSTALL[@]}" "$@" >/dev/null 2>&1; then
		apt_update_once
		"${APT_INSTALL[@]}" "$@" >/dev/null || die "apt-get install $* failed"
	fi
}

# pick_port: a free TCP port on 127.0.0.1 (racy by nature; callers retry)
pick_port() {
	local p _
	for _ in $(seq 1 50); do
		p=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
		if ! ss -Hltn "sport = :$p" 2>/dev/null | grep -q .; then
			echo "$p"
			return 0
		fi
	done
	return 1
}

# listening PORT: something listens on 127.0.0.1:PORT
listening() { ss -Hltn "sport = :$1" 2>/dev/null | grep -q '127\.0\.0\.1'; }

# wait_listening PORT PID [TRIES]: wait (default ~10 s) until PORT listens while PID lives
wait_listening() {
	local _ n="${3:-200}"
	for _ in $(seq 1 "$n"); do
		listening "$1" && return 0
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}

# ed25519_openssh_to_raw KEYFILE OUTDIR: split an unencrypted OpenSSH-format
# ed25519 private key into OUTDIR/pk (32 raw bytes) and OUTDIR/sk (64 raw
# bytes: seed||pk, i.e. Go's ed25519.PrivateKey) - tinysshd's key format.
ed25519_openssh_to_raw() {
	local key="$1" out="$2" bin
	bin="$(mktemp)"
	sed -e '/^-----/d' "$key" | tr -d '\n\r ' | base64 -d >"$bin" 2>/dev/null ||
		{ rm -f "$bin"; die "$key: not a base64 OpenSSH private key"; }
	# fixed layout of an unencrypted single-key "openssh-key-v1" ed25519 file:
	#  0 magic(15) 15 "none"(8) 23 "none"(8) 31 ""(4) 35 nkeys(4) 39 pubblob(4+51)
	#  94 privlen(4) 98 check1,check2(8) 106 "ssh-ed25519"(4+11) 121 pk(4+32) 157 sk(4+64)
	if [ "$(head -c 14 "$bin")" != "openssh-key-v1" ] ||
		[ "$(dd if="$bin" bs=1 skip=19 count=4 2>/dev/null)" != none ] ||
		[ "$(dd if="$bin" bs=1 skip=110 count=11 2>/dev/null)" != ssh-ed25519 ]; then
		rm -f "$bin"
		die "$key: need an unencrypted OpenSSH-format ed25519 private key"
	fi
	mkdir -p "$out"
	dd if="$bin" of="$out/pk" bs=1 skip=125 count=32 2>/dev/null
	dd if="$bin" of="$out/sk" bs=1 skip=161 count=64 2>/dev/null
	rm -f "$bin"
	# sanity: the secret key's second half is the public key
	cmp -s "$out/pk" <(tail -c 32 "$out/sk") || die "$key: ed25519 key layout check failed"
}
