// TLS through the system's OpenSSL 3, loaded at run time (dlopen): building and testing never need its headers or a
// linker flag. Only the few functions used are declared here, as opaque pointers. Sessions read and write memory BIOs:
// the harness does every socket call itself (kernel timestamps, its own queue), OpenSSL only transforms bytes.
#define _GNU_SOURCE
#include "CBenchLinux.h"
#include "CBenchTLSPrivate.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct CBenchTLSFunctions ossl;
__thread struct CBenchTLSSession *CBenchTLS_handshaking;
static int loaded;

/// The oldest queued OpenSSL error as text (or `fallback`), the queue cleared.
static void describeError(const char *fallback, char *error, size_t size) {
    unsigned long code = ossl.ERR_get_error ? ossl.ERR_get_error() : 0;
    if (code != 0) {
        ossl.ERR_error_string_n(code, error, size);
        ossl.ERR_clear_error();
    } else {
        snprintf(error, size, "%s", fallback);
    }
}

int CBenchTLS_load(char *error, size_t size) {
    if (loaded) return 0;
    void *ssl = dlopen("libssl.so.3", RTLD_NOW | RTLD_LOCAL);
    void *crypto = dlopen("libcrypto.so.3", RTLD_NOW | RTLD_LOCAL);
    if (ssl == NULL || crypto == NULL) {
        snprintf(error, size, "%s", dlerror());
        return -1;
    }
#define LOAD(library, name)                                                                  \
    if ((*(void **)&ossl.name = dlsym(library, #name)) == NULL) {                            \
        snprintf(error, size, "%s has no %s (OpenSSL 3 is needed)", #library, #name);      \
        return -1;                                                                           \
    }
    LOAD(ssl, TLS_server_method) LOAD(ssl, TLS_client_method) LOAD(ssl, SSL_CTX_new) LOAD(ssl, SSL_CTX_free)
    LOAD(ssl, SSL_CTX_use_certificate) LOAD(ssl, SSL_CTX_use_PrivateKey) LOAD(ssl, SSL_CTX_check_private_key)
    LOAD(ssl, SSL_CTX_set_verify) LOAD(ssl, SSL_CTX_ctrl) LOAD(ssl, SSL_new) LOAD(ssl, SSL_free)
    LOAD(ssl, SSL_set_bio) LOAD(ssl, SSL_ctrl) LOAD(ssl, SSL_set_accept_state) LOAD(ssl, SSL_set_connect_state)
    LOAD(ssl, SSL_do_handshake) LOAD(ssl, SSL_read) LOAD(ssl, SSL_write) LOAD(ssl, SSL_get_error)
    LOAD(ssl, SSL_shutdown) LOAD(ssl, SSL_get1_peer_certificate) LOAD(ssl, SSL_get_version)
    LOAD(ssl, SSL_set_alpn_protos) LOAD(ssl, SSL_get0_alpn_selected)
    LOAD(crypto, BIO_new) LOAD(crypto, BIO_s_mem) LOAD(crypto, BIO_write) LOAD(crypto, BIO_ctrl)
    LOAD(crypto, BIO_new_mem_buf) LOAD(crypto, BIO_free) LOAD(crypto, PEM_read_bio_X509)
    LOAD(crypto, PEM_read_bio_PrivateKey) LOAD(crypto, PEM_write_bio_X509) LOAD(crypto, X509_free)
    LOAD(crypto, EVP_PKEY_free) LOAD(crypto, X509_cmp) LOAD(crypto, X509_digest) LOAD(crypto, EVP_sha256)
    LOAD(crypto, EVP_PKEY_Q_keygen) LOAD(crypto, X509_new) LOAD(crypto, X509_set_version)
    LOAD(crypto, X509_get_serialNumber) LOAD(crypto, ASN1_INTEGER_set) LOAD(crypto, X509_gmtime_adj)
    LOAD(crypto, X509_getm_notBefore) LOAD(crypto, X509_getm_notAfter) LOAD(crypto, X509_set_pubkey)
    LOAD(crypto, X509_get_subject_name) LOAD(crypto, X509_NAME_add_entry_by_txt) LOAD(crypto, X509_set_issuer_name)
    LOAD(crypto, X509_sign) LOAD(crypto, ERR_get_error) LOAD(crypto, ERR_error_string_n) LOAD(crypto, ERR_clear_error)
    LOAD(ssl, SSL_CTX_get_cert_store) LOAD(ssl, SSL_CTX_set_default_verify_paths) LOAD(crypto, X509_STORE_add_cert)
    LOAD(ssl, SSL_set1_host) LOAD(ssl, SSL_get0_param) LOAD(crypto, X509_VERIFY_PARAM_set1_ip_asc)
    LOAD(crypto, X509_STORE_CTX_get_error) LOAD(crypto, X509_STORE_CTX_get_current_cert) LOAD(crypto, X509_NAME_oneline)
    LOAD(crypto, X509_get_issuer_name) LOAD(crypto, X509_get_ext_d2i) LOAD(crypto, OPENSSL_sk_num)
    LOAD(crypto, OPENSSL_sk_value) LOAD(crypto, ASN1_STRING_get0_data) LOAD(crypto, ASN1_STRING_length)
    LOAD(crypto, GENERAL_NAMES_free) LOAD(crypto, ASN1_TIME_print) LOAD(crypto, X509_verify_cert_error_string)
#undef LOAD
    loaded = 1;
    return 0;
}

void *CBenchTLS_readCertificate(const char *pem, int length, char *error, size_t size) {
    void *bio = ossl.BIO_new_mem_buf(pem, length);
    void *certificate = bio ? ossl.PEM_read_bio_X509(bio, NULL, NULL, NULL) : NULL;
    if (bio) ossl.BIO_free(bio);
    if (certificate == NULL) describeError("no PEM certificate", error, size);
    return certificate;
}

void *CBenchTLS_readPrivateKey(const char *pem, int length, char *error, size_t size) {
    void *bio = ossl.BIO_new_mem_buf(pem, length);
    void *key = bio ? ossl.PEM_read_bio_PrivateKey(bio, NULL, NULL, NULL) : NULL;
    if (bio) ossl.BIO_free(bio);
    if (key == NULL) describeError("no PEM private key", error, size);
    return key;
}

int CBenchTLS_makeSelfSigned(const char *commonName, void **certificate, void **key, char *error, size_t size) {
    *key = ossl.EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
    void *x509 = *key ? ossl.X509_new() : NULL;
    if (x509 == NULL || !ossl.X509_set_version(x509, 2) || !ossl.ASN1_INTEGER_set(ossl.X509_get_serialNumber(x509), 1)
        || !ossl.X509_gmtime_adj(ossl.X509_getm_notBefore(x509), -3600)
        || !ossl.X509_gmtime_adj(ossl.X509_getm_notAfter(x509), 7L * 24 * 3600) || !ossl.X509_set_pubkey(x509, *key)) {
        describeError("cannot make a certificate", error, size);
        goto fail;
    }
    void *name = ossl.X509_get_subject_name(x509);
    if (!ossl.X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, (const unsigned char *)commonName, -1, -1, 0)
        || !ossl.X509_set_issuer_name(x509, name) || !ossl.X509_sign(x509, *key, ossl.EVP_sha256())) {
        describeError("cannot sign a certificate", error, size);
        goto fail;
    }
    *certificate = x509;
    return 0;
fail:
    if (x509) ossl.X509_free(x509);
    if (*key) ossl.EVP_PKEY_free(*key);
    *key = NULL;
    *certificate = NULL;
    return -1;
}

int CBenchTLS_fingerprint(const void *certificate, unsigned char digest[32]) {
    unsigned int length = 32;
    return ossl.X509_digest(certificate, ossl.EVP_sha256(), digest, &length) == 1 && length == 32 ? 0 : -1;
}

long CBenchTLS_certificatePEM(void *certificate, char *buffer, size_t size) {
    void *bio = ossl.BIO_new(ossl.BIO_s_mem());
    if (bio == NULL || !ossl.PEM_write_bio_X509(bio, certificate)) {
        if (bio) ossl.BIO_free(bio);
        return -1;
    }
    char *data = NULL;
    long length = ossl.BIO_ctrl(bio, BIO_CTRL_INFO, 0, &data);
    if (length >= 0 && (size_t)length <= size) memcpy(buffer, data, (size_t)length);
    ossl.BIO_free(bio);
    return length;
}

void CBenchTLS_freeCertificate(void *certificate) { ossl.X509_free(certificate); }
void CBenchTLS_freePrivateKey(void *key) { ossl.EVP_PKEY_free(key); }

void *CBenchTLS_newContext(int server, void *certificate, void *key, char *error, size_t size) {
    void *context = ossl.SSL_CTX_new(server ? ossl.TLS_server_method() : ossl.TLS_client_method());
    if (context == NULL) {
        describeError("SSL_CTX_new failed", error, size);
        return NULL;
    }
    ossl.SSL_CTX_ctrl(context, SSL_CTRL_SET_MIN_PROTO_VERSION, TLS1_2_VERSION, NULL);
    ossl.SSL_CTX_ctrl(context, SSL_CTRL_MODE, SSL_MODE_RELEASE_BUFFERS, NULL);
    // Clients pin the server's certificate themselves (CBenchTLS_peerIs), unless told to verify its chain and name
    // (CBenchTLS_trustAuthorities, CBenchTLS_trustSystemStore).
    ossl.SSL_CTX_set_verify(context, SSL_VERIFY_NONE, NULL);
    if (server && (ossl.SSL_CTX_use_certificate(context, certificate) != 1
                   || ossl.SSL_CTX_use_PrivateKey(context, key) != 1 || ossl.SSL_CTX_check_private_key(context) != 1)) {
        describeError("the key does not fit the certificate", error, size);
        ossl.SSL_CTX_free(context);
        return NULL;
    }
    return context;
}

void CBenchTLS_freeContext(void *context) { ossl.SSL_CTX_free(context); }

void *CBenchTLS_newSession(void *context, int server) {
    struct CBenchTLSSession *session = calloc(1, sizeof *session);
    if (session == NULL) return NULL;
    session->ssl = ossl.SSL_new(context);
    session->input = ossl.BIO_new(ossl.BIO_s_mem());
    session->output = ossl.BIO_new(ossl.BIO_s_mem());
    if (session->ssl == NULL || session->input == NULL || session->output == NULL) {
        if (session->input) ossl.BIO_free(session->input);
        if (session->output) ossl.BIO_free(session->output);
        if (session->ssl) ossl.SSL_free(session->ssl);
        free(session);
        return NULL;
    }
    ossl.SSL_set_bio(session->ssl, session->input, session->output);  // the SSL owns both from here
    if (server) ossl.SSL_set_accept_state(session->ssl); else ossl.SSL_set_connect_state(session->ssl);
    return session;
}

void CBenchTLS_freeSession(void *opaque) {
    struct CBenchTLSSession *session = opaque;
    ossl.SSL_free(session->ssl);
    free(session->joined);
    free(session);
}

int CBenchTLS_setServerName(void *opaque, const char *name) {
    struct CBenchTLSSession *session = opaque;
    return ossl.SSL_ctrl(session->ssl, 55 /* SSL_CTRL_SET_TLSEXT_HOSTNAME */, 0 /* host_name */, (void *)name) == 1 ? 0 : -1;
}

int CBenchTLS_feed(void *opaque, const void *bytes, int length) {
    struct CBenchTLSSession *session = opaque;
    return ossl.BIO_write(session->input, bytes, length) == length ? 0 : -1;
}

/// The outcome of an SSL call: 0 would need more input, -1 failed (message in `error`), -2 the peer closed.
static int outcome(struct CBenchTLSSession *session, int result, char *error, size_t size) {
    int code = ossl.SSL_get_error(session->ssl, result);
    if (code == SSL_ERROR_WANT_READ || code == SSL_ERROR_WANT_WRITE) return 0;
    if (code == SSL_ERROR_ZERO_RETURN) return -2;
    describeError("the peer broke the TLS protocol", error, size);
    return -1;
}

int CBenchTLS_handshake(void *opaque, char *error, size_t size) {
    struct CBenchTLSSession *session = opaque;
    ossl.ERR_clear_error();  // SSL_get_error reads the thread's error queue: start each call with it empty
    CBenchTLS_handshaking = session;  // where the verification callback says why the server's certificate failed
    int result = ossl.SSL_do_handshake(session->ssl);
    CBenchTLS_handshaking = NULL;
    if (result == 1) return 1;
    int code = outcome(session, result, error, size);
    if (code == -1 && session->failure[0] != 0) snprintf(error, size, "bench refused the server's certificate: %s", session->failure);
    return code;
}

long CBenchTLS_read(void *opaque, void *buffer, int capacity, char *error, size_t size) {
    struct CBenchTLSSession *session = opaque;
    ossl.ERR_clear_error();
    int result = ossl.SSL_read(session->ssl, buffer, capacity);
    return result > 0 ? result : outcome(session, result, error, size);
}

long CBenchTLS_write(void *opaque, const void *head, int headLength, const void *body, int bodyLength) {
    struct CBenchTLSSession *session = opaque;
    const void *bytes = body;
    int length = bodyLength;
    if (headLength > 0) {  // one record for both: join them
        size_t total = (size_t)headLength + (size_t)bodyLength;
        if (total > session->joinedSize) {
            unsigned char *grown = realloc(session->joined, total);
            if (grown == NULL) return -1;
            session->joined = grown;
            session->joinedSize = total;
        }
        memcpy(session->joined, head, (size_t)headLength);
        memcpy(session->joined + headLength, body, (size_t)bodyLength);
        bytes = session->joined;
        length = (int)total;
    }
    // Into a memory BIO a write is whole or fails: OpenSSL's rule to retry the same buffer never arises.
    if (length == 0) return 0;
    ossl.ERR_clear_error();
    int written = ossl.SSL_write(session->ssl, bytes, length);
    if (written != length) ossl.ERR_clear_error();  // leave no error behind for the next call on this thread
    return written == length ? length : -1;
}

long CBenchTLS_output(void *opaque, const void **bytes) {
    struct CBenchTLSSession *session = opaque;
    char *data = NULL;
    long length = ossl.BIO_ctrl(session->output, BIO_CTRL_INFO, 0, &data);
    *bytes = data;
    return length;
}

void CBenchTLS_clearOutput(void *opaque) {
    struct CBenchTLSSession *session = opaque;
    ossl.BIO_ctrl(session->output, BIO_CTRL_RESET, 0, NULL);
}

void CBenchTLS_shutdown(void *opaque) {
    struct CBenchTLSSession *session = opaque;
    ossl.SSL_shutdown(session->ssl);
    ossl.ERR_clear_error();
}

int CBenchTLS_peerIs(void *opaque, const void *certificate) {
    struct CBenchTLSSession *session = opaque;
    void *peer = ossl.SSL_get1_peer_certificate(session->ssl);
    int same = peer != NULL && ossl.X509_cmp(peer, certificate) == 0;
    if (peer) ossl.X509_free(peer);
    return same;
}

int CBenchTLS_setALPN(void *opaque, const unsigned char *protocols, int length) {
    struct CBenchTLSSession *session = opaque;
    return ossl.SSL_set_alpn_protos(session->ssl, protocols, (unsigned int)length) == 0 ? 0 : -1;  // 0 is success here
}

int CBenchTLS_selectedALPN(void *opaque, char *name, int size) {
    struct CBenchTLSSession *session = opaque;
    const unsigned char *data = NULL;
    unsigned int length = 0;
    ossl.SSL_get0_alpn_selected(session->ssl, &data, &length);
    if (data == NULL || length == 0 || size <= 0) return 0;
    int copied = (int)length < size - 1 ? (int)length : size - 1;
    memcpy(name, data, (size_t)copied);
    name[copied] = 0;
    return copied;
}

const char *CBenchTLS_version(void *opaque) {
    struct CBenchTLSSession *session = opaque;
    return ossl.SSL_get_version(session->ssl);
}
