#pragma once
// A whole file's bytes. Callers word the error (the flag or setting that named the file), so this only
// says whether it worked; errno tells why not.
#include <fstream>
#include <sstream>
#include <string>

namespace kext {

inline bool read_whole_file(const std::string& path, std::string& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::stringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return false;
  out = std::move(ss).str();
  return true;
}

}  // namespace kext
