// The tally of the host-run runtime tests (nvcc-built, run without a GPU): check() counts each
// assertion and prints the first failures; finish() prints `N passed, M failed` and gives the
// exit status. in_child() runs a piece of code that must stop the process (a fatal error) in a
// child, and hands back its exit status and stderr.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>

namespace tally {

inline int passed = 0, failed = 0;

inline void check(bool ok, const std::string& what) {
  if (ok) {
    ++passed;
    return;
  }
  ++failed;
  if (failed < 20) std::printf("FAIL %s\n", what.c_str());
}

inline int finish() {
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}

/// Runs `f` in a child process with the environment variable `name` set to `value`; its exit
/// status (128 if it did not exit) and what it wrote on stderr.
template <class F>
std::pair<int, std::string> in_child(const char* name, const char* value, F f) {
  char path[] = "/tmp/tally_child_XXXXXX";
  const int fd = mkstemp(path);
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(fd, 2);
    setenv(name, value, 1);
    f();
    std::_Exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  std::string text;
  if (FILE* in = std::fopen(path, "r")) {
    char buffer[512];
    while (std::fgets(buffer, sizeof buffer, in)) text += buffer;
    std::fclose(in);
  }
  close(fd);
  unlink(path);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128, text};
}

}  // namespace tally
