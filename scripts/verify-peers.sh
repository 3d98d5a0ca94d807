#!/usr/bin/env bash
# verify-peers.sh - prove every installed peer works, in both roles, on loopback.
#
#   scripts/verify-peers.sh            (root; after install-peers.sh all; ~15 s)
#
# Server role: each server peer (peer-server.sh start KIND) gets a login with
#   OpenSSH 10.0's ssh -vv -o KexAlgorithms=K ... echo ok, for every PQ kex K
#   it should offer; the client's "debug1: kex: algorithm: K" and, where the
#   server logs it, the server's own line prove the negotiation.  A kex the
#   server must NOT offer is checked to fail.
#   OpenSSH 10.6's sshd (forky chroot) is logged in to by OpenSSH 10.6's own
#   ssh (10.0 lacks mlkem768nistp256-sha256), with the server configured for
#   that name and the three X25519 ones (it is not in 10.6's default list).
# Client role: OpenSSH 9.2's ssh and dropbear's dbclient log in to OpenSSH
#   10.0's sshd, PuTTY 0.85's plink to OpenSSH 10.6's sshd (restricted to one
#   kex with --kex K); sshd's log proves K, and plink's own -v line
#   ("Doing ... key exchange") where it is the client.
# libssh 0.12 (libssh-peer, forky chroot): as a server, logged in to by
#   OpenSSH 10.6's ssh with each of its four hybrids and by plink with
#   mlkem1024nistp384-sha384 (the server restricted to it; no OpenSSH has
#   it); as a client, against OpenSSH 10.6's sshd with each hybrid it has.
# Prints one PASS/FAIL line per check, then "verify-peers: N passed, M failed";
# exits 1 if anything failed.  Leaves no process running.
# shellcheck disable=SC2016 # single quotes inside messages are literal
set -euo pipefail

HERE="$(dirname "$(readlink -f "$0")")"
_peers_tag=verify-peers
# shellcheck source-path=SCRIPTDIR source=peers-lib.sh
. "$HERE/peers-lib.sh"
need_root
eval "$(bash "$HERE/peer-env.sh" --require)" || die "peers missing: run scripts/install-peers.sh all"

PASS=0 FAIL=0
WORK="$(mktemp -d /tmp/pqkex-verify.XXXXXX)"
STARTED_DIRS=()
cleanup() {
	local d
	for d in "${STARTED_DIRS[@]}"; do bash "$PQKEX_PEER_SERVER" stop "$d" || true; done
	rm -rf "$WORK"
}
trap cleanup EXIT

crlf() { sed -i 's/\r$//' "$@"; } # OpenSSH ends its log lines in \r\n
pass() { PASS=$((PASS + 1)); printf 'PASS %s\n' "$*"; }
fail() { FAIL=$((FAIL + 1)); printf 'FAIL %s\n' "$*"; }

# one client key for everything (OpenSSH format, plus dropbear format for dbclient)
"$PQKEX_OPENSSH10_KEYGEN" -q -t ed25519 -N '' -C pqkex-verify -f "$WORK/id_ed25519"
"$PQKEX_DROPBEARCONVERT" openssh dropbear "$WORK/id_ed25519" "$WORK/id_ed25519.dropbear" >/dev/null 2>&1

start_server() { # KIND [extra peer-server options] -> sets PEER_* vars
	local out
	out="$(bash "$PQKEX_PEER_SERVER" start "$@" --authorized-keys "$WORK/id_ed25519.pub")" ||
		die "cannot start $1"
	eval "$out"
	STARTED_DIRS+=("$PEER_DIR")
}
stop_server() { bash "$PQKEX_PEER_SERVER" stop "$PEER_DIR"; }

# ssh_login SSH KEX OUTFILE: key login with strict host key checking, "echo ok"
ssh_login() {
	"$1" -vv -F none -o BatchMode=yes -o IdentitiesOnly=yes -i "$WORK/id_ed25519" \
		-o UserKnownHostsFile="$PEER_KNOWN_HOSTS" -o StrictHostKeyChecking=yes \
		-o ConnectTimeout=10 -o KexAlgorithms="$2" -p "$PEER_PORT" root@127.0.0.1 echo ok \
		</dev/null >"$3.out" 2>"$3.err"
	local rc=$?
	crlf "$3.out" "$3.err"
	return "$rc"
}

# ---------------------------------------------------------------- server role
server_role() { # KIND SERVER_LOG_PATTERN_PREFIX KEX... ; "!KEX" = must fail
	# SR_SSH: the client (default OpenSSH 10.0's ssh); SR_ARGS: peer-server options
	local kind="$1" spat="$2" k neg t0 cssh="${SR_SSH:-$PQKEX_OPENSSH10_SSH}"
	local cname
	cname="$("$cssh" -V 2>&1 | sed 's/,.*//')"
	shift 2
	# shellcheck disable=SC2086 # SR_ARGS is a word list
	start_server "$kind" ${SR_ARGS:-}
	printf -- '-- %s on 127.0.0.1:%s (pid %s, exe %s)\n' "$kind" "$PEER_PORT" "$PEER_PID" \
		"$(readlink "/proc/$PEER_PID/exe")"
	for k in "$@"; do
		local f="$WORK/$kind-${k//[^a-z0-9]/_}"
		t0=$(date +%s%N)
		if [ "${k#!}" != "$k" ]; then
			k="${k#!}"
			if ssh_login "$cssh" "$k" "$f"; then
				fail "$kind server must not offer $k"
			elif grep -q 'no matching key exchange method found' "$f.err"; then
				pass "$kind server does not offer $k ($(grep -o 'no matching key exchange method found.*' "$f.err" | head -1))"
			else
				fail "$kind server + $k: unexpected failure: $(tail -1 "$f.err")"
			fi
			continue
		fi
		if ! ssh_login "$cssh" "$k" "$f"; then
			fail "$kind server + $cname, $k: login failed: $(tail -2 "$f.err" | tr '\n' ' ')"
			continue
		fi
		neg="$(sed -n 's/^debug1: kex: algorithm: //p' "$f.err" | head -1)"
		if [ "$(cat "$f.out")" != ok ] || [ "$neg" != "$k" ]; then
			fail "$kind server, $k: out=$(cat "$f.out") negotiated=$neg"
			continue
		fi
		local sline=""
		if [ -n "$spat" ]; then
			sline="$(tr -d '\r' <"$PEER_LOG" | grep -F "$spat$k" | tail -1 | sed 's/^tinysshd: [^:]*: //' || true)"
			[ -n "$sline" ] || { fail "$kind server, $k: no '$spat$k' in server log"; continue; }
		fi
		pass "$kind server + $cname, $k: 'echo ok' ok in $((($(date +%s%N) - t0) / 1000000)) ms; client: 'debug1: kex: algorithm: $neg'${sline:+; server: '$sline'}"
	done
	echo "   server KEXINIT kex list: $(awk '/peer server KEXINIT proposal/{p=1} p&&/KEX algorithms:/{sub(/.*KEX algorithms: /,"");print;exit}' "$f.err")"
	stop_server
}

echo "== server role (client: $($PQKEX_OPENSSH10_SSH -V 2>&1))"
server_role openssh10 'kex: algorithm: ' \
	mlkem768x25519-sha256 sntrup761x25519-sha512 sntrup761x25519-sha512@openssh.com
server_role openssh92 'kex: algorithm: ' \
	sntrup761x25519-sha512@openssh.com sntrup761x25519-sha512 '!mlkem768x25519-sha256'
server_role dropbear '' \
	mlkem768x25519-sha256 sntrup761x25519-sha512 sntrup761x25519-sha512@openssh.com
server_role tinysshd 'kex: kex selected: ' \
	sntrup761x25519-sha512@openssh.com '!mlkem768x25519-sha256' '!sntrup761x25519-sha512'
OSSH106_KEX=mlkem768nistp256-sha256,mlkem768x25519-sha256,sntrup761x25519-sha512,sntrup761x25519-sha512@openssh.com
SR_SSH="$PQKEX_OPENSSH106_SSH" SR_ARGS="--kex $OSSH106_KEX" server_role openssh106 'kex: algorithm: ' \
	mlkem768nistp256-sha256 mlkem768x25519-sha256 sntrup761x25519-sha512 \
	sntrup761x25519-sha512@openssh.com
# libssh's default list has all five hybrids; OpenSSH 10.6 has four of them
SR_SSH="$PQKEX_OPENSSH106_SSH" server_role libssh 'kex: algorithm: ' \
	mlkem768nistp256-sha256 mlkem768x25519-sha256 sntrup761x25519-sha512 \
	sntrup761x25519-sha512@openssh.com

# ---------------------------------------------------------------- client role
ossh92_client() { # KEX ("" = default)
	"$PQKEX_OPENSSH92_SSH" -v -F none -o BatchMode=yes -o IdentitiesOnly=yes -i "$WORK/id_ed25519" \
		-o UserKnownHostsFile="$PEER_KNOWN_HOSTS" -o StrictHostKeyChecking=yes \
		${1:+-o KexAlgorithms="$1"} -p "$PEER_PORT" root@127.0.0.1 echo ok
}
dbclient_client() { # (dbclient cannot choose a kex: the server is restricted instead)
	# -y -y: no host key check (dbclient has no known_hosts-file option);
	# "host/port" syntax; -i takes a dropbear-format key only
	"$PQKEX_DBCLIENT" -y -y -i "$WORK/id_ed25519.dropbear" -l root "127.0.0.1/$PEER_PORT" echo ok
}

plink_client() { # (plink cannot choose a kex either; -hostkey pins the host key)
	local fp
	fp="$("$PQKEX_OPENSSH10_KEYGEN" -l -E sha256 -f "$PEER_HOSTKEY_PUB" | awk '{print $2}')"
	"$PQKEX_PLINK" -ssh -batch -v -P "$PEER_PORT" -l root -i "$WORK/id_ed25519.ppk" -hostkey "$fp" 127.0.0.1 echo ok
}

client_check() { # NAME FUNC KEX: sshd restricted to KEX ("" = default); FUNC KEX logs in
	# CC_KIND: the sshd (default openssh10)
	local name="$1" func="$2" kex="$3" f neg offered kind="${CC_KIND:-openssh10}" sname
	f="$WORK/client-${func}-${kex//[^a-z0-9]/_}"
	sname="$kind sshd"
	start_server "$kind" --loglevel DEBUG2 ${kex:+--kex "$kex"}
	local rc=0
	"$func" "$kex" </dev/null >"$f.out" 2>"$f.err" || rc=$?
	crlf "$f.out" "$f.err"
	tr -d '\r' <"$PEER_LOG" >"$f.slog" # (never sed -i a log a server still writes)
	if [ "$rc" != 0 ] || [ "$(cat "$f.out")" != ok ]; then
		fail "$name -> $sname (${kex:-default}): $(tail -2 "$f.err" | tr '\n' ' ')"
		stop_server
		return
	fi
	neg="$(sed -n 's/^debug1: kex: algorithm: \(.*\) \[preauth\]$/\1/p' "$f.slog" | head -1)"
	offered="$(awk '/peer client KEXINIT proposal/{p=1} p&&/KEX algorithms:/{sub(/.*KEX algorithms: /,"");sub(/ \[preauth\]$/,"");print;exit}' "$f.slog")"
	if [ -n "$kex" ] && [ "$neg" != "$kex" ]; then
		fail "$name -> $sname: wanted $kex, sshd negotiated '$neg'"
	else
		local cl
		cl="$(grep -E -m1 '^(debug1: kex: algorithm: |Doing .* key exchange|libssh-peer: kex: algorithm: )' "$f.err" || true)"
		pass "$name -> $sname (KexAlgorithms ${kex:-default}): 'echo ok' ok; sshd: 'debug1: kex: algorithm: $neg [preauth]'${cl:+; client: '$cl'}"
	fi
	[ -n "$kex" ] || echo "   $name KEXINIT kex list (sshd DEBUG2 'peer client KEXINIT proposal'): $offered"
	stop_server
}

echo "== client role (server: OpenSSH 10.0 sshd, LogLevel DEBUG2)"
for k in "" sntrup761x25519-sha512@openssh.com sntrup761x25519-sha512; do
	client_check "OpenSSH 9.2 ssh" ossh92_client "$k"
done
for k in "" mlkem768x25519-sha256 sntrup761x25519-sha512 sntrup761x25519-sha512@openssh.com; do
	client_check "dropbear dbclient" dbclient_client "$k"
done
echo "== client role (server: OpenSSH 10.6 sshd, forky chroot, LogLevel DEBUG2)"
"$PQKEX_PUTTYGEN" "$WORK/id_ed25519" -O private -o "$WORK/id_ed25519.ppk"
for k in "" mlkem768nistp256-sha256 mlkem768x25519-sha256 sntrup761x25519-sha512 sntrup761x25519-sha512@openssh.com; do
	CC_KIND=openssh106 client_check "PuTTY 0.85 plink" plink_client "$k"
done

# plink -> libssh server offering only mlkem1024nistp384-sha384: plink's
# "Doing ML-KEM-1024 / NIST P384 ..." line and libssh-peer's log prove it
k=mlkem1024nistp384-sha384
start_server libssh --kex "$k"
f="$WORK/libssh-plink"
rc=0
plink_client "$k" </dev/null >"$f.out" 2>"$f.err" || rc=$?
crlf "$f.out" "$f.err"
cl="$(grep -m1 'Doing ML-KEM-1024 / NIST P384' "$f.err" || true)"
sl="$(grep -F -m1 "kex: algorithm: $k" "$PEER_LOG" || true)"
if [ "$rc" = 0 ] && [ "$(cat "$f.out")" = ok ] && [ -n "$cl" ] && [ -n "$sl" ]; then
	pass "PuTTY 0.85 plink -> libssh server (kex $k only): 'echo ok' ok; client: '$cl'; server: '$sl'"
else
	fail "PuTTY 0.85 plink -> libssh server ($k): rc=$rc out=$(cat "$f.out") $(tail -2 "$f.err" | tr '\n' ' ')"
fi
stop_server

echo "== client role: libssh 0.12 (libssh-peer client) -> OpenSSH 10.6 sshd"
libssh_client() { # KEX ("" = libssh's default); -K pins the host key
	"$PQKEX_LIBSSH_PEER" client -p "$PEER_PORT" ${1:+-x "$1"} -K "$PEER_HOSTKEY_PUB" \
		-i "$WORK/id_ed25519" -c "echo ok" 127.0.0.1
}
for k in "" mlkem768nistp256-sha256 mlkem768x25519-sha256 sntrup761x25519-sha512 sntrup761x25519-sha512@openssh.com; do
	CC_KIND=openssh106 client_check "libssh 0.12 libssh-peer" libssh_client "$k"
done

echo "verify-peers: $PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
