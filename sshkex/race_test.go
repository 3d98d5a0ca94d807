//go:build race

package sshkex

func init() { raceEnabled = true }
