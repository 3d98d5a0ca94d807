package kat

import (
	"errors"
	"fmt"
)

// TB is the part of testing.TB that the runners use. A *testing.T
// satisfies it: the tests run the runners as they are; Record runs them
// with a recorder that turns every vector into a count of the Result
// instead. Helper, Errorf and Fatalf keep their
// testing meanings: Errorf marks the current vector failed, Fatalf also
// ends it.
type TB interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
}

// recorder is a TB that counts vectors into a Result.
type recorder struct {
	res    Result
	inCase bool
	err    error  // the first failure of the vector in progress
	file   string // the last failure outside any vector
	first  bool   // stop the run at the first failed vector
}

// fatal is the panic value of recorder.Fatalf; stopped ends a run at its
// first failed vector (record with first, for the tests).
type (
	fatal   struct{}
	stopped struct{}
)

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	err := fmt.Errorf(format, args...)
	if !r.inCase { // a check about the whole file
		r.file = err.Error()
		r.res.fail(r.file)
		return
	}
	if r.err == nil {
		r.err = err
	}
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	panic(fatal{})
}

// each runs the checks of one vector with t. Under a recorder the vector
// is one count of the Result (failed if the checks called Errorf or
// Fatalf; a Fatalf ends only this vector); under a testing.TB it just
// runs them. The failure messages name the vector themselves. A recorder
// stops the run at the first failed vector if asked to (first), and
// under Short after ShortVectors vectors.
func each(t TB, f func()) {
	r, ok := t.(*recorder)
	if !ok {
		f()
		return
	}
	r.inCase, r.err = true, nil
	defer func() {
		p := recover()
		if _, isFatal := p.(fatal); p != nil && !isFatal {
			panic(p)
		}
		r.inCase = false
		if r.err == nil {
			r.res.Passed++
		} else {
			r.res.fail(r.err.Error())
		}
		if r.err != nil && r.first || Short && r.res.Passed+r.res.Failed >= ShortVectors {
			panic(stopped{})
		}
	}()
	f()
}

// Record runs a file's runner with a recorder: a Fatalf outside any
// vector (the file does not parse, is for another parameter set) is the
// Result's Err.
func Record(run func(t TB)) Result { return record(run, false) }

func record(run func(t TB), first bool) (res Result) {
	r := &recorder{first: first}
	defer func() {
		p := recover()
		switch p.(type) {
		case nil, stopped:
			res = r.res
		case fatal:
			res = Result{Err: errors.New(r.file)}
		default:
			panic(p)
		}
	}()
	run(r)
	return r.res
}
