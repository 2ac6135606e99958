// Window functions: f(...) OVER (PARTITION BY ... ORDER BY ... [frame]) in a select list or ORDER
// BY, over the SELECT's rows (after its GROUP BY and HAVING). Each call becomes a Sort by its
// partition and order keys that also computes the call's value for every row (plan::Sort::windows;
// codegen's window pass), so the optimizer needs no window operator. The Sort goes on top of the
// SELECT's rows, under its select list; a filter above the SELECT cannot be pushed below it (a
// Sort is a barrier to pushdown). Names, argument rules, result types and errors are PostgreSQL's.
#include "sql/semantic/select_binder.hpp"
#include "sql/semantic/type_rules.hpp"

namespace hyrax::sql {

using plan::Expr;
using plan::ExprPtr;
using plan::WindowFunc;

namespace {
// The name of the columns a Map under a window's Sort computes (its keys and arguments).
constexpr const char* kWindowArgument = "window_arg";

struct WindowName {
  const char* name;
  WindowFunc func;
  size_t minArgs, maxArgs;
};
constexpr WindowName kWindowFunctions[] = {
    {"row_number", WindowFunc::RowNumber, 0, 0}, {"rank", WindowFunc::Rank, 0, 0},
    {"dense_rank", WindowFunc::DenseRank, 0, 0}, {"percent_rank", WindowFunc::PercentRank, 0, 0},
    {"cume_dist", WindowFunc::CumeDist, 0, 0},   {"ntile", WindowFunc::Ntile, 1, 1},
    {"lag", WindowFunc::Lag, 1, 3},              {"lead", WindowFunc::Lead, 1, 3},
    {"first_value", WindowFunc::FirstValue, 1, 1}, {"last_value", WindowFunc::LastValue, 1, 1},
    {"nth_value", WindowFunc::NthValue, 2, 2},
};
}  // namespace

namespace {
// The call's frame, after PostgreSQL's checks of which bounds may meet.
void frameOf(const ast::Expr& e, plan::WindowCall& call) {
  using Kind = plan::WindowBound::Kind;
  if (e.windowFrame == 0) return;  // RANGE UNBOUNDED PRECEDING to CURRENT ROW
  const auto [start, startRows] = e.windowStart;
  const auto [end, endRows] = e.windowEnd;
  if (start == 4) throw Error("42P20", "frame start cannot be UNBOUNDED FOLLOWING", e.pos);
  if (end == 0) throw Error("42P20", "frame end cannot be UNBOUNDED PRECEDING", e.pos);
  if (start == 2 && end == 1) throw Error("42P20", "frame starting from current row cannot have preceding rows", e.pos);
  if (start == 3 && (end == 1 || end == 2))
    throw Error("42P20", "frame starting from following row cannot have preceding rows", e.pos);
  call.rows = e.windowFrame == 1;
  if (!call.rows && (start == 1 || start == 3 || end == 1 || end == 3))
    throw Error(sqlstate::FeatureNotSupported, "RANGE with an offset is not supported (ROWS is)", e.pos);
  call.start = {static_cast<Kind>(start), startRows};
  call.end = {static_cast<Kind>(end), endRows};
}
}  // namespace

ExprPtr SelectBinder::bindWindow(const ast::Expr& e, Clause clause) {
  if (clause == Clause::AggregateArg)
    throw Error(sqlstate::GroupingError, "aggregate function calls cannot contain window function calls", e.pos);
  if (inWindow_) throw Error("42P20", "window function calls cannot be nested", e.pos);
  if (clause != Clause::Select && clause != Clause::OrderBy)  // PostgreSQL's error, whatever the function
    throw Error("42P20", std::string("window functions are not allowed in ") + clauseName(clause), e.pos);
  const WindowName* known = nullptr;
  for (auto& w : kWindowFunctions)
    if (e.name == w.name) known = &w;
  const bool aggregate = isAggregateName(e.name);
  if (!known && !aggregate)
    throw Error("42809", "OVER specified, but " + e.name + " is not a window function nor an aggregate function", e.pos);
  if (aggregate && e.name != "count" && e.name != "sum" && e.name != "avg" && e.name != "min" && e.name != "max")
    throw Error(sqlstate::FeatureNotSupported, e.name + "() as a window function is not supported", e.pos);
  if (e.distinct) throw Error(sqlstate::FeatureNotSupported, "DISTINCT is not implemented for window functions", e.pos);
  if (e.filter && !aggregate)
    throw Error(sqlstate::FeatureNotSupported, "FILTER is not implemented for non-aggregate window functions", e.pos);
  if (!e.argumentOrder.empty())
    throw Error(sqlstate::FeatureNotSupported, "ORDER BY in a window function's arguments is not supported", e.pos);
  if (!input_)
    throw Error(sqlstate::FeatureNotSupported, "window functions are supported only in a query with FROM", e.pos);
  // Keys and arguments are values of the SELECT's rows: above its aggregation, if it has one
  // (sum(sum(x)) OVER (), rank() OVER (ORDER BY count(*))), which the window's Sort goes over.
  // Window calls inside them are refused (inWindow_).
  const Clause rowClause = Clause::Select;
  struct Nesting {
    bool& flag;
    explicit Nesting(bool& f) : flag(f) { flag = true; }
    ~Nesting() { flag = false; }
  } nesting(inWindow_);
  const size_t argCount = e.windowArgs - (e.filter ? 1 : 0);
  if (known && known->maxArgs == 0 && argCount > 0 && known->func != WindowFunc::RowNumber)  // rank(x) is an ordered-set aggregate
    throw Error("42809", "WITHIN GROUP is required for ordered-set aggregate " + e.name, e.pos);
  if (known && (e.star || argCount < known->minArgs || argCount > known->maxArgs))
    throw Error(sqlstate::UndefinedFunction,
                "function " + e.name + (known->maxArgs == 0 ? " takes no arguments"
                                        : known->minArgs == known->maxArgs
                                            ? " takes " + std::to_string(known->minArgs) + " argument" + (known->minArgs > 1 ? "s" : "")
                                            : " takes 1 to 3 arguments"),
                e.pos);
  if (aggregate && !(e.name == "count" && e.star) && (e.star || argCount != 1))
    throw Error(sqlstate::UndefinedFunction, "function " + e.name + " takes exactly one argument", e.pos);

  // The keys: PARTITION BY (a constant without it), then ORDER BY.
  std::vector<plan::SortKey> keys;
  if (e.windowPartitions == 0) keys.push_back({Expr::constant(Value::int32(0), e.pos), false, false});
  for (size_t i = 0; i < e.windowPartitions; ++i) {
    ExprPtr k = bindExpr(*e.args[e.windowArgs + i], rowClause);
    if (k->type.isArray()) throw Error(sqlstate::FeatureNotSupported, "PARTITION BY an array is not supported", e.pos);
    keys.push_back({std::move(k), false, false});
  }
  const size_t partitionKeys = keys.size();
  for (size_t i = 0; i < e.windowOrder.size(); ++i) {
    ExprPtr k = bindExpr(*e.args[e.windowArgs + e.windowPartitions + i], rowClause);
    if (k->type.isArray()) throw Error(sqlstate::FeatureNotSupported, "ORDER BY an array is not supported", e.pos);
    auto [descending, nullsFirst] = e.windowOrder[i];
    keys.push_back({std::move(k), descending, nullsFirst < 0 ? descending : nullsFirst == 1});
  }
  auto computed = std::make_unique<plan::Map>();  // keys and arguments that are no column: a Sort reads columns
  auto column = [&](ExprPtr k) -> ExprPtr {
    if (k->kind == plan::ExprKind::Column) return k;
    const plan::IU* iu = plan_.ius.make(k->type, kWindowArgument);
    computed->computed.push_back({iu, std::move(k)});
    return Expr::column(iu, e.pos);
  };
  // Calls over the same window share one Sort (one sort of the rows, one pass).
  plan::Sort* shared = sameWindowSort(keys, partitionKeys);
  std::unique_ptr<plan::Sort> sort;
  if (!shared) {
    sort = std::make_unique<plan::Sort>();
    for (auto& k : keys) sort->keys.push_back({column(std::move(k.expr)), k.descending, k.nullsFirst});
    sort->partitionKeys = partitionKeys;
  }

  plan::WindowCall call;
  frameOf(e, call);
  auto arg = [&](size_t i) { return bindExpr(*e.args[i], rowClause); };
  // An integer argument (ntile's count, lag's offset, nth_value's n) as a BIGINT.
  auto integer = [&](size_t i) {
    ExprPtr x = arg(i);
    if (x->type.isNull() || (x->kind == plan::ExprKind::Constant && x->type.isString()))  // a literal: read as a number
      x = castTo(std::move(x), SqlType::int64());
    if (!x->type.isInteger())
      throw Error(sqlstate::UndefinedFunction, "function " + e.name + " needs an integer, not " + x->type.name(), e.args[i]->pos);
    return castTo(std::move(x), SqlType::int64());
  };
  SqlType type;
  if (aggregate) {
    call.func = WindowFunc::Aggregate;
    call.aggregate = e.star ? plan::AggFunc::CountStar
                     : e.name == "count" ? plan::AggFunc::Count
                     : e.name == "sum" ? plan::AggFunc::Sum
                     : e.name == "avg" ? plan::AggFunc::Avg
                     : e.name == "min" ? plan::AggFunc::Min
                                       : plan::AggFunc::Max;
    ExprPtr x;
    if (!e.star) {
      x = arg(0);
      if (x->type.isNull()) x = castTo(std::move(x), SqlType::int32());
      if ((call.aggregate == plan::AggFunc::Sum || call.aggregate == plan::AggFunc::Avg) && !x->type.isNumeric())
        throw Error(sqlstate::UndefinedFunction, "function " + e.name + "(" + x->type.name() + ") does not exist", e.pos);
      if (call.aggregate == plan::AggFunc::Min || call.aggregate == plan::AggFunc::Max) {
        if (x->type.isArray())
          throw Error(sqlstate::FeatureNotSupported, "function " + e.name + "(" + x->type.name() + ") is not supported", e.pos);
        if (x->type.id == TypeId::Bool) throw Error(sqlstate::UndefinedFunction, "function " + e.name + "(BOOLEAN) does not exist", e.pos);
        x = minMaxArgument(std::move(x));
      }
    }
    if (e.filter) {  // agg(x) FILTER (WHERE p) OVER: agg(CASE WHEN p THEN x END), count(*) counting a 1
      ExprPtr condition = bindExpr(*e.args[e.windowArgs - 1], rowClause);
      if (condition->type.isNull()) condition = castTo(std::move(condition), SqlType::boolean());
      if (condition->type.id != TypeId::Bool)
        throw Error(sqlstate::DatatypeMismatch, "argument of FILTER must be type boolean, not type " + condition->type.name(),
                    e.args[e.windowArgs - 1]->pos);
      if (call.aggregate == plan::AggFunc::CountStar) {
        call.aggregate = plan::AggFunc::Count;
        x = Expr::constant(Value::int32(1), e.pos);
      }
      auto c = std::make_unique<Expr>(plan::ExprKind::Case, x->type.withNullable(true), e.pos);
      c->args.push_back(std::move(condition));
      c->args.push_back(std::move(x));
      x = std::move(c);
    }
    type = plan::aggregateResultType(call.aggregate, x ? x->type : SqlType::int64());
    if (x) call.args.push_back(column(std::move(x)));
  } else {
    call.func = known->func;
    switch (call.func) {
      case WindowFunc::RowNumber:
      case WindowFunc::Rank:
      case WindowFunc::DenseRank: type = SqlType::int64(false); break;
      case WindowFunc::PercentRank:
      case WindowFunc::CumeDist: type = SqlType::float64(false); break;
      case WindowFunc::Ntile:
        call.args.push_back(column(integer(0)));
        type = SqlType::int32(true);
        break;
      case WindowFunc::Lag:
      case WindowFunc::Lead: {
        ExprPtr x = arg(0);
        ExprPtr offset = argCount > 1 ? integer(1) : Expr::constant(Value::int64(1), e.pos);
        ExprPtr fallback = argCount > 2 ? arg(2) : Expr::constant(Value(), e.pos);
        // The value and the default meet at one type (PostgreSQL's anycompatible).
        if (x->type.isNull() && fallback->type.isNull()) x = castTo(std::move(x), SqlType::text());
        // A string literal default is read as the value's type (PostgreSQL's unknown literal).
        if (fallback->kind == plan::ExprKind::Constant && fallback->type.isString() && !x->type.isNull())
          fallback = castTo(std::move(fallback), x->type);
        std::optional<SqlType> common = fallback->type.isNull() ? x->type : commonType(x->type, fallback->type);
        if (!common)
          throw Error(sqlstate::UndefinedFunction,
                      "function " + e.name + "(" + x->type.name() + ", bigint, " + fallback->type.name() + ") does not exist", e.pos);
        type = common->withNullable(true);
        call.args.push_back(column(castTo(std::move(x), type)));
        call.args.push_back(column(std::move(offset)));
        call.args.push_back(column(castTo(std::move(fallback), type)));
        break;
      }
      case WindowFunc::FirstValue:
      case WindowFunc::LastValue:
      case WindowFunc::NthValue: {
        ExprPtr x = arg(0);
        if (x->type.isNull()) x = castTo(std::move(x), SqlType::text());
        type = x->type.withNullable(true);
        call.args.push_back(column(castTo(std::move(x), type)));
        if (call.func == WindowFunc::NthValue) call.args.push_back(column(integer(1)));
        break;
      }
      case WindowFunc::Aggregate: break;
    }
  }
  call.iu = plan_.ius.make(type, e.name);
  const plan::IU* value = call.iu;
  if (shared) {  // its new arguments are computed right under it
    shared->windows.push_back(std::move(call));
    if (!computed->computed.empty()) {
      computed->children.push_back(std::move(shared->children[0]));
      shared->children[0] = std::move(computed);
    }
    return Expr::column(value, e.pos);
  }
  sort->windows.push_back(std::move(call));
  if (!computed->computed.empty()) {
    computed->children.push_back(std::move(*input_));
    *input_ = std::move(computed);
  }
  sort->children.push_back(std::move(*input_));
  *input_ = std::move(sort);
  return Expr::column(value, e.pos);
}

// An earlier window call's Sort with these keys, found under the select list's input through the
// window Sorts and the Maps of their arguments; nullptr if none. A key the Sort reads as a column
// of the Map right under it is compared as that Map computes it.
plan::Sort* SelectBinder::sameWindowSort(const std::vector<plan::SortKey>& keys, size_t partitionKeys) {
  auto isArgumentMap = [](const plan::Operator& op) {
    if (op.kind != plan::OpKind::Map) return false;
    for (auto& c : static_cast<const plan::Map&>(op).computed)
      if (c.iu->name != kWindowArgument) return false;
    return true;
  };
  for (plan::Operator* op = input_->get(); op;) {
    if (isArgumentMap(*op)) {
      op = op->children[0].get();
      continue;
    }
    if (op->kind != plan::OpKind::Sort || static_cast<plan::Sort*>(op)->windows.empty()) return nullptr;
    auto* sort = static_cast<plan::Sort*>(op);
    const plan::Operator* below = sort->child();
    auto asComputed = [&](const Expr& k) -> const Expr& {
      if (k.kind == plan::ExprKind::Column && isArgumentMap(*below))
        for (auto& c : static_cast<const plan::Map&>(*below).computed)
          if (c.iu == k.iu) return *c.expr;
      return k;
    };
    bool same = sort->partitionKeys == partitionKeys && sort->keys.size() == keys.size();
    for (size_t i = 0; same && i < keys.size(); ++i)
      same = sort->keys[i].descending == keys[i].descending && sort->keys[i].nullsFirst == keys[i].nullsFirst &&
             plan::sameExpr(asComputed(*sort->keys[i].expr), *keys[i].expr);
    if (same) return sort;
    op = sort->children[0].get();
  }
  return nullptr;
}

}  // namespace hyrax::sql
