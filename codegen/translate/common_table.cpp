// WITH queries computed once (plan::With, plan::CteScan). Each WITH query's plan runs as its own
// pipelines into a row buffer (the sort's RowBuffer, without sorting: on several threads each
// fills one of its own, appended to the query's when the pipeline ends, as for a sort), before the
// query runs; every read of it is a pipeline over the buffer's rows, handed out in morsels like a
// table's chunks (so on several threads too, and to the optimized code once it is ready). The
// rows are charged to the statement's memory budget as a sort's are.
#include "codegen/translate/operator_translators.hpp"

namespace hyrax::codegen {

void WithTranslator::produce() {
  auto& w = static_cast<const plan::With&>(op_);
  for (size_t i = 0; i < w.ctes.size(); ++i) {
    QueryTranslator::CommonTableBuffer& buffer = q_.commonTables[w.ctes[i].id];
    buffer.slot = q_.newStateSlot();
    buffer.columns = w.ctes[i].columns;
    for (const plan::IU* iu : buffer.columns) buffer.fields.push_back(buffer.layout.add(iu->type));
    const uint32_t slot = buffer.slot, rowSize = std::max(8u, buffer.layout.size());
    q_.atInit([this, slot, rowSize] {
      llvm::Value* buf = cg_.checkNotNull(cg_.call("hyrax_rt_buf_create", {cg_.queryContext(), cg_.c32(rowSize)}));
      cg_.b.CreateStore(buf, cg_.stateSlot(slot));
    });
    children[i]->produce();
  }
  children.back()->produce();
}

void WithTranslator::consume(Translator& from) {
  auto& w = static_cast<const plan::With&>(op_);
  size_t i = 0;
  while (i < w.ctes.size() && children[i].get() != &from) ++i;
  if (i == w.ctes.size()) return emit();  // the query's rows
  const QueryTranslator::CommonTableBuffer& buffer = q_.commonTables.at(w.ctes[i].id);
  q_.sinkInto(PipelineSink::Buffer, buffer.slot);
  llvm::Value* row =
      cg_.checkNotNull(cg_.call("hyrax_rt_buf_append", {cg_.queryContext(), cg_.loadPtr(cg_.stateSlot(buffer.slot))}));
  for (size_t c = 0; c < buffer.columns.size(); ++c)
    buffer.layout.store(cg_, row, buffer.fields[c], q_.values.at(buffer.columns[c]));
}

void CteScanTranslator::produce() {
  auto& scan = static_cast<const plan::CteScan&>(op_);
  auto it = q_.commonTables.find(scan.cte);
  if (it == q_.commonTables.end()) throw Error(sqlstate::InternalError, "codegen: WITH query " + scan.name + " is not computed");
  const QueryTranslator::CommonTableBuffer& buffer = it->second;
  std::vector<uint32_t> fields;  // of each column, the buffer's field
  for (auto& c : scan.columns) {
    auto at = std::find(buffer.columns.begin(), buffer.columns.end(), c.source);
    if (at == buffer.columns.end()) throw Error(sqlstate::InternalError, "codegen: a column of " + scan.name + " is not kept");
    fields.push_back(buffer.fields[at - buffer.columns.begin()]);
  }
  q_.beginPipeline(op_.estimatedRows);
  q_.forEachBufferRow(buffer.slot, [&](llvm::Value* row) {
    for (size_t c = 0; c < scan.columns.size(); ++c) q_.values[scan.columns[c].iu] = buffer.layout.load(cg_, row, fields[c]);
    emit();
  });
  q_.endPipeline();
}

}  // namespace hyrax::codegen
