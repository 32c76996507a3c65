// The OpenSSL pieces of HailNet's ClientStream (a TLS client on a socket of its own, for Redis), imported only by
// HailNet through this module. Macros do not reach Swift through the clang importer, so each one HailNet needs is
// a tiny inline function here.
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

/// Refuses anything older than TLS 1.2 on `ctx`; 1 on success.
static inline int hail_tls_require_tls12(SSL_CTX *ctx) {
    return (int)SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
}

/// Sends `name` as the Server Name Indication of `ssl`'s handshake; 1 on success.
static inline int hail_tls_set_server_name(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}

/// Checks the peer certificate of `ssl` against the IP address `address` (a literal) rather than a DNS name; 1 on
/// success.
static inline int hail_tls_expect_ip(SSL *ssl, const char *address) {
    return X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), address);
}
