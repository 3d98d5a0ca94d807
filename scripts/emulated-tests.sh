#!/bin/sh
# emulated-tests.sh: the known-answer and fast-vs-reference tests on other
# architectures, under qemu-user (Debian package qemu-user): arm64 and
# big-endian s390x by default. Go fuses multiply-adds into FMA
# instructions on both, so the float FFT of sntrup761 runs with other
# roundings than on amd64, and s390x reads and writes every multi-byte
# value big-endian: the byte-exact vectors show both are handled.
#
# Usage: scripts/emulated-tests.sh [arch...]   (GOARCH values; default: arm64 s390x)
#
# go test builds each package's test binary with GOARCH and runs it with
# -exec qemu-ARCH, in the package's directory. The packages are those
# whose tests are known answers, fast-vs-reference properties or the
# exchange hash; the adapter's and the command's tests (sshkex,
# cmd/pqkex), which run x/crypto handshakes and re-execute their own
# binary, stay on amd64.
set -eu
cd "$(dirname "$0")/.."

pkgs="./sntrup761 ./sntrup761/internal/core ./sntrup761/internal/ref ./kexhash
./internal/hybrid ./internal/sshwire ./internal/kat
./mlkem768x25519 ./sntrup761x25519 ./mlkem768nistp256 ./mlkem1024nistp384 ./vectors ./fuzz"

for arch in ${*:-arm64 s390x}; do
	qemu=qemu-$(echo "$arch" | sed 's/^arm64$/aarch64/')
	command -v "$qemu" >/dev/null || { echo "$qemu not found (apt-get install qemu-user)"; exit 1; }
	echo "-- $arch (go test -exec $qemu)"
	# PQKEX_EMULATOR: tests that re-execute their own binary (the FIPS
	# path checks) run the child through the emulator too. -p 1: one
	# emulator at a time per architecture (.ci/run runs two side by side).
	# shellcheck disable=SC2086
	GOARCH=$arch PQKEX_EMULATOR=$qemu go test -p 1 -count=1 -timeout 20m -exec "$qemu" $pkgs
done
