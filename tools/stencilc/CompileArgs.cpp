// Reads a compile command with clang's driver option table; see CompileArgs.h.
#include "CompileArgs.h"

#include <clang/Driver/Options.h>
#include <clang/Tooling/CompilationDatabase.h>
#include <llvm/ADT/SmallString.h>
#include <llvm/Option/ArgList.h>
#include <llvm/Option/OptTable.h>
#include <llvm/Support/Path.h>

namespace stencilc::driver {

namespace {

std::string absolute(const std::string& path, const std::string& directory) {
  if (path.empty() || llvm::sys::path::is_absolute(path) || directory.empty()) return path;
  llvm::SmallString<256> full(directory);
  llvm::sys::path::append(full, path);
  llvm::sys::path::remove_dots(full, /*remove_dot_dot=*/true);
  return full.str().str();
}

}  // namespace

ForwardedArgs forwarded_args(const clang::tooling::CompileCommand& command) {
  namespace options = clang::driver::options;
  ForwardedArgs out;
  std::vector<const char*> argv;
  for (size_t i = 1; i < command.CommandLine.size(); ++i)
    argv.push_back(command.CommandLine[i].c_str());
  unsigned missing_index = 0, missing_count = 0;
  const llvm::opt::OptTable& table = clang::driver::getDriverOptTable();
  llvm::opt::InputArgList args = table.ParseArgs(argv, missing_index, missing_count);
  for (const llvm::opt::Arg* arg : args) {
    const llvm::opt::Option& option = arg->getOption();
    if (option.matches(options::OPT_D) || option.matches(options::OPT_U)) {
      out.args.push_back(arg->getSpelling().str() + arg->getValue());
    } else if (option.matches(options::OPT_I) || option.matches(options::OPT_isystem) ||
               option.matches(options::OPT_include)) {
      std::string spelling = arg->getSpelling().str();
      std::string path = absolute(arg->getValue(), command.Directory);
      if (option.matches(options::OPT_I)) {
        out.args.push_back("-I" + path);
      } else {
        out.args.insert(out.args.end(), {spelling, path});
      }
    } else if (option.matches(options::OPT_std_EQ)) {
      out.standard = arg->getAsString(args);
    } else if (option.matches(options::OPT_O_Group)) {
      out.optimization = arg->getAsString(args);
    } else if (option.matches(options::OPT_g_Group) || option.matches(options::OPT_W_Group) ||
               option.matches(options::OPT_f_Group) || option.matches(options::OPT_f_clang_Group)) {
      llvm::opt::ArgStringList rendered;
      arg->render(args, rendered);
      out.args.insert(out.args.end(), rendered.begin(), rendered.end());
    }
  }
  return out;
}

}  // namespace stencilc::driver
