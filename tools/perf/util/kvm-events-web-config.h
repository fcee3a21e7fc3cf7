/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_KVM_EVENTS_WEB_CONFIG_H
#define __PERF_KVM_EVENTS_WEB_CONFIG_H

/*
 * --metrics-web-config: TLS and basic auth for the metrics server, in the
 * format of Prometheus exporter-toolkit's --web.config.file, so that a
 * fleet configures perf kvm-events as it does its other exporters:
 *
 *   tls_server_config:
 *     cert_file: server.crt
 *     key_file: server.key
 *     client_auth_type: RequireAndVerifyClientCert
 *     client_ca_file: ca.crt
 *   basic_auth_users:
 *     prometheus: $2y$10$...           (bcrypt)
 *
 * Only those keys are taken; any other is an error, as a setting silently
 * ignored would be a hole.  Relative paths are from the file's folder.
 */
#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "mutex.h"

struct kvm_events_web_user {
	char	*name;
	char	*hash;		/* bcrypt: $2a$, $2b$ or $2y$ */
	/* SHA-256 of the last password that matched: bcrypt once, not per scrape */
	u8	good[32];
	bool	cached;
};

struct kvm_events_web_config {
	const char			*path;
	/* tls_server_config, the files' contents (PEM), NUL-terminated */
	char				*cert, *key, *client_ca;
	bool				tls;
	bool				verify_client;	/* RequireAndVerifyClientCert */
	struct kvm_events_web_user	*users;
	size_t				nr_users;
	struct mutex			lock;		/* the users' caches */
};

/*
 * Reads and checks @path: its YAML, its keys, the certificate and key
 * (that they load, and go together) and the hashes.  An error is one line
 * naming @cmd, the file and the key or file that is wrong.
 */
int kvm_events_web_config__read(struct kvm_events_web_config *wc, const char *cmd,
				const char *path);
/*
 * With basic_auth_users: true when @user's @password matched before.
 * Cheap: a SHA-256 and a comparison.
 */
bool kvm_events_web_config__remembers(struct kvm_events_web_config *wc, const char *user,
				      const char *password);
/*
 * True when @user's @password matches its bcrypt hash, which is then
 * remembered.  Slow by design: tens of ms, and as long for a user that
 * does not exist.
 */
bool kvm_events_web_config__allows(struct kvm_events_web_config *wc, const char *user,
				   const char *password);
void kvm_events_web_config__exit(struct kvm_events_web_config *wc);

#endif /* __PERF_KVM_EVENTS_WEB_CONFIG_H */
