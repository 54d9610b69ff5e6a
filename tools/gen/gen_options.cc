#include "tools/gen/gen_options.h"

#include <stdexcept>

#include "common/command_line.h"

namespace kext::gen {

std::string gen_usage() {
  return "usage: extender-gen --out DIR [flags]\n"
         "  --out DIR               writes DIR/cluster.json, DIR/names/rec-000001.jsonl, "
         "DIR/full/rec-000001.jsonl\n"
         "  --nodes N               nodes (default 100), ~12 KB of JSON each\n"
         "  --pods-per-node P       running pods per node (default 10)\n"
         "  --seed S                same seed, same bytes (default 1)\n"
         "  --cycles K              scheduling cycles: filter + prioritize each (default 50)\n"
         "  --preempt-every K       a preempt request every K cycles (default 5; 0 = none)\n"
         "  --nodes-per-request N   nodes per filter/prioritize (default: kube-scheduler's "
         "numFeasibleNodesToFind)\n"
         "  --bind                  each cycle also binds its pod to the first node sent\n"
         "  --mode M                names, full or both (default both): which recordings to write\n";
}

GenCommand parse_gen_options(int argc, char** argv) {
  GenCommand c;
  for (ArgCursor cursor(argc, argv); cursor.advance();) {
    std::string arg = cursor.flag();
    auto next = [&] { return cursor.value(); };
    if (arg == "--help" || arg == "-h") {
      c.help = true;
    } else if (arg == "--out") {
      c.out_dir = next();
    } else if (arg == "--nodes") {
      c.gen.nodes = parse_flag_integer<uint64_t>(arg, next(), 1, 1'000'000);
    } else if (arg == "--pods-per-node") {
      c.gen.pods_per_node = parse_flag_integer<uint64_t>(arg, next(), 0, 110);
    } else if (arg == "--seed") {
      c.gen.seed = parse_flag_integer<uint64_t>(arg, next(), 0, UINT64_MAX);
    } else if (arg == "--cycles") {
      c.gen.cycles = parse_flag_integer<uint64_t>(arg, next(), 1, 1'000'000);
    } else if (arg == "--preempt-every") {
      c.gen.preempt_every = parse_flag_integer<uint64_t>(arg, next(), 0, 1'000'000);
    } else if (arg == "--bind") {
      c.gen.bind = true;
    } else if (arg == "--mode") {
      const std::string m = next();
      if (m != "names" && m != "full" && m != "both") {
        throw std::invalid_argument("--mode: expected names, full or both, got \"" + m + "\"");
      }
      c.gen.names = m != "full";
      c.gen.full = m != "names";
    } else if (arg == "--nodes-per-request") {
      c.gen.nodes_per_request = parse_flag_integer<uint64_t>(arg, next(), 1, 1'000'000);
    } else {
      throw std::invalid_argument("unknown flag \"" + arg + "\"");
    }
  }
  if (!c.help && c.out_dir.empty()) throw std::invalid_argument("--out: required");
  return c;
}

}  // namespace kext::gen
