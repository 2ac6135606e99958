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
  llvm::AllocaInst* local = q_.rowCounter(op_.id);
  b.CreateStore(b.CreateAdd(b.CreateLoad(cg_.i64(), local), n), local);
}

// A function's count of an operator's rows in a local (a register once SROA ran): a count kept
// in the state's array, loaded, added to and stored for every row, was a chain through memory
// that LLVM could not take out of the loop, and it changed the code around it (TPC-H Q6 ran in
// 10 ms under EXPLAIN ANALYZE and 19 ms without: the stores kept its filter one branch).
llvm::AllocaInst* QueryTranslator::rowCounter(uint32_t op) {
  llvm::Function* f = cg.function();
  auto& counters = rowCounters_[f];
  llvm::AllocaInst*& local = counters.locals[op];
  if (!local) {
    local = cg.local(cg.i64(), "rows");
    llvm::IRBuilder<> entry(cg.entryBlock());  // no terminator until endFunction()
    entry.CreateStore(cg.c64(0), local);
    if (!counters.array) counters.array = entry.CreateLoad(cg.ptr(), entry.CreateConstInBoundsGEP1_64(cg.ptr(), cg.stateArg(), 0));
  }
  return local;
}

void QueryTranslator::flushRowCounters() {
  for (auto& [f, counters] : rowCounters_) {
    std::vector<llvm::ReturnInst*> returns;
    for (llvm::BasicBlock& block : *f)
      if (auto* ret = llvm::dyn_cast<llvm::ReturnInst>(block.getTerminator())) returns.push_back(ret);
    for (llvm::ReturnInst* ret : returns) {
      llvm::IRBuilder<> at(ret);
      for (auto& [op, local] : counters.locals) {
        llvm::Value* slot = at.CreateConstInBoundsGEP1_64(cg.i64(), counters.array, op);
        at.CreateStore(at.CreateAdd(at.CreateLoad(cg.i64(), slot), at.CreateLoad(cg.i64(), local)), slot);
      }
    }
  }
  rowCounters_.clear();
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
