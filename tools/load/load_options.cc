#include "tools/load/load_options.h"

#include <cstdlib>
#include <stdexcept>

#include "common/command_line.h"

namespace kext::load {

namespace {


double parse_positive(const std::string& flag, const std::string& v) {
  char* end = nullptr;
  const double d = std::strtod(v.c_str(), &end);
  if (v.empty() || end != v.c_str() + v.size() || !(d > 0) || d > 1e9) {
    throw std::invalid_argument(flag + ": expected a positive number, got \"" + v + "\"");
  }
  return d;
}

}  // namespace

std::string load_usage() {
  return "usage: extender-load --url http://HOST:PORT[/PREFIX] [flags] DIR\n"
         "  DIR                   a --record-dir recording, one .jsonl file, or a fixture directory\n"
         "                        (index.jsonl + NNNN-verb--name.json [+ .response.json]; bind skipped)\n"
         "  --url URL             the extender, as kube-scheduler's urlPrefix (required)\n"
         "  --connections C       keep-alive connections, one thread each (default 1)\n"
         "  --rate R              open loop: R requests/s in total at scheduled times (default: closed "
         "loop)\n"
         "  --count N             send N requests, cycling through the recording\n"
         "  --duration S          send for S seconds (with neither: one pass over the recording)\n"
         "  --verb V              replay only verb V (repeatable or comma-separated)\n"
         "  --timeout S           per-request timeout (default 5, the scheduler's)\n"
         "  --check               compare every reply with the recorded reply as JSON\n"
         "  --show-differences N  differences printed by --check, and unexpected errors (default 5)\n"
         "  --expect-error VERB:TEXT  a 200 reply of VERB whose Error contains TEXT is expected, counted\n"
         "                        apart and not as an error (repeatable; e.g. bind:HTTP 409)\n"
         "  --json                machine-readable summary on stdout\n"
         "  --quiet               no progress line on stderr\n"
         "exit status: 0 ok, 1 unreadable input, 2 bad flags, 3 errors or --check differences\n";
}

LoadOptions parse_load_options(int argc, char** argv) {
  LoadOptions o;
  bool have_url = false;
  for (ArgCursor cursor(argc, argv); cursor.advance();) {
    std::string arg = cursor.flag();
    auto next = [&] { return cursor.value(); };
    if (arg == "--help" || arg == "-h") {
      o.help = true;
    } else if (arg == "--url") {
      o.replay.target = parse_target(next());
      have_url = true;
    } else if (arg == "--connections" || arg == "-c") {
      o.replay.connections = parse_flag_integer<uint64_t>(arg, next(), 1, 1024);
    } else if (arg == "--rate") {
      o.replay.rate = parse_positive(arg, next());
    } else if (arg == "--count" || arg == "-n") {
      o.replay.count = parse_flag_integer<uint64_t>(arg, next(), 1, UINT64_MAX);
    } else if (arg == "--duration") {
      o.replay.duration_s = parse_positive(arg, next());
    } else if (arg == "--timeout") {
      o.replay.timeout_s = parse_positive(arg, next());
    } else if (arg == "--verb") {
      std::string list = next();
      for (size_t start = 0; start <= list.size();) {
        size_t comma = list.find(',', start);
        if (comma == std::string::npos) comma = list.size();
        if (comma > start) o.read.verbs.push_back(list.substr(start, comma - start));
        start = comma + 1;
      }
    } else if (arg == "--check") {
      o.replay.check = true;
    } else if (arg == "--show-differences") {
      o.replay.shown_differences = parse_flag_integer<uint64_t>(arg, next(), 0, 1000);
    } else if (arg == "--expect-error") {
      const std::string v = next();
      const size_t colon = v.find(':');
      if (colon == std::string::npos || colon == 0 || colon + 1 == v.size()) {
        throw std::invalid_argument("--expect-error: expected VERB:TEXT, got \"" + v + "\"");
      }
      o.replay.expected_errors.push_back({v.substr(0, colon), v.substr(colon + 1)});
    } else if (arg == "--json") {
      o.json = true;
    } else if (arg == "--quiet" || arg == "-q") {
      o.quiet = true;
    } else if (arg.rfind("-", 0) == 0) {
      throw std::invalid_argument("unknown flag \"" + arg + "\"");
    } else if (o.input.empty()) {
      o.input = arg;
    } else {
      throw std::invalid_argument("one input directory expected, got \"" + o.input + "\" and \"" + arg + "\"");
    }
  }
  if (o.help) return o;
  if (!have_url) throw std::invalid_argument("--url: required");
  if (o.input.empty()) throw std::invalid_argument("missing the recording or fixture directory");
  o.read.keep_replies = o.replay.check;
  o.replay.progress = !o.quiet;
  return o;
}

}  // namespace kext::load
