// SPDX-License-Identifier: GPL-2.0
#include <crypt.h>
#include <microhttpd.h>
#include <yaml.h>
#include <gnutls/gnutls.h>

int main(void)
{
	yaml_parser_t parser;

	yaml_parser_initialize(&parser);
	yaml_parser_delete(&parser);
	return MHD_is_feature_supported(MHD_FEATURE_TLS) &&
	       gnutls_check_version(NULL) && crypt_preferred_method() ? 0 : 1;
}
