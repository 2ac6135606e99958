// nextval('s'), currval('s'), setval('s', n [, is_called]): the sequence is looked up here, once,
// and the plan holds it; the value is taken when the code runs, each time (prepared statements
// and procedures run the same code many times), never folded into a constant.
#include <cctype>

#include "engine/catalog/catalog.hpp"
#include "engine/types/text_format.hpp"
#include "sql/optimizer/constant_folding.hpp"
#include "sql/semantic/select_binder.hpp"
#include "sql/semantic/type_rules.hpp"

namespace hyrax::sql {

using plan::Expr;
using plan::ExprKind;
using plan::ExprPtr;

namespace {

// PostgreSQL's regclass text: an unquoted name is lower-cased, a "quoted" one kept as written.
std::string relationName(const std::string& text) {
  if (text.size() >= 2 && text.front() == '"' && text.back() == '"') return text.substr(1, text.size() - 2);
  return hyrax::text::lowerAscii(text);
}

}  // namespace

ExprPtr SelectBinder::bindSequenceFunction(const ast::Expr& e, Clause clause) {
  plan::SequenceOp op;
  if (e.name == "nextval") op = plan::SequenceOp::NextVal;
  else if (e.name == "currval") op = plan::SequenceOp::CurrVal;
  else if (e.name == "setval") op = plan::SequenceOp::SetVal;
  else return nullptr;
  size_t lo = op == plan::SequenceOp::SetVal ? 2 : 1, hi = op == plan::SequenceOp::SetVal ? 3 : 1;
  if (e.star || e.distinct || e.args.size() < lo || e.args.size() > hi || !e.table.empty())
    throw Error(sqlstate::UndefinedFunction, "function " + e.name + " with " + std::to_string(e.args.size()) +
                                                 " arguments does not exist", e.pos);
  ExprPtr name = foldConstants(bindExpr(*e.args[0], clause));
  if (name->kind != ExprKind::Constant || !name->type.isString() || name->value.isNull())
    throw Error(sqlstate::FeatureNotSupported, e.name + "() takes the sequence's name as a string constant", e.args[0]->pos);
  std::string seqName = relationName(name->value.asString());
  auto sequence = catalog_.findSequence(seqName);
  if (!sequence) {
    if (catalog_.nameTaken(seqName))
      throw Error(sqlstate::WrongObjectType, "\"" + seqName + "\" is not a sequence", e.args[0]->pos);
    throw Error(sqlstate::UndefinedTable, "relation \"" + seqName + "\" does not exist", e.args[0]->pos);
  }
  bool nullable = false;
  std::vector<ExprPtr> args;
  if (op == plan::SequenceOp::SetVal) {
    ExprPtr value = bindExpr(*e.args[1], clause);
    if (value->type.isNull()) value = castTo(std::move(value), SqlType::int64());
    if (!value->type.isInteger())
      throw Error(sqlstate::UndefinedFunction, "function setval(unknown, " + value->type.name() + ") does not exist", e.pos);
    nullable = value->type.nullable;
    args.push_back(castTo(std::move(value), SqlType::int64(nullable)));
    ExprPtr called = e.args.size() == 3 ? bindExpr(*e.args[2], clause) : Expr::constant(Value::boolean(true));
    if (called->type.isNull()) called = castTo(std::move(called), SqlType::boolean());
    if (called->type.id != TypeId::Bool)
      throw Error(sqlstate::UndefinedFunction, "function setval(unknown, bigint, " + called->type.name() + ") does not exist", e.pos);
    nullable = nullable || called->type.nullable;
    args.push_back(std::move(called));
  }
  auto x = std::make_unique<Expr>(ExprKind::SequenceCall, SqlType::int64(nullable), e.pos);
  x->sequenceOp = op;
  x->sequence = std::move(sequence);
  x->args = std::move(args);
  return x;
}

}  // namespace hyrax::sql
