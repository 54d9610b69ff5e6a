#include "kube/client/lister.h"

#include <cctype>

namespace kext::kube {

std::string string_at(const json::Value& v, const char* a, const char* b) {
  if (!v.IsObject()) return {};
  auto ia = v.FindMember(a);
  if (ia == v.MemberEnd() || !ia->value.IsObject()) return {};
  auto ib = ia->value.FindMember(b);
  if (ib == ia->value.MemberEnd() || !ib->value.IsString()) return {};
  return std::string(ib->value.GetString(), ib->value.GetStringLength());
}

std::string url_escape(const std::string& s) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

ListResult list_all(ApiClient& api, const ListRequest& request, const ListHooks& hooks) {
  auto keep_going = [&] { return !hooks.keep_going || hooks.keep_going(); };
  ListResult result;
  if (hooks.begin) hooks.begin(false);
  std::string cont;
  int restarts = 0;
  while (keep_going()) {
    std::string path = request.path + "?limit=" + std::to_string(request.page_size);
    if (!cont.empty()) path += "&continue=" + url_escape(cont);
    std::string body;
    // A page's 410 with a continue token is an answer: the list starts over.
    ApiResponse resp = api.stream(
        path, request.idle_timeout,
        [&](std::string_view data) {
          body.append(data);
          return keep_going();
        },
        hooks.canceller, cont.empty() ? Expected{} : Expected{410});
    if (resp.ok() && resp.error.empty()) {
      resp.body = std::move(body);
    } else if (resp.ok()) {
      resp.status = 0;  // cut short: not a whole list
      if (resp.cause != "cancelled")
        api.errors().report(ApiFailure{"GET", path, resp.cause, resp.describe()});
    }
    if (hooks.page) hooks.page();
    if (resp.status == 410 && !cont.empty() && restarts++ < request.max_restarts) {
      if (hooks.begin) hooks.begin(true);
      cont.clear();
      continue;
    }
    if (!resp.ok()) {
      // Expected above, but the list has started over too often: a failure after all.
      if (resp.status == 410 && !cont.empty())
        api.errors().report(ApiFailure{"GET", path, "410", resp.describe()});
      result.error = "list " + request.path + ": " + resp.describe();
      result.status = resp.status;
      result.reported = true;
      return result;
    }
    rapidjson::Document doc;
    doc.Parse<json::kParseFlags>(resp.body.data(), resp.body.size());
    if (doc.HasParseError() || !doc.IsObject()) {
      result.error = "list " + request.path + ": response is not a JSON object";
      result.status = resp.status;
      return result;
    }
    auto items = doc.FindMember("items");
    if (items != doc.MemberEnd() && items->value.IsArray() && hooks.item) {
      for (const auto& item : items->value.GetArray()) hooks.item(item);
    }
    result.resource_version = string_at(doc, "metadata", "resourceVersion");
    cont = string_at(doc, "metadata", "continue");
    if (cont.empty()) {
      result.complete = true;
      return result;
    }
  }
  result.error = "list " + request.path + ": stopped";
  return result;
}

}  // namespace kext::kube
