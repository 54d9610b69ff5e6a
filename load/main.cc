// extender-load: replays recorded scheduler traffic against an extender and reports latency.
#include <iostream>

#include "load/load_options.h"
#include "load/report.h"

int main(int argc, char** argv) {
  kext::load::LoadOptions opts;
  try {
    opts = kext::load::parse_load_options(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "extender-load: " << e.what() << "\n(extender-load --help lists the flags)\n";
    return 2;
  }
  if (opts.help) {
    std::cout << kext::load::load_usage();
    return 0;
  }
  std::vector<kext::load::Exchange> exchanges;
  kext::load::ReplayResult result;
  try {
    exchanges = kext::load::read_exchanges(opts.input, opts.read);
    result = kext::load::replay(exchanges, opts.replay);
  } catch (const std::exception& e) {
    std::cerr << "extender-load: " << e.what() << std::endl;
    return 1;
  }
  std::cout << (opts.json ? kext::load::format_json(result, opts.replay) : kext::load::format_text(result, opts.replay));
  return result.errors.total() > 0 || result.differences > 0 ? 3 : 0;
}
