#include "codegen/translate/translator.hpp"

#include <algorithm>

#include "codegen/translate/operator_translators.hpp"
#include "engine/runtime/runtime.hpp"

namespace hyrax::codegen {

Translator::Translator(const plan::Operator& op, QueryTranslator& q) : q_(q), cg_(q.cg), op_(op) {}

void Translator::emit(llvm::Value* countIf) {
  if (q_.countRows) countRows(countIf ? cg_.b.CreateZExt(countIf, cg_.i64()) : cg_.c64(1));
  parent->consume(*this);
}

void Translator::countRows(llvm::Value* n) {
  if (!q_.countRows) return;
  auto& b = cg_.b;
  llvm::Value* counters = cg_.loadPtr(cg_.stateSlot(0));
  llvm::Value* slot = b.CreateConstInBoundsGEP1_64(cg_.i64(), counters, op_.id);
  b.CreateStore(b.CreateAdd(b.CreateLoad(cg_.i64(), slot), n), slot);
}

QueryTranslator::QueryTranslator(CodeGen& c, bool count) : cg(c), countRows(count) {}

void QueryTranslator::generateInit(const std::string& name) {
  cg.beginFunction(name);
  markColdIf(0);  // runs once
  for (auto& gen : initCode_) gen();
  cg.endFunction();
}

void QueryTranslator::beginPipeline(double rows) {
  PipelineInfo info;
  info.function = cg.uniqueName("pipeline");
  info.rows = rows;
  cg.beginFunction(info.function);
  markColdIf(info.rows);
  pipelines_.push_back(std::move(info));
}

void QueryTranslator::forEachBufferRow(uint32_t slot, const std::function<void(llvm::Value* row)>& body) {
  morselsOver(MorselSource::BufferRows, nullptr, slot);
  llvm::Value* buf = cg.loadPtr(cg.stateSlot(slot));
  llvm::Value* n = cg.call("hyrax_rt_buf_count", {buf});
  llvm::Value* end = cg.b.CreateSelect(cg.b.CreateICmpULT(cg.arg(3), n), cg.arg(3), n);
  cg.ForRange(cg.arg(2), end, [&](llvm::Value* i) { body(cg.call("hyrax_rt_buf_row", {buf, i})); });
}

void QueryTranslator::endPipeline() {
  // A call of a runtime function that must run on the session's thread keeps the pipeline there.
  for (const llvm::BasicBlock& block : *cg.function())
    for (const llvm::Instruction& inst : block)
      if (auto* call = llvm::dyn_cast<llvm::CallInst>(&inst))
        if (const llvm::Function* callee = call->getCalledFunction())
          if (const RuntimeFunction* f = findRuntimeFunction(callee->getName().str().c_str()); f && f->sessionThread)
            pipelines_.back().serial = true;
  cg.endFunction();
  values.clear();  // IU values live in one pipeline's registers only
}

std::vector<const plan::IU*> readFrom(const Translator& t, const std::vector<const plan::IU*>& candidates) {
  std::vector<const plan::IU*> read;
  auto readsOp = [&](const plan::Operator& o) {
    auto& op = const_cast<plan::Operator&>(o);  // only read: forEachExpr takes a mutable operator
    plan::forEachExpr(op, [&](plan::ExprPtr& e) { e->collectIUs(read); });
    if (op.kind == plan::OpKind::HashJoin)
      for (auto& c : static_cast<plan::HashJoin&>(op).outerColumns) read.push_back(c.inner);
    if (op.kind == plan::OpKind::UnionAll)
      for (auto& in : static_cast<plan::UnionAll&>(op).inputs) read.insert(read.end(), in.begin(), in.end());
    if (op.kind == plan::OpKind::With)  // what the WITH queries' buffers keep
      for (auto& d : static_cast<plan::With&>(op).ctes) read.insert(read.end(), d.columns.begin(), d.columns.end());
  };
  // An index join's inner side looks up by keys computed from the outer rows: all of it counts.
  auto readsTree = [&](auto& self, const plan::Operator& o) -> void {
    readsOp(o);
    for (auto& c : o.children) self(self, *c);
  };
  for (const Translator* at = &t; at; at = at->parent) {
    if (auto* sink = dynamic_cast<const ResultSinkTranslator*>(at)) read.insert(read.end(), sink->output().begin(), sink->output().end());
    readsOp(at->op());
    if (at->op().kind == plan::OpKind::IndexJoin) readsTree(readsTree, *at->op().child(1));
  }
  std::sort(read.begin(), read.end());
  std::vector<const plan::IU*> r;
  for (auto* iu : candidates)
    if (std::binary_search(read.begin(), read.end(), iu)) r.push_back(iu);
  return r;
}

std::unique_ptr<Translator> QueryTranslator::build(const plan::Operator& op) {
  std::unique_ptr<Translator> t = make(op);
  for (auto& c : op.children) {
    t->children.push_back(build(*c));
    t->children.back()->parent = t.get();
  }
  return t;
}

std::unique_ptr<Translator> QueryTranslator::make(const plan::Operator& op) {
  switch (op.kind) {
    case plan::OpKind::TableScan: return std::make_unique<TableScanTranslator>(op, *this);
    case plan::OpKind::Values: return std::make_unique<ValuesTranslator>(op, *this);
    case plan::OpKind::Filter: return std::make_unique<FilterTranslator>(op, *this);
    case plan::OpKind::Map: return std::make_unique<MapTranslator>(op, *this);
    case plan::OpKind::Expand: return std::make_unique<ExpandTranslator>(op, *this);
    case plan::OpKind::HashJoin: return std::make_unique<HashJoinTranslator>(op, *this);
    case plan::OpKind::IndexJoin: return std::make_unique<IndexJoinTranslator>(op, *this);
    case plan::OpKind::Aggregate: return std::make_unique<AggregateTranslator>(op, *this);
    case plan::OpKind::Sort: return std::make_unique<SortTranslator>(op, *this);
    case plan::OpKind::Limit: return std::make_unique<LimitTranslator>(op, *this);
    case plan::OpKind::UnionAll: return std::make_unique<UnionAllTranslator>(op, *this);
    case plan::OpKind::With: return std::make_unique<WithTranslator>(op, *this);
    case plan::OpKind::CteScan: return std::make_unique<CteScanTranslator>(op, *this);
    case plan::OpKind::Join: break;  // logical: sql's physical planner replaces every one
  }
  throw Error(sqlstate::InternalError, "codegen: unknown operator");
}

}  // namespace hyrax::codegen
