#!/bin/sh
# instructions.sh: instructions per sntrup761 operation through the public
# API (GenerateKey, Encapsulate, Decapsulate, and GenerateKeys(32) per key),
# counted by valgrind's callgrind (Debian package valgrind). Unlike
# wall-clock times, the counts repeat from run to run (within about 0.5%
# for GenerateKey, less for the others: the Go scheduler's preemption
# requests, which follow elapsed time, add a few instructions where they
# land) and from one x86-64 machine to another, apart from library code
# that picks an implementation by CPU feature (SHA-512's AVX2 path,
# memmove).
#
# Usage: scripts/instructions.sh [-f] [-s] [-o dir] [-l limits] [op...]
#   -s      count the scalar code: the AVX2 assembly path, which the
#           default build runs on a CPU with AVX2, switched off in the
#           helper (PQKEX_INSTRCOUNT_SCALAR=1; -tags purego would also swap
#           the standard library's SHA-512 assembly for Go code)
#   -f      also print the per-function breakdown: instructions per
#           operation spent in each function's own code (self cost, split
#           by the source file of inlined code), largest first
#   -o dir  keep the callgrind output files in dir
#   -l limits  fail (exit 1) when an operation needs more instructions than
#           its limit, in millions: e.g. -l 'keygen=11 enc=0.54 dec=0.72
#           batch=2.2' (operations without a limit are only reported)
#   op      keygen, enc, dec or batch (default: all four)
#
# Each operation runs in the helper program sntrup761/internal/instrcount
# twice, N0 and N1 times; the difference of the two totals divided by
# N1 - N0 is the count per operation, so setup and warm-up cancel out.
# GOGC=off keeps the garbage collector's background work out of the count
# (the operations allocate only their results), and
# GODEBUG=asyncpreemptoff=1 the preemption signals, which callgrind cannot
# follow.
set -eu

funcs=0
scalar=0
outdir=
limits=
while getopts fso:l: opt; do
	case $opt in
	f) funcs=1 ;;
	s) scalar=1 ;;
	o) outdir=$OPTARG ;;
	l) limits=$OPTARG ;;
	*) echo "usage: $0 [-f] [-s] [-o dir] [-l limits] [keygen|enc|dec|batch...]" >&2; exit 2 ;;
	esac
done
for l in $limits; do
	case $l in
	keygen=* | enc=* | dec=* | batch=*) ;;
	*) echo "instructions.sh: bad limit $l (want op=millions)" >&2; exit 2 ;;
	esac
done
over=0
shift $((OPTIND - 1))
ops=${*:-keygen enc dec batch}

command -v valgrind >/dev/null || { echo "instructions.sh: valgrind not found (apt-get install valgrind)" >&2; exit 1; }
command -v callgrind_annotate >/dev/null || { echo "instructions.sh: callgrind_annotate not found" >&2; exit 1; }

root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -n "$outdir" ] || outdir=$tmp
mkdir -p "$outdir"

(cd "$root" && go build -o "$tmp/instrcount" ./sntrup761/internal/instrcount)

# count op n: runs the helper under callgrind and prints the total.
count() {
	out=$outdir/callgrind.$1.$2
	PQKEX_INSTRCOUNT_SCALAR=$scalar GOGC=off GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind \
		--callgrind-out-file="$out" "$tmp/instrcount" "$1" "$2" \
		>"$tmp/log" 2>&1 || {
		cat "$tmp/log" >&2
		echo "instructions.sh: $1 $2 failed under valgrind" >&2
		exit 1
	}
	total=$(sed -n 's/^==[0-9]*== Collected : \([0-9]*\)$/\1/p' "$tmp/log")
	[ -n "$total" ] || { echo "instructions.sh: no count for $1 $2" >&2; exit 1; }
	echo "$total"
}

# selfcosts file: "file:function cost" lines (file is the source file of
# the code, so a function's inlined callees show up under their own file;
# callgrind's recursion suffixes 'N are merged, as they differ between runs;
# code inlined from another file has no "[binary]" suffix on its line).
selfcosts() {
	callgrind_annotate --auto=no --threshold=100 "$1" 2>/dev/null |
		sed -n 's/^ *\([0-9,]*\) ([ 0-9.]*%)  \([^ ]*\)\( .*\)\{0,1\}$/\2 \1/p' |
		tr -d , | sed 's|^[^ ]*/\([^/ ]*:\)|\1|; s|github.com/pqkex/pqkex/sntrup761/internal/||' |
		sed "s/'[0-9]* / /" |
		awk '$1 != "PROGRAM" { s[$1] += $2 } END { for (f in s) print f, s[f] }'
}

printf '%-22s %15s %7s %14s\n' operation instructions ops 'per operation'
for op in $ops; do
	case $op in
	keygen) name=GenerateKey n1=4 per=1 ;;
	enc) name=Encapsulate n1=40 per=1 ;;
	dec) name=Decapsulate n1=40 per=1 ;;
	batch) name='GenerateKeys(32)/key' n1=2 per=32 ;;
	*) echo "instructions.sh: unknown operation $op" >&2; exit 2 ;;
	esac
	t0=$(count "$op" 0)
	t1=$(count "$op" "$n1")
	limit=
	for l in $limits; do
		case $l in "$op="*) limit=${l#*=} ;; esac
	done
	awk -v name="$name" -v t0="$t0" -v t1="$t1" -v k="$((n1 * per))" -v limit="$limit" 'BEGIN {
		d = t1 - t0
		if (d <= 0) { print "instructions.sh: no instructions counted" > "/dev/stderr"; exit 1 }
		printf "%-22s %15d %7d %12.3f M", name, d, k, d / k / 1e6
		bad = limit != "" && (d / k / 1e6 > limit + 0)
		if (limit != "") printf "  (limit %s M%s)", limit, (bad ? ", EXCEEDED" : "")
		printf "\n"
		exit bad ? 3 : 0 }' || {
		[ $? -eq 3 ] || exit 1
		over=1
	}
	if [ "$funcs" = 1 ]; then
		selfcosts "$outdir/callgrind.$op.0" >"$tmp/c0"
		selfcosts "$outdir/callgrind.$op.$n1" >"$tmp/c1"
		awk -v k="$((n1 * per))" 'NR == FNR { c0[$1] = $2; next }
			{ d = ($2 - c0[$1]) / k; if (d >= 1000) printf "    %10.0f  %s\n", d, $1 }' \
			"$tmp/c0" "$tmp/c1" | sort -rn | head -25
	fi
done
if [ "$over" = 1 ]; then
	echo "instructions.sh: an operation exceeded its limit" >&2
	exit 1
fi
