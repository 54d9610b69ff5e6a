#include "extender/options.h"

#include <charconv>
#include <stdexcept>

namespace kext {

namespace {
int64_t parse_int(const std::string& flag, const std::string& v, int64_t lo, int64_t hi) {
  int64_t out = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (ec != std::errc() || p != v.data() + v.size() || out < lo || out > hi) {
    throw std::invalid_argument(flag + ": expected an integer in " + std::to_string(lo) + ".." + std::to_string(hi) +
                                ", got \"" + v + "\"");
  }
  return out;
}
}  // namespace

std::string usage() {
  return "usage: kube-extender [flags]\n"
         "  --address ADDR        listen address (default 0.0.0.0)\n"
         "  --port N              listen port (default 8888; 0 = any free port)\n"
         "  --path-prefix PATH    serve the verbs under PATH (for a urlPrefix with a path)\n"
         "  --policy FILE         legacy Policy JSON (default: the embedded policy)\n"
         "  --snapshot FILE       cluster state from `kubectl get nodes,pods,pdb -A -o json` (repeatable)\n"
         "  --max-body-bytes N    largest request body accepted (default 67108864)\n"
         "  --threads N           HTTP worker threads, one per keep-alive connection (default 16)\n"
         "  --node-cache-entries N  decoded full-mode node objects kept between requests (default 20000; 0 = off)\n"
         "  --help\n";
}

Options parse_options(int argc, char** argv) {
  Options o;
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
      o.help = true;
    } else if (arg == "--address") {
      o.server.address = next();
      if (o.server.address.empty()) throw std::invalid_argument("--address: must not be empty");
    } else if (arg == "--port") {
      o.server.port = static_cast<int>(parse_int(arg, next(), 0, 65535));
    } else if (arg == "--path-prefix") {
      o.server.path_prefix = next();
    } else if (arg == "--policy") {
      o.policy_file = next();
    } else if (arg == "--snapshot") {
      o.snapshots.push_back(next());
    } else if (arg == "--max-body-bytes") {
      o.server.max_body_bytes = static_cast<size_t>(parse_int(arg, next(), 1024, int64_t{1} << 34));
    } else if (arg == "--threads") {
      o.server.threads = static_cast<size_t>(parse_int(arg, next(), 2, 1024));
    } else if (arg == "--node-cache-entries") {
      o.node_cache_entries = static_cast<size_t>(parse_int(arg, next(), 0, 10'000'000));
    } else {
      throw std::invalid_argument("unknown flag \"" + arg + "\"");
    }
  }
  return o;
}

}  // namespace kext
