#pragma once
// Kubernetes' name validation (k8s.io/apimachinery/pkg/util/validation/validation.go), for the names
// that reach this project from files and objects the API server has not validated: a Binding's pod
// and node names, the node label keys of a PodGroup's topology annotations and of a configuration's
// topology levels.
#include <string>
#include <string_view>

namespace kext {

// IsDNS1123Subdomain: at most 253 characters, dot-separated labels of [a-z0-9-] that start and end
// with [a-z0-9]. Pod and node names are subdomains; a namespace (a DNS label) is one too.
bool is_dns1123_subdomain(std::string_view s);

// IsQualifiedName, as a label key is validated: an optional DNS subdomain prefix and '/', then a name
// of at most 63 characters of [A-Za-z0-9._-] that starts and ends alphanumeric. "" when `key` is one,
// else why not, in the API server's words ("name part must be no more than 63 characters").
std::string qualified_name_error(std::string_view key);

}  // namespace kext
