// User words for the Clang nodes and conversions a diagnostic names: users write C++, not
// Clang's AST, so "default arguments are not supported", never "CXXDefaultArgExpr".
#include "frontend/Lowering.h"

#include <clang/AST/ExprCXX.h>
#include <clang/AST/StmtCXX.h>

#include <cctype>
#include <cstring>
#include <utility>

namespace stencilc::frontend {

using namespace clang;

namespace {

/// The words a Clang class name spells, plural: "OpaqueValueExpr" -> "opaque value expressions",
/// "PointerToBooleanConversion" -> "pointer to boolean conversions". The fallback for the nodes
/// the tables below leave out, so that no Clang class name reaches a user.
std::string words_of(std::string name) {
  for (const char* prefix : {"CXX", "MS", "SEH", "OMP"}) {
    if (name.rfind(prefix, 0) == 0 && name.size() > std::strlen(prefix)) name = name.substr(std::strlen(prefix));
  }
  static const std::pair<const char*, const char*> kinds[] = {{"Expr", "expressions"},
                                                               {"Stmt", "statements"},
                                                               {"Operator", "operators"},
                                                               {"Literal", "literals"},
                                                               {"Conversion", "conversions"}};
  std::string kind = "constructs";
  for (const auto& [suffix, plural] : kinds) {
    size_t n = std::strlen(suffix);
    if (name.size() > n && name.compare(name.size() - n, n, suffix) == 0) {
      name.resize(name.size() - n);
      kind = plural;
      break;
    }
  }
  std::string out;
  for (size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    if (std::isupper((unsigned char)c) && i > 0) out += ' ';
    out += (char)std::tolower((unsigned char)c);
  }
  return out + " " + kind;
}

}  // namespace

std::string construct_name(const Stmt* s) {
  switch (s->getStmtClass()) {
    case Stmt::CXXDefaultArgExprClass: return "default arguments";
    case Stmt::CXXDefaultInitExprClass: return "default member initializers";
    case Stmt::CharacterLiteralClass: return "character literals";
    case Stmt::StringLiteralClass: return "string literals";
    case Stmt::UserDefinedLiteralClass: return "user-defined literals";
    case Stmt::ImaginaryLiteralClass: return "imaginary literals";
    case Stmt::FixedPointLiteralClass: return "fixed-point literals";
    case Stmt::CXXNullPtrLiteralExprClass:
    case Stmt::GNUNullExprClass: return "null pointers";
    case Stmt::CXXThisExprClass: return "uses of 'this'";
    case Stmt::MemberExprClass: return "member accesses (a.x, p->x)";
    case Stmt::CompoundAssignOperatorClass: return "compound assignments (+=, -=, ...) used as a value";
    case Stmt::CXXNewExprClass: return "new expressions";
    case Stmt::CXXDeleteExprClass: return "delete expressions";
    case Stmt::CXXThrowExprClass: return "throw expressions";
    case Stmt::CXXTypeidExprClass: return "typeid expressions";
    case Stmt::UnaryExprOrTypeTraitExprClass: return "sizeof and alignof";
    case Stmt::InitListExprClass:
    case Stmt::CXXStdInitializerListExprClass: return "initializer lists";
    case Stmt::DesignatedInitExprClass: return "designated initializers";
    case Stmt::CompoundLiteralExprClass: return "compound literals";
    case Stmt::CXXConstructExprClass:
    case Stmt::CXXTemporaryObjectExprClass: return "constructor calls";
    case Stmt::CXXScalarValueInitExprClass:
    case Stmt::ImplicitValueInitExprClass: return "value-initializations (T())";
    case Stmt::StmtExprClass: return "statement expressions";
    case Stmt::PredefinedExprClass: return "predefined names such as __func__";
    case Stmt::VAArgExprClass: return "va_arg expressions";
    case Stmt::AddrLabelExprClass: return "label addresses";
    case Stmt::BinaryConditionalOperatorClass: return "'a ?: b' expressions";
    case Stmt::CXXFoldExprClass: return "fold expressions";
    case Stmt::SizeOfPackExprClass: return "sizeof... expressions";
    case Stmt::CoawaitExprClass:
    case Stmt::CoyieldExprClass:
    case Stmt::CoreturnStmtClass:
    case Stmt::CoroutineBodyStmtClass: return "coroutines";
    case Stmt::AtomicExprClass: return "atomic builtins";
    case Stmt::ChooseExprClass: return "__builtin_choose_expr calls";
    case Stmt::ShuffleVectorExprClass:
    case Stmt::ConvertVectorExprClass: return "vector builtins";
    case Stmt::CXXPseudoDestructorExprClass: return "destructor calls";
    case Stmt::RequiresExprClass: return "requires expressions";
    case Stmt::ConceptSpecializationExprClass: return "concept checks";
    case Stmt::AttributedStmtClass: return "attributed statements";
    case Stmt::IndirectGotoStmtClass: return "computed gotos";
    case Stmt::CaseStmtClass:
    case Stmt::DefaultStmtClass: return "case labels";
    case Stmt::SEHTryStmtClass:
    case Stmt::SEHLeaveStmtClass: return "structured exception handling";
    case Stmt::CapturedStmtClass: return "captured statements";
    default: return words_of(s->getStmtClassName());
  }
}

std::string conversion_name(CastKind kind) {
  switch (kind) {
    case CK_BaseToDerived:
    case CK_DerivedToBase:
    case CK_UncheckedDerivedToBase:
    case CK_Dynamic: return "conversions between classes";
    case CK_UserDefinedConversion: return "user-defined conversions";
    case CK_ToVoid: return "casts to void";
    case CK_FunctionToPointerDecay: return "function pointers";
    case CK_NullToPointer:
    case CK_NullToMemberPointer: return "null pointers";
    case CK_FloatingComplexCast:
    case CK_FloatingRealToComplex:
    case CK_FloatingComplexToReal:
    case CK_IntegralComplexCast:
    case CK_IntegralRealToComplex:
    case CK_IntegralComplexToReal: return "complex numbers";
    case CK_LValueBitCast:
    case CK_LValueToRValueBitCast: return "reinterpreting casts";
    default: return words_of(std::string(CastExpr::getCastKindName(kind)) + "Conversion");
  }
}

}  // namespace stencilc::frontend
