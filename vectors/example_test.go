package vectors_test

import (
	"fmt"
	"io/fs"
	"log"

	"github.com/pqkex/pqkex/vectors"
)

// Run one file: a vector file from another implementation's test suite
// would be read with os.ReadFile; here it is one of the bundled files.
func ExampleRun() {
	data, err := fs.ReadFile(vectors.Bundled(), "rfc7748_x25519.json")
	if err != nil {
		log.Fatal(err)
	}
	r := vectors.Run("rfc7748_x25519.json", data)
	if r.Err != nil || r.Failed > 0 {
		log.Fatalf("%s: %v %q", r.File, r.Err, r.Failures)
	}
	fmt.Printf("%s: %d passed\n", r.Format, r.Passed)
	// Output: rfc7748-x25519: 7 passed
}

func ExampleDetect() {
	f, err := vectors.Detect([]byte("# sntrup761\n\ncount = 0\nseed = 061550234D158C5EC95595FE04EF7A25767F2E24CC2BC479D09D86DC9ABCFDE7056A8C266F9EF97ED08541DBD2E1FFA1\n"))
	fmt.Println(f, err)
	_, err = vectors.Detect([]byte(`{"algorithm": "ML-KEM", "mode": "keyGen", "parameterSet": "ML-KEM-512"}`))
	fmt.Println(err)
	// Output:
	// sntrup761-nist-kat <nil>
	// ACVP vectors for ML-KEM-512, which pqkex does not implement
}

// Run every bundled file, as "pqkex kat" does (this package's TestBundled
// runs them, with each file's count). For a directory of files, pass
// os.DirFS(dir) instead.
func ExampleRunFS() {
	var files, passed, failed int
	for _, r := range vectors.RunFS(vectors.Bundled()) {
		if r.Skipped != "" {
			continue // README.md and the licence texts
		}
		files++
		passed += r.Passed
		failed += r.Failed
	}
	fmt.Printf("%d files: %d vectors passed, %d failed\n", files, passed, failed)
}
