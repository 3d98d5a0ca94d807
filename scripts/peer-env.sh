#!/usr/bin/env bash
# peer-env.sh - where the interop peers installed by install-peers.sh are.
#
#   scripts/peer-env.sh              print KEY=VALUE lines (values never contain
#                                    spaces or quotes: safe for eval and for a
#                                    line-by-line parser)
#   scripts/peer-env.sh --export     the same lines prefixed with "export "
#   scripts/peer-env.sh --require    print, but exit 1 if any peer is missing
#   . scripts/peer-env.sh            (sourced from bash) export them into the shell
#
# Only peers that are installed and run are printed; a Go test should t.Skip
# when its variable is unset (and CI, which installs everything, can use
# --require so that a missing peer fails loudly instead of skipping).
#
# Variables (paths are absolute):
#   PQKEX_PEERS_DIR            root of everything below (default /opt/pqkex-peers)
#   PQKEX_OPENSSH10_SSH        OpenSSH 10.0 client  (/usr/bin/ssh)
#   PQKEX_OPENSSH10_SSHD       OpenSSH 10.0 server  (/usr/sbin/sshd)
#   PQKEX_OPENSSH10_KEYGEN     ssh-keygen 10.0      (/usr/bin/ssh-keygen)
#   PQKEX_OPENSSH92_SSH        OpenSSH 9.2 client   (unpacked .deb, system libraries)
#   PQKEX_OPENSSH92_SSHD       OpenSSH 9.2 server   (ditto; run it by this absolute path)
#   PQKEX_TRIXIE_ROOT          the trixie chroot
#   PQKEX_TRIXIE_EXEC          wrapper: trixie-exec PROG ARGS... runs PROG in the chroot
#   PQKEX_DROPBEAR             dropbear 2025.89 server  (wrapper, host paths work)
#   PQKEX_DBCLIENT             dbclient 2025.89 client  (wrapper)
#   PQKEX_DROPBEARKEY          dropbearkey              (wrapper)
#   PQKEX_DROPBEARCONVERT      dropbearconvert          (wrapper: OpenSSH key -> dropbear key)
#   PQKEX_TINYSSHD             tinysshd 20250501, inetd-style (wrapper)
#   PQKEX_TINYSSHD_MAKEKEY     tinysshd-makekey         (wrapper)
#   PQKEX_TINYSSHD_PRINTKEY    tinysshd-printkey        (wrapper)
#   PQKEX_TCPSERVER            tcpserver (ucspi-tcp), TCP front end for tinysshd (wrapper)
#   PQKEX_FORKY_ROOT           the forky chroot (Debian testing)
#   PQKEX_FORKY_EXEC           wrapper: forky-exec PROG ARGS... runs PROG in the chroot
#   PQKEX_OPENSSH106_SSH       OpenSSH 10.6 client  (wrapper forky-ssh)
#   PQKEX_OPENSSH106_SSHD      OpenSSH 10.6 server  (wrapper forky-sshd: runs /usr/sbin/sshd)
#   PQKEX_OPENSSH106_KEYGEN    ssh-keygen 10.6      (wrapper forky-ssh-keygen)
#   PQKEX_PLINK                PuTTY 0.85 plink     (wrapper forky-plink)
#   PQKEX_PUTTYGEN             PuTTY 0.85 puttygen  (wrapper forky-puttygen: OpenSSH key -> .ppk)
#   PQKEX_LIBSSH_PEER          libssh 0.12 server and client (wrapper forky-libssh-peer: runs
#                              /usr/bin/libssh-peer, built from scripts/libssh-peer.c)
#   PQKEX_PEER_SERVER          scripts/peer-server.sh (start/stop any server peer)
# The wrappers honour PQKEX_TRIXIE_BIND and PQKEX_TRIXIE_AUTHORIZED_KEYS, and
# PQKEX_FORKY_BIND and PQKEX_FORKY_AUTHORIZED_KEYS (README.md).

# _pqkex_bin_vars VAR=program ...: one line PQKEX_VAR=$PEERS_BIN/program each
# (PEERS_BIN is _pqkex_peer_env's local, visible to the functions it calls).
_pqkex_bin_vars() {
	local v
	for v in "$@"; do
		echo "PQKEX_${v%%=*}=$PEERS_BIN/${v#*=}"
	done
}

_pqkex_peer_env() {
	local here
	here="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)"
	# same defaults as peers-lib.sh (not sourced here: keep a sourcing shell clean)
	local PEERS_DIR="${PQKEX_PEERS_DIR:-/opt/pqkex-peers}"
	local OSSH92_DIR="$PEERS_DIR/openssh-9.2" TRIXIE_ROOT="$PEERS_DIR/trixie" PEERS_BIN="$PEERS_DIR/bin"
	local FORKY_ROOT="$PEERS_DIR/forky"
	local missing=0
	echo "PQKEX_PEERS_DIR=$PEERS_DIR"
	if [ -x /usr/sbin/sshd ] && /usr/bin/ssh -V 2>&1 | grep -q '^OpenSSH_1[0-9]'; then
		echo "PQKEX_OPENSSH10_SSH=/usr/bin/ssh"
		echo "PQKEX_OPENSSH10_SSHD=/usr/sbin/sshd"
		echo "PQKEX_OPENSSH10_KEYGEN=/usr/bin/ssh-keygen"
	else
		echo "peer-env: OpenSSH 10 missing (install-peers.sh openssh10)" >&2; missing=1
	fi
	if [ -f "$OSSH92_DIR/.pqkex-ready" ] && [ -x "$OSSH92_DIR/usr/sbin/sshd" ]; then
		echo "PQKEX_OPENSSH92_SSH=$OSSH92_DIR/usr/bin/ssh"
		echo "PQKEX_OPENSSH92_SSHD=$OSSH92_DIR/usr/sbin/sshd"
	else
		echo "peer-env: OpenSSH 9.2 missing (install-peers.sh openssh92)" >&2; missing=1
	fi
	if [ -f "$TRIXIE_ROOT/.pqkex-ready" ] && [ -x "$PEERS_BIN/trixie-exec" ]; then
		echo "PQKEX_TRIXIE_ROOT=$TRIXIE_ROOT"
		echo "PQKEX_TRIXIE_EXEC=$PEERS_BIN/trixie-exec"
		_pqkex_bin_vars DROPBEAR=dropbear DBCLIENT=dbclient DROPBEARKEY=dropbearkey \
			DROPBEARCONVERT=dropbearconvert TINYSSHD=tinysshd TINYSSHD_MAKEKEY=tinysshd-makekey \
			TINYSSHD_PRINTKEY=tinysshd-printkey TCPSERVER=tcpserver
	else
		echo "peer-env: trixie chroot (dropbear, tinysshd) missing (install-peers.sh trixie)" >&2; missing=1
	fi
	if [ -f "$FORKY_ROOT/.pqkex-ready" ] && [ -x "$PEERS_BIN/forky-exec" ]; then
		echo "PQKEX_FORKY_ROOT=$FORKY_ROOT"
		echo "PQKEX_FORKY_EXEC=$PEERS_BIN/forky-exec"
		_pqkex_bin_vars OPENSSH106_SSH=forky-ssh OPENSSH106_SSHD=forky-sshd \
			OPENSSH106_KEYGEN=forky-ssh-keygen PLINK=forky-plink PUTTYGEN=forky-puttygen
	else
		echo "peer-env: forky chroot (OpenSSH 10.6, PuTTY plink) missing (install-peers.sh forky)" >&2; missing=1
	fi
	if [ -f "$FORKY_ROOT/.pqkex-libssh-ready" ] && [ -x "$FORKY_ROOT/usr/bin/libssh-peer" ] && [ -x "$PEERS_BIN/forky-exec" ]; then
		echo "PQKEX_LIBSSH_PEER=$PEERS_BIN/forky-libssh-peer"
	else
		echo "peer-env: libssh 0.12 (libssh-peer in the forky chroot) missing (install-peers.sh libssh)" >&2; missing=1
	fi
	echo "PQKEX_PEER_SERVER=$here/peer-server.sh"
	return "$missing"
}

if (return 0 2>/dev/null); then
	# sourced: export into the caller's shell, leave its shell options alone
	eval "$(_pqkex_peer_env | sed 's/^/export /')" || true
	unset -f _pqkex_peer_env _pqkex_bin_vars
else
	set -euo pipefail
	export_=0 require=0
	for a in "$@"; do
		case "$a" in
		--export) export_=1 ;;
		--require) require=1 ;;
		*) awk 'NR == 1 { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0" >&2; exit 2 ;;
		esac
	done
	rc=0
	out="$(_pqkex_peer_env)" || rc=$?
	# shellcheck disable=SC2001
	if [ "$export_" = 1 ]; then sed 's/^/export /' <<<"$out"; else echo "$out"; fi
	if [ "$require" = 1 ]; then exit "$rc"; fi
	exit 0
fi
