// Inner hash join: the build side (children[0]) ends its pipeline by inserting its rows into a
// chained hash table; the probe side (children[1]) looks each row up and continues the pipeline
// for every match. Entries hold the build keys and every build IU the plan reads later.
#include "codegen/translate/operator_translators.hpp"

namespace hyrax::codegen {

HashJoinTranslator::HashJoinTranslator(const plan::Operator& op, QueryTranslator& q) : Translator(op, q) {
  auto& j = static_cast<const plan::HashJoin&>(op);
  for (auto& k : j.keys) keyFields_.push_back(layout_.add(k.build->type.withNullable(false)));
  payload_ = j.child(0)->produced();
  for (auto* iu : payload_) payloadFields_.push_back(layout_.add(iu->type));
}

void HashJoinTranslator::produce() {
  slot_ = q_.newStateSlot();
  q_.atInit([this] {
    cg_.b.CreateStore(cg_.call("hyrax_rt_ht_create", {cg_.queryContext(), cg_.c32(layout_.size())}),
                      cg_.stateSlot(slot_));
  });
  children[0]->produce();
  children[1]->produce();
}

void HashJoinTranslator::consume(Translator& from) {
  if (&from == children[0].get())
    build();
  else
    probe();
}

HashJoinTranslator::Keys HashJoinTranslator::keys(bool buildSide) {
  auto& j = static_cast<const plan::HashJoin&>(op_);
  auto& b = cg_.b;
  Keys k;
  for (auto& key : j.keys) {
    k.values.push_back(q_.expr.compile(buildSide ? *key.build : *key.probe));
    llvm::Value* n = k.values.back().null;
    if (n) k.anyNull = k.anyNull ? b.CreateOr(k.anyNull, n) : n;
    llvm::Value* kh = q_.expr.hash(k.values.back());
    k.hash = k.hash ? q_.expr.combine(k.hash, kh) : kh;
  }
  if (!k.hash) k.hash = cg_.c64(0);  // no keys: a cross product, every row in one chain
  return k;
}

void HashJoinTranslator::build() {
  auto& b = cg_.b;
  auto [keys, anyNull, h] = this->keys(true);
  auto insert = [&] {
    llvm::Value* entry = cg_.call("hyrax_rt_ht_insert", {cg_.loadPtr(cg_.stateSlot(slot_)), h});
    for (size_t i = 0; i < keys.size(); ++i) layout_.store(cg_, entry, keyFields_[i], keys[i]);
    for (size_t i = 0; i < payload_.size(); ++i) layout_.store(cg_, entry, payloadFields_[i], q_.values.at(payload_[i]));
  };
  // A NULL key never equals anything: such rows cannot join.
  if (anyNull)
    cg_.If(b.CreateNot(anyNull), insert);
  else
    insert();
}

void HashJoinTranslator::probe() {
  auto& j = static_cast<const plan::HashJoin&>(op_);
  auto& b = cg_.b;
  auto [keys, anyNull, h] = this->keys(false);
  auto lookup = [&] {
    llvm::Value* head = q_.chainHead(cg_.loadPtr(cg_.stateSlot(slot_)), h);
    cg_.ForChain(head, [&](llvm::Value* entry) {
      cg_.cancelPoint();  // chains of equal keys (or a cross product's one chain) can be long
      llvm::Value* match = b.CreateICmpEQ(b.CreateLoad(cg_.i64(), cg_.gep(entry, 8)), h);
      cg_.If(match, [&] {
        llvm::Value* eq = cg_.cTrue();
        for (size_t i = 0; i < keys.size(); ++i) {
          SqlValue stored = layout_.load(cg_, entry, keyFields_[i]);
          SqlValue probeKey = keys[i];
          probeKey.null = nullptr;
          eq = b.CreateAnd(eq, q_.expr.compare(plan::CmpOp::Eq, stored, probeKey));
        }
        cg_.If(eq, [&] {
          for (size_t i = 0; i < payload_.size(); ++i) q_.values[payload_[i]] = layout_.load(cg_, entry, payloadFields_[i]);
          if (j.residual) {
            SqlValue r = q_.expr.compile(*j.residual);
            cg_.If(q_.expr.isTrue(r), [&] { emit(); });
          } else {
            emit();
          }
        });
      });
    });
  };
  if (anyNull)
    cg_.If(b.CreateNot(anyNull), lookup);
  else
    lookup();
}

}  // namespace hyrax::codegen
