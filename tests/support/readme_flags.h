#pragma once
// The flags a README.md table documents: the backquoted "--name"s of the first cell of each table row
// between the line that starts with `from` and the next line that starts with `to`. The tests compare
// them with each program's CLI11 definition, so the README cannot drift from the flags.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <regex>
#include <set>
#include <string>
#include <vector>

namespace kext::testing {

inline std::set<std::string> readme_flags(const std::string& from, const std::string& to) {
  std::ifstream in(std::string(KEXT_SOURCE_DIR) + "/README.md");
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

// Every flag of `names` has a row in that part of the README, and every row there names one of them.
inline void expect_readme_documents_exactly(const std::vector<std::string>& names, const std::string& from,
                                            const std::string& to) {
  const std::set<std::string> documented = readme_flags(from, to);
  for (const std::string& name : names) EXPECT_TRUE(documented.count(name)) << name << " is not in README.md";
  for (const std::string& name : documented) {
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name << " is documented only";
  }
}

}  // namespace kext::testing
