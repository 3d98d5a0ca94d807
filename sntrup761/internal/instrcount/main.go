// Command instrcount runs one sntrup761 operation through the public API a
// given number of times, for scripts/instructions.sh, which counts the
// instructions of two runs with different counts under valgrind and divides
// the difference by the difference of the counts: setup (a key and a
// ciphertext made beforehand, warm-up calls that fill the package's pools
// and tables) cancels out. (callgrind's --toggle-collect would be simpler
// but loses track of the call tree when a goroutine's stack grows, and
// undercounts.)
//
// Usage: instrcount op n, with op one of keygen, enc, dec, batch (batch
// runs GenerateKeys(32) n times). With PQKEX_INSTRCOUNT_SCALAR=1 in the
// environment the AVX2 assembly path is switched off
// (core.UseVectorPath), so that the scalar code is counted in the same
// build.
package main

import (
	"fmt"
	"os"
	"strconv"

	"github.com/pqkex/pqkex/sntrup761"
	"github.com/pqkex/pqkex/sntrup761/internal/core"
)

var sink []byte

//go:noinline
func runKeygen(n int) {
	for range n {
		dk, err := sntrup761.GenerateKey()
		if err != nil {
			panic(err)
		}
		sink = dk.Bytes()
	}
}

//go:noinline
func runEnc(ek *sntrup761.EncapsulationKey, n int) {
	for range n {
		_, sink = ek.Encapsulate()
	}
}

//go:noinline
func runDec(dk *sntrup761.DecapsulationKey, ct []byte, n int) {
	for range n {
		var err error
		sink, err = dk.Decapsulate(ct)
		if err != nil {
			panic(err)
		}
	}
}

// BatchSize is the batch size of the batch operation.
const BatchSize = 32

//go:noinline
func runBatch(n int) {
	for range n {
		dks, err := sntrup761.GenerateKeys(BatchSize)
		if err != nil || len(dks) != BatchSize {
			panic("GenerateKeys failed")
		}
		sink = dks[BatchSize-1].Bytes()
	}
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: instrcount keygen|enc|dec|batch n")
		os.Exit(2)
	}
	n, err := strconv.Atoi(os.Args[2])
	if err != nil || n < 0 {
		fmt.Fprintln(os.Stderr, "instrcount: bad count", os.Args[2])
		os.Exit(2)
	}
	if os.Getenv("PQKEX_INSTRCOUNT_SCALAR") == "1" {
		core.UseVectorPath(false)
	}
	dk, err := sntrup761.GenerateKey() // warm-up and setup
	if err != nil {
		panic(err)
	}
	ek := dk.EncapsulationKey()
	_, ct := ek.Encapsulate()
	if _, err := dk.Decapsulate(ct); err != nil {
		panic(err)
	}
	switch os.Args[1] {
	case "keygen":
		runKeygen(n)
	case "enc":
		runEnc(ek, n)
	case "dec":
		runDec(dk, ct, n)
	case "batch":
		runBatch(1) // warm-up
		runBatch(n)
	default:
		fmt.Fprintln(os.Stderr, "instrcount: unknown op", os.Args[1])
		os.Exit(2)
	}
	if n > 0 && len(sink) == 0 { // every operation leaves its last output here
		fmt.Fprintln(os.Stderr, "instrcount: no output")
		os.Exit(1)
	}
}
