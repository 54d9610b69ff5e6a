#pragma once
// Runs the real kube-extender binary as a child process (tests of start-up, flags and signals; the soak
// driver): its stderr is captured through a pipe, or written to a file for a long run, and its port is
// read from the start-up line.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "tests/support/child_process.h"
#include "tests/support/wait.h"

namespace kext::testing {

class ExtenderProcess {
 public:
#ifdef KEXT_BINARY
  explicit ExtenderProcess(const std::vector<std::string>& args) : ExtenderProcess(KEXT_BINARY, args) {}
#endif

  // Starts `binary --bind-address 127.0.0.1 --port 0 args…` and reads stderr until it listens or exits.
  // With log_file, stderr goes to that file (nothing blocks on a pipe nobody drains) and is read from
  // there, for at most `start_limit`. The child gets this environment without KUBECONFIG, which would
  // otherwise become its cluster-state source when the test passes none; `env` adds variables.
  ExtenderProcess(const std::string& binary, const std::vector<std::string>& args, std::string log_file = "",
                  std::chrono::milliseconds start_limit = std::chrono::seconds(60),
                  const std::vector<std::string>& env = {})
      : log_file_(std::move(log_file)) {
    int fds[2] = {-1, -1};
    int err_fd = -1;
    if (log_file_.empty()) {
      if (pipe(fds) != 0) return;
      err_fd = fds[1];
    } else {
      err_fd = open(log_file_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
      if (err_fd < 0) return;
      fd_ = open(log_file_.c_str(), O_RDONLY | O_CLOEXEC);
    }
    std::vector<std::string> argv_s = {binary, "--bind-address", "127.0.0.1", "--port", "0"};
    argv_s.insert(argv_s.end(), args.begin(), args.end());
    std::vector<std::string> env_s;
    for (char** e = environ; *e != nullptr; ++e) {
      if (std::string_view(*e).starts_with("KUBECONFIG=")) continue;
      env_s.push_back(*e);
    }
    env_s.insert(env_s.end(), env.begin(), env.end());
    pid_ = spawn_process(argv_s, -1, err_fd, &env_s);
    close(err_fd);
    if (log_file_.empty()) fd_ = fds[0];
    const std::string marker = "listening on 127.0.0.1:";
    auto listening = [&] {
      const size_t at = log_.find(marker);
      return at != std::string::npos && log_.find(' ', at + marker.size()) != std::string::npos;
    };
    const auto end = std::chrono::steady_clock::now() + start_limit;
    char buf[512];
    while (!listening() && fd_ >= 0) {
      const ssize_t n = read(fd_, buf, sizeof buf);
      if (n > 0) {
        log_.append(buf, static_cast<size_t>(n));
        continue;
      }
      // A pipe reads 0 once the process has exited; a file reads 0 until more is written.
      if (log_file_.empty() || wait_exit(std::chrono::milliseconds(0)) >= 0) return;
      if (std::chrono::steady_clock::now() >= end) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (listening()) port_ = std::atoi(log_.c_str() + log_.find(marker) + marker.size());
  }
  ExtenderProcess(const ExtenderProcess&) = delete;
  ExtenderProcess& operator=(const ExtenderProcess&) = delete;
  ~ExtenderProcess() {
    if (pid_ > 0 && exit_ < 0) kill_child(pid_);
    if (fd_ >= 0) close(fd_);
  }

  int port() const { return port_; }  // 0 if it never listened
  pid_t pid() const { return pid_; }

  // The exit status, or -1 if still running after `timeout`.
  int wait_exit(std::chrono::milliseconds timeout) {
    if (exit_ >= 0 || pid_ <= 0) return exit_;
    exit_ = wait_exit_status(pid_, timeout).value_or(-1);
    return exit_;
  }

  // Everything written to stderr so far (through a pipe: after exit, all of it).
  const std::string& log() {
    if ((exit_ >= 0 || !log_file_.empty()) && fd_ >= 0) {
      char buf[4096];
      for (ssize_t n; (n = read(fd_, buf, sizeof buf)) > 0;) log_.append(buf, static_cast<size_t>(n));
    }
    return log_;
  }

 private:
  std::string log_file_;
  pid_t pid_ = -1;
  int fd_ = -1;
  int port_ = 0;
  int exit_ = -1;
  std::string log_;
};

// VmRSS (KiB) and Threads from /proc/<pid>/status (-1 each if absent): what the memory and thread
// bounds of the tests that run the real binary compare.
inline std::pair<long, long> rss_and_threads(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  long rss = -1, threads = -1;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("VmRSS:", 0) == 0) rss = std::stol(line.substr(6));
    if (line.rfind("Threads:", 0) == 0) threads = std::stol(line.substr(8));
  }
  return {rss, threads};
}

}  // namespace kext::testing
