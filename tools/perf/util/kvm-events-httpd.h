/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_KVM_EVENTS_HTTPD_H
#define __PERF_KVM_EVENTS_HTTPD_H

/*
 * The metrics' HTTP server (--metrics-listen): libmicrohttpd, on threads
 * of its own, serving the last page published to any number of scrapers
 * at once, over IPv4 or IPv6, with TLS and basic auth as
 * --metrics-web-config says.  A fleet reaches it over the network, so a
 * client gets one deadline for a whole request, and the connections are
 * limited in all and per address: slow or hostile clients cannot keep
 * Prometheus from its scrape.
 */
#include <stddef.h>
#include <stdlib.h>
#include <linux/compiler.h>
#include "debug.h"

struct kvm_events_httpd;

#ifdef HAVE_LIBMICROHTTPD_SUPPORT
/*
 * Binds @listen ([ADDR:]PORT, [IPV6]:PORT) and reads @web_config (or
 * NULL) before anything else, so that their errors come first, one line
 * each naming @cmd and the option.  NULL on error.
 */
struct kvm_events_httpd *kvm_events_httpd__open(const char *cmd, const char *listen,
						const char *web_config);
/* The server's threads: after any fork */
int kvm_events_httpd__start(struct kvm_events_httpd *h, const char *cmd);
/* @page (malloc'ed, @len bytes) is what the next scrapes get; it is taken */
void kvm_events_httpd__publish(struct kvm_events_httpd *h, char *page, size_t len);
void kvm_events_httpd__close(struct kvm_events_httpd *h);
#else
static inline struct kvm_events_httpd *kvm_events_httpd__open(const char *cmd,
							      const char *listen __maybe_unused,
							      const char *web_config __maybe_unused)
{
	pr_err("perf kvm-events %s: --metrics-listen: this perf was built without libmicrohttpd; install libmicrohttpd-dev, libgnutls28-dev and libyaml-dev and build it again, or use --metrics-file\n",
	       cmd);
	return NULL;
}

static inline int kvm_events_httpd__start(struct kvm_events_httpd *h __maybe_unused,
					  const char *cmd __maybe_unused)
{
	return 0;
}

static inline void kvm_events_httpd__publish(struct kvm_events_httpd *h __maybe_unused,
					     char *page, size_t len __maybe_unused)
{
	free(page);
}

static inline void kvm_events_httpd__close(struct kvm_events_httpd *h __maybe_unused)
{
}
#endif

#endif /* __PERF_KVM_EVENTS_HTTPD_H */
