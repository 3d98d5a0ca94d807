// Package selfexec runs the running test binary again in a child process,
// for tests that need a setting their own process cannot change, such as
// GODEBUG=fips140=on or cpu.avx2=off.
package selfexec

import (
	"os"
	"os/exec"
)

// EmulatorEnv names the user-mode emulator (qemu-aarch64, qemu-s390x) that
// runs the test binaries of another architecture (scripts/emulated-tests.sh
// sets it). The kernel cannot run such a binary itself, so the emulator
// runs the child too.
const EmulatorEnv = "PQKEX_EMULATOR"

// Command returns a command that runs this test binary with args (such as
// -test.run=...), through the emulator of EmulatorEnv when it is set. The
// caller sets the child's environment.
func Command(args ...string) (*exec.Cmd, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	if emu := os.Getenv(EmulatorEnv); emu != "" {
		return exec.Command(emu, append([]string{exe}, args...)...), nil
	}
	return exec.Command(exe, args...), nil
}
