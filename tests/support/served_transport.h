#pragma once
// A Transport on a loopback port with the routes a test gives it (one Router), run on its own thread
// until the object goes (or stop()).
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <thread>

#include "extender/http/router.h"
#include "extender/http/transport.h"

namespace kext::testing {

class ServedTransport {
 public:
  ServedTransport(TransportLimits limits, const std::function<void(Router&)>& routes)
      : transport_(limits, {Listener{"127.0.0.1", 0, &router_, nullptr}}, nullptr) {
    routes(router_);
    std::string error;
    EXPECT_TRUE(transport_.bind(&error)) << error;
    thread_ = std::thread([this] { transport_.run(); });
  }
  ~ServedTransport() { stop(); }
  ServedTransport(const ServedTransport&) = delete;
  ServedTransport& operator=(const ServedTransport&) = delete;

  void stop() {
    if (!thread_.joinable()) return;
    transport_.stop();
    thread_.join();
  }
  int port() const { return transport_.port(0); }

 private:
  Router router_;
  Transport transport_;
  std::thread thread_;
};

}  // namespace kext::testing
