#pragma once
// A TCP load balancer on loopback as a Kubernetes Service with kube-proxy is: each new connection goes to the
// next backend whose /readyz answered 200 at the last check (a few times a second), round robin, and stays
// there for its whole life. kube-scheduler keeps its keep-alive connections to an extender, so each of them
// stays on one replica (the failover test and bench/ha_bind_bench.cc).
#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

namespace kext::testing {

class Balancer {
 public:
  Balancer() {
    listen_ = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    setsockopt(listen_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (::bind(listen_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 && ::listen(listen_, 256) == 0 &&
        getsockname(listen_, reinterpret_cast<sockaddr*>(&a), &len) == 0) {
      port_ = ntohs(a.sin_port);
    }
    acceptor_ = std::thread([this] { accept_loop(); });
    checker_ = std::thread([this] { check_loop(); });
  }
  ~Balancer() {
    stop_ = true;
    ::shutdown(listen_, SHUT_RDWR);
    close(listen_);
    acceptor_.join();
    checker_.join();
    while (active_ > 0)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));  // relays notice stop_ at their next poll
  }
  int port() const { return port_; }
  // Connections relayed so far, by backend port.
  std::map<int, int> connections() {
    std::lock_guard lock(mu_);
    return connections_;
  }
  size_t ready_count() {
    std::lock_guard lock(mu_);
    return ready_.size();
  }
  void set_backends(std::vector<int> ports) {
    std::lock_guard lock(mu_);
    backends_ = std::move(ports);
    // Endpoints that stay keep their readiness until the next check; removed ones go at once.
    std::erase_if(ready_, [this](int p) {
      return std::find(backends_.begin(), backends_.end(), p) == backends_.end();
    });
  }

 private:
  static int connect_to(int port) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
      close(fd);
      return -1;
    }
    return fd;
  }
  void check_loop() {
    while (!stop_) {
      std::vector<int> all;
      {
        std::lock_guard lock(mu_);
        all = backends_;
      }
      std::vector<int> ready;
      for (int p : all) {
        httplib::Client c("127.0.0.1", p);
        c.set_connection_timeout(0, 200'000);
        c.set_read_timeout(0, 500'000);
        auto r = c.Get("/readyz");
        if (r && r->status == 200) ready.push_back(p);
      }
      {
        std::lock_guard lock(mu_);
        if (all == backends_) ready_ = ready;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  void accept_loop() {
    while (!stop_) {
      int client = accept(listen_, nullptr, nullptr);
      if (client < 0) {
        if (stop_) return;
        continue;
      }
      ++active_;
      std::thread([this, client] {
        relay(client);
        --active_;
      }).detach();
    }
  }
  void relay(int client) {
    int backend = -1;
    for (int attempt = 0; attempt < 3 && backend < 0; ++attempt) {
      int port = 0;
      {
        std::lock_guard lock(mu_);
        if (!ready_.empty()) port = ready_[next_++ % ready_.size()];
        if (port > 0) ++connections_[port];
      }
      if (port > 0) backend = connect_to(port);
    }
    if (backend < 0) {
      close(client);
      return;
    }
    // As kube-proxy's forwarding adds no delay of its own: each read is sent on at once.
    int one = 1;
    setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    setsockopt(backend, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    pollfd fds[2] = {{client, POLLIN, 0}, {backend, POLLIN, 0}};
    char buf[16384];
    while (!stop_) {
      if (poll(fds, 2, 100) < 0) break;
      bool done = false;
      for (int i = 0; i < 2 && !done; ++i) {
        if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        const ssize_t n = recv(fds[i].fd, buf, sizeof buf, 0);
        if (n <= 0 || send(fds[1 - i].fd, buf, static_cast<size_t>(n), MSG_NOSIGNAL) != n) done = true;
      }
      if (done) break;
    }
    close(client);
    close(backend);
  }

  int listen_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  std::vector<int> backends_, ready_;
  std::map<int, int> connections_;
  size_t next_ = 0;
  std::atomic<int> active_{0};
  std::thread acceptor_, checker_;
};

}  // namespace kext::testing
