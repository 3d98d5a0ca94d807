//go:build !amd64.v3

package core

// fmaBuild: GOAMD64=v3 or later, where the compiler may fuse multiply-adds.
const fmaBuild = false
