// SPDX-License-Identifier: GPL-2.0
/*
 * --metrics-web-config: exporter-toolkit's web config, read with libyaml,
 * the TLS files checked with GnuTLS (libmicrohttpd's TLS), the passwords
 * with the system's crypt(3), which knows bcrypt.
 */
#include <crypt.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>
#include <gnutls/gnutls.h>
#include <gnutls/crypto.h>
#include <linux/zalloc.h>
#include <api/fs/fs.h>

#include "debug.h"
#include "kvm-events-web-config.h"

/* The errors' context: which command, which file */
struct web_config_reader {
	const char			*cmd;
	const char			*path;
	yaml_document_t			doc;
	struct kvm_events_web_config	*wc;
	char				*cert_file, *key_file, *client_ca_file;
	char				*client_auth_type;
};

static int config_error(const struct web_config_reader *r, const char *what, const char *detail)
{
	pr_err("perf kvm-events %s: --metrics-web-config %s: %s%s\n", r->cmd, r->path, what,
	       detail ?: "");
	return -EINVAL;
}

static yaml_node_t *node(struct web_config_reader *r, int index)
{
	return yaml_document_get_node(&r->doc, index);
}

/* A scalar's text, or NULL for another kind of node */
static const char *scalar(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* YAML's null: nothing after the key, ~ or null */
static bool is_null(const yaml_node_t *n)
{
	const char *s = scalar(n);

	return s && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	       (!*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") ||
		!strcmp(s, "NULL"));
}

/* @key's value, a string: an empty one (null in YAML) is as if not there */
static int take_string(struct web_config_reader *r, const char *key, yaml_node_t *value,
		       char **to)
{
	const char *s = scalar(value);

	if (!s)
		return config_error(r, key, ": expected a string");
	free(*to);
	*to = *s ? strdup(s) : NULL;
	return *s && !*to ? -ENOMEM : 0;
}

static int read_tls(struct web_config_reader *r, yaml_node_t *map)
{
	yaml_node_pair_t *pair;

	if (map->type != YAML_MAPPING_NODE)
		return config_error(r, "tls_server_config", ": expected a mapping");
	for (pair = map->data.mapping.pairs.start; pair < map->data.mapping.pairs.top; pair++) {
		const char *key = scalar(node(r, pair->key)) ?: "";
		yaml_node_t *value = node(r, pair->value);
		char what[128];
		int err;

		snprintf(what, sizeof(what), "tls_server_config.%s", key);
		if (!strcmp(key, "cert_file"))
			err = take_string(r, what, value, &r->cert_file);
		else if (!strcmp(key, "key_file"))
			err = take_string(r, what, value, &r->key_file);
		else if (!strcmp(key, "client_ca_file"))
			err = take_string(r, what, value, &r->client_ca_file);
		else if (!strcmp(key, "client_auth_type"))
			err = take_string(r, what, value, &r->client_auth_type);
		else
			err = config_error(r, what,
					   ": not supported (cert_file, key_file, client_ca_file, client_auth_type are)");
		if (err)
			return err;
	}
	r->wc->tls = true;
	return 0;
}

static bool is_bcrypt(const char *hash)
{
	return strlen(hash) == 60 && hash[0] == '$' && hash[1] == '2' &&
	       strchr("aby", hash[2]) && hash[3] == '$';
}

static int read_users(struct web_config_reader *r, yaml_node_t *map)
{
	struct kvm_events_web_config *wc = r->wc;
	yaml_node_pair_t *pair;

	if (map->type != YAML_MAPPING_NODE)
		return config_error(r, "basic_auth_users",
				    ": expected a mapping of users to bcrypt hashes");
	for (pair = map->data.mapping.pairs.start; pair < map->data.mapping.pairs.top; pair++) {
		const char *user = scalar(node(r, pair->key));
		const char *hash = scalar(node(r, pair->value));
		struct kvm_events_web_user *u;
		char what[160];

		snprintf(what, sizeof(what), "basic_auth_users.%s", user ?: "?");
		if (!user || !*user || strchr(user, ':'))
			return config_error(r, what, ": expected a user name without ':'");
		if (!hash || !is_bcrypt(hash))
			return config_error(r, what,
					    ": expected a bcrypt hash ($2a$, $2b$ or $2y$)");
		u = reallocarray(wc->users, wc->nr_users + 1, sizeof(*u));
		if (!u)
			return -ENOMEM;
		wc->users = u;
		u = &wc->users[wc->nr_users];
		memset(u, 0, sizeof(*u));
		u->name = strdup(user);
		u->hash = strdup(hash);
		wc->nr_users++;
		if (!u->name || !u->hash)
			return -ENOMEM;
	}
	return 0;
}

static int read_top(struct web_config_reader *r)
{
	yaml_node_t *root = yaml_document_get_root_node(&r->doc);
	yaml_node_pair_t *pair;

	if (!root)		/* an empty file: plain HTTP, as exporter-toolkit's */
		return 0;
	if (root->type != YAML_MAPPING_NODE)
		return config_error(r, "expected a mapping of tls_server_config",
				    " and basic_auth_users");
	for (pair = root->data.mapping.pairs.start; pair < root->data.mapping.pairs.top; pair++) {
		const char *key = scalar(node(r, pair->key)) ?: "";
		yaml_node_t *value = node(r, pair->value);
		int err;

		if (is_null(value) && (!strcmp(key, "tls_server_config") ||
					!strcmp(key, "basic_auth_users")))
			err = 0;	/* none, as exporter-toolkit takes it */
		else if (!strcmp(key, "tls_server_config"))
			err = read_tls(r, value);
		else if (!strcmp(key, "basic_auth_users"))
			err = read_users(r, value);
		else
			err = config_error(r, key,
					   ": not supported (tls_server_config and basic_auth_users are)");
		if (err)
			return err;
	}
	return 0;
}

/* A file of the config, from its folder when relative, whole and NUL-terminated */
static int read_file(const struct web_config_reader *r, const char *key, const char *file,
		     char **text)
{
	char path[PATH_MAX], *dir = strdup(r->path);
	size_t len = 0;
	int err;

	if (!dir)
		return -ENOMEM;
	if (file[0] == '/')
		snprintf(path, sizeof(path), "%s", file);
	else
		snprintf(path, sizeof(path), "%s/%s", dirname(dir), file);
	free(dir);
	err = filename__read_str(path, text, &len);
	if (err)
		pr_err("perf kvm-events %s: --metrics-web-config %s: %s %s: %s\n", r->cmd, r->path,
		       key, path, err == -1 ? "empty" : strerror(-err));
	return err == -1 ? -EINVAL : err;
}

/* That GnuTLS takes the certificate with the key, and the CA */
static int check_tls(const struct web_config_reader *r)
{
	struct kvm_events_web_config *wc = r->wc;
	gnutls_certificate_credentials_t cred;
	gnutls_datum_t cert = { (unsigned char *)wc->cert, strlen(wc->cert) };
	gnutls_datum_t key = { (unsigned char *)wc->key, strlen(wc->key) };
	int ret;

	if (gnutls_certificate_allocate_credentials(&cred))
		return -ENOMEM;
	ret = gnutls_certificate_set_x509_key_mem2(cred, &cert, &key, GNUTLS_X509_FMT_PEM,
						   NULL, 0);
	if (ret < 0) {
		pr_err("perf kvm-events %s: --metrics-web-config %s: cert_file %s with key_file %s: %s\n",
		       r->cmd, r->path, r->cert_file, r->key_file, gnutls_strerror(ret));
		gnutls_certificate_free_credentials(cred);
		return -EINVAL;
	}
	if (wc->client_ca) {
		gnutls_datum_t ca = { (unsigned char *)wc->client_ca, strlen(wc->client_ca) };

		ret = gnutls_certificate_set_x509_trust_mem(cred, &ca, GNUTLS_X509_FMT_PEM);
		if (ret <= 0) {
			pr_err("perf kvm-events %s: --metrics-web-config %s: client_ca_file %s: %s\n",
			       r->cmd, r->path, r->client_ca_file,
			       ret ? gnutls_strerror(ret) : "no certificate in it");
			gnutls_certificate_free_credentials(cred);
			return -EINVAL;
		}
	}
	gnutls_certificate_free_credentials(cred);
	return 0;
}

/* The TLS settings as exporter-toolkit takes them, and their files */
static int load_tls(struct web_config_reader *r)
{
	struct kvm_events_web_config *wc = r->wc;
	const char *auth = r->client_auth_type ?: "NoClientCert";
	int err;

	if (!wc->tls)
		return 0;
	if (!r->cert_file || !r->key_file)
		return config_error(r, "tls_server_config", ": needs both cert_file and key_file");
	if (!strcmp(auth, "RequireAndVerifyClientCert"))
		wc->verify_client = true;
	else if (strcmp(auth, "NoClientCert"))
		return config_error(r, "tls_server_config.client_auth_type",
				    ": not supported (NoClientCert and RequireAndVerifyClientCert are)");
	if (wc->verify_client != !!r->client_ca_file)
		return config_error(r, "tls_server_config",
				    ": client_ca_file and client_auth_type RequireAndVerifyClientCert go together");
	err = read_file(r, "cert_file", r->cert_file, &wc->cert) ?:
	      read_file(r, "key_file", r->key_file, &wc->key);
	if (!err && r->client_ca_file)
		err = read_file(r, "client_ca_file", r->client_ca_file, &wc->client_ca);
	return err ?: check_tls(r);
}

static int read_yaml(struct web_config_reader *r, FILE *fp)
{
	yaml_parser_t parser;
	int err;

	if (!yaml_parser_initialize(&parser))
		return -ENOMEM;
	yaml_parser_set_input_file(&parser, fp);
	if (!yaml_parser_load(&parser, &r->doc)) {
		char where[64];

		snprintf(where, sizeof(where), " at line %zu", parser.problem_mark.line + 1);
		pr_err("perf kvm-events %s: --metrics-web-config %s: not YAML: %s%s\n", r->cmd,
		       r->path, parser.problem ?: "cannot parse", where);
		yaml_parser_delete(&parser);
		return -EINVAL;
	}
	yaml_parser_delete(&parser);
	err = read_top(r);
	yaml_document_delete(&r->doc);
	return err;
}

int kvm_events_web_config__read(struct kvm_events_web_config *wc, const char *cmd,
				const char *path)
{
	struct web_config_reader r = { .cmd = cmd, .path = path, .wc = wc };
	FILE *fp;
	int err;

	memset(wc, 0, sizeof(*wc));
	wc->path = path;
	mutex_init(&wc->lock);
	fp = fopen(path, "r");
	if (!fp) {
		pr_err("perf kvm-events %s: --metrics-web-config %s: %s\n", cmd, path,
		       strerror(errno));
		return -errno;
	}
	err = read_yaml(&r, fp);
	fclose(fp);
	err = err ?: load_tls(&r);
	free(r.cert_file);
	free(r.key_file);
	free(r.client_ca_file);
	free(r.client_auth_type);
	if (err == -ENOMEM)
		pr_err("perf kvm-events %s: --metrics-web-config %s: out of memory\n", cmd, path);
	return err;
}

static bool same_bytes(const u8 *a, const u8 *b, size_t len)
{
	u8 diff = 0;
	size_t i;

	for (i = 0; i < len; i++)
		diff |= a[i] ^ b[i];
	return !diff;
}

/* crypt(3) of @password with @hash's salt and cost equals @hash */
static bool bcrypt_matches(const char *password, const char *hash)
{
	struct crypt_data *data = calloc(1, sizeof(*data));
	const char *out;
	bool ok;

	if (!data)
		return false;
	out = crypt_rn(password, hash, data, sizeof(*data));
	ok = out && strlen(out) == strlen(hash) &&
	     same_bytes((const u8 *)out, (const u8 *)hash, strlen(hash));
	free(data);
	return ok;
}

static struct kvm_events_web_user *find_user(struct kvm_events_web_config *wc, const char *name)
{
	size_t i;

	for (i = 0; i < wc->nr_users; i++)
		if (!strcmp(wc->users[i].name, name))
			return &wc->users[i];
	return NULL;
}

bool kvm_events_web_config__remembers(struct kvm_events_web_config *wc, const char *user,
				      const char *password)
{
	struct kvm_events_web_user *u = find_user(wc, user);
	u8 digest[32];
	bool ok;

	if (!u || gnutls_hash_fast(GNUTLS_DIG_SHA256, password, strlen(password), digest))
		return false;
	mutex_lock(&wc->lock);
	ok = u->cached && same_bytes(u->good, digest, sizeof(digest));
	mutex_unlock(&wc->lock);
	return ok;
}

bool kvm_events_web_config__allows(struct kvm_events_web_config *wc, const char *user,
				   const char *password)
{
	struct kvm_events_web_user *u = find_user(wc, user);
	u8 digest[32];

	/* A user that does not exist costs the first one's bcrypt, its cost */
	if (!u) {
		bcrypt_matches(password, wc->users[0].hash);
		return false;
	}
	if (!bcrypt_matches(password, u->hash) ||
	    gnutls_hash_fast(GNUTLS_DIG_SHA256, password, strlen(password), digest))
		return false;
	mutex_lock(&wc->lock);
	memcpy(u->good, digest, sizeof(digest));
	u->cached = true;
	mutex_unlock(&wc->lock);
	return true;
}

void kvm_events_web_config__exit(struct kvm_events_web_config *wc)
{
	size_t i;

	for (i = 0; i < wc->nr_users; i++) {
		free(wc->users[i].name);
		free(wc->users[i].hash);
	}
	zfree(&wc->users);
	wc->nr_users = 0;
	zfree(&wc->cert);
	zfree(&wc->key);
	zfree(&wc->client_ca);
	mutex_destroy(&wc->lock);
}
