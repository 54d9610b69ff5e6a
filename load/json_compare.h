#pragma once
// --check: are two replies the same JSON value? Object member order and number spelling do not matter
// (RapidJSON and Go order maps differently); array order does (prioritize lists follow the request).
#include <string>
#include <string_view>

namespace kext::load {

// True when equal. Otherwise *difference (if given) names the first differing place, e.g.
// `$.FailedNodes["node-3"]: "Insufficient cpu" vs missing`; a body that is not JSON is compared as text.
bool same_json(std::string_view expected, std::string_view actual, std::string* difference = nullptr);

}  // namespace kext::load
