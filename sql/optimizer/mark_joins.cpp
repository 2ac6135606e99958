// Mark joins to semi and anti joins. The binder turns EXISTS and IN into a mark join that tells
// each row whether its subquery matched, so they may stand anywhere in an expression. Where the
// mark is a conjunct of the filter right above, the row is only wanted when it matched (a semi
// join) or, for a mark that cannot be NULL, when it did not (an anti join): those joins stop at
// the first match and pass no mark on.
#include "sql/optimizer/optimizer.hpp"

namespace hyrax::sql {

using namespace plan;

namespace {

bool readsOnly(const Expr& e, const IU* iu) { return e.kind == ExprKind::Column && e.iu == iu; }

}  // namespace

void simplifyMarkJoins(OperatorPtr& op) {
  for (auto& c : op->children) simplifyMarkJoins(c);
  if (op->kind != OpKind::Filter) return;
  auto& f = static_cast<Filter&>(*op);
  std::vector<ExprPtr> parts;
  splitConjuncts(std::move(f.predicate), parts);
  // The binder stacks the joins of one clause's subqueries on their left (preserved) sides.
  for (Operator* o = op->child(); o->kind == OpKind::Join; o = o->child(0)) {
    auto* j = static_cast<Join*>(o);
    if (j->kind != JoinKind::Mark) break;
    for (auto& p : parts) {
      if (!p) continue;
      bool semi = readsOnly(*p, j->mark);
      bool anti = p->kind == ExprKind::Not && readsOnly(*p->args[0], j->mark) && !j->mark->type.nullable;
      if (!semi && !anti) continue;
      // Only whether some row makes the whole condition TRUE matters now: one condition.
      j->kind = semi ? JoinKind::Semi : JoinKind::Anti;
      if (j->markCondition) {
        std::vector<ExprPtr> both;
        if (j->residual) both.push_back(std::move(j->residual));
        both.push_back(std::move(j->markCondition));
        j->residual = conjunction(std::move(both));
      }
      p.reset();
    }
  }
  std::vector<ExprPtr> rest;
  for (auto& p : parts)
    if (p) rest.push_back(std::move(p));
  if (rest.empty())
    op = std::move(op->children[0]);
  else
    f.predicate = conjunction(std::move(rest));
}

}  // namespace hyrax::sql
