// Operators that stay inside a pipeline: Filter, Map, Limit and UnionAll.
#include "codegen/translate/operator_translators.hpp"

namespace hyrax::codegen {

void FilterTranslator::consume(Translator&) {
  auto& f = static_cast<const plan::Filter&>(op_);
  SqlValue cond = q_.expr.compile(*f.predicate);
  cg_.If(q_.expr.isTrue(cond), [&] { emit(); });
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
  slot_ = q_.newStateSlot();
  q_.atInit([this] {
    llvm::Value* buf = cg_.checkNotNull(cg_.call("hyrax_rt_buf_create", {cg_.queryContext(), cg_.c32(8)}));
    cg_.b.CreateStore(cg_.checkNotNull(cg_.call("hyrax_rt_buf_append", {cg_.queryContext(), buf})), cg_.stateSlot(slot_));
  });
  children[0]->produce();
}

void LimitTranslator::consume(Translator&) {
  auto& l = static_cast<const plan::Limit&>(op_);
  q_.serialOnly();  // one count of the rows, in the input's order
  auto& b = cg_.b;
  llvm::Value* counter = cg_.loadPtr(cg_.stateSlot(slot_));
  llvm::Value* n = b.CreateLoad(cg_.i64(), counter);
  uint64_t stop = l.limit == UINT64_MAX ? UINT64_MAX : l.offset + l.limit;
  if (stop != UINT64_MAX) cg_.If(b.CreateICmpUGE(n, cg_.c64(stop)), [&] { cg_.returnEarly(); });
  b.CreateStore(b.CreateAdd(n, cg_.c64(1)), counter);
  if (l.offset)
    cg_.If(b.CreateICmpUGE(n, cg_.c64(l.offset)), [&] { emit(); });
  else
    emit();
}

}  // namespace hyrax::codegen
