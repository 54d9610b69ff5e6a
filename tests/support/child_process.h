#pragma once
// A child process with its stdout and stderr in files, for the soak drivers and the tests that run a
// tool's binary (ExtenderProcess is kube-extender's, with its start-up line read).
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

namespace kext::testing {

// Starts args[0] with `args`; nothing else of ours (sockets) is inherited. The pid, or -1. The files
// are emptied before the child starts, so that a caller reading them (a port on stderr) never sees a
// previous run's text.
inline pid_t spawn_child(const std::vector<std::string>& args, const std::string& out,
                         const std::string& err) {
  const int o = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  const int e = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (o < 0 || e < 0) {
    if (o >= 0) close(o);
    if (e >= 0) close(e);
    return -1;
  }
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(o, STDOUT_FILENO);
    dup2(e, STDERR_FILENO);
    close_range(3, ~0U, 0);
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(o);
  close(e);
  return pid;
}

// The exit status (128 + the signal for a killed child), or -1 (after SIGKILL) if it did not end
// within `limit`.
inline int wait_child(pid_t pid, std::chrono::milliseconds limit) {
  const auto end = std::chrono::steady_clock::now() + limit;
  for (;;) {
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid)
      return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (std::chrono::steady_clock::now() >= end) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

}  // namespace kext::testing
