#include "common/k8s_names.h"

namespace kext {

namespace {

bool lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool alnum(char c) { return lower_alnum(c) || (c >= 'A' && c <= 'Z'); }

// validation.go's qualifiedNameMaxLength.
constexpr size_t kQualifiedNameMaxLength = 63;
// validation.go's DNS1123SubdomainMaxLength.
constexpr size_t kDns1123SubdomainMaxLength = 253;

// The name part of a qualified name (validation.go qualifiedNameRegexp:
// ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]).
std::string name_part_error(std::string_view name) {
  if (name.empty()) return "name part must be non-empty";
  if (name.size() > kQualifiedNameMaxLength)
    return "name part must be no more than " + std::to_string(kQualifiedNameMaxLength) + " characters";
  const bool inner_ok = [&] {
    for (char c : name)
      if (!alnum(c) && c != '-' && c != '_' && c != '.') return false;
    return true;
  }();
  if (!inner_ok || !alnum(name.front()) || !alnum(name.back())) {
    return "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
           "with an alphanumeric character";
  }
  return "";
}

}  // namespace

bool is_dns1123_subdomain(std::string_view s) {
  if (s.empty() || s.size() > kDns1123SubdomainMaxLength) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (lower_alnum(c)) continue;
    if (c != '-' && c != '.') return false;
    if (i == 0 || i + 1 == s.size()) return false;  // "-a", "a-", ".a", "a.", "."
    // A '.' separates labels, and each label starts and ends with an alphanumeric ("a.-b", "a-.b", "a..b").
    if (c == '.' && (!lower_alnum(s[i - 1]) || !lower_alnum(s[i + 1]))) return false;
  }
  return true;
}

std::string qualified_name_error(std::string_view key) {
  const size_t slash = key.find('/');
  if (slash == std::string_view::npos) return name_part_error(key);
  const std::string_view prefix = key.substr(0, slash);
  const std::string_view name = key.substr(slash + 1);
  if (name.find('/') != std::string_view::npos) {
    return "a qualified name must consist of an optional DNS subdomain prefix and '/', then a name "
           "(e.g. 'example.com/MyName')";
  }
  if (prefix.empty()) return "prefix part must be non-empty";
  if (!is_dns1123_subdomain(prefix)) {
    return "prefix part must be a lowercase RFC 1123 subdomain: lowercase alphanumeric characters, '-' "
           "or '.', starting and ending with an alphanumeric character, at most " +
           std::to_string(kDns1123SubdomainMaxLength) + " characters";
  }
  return name_part_error(name);
}

}  // namespace kext
