// WITH queries (the binder's plan::QueryPlan::commonTables, each read by plan::CteScans): one read
// once is inlined where it is read, one read more often is computed once under a plan::With at
// the root and read from its buffer, one no longer read (a binding that started over, a subtree
// the unnesting dropped) is dropped.
//
// Why here and not in the binder: how often a WITH query is read is known only once the whole
// statement is bound, since unnesting a correlated subquery copies parts of the plan, reads
// included; and it must be decided before the rewrites, so that an inlined one gets predicates
// and join order with the query around it, as a derived table does (what the binder made of a
// WITH query before), while a shared one is optimized as its own plan (its filters cannot
// depend on one reader). Why only then materialized: a filter or join key of the reader pushed
// into the WITH query often reads a fraction of it (an index lookup, a range), which a buffer
// of all its rows would lose.
#include <algorithm>
#include <unordered_set>

#include "codegen/plan/clone.hpp"
#include "sql/optimizer/optimizer.hpp"

namespace hyrax::sql {

using namespace plan;

namespace {

// The places (pointers to the owning child pointer) of the CteScans in a tree, by WITH query id.
void collectReads(OperatorPtr& op, std::vector<std::vector<OperatorPtr*>>& reads) {
  if (op->kind == OpKind::CteScan) reads[static_cast<CteScan&>(*op).cte].push_back(&op);
  for (auto& c : op->children) collectReads(c, reads);
}

// The reads of each WITH query from the query and from the WITH queries still read. A WITH query
// is read only by those bound after it (it was bound while they were), so going from the last
// bound to the first finds each one's readers before it.
std::vector<std::vector<OperatorPtr*>> readsOf(QueryPlan& plan) {
  std::vector<std::vector<OperatorPtr*>> reads(plan.commonTables.size());
  collectReads(plan.root, reads);
  for (size_t i = plan.commonTables.size(); i-- > 0;)
    if (!reads[i].empty() && plan.commonTables[i].root) collectReads(plan.commonTables[i].root, reads);
  return reads;
}

// The WITH query's plan in place of its only reader: a copy that produces the reader's IUs for
// its outputs (a second read of one output, or one the plan does not produce, by a Map above).
void inlineAt(CommonTable& cte, OperatorPtr& scanPtr) {
  auto& scan = static_cast<CteScan&>(*scanPtr);
  const IURefs produced = producedInTree(*cte.root);
  IUMap renamed;
  auto extra = std::make_unique<Map>();
  for (auto& c : scan.columns) {
    if (produced.count(c.source) && renamed.emplace(c.source, c.iu).second) continue;
    extra->computed.push_back({c.iu, Expr::column(c.source)});
  }
  OperatorPtr body = cloneTree(*cte.root, renamed);
  for (auto& c : extra->computed) substituteIUs(c.expr, renamed);
  if (!extra->computed.empty()) {
    extra->children.push_back(std::move(body));
    body = std::move(extra);
  }
  scanPtr = std::move(body);
  cte.root.reset();
}

}  // namespace

void placeCommonTables(QueryPlan& plan) {
  if (plan.commonTables.empty()) return;
  // Inline those read once, one at a time (inlining moves the reads inside the copied plan).
  for (bool again = true; again;) {
    again = false;
    auto reads = readsOf(plan);
    for (size_t i = 0; i < reads.size() && !again; ++i) {
      if (!plan.commonTables[i].root) continue;
      if (reads[i].empty()) {
        plan.commonTables[i].root.reset();  // not read
        again = true;
      } else if (reads[i].size() == 1) {
        inlineAt(plan.commonTables[i], *reads[i][0]);
        again = true;
      }
    }
  }
  auto with = std::make_unique<With>();
  for (CommonTable& cte : plan.commonTables) {
    if (!cte.root) continue;
    With::Definition d{cte.id, cte.name, {}};
    for (const IU* iu : cte.columns)
      if (std::find(d.columns.begin(), d.columns.end(), iu) == d.columns.end()) d.columns.push_back(iu);
    with->ctes.push_back(std::move(d));
    with->children.push_back(std::move(cte.root));
  }
  plan.commonTables.clear();
  if (with->ctes.empty()) return;
  with->children.push_back(std::move(plan.root));
  plan.root = std::move(with);
}

}  // namespace hyrax::sql
