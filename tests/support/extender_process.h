#pragma once
// Runs the real kube-extender binary (KEXT_BINARY) as a child process for tests of start-up, flags and
// signals: its stderr is captured, its port read from the start-up line.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

namespace kext::testing {

class ExtenderProcess {
 public:
  // Starts `kube-extender --address 127.0.0.1 --port 0 args…` and reads stderr until it listens or exits.
  explicit ExtenderProcess(const std::vector<std::string>& args) {
    int fds[2];
    if (pipe(fds) != 0) return;
    std::vector<std::string> argv_s = {KEXT_BINARY, "--address", "127.0.0.1", "--port", "0"};
    argv_s.insert(argv_s.end(), args.begin(), args.end());
    pid_ = fork();
    if (pid_ == 0) {
      dup2(fds[1], STDERR_FILENO);
      close(fds[0]);
      close(fds[1]);
      std::vector<char*> argv;
      for (auto& a : argv_s) argv.push_back(a.data());
      argv.push_back(nullptr);
      execv(KEXT_BINARY, argv.data());
      _exit(127);
    }
    close(fds[1]);
    fd_ = fds[0];
    const std::string marker = "listening on 127.0.0.1:";
    char buf[512];
    while (log_.find(marker) == std::string::npos || log_.find(' ', log_.find(marker) + marker.size()) == std::string::npos) {
      const ssize_t n = read(fd_, buf, sizeof buf);
      if (n <= 0) return;  // exited before listening: see exit_code() and log()
      log_.append(buf, static_cast<size_t>(n));
    }
    port_ = std::atoi(log_.c_str() + log_.find(marker) + marker.size());
  }
  ~ExtenderProcess() {
    if (pid_ > 0 && exit_ < 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    if (fd_ >= 0) close(fd_);
  }

  int port() const { return port_; }  // 0 if it never listened
  pid_t pid() const { return pid_; }

  // The exit status, or -1 if still running after `timeout`.
  int wait_exit(std::chrono::milliseconds timeout) {
    const auto end = std::chrono::steady_clock::now() + timeout;
    while (exit_ < 0 && std::chrono::steady_clock::now() < end) {
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        exit_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return exit_;
  }

  // Everything written to stderr so far (after exit: all of it).
  const std::string& log() {
    if (exit_ >= 0 && fd_ >= 0) {
      char buf[512];
      for (ssize_t n; (n = read(fd_, buf, sizeof buf)) > 0;) log_.append(buf, static_cast<size_t>(n));
    }
    return log_;
  }

 private:
  pid_t pid_ = -1;
  int fd_ = -1;
  int port_ = 0;
  int exit_ = -1;
  std::string log_;
};

}  // namespace kext::testing
