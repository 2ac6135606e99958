// f(DISTINCT x): aggregation over a duplicate-free inner aggregation, one per DISTINCT argument.
#include <algorithm>
#include <cstdint>

#include "engine/util/stack_depth.hpp"
#include "sql/optimizer/optimizer.hpp"
#include "sql/semantic/dependent_join.hpp"
#include "sql/semantic/select_binder.hpp"
#include "sql/semantic/type_rules.hpp"

namespace hyrax::sql {

using plan::Expr;
using plan::ExprPtr;
using plan::OperatorPtr;

namespace {

// The operator slot under `root` that holds `op` (through first children: a subquery's join keeps
// the aggregation on its preserved side).
OperatorPtr* slotOf(OperatorPtr& root, const plan::Operator& op) {
  OperatorPtr* owner = &root;
  while (owner->get() != &op) owner = &(*owner)->children[0];
  return owner;
}

}  // namespace

void SelectBinder::splitDistinctArguments(OperatorPtr& root, plan::Aggregate& agg) {
  // The DISTINCT arguments, each once, and which of them each aggregate has (by pointer too:
  // nextval() is never the same expression as another nextval(), not even as itself).
  std::vector<const Expr*> arguments;
  std::vector<size_t> argumentOf(agg.aggregates.size(), SIZE_MAX);
  for (size_t i = 0; i < agg.aggregates.size(); ++i) {
    const auto& a = agg.aggregates[i];
    if (!a.distinct) continue;
    size_t j = 0;
    while (j < arguments.size() && arguments[j] != a.arg.get() && !plan::sameExpr(*arguments[j], *a.arg)) ++j;
    if (j == arguments.size()) arguments.push_back(a.arg.get());
    argumentOf[i] = j;
  }
  if (arguments.size() < 2) return;
  // count(DISTINCT x), sum(DISTINCT y) GROUP BY g: the aggregates of each further argument are
  // computed by an aggregation of their own over a copy of the input, joined to this one's
  // result on the group (NULL groups match; without GROUP BY each side is one row).
  if (plan::hasVolatileCall(*agg.children[0]))  // the copies would see other rows
    throw Error(sqlstate::FeatureNotSupported,
                "aggregates over DISTINCT values of several expressions over a volatile function (nextval, setval, a "
                "stored function) are not supported yet",
                agg.aggregates.front().arg ? agg.aggregates.front().arg->pos : SourcePos{});
  std::vector<OperatorPtr> branches;
  std::vector<std::vector<std::pair<const plan::IU*, const plan::IU*>>> groupPairs;
  std::vector<std::vector<plan::Aggregate::Agg>> taken(arguments.size());  // by argument, but the first
  std::vector<plan::Aggregate::Agg> kept;
  for (size_t i = 0; i < agg.aggregates.size(); ++i)
    (argumentOf[i] == SIZE_MAX || argumentOf[i] == 0 ? kept : taken[argumentOf[i]]).push_back(std::move(agg.aggregates[i]));
  agg.aggregates = std::move(kept);
  for (size_t x = 1; x < arguments.size(); ++x) {
    plan::IUMap copyOf;
    OperatorPtr input = plan::cloneWithFreshIUs(*agg.children[0], plan_.ius, copyOf);
    auto branch = std::make_unique<plan::Aggregate>();
    groupPairs.emplace_back();
    for (auto& g : agg.groups) {
      const plan::IU* iu = plan_.ius.make(g.iu->type, g.iu->name);
      ExprPtr e = g.expr->clone();
      plan::substituteIUs(e, copyOf);
      branch->groups.push_back({iu, std::move(e)});
      groupPairs.back().push_back({g.iu, iu});
    }
    for (auto& a : taken[x]) {
      plan::substituteIUs(a.arg, copyOf);
      branch->aggregates.push_back(std::move(a));
    }
    branch->children.push_back(std::move(input));
    OperatorPtr branchRoot = std::move(branch);
    splitDistinctAggregates(branchRoot, static_cast<plan::Aggregate&>(*branchRoot));
    branches.push_back(std::move(branchRoot));
  }
  // Join them above whatever the split of this one puts right above it (into the same slot).
  OperatorPtr* owner = slotOf(root, agg);
  splitDistinctAggregates(root, agg);
  for (size_t i = 0; i < branches.size(); ++i) {
    auto join = std::make_unique<plan::Join>();
    std::vector<ExprPtr> cond;
    for (auto& [mine, theirs] : groupPairs[i]) cond.push_back(nullSafeEquals(mine, theirs));
    join->residual = conjunction(std::move(cond));
    join->children.push_back(std::move(*owner));
    join->children.push_back(std::move(branches[i]));
    *owner = std::move(join);
  }
}

void SelectBinder::splitDistinctAggregates(OperatorPtr& root, plan::Aggregate& agg) {
  splitDistinctArguments(root, agg);
  const plan::Aggregate::Agg* first = nullptr;
  for (auto& a : agg.aggregates)
    if (a.distinct) first = &a;
  if (!first) return;
  // f(DISTINCT x) GROUP BY g  =  f(x) GROUP BY g over (GROUP BY g, x): the inner aggregation
  // removes the duplicates. Plain aggregates beside it are computed in two steps: partial
  // results per (g, x) inside, combined per g outside (counts and sums add up, min of mins, max
  // of maxes; avg is the sum of sums over the sum of counts, computed above the aggregation).
  auto inner = std::make_unique<plan::Aggregate>();
  for (auto& g : agg.groups) {
    const plan::IU* iu = plan_.ius.make(g.expr->type, g.iu->name);
    inner->groups.push_back({iu, std::move(g.expr)});
    g.expr = Expr::column(iu);
  }
  const plan::IU* x = plan_.ius.make(first->arg->type, "distinct");
  inner->groups.push_back({x, first->arg->clone()});
  auto partial = [&](plan::AggFunc f, const ExprPtr& arg) {
    SqlType t = plan::aggregateResultType(f, arg ? arg->type : SqlType::int64());
    const plan::IU* iu = plan_.ius.make(t, plan::toString(f));
    inner->aggregates.push_back({f, arg ? arg->clone() : nullptr, iu});
    return iu;
  };
  auto finish = std::make_unique<plan::Map>();  // averages, and counts of empty input
  std::vector<plan::Aggregate::Agg> combined;
  for (auto& a : agg.aggregates) {
    if (a.distinct) {
      combined.push_back({a.func, Expr::column(x), a.iu});
      continue;
    }
    switch (a.func) {
      case plan::AggFunc::CountStar:
      case plan::AggFunc::Count: {
        // Groups of a GROUP BY are never empty, so the sum of their counts is never NULL, as a
        // count must not be. Without GROUP BY, empty input still makes one row: its count is 0.
        const plan::IU* partialCount = partial(a.func, a.arg);
        if (!agg.groups.empty()) {
          combined.push_back({plan::AggFunc::Sum, Expr::column(partialCount), a.iu});
          break;
        }
        const plan::IU* counts = plan_.ius.make(SqlType::int64(true), "count");
        combined.push_back({plan::AggFunc::Sum, Expr::column(partialCount), counts});
        std::vector<ExprPtr> arms;
        arms.push_back(makeIsNull(Expr::column(counts), true, SourcePos{}));
        arms.push_back(Expr::column(counts));
        arms.push_back(Expr::constant(Value::int64(0)));
        finish->computed.push_back({a.iu, castTo(makeCase(std::move(arms), true, SourcePos{}), a.iu->type)});
        break;
      }
      case plan::AggFunc::Sum:
      case plan::AggFunc::Min:
      case plan::AggFunc::Max: combined.push_back({a.func, Expr::column(partial(a.func, a.arg)), a.iu}); break;
      case plan::AggFunc::ArrayAgg:  // its partial arrays would need an aggregate that concatenates
        throw Error(sqlstate::FeatureNotSupported, "array_agg or string_agg beside an aggregate of DISTINCT values is not supported",
                    a.arg ? a.arg->pos : SourcePos{});
      case plan::AggFunc::VarSamp:  // partial states would need an aggregate that merges them
      case plan::AggFunc::VarPop:
      case plan::AggFunc::StddevSamp:
      case plan::AggFunc::StddevPop:
        throw Error(sqlstate::FeatureNotSupported,
                    std::string(plan::toString(a.func)) + " beside an aggregate of DISTINCT values is not supported",
                    a.arg ? a.arg->pos : SourcePos{});
      case plan::AggFunc::Avg: {
        const plan::IU* sum = partial(plan::AggFunc::Sum, a.arg);
        const plan::IU* count = partial(plan::AggFunc::Count, a.arg);
        const plan::IU* sums = plan_.ius.make(plan::aggregateResultType(plan::AggFunc::Sum, sum->type), "sum");
        const plan::IU* counts = plan_.ius.make(SqlType::int64(true), "count");
        combined.push_back({plan::AggFunc::Sum, Expr::column(sum), sums});
        combined.push_back({plan::AggFunc::Sum, Expr::column(count), counts});
        // avg's own type: 16- and 32-bit integers and DECIMALs divide as DECIMAL (scale max(6, s)),
        // BIGINTs and floats as doubles (aggregateResultType).
        ExprPtr num = Expr::column(sums);
        if (a.iu->type.isFloat()) num = castTo(std::move(num), SqlType::float64(true));
        else if (sums->type.isInteger()) num = castTo(std::move(num), SqlType::decimal(18, 0, true));
        ExprPtr den = Expr::column(counts);
        den = castTo(std::move(den), num->type.isFloat() ? SqlType::float64(true) : SqlType::decimal(18, 0, true));
        ExprPtr avg = makeArith(plan::ArithOp::Div, std::move(num), std::move(den), a.arg->pos);
        finish->computed.push_back({a.iu, castTo(std::move(avg), a.iu->type)});
        break;
      }
    }
  }
  agg.aggregates = std::move(combined);
  inner->children.push_back(std::move(agg.children[0]));
  agg.children[0] = std::move(inner);
  if (finish->computed.empty()) return;
  // These sit right above the aggregation, below whatever reads them.
  OperatorPtr* owner = slotOf(root, agg);
  finish->children.push_back(std::move(*owner));
  *owner = std::move(finish);
}

void SelectBinder::splitCopiedDistinctAggregates(OperatorPtr& root) {
  checkStackDepth();
  for (auto& c : root->children) splitCopiedDistinctAggregates(c);
  if (root->kind != plan::OpKind::Aggregate) return;
  auto& agg = static_cast<plan::Aggregate&>(*root);
  if (std::any_of(agg.aggregates.begin(), agg.aggregates.end(), [](const auto& a) { return a.distinct; }))
    splitDistinctAggregates(root, agg);
}

}  // namespace hyrax::sql
