// Verification of a TLS server by its clients, as TLS clients do it: the chain up to an authority trusted here (a
// bundle given, or the system's store) and the name the client asked for among the certificate's names. A failure is
// said for people: unknown issuer, name mismatch (both names), expired.
#define _GNU_SOURCE
#include "CBenchLinux.h"
#include "CBenchTLSPrivate.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#define SSL_VERIFY_PEER 1
#define BIO_CTRL_INFO 3
#define NID_SUBJECT_ALT_NAME 85
#define GEN_DNS 2
#define GEN_IPADD 7
#define X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT 2
#define X509_V_ERR_CERT_NOT_YET_VALID 9
#define X509_V_ERR_CERT_HAS_EXPIRED 10
#define X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT 18
#define X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN 19
#define X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY 20
#define X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE 21
#define X509_V_ERR_HOSTNAME_MISMATCH 62
#define X509_V_ERR_IP_ADDRESS_MISMATCH 64

/// OpenSSL's GENERAL_NAME: a type, and a pointer to its value (an ASN1_STRING for DNS names and IP addresses).
struct GeneralName {
    int type;
    void *value;
};

int CBenchTLS_trustAuthorities(void *context, const char *pem, int length, char *error, size_t size) {
    void *store = ossl.SSL_CTX_get_cert_store(context);
    void *bio = ossl.BIO_new_mem_buf(pem, length);
    int added = 0;
    void *certificate;
    while (bio != NULL && (certificate = ossl.PEM_read_bio_X509(bio, NULL, NULL, NULL)) != NULL) {
        if (ossl.X509_STORE_add_cert(store, certificate) == 1) added += 1;
        ossl.X509_free(certificate);
    }
    if (bio) ossl.BIO_free(bio);
    ossl.ERR_clear_error();  // the end of the bundle reads as an error
    if (added == 0) {
        snprintf(error, size, "no PEM certificate in it");
        return -1;
    }
    ossl.SSL_CTX_set_verify(context, SSL_VERIFY_PEER, (void *)CBenchTLS_verifyCallback);
    return 0;
}

int CBenchTLS_trustSystemStore(void *context, char *error, size_t size) {
    if (ossl.SSL_CTX_set_default_verify_paths(context) != 1) {
        unsigned long code = ossl.ERR_get_error();
        ossl.ERR_error_string_n(code, error, size);
        ossl.ERR_clear_error();
        return -1;
    }
    ossl.SSL_CTX_set_verify(context, SSL_VERIFY_PEER, (void *)CBenchTLS_verifyCallback);
    return 0;
}

int CBenchTLS_expectName(void *opaque, const char *name) {
    struct CBenchTLSSession *session = opaque;
    snprintf(session->expectedName, sizeof session->expectedName, "%s", name);
    unsigned char address[16];
    int isAddress = inet_pton(AF_INET, name, address) == 1 || inet_pton(AF_INET6, name, address) == 1;
    int set = isAddress ? ossl.X509_VERIFY_PARAM_set1_ip_asc(ossl.SSL_get0_param(session->ssl), name)
                        : ossl.SSL_set1_host(session->ssl, name);
    return set == 1 ? 0 : -1;
}

/// `certificate`'s DNS names and IP addresses (its subject alternative names), or its subject when it has none,
/// comma-separated into `text`.
static void names(void *certificate, char *text, size_t size) {
    text[0] = 0;
    void *list = ossl.X509_get_ext_d2i(certificate, NID_SUBJECT_ALT_NAME, NULL, NULL);
    size_t used = 0;
    int count = list ? ossl.OPENSSL_sk_num(list) : 0;
    for (int index = 0; index < count && used + 1 < size; index++) {
        struct GeneralName *name = ossl.OPENSSL_sk_value(list, index);
        // Only a DNS name's and an IP address's value is a string: the other kinds are read not at all.
        if (name->type != GEN_DNS && name->type != GEN_IPADD) continue;
        const unsigned char *bytes = ossl.ASN1_STRING_get0_data(name->value);
        int length = ossl.ASN1_STRING_length(name->value);
        if (name->type == GEN_DNS) {
            used += (size_t)snprintf(text + used, size - used, "%s%.*s", used ? ", " : "", length, (const char *)bytes);
        } else if (length == 4 || length == 16) {
            char address[INET6_ADDRSTRLEN] = "";
            inet_ntop(length == 4 ? AF_INET : AF_INET6, bytes, address, sizeof address);
            used += (size_t)snprintf(text + used, size - used, "%s%s", used ? ", " : "", address);
        }
    }
    if (list) ossl.GENERAL_NAMES_free(list);
    if (used == 0) ossl.X509_NAME_oneline(ossl.X509_get_subject_name(certificate), text, (int)size);
}

/// When `certificate` stops being valid, as OpenSSL prints it ("Jan  1 00:00:00 2024 GMT").
static void notAfter(void *certificate, char *text, size_t size) {
    text[0] = 0;
    void *bio = ossl.BIO_new(ossl.BIO_s_mem());
    if (bio == NULL) return;
    if (ossl.ASN1_TIME_print(bio, ossl.X509_getm_notAfter(certificate)) == 1) {
        char *data = NULL;
        long length = ossl.BIO_ctrl(bio, BIO_CTRL_INFO, 0, &data);
        snprintf(text, size, "%.*s", (int)(length < 0 ? 0 : length), data);
    }
    ossl.BIO_free(bio);
}

int CBenchTLS_verifyCallback(int passed, void *store) {
    struct CBenchTLSSession *session = CBenchTLS_handshaking;
    if (passed || session == NULL || session->failure[0] != 0) return passed;
    int code = ossl.X509_STORE_CTX_get_error(store);
    void *certificate = ossl.X509_STORE_CTX_get_current_cert(store);
    char subject[256] = "", issuer[256] = "", detail[256] = "";
    if (certificate) {
        ossl.X509_NAME_oneline(ossl.X509_get_subject_name(certificate), subject, sizeof subject);
        ossl.X509_NAME_oneline(ossl.X509_get_issuer_name(certificate), issuer, sizeof issuer);
    }
    switch (code) {
    case X509_V_ERR_HOSTNAME_MISMATCH:
    case X509_V_ERR_IP_ADDRESS_MISMATCH:
        if (certificate) names(certificate, detail, sizeof detail);
        snprintf(session->failure, sizeof session->failure,
                 "name mismatch: the server's certificate is for %s, not %s", detail, session->expectedName);
        break;
    case X509_V_ERR_CERT_HAS_EXPIRED:
    case X509_V_ERR_CERT_NOT_YET_VALID:
        if (certificate) notAfter(certificate, detail, sizeof detail);
        snprintf(session->failure, sizeof session->failure, "%s: the certificate of %s %s",
                 code == X509_V_ERR_CERT_HAS_EXPIRED ? "expired" : "not yet valid", subject,
                 code == X509_V_ERR_CERT_HAS_EXPIRED ? "expired" : "is not valid yet");
        if (code == X509_V_ERR_CERT_HAS_EXPIRED && detail[0]) {
            size_t used = strlen(session->failure);
            snprintf(session->failure + used, sizeof session->failure - used, " on %s", detail);
        }
        break;
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT:
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
    case X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
    case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT:
    case X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN:
        snprintf(session->failure, sizeof session->failure,
                 "unknown issuer: the certificate of %s is issued by %s, which is not trusted here", subject, issuer);
        break;
    default:
        snprintf(session->failure, sizeof session->failure, "the server's certificate (%s) was refused: %s", subject,
                 ossl.X509_verify_cert_error_string(code));
    }
    return passed;
}
