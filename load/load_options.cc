#include "load/load_options.h"

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <stdexcept>

#include "common/cli.h"

namespace kext::load {

namespace {

double parse_positive(const std::string& v) {
  char* end = nullptr;
  const double d = std::strtod(v.c_str(), &end);
  if (v.empty() || end != v.c_str() + v.size() || !(d > 0) || d > 1e9) {
    throw std::invalid_argument("expected a positive number, got \"" + v + "\"");
  }
  return d;
}

// The one definition of extender-load's flags, bound to `o`; `inputs` takes the positional arguments.
void define_flags(CLI::App& app, LoadOptions& o, std::vector<std::string>& inputs) {
  cli::configure(app);
  app.footer("exit status: 0 ok, 1 unreadable input, 2 bad flags, 3 errors or --check differences");
  app.add_option("input", inputs,
                 "a --record-dir recording, one .jsonl file, or a fixture directory (index.jsonl + "
                 "NNNN-verb--name.json [+ .response.json]; bind skipped)")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->type_name("DIR");
  cli::add_parsed(
      app, "--url", [&o](const std::string& v) { o.replay.target = parse_target(v); }, "",
      "the extender, as kube-scheduler's urlPrefix: http://HOST:PORT[/PREFIX]")
      ->required()
      ->type_name("URL");
  app.add_option("-c,--connections", o.replay.connections, "keep-alive connections, one thread each")
      ->check(CLI::Range(size_t{1}, size_t{1024}))
      ->type_name("C");
  cli::add_parsed(
      app, "--rate", [&o](const std::string& v) { o.replay.rate = parse_positive(v); }, "",
      "open loop: R requests/s in total at scheduled times (default: closed loop)")
      ->type_name("R");
  app.add_option("-n,--count", o.replay.count, "send N requests, cycling through the recording")
      ->check(CLI::Range(uint64_t{1}, UINT64_MAX))
      ->default_str("")
      ->type_name("N");
  cli::add_parsed(
      app, "--duration", [&o](const std::string& v) { o.replay.duration_s = parse_positive(v); }, "",
      "send for S seconds (with neither --count nor --duration: one pass over the recording)")
      ->type_name("S");
  cli::repeatable(
      app.add_option("--verb", o.read.verbs, "replay only verb V (repeatable or comma-separated)"))
      ->delimiter(',')
      ->type_name("V");
  cli::add_parsed(
      app, "--timeout", [&o](const std::string& v) { o.replay.timeout_s = parse_positive(v); },
      CLI::detail::to_string(o.replay.timeout_s), "per-request timeout in seconds (kube-scheduler's default)")
      ->type_name("S");
  app.add_flag("--check", o.replay.check, "compare every reply with the recorded reply as JSON");
  app.add_option("--show-differences", o.replay.shown_differences,
                 "differences printed by --check, and unexpected errors")
      ->check(CLI::Range(size_t{0}, size_t{1000}))
      ->type_name("N");
  cli::add_parsed(
      app, "--expect-error",
      [&o](const std::string& v) {
        const size_t colon = v.find(':');
        if (colon == std::string::npos || colon == 0 || colon + 1 == v.size()) {
          throw std::invalid_argument("expected VERB:TEXT, got \"" + v + "\"");
        }
        o.replay.expected_errors.push_back({v.substr(0, colon), v.substr(colon + 1)});
      },
      "",
      "a 200 reply of VERB whose Error contains TEXT is expected, counted apart and not as an error "
      "(repeatable; e.g. bind:HTTP 409)")
      ->type_name("VERB:TEXT");
  app.add_flag("--json", o.json, "machine-readable summary on stdout");
  app.add_flag("-q,--quiet", o.quiet, "no progress line on stderr");
}

CLI::App make_app() {
  return CLI::App("extender-load: replays recorded scheduler traffic against an extender", "extender-load");
}

}  // namespace

std::string load_usage() {
  LoadOptions defaults;
  std::vector<std::string> inputs;
  CLI::App app = make_app();
  define_flags(app, defaults, inputs);
  return cli::help_text(app);
}

std::vector<std::string> load_flag_names() {
  LoadOptions defaults;
  std::vector<std::string> inputs;
  CLI::App app = make_app();
  define_flags(app, defaults, inputs);
  return cli::flag_names(app);
}

LoadOptions parse_load_options(int argc, char** argv) {
  LoadOptions o;
  std::vector<std::string> inputs;
  CLI::App app = make_app();
  define_flags(app, o, inputs);
  if (!cli::parse(app, argc, argv)) {
    o.help = true;
    return o;
  }
  if (inputs.empty()) throw std::invalid_argument("missing the recording or fixture directory");
  if (inputs.size() > 1) {
    throw std::invalid_argument("one input directory expected, got \"" + inputs[0] + "\" and \"" + inputs[1] +
                                "\"");
  }
  o.input = inputs[0];
  o.read.keep_replies = o.replay.check;
  o.replay.progress = !o.quiet;
  return o;
}

}  // namespace kext::load
