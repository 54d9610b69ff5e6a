#pragma once
// Child processes for the soak drivers and the tests that run a tool's binary: the one place they
// fork, exec and reap (ExtenderProcess, tests/support/extender_process.h, is kube-extender's, with its
// start-up line read).
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "tests/support/wait.h"

namespace kext::testing {

// Starts args[0] with `args`, its stdout on `out_fd` and its stderr on `err_fd` (-1: this process's),
// and `env` as its environment (nullptr: this process's). Nothing else of ours (sockets, pipes) is
// inherited. The pid, or -1.
inline pid_t spawn_process(const std::vector<std::string>& args, int out_fd, int err_fd,
                           const std::vector<std::string>* env = nullptr) {
  // Built before fork: the child only calls async-signal-safe functions.
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> envp;
  if (env != nullptr) {
    for (const auto& e : *env) envp.push_back(const_cast<char*>(e.c_str()));
    envp.push_back(nullptr);
  }
  const pid_t pid = fork();
  if (pid == 0) {
    if (out_fd >= 0) dup2(out_fd, STDOUT_FILENO);
    if (err_fd >= 0) dup2(err_fd, STDERR_FILENO);
    close_range(3, ~0U, 0);
    if (env != nullptr)
      execve(argv[0], argv.data(), envp.data());
    else
      execv(argv[0], argv.data());
    _exit(127);
  }
  return pid;
}

// Starts args[0] with `args`, its stdout and stderr in files. The files are emptied before the child
// starts, so that a caller reading them (a port on stderr) never sees a previous run's text.
inline pid_t spawn_child(const std::vector<std::string>& args, const std::string& out,
                         const std::string& err) {
  const int o = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  const int e = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  const pid_t pid = o >= 0 && e >= 0 ? spawn_process(args, o, e) : -1;
  if (o >= 0) close(o);
  if (e >= 0) close(e);
  return pid;
}

// The exit status (128 + the signal for a killed child) if it has ended, reaping it; nullopt while it
// runs.
inline std::optional<int> exit_status(pid_t pid) {
  int status = 0;
  if (waitpid(pid, &status, WNOHANG) != pid) return std::nullopt;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// SIGKILL, and reaped.
inline void kill_child(pid_t pid) {
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
}

// The exit status, or nullopt if it did not end within `limit` (then it is still running).
inline std::optional<int> wait_exit_status(pid_t pid, std::chrono::milliseconds limit) {
  std::optional<int> status;
  wait_until([&] { return (status = exit_status(pid)).has_value(); }, limit);
  return status;
}

// The exit status, or -1 (after SIGKILL) if it did not end within `limit`.
inline int wait_child(pid_t pid, std::chrono::milliseconds limit) {
  if (const std::optional<int> status = wait_exit_status(pid, limit)) return *status;
  kill_child(pid);
  return -1;
}

}  // namespace kext::testing
