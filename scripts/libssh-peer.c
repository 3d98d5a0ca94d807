/*
 * libssh-peer - a libssh server and client for pqkex's interop tests.
 *
 *   libssh-peer server -p PORT -k HOSTKEY [-a AUTHORIZED_PUBKEY] [-x KEXLIST] [-n N] [-v]
 *   libssh-peer client -p PORT [-x KEXLIST] [-K HOST_PUBKEY] [-i IDENTITY] [-u USER] [-c CMD] [-v] HOST
 *
 * server: listens on 127.0.0.1:PORT with the private host key HOSTKEY
 *   (OpenSSH format) and the key exchanges KEXLIST (default: libssh's),
 *   serves each connection in a child process (N connections, 0 = until
 *   killed), and logs to stderr, per connection:
 *     libssh-peer[PID]: kex: algorithm: NAME      after the key exchange
 *     libssh-peer[PID]: key exchange failed: ERR  when it fails
 *   A client whose public key is AUTHORIZED_PUBKEY (one key) logs in as any
 *   user; an exec request "echo WORDS" is answered with "WORDS\n", any other
 *   with "kex=NAME\n", and exit status 0.
 * client: connects to HOST:PORT offering KEXLIST (default: libssh's),
 *   prints "libssh-peer: kex: algorithm: NAME" on stderr after the key
 *   exchange, then, with -K, requires the server's host key to be the
 *   public key in that file (else exits 3); with -i, logs in as USER
 *   (default root) with that private key and runs CMD (default "true"),
 *   copying its output to stdout and exiting with its exit status.
 *   Without -i it stops after the key exchange (exit 0).
 *
 * Exit status: 0 success, 1 SSH error, 2 usage, 3 host key mismatch.
 * Built by scripts/install-peers.sh inside the forky chroot:
 *   gcc -O2 -Wall -o /usr/bin/libssh-peer libssh-peer.c -lssh
 * No secret is printed: only algorithm names, fingerprints and errors.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <libssh/libssh.h>
#include <libssh/server.h>

static int verbose;

static void usage(void)
{
	fprintf(stderr,
		"usage: libssh-peer server -p PORT -k HOSTKEY [-a AUTHORIZED_PUBKEY] [-x KEXLIST] [-n N] [-v]\n"
		"       libssh-peer client -p PORT [-x KEXLIST] [-K HOST_PUBKEY] [-i IDENTITY] [-u USER] [-c CMD] [-v] HOST\n");
	exit(2);
}

/* serve_session runs one accepted connection: key exchange, public-key
 * login with the authorized key, one exec request. */
static int serve_session(ssh_session s, ssh_key authorized)
{
	int pid = (int)getpid();
	if (ssh_handle_key_exchange(s) != SSH_OK) {
		fprintf(stderr, "libssh-peer[%d]: key exchange failed: %s\n", pid, ssh_get_error(s));
		return 1;
	}
	fprintf(stderr, "libssh-peer[%d]: kex: algorithm: %s\n", pid, ssh_get_kex_algo(s));
	fprintf(stderr, "libssh-peer[%d]: client: %s\n", pid, ssh_get_clientbanner(s));
	ssh_set_auth_methods(s, SSH_AUTH_METHOD_PUBLICKEY);

	ssh_channel chan = NULL;
	int authed = 0, done = 0;
	/* After the exec request is answered, go on reading until the client
	 * closes the connection (it does once it has the channel's close),
	 * so that it sees a clean end rather than a reset. */
	for (;;) {
		ssh_message m = ssh_message_get(s);
		if (m == NULL)
			break;
		int type = ssh_message_type(m), sub = ssh_message_subtype(m);
		if (type == SSH_REQUEST_AUTH && sub == SSH_AUTH_METHOD_PUBLICKEY && authorized != NULL) {
			ssh_key k = ssh_message_auth_pubkey(m);
			if (k != NULL && ssh_key_cmp(k, authorized, SSH_KEY_CMP_PUBLIC) == 0) {
				enum ssh_publickey_state_e st = ssh_message_auth_publickey_state(m);
				if (st == SSH_PUBLICKEY_STATE_NONE) {
					ssh_message_auth_reply_pk_ok_simple(m);
					ssh_message_free(m);
					continue;
				}
				if (st == SSH_PUBLICKEY_STATE_VALID) {
					authed = 1;
					fprintf(stderr, "libssh-peer[%d]: public key login as %s\n", pid, ssh_message_auth_user(m));
					ssh_message_auth_reply_success(m, 0);
					ssh_message_free(m);
					continue;
				}
			}
		} else if (authed && type == SSH_REQUEST_CHANNEL_OPEN && sub == SSH_CHANNEL_SESSION && chan == NULL) {
			chan = ssh_message_channel_request_open_reply_accept(m);
			ssh_message_free(m);
			continue;
		} else if (authed && chan != NULL && !done && type == SSH_REQUEST_CHANNEL && sub == SSH_CHANNEL_REQUEST_EXEC) {
			/* "echo WORDS" prints WORDS; any other command the kex */
			const char *cmd = ssh_message_channel_request_command(m);
			char out[256];
			int n;
			if (cmd != NULL && strncmp(cmd, "echo ", 5) == 0)
				n = snprintf(out, sizeof out, "%.200s\n", cmd + 5);
			else
				n = snprintf(out, sizeof out, "kex=%s\n", ssh_get_kex_algo(s));
			ssh_message_channel_request_reply_success(m);
			ssh_message_free(m);
			ssh_channel_write(chan, out, (uint32_t)n);
			ssh_channel_request_send_exit_status(chan, 0);
			ssh_channel_send_eof(chan);
			ssh_channel_close(chan);
			done = 1;
			continue;
		}
		ssh_message_reply_default(m);
		ssh_message_free(m);
	}
	if (chan != NULL)
		ssh_channel_free(chan);
	ssh_disconnect(s);
	return done ? 0 : 1;
}

static int run_server(int argc, char **argv)
{
	const char *port = NULL, *hostkey = NULL, *authfile = NULL, *kex = NULL;
	long max = 0;
	int c;
	while ((c = getopt(argc, argv, "p:k:a:x:n:v")) != -1) {
		switch (c) {
		case 'p': port = optarg; break;
		case 'k': hostkey = optarg; break;
		case 'a': authfile = optarg; break;
		case 'x': kex = optarg; break;
		case 'n': max = strtol(optarg, NULL, 10); break;
		case 'v': verbose = 1; break;
		default: usage();
		}
	}
	if (port == NULL || hostkey == NULL || optind != argc)
		usage();
	ssh_key authorized = NULL;
	if (authfile != NULL && ssh_pki_import_pubkey_file(authfile, &authorized) != SSH_OK) {
		fprintf(stderr, "libssh-peer: cannot read the authorized public key %s\n", authfile);
		return 1;
	}
	ssh_bind b = ssh_bind_new();
	if (b == NULL)
		return 1;
	ssh_bind_options_set(b, SSH_BIND_OPTIONS_BINDADDR, "127.0.0.1");
	if (ssh_bind_options_set(b, SSH_BIND_OPTIONS_BINDPORT_STR, port) != SSH_OK ||
	    ssh_bind_options_set(b, SSH_BIND_OPTIONS_HOSTKEY, hostkey) != SSH_OK ||
	    (kex != NULL && ssh_bind_options_set(b, SSH_BIND_OPTIONS_KEY_EXCHANGE, kex) != SSH_OK)) {
		fprintf(stderr, "libssh-peer: bad option: %s\n", ssh_get_error(b));
		return 2;
	}
	if (verbose)
		ssh_bind_options_set(b, SSH_BIND_OPTIONS_LOG_VERBOSITY_STR, "3");
	if (ssh_bind_listen(b) != SSH_OK) {
		fprintf(stderr, "libssh-peer: listen: %s\n", ssh_get_error(b));
		return 1;
	}
	fprintf(stderr, "libssh-peer: libssh %s listening on 127.0.0.1:%s, kex %s\n", ssh_version(0), port,
		kex != NULL ? kex : "(libssh's default)");
	signal(SIGCHLD, SIG_IGN); /* children are reaped by the kernel: no zombies */
	/* The parent accepts; each child makes its session from the socket
	 * (ssh_bind_accept_fd), so that nothing the parent frees can touch
	 * a child's connection. */
	int lfd = (int)ssh_bind_get_fd(b);
	for (long served = 0; max == 0 || served < max; served++) {
		int fd = accept(lfd, NULL, NULL);
		if (fd < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "libssh-peer: accept: %s\n", strerror(errno));
			return 1;
		}
		pid_t child = fork();
		if (child == 0) {
			close(lfd);
			alarm(60); /* no connection lives longer than a minute */
			ssh_session s = ssh_new();
			if (s == NULL || ssh_bind_accept_fd(b, s, fd) != SSH_OK) {
				fprintf(stderr, "libssh-peer[%d]: accept: %s\n", (int)getpid(), ssh_get_error(b));
				_exit(1);
			}
			int rc = serve_session(s, authorized);
			ssh_free(s);
			_exit(rc);
		}
		close(fd);
	}
	while (wait(NULL) > 0 || errno == EINTR)
		;
	ssh_bind_free(b);
	return 0;
}

static int run_client(int argc, char **argv)
{
	const char *port = NULL, *kex = NULL, *hostpub = NULL, *identity = NULL, *user = "root", *cmd = "true";
	int c;
	while ((c = getopt(argc, argv, "p:x:K:i:u:c:v")) != -1) {
		switch (c) {
		case 'p': port = optarg; break;
		case 'x': kex = optarg; break;
		case 'K': hostpub = optarg; break;
		case 'i': identity = optarg; break;
		case 'u': user = optarg; break;
		case 'c': cmd = optarg; break;
		case 'v': verbose = 1; break;
		default: usage();
		}
	}
	if (port == NULL || optind != argc - 1)
		usage();
	ssh_session s = ssh_new();
	if (s == NULL)
		return 1;
	unsigned int p = (unsigned int)strtoul(port, NULL, 10);
	int no = 0;
	ssh_options_set(s, SSH_OPTIONS_HOST, argv[optind]);
	ssh_options_set(s, SSH_OPTIONS_PORT, &p);
	ssh_options_set(s, SSH_OPTIONS_USER, user);
	ssh_options_set(s, SSH_OPTIONS_PROCESS_CONFIG, &no); /* no ~/.ssh/config, no /etc/ssh/ssh_config */
	if (kex != NULL && ssh_options_set(s, SSH_OPTIONS_KEY_EXCHANGE, kex) != SSH_OK) {
		fprintf(stderr, "libssh-peer: bad kex list: %s\n", ssh_get_error(s));
		return 2;
	}
	if (verbose)
		ssh_options_set(s, SSH_OPTIONS_LOG_VERBOSITY_STR, "3");
	if (ssh_connect(s) != SSH_OK) {
		fprintf(stderr, "libssh-peer: connect: %s\n", ssh_get_error(s));
		return 1;
	}
	fprintf(stderr, "libssh-peer: kex: algorithm: %s\n", ssh_get_kex_algo(s));
	fprintf(stderr, "libssh-peer: server: %s\n", ssh_get_serverbanner(s));

	ssh_key srv = NULL;
	if (ssh_get_server_publickey(s, &srv) != SSH_OK) {
		fprintf(stderr, "libssh-peer: no server host key: %s\n", ssh_get_error(s));
		return 1;
	}
	if (hostpub != NULL) {
		ssh_key want = NULL;
		if (ssh_pki_import_pubkey_file(hostpub, &want) != SSH_OK) {
			fprintf(stderr, "libssh-peer: cannot read %s\n", hostpub);
			return 2;
		}
		if (ssh_key_cmp(srv, want, SSH_KEY_CMP_PUBLIC) != 0) {
			fprintf(stderr, "libssh-peer: the server's host key is not the one in %s\n", hostpub);
			return 3;
		}
		ssh_key_free(want);
		fprintf(stderr, "libssh-peer: host key verified\n");
	}
	ssh_key_free(srv);
	if (identity == NULL) {
		ssh_disconnect(s);
		ssh_free(s);
		return 0;
	}

	ssh_key id = NULL;
	if (ssh_pki_import_privkey_file(identity, NULL, NULL, NULL, &id) != SSH_OK) {
		fprintf(stderr, "libssh-peer: cannot read the identity %s\n", identity);
		return 2;
	}
	if (ssh_userauth_publickey(s, NULL, id) != SSH_AUTH_SUCCESS) {
		fprintf(stderr, "libssh-peer: public key login refused: %s\n", ssh_get_error(s));
		return 1;
	}
	ssh_key_free(id);
	ssh_channel ch = ssh_channel_new(s);
	if (ch == NULL || ssh_channel_open_session(ch) != SSH_OK || ssh_channel_request_exec(ch, cmd) != SSH_OK) {
		fprintf(stderr, "libssh-peer: exec: %s\n", ssh_get_error(s));
		return 1;
	}
	char buf[4096];
	int n;
	while ((n = ssh_channel_read(ch, buf, sizeof buf, 0)) > 0)
		fwrite(buf, 1, (size_t)n, stdout);
	fflush(stdout);
	ssh_channel_send_eof(ch);
	int status = ssh_channel_get_exit_status(ch);
	ssh_channel_close(ch);
	ssh_channel_free(ch);
	ssh_disconnect(s);
	ssh_free(s);
	return status < 0 ? 1 : status;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		usage();
	ssh_init();
	int rc;
	if (strcmp(argv[1], "server") == 0)
		rc = run_server(argc - 1, argv + 1);
	else if (strcmp(argv[1], "client") == 0)
		rc = run_client(argc - 1, argv + 1);
	else
		usage();
	ssh_finalize();
	return rc;
}
