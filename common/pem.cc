#include "common/pem.h"

#include <openssl/bio.h>
#include <openssl/pem.h>

namespace kext {

namespace {

struct BioFree {
  void operator()(BIO* b) const { BIO_free(b); }
};

std::unique_ptr<BIO, BioFree> memory_bio(std::string_view pem) {
  return std::unique_ptr<BIO, BioFree>(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
}

}  // namespace

X509Ptr pem_certificate(std::string_view pem) {
  auto bio = memory_bio(pem);
  return X509Ptr(bio ? PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr) : nullptr);
}

PrivateKeyPtr pem_private_key(std::string_view pem) {
  auto bio = memory_bio(pem);
  auto no_passphrase = [](char*, int, int, void*) -> int { return 0; };
  return PrivateKeyPtr(bio ? PEM_read_bio_PrivateKey(bio.get(), nullptr, no_passphrase, nullptr) : nullptr);
}

}  // namespace kext
