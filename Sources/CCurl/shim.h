// libcurl (HTTP/2 through nghttp2) and OpenSSL's libcrypto (the ES256 signature of APNs provider tokens),
// imported only by HailAPNs.
#include <curl/curl.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <string.h>

// curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call, so each use HailAPNs makes
// is a typed inline function here.

/// A libcurl data callback (CURLOPT_WRITEFUNCTION's shape).
typedef size_t (*hail_curl_data_callback)(char *data, size_t size, size_t count, void *context);

/// Sets a `long` option.
static inline CURLcode hail_curl_set_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

/// Sets a string option (libcurl copies it).
static inline CURLcode hail_curl_set_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

/// Sets the request body; libcurl reads `body` during the transfer without copying it.
static inline CURLcode hail_curl_set_body(CURL *handle, const void *body, long length) {
    CURLcode code = curl_easy_setopt(handle, CURLOPT_POSTFIELDSIZE, length);
    return code != CURLE_OK ? code : curl_easy_setopt(handle, CURLOPT_POSTFIELDS, body);
}

/// Sets the request headers; the list must live until the transfer ends.
static inline CURLcode hail_curl_set_headers(CURL *handle, struct curl_slist *headers) {
    return curl_easy_setopt(handle, CURLOPT_HTTPHEADER, headers);
}

/// Sends the response body to `callback` with `context`.
static inline CURLcode hail_curl_set_body_callback(CURL *handle, hail_curl_data_callback callback, void *context) {
    CURLcode code = curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, callback);
    return code != CURLE_OK ? code : curl_easy_setopt(handle, CURLOPT_WRITEDATA, context);
}

/// HTTP/2 over TLS, negotiated by ALPN (APNs speaks nothing else).
static inline long hail_curl_http_version_2(void) { return CURL_HTTP_VERSION_2_0; }

/// The last transfer's HTTP status, 0 when there was none.
static inline long hail_curl_status(CURL *handle) {
    long status = 0;
    return curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &status) == CURLE_OK ? status : 0;
}

/// 1 when the last transfer spoke HTTP/2.
static inline int hail_curl_used_http2(CURL *handle) {
    long version = 0;
    return curl_easy_getinfo(handle, CURLINFO_HTTP_VERSION, &version) == CURLE_OK && version == CURL_HTTP_VERSION_2_0;
}

/// How many new connections the last transfer opened (0 when it reused one).
static inline long hail_curl_new_connections(CURL *handle) {
    long count = 0;
    return curl_easy_getinfo(handle, CURLINFO_NUM_CONNECTS, &count) == CURLE_OK ? count : 0;
}

/// Reads a PEM private key (an APNs `.p8` file is PKCS#8 PEM); NULL when the text holds none.
static inline EVP_PKEY *hail_pem_private_key(const void *pem, int length) {
    BIO *bio = BIO_new_mem_buf(pem, length);
    if (bio == NULL) return NULL;
    EVP_PKEY *key = PEM_read_bio_PrivateKey(bio, NULL, NULL, NULL);
    BIO_free(bio);
    return key;
}

/// 1 when `key` is an elliptic-curve key on P-256, the only curve ES256 allows.
static inline int hail_key_is_p256(EVP_PKEY *key) {
    char name[64] = {0};
    size_t length = 0;
    if (EVP_PKEY_get_base_id(key) != EVP_PKEY_EC) return 0;
    if (EVP_PKEY_get_utf8_string_param(key, OSSL_PKEY_PARAM_GROUP_NAME, name, sizeof name, &length) != 1) return 0;
    return strcmp(name, "prime256v1") == 0;
}

/// ES256 (ECDSA on P-256 with SHA-256) over `message`, written to `signature` as JWS wants it: `r` then `s`,
/// 32 big-endian bytes each. OpenSSL signs in DER; this only re-lays its two numbers. 0 on success.
static inline int hail_es256_sign(EVP_PKEY *key, const void *message, size_t length, unsigned char *signature) {
    int result = -1;
    unsigned char der[80];
    size_t der_length = sizeof der;
    ECDSA_SIG *parsed = NULL;
    EVP_MD_CTX *context = EVP_MD_CTX_new();
    if (context != NULL && EVP_DigestSignInit(context, NULL, EVP_sha256(), NULL, key) == 1
        && EVP_DigestSign(context, der, &der_length, message, length) == 1) {
        const unsigned char *cursor = der;
        parsed = d2i_ECDSA_SIG(NULL, &cursor, (long)der_length);
        if (parsed != NULL) {
            const BIGNUM *r = NULL, *s = NULL;
            ECDSA_SIG_get0(parsed, &r, &s);
            if (BN_bn2binpad(r, signature, 32) == 32 && BN_bn2binpad(s, signature + 32, 32) == 32) result = 0;
        }
    }
    ECDSA_SIG_free(parsed);
    EVP_MD_CTX_free(context);
    return result;
}
