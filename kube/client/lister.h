#pragma once
// One complete list of a resource, page by page (limit/continue) as client-go's pager reads it
// (k8s.io/client-go/tools/pager/pager.go ListPager.List), started over from the first page when the
// continue token expires (410 Gone: the pages so far are from an older snapshot). The reflector's
// list before it watches, and extender-sim's one-off read of a live cluster.
#include <chrono>
#include <cstddef>
#include <functional>
#include <string>

#include "json/json.h"
#include "kube/client/api_client.h"

namespace kext::kube {

// obj[a][b] when both are there and it is a string (metadata.resourceVersion, metadata.continue); ""
// otherwise.
std::string string_at(const json::Value& v, const char* a, const char* b);

struct ListRequest {
  std::string path;  // "/api/v1/pods"
  size_t page_size = 500;
  // A page whose body goes silent this long fails the list.
  std::chrono::milliseconds idle_timeout{150000};
  // Times the list starts over after an expired continue token before it fails.
  int max_restarts = 3;
};

struct ListHooks {
  // Before the first page (restart false) and each time the list starts over (restart true): what
  // came before is stale.
  std::function<void(bool restart)> begin;
  // Each item of each page, in order.
  std::function<void(const json::Value& item)> item;
  // After each response, whatever its status.
  std::function<void()> page;
  // Checked as the body arrives: false cuts the list short (it is then not complete).
  std::function<bool()> keep_going;
  StreamCanceller* canceller = nullptr;
};

struct ListResult {
  bool complete = false;
  std::string resource_version;  // the last page's metadata.resourceVersion
  // When not complete: "list /api/v1/pods: HTTP 403: <message>" or the transport error.
  std::string error;
  int status = 0;  // the failing response's HTTP status, 0 without one
  // The failure went to ApiClient::errors() (counted and logged there); false for a reply that is
  // not a list, which only the caller sees.
  bool reported = false;
};

// Streams each page (so that `canceller` can cut a slow list short). Never throws on the server's
// answers: a failure is in the result.
ListResult list_all(ApiClient& api, const ListRequest& request, const ListHooks& hooks);

// s as a URL query value (RFC 3986 unreserved characters kept, the rest %XX).
std::string url_escape(const std::string& s);

}  // namespace kext::kube
