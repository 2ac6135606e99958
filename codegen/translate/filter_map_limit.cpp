// Operators that stay inside a pipeline: Filter, Map, Limit and UnionAll.
#include "codegen/translate/operator_translators.hpp"
#include "engine/runtime/runtime.hpp"

namespace hyrax::codegen {

void FilterTranslator::conjuncts(const plan::Expr& e, std::vector<const plan::Expr*>& out) {
  if (e.kind != plan::ExprKind::And) {
    out.push_back(&e);
    return;
  }
  for (auto& a : e.args) conjuncts(*a, out);
}

void FilterTranslator::consume(Translator&) {
  auto& f = static_cast<const plan::Filter&>(op_);
  if (decidedBelow.empty()) {
    SqlValue cond = q_.expr.compile(*f.predicate);
    cg_.If(q_.expr.isTrue(cond), [&] { emit(); });
    return;
  }
  // An AND is true when each conjunct is (three-valued logic too): the rest of them, each
  // evaluated (as the AND would have: no short circuit).
  std::vector<const plan::Expr*> all;
  conjuncts(*f.predicate, all);
  llvm::Value* pass = nullptr;
  for (const plan::Expr* c : all) {
    if (std::find(decidedBelow.begin(), decidedBelow.end(), c) != decidedBelow.end()) continue;
    llvm::Value* t = q_.expr.isTrue(q_.expr.compile(*c));
    pass = pass ? cg_.b.CreateAnd(pass, t) : t;
  }
  if (!pass) return emit();
  cg_.If(pass, [&] { emit(); });
}

void MapTranslator::consume(Translator&) {
  auto& m = static_cast<const plan::Map&>(op_);
  for (auto& c : m.computed) {
    SqlValue v = q_.expr.compile(*c.expr);
    v.type.nullable = c.iu->type.nullable;
    q_.values[c.iu] = v;
  }
  emit();
}

namespace {

// Whether e's value is the same wherever in the query it is computed, and computing it has no
// effect but maybe an error: constants and parameters, casts and arithmetic of them.
bool sameEverywhere(const plan::Expr& e) {
  using plan::ExprKind;
  if (e.kind != ExprKind::Constant && e.kind != ExprKind::Parameter && e.kind != ExprKind::Cast &&
      e.kind != ExprKind::Arith && e.kind != ExprKind::Negate)
    return false;
  for (auto& a : e.args)
    if (!a || !sameEverywhere(*a)) return false;
  return true;
}

// generate_series' element count from its (start, stop) arguments: 0 when either is NULL or
// start > stop.
llvm::Value* seriesCount(CodeGen& cg, ExprCompiler& expr, const std::vector<SqlValue>& args) {
  auto& b = cg.b;
  for (const SqlValue& a : args)
    if (a.type.isNull()) return cg.c64(0);
  SqlValue start = expr.cast(args[0], SqlType::int64(false)), stop = expr.cast(args[1], SqlType::int64(false));
  llvm::Value* count = b.CreateSelect(b.CreateICmpSLE(start.v, stop.v), b.CreateAdd(b.CreateSub(stop.v, start.v), cg.c64(1)), cg.c64(0));
  for (const SqlValue& a : args)
    if (a.null) count = b.CreateSelect(a.null, cg.c64(0), count);
  return count;
}

}  // namespace

void ExpandTranslator::produce() {
  auto& x = static_cast<const plan::Expand&>(op_);
  const auto* values = x.children[0]->kind == plan::OpKind::Values ? static_cast<const plan::Values*>(x.children[0].get()) : nullptr;
  bool series = x.function == plan::Expand::Function::GenerateSeries && x.args.size() == 2 && values && values->rows.size() == 1;
  for (auto& a : x.args) series = series && sameEverywhere(*a);
  if (series)
    for (auto& v : values->rows[0]) series = series && sameEverywhere(*v);
  if (series) {
    countSlot_ = q_.newStateSlot();
    q_.atInit([this, &x] {
      std::vector<SqlValue> args;
      for (auto& a : x.args) args.push_back(q_.expr.compile(*a));
      cg_.b.CreateStore(seriesCount(cg_, q_.expr, args), cg_.stateSlot(countSlot_));
    });
  }
  children[0]->produce();
}

void ExpandTranslator::consume(Translator&) {
  auto& x = static_cast<const plan::Expand&>(op_);
  auto& b = cg_.b;
  std::vector<SqlValue> args;
  for (auto& a : x.args) args.push_back(q_.expr.compile(*a));
  if (x.function == plan::Expand::Function::GenerateSeries) {
    // Its elements [from, to): all of them, or as the series' pipeline source the morsel's, of
    // the count query_init made (the whole series when a procedure calls the pipeline: 0, 2^64 - 1).
    llvm::Value* start = args[0].type.isNull() ? cg_.c64(0) : q_.expr.cast(args[0], SqlType::int64(false)).v;
    llvm::Value *from = cg_.c64(0), *to = nullptr;
    if (countSlot_) {
      q_.morselsOver(MorselSource::Series, nullptr, countSlot_);
      llvm::Value* count = b.CreateLoad(cg_.i64(), cg_.stateSlot(countSlot_));
      from = cg_.arg(2);
      to = b.CreateSelect(b.CreateICmpULT(cg_.arg(3), count), cg_.arg(3), count);
    } else {
      to = seriesCount(cg_, q_.expr, args);
    }
    cg_.ForRange(from, to, [&](llvm::Value* k) {
      cg_.cancelPoint();
      SqlValue v;
      v.type = x.iu->type;
      v.v = b.CreateAdd(start, k);
      if (v.type.id == TypeId::Int32) v.v = b.CreateTrunc(v.v, cg_.i32());
      q_.values[x.iu] = v;
      emit();
    });
    return;
  }
  llvm::Value* null = nullptr;  // a NULL argument: no rows
  for (const SqlValue& a : args) {
    if (a.type.isNull()) null = cg_.cTrue();
    else if (a.null) null = null ? b.CreateOr(null, a.null) : a.null;
  }
  auto rows = [&] {
    auto [lo, hi] = q_.expr.safeString(args[0]);
    auto* count = cg_.local(cg_.i32(), "elements");
    b.CreateStore(cg_.c32(0), count);
    cg_.checkStatus(cg_.call("hyrax_rt_array_count", {cg_.queryContext(), lo, hi, count}));
    llvm::Value* n = b.CreateZExt(b.CreateLoad(cg_.i32(), count), cg_.i64());
    cg_.ForRange(cg_.c64(0), n, [&](llvm::Value* k) {
      cg_.cancelPoint();
      auto* out = cg_.localStringOut("element");
      auto* isNull = cg_.local(cg_.i8(), "element_null");
      b.CreateStore(cg_.c8(1), isNull);
      cg_.checkStatus(cg_.call("hyrax_rt_array_element",
                               {cg_.queryContext(), lo, hi, b.CreateAdd(k, cg_.c64(1)), out, isNull}));
      SqlValue text;
      text.type = SqlType::text(true);
      cg_.loadStringOut(out, text);
      text.null = b.CreateICmpNE(b.CreateLoad(cg_.i8(), isNull), cg_.c8(0));
      SqlValue v = q_.expr.cast(text, x.iu->type);
      v.type.nullable = true;
      q_.values[x.iu] = v;
      if (x.ordinality) {
        SqlValue n;
        n.type = x.ordinality->type;
        n.v = b.CreateTrunc(b.CreateAdd(k, cg_.c64(1)), cg_.i32());
        q_.values[x.ordinality] = n;
      }
      emit();
    });
  };
  if (null)
    cg_.If(b.CreateNot(null), rows);
  else
    rows();
}

void UnionAllTranslator::consume(Translator& from) {
  auto& u = static_cast<const plan::UnionAll&>(op_);
  size_t c = 0;
  while (children[c].get() != &from) ++c;
  for (size_t i = 0; i < u.columns.size(); ++i) {
    SqlValue v = q_.values.at(u.inputs[c][i]);
    v.type.nullable = u.columns[i]->type.nullable;
    q_.values[u.columns[i]] = v;
  }
  emit();
}

void LimitTranslator::produce() {
  auto& l = static_cast<const plan::Limit&>(op_);
  slot_ = q_.newStateSlot();
  q_.atInit([this, &l] {
    auto& b = cg_.b;
    // The row counter; with LIMIT/OFFSET of parameters also the offset and where to stop, worked
    // out once here from the parameters' values.
    const bool runTime = l.runTimeCount();
    llvm::Value* buf = cg_.checkNotNull(cg_.call("hyrax_rt_buf_create", {cg_.queryContext(), cg_.c32(runTime ? 24 : 8)}));
    llvm::Value* row = cg_.checkNotNull(cg_.call("hyrax_rt_buf_append", {cg_.queryContext(), buf}));
    b.CreateStore(row, cg_.stateSlot(slot_));
    if (!runTime) return;
    // A count's value: NULL is `none`; a negative one is the statement's error.
    auto count = [&](const plan::ExprPtr& e, uint64_t constant, uint64_t none, int32_t negative) -> llvm::Value* {
      if (!e) return cg_.c64(constant);
      SqlValue v = q_.expr.compile(*e);
      llvm::Value* x = v.v;
      llvm::Value* below = b.CreateICmpSLT(x, cg_.c64(0));
      if (v.null) {
        below = b.CreateAnd(b.CreateNot(v.null), below);
        x = b.CreateSelect(v.null, cg_.c64(none), x);
      }
      cg_.raiseIf(below, negative);
      return x;
    };
    llvm::Value* offset = count(l.offsetExpr, l.offset, 0, HYRAX_ERR_NEGATIVE_OFFSET);
    llvm::Value* limit = count(l.limitExpr, l.limit, UINT64_MAX, HYRAX_ERR_NEGATIVE_LIMIT);
    // offset + limit, or "never" when there is no limit or the sum passes 2^64 - 1.
    llvm::Value* sum = b.CreateAdd(offset, limit);
    llvm::Value* stop = b.CreateSelect(b.CreateICmpULT(sum, offset), cg_.c64(UINT64_MAX), sum);
    stop = b.CreateSelect(b.CreateICmpEQ(limit, cg_.c64(UINT64_MAX)), cg_.c64(UINT64_MAX), stop);
    b.CreateStore(offset, b.CreateConstGEP1_64(cg_.i64(), row, 1));
    b.CreateStore(stop, b.CreateConstGEP1_64(cg_.i64(), row, 2));
  });
  children[0]->produce();
}

void LimitTranslator::consume(Translator&) {
  auto& l = static_cast<const plan::Limit&>(op_);
  q_.serialOnly();  // one count of the rows, in the input's order
  auto& b = cg_.b;
  llvm::Value* counter = cg_.loadPtr(cg_.stateSlot(slot_));
  llvm::Value* n = b.CreateLoad(cg_.i64(), counter);
  if (l.runTimeCount()) {
    llvm::Value* offset = b.CreateLoad(cg_.i64(), b.CreateConstGEP1_64(cg_.i64(), counter, 1));
    llvm::Value* stop = b.CreateLoad(cg_.i64(), b.CreateConstGEP1_64(cg_.i64(), counter, 2));
    cg_.If(b.CreateICmpUGE(n, stop), [&] { cg_.returnEarly(); });
    b.CreateStore(b.CreateAdd(n, cg_.c64(1)), counter);
    cg_.If(b.CreateICmpUGE(n, offset), [&] { emit(); });
    return;
  }
  uint64_t stop = l.limit == UINT64_MAX ? UINT64_MAX : l.offset + l.limit;
  if (stop != UINT64_MAX) cg_.If(b.CreateICmpUGE(n, cg_.c64(stop)), [&] { cg_.returnEarly(); });
  b.CreateStore(b.CreateAdd(n, cg_.c64(1)), counter);
  if (l.offset)
    cg_.If(b.CreateICmpUGE(n, cg_.c64(l.offset)), [&] { emit(); });
  else
    emit();
}

}  // namespace hyrax::codegen
