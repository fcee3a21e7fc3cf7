// SPDX-License-Identifier: GPL-2.0
/*
 * The metrics' HTTP server, on libmicrohttpd: a library made for a C
 * program that embeds a server, event-driven on epoll, with TLS through
 * GnuTLS, connection limits and basic auth of its own, packaged by every
 * distribution (Debian's libmicrohttpd12).
 *
 * libmicrohttpd's timeout is an idle one: a client that sends a byte now
 * and then keeps its connection for ever.  So each connection also gets
 * a deadline for its request, from its start or its previous answer; a
 * thread of ours shuts its socket down when that passes, and the library
 * then closes it as a connection its client dropped.
 *
 * bcrypt costs tens of ms by design.  Checked on the library's threads, a
 * few clients with wrong passwords would hold up every scrape; so a
 * password not seen before is checked by a thread of ours, one at a time,
 * its connection suspended meanwhile, and a password that matched is
 * remembered: Prometheus' scrapes cost no bcrypt after the first.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <microhttpd.h>
#include <gnutls/gnutls.h>
#include <linux/compiler.h>
#include <linux/list.h>
#include <linux/zalloc.h>

#include "debug.h"
#include "kvm-events-httpd.h"
#include "kvm-events-web-config.h"
#include "mutex.h"

/* A request, sent and answered, takes at most this long; idle too */
#define REQUEST_DEADLINE_S	5
/* How often the deadlines are looked at, in ms */
#define DEADLINE_POLL_MS	200
#define MAX_CONNECTIONS		1024
#define MAX_PER_ADDRESS		16
/*
 * Passwords waiting for their bcrypt: beyond, 503 at once; one that
 * waited longer than this gets a 503 too, not its check, so that every
 * client is answered well within the deadline, whatever bcrypt costs.
 */
#define MAX_PASSWORD_CHECKS	4
#define PASSWORD_WAIT_MS	2000
/* What a connection may hold of its request: its headers must fit */
#define CONNECTION_MEMORY	(64 * 1024)
/* Scrapes served at once, each thread any number of connections */
#define SERVER_THREADS		2
#define REALM			"perf kvm-events"

/* A connection, until its deadline: its socket, dup'ed to shut it down */
struct scrape_conn {
	struct list_head	node;
	int			fd;
	struct timespec		deadline;
	bool			shut;
};

/* A request, from its headers to its answer */
struct scrape_request {
	struct list_head	node;		/* in the password checks' queue */
	struct MHD_Connection	*connection;
	char			*user, *password;
	struct timespec		queued;
	enum {
		REQUEST_NEW,
		REQUEST_CHECKING,	/* suspended, its password queued */
		REQUEST_CHECKED,
		REQUEST_SHED,		/* waited too long: 503 */
	}			state;
	bool			allowed;
};

struct kvm_events_httpd {
	const char			*listen;
	int				listen_fd;
	bool				ipv6;
	struct kvm_events_web_config	web_config;
	bool				has_web_config;
	struct MHD_Daemon		*daemon;
	/* the page, as last published */
	struct mutex			page_lock;
	char				*page;
	size_t				page_len;
	/* the connections' deadlines, and the thread that keeps them */
	struct mutex			conns_lock;
	struct list_head		conns;
	pthread_t			reaper;
	bool				reaping;
	int				stop_pipe[2];
	unsigned int			max_connections;
	/* the passwords to check, and the thread that checks them */
	struct mutex			checks_lock;
	struct cond			checks_cond;
	struct list_head		checks;
	unsigned int			nr_checks;
	pthread_t			checker;
	bool				checking, stopping;
};

/* [ADDR:]PORT: IPv4 ADDR, or IPv6 in brackets; none is 127.0.0.1 */
static int parse_listen(const char *spec, struct sockaddr_storage *ss, socklen_t *len)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;
	const char *colon = strrchr(spec, ':'), *port_s = colon ? colon + 1 : spec;
	char addr[INET6_ADDRSTRLEN + 2] = "127.0.0.1", *end;
	size_t addr_len = colon ? (size_t)(colon - spec) : 0;
	unsigned long port;

	if (addr_len) {
		if (addr_len >= sizeof(addr))
			return -EINVAL;
		memcpy(addr, spec, addr_len);
		addr[addr_len] = '\0';
	}
	port = strtoul(port_s, &end, 10);
	if (*end || end == port_s || !port || port > 65535)
		return -EINVAL;
	memset(ss, 0, sizeof(*ss));
	if (addr[0] == '[') {
		if (addr_len < 3 || addr[addr_len - 1] != ']')
			return -EINVAL;
		addr[addr_len - 1] = '\0';
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
		*len = sizeof(*sin6);
		return inet_pton(AF_INET6, addr + 1, &sin6->sin6_addr) == 1 ? 0 : -EINVAL;
	}
	sin->sin_family = AF_INET;
	sin->sin_port = htons(port);
	*len = sizeof(*sin);
	return inet_pton(AF_INET, addr, &sin->sin_addr) == 1 ? 0 : -EINVAL;
}

static int bind_listen(struct kvm_events_httpd *h, const char *cmd)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int one = 1, zero = 0, err;

	if (parse_listen(h->listen, &ss, &len)) {
		pr_err("perf kvm-events %s: --metrics-listen %s: expected [ADDRESS:]PORT, an IPv4 address or an IPv6 one in brackets, and a port from 1 to 65535\n",
		       cmd, h->listen);
		return -EINVAL;
	}
	h->ipv6 = ss.ss_family == AF_INET6;
	h->listen_fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	/* [::] takes IPv4 too, whatever the host's bindv6only says */
	if (h->listen_fd < 0 ||
	    setsockopt(h->listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    (h->ipv6 && setsockopt(h->listen_fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero))) ||
	    bind(h->listen_fd, (struct sockaddr *)&ss, len) ||
	    listen(h->listen_fd, SOMAXCONN)) {
		err = errno;
		pr_err("perf kvm-events %s: --metrics-listen %s: %s\n", cmd, h->listen,
		       err == EADDRINUSE ? "the port is in use" : strerror(err));
		return -err;
	}
	return 0;
}

/*
 * Each connection takes two descriptors (the deadline keeps a dup): as
 * many connections as the soft limit allows, raised to the hard one, with
 * room left for perf's own events.
 */
static unsigned int connection_limit(void)
{
	struct rlimit rl;
	rlim_t fit;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return 64;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
		getrlimit(RLIMIT_NOFILE, &rl);
	}
	fit = rl.rlim_cur > 512 ? (rl.rlim_cur - 256) / 2 : 64;
	return fit < MAX_CONNECTIONS ? (unsigned int)fit : MAX_CONNECTIONS;
}

struct kvm_events_httpd *kvm_events_httpd__open(const char *cmd, const char *listen,
						const char *web_config)
{
	struct kvm_events_httpd *h = zalloc(sizeof(*h));

	if (!h)
		return NULL;
	h->listen = listen;
	h->listen_fd = -1;
	h->stop_pipe[0] = h->stop_pipe[1] = -1;
	INIT_LIST_HEAD(&h->conns);
	INIT_LIST_HEAD(&h->checks);
	mutex_init(&h->page_lock);
	mutex_init(&h->conns_lock);
	mutex_init(&h->checks_lock);
	cond_init(&h->checks_cond);
	h->max_connections = connection_limit();
	if (web_config) {
		h->has_web_config = true;
		if (kvm_events_web_config__read(&h->web_config, cmd, web_config))
			goto out_err;
	}
	if (bind_listen(h, cmd))
		goto out_err;
	return h;
out_err:
	kvm_events_httpd__close(h);
	return NULL;
}

static void deadline_from_now(struct timespec *t)
{
	clock_gettime(CLOCK_MONOTONIC, t);
	t->tv_sec += REQUEST_DEADLINE_S;
}

static bool passed(const struct timespec *deadline, const struct timespec *now)
{
	return now->tv_sec > deadline->tv_sec ||
	       (now->tv_sec == deadline->tv_sec && now->tv_nsec >= deadline->tv_nsec);
}

/* Shuts down each connection whose deadline passed; the library closes it */
static void *reaper(void *arg)
{
	struct kvm_events_httpd *h = arg;
	struct pollfd pfd = { .fd = h->stop_pipe[0], .events = POLLIN };
	struct scrape_conn *c;
	struct timespec now;

	while (poll(&pfd, 1, DEADLINE_POLL_MS) <= 0) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		mutex_lock(&h->conns_lock);
		list_for_each_entry(c, &h->conns, node) {
			if (!c->shut && passed(&c->deadline, &now)) {
				shutdown(c->fd, SHUT_RDWR);
				c->shut = true;
			}
		}
		mutex_unlock(&h->conns_lock);
	}
	return NULL;
}

/*
 * A connection starts or ends.  Its socket is dup'ed, not kept by number:
 * the library may close its own before it says so, and the number be
 * another's by the time the deadline passes.
 */
static void notify_connection(void *cls, struct MHD_Connection *connection,
			      void **socket_context, enum MHD_ConnectionNotificationCode toe)
{
	struct kvm_events_httpd *h = cls;
	const union MHD_ConnectionInfo *info;
	struct scrape_conn *c = *socket_context;

	if (toe == MHD_CONNECTION_NOTIFY_CLOSED) {
		if (!c)
			return;
		mutex_lock(&h->conns_lock);
		list_del(&c->node);
		mutex_unlock(&h->conns_lock);
		close(c->fd);
		free(c);
		*socket_context = NULL;
		return;
	}
	info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
	c = zalloc(sizeof(*c));
	if (!c || !info)
		goto out_free;
	c->fd = fcntl(info->connect_fd, F_DUPFD_CLOEXEC, 0);
	if (c->fd < 0)
		goto out_free;
	deadline_from_now(&c->deadline);
	mutex_lock(&h->conns_lock);
	list_add_tail(&c->node, &h->conns);
	mutex_unlock(&h->conns_lock);
	*socket_context = c;
	if (!h->web_config.verify_client)
		return;
	/* No certificate of the CA's: the handshake fails, no request is read */
	info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_GNUTLS_SESSION);
	if (info && info->tls_session) {
		gnutls_certificate_server_set_request(info->tls_session, GNUTLS_CERT_REQUIRE);
		gnutls_session_set_verify_cert(info->tls_session, NULL, 0);
	}
	return;
out_free:
	/* Without a deadline it cannot be let in */
	if (info)
		shutdown(info->connect_fd, SHUT_RDWR);
	free(c);
}

/* A request answered: the connection's next one has its own time */
static void request_completed(void *cls, struct MHD_Connection *connection,
			      void **req_cls, enum MHD_RequestTerminationCode toe __maybe_unused)
{
	struct kvm_events_httpd *h = cls;
	struct scrape_request *req = *req_cls;
	const union MHD_ConnectionInfo *info;
	struct scrape_conn *c;

	if (req) {
		free(req->user);	/* and the password, in the same string */
		free(req);
		*req_cls = NULL;
	}
	info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	c = info ? info->socket_context : NULL;
	if (!c)
		return;
	mutex_lock(&h->conns_lock);
	deadline_from_now(&c->deadline);
	mutex_unlock(&h->conns_lock);
}

static void log_mhd(void *cls __maybe_unused, const char *fmt, va_list ap)
{
	char msg[256];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	pr_debug("perf kvm-events: metrics server: %s", msg);
}

static enum MHD_Result answer_text(struct MHD_Connection *connection, unsigned int status,
				   const char *text, const char *allow)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(strlen(text), (void *)text, MHD_RESPMEM_PERSISTENT);
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
	if (allow)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, allow);
	if (status == MHD_HTTP_UNAUTHORIZED)
		ret = MHD_queue_basic_auth_fail_response(connection, REALM, r);
	else
		ret = MHD_queue_response(connection, status, r);
	MHD_destroy_response(r);
	return ret;
}

/* The page as it is now: copied under the lock, sent without it */
static enum MHD_Result answer_page(struct kvm_events_httpd *h, struct MHD_Connection *connection)
{
	struct MHD_Response *r;
	enum MHD_Result ret;
	char *copy;
	size_t len;

	mutex_lock(&h->page_lock);
	len = h->page_len;
	copy = malloc(len ?: 1);
	if (copy && len)
		memcpy(copy, h->page, len);
	mutex_unlock(&h->page_lock);
	if (!copy)
		return MHD_NO;
	r = MHD_create_response_from_buffer(len, copy, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(copy);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				"text/plain; version=0.0.4; charset=utf-8");
	ret = MHD_queue_response(connection, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return ret;
}

/*
 * The user and password of an Authorization header of scheme Basic, in
 * any case (RFC 9110 11.1): the library's own parser wants "Basic".
 */
static int basic_credentials(struct MHD_Connection *connection, char **user, char **password)
{
	const char *value = MHD_lookup_connection_value(connection, MHD_HEADER_KIND,
							MHD_HTTP_HEADER_AUTHORIZATION);
	gnutls_datum_t b64, plain = { NULL, 0 };
	char *colon;

	if (!value || strncasecmp(value, "Basic ", 6))
		return -EINVAL;
	for (value += 6; *value == ' '; value++)
		;
	b64.data = (unsigned char *)value;
	b64.size = strlen(value);
	if (gnutls_base64_decode2(&b64, &plain) < 0)
		return -EINVAL;
	*user = strndup((const char *)plain.data, plain.size);
	gnutls_free(plain.data);
	if (!*user)
		return -ENOMEM;
	colon = strchr(*user, ':');
	if (!colon || strlen(*user) != plain.size) {	/* no ':', or a NUL in it */
		zfree(user);
		return -EINVAL;
	}
	*colon = '\0';
	*password = colon + 1;
	return 0;
}

static bool waited_too_long(const struct scrape_request *req)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - req->queued.tv_sec) * 1000 +
	       (now.tv_nsec - req->queued.tv_nsec) / 1000000 > PASSWORD_WAIT_MS;
}

/* Checks the queued passwords, one at a time, and wakes their connections */
static void *password_checker(void *arg)
{
	struct kvm_events_httpd *h = arg;
	struct scrape_request *req;
	bool shed;

	mutex_lock(&h->checks_lock);
	for (;;) {
		while (list_empty(&h->checks) && !h->stopping)
			cond_wait(&h->checks_cond, &h->checks_lock);
		if (list_empty(&h->checks))
			break;
		req = list_first_entry(&h->checks, struct scrape_request, node);
		list_del_init(&req->node);
		mutex_unlock(&h->checks_lock);
		/* When stopping, the queue is only emptied: no one waits for it. */
		shed = READ_ONCE(h->stopping) || waited_too_long(req);
		req->allowed = !shed && kvm_events_web_config__allows(&h->web_config, req->user,
								      req->password);
		mutex_lock(&h->checks_lock);
		h->nr_checks--;
		req->state = shed ? REQUEST_SHED : REQUEST_CHECKED;
		MHD_resume_connection(req->connection);
	}
	mutex_unlock(&h->checks_lock);
	return NULL;
}

/* Suspends @req's connection until its password is checked; false if full */
static bool queue_password_check(struct kvm_events_httpd *h, struct scrape_request *req)
{
	bool queued = false;

	mutex_lock(&h->checks_lock);
	if (!h->stopping && h->nr_checks < MAX_PASSWORD_CHECKS) {
		MHD_suspend_connection(req->connection);
		req->state = REQUEST_CHECKING;
		clock_gettime(CLOCK_MONOTONIC, &req->queued);
		list_add_tail(&req->node, &h->checks);
		h->nr_checks++;
		cond_signal(&h->checks_cond);
		queued = true;
	}
	mutex_unlock(&h->checks_lock);
	return queued;
}

/* What the handshake checked, again: a certificate, and of the CA's */
static bool client_verified(struct kvm_events_httpd *h, struct MHD_Connection *connection)
{
	const union MHD_ConnectionInfo *info;
	unsigned int status = 0, nr = 0;

	if (!h->web_config.verify_client)
		return true;
	info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_GNUTLS_SESSION);
	if (!info || !info->tls_session ||
	    !gnutls_certificate_get_peers(info->tls_session, &nr) || !nr)
		return false;
	return !gnutls_certificate_verify_peers2(info->tls_session, &status) && !status;
}

/* The path of a request's target, also in absolute form (RFC 9112 3.2.2) */
static const char *target_path(const char *url)
{
	const char *p = NULL;

	if (!strncasecmp(url, "http://", 7))
		p = url + 7;
	else if (!strncasecmp(url, "https://", 8))
		p = url + 8;
	if (!p)
		return url;
	p = strchr(p, '/');
	return p ?: "/";
}

/* Too many passwords wait for their check: the client is to come again */
static enum MHD_Result answer_busy(struct MHD_Connection *connection)
{
	return answer_text(connection, MHD_HTTP_SERVICE_UNAVAILABLE,
			   "too many passwords to check; try again.\n", NULL);
}

/*
 * Basic auth, where the web config asks for it: MHD_YES once @req is
 * decided, with @req->allowed; MHD_NO on an error the connection ends on.
 * An answer queued meanwhile (503) is said by @answered.
 */
static enum MHD_Result authorize(struct kvm_events_httpd *h, struct scrape_request *req,
				 bool *answered)
{
	*answered = false;
	if (req->state == REQUEST_CHECKED)
		return MHD_YES;
	if (req->state == REQUEST_SHED) {
		*answered = true;
		return answer_busy(req->connection);
	}
	req->state = REQUEST_CHECKED;
	if (basic_credentials(req->connection, &req->user, &req->password))
		return MHD_YES;		/* allowed stays false */
	if (kvm_events_web_config__remembers(&h->web_config, req->user, req->password)) {
		req->allowed = true;
		return MHD_YES;
	}
	if (queue_password_check(h, req)) {
		*answered = true;	/* the connection is suspended */
		return MHD_YES;
	}
	*answered = true;
	return answer_busy(req->connection);
}

/*
 * Only GET and HEAD of /metrics, and only for whom the web config lets
 * in.  The answer is queued at the request's second call, once its
 * headers (and any body, thrown away) are read: queued at the first, the
 * library closes the connection after it, and Prometheus would make a
 * new one, and a TLS handshake, at each scrape.
 */
static enum MHD_Result answer(void *cls, struct MHD_Connection *connection, const char *url,
			      const char *method, const char *version __maybe_unused,
			      const char *upload_data __maybe_unused,
			      size_t *upload_data_size, void **req_cls)
{
	struct kvm_events_httpd *h = cls;
	struct scrape_request *req = *req_cls;
	enum MHD_Result ret;
	bool answered;

	if (!req) {
		req = zalloc(sizeof(*req));
		if (!req)
			return MHD_NO;
		INIT_LIST_HEAD(&req->node);
		req->connection = connection;
		*req_cls = req;
		return MHD_YES;
	}
	if (*upload_data_size) {
		*upload_data_size = 0;
		return MHD_YES;
	}
	if (req->state == REQUEST_CHECKING)
		return MHD_YES;
	if (!client_verified(h, connection))
		return answer_text(connection, MHD_HTTP_FORBIDDEN,
				   "a client certificate of the CA's is needed.\n", NULL);
	if (h->web_config.nr_users) {
		ret = authorize(h, req, &answered);
		if (answered || ret == MHD_NO)
			return ret;
		if (!req->allowed)
			return answer_text(connection, MHD_HTTP_UNAUTHORIZED,
					   "unauthorized.\n", NULL);
	}
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return answer_text(connection, MHD_HTTP_METHOD_NOT_ALLOWED,
				   "only GET and HEAD are answered.\n", "GET, HEAD");
	if (strcmp(target_path(url), "/metrics"))
		return answer_text(connection, MHD_HTTP_NOT_FOUND, "only /metrics is here.\n",
				   NULL);
	return answer_page(h, connection);
}

static int start_daemon(struct kvm_events_httpd *h)
{
	struct kvm_events_web_config *wc = &h->web_config;
	unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL |
			     MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG;
	struct MHD_OptionItem tls[] = {
		{ MHD_OPTION_HTTPS_MEM_CERT, 0, wc->cert },
		{ MHD_OPTION_HTTPS_MEM_KEY, 0, wc->key },
		{ wc->client_ca ? MHD_OPTION_HTTPS_MEM_TRUST : MHD_OPTION_END, 0, wc->client_ca },
		{ MHD_OPTION_END, 0, NULL },
	};

	if (wc->tls)
		flags |= MHD_USE_TLS;
	if (h->ipv6)
		flags |= MHD_USE_IPv6;
	h->daemon = MHD_start_daemon(flags, 0, NULL, NULL, answer, h,
		MHD_OPTION_LISTEN_SOCKET, h->listen_fd,
		MHD_OPTION_THREAD_POOL_SIZE, (unsigned int)SERVER_THREADS,
		MHD_OPTION_CONNECTION_LIMIT, h->max_connections,
		MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned int)MAX_PER_ADDRESS,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)REQUEST_DEADLINE_S,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)CONNECTION_MEMORY,
		MHD_OPTION_NOTIFY_CONNECTION, notify_connection, h,
		MHD_OPTION_NOTIFY_COMPLETED, request_completed, h,
		MHD_OPTION_EXTERNAL_LOGGER, log_mhd, h,
		MHD_OPTION_ARRAY, wc->tls ? tls : &tls[3],
		MHD_OPTION_END);
	return h->daemon ? 0 : -EIO;
}

int kvm_events_httpd__start(struct kvm_events_httpd *h, const char *cmd)
{
	int err;

	if (pipe2(h->stop_pipe, O_CLOEXEC)) {
		err = -errno;
		goto out_err;
	}
	err = -pthread_create(&h->reaper, NULL, reaper, h);
	if (err)
		goto out_err;
	h->reaping = true;
	if (h->web_config.nr_users) {
		err = -pthread_create(&h->checker, NULL, password_checker, h);
		if (err)
			goto out_err;
		h->checking = true;
	}
	err = start_daemon(h);
	if (!err) {
		h->listen_fd = -1;	/* the library's now, which closes it */
		return 0;
	}
out_err:
	pr_err("perf kvm-events %s: --metrics-listen %s: cannot start the server: %s\n", cmd,
	       h->listen, err == -EIO ? "libmicrohttpd refused (perf -v says why)" :
	       strerror(-err));
	return err;
}

void kvm_events_httpd__publish(struct kvm_events_httpd *h, char *page, size_t len)
{
	mutex_lock(&h->page_lock);
	free(h->page);
	h->page = page;
	h->page_len = len;
	mutex_unlock(&h->page_lock);
}

void kvm_events_httpd__close(struct kvm_events_httpd *h)
{
	if (!h)
		return;
	/* The passwords' thread first: it wakes every suspended connection */
	if (h->checking) {
		mutex_lock(&h->checks_lock);
		WRITE_ONCE(h->stopping, true);
		cond_signal(&h->checks_cond);
		mutex_unlock(&h->checks_lock);
		pthread_join(h->checker, NULL);
	}
	/* Then the library's: they close every connection */
	if (h->daemon)
		MHD_stop_daemon(h->daemon);
	if (h->reaping) {
		if (write(h->stop_pipe[1], "", 1) != 1)
			pr_debug("perf kvm-events: cannot stop the deadlines' thread\n");
		pthread_join(h->reaper, NULL);
	}
	if (h->stop_pipe[0] >= 0) {
		close(h->stop_pipe[0]);
		close(h->stop_pipe[1]);
	}
	if (h->listen_fd >= 0)
		close(h->listen_fd);
	if (h->has_web_config)
		kvm_events_web_config__exit(&h->web_config);
	mutex_destroy(&h->page_lock);
	mutex_destroy(&h->conns_lock);
	mutex_destroy(&h->checks_lock);
	cond_destroy(&h->checks_cond);
	free(h->page);
	free(h);
}
