//go:build race

package sshkex

const raceEnabled = true
