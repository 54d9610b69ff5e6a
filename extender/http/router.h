#pragma once
// A cpp-httplib Server used only for what it does with a request once the Transport has read it whole:
// routing, handlers, the error and exception handlers, and writing the reply. Its own listener and
// thread pool are never started.
#include <httplib.h>

namespace kext {

class Router : public httplib::Server {
 public:
  // Protected in cpp-httplib 0.11: the step SocketStream-driven serving runs per request.
  using httplib::Server::process_request;
};

}  // namespace kext
