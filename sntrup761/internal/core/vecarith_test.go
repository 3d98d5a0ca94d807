package core

import (
	"os"
	"testing"

	"github.com/pqkex/pqkex/internal/testkit/selfexec"
	"github.com/pqkex/pqkex/internal/vecarith"
)

// mirrorEnv marks the children of TestVecarithMirror.
const mirrorEnv = "PQKEX_TEST_VECARITH_MIRROR"

// TestVecarithMirror: internal/vecarith, which names the arithmetic for
// pqkex bench (this tree imports nothing of the module's root internal/,
// and Go's internal rule keeps this package from anything outside
// sntrup761/), says what this package decides: AVX2 exactly when
// hasAVX2, and the label of this build. It holds in this process and in
// children under each GODEBUG setting that changes x/sys/cpu's view of
// AVX2 (each setting's child fails on its own if the two disagree).
func TestVecarithMirror(t *testing.T) {
	want := "scalar"
	switch {
	case hasAVX2:
		want = "avx2 (assembly)"
	case asmBuilt:
		want = "scalar (assembly build, AVX2 absent or turned off by GODEBUG)"
	}
	if vecarith.AVX2 != hasAVX2 || vecarith.Label() != want {
		t.Fatalf("internal/vecarith says AVX2 %v, %q; this package decides AVX2 %v (assembly path built: %v), %q",
			vecarith.AVX2, vecarith.Label(), hasAVX2, asmBuilt, want)
	}
	if os.Getenv(mirrorEnv) != "" {
		return
	}
	for _, godebug := range []string{"cpu.avx2=off", "cpu.all=off", "cpu.all=off,cpu.avx2=on", "cpu.avx2=off,cpu.avx2=on", "cpu.avx=off"} {
		cmd, err := selfexec.Command("-test.run=^TestVecarithMirror$", "-test.count=1")
		if err != nil {
			t.Fatal(err)
		}
		cmd.Env = append(os.Environ(), "GODEBUG="+godebug, mirrorEnv+"=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("GODEBUG=%s: %v\n%s", godebug, err, out)
		}
	}
}
