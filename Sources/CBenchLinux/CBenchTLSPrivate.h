// What CBenchTLS.c and CBenchTLSVerify.c share: OpenSSL's functions as loaded at run time (dlopen), and a session's
// state. Not part of the module's interface.
#ifndef CBENCH_TLS_PRIVATE_H
#define CBENCH_TLS_PRIVATE_H

#include <stddef.h>

#define SSL_ERROR_WANT_READ 2
#define SSL_ERROR_WANT_WRITE 3
#define SSL_ERROR_ZERO_RETURN 6
#define SSL_CTRL_MODE 33
#define SSL_CTRL_SET_MIN_PROTO_VERSION 123
#define SSL_MODE_RELEASE_BUFFERS 0x10L
#define TLS1_2_VERSION 0x0303
#define SSL_VERIFY_NONE 0
#define BIO_CTRL_RESET 1
#define BIO_CTRL_INFO 3
#define MBSTRING_ASC 0x1001

struct CBenchTLSFunctions {
    void *(*TLS_server_method)(void);
    void *(*TLS_client_method)(void);
    void *(*SSL_CTX_new)(void *);
    void (*SSL_CTX_free)(void *);
    int (*SSL_CTX_use_certificate)(void *, void *);
    int (*SSL_CTX_use_PrivateKey)(void *, void *);
    int (*SSL_CTX_check_private_key)(void *);
    void (*SSL_CTX_set_verify)(void *, int, void *);
    long (*SSL_CTX_ctrl)(void *, int, long, void *);
    void *(*SSL_new)(void *);
    void (*SSL_free)(void *);
    void (*SSL_set_bio)(void *, void *, void *);
    long (*SSL_ctrl)(void *, int, long, void *);
    void (*SSL_set_accept_state)(void *);
    void (*SSL_set_connect_state)(void *);
    int (*SSL_do_handshake)(void *);
    int (*SSL_read)(void *, void *, int);
    int (*SSL_write)(void *, const void *, int);
    int (*SSL_get_error)(const void *, int);
    int (*SSL_shutdown)(void *);
    void *(*SSL_get1_peer_certificate)(const void *);
    const char *(*SSL_get_version)(const void *);
    int (*SSL_set_alpn_protos)(void *, const unsigned char *, unsigned int);
    void (*SSL_get0_alpn_selected)(const void *, const unsigned char **, unsigned int *);
    void *(*BIO_new)(const void *);
    const void *(*BIO_s_mem)(void);
    int (*BIO_write)(void *, const void *, int);
    long (*BIO_ctrl)(void *, int, long, void *);
    void *(*BIO_new_mem_buf)(const void *, int);
    int (*BIO_free)(void *);
    void *(*PEM_read_bio_X509)(void *, void *, void *, void *);
    void *(*PEM_read_bio_PrivateKey)(void *, void *, void *, void *);
    int (*PEM_write_bio_X509)(void *, void *);
    void (*X509_free)(void *);
    void (*EVP_PKEY_free)(void *);
    int (*X509_cmp)(const void *, const void *);
    int (*X509_digest)(const void *, const void *, unsigned char *, unsigned int *);
    const void *(*EVP_sha256)(void);
    void *(*EVP_PKEY_Q_keygen)(void *, const char *, const char *, ...);
    void *(*X509_new)(void);
    int (*X509_set_version)(void *, long);
    void *(*X509_get_serialNumber)(void *);
    int (*ASN1_INTEGER_set)(void *, long);
    void *(*X509_gmtime_adj)(void *, long);
    void *(*X509_getm_notBefore)(const void *);
    void *(*X509_getm_notAfter)(const void *);
    int (*X509_set_pubkey)(void *, void *);
    void *(*X509_get_subject_name)(const void *);
    int (*X509_NAME_add_entry_by_txt)(void *, const char *, int, const unsigned char *, int, int, int);
    int (*X509_set_issuer_name)(void *, const void *);
    int (*X509_sign)(void *, void *, const void *);
    unsigned long (*ERR_get_error)(void);
    void (*ERR_error_string_n)(unsigned long, char *, size_t);
    void (*ERR_clear_error)(void);
    // Verification of the server's chain and name.
    void *(*SSL_CTX_get_cert_store)(const void *);
    int (*SSL_CTX_set_default_verify_paths)(void *);
    int (*X509_STORE_add_cert)(void *, void *);
    int (*SSL_set1_host)(void *, const char *);
    void *(*SSL_get0_param)(void *);
    int (*X509_VERIFY_PARAM_set1_ip_asc)(void *, const char *);
    int (*X509_STORE_CTX_get_error)(const void *);
    void *(*X509_STORE_CTX_get_current_cert)(const void *);
    char *(*X509_NAME_oneline)(const void *, char *, int);
    void *(*X509_get_issuer_name)(const void *);
    void *(*X509_get_ext_d2i)(const void *, int, int *, int *);
    int (*OPENSSL_sk_num)(const void *);
    void *(*OPENSSL_sk_value)(const void *, int);
    const unsigned char *(*ASN1_STRING_get0_data)(const void *);
    int (*ASN1_STRING_length)(const void *);
    void (*GENERAL_NAMES_free)(void *);
    int (*ASN1_TIME_print)(void *, const void *);
    const char *(*X509_verify_cert_error_string)(long);
};

/// The functions, filled by CBenchTLS_load.
extern struct CBenchTLSFunctions ossl;

/// A session: the SSL object, its two memory BIOs, room to put a frame's head and body into one record, the name the
/// server's certificate must carry (when it is verified) and why the last verification failed.
struct CBenchTLSSession {
    void *ssl;
    void *input;
    void *output;
    unsigned char *joined;
    size_t joinedSize;
    char expectedName[256];
    char failure[512];
};

/// The session whose handshake runs on this thread: the verification callback reports into it.
extern __thread struct CBenchTLSSession *CBenchTLS_handshaking;

/// Called by OpenSSL for each certificate of the server's chain it checks; a failure's reason, named for people, goes
/// into the session in handshake.
int CBenchTLS_verifyCallback(int passed, void *store);

#endif
