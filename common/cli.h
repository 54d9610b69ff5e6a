#pragma once
// Command lines through CLI11, shared by kube-extender, extender-load, extender-gen and the soak driver.
// Each program defines every flag once on a CLI::App; parsing, --help and the tests that hold the docs
// tables to the flags all read that one definition.
//
// The conventions are kube-scheduler's (spf13/pflag, which Kubernetes commands use through
// k8s.io/component-base/cli/flag):
//   * a boolean flag alone means true and takes a value after '=': --enable-bind=false. Unlike pflag
//     (where it is the flag and a stray argument), "--enable-bind false" means the same: a boolean
//     flag followed by true/True/TRUE/false/False/FALSE takes that word as its value.
//   * "-v=2" is "-v 2" (pflag accepts "-x=value" for a one-letter name; CLI11 alone would read "=2").
//   * a flag given twice keeps its last value; repeatable flags (--snapshot) keep all.
//   * a renamed flag keeps its old name as a deprecated alias that still works and is reported once.
// The CLI11 types appear here only as declarations: a library that includes <CLI/CLI.hpp> links CLI11.
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace kext::cli {

// The conventions above, applied before the first flag is added.
void configure(CLI::App& app);

// Parses argv[1..]. Returns false when -h/--help was given (print help_text(app) and exit 0). Unknown
// flags, bad values and stray arguments throw std::invalid_argument naming the flag or argument; a
// numeric flag's value that is no number says so ("--port: not a number: \"abc\"").
bool parse(CLI::App& app, int argc, char** argv);

std::string help_text(const CLI::App& app);

// A Go time.Duration of one unit ("500ms", "15s", "2m"), as kube-scheduler's --leader-elect-* take.
CLI::Option* add_duration(CLI::App& app, const std::string& name, std::chrono::milliseconds& target,
                          std::chrono::milliseconds lo, std::chrono::milliseconds hi,
                          const std::string& description);
// Whole seconds in [lo, hi] into a milliseconds field (the --*-seconds flags).
CLI::Option* add_seconds(CLI::App& app, const std::string& name, std::chrono::milliseconds& target,
                         int64_t lo, int64_t hi, const std::string& description);
// A value turned into something else by `set`, which throws std::invalid_argument on a bad value (the
// error is reported against the flag). `set` runs once per occurrence, in order: a repeatable flag
// appends there, another one overwrites. `shown_default` is what --help prints, "" for none.
CLI::Option* add_parsed(CLI::App& app, const std::string& name, std::function<void(const std::string&)> set,
                        const std::string& shown_default, const std::string& description);

// A flag that may be given several times, each time with one value, and keeps them all (--snapshot).
CLI::Option* repeatable(CLI::Option* option);
// Refuses an empty value (an address, a directory, a name) with a message naming the flag.
CLI::Option* non_empty(CLI::Option* option);

// Marks `alias`, which the caller bound to the same variable as `current`, as a deprecated spelling of
// it: listed under "Deprecated" in --help, refused together with `current`.
void deprecate(CLI::Option* alias, CLI::Option* current);
// After parse: one line per deprecated alias that was used, for stderr.
std::vector<std::string> deprecation_notices(const CLI::App& app);

// Every flag's names ("--port"; "-v" and "--v" for "-v,--v"), help excluded: what the docs document.
std::vector<std::string> flag_names(const CLI::App& app);
// After parse: --name="value" for every flag, given or default (kube-scheduler logs these at -v=1,
// k8s.io/component-base/cli/flag/flags.go PrintFlags).
std::vector<std::string> flag_values(const CLI::App& app);

}  // namespace kext::cli
