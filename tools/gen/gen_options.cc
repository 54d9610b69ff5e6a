#include "tools/gen/gen_options.h"

#include <charconv>
#include <stdexcept>

namespace kext::gen {

namespace {
uint64_t parse_uint(const std::string& flag, const std::string& v, uint64_t lo, uint64_t hi) {
  uint64_t out = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (ec != std::errc() || p != v.data() + v.size() || out < lo || out > hi) {
    throw std::invalid_argument(flag + ": expected an integer in " + std::to_string(lo) + ".." + std::to_string(hi) +
                                ", got \"" + v + "\"");
  }
  return out;
}
}  // namespace

std::string gen_usage() {
  return "usage: extender-gen --out DIR [flags]\n"
         "  --out DIR               writes DIR/cluster.json, DIR/names/rec-000001.jsonl, DIR/full/rec-000001.jsonl\n"
         "  --nodes N               nodes (default 100), ~12 KB of JSON each\n"
         "  --pods-per-node P       running pods per node (default 10)\n"
         "  --seed S                same seed, same bytes (default 1)\n"
         "  --cycles K              scheduling cycles: filter + prioritize each (default 50)\n"
         "  --preempt-every K       a preempt request every K cycles (default 5; 0 = none)\n"
         "  --nodes-per-request N   nodes per filter/prioritize (default: kube-scheduler's numFeasibleNodesToFind)\n";
}

GenCommand parse_gen_options(int argc, char** argv) {
  GenCommand c;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string value;
    bool has_inline = false;
    if (auto eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
      has_inline = true;
    }
    auto next = [&]() -> std::string {
      if (has_inline) return value;
      if (i + 1 >= argc) throw std::invalid_argument(arg + ": missing value");
      return argv[++i];
    };
    if (arg == "--help" || arg == "-h") {
      c.help = true;
    } else if (arg == "--out") {
      c.out_dir = next();
    } else if (arg == "--nodes") {
      c.gen.nodes = parse_uint(arg, next(), 1, 1'000'000);
    } else if (arg == "--pods-per-node") {
      c.gen.pods_per_node = parse_uint(arg, next(), 0, 110);
    } else if (arg == "--seed") {
      c.gen.seed = parse_uint(arg, next(), 0, UINT64_MAX);
    } else if (arg == "--cycles") {
      c.gen.cycles = parse_uint(arg, next(), 1, 1'000'000);
    } else if (arg == "--preempt-every") {
      c.gen.preempt_every = parse_uint(arg, next(), 0, 1'000'000);
    } else if (arg == "--nodes-per-request") {
      c.gen.nodes_per_request = parse_uint(arg, next(), 1, 1'000'000);
    } else {
      throw std::invalid_argument("unknown flag \"" + arg + "\"");
    }
  }
  if (!c.help && c.out_dir.empty()) throw std::invalid_argument("--out: required");
  return c;
}

}  // namespace kext::gen
