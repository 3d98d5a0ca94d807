package peertest

import "strconv"

// OpenSSH is how a test runs OpenSSH's ssh against a server on
// 127.0.0.1: without prompting or a configuration file, the host key
// checked strictly against KnownHosts alone.
type OpenSSH struct {
	Verbose    string // debug output, such as "-vv"
	KnownHosts string // the known_hosts file
	Identity   string // the only private key file offered, or "" for none
	Kex        string // the KexAlgorithms forced, or "" for the client's defaults
	User       string
	Port       int
}

// Args returns ssh's arguments to run command on the server.
func (o OpenSSH) Args(command string) []string {
	args := []string{o.Verbose, "-F", "none", "-o", "BatchMode=yes"}
	if o.Identity != "" {
		args = append(args, "-o", "IdentitiesOnly=yes", "-i", o.Identity)
	}
	args = append(args,
		"-o", "StrictHostKeyChecking=yes",
		"-o", "UserKnownHostsFile="+o.KnownHosts,
		"-o", "GlobalKnownHostsFile=/dev/null",
		"-o", "UpdateHostKeys=no",
		"-o", "ConnectTimeout=10",
	)
	if o.Kex != "" {
		args = append(args, "-o", "KexAlgorithms="+o.Kex)
	}
	return append(args, "-p", strconv.Itoa(o.Port), o.User+"@127.0.0.1", command)
}
