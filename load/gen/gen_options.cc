#include "load/gen/gen_options.h"

#include <CLI/CLI.hpp>
#include <stdexcept>

#include "common/cli.h"

namespace kext::gen {

namespace {

// The one definition of extender-gen's flags, bound to `c`.
void define_flags(CLI::App& app, GenCommand& c) {
  cli::configure(app);
  GenOptions& g = c.gen;
  cli::non_empty(
      app.add_option("--out", c.out_dir,
                     "writes DIR/cluster.json, DIR/names/rec-000001.jsonl, DIR/full/rec-000001.jsonl"))
      ->required()
      ->type_name("DIR");
  app.add_option("--nodes", g.nodes, "nodes, ~12 KB of JSON each")
      ->check(CLI::Range(size_t{1}, size_t{1'000'000}))
      ->type_name("N");
  app.add_option("--pods-per-node", g.pods_per_node, "running pods per node")
      ->check(CLI::Range(size_t{0}, size_t{110}))
      ->type_name("P");
  app.add_option("--seed", g.seed, "same seed, same bytes")->type_name("S");
  app.add_option("--cycles", g.cycles, "scheduling cycles: filter + prioritize each")
      ->check(CLI::Range(size_t{1}, size_t{1'000'000}))
      ->type_name("K");
  app.add_option("--preempt-every", g.preempt_every, "a preempt request every K cycles (0 = none)")
      ->check(CLI::Range(size_t{0}, size_t{1'000'000}))
      ->type_name("K");
  app.add_option("--nodes-per-request", g.nodes_per_request,
                 "nodes per filter/prioritize (default: kube-scheduler's numFeasibleNodesToFind)")
      ->check(CLI::Range(size_t{1}, size_t{1'000'000}))
      ->default_str("")
      ->type_name("N");
  app.add_flag("--bind", g.bind, "each cycle also binds its pod to the first node sent");
  cli::add_parsed(
      app, "--mode",
      [&g](const std::string& m) {
        if (m != "names" && m != "full" && m != "both") {
          throw std::invalid_argument("expected names, full or both, got \"" + m + "\"");
        }
        g.names = m != "full";
        g.full = m != "names";
      },
      "both", "which recordings to write: names, full or both")
      ->type_name("M");
  cli::add_parsed(
      app, "--node-names",
      [&g](const std::string& m) {
        if (m != "short" && m != "cloud") {
          throw std::invalid_argument("expected short or cloud, got \"" + m + "\"");
        }
        g.cloud_names = m == "cloud";
      },
      "short", "node-00042, or cloud: ip-10-0-0-42.eu-west-1.compute.internal")
      ->type_name("S");
}

CLI::App make_app() {
  return CLI::App("extender-gen: writes a synthetic cluster and scheduler traffic for extender-load",
                  "extender-gen");
}

}  // namespace

std::string gen_usage() {
  GenCommand defaults;
  CLI::App app = make_app();
  define_flags(app, defaults);
  return cli::help_text(app);
}

std::vector<std::string> gen_flag_names() {
  GenCommand defaults;
  CLI::App app = make_app();
  define_flags(app, defaults);
  return cli::flag_names(app);
}

GenCommand parse_gen_options(int argc, char** argv) {
  GenCommand c;
  CLI::App app = make_app();
  define_flags(app, c);
  if (!cli::parse(app, argc, argv)) c.help = true;
  return c;
}

}  // namespace kext::gen
