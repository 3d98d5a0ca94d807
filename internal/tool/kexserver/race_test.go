//go:build race

package kexserver

func init() { raceEnabled = true }
