package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"

	"github.com/pqkex/pqkex/internal/testkit/fuzzcorpus"
)

// exportLibFuzzer writes each target's committed corpus
// (testdata/fuzz/<target>) to dir/<target name>/, each entry as the
// input from which the target's libFuzzer binary (built by
// go-118-fuzz-build) calls it with the same values
// (fuzzcorpus.LibFuzzerInput), where fuzzcorpus.Add writes the seeds.
// Target names must be unique, as the binaries' are. An entry the
// binary cannot be given is reported and left out.
func exportLibFuzzer(ts []target, dir string) error {
	seen := map[string]string{}
	for _, t := range ts {
		if other, dup := seen[t.Name]; dup {
			return fmt.Errorf("two targets named %s: %s and %s", t.Name, other, t.ID())
		}
		seen[t.Name] = t.ID()
		entries, err := os.ReadDir(t.testdata())
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return err
		}
		n := 0
		for _, e := range entries {
			if !e.Type().IsRegular() {
				continue
			}
			data, err := os.ReadFile(filepath.Join(t.testdata(), e.Name()))
			if err != nil {
				return err
			}
			values, err := fuzzcorpus.ParseFile(data)
			if err != nil {
				return fmt.Errorf("%s: %v", filepath.Join(t.testdata(), e.Name()), err)
			}
			in, ok := fuzzcorpus.LibFuzzerInput(values...)
			if !ok {
				fmt.Printf("%s: %s has an empty last value, which a libFuzzer binary cannot be given; left out\n", t.ID(), e.Name())
				continue
			}
			out := filepath.Join(dir, t.Name)
			if err := os.MkdirAll(out, 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(out, "testdata-"+e.Name()), in, 0o644); err != nil {
				return err
			}
			n++
		}
		fmt.Printf("%s: %d committed corpus entries written to %s\n", t.ID(), n, filepath.Join(dir, t.Name))
	}
	return nil
}

// importLibFuzzer writes the libFuzzer input in file, decoded as t's
// libFuzzer binary decodes it (fuzzcorpus.FromLibFuzzer), to t's
// testdata/fuzz as a go test corpus file named as go test names them,
// and prints how to run it.
func importLibFuzzer(t target, file string) error {
	n, err := byteArgs(t)
	if err != nil {
		return err
	}
	in, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	values, ok := fuzzcorpus.FromLibFuzzer(in, n)
	if !ok {
		return fmt.Errorf("%s: the libFuzzer binary does not call %s with these %d bytes", file, t.ID(), len(in))
	}
	data := fuzzcorpus.FormatFile(values...)
	sum := sha256.Sum256(data)
	name := hex.EncodeToString(sum[:8])
	if err := os.MkdirAll(t.testdata(), 0o755); err != nil {
		return err
	}
	path := filepath.Join(t.testdata(), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return err
	}
	fmt.Printf("%s\nto run it: (cd %s && go test -run '^%s$/^%s$' .)\n", path, t.Dir, t.Name, name)
	return nil
}

// namedOnce checks the rule by which the base-builder-go image's
// compile_native_go_fuzzer finds a target's file: the one file under the
// package's directory, subdirectories included, whose text contains the
// target's name (grep -r -l). A comment naming the target in another file
// makes the OSS-Fuzz and ClusterFuzzLite build of that target fail.
func namedOnce(t target) error {
	var found []string
	err := filepath.WalkDir(t.Dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if bytes.Contains(b, []byte(t.Name)) {
			rel, _ := filepath.Rel(t.Dir, path)
			found = append(found, rel)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(found) != 1 || found[0] != t.File {
		return fmt.Errorf("%s: compile_native_go_fuzzer needs %s to be the one file under %s that names the target; it is named in %v",
			t.ID(), t.File, t.Dir, found)
	}
	return nil
}
