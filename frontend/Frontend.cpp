// The Clang side of the front end: runs a ClangTool over the source, finds the programs by
// their annotation, and hands each to ProgramLowering.
#include "frontend/Frontend.h"

#include "frontend/Lowering.h"

#include <clang/AST/ASTConsumer.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendAction.h>
#include <clang/Tooling/ArgumentsAdjusters.h>
#include <clang/Tooling/CompilationDatabase.h>
#include <clang/Tooling/Tooling.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>

#include <map>

namespace stencilc::frontend {

using namespace clang;

// ---------------------------------------------------------------------------------------------
// LoweringContext

bool LoweringContext::check_reserved(const NamedDecl* d, SourceLocation at) {
  const std::string name = d->getNameAsString();
  if (!reserved_name(name)) return false;
  if (reserved_reported_.insert(d).second) error(at, reserved_name_message(name));
  return true;
}

void LoweringContext::error(SourceLocation loc, const std::string& message, SourceRange range) {
  ++errors_;
  DiagnosticsEngine& diags = ast_.getDiagnostics();
  unsigned id = diags.getCustomDiagID(DiagnosticsEngine::Error, "%0");
  auto builder = diags.Report(loc, id);
  builder << message;
  if (range.isValid()) builder << range;
}

void LoweringContext::note(SourceLocation loc, const std::string& message) {
  DiagnosticsEngine& diags = ast_.getDiagnostics();
  diags.Report(loc, diags.getCustomDiagID(DiagnosticsEngine::Note, "%0")) << message;
}

ir::SourceLoc LoweringContext::loc(SourceLocation l) const {
  const SourceManager& sm = ast_.getSourceManager();
  PresumedLoc p = sm.getPresumedLoc(sm.getExpansionLoc(l));
  if (p.isInvalid()) return {};
  ir::SourceLoc out;
  out.line = (int)p.getLine();
  out.col = (int)p.getColumn();
  if (sm.getFileID(sm.getExpansionLoc(l)) != sm.getMainFileID()) out.file = p.getFilename();
  return out;
}

std::optional<ir::ScalarType> LoweringContext::scalar_type(QualType t) const {
  t = t.getNonReferenceType().getCanonicalType();
  auto* b = t->getAs<BuiltinType>();
  if (!b) return std::nullopt;
  switch (b->getKind()) {
    case BuiltinType::Bool: return ir::ScalarType::Bool;
    case BuiltinType::Int: return ir::ScalarType::I32;
    case BuiltinType::Long:
    case BuiltinType::LongLong: return ir::ScalarType::I64;
    case BuiltinType::ULong:
    case BuiltinType::ULongLong: return ir::ScalarType::U64;
    case BuiltinType::Float: return ir::ScalarType::F32;
    case BuiltinType::Double: return ir::ScalarType::F64;
    default: return std::nullopt;
  }
}

bool LoweringContext::is_stencilc_class(QualType t, const char* name) const {
  auto* rd = t.getNonReferenceType()->getAsCXXRecordDecl();
  if (!rd || !rd->getIdentifier() || rd->getName() != name) return false;
  auto* ns = dyn_cast<NamespaceDecl>(rd->getDeclContext()->getEnclosingNamespaceContext());
  return ns && ns->getName() == "stencilc";
}

std::optional<GridTypeInfo> LoweringContext::grid_type(QualType t) const {
  bool block = is_stencilc_class(t, "Block");
  if (!block && !is_stencilc_class(t, "Grid")) return std::nullopt;
  auto* spec = dyn_cast<ClassTemplateSpecializationDecl>(t.getNonReferenceType()->getAsCXXRecordDecl());
  if (!spec || spec->getTemplateArgs().size() != 2) return std::nullopt;
  GridTypeInfo info;
  info.is_block = block;
  auto elem = scalar_type(spec->getTemplateArgs()[0].getAsType());
  if (!elem) return std::nullopt;
  info.elem = *elem;
  info.rank = (int)spec->getTemplateArgs()[1].getAsIntegral().getExtValue();
  info.is_const = t.getNonReferenceType().isConstQualified();
  return info;
}

std::optional<std::string> LoweringContext::lower_function(const FunctionDecl* fd, SourceLocation use) {
  fd = fd->getCanonicalDecl();
  if (auto it = functions_.find(fd); it != functions_.end()) return it->second;
  std::string qname = fd->getQualifiedNameAsString();
  const FunctionDecl* def = nullptr;
  bool library = fd->isInStdNamespace() || ast_.getSourceManager().isInSystemHeader(fd->getLocation());
  if (!library && (fd->isTemplateInstantiation() || fd->getPrimaryTemplate())) {
    // Defined in the file or not, a template's instances are not lowered: say so, not "undefined".
    error(use, "call to '" + qname + "' is not supported in a point update: it is a function template, and only "
               "plain (non-template) functions may be called from a point update");
    return std::nullopt;
  }
  if (library || !fd->hasBody(def) || ast_.getSourceManager().isInSystemHeader(def->getLocation())) {
    error(use, "call to '" + qname + "' is not supported in a point update; only math functions (sqrt, exp, sin, cos, "
               "fabs, fmin, fmax, pow) and functions defined in the program's file may be called");
    return std::nullopt;
  }
  if (in_progress_.count(fd)) {
    error(use, "recursive call to '" + qname + "': functions called from a point update cannot recurse");
    return std::nullopt;
  }
  if (check_reserved(fd, use)) return std::nullopt;
  // Programs keep their C++ names (the generated code refers to them): functions step aside.
  std::string name = fd->getNameAsString();
  for (int k = 1; module_.find_function(name) || program_names_.count(name); ++k)
    name = fd->getNameAsString() + "_" + std::to_string(k);
  in_progress_.insert(fd);
  ProgramLowering lowering(*this, ir::ProgramKind::Global);
  auto fn = lowering.lower_function(def, name);
  in_progress_.erase(fd);
  if (!fn) return std::nullopt;
  functions_[fd] = name;
  module_.functions.push_back(std::move(*fn));
  return name;
}

// ---------------------------------------------------------------------------------------------
// The Clang action

namespace {

std::optional<ir::ProgramKind> program_kind(const FunctionDecl* fd) {
  for (const auto* attr : fd->specific_attrs<AnnotateAttr>()) {
    if (attr->getAnnotation() == "stencilc.program") return ir::ProgramKind::Global;
    if (attr->getAnnotation() == "stencilc.spmd_program") return ir::ProgramKind::Spmd;
  }
  return std::nullopt;
}

class ProgramFinder : public RecursiveASTVisitor<ProgramFinder> {
 public:
  std::vector<const FunctionDecl*> programs;
  bool VisitFunctionDecl(FunctionDecl* fd) {
    if (fd->doesThisDeclarationHaveABody() && program_kind(fd)) programs.push_back(fd);
    return true;
  }
};

class LowerConsumer : public ASTConsumer {
 public:
  LowerConsumer(std::optional<FrontendResult>& result, std::string source) : result_(result), source_(std::move(source)) {}

  void HandleTranslationUnit(ASTContext& ast) override {
    if (ast.getDiagnostics().hasErrorOccurred()) return;  // Clang already said why.
    FrontendResult out;
    out.module.source = source_;
    const SourceManager& sm = ast.getSourceManager();
    out.text = sm.getBufferData(sm.getMainFileID()).str();
    LoweringContext cx(ast, out.module);
    ProgramFinder finder;
    finder.TraverseDecl(ast.getTranslationUnitDecl());
    if (finder.programs.empty()) warn_no_programs(ast);
    std::map<std::string, const FunctionDecl*> first_of_name;
    std::vector<const FunctionDecl*> programs;
    for (const FunctionDecl* fd : finder.programs) {
      auto [first, inserted] = first_of_name.emplace(fd->getNameAsString(), fd);
      if (!inserted) {
        // The generated code names its launcher after the program, in the program's scope, and an
        // SPMD program registers itself by its name: two programs of one name cannot both work.
        cx.error(fd->getLocation(), "a second stencil program named '" + fd->getNameAsString() +
                                        "' (stencil programs need distinct names, also across namespaces and "
                                        "overloads)");
        cx.note(first->second->getLocation(), "the first program named '" + fd->getNameAsString() + "' is here");
        continue;
      }
      cx.reserve_program_name(fd->getNameAsString());
      programs.push_back(fd);
    }
    check_program_calls(cx, programs);
    for (const FunctionDecl* fd : programs) {
      ProgramLowering lowering(cx, *program_kind(fd));
      auto program = lowering.lower_program(fd);
      if (!program) continue;
      out.module.programs.push_back(std::move(*program));
      out.sites.push_back(site_of(fd, sm));
    }
    if (!cx.failed()) result_ = std::move(out);
  }

 private:
  /// A file without programs compiles to its plain serial self: most likely the marker was
  /// forgotten, so say so rather than succeed silently.
  static void warn_no_programs(ASTContext& ast) {
    DiagnosticsEngine& diags = ast.getDiagnostics();
    const SourceManager& sm = ast.getSourceManager();
    unsigned id = diags.getCustomDiagID(DiagnosticsEngine::Warning,
                                        "no function in this file is marked SC_PROGRAM or SC_SPMD_PROGRAM; "
                                        "nothing is compiled for the target and the file runs as plain serial C++");
    diags.Report(sm.getLocForStartOfFile(sm.getMainFileID()), id);
  }

  /// Byte offsets of a program in the main file (programs in included files get none: 0, 0, 0).
  static ProgramSite site_of(const FunctionDecl* fd, const SourceManager& sm) {
    ProgramSite site;
    site.name = fd->getNameAsString();
    SourceLocation begin = sm.getExpansionLoc(fd->getSourceRange().getBegin());
    const Stmt* body = fd->getBody();
    SourceLocation lbrace = sm.getExpansionLoc(body->getBeginLoc());
    SourceLocation rbrace = sm.getExpansionLoc(body->getEndLoc());
    if (sm.getFileID(begin) != sm.getMainFileID() || sm.getFileID(rbrace) != sm.getMainFileID()) return site;
    unsigned line = sm.getSpellingLineNumber(begin);
    site.insert_at = sm.getFileOffset(sm.translateLineCol(sm.getMainFileID(), line, 1));
    site.body_begin = sm.getFileOffset(lbrace);
    site.body_end = sm.getFileOffset(rbrace) + 1;
    return site;
  }

 public:

 private:
  std::optional<FrontendResult>& result_;
  std::string source_;
};

class LowerAction : public ASTFrontendAction {
 public:
  LowerAction(std::optional<FrontendResult>& result, std::string source) : result_(result), source_(std::move(source)) {}
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance&, StringRef) override {
    return std::make_unique<LowerConsumer>(result_, source_);
  }

 private:
  std::optional<FrontendResult>& result_;
  std::string source_;
};

class LowerActionFactory : public tooling::FrontendActionFactory {
 public:
  LowerActionFactory(std::optional<FrontendResult>& result, std::string source) : result_(result), source_(std::move(source)) {}
  std::unique_ptr<FrontendAction> create() override { return std::make_unique<LowerAction>(result_, source_); }

 private:
  std::optional<FrontendResult>& result_;
  std::string source_;
};

/// The directory of the running executable (for an installed stencilc's relative paths).
std::string executable_dir() {
  std::string exe = llvm::sys::fs::getMainExecutable(nullptr, reinterpret_cast<void*>(&executable_dir));
  return exe.empty() ? std::string() : llvm::sys::path::parent_path(exe).str();
}

}  // namespace

std::string default_include_dir() {
  // An installed stencilc finds the header next to itself; a build-tree one in the sources.
  std::string installed = executable_dir() + "/../include";
  if (llvm::sys::fs::exists(installed + "/stencilc/stencilc.hpp")) return installed;
  return STENCILC_SOURCE_INCLUDE_DIR;
}

std::string default_resource_dir() { return STENCILC_CLANG_RESOURCE_DIR; }

std::optional<FrontendResult> lower_source(const tooling::CompilationDatabase& db, const std::string& source,
                                       const FrontendOptions& options) {
  tooling::ClangTool tool(db, {source});
  // Clang's diagnostics said what went wrong; ClangTool's "Error while processing" adds nothing.
  tool.setPrintErrorMessage(false);
  std::string include = options.include_dir.empty() ? default_include_dir() : options.include_dir;
  std::string resource = options.resource_dir.empty() ? default_resource_dir() : options.resource_dir;
  // Our defaults go first so that the user's own flags (e.g. -std=c++20) win.
  tool.appendArgumentsAdjuster(tooling::getInsertArgumentAdjuster(
      {"-std=c++17", "-D__STENCILC_FRONTEND__", "-isystem", include}, tooling::ArgumentInsertPosition::BEGIN));
  std::vector<std::string> tail = options.extra_args;
  tail.push_back("-resource-dir=" + resource);
  tail.push_back("-fsyntax-only");
  tail.push_back("-Wno-unused-command-line-argument");
  tool.appendArgumentsAdjuster(tooling::getInsertArgumentAdjuster(tail, tooling::ArgumentInsertPosition::END));
  std::optional<FrontendResult> result;
  LowerActionFactory factory(result, source);
  int rc = tool.run(&factory);
  if (rc != 0) return std::nullopt;
  return result;
}

std::optional<FrontendResult> lower_source(const std::string& source, const std::vector<std::string>& args,
                                       const FrontendOptions& options) {
  tooling::FixedCompilationDatabase db(".", args);
  return lower_source(db, source, options);
}

}  // namespace stencilc::frontend
