// The arguments of a compile command (after `--`, or from compile_commands.json with -p) that the
// host compiler needs as well as the front end, read with clang's own option table.
#pragma once
#include <string>
#include <vector>

namespace clang::tooling {
struct CompileCommand;
}

namespace stencilc::driver {

/// What the host compile takes from a compile command.
struct ForwardedArgs {
  std::string optimization;       // the last -O flag, or empty
  std::string standard;           // the last -std=, or empty
  std::vector<std::string> args;  // -D, -U, -I, -isystem, -include, -g, -W, -f, in order
};

/// The arguments of `command` the host compile needs. Paths of -I, -isystem and -include are made
/// absolute against the command's directory (a compile database's `directory`), since the host
/// compiler runs in the current one.
ForwardedArgs forwarded_args(const clang::tooling::CompileCommand& command);

}  // namespace stencilc::driver
