#!/usr/bin/env bash
# peer-server.sh - start / stop a real SSH server peer on 127.0.0.1 for interop tests.
#
#   peer-server.sh start KIND [options]    start; print PEER_* lines (below) on stdout
#   peer-server.sh stop DIR|PID            stop it (kill, wait, remove DIR if we made it)
#   peer-server.sh probe-kex KIND          print the kex list the server sends in its
#                                          KEXINIT (comma-separated), via ssh -vv
#
# KIND: openssh10 (/usr/sbin/sshd), openssh92 (unpacked 9.2 sshd),
#       openssh106 (forky sshd 10.6, in its chroot through forky-exec),
#       dropbear (trixie dropbear 2025.89), tinysshd (trixie tinysshd 20250501
#       behind tcpserver), libssh (forky's libssh 0.12 through libssh-peer, a
#       server built from scripts/libssh-peer.c; it logs "kex: algorithm: NAME"
#       per connection).  Run install-peers.sh first.  Root only.
#
# start options:
#   --port N              127.0.0.1 port; 0/absent = a random free one
#   --hostkey FILE        host key: unencrypted OpenSSH-format ed25519 private key
#                         (ssh-keygen -t ed25519, or Go's ssh.MarshalPrivateKey);
#                         absent = generated.  Converted as each server needs.
#   --authorized-keys F   public key(s) allowed to log in as root; absent = a fresh
#                         ed25519 client key is generated (PEER_CLIENT_KEY)
#   --dir DIR             state dir (config, keys, log); absent = mktemp -d under
#                         ${TMPDIR:-/tmp}.  For dropbear/tinysshd/openssh106 it is
#                         bind-mounted at the same path inside the chroot (see
#                         trixie-exec, forky-exec).
#   --kex LIST            OpenSSH and libssh only: the server's kex list (default: its default)
#   --loglevel L          OpenSSH only: sshd LogLevel (default DEBUG = DEBUG1)
#   --sshd-option LINE    OpenSSH only: a further sshd_config line, written after
#                         the others (repeatable), e.g. 'ForceCommand /usr/bin/git-shell
#                         -c "$SSH_ORIGINAL_COMMAND"'; sshd -t checks the result
#   --foreground          print the PEER_* lines, close stdout, then exec the server
#                         (same PID; its stderr/stdout go to PEER_LOG); the caller
#                         waits for the port itself.  Default: background it, wait
#                         until it listens (retrying other ports if --port was 0).
#
# Printed (KEY=VALUE, no quoting needed: values never contain spaces):
#   PEER_KIND PEER_PORT PEER_PID PEER_DIR PEER_LOG PEER_USER(root)
#   PEER_HOSTKEY (private, OpenSSH format) PEER_HOSTKEY_PUB PEER_KNOWN_HOSTS
#   PEER_CLIENT_KEY (empty if --authorized-keys was given) PEER_SSH_CONFIG
#   (ssh -F "$PEER_SSH_CONFIG" peer CMD logs in with StrictHostKeyChecking yes)
# so:  eval "$(peer-server.sh start dropbear)"; ssh -F "$PEER_SSH_CONFIG" peer echo ok;
#      peer-server.sh stop "$PEER_DIR"
set -euo pipefail

_peers_tag=peer-server
HERE="$(dirname "$(readlink -f "$0")")"
# shellcheck source-path=SCRIPTDIR source=peers-lib.sh
. "$HERE/peers-lib.sh"

need_root
trap 'echo "[peer-server] ERROR: command failed (line $LINENO, exit $?)" >&2' ERR
SSH_KEYGEN=/usr/bin/ssh-keygen

usage() { usage_from_header "$0"; exit 2; }

# ------------------------------------------------------------------ options
KIND="" PORT=0 HOSTKEY_IN="" AUTHKEYS_IN="" DIR="" KEX="" LOGLEVEL=DEBUG FG=0 OWN_DIR=0 STARTED=0
SSHD_OPTIONS=()
# a failed start removes the state dir it created
cleanup_failed_start() { if [ "$OWN_DIR" = 1 ] && [ "$STARTED" = 0 ] && [ -n "$DIR" ]; then rm -rf "$DIR"; fi; }

parse_start() {
	KIND="${1:-}"; shift || true
	case "$KIND" in openssh10 | openssh92 | openssh106 | dropbear | tinysshd | libssh) ;; *) usage ;; esac
	while [ $# -gt 0 ]; do
		case "$1" in
		--port) PORT="$2"; shift 2 ;;
		--hostkey) HOSTKEY_IN="$2"; shift 2 ;;
		--authorized-keys) AUTHKEYS_IN="$2"; shift 2 ;;
		--dir) DIR="$2"; shift 2 ;;
		--kex) KEX="$2"; shift 2 ;;
		--loglevel) LOGLEVEL="$2"; shift 2 ;;
		--sshd-option) SSHD_OPTIONS+=("$2"); shift 2 ;;
		--foreground) FG=1; shift ;;
		*) usage ;;
		esac
	done
	[ -n "$PORT" ] || PORT=0
}

# ------------------------------------------------------------------ common prep
prep_dir() {
	if [ -z "$DIR" ]; then
		DIR="$(mktemp -d "${TMPDIR:-/tmp}/pqkex-$KIND.XXXXXX")"
		OWN_DIR=1
	fi
	mkdir -p "$DIR"
	DIR="$(readlink -f "$DIR")"
	chmod 700 "$DIR"
	[ "$OWN_DIR" = 1 ] && : >"$DIR/.pqkex-own-dir"
	LOG="$DIR/log"
	: >"$LOG"

	HOSTKEY="$DIR/hostkey"
	if [ -n "$HOSTKEY_IN" ]; then
		[ -r "$HOSTKEY_IN" ] || die "cannot read $HOSTKEY_IN"
		[ "$(readlink -f "$HOSTKEY_IN")" = "$HOSTKEY" ] || cp "$HOSTKEY_IN" "$HOSTKEY"
		chmod 600 "$HOSTKEY"
	else
		rm -f "$HOSTKEY" "$HOSTKEY.pub"
		"$SSH_KEYGEN" -q -t ed25519 -N '' -C "pqkex-$KIND-host" -f "$HOSTKEY"
	fi
	"$SSH_KEYGEN" -y -f "$HOSTKEY" >"$HOSTKEY.pub" 2>/dev/null || die "$HOSTKEY is not a usable private key"
	grep -q '^ssh-ed25519 ' "$HOSTKEY.pub" || die "host key must be ed25519 (tinysshd/dropbear tests rely on it)"

	CLIENT_KEY=""
	if [ -n "$AUTHKEYS_IN" ]; then
		[ -r "$AUTHKEYS_IN" ] || die "cannot read $AUTHKEYS_IN"
		[ "$(readlink -f "$AUTHKEYS_IN")" = "$DIR/authorized_keys" ] || cp "$AUTHKEYS_IN" "$DIR/authorized_keys"
	else
		CLIENT_KEY="$DIR/id_ed25519"
		rm -f "$CLIENT_KEY" "$CLIENT_KEY.pub"
		"$SSH_KEYGEN" -q -t ed25519 -N '' -C "pqkex-client" -f "$CLIENT_KEY"
		cp "$CLIENT_KEY.pub" "$DIR/authorized_keys"
	fi
	chmod 600 "$DIR/authorized_keys"
}

write_client_files() { # $1 port
	awk -v p="$1" '{print "[127.0.0.1]:" p, $1, $2}' "$HOSTKEY.pub" >"$DIR/known_hosts"
	{
		echo "Host peer"
		echo "  HostName 127.0.0.1"
		echo "  Port $1"
		echo "  User root"
		[ -n "$CLIENT_KEY" ] && echo "  IdentityFile $CLIENT_KEY"
		echo "  IdentitiesOnly yes"
		echo "  UserKnownHostsFile $DIR/known_hosts"
		echo "  StrictHostKeyChecking yes"
		echo "  BatchMode yes"
		echo "  LogLevel ERROR"
	} >"$DIR/ssh_config"
}

print_env() { # $1 port $2 pid
	echo "PEER_KIND=$KIND"
	echo "PEER_PORT=$1"
	echo "PEER_PID=$2"
	echo "PEER_DIR=$DIR"
	echo "PEER_LOG=$LOG"
	echo "PEER_USER=root"
	echo "PEER_HOSTKEY=$HOSTKEY"
	echo "PEER_HOSTKEY_PUB=$HOSTKEY.pub"
	echo "PEER_KNOWN_HOSTS=$DIR/known_hosts"
	echo "PEER_CLIENT_KEY=$CLIENT_KEY"
	echo "PEER_SSH_CONFIG=$DIR/ssh_config"
}

# ------------------------------------------------------------------ OpenSSH
sshd_bin() {
	case "$KIND" in
	openssh10) echo /usr/sbin/sshd ;;
	openssh92) echo "$OSSH92_DIR/usr/sbin/sshd" ;;
	openssh106) echo "$PEERS_BIN/forky-sshd" ;; # exec's /usr/sbin/sshd in the chroot: same PID
	esac
}

write_sshd_config() { # $1 port
	{
		echo "# generated by pqkex scripts/peer-server.sh ($KIND)"
		echo "Port $1"
		echo "ListenAddress 127.0.0.1"
		echo "AddressFamily inet"
		echo "HostKey $HOSTKEY"
		echo "PidFile $DIR/sshd.pid"
		echo "AuthorizedKeysFile $DIR/authorized_keys"
		echo "AllowUsers root"
		echo "PermitRootLogin prohibit-password"
		echo "PubkeyAuthentication yes"
		echo "PasswordAuthentication no"
		echo "KbdInteractiveAuthentication no"
		echo "UsePAM no"
		echo "StrictModes no"
		echo "UseDNS no"
		echo "PrintMotd no"
		echo "PrintLastLog no"
		echo "X11Forwarding no"
		echo "MaxStartups 100:30:200"
		echo "MaxSessions 64"
		echo "LoginGraceTime 30"
		echo "LogLevel $LOGLEVEL"
		echo "Subsystem sftp internal-sftp"
		[ -n "$KEX" ] && echo "KexAlgorithms $KEX"
		# >= 9.8: do not penalise 127.0.0.1 for many failed/aborted test connections
		case "$KIND" in openssh10 | openssh106) echo "PerSourcePenalties no" ;; esac
		for o in ${SSHD_OPTIONS[@]+"${SSHD_OPTIONS[@]}"}; do echo "$o"; done
		true
	} >"$DIR/sshd_config"
	"$(sshd_bin)" -t -f "$DIR/sshd_config" || die "sshd -t rejected $DIR/sshd_config"
}

# server_cmd PORT: sets CMD (array) for KIND on PORT
server_cmd() {
	local port="$1"
	case "$KIND" in
	openssh10 | openssh92 | openssh106)
		write_sshd_config "$port"
		# -D: no daemon fork (the PID is the listener); -E: log to file (with -e the
		# session child's debug lines would leak into the client's stderr)
		CMD=("$(sshd_bin)" -D -E "$LOG" -f "$DIR/sshd_config")
		;;
	dropbear)
		# -F foreground, -E log to stderr, -s no passwords, -m no motd, -r host
		# key (dropbear format), -P pid file.  authorized_keys: the chroot's
		# /root/.ssh/authorized_keys, which trixie-exec bind-mounts from ours
		# (not -D DIR: dropbear rejects a -D dir below world-writable /tmp)
		CMD=("$PEERS_BIN/dropbear" -F -E -s -m -p "127.0.0.1:$port"
			-r "$DIR/hostkey.dropbear" -P "$DIR/dropbear.pid")
		;;
	tinysshd)
		# tcpserver (ucspi-tcp): -H no DNS, -R no ident, -D TCP_NODELAY, -l0 local
		# name; one "tinysshd -vv KEYDIR" per connection on stdin/stdout
		# (-vv: debug lines on stderr = PEER_LOG, incl. "kex: kex selected: NAME")
		CMD=("$PEERS_BIN/tcpserver" -HRDl0 127.0.0.1 "$port" /usr/sbin/tinysshd -vv "$DIR/keydir")
		;;
	libssh)
		# one child per connection; logs "libssh-peer[PID]: kex: algorithm: NAME";
		# the first key of authorized_keys may log in (any user)
		CMD=("$PEERS_BIN/forky-libssh-peer" server -p "$port" -k "$HOSTKEY" -a "$DIR/authorized_keys")
		if [ -n "$KEX" ]; then CMD+=(-x "$KEX"); fi
		;;
	esac
}

prep_kind() {
	case "$KIND" in
	openssh10) [ -x /usr/sbin/sshd ] || die "no /usr/sbin/sshd: run install-peers.sh openssh10" ;;
	openssh92) [ -x "$OSSH92_DIR/usr/sbin/sshd" ] || die "no OpenSSH 9.2: run install-peers.sh openssh92" ;;
	openssh106) [ -x "$PEERS_BIN/forky-sshd" ] || die "no forky chroot: run install-peers.sh forky" ;;
	dropbear | tinysshd) [ -x "$PEERS_BIN/trixie-exec" ] || die "no trixie chroot: run install-peers.sh trixie" ;;
	libssh) [ -x "$FORKY_ROOT/usr/bin/libssh-peer" ] || die "no libssh-peer: run install-peers.sh libssh" ;;
	esac
	case "$KIND" in
	openssh10 | openssh92)
		mkdir -p /run/sshd && chown root:root /run/sshd && chmod 755 /run/sshd
		;;
	openssh106 | libssh)
		# the server runs in the chroot: the state dir (config, keys, log) is
		# bind-mounted at the same path; the chroot's /run/sshd exists
		export PQKEX_FORKY_BIND="$DIR${PQKEX_FORKY_BIND:+:$PQKEX_FORKY_BIND}"
		;;
	dropbear)
		# the state dir is bind-mounted at the same path inside the chroot, and
		# our authorized_keys over the chroot's /root/.ssh/authorized_keys
		export PQKEX_TRIXIE_BIND="$DIR${PQKEX_TRIXIE_BIND:+:$PQKEX_TRIXIE_BIND}"
		export PQKEX_TRIXIE_AUTHORIZED_KEYS="$DIR/authorized_keys"
		# OpenSSH-format ed25519 -> dropbear's own format
		rm -f "$DIR/hostkey.dropbear"
		"$PEERS_BIN/dropbearconvert" openssh dropbear "$HOSTKEY" "$DIR/hostkey.dropbear" >/dev/null 2>&1 ||
			die "dropbearconvert failed for $HOSTKEY"
		;;
	tinysshd)
		# tinysshd key dir: ed25519.pk (32 raw bytes) + .ed25519.sk (64 raw bytes)
		rm -rf "$DIR/keydir"
		mkdir -p "$DIR/keydir"
		ed25519_openssh_to_raw "$HOSTKEY" "$DIR/keydir.tmp"
		mv "$DIR/keydir.tmp/pk" "$DIR/keydir/ed25519.pk"
		mv "$DIR/keydir.tmp/sk" "$DIR/keydir/.ed25519.sk"
		rmdir "$DIR/keydir.tmp"
		chmod 700 "$DIR/keydir"; chmod 600 "$DIR/keydir/.ed25519.sk"
		# tinysshd only reads ~/.ssh/authorized_keys: trixie-exec bind-mounts ours there
		export PQKEX_TRIXIE_AUTHORIZED_KEYS="$DIR/authorized_keys"
		export PQKEX_TRIXIE_BIND="$DIR${PQKEX_TRIXIE_BIND:+:$PQKEX_TRIXIE_BIND}"
		;;
	esac
}

cmd_start() {
	trap cleanup_failed_start EXIT
	parse_start "$@"
	prep_dir
	prep_kind
	local port="$PORT" pid attempt
	[ "$port" = 0 ] && { port="$(pick_port)" || die "no free port"; }
	if [ "$FG" = 1 ]; then
		server_cmd "$port"
		write_client_files "$port"
		print_env "$port" "$$"
		echo "$$" >"$DIR/server.pid"
		exec </dev/null >>"$LOG" 2>&1
		exec "${CMD[@]}"
	fi
	for attempt in 1 2 3 4 5; do
		server_cmd "$port"
		: >"$LOG"
		"${CMD[@]}" </dev/null >>"$LOG" 2>&1 &
		pid=$!
		if wait_listening "$port" "$pid"; then
			echo "$pid" >"$DIR/server.pid"
			STARTED=1
			write_client_files "$port"
			print_env "$port" "$pid"
			return 0
		fi
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
		if [ "$PORT" != 0 ] || [ "$attempt" = 5 ]; then
			cat "$LOG" >&2
			die "$KIND did not come up on 127.0.0.1:$port"
		fi
		port="$(pick_port)" || die "no free port"
	done
}

# alive PID: running and not a zombie (a backgrounded server is re-parented to
# PID 1 when "start" exits, and PID 1 may take a while to reap it)
alive() {
	local st
	st="$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)" || return 1
	[ -n "$st" ] && [ "$st" != Z ]
}

cmd_stop() {
	local arg="${1:-}" pid="" dir=""
	[ -n "$arg" ] || usage
	if [ -d "$arg" ]; then
		dir="$arg"
		[ -f "$dir/server.pid" ] && pid="$(cat "$dir/server.pid")"
	else
		pid="$arg"
	fi
	if [ -n "$pid" ] && alive "$pid"; then
		kill "$pid" 2>/dev/null || true
		local _
		for _ in $(seq 1 100); do alive "$pid" || break; sleep 0.02; done
		alive "$pid" && kill -9 "$pid" 2>/dev/null
	fi
	if [ -n "$dir" ] && [ -f "$dir/.pqkex-own-dir" ]; then rm -rf "$dir"; fi
	return 0
}

# probe-kex KIND: the kex name-list of the server's KEXINIT, as ssh -vv shows it
cmd_probe_kex() {
	local kind="${1:-}" out env
	[ -n "$kind" ] || usage
	env="$(bash "$0" start "$kind")" || die "probe: cannot start $kind"
	local port dir
	port="$(sed -n 's/^PEER_PORT=//p' <<<"$env")"
	dir="$(sed -n 's/^PEER_DIR=//p' <<<"$env")"
	out="$(/usr/bin/ssh -vv -F none -o BatchMode=yes -o StrictHostKeyChecking=no \
		-o UserKnownHostsFile=/dev/null -o IdentitiesOnly=yes -o IdentityFile="$dir/id_ed25519" \
		-o ConnectTimeout=10 -p "$port" root@127.0.0.1 true 2>&1 </dev/null || true)"
	bash "$0" stop "$dir"
	awk '/peer server KEXINIT proposal/ {p=1} p && /KEX algorithms:/ {sub(/.*KEX algorithms: /, ""); print; exit}' <<<"$out" |
		grep . || { echo "$out" >&2; die "probe: no server KEXINIT seen"; }
}

case "${1:-}" in
start) shift; cmd_start "$@" ;;
stop) shift; cmd_stop "$@" ;;
probe-kex) shift; cmd_probe_kex "$@" ;;
*) usage ;;
esac
