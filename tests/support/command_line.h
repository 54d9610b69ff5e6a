#pragma once
// The command-line tests' two steps: a program's parser run on {program, args...} as main() gets them,
// and the message of the std::invalid_argument it throws for a bad command line.
#include <stdexcept>
#include <string>
#include <vector>

namespace kext::testing {

template <typename Parse>
auto parse_command_line(std::string program, std::vector<std::string> args, Parse parse) {
  args.insert(args.begin(), std::move(program));
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  return parse(static_cast<int>(argv.size()), argv.data());
}

// "no error" when `run` throws nothing.
template <typename Run>
std::string command_line_error(Run run) {
  try {
    run();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace kext::testing
