#pragma once
// The flags a table in the docs documents: the backquoted "--name"s of the first cell of each table row
// of `doc` (a path from the repository root) between the line that starts with `from` and the next
// line that starts with `to`. The tests compare them with each program's CLI11 definition, so the docs
// cannot drift from the flags.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <regex>
#include <set>
#include <string>
#include <vector>

namespace kext::testing {

inline std::set<std::string> doc_flags(const std::string& doc, const std::string& from, const std::string& to) {
  std::ifstream in(std::string(KEXT_SOURCE_DIR) + "/" + doc);
  EXPECT_TRUE(in) << doc;
  std::set<std::string> documented;
  const std::regex flag("`(--?[a-z][a-z0-9-]*)[ `=]");
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    if (!inside) {
      inside = line.starts_with(from);
      continue;
    }
    if (line.starts_with(to)) break;
    if (!line.starts_with("| `-")) continue;
    const std::string first_cell = line.substr(0, line.find(" | ", 2));
    for (std::sregex_iterator m(first_cell.begin(), first_cell.end(), flag), end; m != end; ++m) {
      documented.insert((*m)[1]);
    }
  }
  return documented;
}

// Every flag of `names` has a row in that part of `doc`, and every row there names one of them.
inline void expect_documents_exactly(const std::vector<std::string>& names, const std::string& doc,
                                     const std::string& from, const std::string& to) {
  const std::set<std::string> documented = doc_flags(doc, from, to);
  for (const std::string& name : names) EXPECT_TRUE(documented.count(name)) << name << " is not in " << doc;
  for (const std::string& name : documented) {
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name << " is documented only";
  }
}

}  // namespace kext::testing
