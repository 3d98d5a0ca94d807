// Package fuzzcorpus is what pqkex's fuzz targets and its fuzzing tools
// share about corpus entries: Add, through which the targets add their
// seeds, and the conversions between go test's corpus files and the
// inputs of the libFuzzer binaries that OSS-Fuzz and ClusterFuzzLite
// build from the same targets with go-118-fuzz-build (see
// .clusterfuzzlite/build.sh and docs/testing.md). Only targets whose
// arguments are all []byte are supported, as are all of pqkex's.
package fuzzcorpus

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
)

// SeedsEnv names the environment variable that makes Add write each
// seed, as a libFuzzer input, to $SeedsEnv/<target>/<hash>.
const SeedsEnv = "PQKEX_LIBFUZZER_SEEDS"

// F is the part of a *testing.F that Add uses. The F of go-118-fuzz-build's
// testing shim, which takes the place of package testing in a target's
// file in a libFuzzer build, has it too.
type F interface {
	Add(args ...any)
	Name() string
	Fatalf(format string, args ...any)
}

// Add adds the seed values to f's seed corpus (f.Add). When $SeedsEnv
// names a directory, it also writes the seed there as the target's
// libFuzzer binary reads it (LibFuzzerInput), in a directory named after
// the target: a libFuzzer binary ignores f.Add, so build.sh runs the
// targets' seeds once this way and gives the files to OSS-Fuzz as seed
// corpora. A seed the binary cannot be given (LibFuzzerInput) is left out
// of those files.
func Add(f F, values ...[]byte) {
	args := make([]any, len(values))
	for i, v := range values {
		args[i] = v
	}
	f.Add(args...)
	dir := os.Getenv(SeedsEnv)
	if dir == "" {
		return
	}
	in, ok := LibFuzzerInput(values...)
	if !ok {
		return
	}
	if err := writeEntry(filepath.Join(dir, f.Name()), in); err != nil {
		f.Fatalf("writing a libFuzzer seed: %v", err)
	}
}

// writeEntry writes data to dir under the first 16 hex digits of its
// SHA-256, as go test names its corpus files.
func writeEntry(dir string, data []byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	sum := sha256.Sum256(data)
	return os.WriteFile(filepath.Join(dir, hex.EncodeToString(sum[:8])), data, 0o644)
}

// LibFuzzerInput encodes values as a libFuzzer input from which the
// testing shim of go-118-fuzz-build gives a target's f.Fuzz function
// exactly these []byte arguments. The shim reads each []byte with
// go-fuzz-headers' GetBytes: a 4-byte big-endian length n, then n bytes,
// except that a zero n means 30, that n is taken modulo the bytes left
// unless it equals them, and that nothing can be read once no byte is
// left. So each value is its length and its bytes, an empty value that
// is not the last has the length 2*left (which is 0 modulo left), and
// ok is false when the last value is empty: the shim cannot produce it.
func LibFuzzerInput(values ...[]byte) (in []byte, ok bool) {
	if len(values) == 0 || len(values[len(values)-1]) == 0 {
		return nil, false
	}
	total := 0
	for _, v := range values {
		total += 4 + len(v)
	}
	if total > 1<<30 {
		return nil, false
	}
	for _, v := range values {
		n := uint32(len(v))
		if n == 0 {
			n = 2 * uint32(total-len(in)-4) // the bytes left after this length
		}
		in = binary.BigEndian.AppendUint32(in, n)
		in = append(in, v...)
	}
	return in, true
}

// FromLibFuzzer decodes n []byte arguments from a libFuzzer input as the
// testing shim does (see LibFuzzerInput): what a target was called with
// when its libFuzzer binary reported a crash on in, to be written as a
// go test corpus file (FormatFile). ok is false if the shim would not
// call the target with in.
func FromLibFuzzer(in []byte, n int) (values [][]byte, ok bool) {
	pos := uint32(0)
	total := uint32(len(in))
	for range n {
		if total-pos < 4 {
			return nil, false
		}
		length := binary.BigEndian.Uint32(in[pos:])
		pos += 4
		if length == 0 {
			length = 30
		}
		left := total - pos
		if left == 0 {
			return nil, false
		}
		if length != left {
			length %= left
		}
		values = append(values, in[pos:pos+length])
		pos += length
	}
	return values, true
}

// fileHeader is the first line of a go test corpus file.
const fileHeader = "go test fuzz v1"

// FormatFile returns the go test corpus file of the []byte values.
func FormatFile(values ...[]byte) []byte {
	var b bytes.Buffer
	b.WriteString(fileHeader + "\n")
	for _, v := range values {
		fmt.Fprintf(&b, "[]byte(%s)\n", strconv.Quote(string(v)))
	}
	return b.Bytes()
}

// ParseFile reads a go test corpus file (FormatFile's format: the header
// line, then one []byte("...") per value; blank lines are ignored).
func ParseFile(data []byte) ([][]byte, error) {
	lines := bytes.Split(data, []byte("\n"))
	if string(bytes.TrimSuffix(lines[0], []byte("\r"))) != fileHeader {
		return nil, errors.New("not a go test corpus file")
	}
	var values [][]byte
	for _, line := range lines[1:] {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		v, err := parseValue(line)
		if err != nil {
			return nil, fmt.Errorf("corpus line %q: %v", line, err)
		}
		values = append(values, v)
	}
	if len(values) == 0 {
		return nil, errors.New("a corpus file without values")
	}
	return values, nil
}

// parseValue reads []byte(<string literal>).
func parseValue(line []byte) ([]byte, error) {
	expr, err := parser.ParseExprFrom(token.NewFileSet(), "", line, 0)
	if err != nil {
		return nil, err
	}
	call, ok := expr.(*ast.CallExpr)
	if !ok || len(call.Args) != 1 {
		return nil, errors.New("want []byte(\"...\")")
	}
	arr, ok := call.Fun.(*ast.ArrayType)
	if !ok || arr.Len != nil {
		return nil, errors.New("only []byte values are supported")
	}
	if elt, ok := arr.Elt.(*ast.Ident); !ok || elt.Name != "byte" && elt.Name != "uint8" {
		return nil, errors.New("only []byte values are supported")
	}
	lit, ok := call.Args[0].(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return nil, errors.New("want a string literal")
	}
	s, err := strconv.Unquote(lit.Value)
	if err != nil {
		return nil, err
	}
	return []byte(s), nil
}
