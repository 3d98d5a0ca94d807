#!/usr/bin/env bash
# install-peers.sh - install the real SSH peers used by pqkex's interop tests.
#
#   scripts/install-peers.sh [openssh10|openssh92|trixie|forky|libssh|all]...   (default: all; root only)
#
#   openssh10  OpenSSH 10.0 client+server from bookworm-backports, installed as
#              the system ssh/sshd (/usr/bin/ssh, /usr/sbin/sshd). No service
#              is started or enabled; nothing binds port 22.
#   openssh92  bookworm's own OpenSSH 9.2 client+server .debs, fetched with
#              "apt-get download" and unpacked (dpkg-deb -x) into
#              $PQKEX_PEERS_DIR/openssh-9.2 - NOT installed over the system one.
#   trixie     a minbase Debian 13 "trixie" chroot ($PQKEX_PEERS_DIR/trixie,
#              debootstrap) holding dropbear 2025.89 (dropbear, dbclient,
#              dropbearkey, dropbearconvert), tinysshd 20250501 and tcpserver
#              (ucspi-tcp), plus wrappers in $PQKEX_PEERS_DIR/bin that run them
#              in the chroot (see README.md, "trixie wrappers").
#   forky      a minbase Debian "forky" (testing) chroot ($PQKEX_PEERS_DIR/forky)
#              holding OpenSSH 10.6 (openssh-server, openssh-client: the first
#              with mlkem768nistp256-sha256) and PuTTY 0.85 (putty-tools: plink,
#              puttygen), plus wrappers $PQKEX_PEERS_DIR/bin/forky-{ssh,sshd,
#              ssh-keygen,plink,puttygen} and forky-exec.  No service is started.
#   libssh     libssh 0.12 (forky's libssh-dev, with gcc) in the forky chroot
#              (made first if missing) and scripts/libssh-peer.c built there
#              against it as /usr/bin/libssh-peer, a small server and client
#              (wrapper $PQKEX_PEERS_DIR/bin/forky-libssh-peer).  Rebuilt
#              whenever libssh-peer.c changes.
#
# Idempotent: what is already there is only checked (no apt, no network), so a
# second run takes about a second.  Each part prints its versions and kex lists.
# Exits non-zero with "ERROR:" on any failure.  The Debian mirror is read at run
# time from /etc/apt/sources.list{,.d/*}; no host name is written anywhere.
#
# Env: PQKEX_PEERS_DIR (default /opt/pqkex-peers).
set -euo pipefail

_peers_tag=install-peers
# shellcheck source-path=SCRIPTDIR source=peers-lib.sh
. "$(dirname "$(readlink -f "$0")")/peers-lib.sh"

need_root
trap 'echo "[install-peers] ERROR: command failed (line $LINENO, exit $?)" >&2' ERR
T_START=$SECONDS

# ===================================================================== openssh10
BPO_FILE=/etc/apt/sources.list.d/pqkex-bookworm-backports.sources

ossh10_ok() {
	local s c
	s="$(pkg_ver openssh-server)"; c="$(pkg_ver openssh-client)"
	[ -n "$s" ] && [ -n "$c" ] && [ -x /usr/sbin/sshd ] || return 1
	s="${s#*:}"; c="${c#*:}"
	[ "${s%%.*}" -ge 10 ] && [ "${c%%.*}" -ge 10 ]
}

report_openssh10() {
	echo "== OpenSSH 10 (system): openssh-client $(pkg_ver openssh-client), openssh-server $(pkg_ver openssh-server)"
	echo "-- /usr/bin/ssh -V: $(/usr/bin/ssh -V 2>&1)"
	echo "-- /usr/bin/ssh -Q kex (client supports):"
	/usr/bin/ssh -Q kex | sed 's/^/     /'
	echo "-- /usr/sbin/sshd default KexAlgorithms (sshd -T):"
	sshd_default_kex /usr/sbin/sshd | tr ',' '\n' | sed 's/^/     /'
}

# sshd_default_kex SSHD: the server's default kex list
sshd_default_kex() {
	local d
	d="$(mktemp -d)"
	/usr/bin/ssh-keygen -q -t ed25519 -N '' -f "$d/hk"
	printf 'HostKey %s\nPidFile none\nUsePAM no\n' "$d/hk" >"$d/cfg"
	"$1" -T -f "$d/cfg" 2>&1 | awk '$1=="kexalgorithms"{print $2}'
	rm -rf "$d"
}

install_openssh10() {
	local t0=$SECONDS
	if ossh10_ok; then
		log "openssh10: already installed"
		report_openssh10
		return 0
	fi
	export DEBIAN_FRONTEND=noninteractive
	if grep -rqsE '^[^#]*bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
		log "openssh10: bookworm-backports already configured"
	else
		local src uri sb
		src="$(derive_source bookworm)" || die "openssh10: no apt source for 'bookworm' to derive backports from"
		uri="${src%%$'\t'*}"; sb="${src#*$'\t'}"
		[ -n "$sb" ] || sb=/usr/share/keyrings/debian-archive-keyring.gpg
		log "openssh10: adding bookworm-backports (same URI/keyring as bookworm) -> $BPO_FILE"
		printf 'Types: deb\nURIs: %s\nSuites: bookworm-backports\nComponents: main\nSigned-By: %s\n' \
			"$uri" "$sb" >"$BPO_FILE"
		_APT_UPDATED=0
	fi
	if ! apt-cache madison openssh-server 2>/dev/null | grep -q bookworm-backports; then
		apt_update_once
	fi
	local v
	v="$(apt-cache madison openssh-server | awk -F'|' '$3 ~ /bookworm-backports/ {gsub(/ /,"",$2); print $2; exit}')"
	[ -n "$v" ] || die "openssh10: openssh-server not found in bookworm-backports"
	log "openssh10: installing openssh-server/client/sftp-server $v"

	# never start or enable a service: policy-rc.d 101 during the install
	local policy=/usr/sbin/policy-rc.d policy_bak=""
	if [ -e "$policy" ]; then policy_bak="$(mktemp)"; cp -p "$policy" "$policy_bak"; fi
	printf '#!/bin/sh\n# temporary, from pqkex scripts/install-peers.sh\nexit 101\n' >"$policy"
	chmod 755 "$policy"
	if [ -d /run/systemd/system ] && command -v systemctl >/dev/null; then
		systemctl mask ssh.service ssh.socket sshd.service >/dev/null 2>&1 || true
	fi
	# only the openssh packages from backports; dependencies from bookworm
	local rc=0
	"${APT_INSTALL[@]}" "openssh-server=$v" "openssh-client=$v" "openssh-sftp-server=$v" >/dev/null || rc=$?
	if [ "$rc" != 0 ]; then
		log "openssh10: retrying with -t bookworm-backports"
		rc=0
		"${APT_INSTALL[@]}" -t bookworm-backports "openssh-server=$v" "openssh-client=$v" "openssh-sftp-server=$v" >/dev/null || rc=$?
	fi
	if [ -n "$policy_bak" ]; then cp -p "$policy_bak" "$policy"; rm -f "$policy_bak"; else rm -f "$policy"; fi
	[ "$rc" = 0 ] || die "openssh10: apt-get install failed"
	# a package-started sshd (e.g. without policy-rc.d support) must not survive
	if ss -Hltn 'sport = :22' 2>/dev/null | grep -q .; then
		die "openssh10: something listens on port 22 after the install"
	fi
	mkdir -p /run/sshd && chmod 755 /run/sshd
	ossh10_ok || die "openssh10: install finished but OpenSSH >= 10 is not in place"
	log "openssh10: done in $((SECONDS - t0)) s"
	report_openssh10
}

# ===================================================================== openssh92
OSSH92_MARK="$OSSH92_DIR/.pqkex-ready"

ossh92_run() { "$@"; } # the unpacked binaries use the system's libraries

ossh92_ok() {
	[ -f "$OSSH92_MARK" ] && [ -x "$OSSH92_DIR/usr/sbin/sshd" ] &&
		ossh92_run "$OSSH92_DIR/usr/bin/ssh" -V 2>&1 | grep -q 'OpenSSH_9\.2' &&
		getent passwd sshd >/dev/null
}

report_openssh92() {
	echo "== OpenSSH 9.2 (unpacked in $OSSH92_DIR): $(cat "$OSSH92_MARK")"
	echo "-- $OSSH92_DIR/usr/bin/ssh -V: $(ossh92_run "$OSSH92_DIR/usr/bin/ssh" -V 2>&1)"
	echo "-- ssh -Q kex (client supports):"
	ossh92_run "$OSSH92_DIR/usr/bin/ssh" -Q kex | sed 's/^/     /'
	echo "-- sshd default KexAlgorithms (sshd -T):"
	sshd_default_kex "$OSSH92_DIR/usr/sbin/sshd" | tr ',' '\n' | sed 's/^/     /'
}

# newest openssh-server 9.2 version of a plain bookworm suite (not backports)
ossh92_version() {
	local v best=""
	for v in $(apt-cache madison openssh-server 2>/dev/null |
		awk -F'|' '$3 ~ /Packages/ && $3 !~ /backports/ && $2 ~ /:9\.2p1/ { gsub(/ /, "", $2); print $2 }'); do
		if [ -z "$best" ] || dpkg --compare-versions "$v" gt "$best"; then best="$v"; fi
	done
	echo "$best"
}

install_openssh92() {
	local t0=$SECONDS
	if ossh92_ok; then
		log "openssh92: already unpacked"
		report_openssh92
		return 0
	fi
	local v
	v="$(ossh92_version)"
	if [ -z "$v" ]; then apt_update_once; v="$(ossh92_version)"; fi
	[ -n "$v" ] || die "openssh92: no openssh-server 9.2 in the bookworm apt sources"
	log "openssh92: apt-get download openssh-client/openssh-server $v"
	local dl
	dl="$(mktemp -d)"
	chown _apt "$dl" 2>/dev/null || true # lets apt download sandboxed
	if ! (cd "$dl" && apt-get download -qq "openssh-client=$v" "openssh-server=$v" >/dev/null 2>&1); then
		# stale package lists name a version the mirror no longer has
		[ "$_APT_UPDATED" = 1 ] && die "openssh92: apt-get download $v failed"
		apt_update_once
		v="$(ossh92_version)"
		log "openssh92: retrying with $v"
		(cd "$dl" && apt-get download -qq "openssh-client=$v" "openssh-server=$v" >/dev/null) ||
			die "openssh92: apt-get download failed"
	fi
	rm -rf "$OSSH92_DIR"
	mkdir -p "$OSSH92_DIR"
	local deb
	for deb in "$dl"/openssh-*.deb; do dpkg-deb -x "$deb" "$OSSH92_DIR"; done

	# shared libraries the 9.2 binaries need: normally all present (the 10.0
	# packages have the same dependencies); otherwise install bookworm's
	# library packages named in the .debs' Depends (never openssh itself)
	local missing libs
	missing="$(ldd "$OSSH92_DIR/usr/bin/ssh" "$OSSH92_DIR/usr/sbin/sshd" | awk '/not found/{print $1}' | sort -u)"
	if [ -n "$missing" ]; then
		libs="$(for deb in "$dl"/openssh-*.deb; do dpkg-deb -f "$deb" Depends; done | tr ',' '\n' |
			sed -E 's/\(.*\)//; s/\|.*//; s/[[:space:]]//g' | grep '^lib' | sort -u | tr '\n' ' ')"
		log "openssh92: missing $(echo "$missing" | tr '\n' ' ')- installing $libs"
		# shellcheck disable=SC2086
		apt_install $libs
		missing="$(ldd "$OSSH92_DIR/usr/bin/ssh" "$OSSH92_DIR/usr/sbin/sshd" | awk '/not found/{print $1}' | sort -u)"
		[ -z "$missing" ] || die "openssh92: still missing libraries: $missing"
	fi
	rm -rf "$dl"

	# privilege separation: user sshd and /run/sshd (normally made by openssh-server)
	if ! getent passwd sshd >/dev/null; then
		log "openssh92: creating privsep user sshd"
		useradd --system --no-create-home --home-dir /run/sshd --shell /usr/sbin/nologin sshd
	fi
	mkdir -p /run/sshd && chown root:root /run/sshd && chmod 755 /run/sshd

	echo "openssh-client/openssh-server $v" >"$OSSH92_MARK"
	ossh92_ok || die "openssh92: unpacked, but $OSSH92_DIR/usr/bin/ssh does not run as OpenSSH 9.2"
	log "openssh92: done in $((SECONDS - t0)) s"
	report_openssh92
}

# ===================================================================== chroots
# helpers of the trixie and forky sections

# chroot_ready NAME ROOT: if NAME's chroot at ROOT passes NAME_ok, rewrite
# its wrappers (cheap; keeps them in sync with this script), report it and
# succeed; else fail
chroot_ready() {
	"$1_ok" || return 1
	log "$1: chroot ready at $2"
	"write_$1_exec"
	"report_$1"
}

# chroot_root_ssh ROOT: root's ~/.ssh in the chroot at ROOT, with an empty
# authorized_keys (modes as sshd wants them)
chroot_root_ssh() {
	mkdir -p "$1/root/.ssh"
	chmod 700 "$1/root/.ssh"
	touch "$1/root/.ssh/authorized_keys"
	chmod 600 "$1/root/.ssh/authorized_keys"
}

# die_with_log WHAT LOG: show the end of LOG and die: WHAT failed
die_with_log() {
	tail -25 "$2" >&2
	die "$1 failed (log: $2)"
}

# ===================================================================== trixie
TRIXIE_PKGS="dropbear-bin,tinysshd,ucspi-tcp"
TRIXIE_MARK="$TRIXIE_ROOT/.pqkex-ready"

trixie_ok() {
	[ -f "$TRIXIE_MARK" ] && [ -x "$PEERS_BIN/trixie-exec" ] &&
		chroot "$TRIXIE_ROOT" /usr/bin/dbclient -V >/dev/null 2>&1 &&
		[ -x "$TRIXIE_ROOT/usr/sbin/tinysshd" ] && [ -x "$TRIXIE_ROOT/usr/bin/tcpserver" ]
}

# write_chroot_exec ROOT EXE SUITE ENV PREFIX ABS PROG...: generate
# $PEERS_BIN/EXE, which runs a program of the chroot ROOT with the host's
# /tmp (and $TMPDIR, and PQKEX_<ENV>_BIND dirs) visible at the same path
# inside, in a private mount namespace that disappears with the last process
# (nothing to clean up), and a symlink PREFIX+PROG -> EXE for each PROG.
# When only /tmp is needed (no AUTHORIZED_KEYS; TMPDIR and the BIND dirs
# unset or under /tmp), it enters instead a mount namespace made once and kept
# at /run/pqkex-peers/SUITE.mnt (an nsfs bind mount; /run is emptied at
# boot) with /dev, /proc and /tmp already mounted in the chroot: a run
# then costs four executions, not a dozen (about 35 ms instead of 140 ms
# on a 2-core VM; the interop tests start the clients hundreds of times).
# The host never sees those mounts, so removing the chroot cannot reach
# into /dev or /tmp.
# Called by a symlink's name (PREFIX is stripped) or as "EXE PROG ARGS...".
# ABS=1 runs PROG by its absolute path inside the chroot.  The PID stays the
# same through every exec.
write_chroot_exec() {
	local root="$1" exe="$2" suite="$3" env="$4" prefix="$5" abs="$6"
	shift 6
	mkdir -p "$PEERS_BIN"
	cat >"$PEERS_BIN/$exe" <<'EOF'
#!/usr/bin/env bash
# generated by pqkex scripts/install-peers.sh - see scripts/README.md
#   @EXE@ PROG [ARGS...]   or via a symlink named @PREFIX@PROG (e.g. @PREFIX@@EXAMPLE@)
# Runs PROG inside the @SUITE@ chroot in a private mount namespace where
#   /dev, /proc              are the host's,
#   /tmp, $TMPDIR, and each dir of PQKEX_@ENV@_BIND (colon-separated, absolute)
#                            are bind-mounted at the SAME path (host paths just work),
#   /root/.ssh/authorized_keys is PQKEX_@ENV@_AUTHORIZED_KEYS if set.
# Everything is exec'ed: the PID you start is PROG's PID.
set -euo pipefail
ROOT="@ROOT@"
ABS=@ABS@ # 1: run PROG by its absolute path in the chroot (sshd re-executes itself)
if [ "${1:-}" = --in-ns ]; then
	shift
	mount --make-rprivate / 2>/dev/null || true
	mount --rbind /dev "$ROOT/dev"
	mount -t proc proc "$ROOT/proc"
	IFS=: read -r -a dirs <<<"/tmp:${TMPDIR:-}:${PQKEX_@ENV@_BIND:-}"
	for d in "${dirs[@]}"; do
		if [ -z "$d" ] || [ ! -d "$d" ]; then continue; fi
		case "$d" in /*) ;; *) echo "@EXE@: bind dir must be absolute: $d" >&2; exit 2 ;; esac
		d="$(readlink -f "$d")"
		mkdir -p "$ROOT$d"
		mount --rbind "$d" "$ROOT$d"
	done
	if [ -n "${PQKEX_@ENV@_AUTHORIZED_KEYS:-}" ]; then
		ak="$(readlink -f "$PQKEX_@ENV@_AUTHORIZED_KEYS")"
		[ -f "$ak" ] || { echo "@EXE@: no file $ak" >&2; exit 2; }
		mount --bind "$ak" "$ROOT/root/.ssh/authorized_keys"
	fi
	prog="$1"; shift
	if [ "$ABS" = 1 ] && [ "${prog#/}" = "$prog" ]; then
		for d in /usr/sbin /usr/bin /sbin /bin; do
			if [ -x "$ROOT$d/$prog" ]; then prog="$d/$prog"; break; fi
		done
	fi
	exec env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root USER=root LOGNAME=root LANG=C.UTF-8 \
		TERM="${TERM:-dumb}" chroot "$ROOT" "$prog" "$@"
fi
name="$(basename "$0")"
if [ "$name" = @EXE@ ]; then
	[ $# -ge 1 ] || { echo "usage: @EXE@ PROG [ARGS...]" >&2; exit 2; }
	name="$1"; shift
else
	name="${name#@PREFIX@}"
fi
# The fast path: the kept namespace, when it has all this run needs.
NS=/run/pqkex-peers/@SUITE@.mnt
# TMPDIR and the BIND dirs must be under /tmp once symbolic links are
# resolved (cd -P, a builtin: no process is started for it).
fast=1
here=$PWD
IFS=: read -r -a dirs <<<"${TMPDIR:-}:${PQKEX_@ENV@_BIND:-}"
for d in "${dirs[@]}"; do
	if [ -z "$d" ]; then continue; fi
	if cd -P -- "$d" 2>/dev/null; then
		case "$PWD" in /tmp | /tmp/*) ;; *) fast=0 ;; esac
	else
		fast=0 # the slow path says what is wrong with it
	fi
done
cd -- "$here"
if [ "$fast" = 1 ] && [ -z "${PQKEX_@ENV@_AUTHORIZED_KEYS:-}" ]; then
	if [ ! -e "$NS.ready" ]; then
		# Made once, under a lock: a private mount for the nsfs bind,
		# then the namespace (slave: later host mounts under /dev and
		# /tmp still appear in it) with the chroot's mounts.
		mkdir -p /run/pqkex-peers
		exec 9>/run/pqkex-peers/.lock
		flock 9
		if [ ! -e "$NS.ready" ]; then
			mountpoint -q /run/pqkex-peers || { mount --bind /run/pqkex-peers /run/pqkex-peers && mount --make-private /run/pqkex-peers; }
			mountpoint -q "$NS" && umount "$NS"
			: >"$NS"
			unshare --mount="$NS" --propagation slave -- sh -ec \
				'mount --rbind /dev "$1/dev"; mount -t proc proc "$1/proc"; mount --rbind /tmp "$1/tmp"' sh "$ROOT"
			: >"$NS.ready"
		fi
		exec 9>&-
	fi
	prog="$name"
	if [ "$ABS" = 1 ] && [ "${prog#/}" = "$prog" ]; then
		for d in /usr/sbin /usr/bin /sbin /bin; do
			if [ -x "$ROOT$d/$prog" ]; then prog="$d/$prog"; break; fi
		done
	fi
	exec nsenter --mount="$NS" -- env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root USER=root LOGNAME=root LANG=C.UTF-8 \
		TERM="${TERM:-dumb}" chroot "$ROOT" "$prog" "$@"
fi
exec unshare --mount -- "$(readlink -f "$0")" --in-ns "$name" "$@"
EOF
	sed -i -e "s#@ROOT@#$root#" -e "s#@EXE@#$exe#g" -e "s#@SUITE@#$suite#" -e "s#@ENV@#$env#g" \
		-e "s#@PREFIX@#$prefix#g" -e "s#@ABS@#$abs#" -e "s#@EXAMPLE@#$1#" "$PEERS_BIN/$exe"
	chmod 755 "$PEERS_BIN/$exe"
	local p
	for p in "$@"; do
		ln -sfn "$exe" "$PEERS_BIN/$prefix$p"
	done
}

# trixie-exec: dropbear, tinysshd & co. (see README.md, "trixie wrappers")
write_trixie_exec() {
	write_chroot_exec "$TRIXIE_ROOT" trixie-exec trixie TRIXIE "" 0 \
		dropbear dbclient dropbearkey dropbearconvert tinysshd tinysshd-makekey tinysshd-printkey tcpserver
}

report_trixie() {
	echo "== trixie chroot $TRIXIE_ROOT: $(tr '\n' ' ' <"$TRIXIE_MARK")"
	echo "-- dropbear -V: $("$PEERS_BIN/dropbear" -V 2>&1 | head -1)"
	echo "-- dbclient -V: $("$PEERS_BIN/dbclient" -V 2>&1 | head -1)"
	# shellcheck disable=SC2016 # ${Version} is dpkg-query's, not ours
	echo "-- tinysshd: $(chroot "$TRIXIE_ROOT" dpkg-query -W -f='${Version}' tinysshd)"
	echo "-- wrappers: $PEERS_BIN/{dropbear,dbclient,dropbearkey,dropbearconvert,tinysshd,tinysshd-makekey,tinysshd-printkey,tcpserver,trixie-exec}"
	# kex lists as each server announces them in its KEXINIT (live probe)
	local name
	for name in dropbear tinysshd; do
		echo "-- $name server KEXINIT kex list (probed with ssh -vv):"
		bash "$(dirname "$(readlink -f "$0")")/peer-server.sh" probe-kex "$name" 2>&1 | tr ',' '\n' | sed 's/^/     /'
	done
}

install_trixie() {
	local t0=$SECONDS
	if chroot_ready trixie "$TRIXIE_ROOT"; then
		return 0
	fi
	command -v debootstrap >/dev/null || { log "trixie: installing debootstrap"; apt_install debootstrap; }
	local src uri kr
	src="$(derive_source bookworm trixie)" || die "trixie: no Debian apt source to derive the mirror from"
	uri="${src%%$'\t'*}"; kr="${src#*$'\t'}"
	[ -n "$kr" ] || kr=/usr/share/keyrings/debian-archive-keyring.gpg
	rm -rf "$TRIXIE_ROOT" # a half-made chroot is not worth repairing
	mkdir -p "$PEERS_DIR"
	log "trixie: debootstrap --variant=minbase --include=$TRIXIE_PKGS trixie (mirror taken from the apt sources)"
	local dlog="$PEERS_DIR/trixie-debootstrap.log"
	if ! debootstrap --variant=minbase --include="$TRIXIE_PKGS" --keyring="$kr" \
		trixie "$TRIXIE_ROOT" "$uri" >"$dlog" 2>&1; then
		die_with_log "trixie: debootstrap" "$dlog"
	fi
	rm -f "$dlog"
	rm -f "$TRIXIE_ROOT"/var/cache/apt/archives/*.deb
	# the chroot's apt sources name the mirror: drop them, nothing is installed later
	rm -f "$TRIXIE_ROOT/etc/apt/sources.list" "$TRIXIE_ROOT"/etc/apt/sources.list.d/*
	chroot_root_ssh "$TRIXIE_ROOT"
	# dropbear-bin's postinst may have made /etc/dropbear host keys: unused, harmless
	write_trixie_exec
	chroot "$TRIXIE_ROOT" dpkg-query -W dropbear-bin tinysshd ucspi-tcp >"$TRIXIE_MARK"
	trixie_ok || die "trixie: chroot made but the peers do not run"
	log "trixie: done in $((SECONDS - t0)) s, $(du -sh "$TRIXIE_ROOT" | cut -f1)"
	report_trixie
}

# ===================================================================== forky
# libssh's packages (install_libssh) come along, to save a second apt run
LIBSSH_PKGS="libssh-dev gcc libc6-dev"
FORKY_PKGS="openssh-server openssh-client putty-tools $LIBSSH_PKGS"
FORKY_MARK="$FORKY_ROOT/.pqkex-ready"
FORKY_PROGS="ssh sshd ssh-keygen plink puttygen libssh-peer" # libssh-peer: install_libssh

forky_ok() {
	[ -f "$FORKY_MARK" ] && [ -x "$PEERS_BIN/forky-exec" ] &&
		chroot "$FORKY_ROOT" /usr/bin/ssh -V 2>&1 | grep -q '^OpenSSH_10\.[6-9]' &&
		chroot "$FORKY_ROOT" /usr/bin/plink -V 2>&1 | grep -q '^plink: Release' &&
		[ -x "$FORKY_ROOT/usr/sbin/sshd" ]
}

# forky-exec: OpenSSH 10.6 and PuTTY's tools, by absolute path in the chroot
write_forky_exec() {
	# shellcheck disable=SC2086 # a word list
	write_chroot_exec "$FORKY_ROOT" forky-exec forky FORKY forky- 1 $FORKY_PROGS
}

report_forky() {
	echo "== forky chroot $FORKY_ROOT: $(tr '\n' ' ' <"$FORKY_MARK")"
	echo "-- forky-ssh -V: $("$PEERS_BIN/forky-ssh" -V 2>&1)"
	echo "-- forky-plink -V: $("$PEERS_BIN/forky-plink" -V 2>&1 | head -1)"
	echo "-- forky-ssh -Q kex (client supports):"
	"$PEERS_BIN/forky-ssh" -Q kex | sed 's/^/     /'
	echo "-- forky-sshd default KexAlgorithms (sshd -T):"
	local d
	d="$(mktemp -d)"
	"$PEERS_BIN/forky-ssh-keygen" -q -t ed25519 -N '' -f "$d/hk"
	printf 'HostKey %s\nPidFile none\nUsePAM no\n' "$d/hk" >"$d/cfg"
	"$PEERS_BIN/forky-sshd" -T -f "$d/cfg" 2>&1 | awk 'tolower($1)=="kexalgorithms"{print $2}' | tr ',' '\n' | sed 's/^/     /'
	rm -rf "$d"
	echo "-- wrappers: $PEERS_BIN/forky-{ssh,sshd,ssh-keygen,plink,puttygen,exec}"
}

# forky_apt_install URI PKG...: apt-get install PKG... inside the forky chroot
# from a temporary source (URI from the host's apt sources), then remove the
# source, the package lists and the .debs (they name the mirror)
forky_apt_install() {
	local uri="$1" rc=0 dlog="$PEERS_DIR/forky-install.log"
	shift
	# the suite's Release may be past its Valid-Until date: Check-Valid-Until no
	rm -f "$FORKY_ROOT/etc/apt/sources.list"
	printf 'Types: deb\nURIs: %s\nSuites: forky\nComponents: main\nSigned-By: %s\nCheck-Valid-Until: no\n' \
		"$uri" /usr/share/keyrings/debian-archive-keyring.gpg >"$FORKY_ROOT/etc/apt/sources.list.d/pqkex-forky.sources"
	log "forky: apt-get install $* (in the chroot)"
	mount -t proc proc "$FORKY_ROOT/proc"
	chroot "$FORKY_ROOT" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root DEBIAN_FRONTEND=noninteractive \
		sh -c "apt-get update -qq && apt-get install -y -qq --no-install-recommends $*" >>"$dlog" 2>&1 || rc=$?
	umount "$FORKY_ROOT/proc"
	rm -f "$FORKY_ROOT"/etc/apt/sources.list.d/* "$FORKY_ROOT"/var/cache/apt/archives/*.deb
	find "$FORKY_ROOT/var/lib/apt/lists" -type f -delete
	if [ "$rc" != 0 ]; then
		die_with_log "forky: apt-get install" "$dlog"
	fi
	rm -f "$dlog"
}

install_forky() {
	local t0=$SECONDS
	if chroot_ready forky "$FORKY_ROOT"; then
		return 0
	fi
	command -v debootstrap >/dev/null || { log "forky: installing debootstrap"; apt_install debootstrap; }
	local src uri kr script=""
	src="$(derive_source bookworm trixie forky sid)" || die "forky: no Debian apt source to derive the mirror from"
	uri="${src%%$'\t'*}"; kr="${src#*$'\t'}"
	[ -n "$kr" ] || kr=/usr/share/keyrings/debian-archive-keyring.gpg
	# bookworm's debootstrap has no forky script; forky is made like sid
	[ -e /usr/share/debootstrap/scripts/forky ] || script=/usr/share/debootstrap/scripts/sid
	rm -rf "$FORKY_ROOT" # a half-made chroot is not worth repairing
	mkdir -p "$PEERS_DIR"
	local dlog="$PEERS_DIR/forky-install.log"
	log "forky: debootstrap --variant=minbase forky (mirror taken from the apt sources)"
	# debootstrap does not check Valid-Until; apt (below) is told not to
	if ! debootstrap --variant=minbase --keyring="$kr" forky "$FORKY_ROOT" "$uri" $script >"$dlog" 2>&1; then
		die_with_log "forky: debootstrap" "$dlog"
	fi
	# never start a service from the chroot (its network is the host's):
	# policy-rc.d 101 stays in place
	printf '#!/bin/sh\n# from pqkex scripts/install-peers.sh: never start services here\nexit 101\n' \
		>"$FORKY_ROOT/usr/sbin/policy-rc.d"
	chmod 755 "$FORKY_ROOT/usr/sbin/policy-rc.d"
	# shellcheck disable=SC2086 # a word list
	forky_apt_install "$uri" $FORKY_PKGS
	if ss -Hltn 'sport = :22' 2>/dev/null | grep -q .; then
		die "forky: something listens on port 22 after the install"
	fi
	mkdir -p "$FORKY_ROOT/run/sshd"
	chroot_root_ssh "$FORKY_ROOT"
	write_forky_exec
	# shellcheck disable=SC2086 # a word list
	chroot "$FORKY_ROOT" dpkg-query -W $FORKY_PKGS >"$FORKY_MARK"
	forky_ok || die "forky: chroot made but OpenSSH 10.6+ or plink does not run"
	log "forky: done in $((SECONDS - t0)) s, $(du -sh "$FORKY_ROOT" | cut -f1)"
	report_forky
}

# ===================================================================== libssh
# libssh 0.12 (forky) and scripts/libssh-peer.c, built in the forky chroot
# (LIBSSH_PKGS: with FORKY_PKGS; added here to a chroot made without them)
LIBSSH_MARK="$FORKY_ROOT/.pqkex-libssh-ready"
LIBSSH_SRC="$(dirname "$(readlink -f "$0")")/libssh-peer.c"
LIBSSH_BUILT_SRC="$FORKY_ROOT/usr/local/src/pqkex/libssh-peer.c"

libssh_ok() {
	[ -f "$LIBSSH_MARK" ] && [ -x "$FORKY_ROOT/usr/bin/libssh-peer" ] &&
		cmp -s "$LIBSSH_SRC" "$LIBSSH_BUILT_SRC" &&
		grep -Eq '^libssh-4(:[a-z0-9]+)?[[:space:]]0\.(1[2-9]|[2-9][0-9])' "$LIBSSH_MARK"
}

report_libssh() {
	echo "== libssh in the forky chroot: $(tr '\n' ' ' <"$LIBSSH_MARK")"
	echo "-- wrapper: $PEERS_BIN/forky-libssh-peer (/usr/bin/libssh-peer, built from scripts/libssh-peer.c)"
	echo "-- libssh-peer server default KEXINIT kex list (probed with ssh -vv):"
	bash "$(dirname "$(readlink -f "$0")")/peer-server.sh" probe-kex libssh | tr ',' '\n' | sed 's/^/     /'
}

install_libssh() {
	local t0=$SECONDS
	forky_ok || install_forky
	if libssh_ok; then
		log "libssh: libssh-peer ready in $FORKY_ROOT"
		write_forky_exec
		report_libssh
		return 0
	fi
	local n
	# shellcheck disable=SC2086 # a word list
	n="$(chroot "$FORKY_ROOT" dpkg-query -W -f='${db:Status-Status}\n' $LIBSSH_PKGS 2>/dev/null | grep -c '^installed$' || true)"
	if [ "$n" = 3 ]; then
		log "libssh: $LIBSSH_PKGS already in the forky chroot"
	else
		local src
		src="$(derive_source bookworm trixie forky sid)" || die "libssh: no Debian apt source to derive the mirror from"
		# shellcheck disable=SC2086 # a word list
		forky_apt_install "${src%%$'\t'*}" $LIBSSH_PKGS
	fi
	log "libssh: building libssh-peer (gcc in the chroot, against its libssh)"
	mkdir -p "$(dirname "$LIBSSH_BUILT_SRC")"
	cp "$LIBSSH_SRC" "${LIBSSH_BUILT_SRC%.c}.new.c"
	chroot "$FORKY_ROOT" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		gcc -O2 -Wall -Wextra -Werror -Wno-deprecated-declarations \
		-o /usr/bin/libssh-peer /usr/local/src/pqkex/libssh-peer.new.c -lssh ||
		die "libssh: libssh-peer.c does not build"
	mv "${LIBSSH_BUILT_SRC%.c}.new.c" "$LIBSSH_BUILT_SRC"
	chroot "$FORKY_ROOT" dpkg-query -W libssh-4 libssh-dev gcc >"$LIBSSH_MARK"
	write_forky_exec
	libssh_ok || die "libssh: libssh-peer was built but libssh is not 0.12 or later"
	log "libssh: done in $((SECONDS - t0)) s"
	report_libssh
}

# ===================================================================== main
[ $# -gt 0 ] || set -- all
for what in "$@"; do
	case "$what" in
	openssh10 | openssh92 | trixie | forky | libssh | all) ;;
	*) usage_from_header "$0"; exit 2 ;;
	esac
done
for what in "$@"; do
	t=$SECONDS
	case "$what" in
	openssh10) install_openssh10 ;;
	openssh92) install_openssh92 ;;
	trixie) install_trixie ;;
	forky) install_forky ;;
	libssh) install_libssh ;;
	all) install_openssh10; install_openssh92; install_trixie; install_forky; install_libssh ;;
	esac
	log "$what: $((SECONDS - t)) s"
done
log "total $((SECONDS - T_START)) s"
