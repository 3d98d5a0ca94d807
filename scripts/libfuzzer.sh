#!/usr/bin/env bash
# libfuzzer.sh [-t SECONDS] [-o REGEXP] [-k] — the OSS-Fuzz / ClusterFuzzLite build
# of every fuzz target, checked here without Docker: it runs
# .clusterfuzzlite/build.sh as the base-builder-go image would (clang,
# the address-sanitizer flags, $SRC, $OUT, $WORK) in a copy of the tree,
# with a stand-in for the image's compile_native_go_fuzzer that does what
# that script does (find the target's one file, rewrite a copy of it for
# the go-118-fuzz-build testing shim, build with go-118-fuzz-build at the
# version fuzz/ossfuzz pins, link with $LIB_FUZZING_ENGINE). Then it runs
# each binary with libFuzzer for SECONDS (default 60) on its seed corpus,
# after checking that the seeds reach more coverage than an empty input
# (so the seed encoding is the one the binary reads). It fails if any
# build fails, if a binary crashes or finds a failing input, or if it
# runs nothing. -o builds only the targets whose ID (fuzz.FuzzKexInit)
# the extended regular expression matches; -k keeps the work directory.
# Needs root for apt-get when clang is missing (Debian 12: clang 14).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=60
keep=0
while getopts t:o:k opt; do
	case $opt in
	t) seconds=$OPTARG ;;
	o) export PQKEX_LIBFUZZER_ONLY=$OPTARG ;;
	k) keep=1 ;;
	*) echo "usage: $0 [-t SECONDS] [-o REGEXP] [-k]" >&2; exit 2 ;;
	esac
done

if ! command -v clang >/dev/null || ! command -v clang++ >/dev/null; then
	apt-get update -qq && apt-get install -y -qq clang >/dev/null
fi
clang --version | head -1

tmp=$(mktemp -d /tmp/pqkex-libfuzzer.XXXXXX)
if [ "$keep" = 0 ]; then trap 'rm -rf "$tmp"' EXIT; else echo "work directory: $tmp"; fi
export SRC=$tmp/src OUT=$tmp/out WORK=$tmp/work
mkdir -p "$SRC/pqkex" "$OUT" "$WORK/bin"
# The tree as it is here, committed or not (build.sh edits its go.mod).
git ls-files -z -c -o --exclude-standard | tar --null -T - -cf - | tar -xf - -C "$SRC/pqkex"

start=$(date +%s)
go -C fuzz/ossfuzz build -o "$WORK/bin/go-118-fuzz-build" github.com/AdamKorcz/go-118-fuzz-build
export PATH=$WORK/bin:$PATH
# What the base image sets for an address-sanitizer libFuzzer build.
export CC=clang CXX=clang++ SANITIZER=address FUZZING_ENGINE=libfuzzer FUZZING_LANGUAGE=go ARCHITECTURE=x86_64
export CFLAGS="-O1 -fno-omit-frame-pointer -gline-tables-only -fsanitize=address -fsanitize-address-use-after-scope -fsanitize=fuzzer-no-link"
export CXXFLAGS=$CFLAGS LIB_FUZZING_ENGINE=-fsanitize=fuzzer

# compile_native_go_fuzzer PACKAGE FUNCTION FUZZER, as the base image's
# script does it for an address build.
compile_native_go_fuzzer() {
	local path=$1 function=$2 fuzzer=$3 dir file copy rc=0
	dir=$(go list -tags gofuzz -f '{{.Dir}}' "$path")
	# The image's script takes the one file under dir that names the
	# function, and wants one line declaring it on *testing.F.
	file=$(grep -r -l -s "$function" "$dir" || true)
	if [ -z "$file" ] || [ "$(wc -l <<<"$file")" != 1 ]; then
		echo "compile_native_go_fuzzer: $function must appear in exactly one file of $dir, found: ${file:-none}" >&2
		return 1
	fi
	if [ "$(grep "func $function" "$file" | grep -c 'testing.F')" != 1 ]; then
		echo "compile_native_go_fuzzer: no line 'func $function(... *testing.F)' in $file" >&2
		return 1
	fi
	# Its rewrite: a copy whose target takes the shim's F, with the shim
	# imported, while the original is set aside.
	copy=${file}_fuzz_.go
	sed "s/func $function(\([a-zA-Z0-9]*\) \*testing\.F)/func $function(\1 *go118fuzzbuildutils.F)/" "$file" >"$copy"
	sed -i '0,/^package /{/^package /a import go118fuzzbuildutils "github.com/AdamKorcz/go-118-fuzz-build/testing"
}' "$copy"
	mv "$file" "$WORK/$function.orig"
	(cd "$dir" && go-118-fuzz-build -o "$WORK/$fuzzer.a" -func "$function" "$dir") || rc=$?
	rm -f "$copy"
	mv "$WORK/$function.orig" "$file"
	[ "$rc" = 0 ] || return "$rc"
	$CXX $CXXFLAGS $LIB_FUZZING_ENGINE "$WORK/$fuzzer.a" -o "$OUT/$fuzzer"
}
export -f compile_native_go_fuzzer

# As the image's compile step runs it: bash -eu, so that any failed build
# ends it (a plain "bash build.sh" ignores the -eu of its first line).
bash -eu "$SRC/pqkex/.clusterfuzzlite/build.sh"
built=$(date +%s)
want=$(go -C fuzz/campaign run . -C ../.. -list | grep -c -E "^[^[:space:]]*(${PQKEX_LIBFUZZER_ONLY:-.})")
have=$(find "$OUT" -maxdepth 1 -type f -perm -u+x | wc -l)
echo "== built $have libFuzzer binaries (of $want targets) in $((built - start)) s"
[ "$have" = "$want" ] || { echo "libfuzzer.sh: $want targets but $have binaries" >&2; exit 1; }

# cov N of a libFuzzer log: the coverage of its last status line.
cov() { grep -o 'cov: [0-9]*' "$1" | tail -1 | cut -d' ' -f2; }
fail=0
printf '%-32s %8s %8s %12s %8s %s\n' target seeds empty executions cov result
for bin in $(find "$OUT" -maxdepth 1 -type f -perm -u+x | sort); do
	name=$(basename "$bin")
	run=$WORK/run/$name
	mkdir -p "$run/corpus" "$run/empty"
	[ -f "$OUT/${name}_seed_corpus.zip" ] && unzip -q "$OUT/${name}_seed_corpus.zip" -d "$run/corpus"
	result=ok
	# The seeds alone, then an empty corpus, each run once. Every run is
	# in $run, where libFuzzer writes its artifacts (crash-*, slow-unit-*).
	(cd "$run" && "$bin" -runs=0 corpus) >"$run/seeds.log" 2>&1 || result="seed run failed"
	(cd "$run" && "$bin" -runs=0 empty) >"$run/empty.log" 2>&1 || result="empty run failed"
	seedcov=$(cov "$run/seeds.log") emptycov=$(cov "$run/empty.log")
	if [ "$result" = ok ] && [ "${seedcov:-0}" -le "${emptycov:-0}" ]; then
		result="the seeds reach no more coverage than an empty input"
	fi
	rc=0
	(cd "$run" && "$bin" -max_total_time="$seconds" -print_final_stats=1 -timeout=60 corpus) >"$run/fuzz.log" 2>&1 || rc=$?
	[ "$rc" = 0 ] || result="FAILED (exit $rc)"
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$run/fuzz.log")
	[ "${execs:-0}" -gt 0 ] || [ "$result" != ok ] || result="ran nothing"
	printf '%-32s %8s %8s %12s %8s %s\n' "$name" "${seedcov:-?}" "${emptycov:-?}" "${execs:-?}" "$(cov "$run/fuzz.log")" "$result"
	if [ "$result" != ok ]; then
		fail=1
		tail -n 40 "$run/fuzz.log" | sed "s/^/  $name| /"
		ls "$run" | grep -e '^crash-' -e '^leak-' -e '^timeout-' -e '^oom-' | sed "s#^#  $name| reproducer: $run/#" || true
	fi
done
echo "== ran each for ${seconds} s; all done in $(($(date +%s) - start)) s"
exit "$fail"
