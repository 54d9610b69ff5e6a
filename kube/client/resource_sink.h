#pragma once
// What a reflector feeds: the items of a complete list, then watch events. Implementations decode the
// objects and apply them to the cache.
#include <string_view>

#include "json/json.h"

namespace kext::kube {

enum class EventType { Added, Modified, Deleted };

class ResourceSink {
 public:
  virtual ~ResourceSink() = default;
  virtual void list_begin() = 0;
  // May throw DecodeError: the reflector skips that object and counts it.
  virtual void list_item(const json::Value& object) = 0;
  // Everything listed replaces what the cache held of this kind, in one step.
  virtual void list_end() = 0;
  // May throw DecodeError. Events are queued until flush().
  virtual void event(EventType type, const json::Value& object) = 0;
  // Applies the queued events as one batch: readers see all of them or none.
  virtual void flush() = 0;
};

}  // namespace kext::kube
