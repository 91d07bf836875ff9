// OpenSSL's libcrypto, for its EVP digests only (SHA-256 and MD5): Debian's libssl3 is on every
// system, where swift-crypto compiled a copy of BoringSSL into every build of Galley.
#include <openssl/evp.h>
