//go:build !(goexperiment.simd && amd64)

package sntrup761

func wantArithmetic() string { return "scalar" }
