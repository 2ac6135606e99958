// Index nested-loop join: each outer row computes the inner scan's key and looks it up; the
// pairs that pass the residual go on to the parent, all inside the outer row's pipeline.
#include "codegen/translate/operator_translators.hpp"

namespace hyrax::codegen {

void IndexJoinTranslator::consume(Translator& from) {
  if (&from == children[0].get()) {
    static_cast<TableScanTranslator&>(*children[1]).indexRows();
    return;
  }
  auto& j = static_cast<const plan::IndexJoin&>(op_);
  if (!j.residual) return emit();
  SqlValue cond = q_.expr.compile(*j.residual);
  cg_.If(q_.expr.isTrue(cond), [&] { emit(); });
}

}  // namespace hyrax::codegen
