// libwebsockets (with its OpenSSL generic crypto), imported only by HailNet.
#include <libwebsockets.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

// Function-like macros and 64-bit option masks do not reach Swift through the clang importer,
// so each value HailNet needs is re-exported here as a tiny inline function.

/// Bytes lws_write needs writable in front of every payload it sends.
static inline size_t hail_lws_pre(void) { return LWS_PRE; }

/// Context options for a server or client context on the libev event loop plugin.
static inline uint64_t hail_lws_option_libev(void) { return LWS_SERVER_OPTION_LIBEV; }

/// Context option: no IPv6 listen socket (HailNet binds IPv4 literals such as 127.0.0.1).
static inline uint64_t hail_lws_option_disable_ipv6(void) { return LWS_SERVER_OPTION_DISABLE_IPV6; }

/// Context option: close WebSocket connections whose text frames are not valid UTF-8.
static inline uint64_t hail_lws_option_validate_utf8(void) { return LWS_SERVER_OPTION_VALIDATE_UTF8; }

/// Context option: a request whose method lws does not know becomes a raw socket (LWS_CALLBACK_RAW_*) that
/// HailNet answers itself, instead of lws's own HTML 403.
static inline uint64_t hail_lws_option_fallback_on_unknown_method(void) {
    return LWS_SERVER_OPTION_FALLBACK_TO_APPLY_LISTEN_ACCEPT_CONFIG;
}

/// Context option: skip loading the OS CA store (a client that trusts one CA file, or speaks ws:// only).
static inline uint64_t hail_lws_option_disable_os_ca_certs(void) {
    return LWS_SERVER_OPTION_DISABLE_OS_CA_CERTS;
}

/// Context option: initialise OpenSSL and give the context's vhost a client TLS context (wss://).
static inline uint64_t hail_lws_option_ssl_global_init(void) { return LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT; }

/// Client connect flag: speak TLS, verifying the server's certificate chain and name.
static inline int hail_lws_client_use_ssl(void) { return LCCSCF_USE_SSL; }

#include <openssl/ssl.h>
#include <openssl/x509.h>

/// Why OpenSSL refused the server's certificate on `wsi`'s TLS connection (`certificate verify failed: ...`), or NULL
/// when it did not (or the connection has no TLS): lws 4.1.6 reports such a failure as `error:00000001`.
static inline const char *hail_lws_tls_verify_failure(struct lws *wsi) {
    SSL *ssl = (SSL *)lws_get_ssl(wsi);
    if (!ssl) return NULL;
    long result = SSL_get_verify_result(ssl);
    return result == X509_V_OK ? NULL : X509_verify_cert_error_string(result);
}

/// The "no content length" sentinel of lws_add_http_common_headers.
static inline lws_filepos_t hail_lws_no_content_length(void) { return LWS_ILLEGAL_HTTP_CONTENT_LEN; }

/// The listen-port value that makes a context with no listening vhost (a client context).
static inline int hail_lws_no_listen(void) { return CONTEXT_PORT_NO_LISTEN; }

/// The listen-port value for a server vhost that lws does not listen for: HailNet accepts on its own
/// SO_REUSEPORT socket, one per loop, and hands each connection to lws (lws 4.1.6 sets SO_REUSEPORT on its
/// own listener only for several service threads in one context, which this build does not have).
static inline int hail_lws_no_listen_server(void) { return CONTEXT_PORT_NO_LISTEN_SERVER; }

/// Set on a wsi timeout to make lws close it on its next service pass rather than in this call.
static inline int hail_lws_to_kill_async(void) { return LWS_TO_KILL_ASYNC; }

/// HMAC-SHA256 through OpenSSL's libcrypto (lws 4.1.6 here is built without its lws_genhmac wrapper).
/// Returns 0 on success; `out` must hold 32 bytes.
static inline int hail_hmac_sha256(const void *key, size_t key_len, const void *msg, size_t msg_len,
                                   unsigned char *out) {
    unsigned int out_len = 32;
    static const unsigned char empty = 0;
    if (HMAC(EVP_sha256(), key_len ? key : &empty, (int)key_len, msg_len ? msg : &empty, msg_len, out,
             &out_len) == NULL) {
        return -1;
    }
    return out_len == 32 ? 0 : -1;
}

#include <openssl/rand.h>

/// Fills `out` with `count` bytes from OpenSSL's CSPRNG; returns 0 on success.
static inline int hail_random_bytes(unsigned char *out, int count) {
    return RAND_bytes(out, count) == 1 ? 0 : -1;
}

#include <ev.h>
#include <stdlib.h>

/// One libev loop handed to lws as a "foreign" loop, plus a thread-safe stop signal.
///
/// HailNet owns the loop instead of letting lws create it because lws installs a SIGINT watcher on
/// loops it creates, and libev aborts when a second loop in the process watches the same signal
/// (a server and a client context in one process). Foreign loops get no signal watcher.
typedef struct hail_loop {
    struct ev_loop *loop;
    ev_async stop;
    ev_timer tick;
    void (*tick_fn)(void *user);
    void *tick_user;
    ev_io listener;
    int listening;
    void (*accept_fn)(void *user, int fd);
    void *accept_user;
} hail_loop_t;

#include <sys/socket.h>
#include <errno.h>

static void hail_loop_accept_fire(struct ev_loop *loop, ev_io *watcher, int revents) {
    (void)loop;
    (void)revents;
    hail_loop_t *l = (hail_loop_t *)watcher->data;
    // A bounded batch per wake-up, so a connection storm cannot starve the sockets already open.
    for (int i = 0; i < 128; i++) {
        int fd = accept4(watcher->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) return;  // EAGAIN (drained), or EMFILE and friends: the next wake-up tries again
        l->accept_fn(l->accept_user, fd);
    }
}

/// Accepts connections on the listening socket `fd` from the loop thread, handing each to `fn(user, fd)`.
/// Call before hail_loop_run, on the thread that will run it.
static inline void hail_loop_listen(hail_loop_t *l, int fd, void (*fn)(void *, int), void *user) {
    l->accept_fn = fn;
    l->accept_user = user;
    ev_io_init(&l->listener, hail_loop_accept_fire, fd, EV_READ);
    l->listener.data = l;
    l->listening = 1;
    ev_io_start(l->loop, &l->listener);
}

/// Stops accepting on the loop's listener and shuts the socket down, so the kernel refuses new connections (a
/// balancer's connect fails at once and it tries another node) while the descriptor stays the loop's to close
/// when it ends. Loop thread only.
static inline void hail_loop_unlisten(hail_loop_t *l) {
    if (!l->listening) return;
    ev_io_stop(l->loop, &l->listener);
    l->listening = 0;
    shutdown(l->listener.fd, SHUT_RDWR);
}

static void hail_loop_tick_fire(struct ev_loop *loop, ev_timer *watcher, int revents) {
    (void)loop;
    (void)revents;
    hail_loop_t *l = (hail_loop_t *)watcher->data;
    l->tick_fn(l->tick_user);
}

/// Calls `fn(user)` on the loop thread every `seconds`, outside any lws callback (HailNet's own
/// WebSocket keepalive sweep). Call before hail_loop_run, on the thread that will run it.
static inline void hail_loop_start_tick(hail_loop_t *l, double seconds, void (*fn)(void *), void *user) {
    l->tick_fn = fn;
    l->tick_user = user;
    ev_timer_init(&l->tick, hail_loop_tick_fire, seconds, seconds);
    l->tick.data = l;
    ev_timer_start(l->loop, &l->tick);
}

static void hail_loop_stop_fire(struct ev_loop *loop, ev_async *watcher, int revents) {
    (void)revents;
    hail_loop_t *l = (hail_loop_t *)watcher->data;
    if (l->tick_fn) ev_timer_stop(loop, &l->tick);
    if (l->listening) ev_io_stop(loop, &l->listener);
    ev_async_stop(loop, watcher);
    ev_break(loop, EVBREAK_ALL);
}

/// A new loop with its stop watcher armed, or NULL.
static inline hail_loop_t *hail_loop_new(void) {
    hail_loop_t *l = (hail_loop_t *)calloc(1, sizeof(hail_loop_t));
    if (!l) return NULL;
    l->loop = ev_loop_new(EVFLAG_AUTO);
    if (!l->loop) {
        free(l);
        return NULL;
    }
    ev_async_init(&l->stop, hail_loop_stop_fire);
    l->stop.data = l;
    ev_async_start(l->loop, &l->stop);
    return l;
}

/// The `struct ev_loop *` to put in lws_context_creation_info.foreign_loops.
static inline void *hail_loop_ev(hail_loop_t *l) { return l->loop; }

/// Makes a busy loop gather readiness for up to `seconds` before it polls again (libev's io collect interval):
/// a loop that has just handled events sleeps the rest of the interval, so one poll returns a batch of ready
/// sockets instead of one wake-up per message; an idle loop still wakes at once for the first event.
/// Call on the thread that runs the loop (before hail_loop_run, or from its callbacks: it takes effect next turn).
static inline void hail_loop_set_io_collect(hail_loop_t *l, double seconds) {
    ev_set_io_collect_interval(l->loop, seconds);
}

#include <sched.h>
#include <string.h>

/// Pins the calling thread to processor `cpu`; returns 0 on success (an errno otherwise, e.g. a CPU this process
/// may not use).
static inline int hail_pin_current_thread(int cpu) {
    // The CPU_* macros need _GNU_SOURCE before the first libc header, which this shim does not control.
    cpu_set_t set;
    memset(&set, 0, sizeof(set));
    unsigned long *words = (unsigned long *)&set;
    size_t bits = 8 * sizeof(unsigned long);
    if (cpu < 0 || (size_t)cpu >= 8 * sizeof(set)) return EINVAL;
    words[(size_t)cpu / bits] |= 1UL << ((size_t)cpu % bits);
    // pid 0: the calling thread (Linux applies affinity per thread).
    return sched_setaffinity(0, sizeof(set), &set) == 0 ? 0 : errno;
}

#include <sys/prctl.h>

/// Names the calling thread for the kernel (`top -H`, `perf`, /proc/PID/task/TID/comm; 15 bytes kept); 0 on success.
static inline int hail_name_current_thread(const char *name) {
    return prctl(PR_SET_NAME, (unsigned long)name, 0UL, 0UL, 0UL) == 0 ? 0 : errno;
}

/// Writes up to `max` processors this process may run on (its affinity mask) to `out`, in order; returns how many.
static inline int hail_allowed_cpus(int *out, int max) {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) != 0) return 0;
    unsigned long *words = (unsigned long *)&set;
    size_t bits = 8 * sizeof(unsigned long);
    int count = 0;
    for (size_t cpu = 0; cpu < 8 * sizeof(set) && count < max; cpu++) {
        if (words[cpu / bits] & (1UL << (cpu % bits))) out[count++] = (int)cpu;
    }
    return count;
}

/// A repeating timer on one hail loop, made and stopped on the loop thread only.
typedef struct hail_timer {
    ev_timer timer;
    struct ev_loop *loop;
    void (*fn)(void *user);
    void *user;
} hail_timer_t;

static void hail_timer_fire(struct ev_loop *loop, ev_timer *watcher, int revents) {
    (void)loop;
    (void)revents;
    hail_timer_t *t = (hail_timer_t *)watcher->data;
    t->fn(t->user);
}

/// Calls `fn(user)` on the loop thread every `seconds`, the first time after `seconds`; NULL when out of
/// memory. Loop thread only.
static inline hail_timer_t *hail_loop_timer_start(hail_loop_t *l, double seconds, void (*fn)(void *), void *user) {
    hail_timer_t *t = (hail_timer_t *)calloc(1, sizeof(hail_timer_t));
    if (!t) return NULL;
    t->loop = l->loop;
    t->fn = fn;
    t->user = user;
    ev_timer_init(&t->timer, hail_timer_fire, seconds, seconds);
    t->timer.data = t;
    ev_timer_start(l->loop, &t->timer);
    return t;
}

/// Stops and frees a timer made by hail_loop_timer_start. Loop thread only (or after the loop has ended).
static inline void hail_loop_timer_stop(hail_timer_t *t) {
    ev_timer_stop(t->loop, &t->timer);
    free(t);
}

/// Runs the loop on the calling thread until hail_loop_request_stop.
static inline void hail_loop_run(hail_loop_t *l) { ev_run(l->loop, 0); }

/// Thread-safe: makes hail_loop_run return on the loop thread.
static inline void hail_loop_request_stop(hail_loop_t *l) { ev_async_send(l->loop, &l->stop); }

/// Frees the loop; the lws context on it must already be destroyed.
static inline void hail_loop_free(hail_loop_t *l) {
    ev_loop_destroy(l->loop);
    free(l);
}

#include <malloc.h>

/// Hands every whole free page of every malloc arena back to the kernel (glibc's malloc_trim); 1 when some was.
static inline int hail_malloc_trim(void) { return malloc_trim(0); }

// ---- Token signatures (JWS ES256 and RS256) through OpenSSL 3's EVP APIs ----
// Keys are EVP_PKEY handles HailNet wraps in Swift classes; nothing here computes a signature by hand.

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ecdsa.h>
#include <openssl/param_build.h>
#include <openssl/pem.h>

/// The public key of an RFC 7518 P-256 JWK from its 32-byte `x` and `y`; NULL when they are not a point on the curve.
static inline EVP_PKEY *hail_pkey_ec_p256(const unsigned char *x, size_t x_len, const unsigned char *y,
                                          size_t y_len) {
    if (x_len != 32 || y_len != 32) return NULL;
    unsigned char point[65];
    point[0] = 0x04;  // uncompressed SEC1 point
    memcpy(point + 1, x, 32);
    memcpy(point + 33, y, 32);
    EVP_PKEY *pkey = NULL;
    OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
    OSSL_PARAM *params = NULL;
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
    if (bld && ctx && OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME, "prime256v1", 0) == 1 &&
        OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY, point, sizeof point) == 1 &&
        (params = OSSL_PARAM_BLD_to_param(bld)) != NULL && EVP_PKEY_fromdata_init(ctx) == 1) {
        if (EVP_PKEY_fromdata(ctx, &pkey, EVP_PKEY_PUBLIC_KEY, params) != 1) pkey = NULL;
    }
    OSSL_PARAM_free(params);
    OSSL_PARAM_BLD_free(bld);
    EVP_PKEY_CTX_free(ctx);
    return pkey;
}

/// The public key of an RFC 7518 RSA JWK from its big-endian modulus `n` and exponent `e`; NULL when invalid.
static inline EVP_PKEY *hail_pkey_rsa(const unsigned char *n, size_t n_len, const unsigned char *e, size_t e_len) {
    EVP_PKEY *pkey = NULL;
    BIGNUM *bn_n = BN_bin2bn(n, (int)n_len, NULL);
    BIGNUM *bn_e = BN_bin2bn(e, (int)e_len, NULL);
    OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
    OSSL_PARAM *params = NULL;
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(NULL, "RSA", NULL);
    if (bn_n && bn_e && bld && ctx && OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_N, bn_n) == 1 &&
        OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_E, bn_e) == 1 &&
        (params = OSSL_PARAM_BLD_to_param(bld)) != NULL && EVP_PKEY_fromdata_init(ctx) == 1) {
        if (EVP_PKEY_fromdata(ctx, &pkey, EVP_PKEY_PUBLIC_KEY, params) != 1) pkey = NULL;
    }
    OSSL_PARAM_free(params);
    OSSL_PARAM_BLD_free(bld);
    EVP_PKEY_CTX_free(ctx);
    BN_free(bn_n);
    BN_free(bn_e);
    return pkey;
}

/// 1 for an EC key on P-256, 2 for an RSA key, 0 for anything else.
static inline int hail_pkey_kind(EVP_PKEY *key) {
    if (EVP_PKEY_is_a(key, "RSA")) return 2;
    if (!EVP_PKEY_is_a(key, "EC")) return 0;
    char group[64] = {0};
    size_t length = 0;
    if (EVP_PKEY_get_utf8_string_param(key, OSSL_PKEY_PARAM_GROUP_NAME, group, sizeof group, &length) != 1) return 0;
    return strcmp(group, "prime256v1") == 0 || strcmp(group, "P-256") == 0 ? 1 : 0;
}

/// The key's size in bits.
static inline int hail_pkey_bits(EVP_PKEY *key) { return EVP_PKEY_get_bits(key); }

/// Releases a key.
static inline void hail_pkey_free(EVP_PKEY *key) { EVP_PKEY_free(key); }

/// 1 when `sig` is a valid SHA-256 signature of `msg` under `key`: for EC the JWS form (r || s, 32 bytes each,
/// RFC 7518 section 3.4), turned into DER for OpenSSL; for RSA PKCS #1 v1.5. 0 otherwise.
static inline int hail_pkey_verify_sha256(EVP_PKEY *key, int is_ec, const unsigned char *msg, size_t msg_len,
                                          const unsigned char *sig, size_t sig_len) {
    unsigned char *der = NULL;
    int der_len = 0;
    const unsigned char *checked = sig;
    size_t checked_len = sig_len;
    if (is_ec) {
        if (sig_len != 64) return 0;
        ECDSA_SIG *ecdsa = ECDSA_SIG_new();
        BIGNUM *r = BN_bin2bn(sig, 32, NULL);
        BIGNUM *s = BN_bin2bn(sig + 32, 32, NULL);
        if (!ecdsa || !r || !s || ECDSA_SIG_set0(ecdsa, r, s) != 1) {
            BN_free(r);
            BN_free(s);
            ECDSA_SIG_free(ecdsa);
            return 0;
        }
        der_len = i2d_ECDSA_SIG(ecdsa, &der);
        ECDSA_SIG_free(ecdsa);
        if (der_len <= 0) return 0;
        checked = der;
        checked_len = (size_t)der_len;
    }
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    int ok = md && EVP_DigestVerifyInit(md, NULL, EVP_sha256(), NULL, key) == 1 &&
             EVP_DigestVerify(md, checked, checked_len, msg, msg_len) == 1;
    EVP_MD_CTX_free(md);
    OPENSSL_free(der);
    return ok ? 1 : 0;
}

/// Signs `msg` with SHA-256 under the private `key` into `out` (room for 512 bytes), in the JWS form for EC
/// (r || s); returns the signature's length, or -1.
static inline int hail_pkey_sign_sha256(EVP_PKEY *key, int is_ec, const unsigned char *msg, size_t msg_len,
                                        unsigned char *out, size_t out_cap) {
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    size_t length = 0;
    unsigned char *raw = NULL;
    int result = -1;
    if (md && EVP_DigestSignInit(md, NULL, EVP_sha256(), NULL, key) == 1 &&
        EVP_DigestSign(md, NULL, &length, msg, msg_len) == 1 && (raw = OPENSSL_malloc(length)) != NULL &&
        EVP_DigestSign(md, raw, &length, msg, msg_len) == 1) {
        if (!is_ec) {
            if (length <= out_cap) {
                memcpy(out, raw, length);
                result = (int)length;
            }
        } else {
            const unsigned char *cursor = raw;
            ECDSA_SIG *ecdsa = d2i_ECDSA_SIG(NULL, &cursor, (long)length);
            if (ecdsa && out_cap >= 64 && BN_bn2binpad(ECDSA_SIG_get0_r(ecdsa), out, 32) == 32 &&
                BN_bn2binpad(ECDSA_SIG_get0_s(ecdsa), out + 32, 32) == 32) {
                result = 64;
            }
            ECDSA_SIG_free(ecdsa);
        }
    }
    OPENSSL_free(raw);
    EVP_MD_CTX_free(md);
    return result;
}

/// A private key from PEM text (PKCS #8, or the traditional EC/RSA forms); NULL when it is not one.
static inline EVP_PKEY *hail_pkey_read_private_pem(const char *pem, size_t length) {
    BIO *bio = BIO_new_mem_buf(pem, (int)length);
    if (!bio) return NULL;
    EVP_PKEY *key = PEM_read_bio_PrivateKey(bio, NULL, NULL, NULL);
    BIO_free(bio);
    return key;
}

/// A new P-256 key pair (`kind` 1) or RSA key pair of `bits` (`kind` 2); NULL on failure.
static inline EVP_PKEY *hail_pkey_generate(int kind, unsigned int bits) {
    if (kind == 1) return EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
    if (kind == 2) return EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)bits);
    return NULL;
}

/// The private key as PKCS #8 PEM into `out`; returns the length written, or the length needed when `out_cap` is
/// too small, or -1.
static inline int hail_pkey_private_pem(EVP_PKEY *key, char *out, size_t out_cap) {
    BIO *bio = BIO_new(BIO_s_mem());
    if (!bio) return -1;
    int result = -1;
    if (PEM_write_bio_PrivateKey(bio, key, NULL, NULL, 0, NULL, NULL) == 1) {
        char *data = NULL;
        long length = BIO_get_mem_data(bio, &data);
        if (length > 0) {
            if ((size_t)length <= out_cap) memcpy(out, data, (size_t)length);
            result = (int)length;
        }
    }
    BIO_free(bio);
    return result;
}

/// One of the key's big-number parameters (`name`: OSSL_PKEY_PARAM_EC_PUB_X, _Y, _RSA_N, _RSA_E) big-endian into
/// `out`, left-padded to `pad` bytes when `pad` is not 0; returns its length or -1.
static inline int hail_pkey_bn_param(EVP_PKEY *key, const char *name, unsigned char *out, size_t out_cap, int pad) {
    BIGNUM *bn = NULL;
    if (EVP_PKEY_get_bn_param(key, name, &bn) != 1) return -1;
    int length = pad > 0 ? pad : BN_num_bytes(bn);
    int result = -1;
    if ((size_t)length <= out_cap) result = BN_bn2binpad(bn, out, length);
    BN_free(bn);
    return result;
}

/// The parameter names hail_pkey_bn_param takes (macros do not reach Swift).
static inline const char *hail_param_ec_x(void) { return OSSL_PKEY_PARAM_EC_PUB_X; }
static inline const char *hail_param_ec_y(void) { return OSSL_PKEY_PARAM_EC_PUB_Y; }
static inline const char *hail_param_rsa_n(void) { return OSSL_PKEY_PARAM_RSA_N; }
static inline const char *hail_param_rsa_e(void) { return OSSL_PKEY_PARAM_RSA_E; }

/// SHA-256 of `msg` into `out` (32 bytes); 0 on success.
static inline int hail_sha256(const unsigned char *msg, size_t msg_len, unsigned char *out) {
    unsigned int length = 0;
    static const unsigned char empty = 0;
    return EVP_Digest(msg_len ? msg : &empty, msg_len, out, &length, EVP_sha256(), NULL) == 1 && length == 32 ? 0
                                                                                                             : -1;
}
