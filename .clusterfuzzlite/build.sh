#!/bin/bash -eu
# OSS-Fuzz / ClusterFuzzLite build of pqkex's fuzz targets: every go test
# fuzz target of the module (found as go test finds them, by
# fuzz/campaign -list) becomes the libFuzzer binary $OUT/<target>,
# built by the base image's compile_native_go_fuzzer (go-118-fuzz-build),
# with its seeds and committed corpus as $OUT/<target>_seed_corpus.zip.
# It runs in the base-builder-go image with the source in $SRC/pqkex;
# scripts/libfuzzer.sh runs it here, with a stand-in for
# compile_native_go_fuzzer, and runs every binary (see docs/testing.md).
cd "$SRC/pqkex"

# The targets' files import go-118-fuzz-build's testing shim in a
# libFuzzer build, so this copy of go.mod needs it; the version is the
# one fuzz/ossfuzz pins (pqkex's own go.mod does not carry it).
shim=$(go -C fuzz/ossfuzz list -m -f '{{.Version}}' github.com/AdamKorcz/go-118-fuzz-build)
go get "github.com/AdamKorcz/go-118-fuzz-build/testing@$shim"

targets=$(go -C fuzz/campaign run . -C ../.. -list)
# PQKEX_LIBFUZZER_ONLY (scripts/libfuzzer.sh -o) keeps the targets whose
# ID (fuzz.FuzzKexInit) it matches, an extended regular expression.
if [ -n "${PQKEX_LIBFUZZER_ONLY:-}" ]; then
	targets=$(grep -E "^[^[:space:]]*(${PQKEX_LIBFUZZER_ONLY})" <<<"$targets" || true)
fi
[ -n "$targets" ] || { echo "build.sh: no fuzz targets found" >&2; exit 1; }

# Seeds: a libFuzzer binary ignores f.Add, so the targets' seeds are
# written once as libFuzzer inputs (fuzzcorpus.Add), and the committed
# corpora converted, per target name.
seeds=$WORK/pqkex-seeds
rm -rf "$seeds"
mkdir -p "$seeds"
PQKEX_LIBFUZZER_SEEDS=$seeds go test -count=1 -run '^Fuzz' $(cut -f2 <<<"$targets" | sort -u)
go -C fuzz/campaign run . -C ../.. -libfuzzer-corpus "$seeds"

# go-118-fuzz-build compiles a target's own file as a non-test file, with
# package testing replaced by its shim, and the package's other _test.go
# files not at all; pqkex's targets share code kept in those files. So
# for each build they become non-test files (<name>_libfuzzer.go; what
# go-118-fuzz-build_v2 does by itself), the external test package's files
# are set aside, and everything is put back afterwards.
moved=()
restore() {
	local i
	for ((i = ${#moved[@]} - 1; i >= 1; i -= 2)); do
		mv "${moved[i]}" "${moved[i - 1]}"
	done
	moved=()
}
trap restore EXIT
move() {
	mv "$1" "$2"
	moved+=("$1" "$2")
}

while IFS=$'\t' read -r id pkg dir file _; do
	name=${id##*.}
	for f in $(go list -f '{{join .TestGoFiles " "}}' "$pkg"); do
		[ "$f" = "$file" ] || move "$dir/$f" "$dir/${f%_test.go}_libfuzzer.go"
	done
	for f in $(go list -f '{{join .XTestGoFiles " "}}' "$pkg"); do
		move "$dir/$f" "$dir/$f.hidden"
	done
	compile_native_go_fuzzer "$pkg" "$name" "$name"
	restore
	if [ -d "$seeds/$name" ]; then
		rm -f "$OUT/${name}_seed_corpus.zip"
		(cd "$seeds/$name" && zip -q -r "$OUT/${name}_seed_corpus.zip" .)
	fi
done <<<"$targets"
