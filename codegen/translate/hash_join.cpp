// Hash join of every kind: the build side (children[0]) ends its pipeline by inserting its rows
// into a chained hash table; the probe side (children[1]) looks each row up and continues the
// pipeline for every match (Inner, LeftOuter), for its first match (Semi), when nothing matched
// (Anti), or once with the match's truth value (Mark). LeftOuter also passes on unmatched rows
// with NULL build columns; FullOuter (and RightOuter, which preserves only the build side) then
// scans the hash table for build rows no probe row matched (entries carry a flag: 0 unmatched,
// 1 matched, 2 a NULL key that can never match).
// Entries hold the build keys and every build IU the plan reads later.
#include <algorithm>

#include "codegen/translate/operator_translators.hpp"
#include "engine/runtime/hash_table.hpp"
#include "engine/runtime/runtime.hpp"

namespace hyrax::codegen {

HashJoinTranslator::HashJoinTranslator(const plan::Operator& op, QueryTranslator& q) : Translator(op, q) {}

// Entries hold the keys, the build IUs something above the join reads (an ancestor's expressions,
// the result, outer-join columns) or its own residual reads, and the match flag. Columns only a
// lower join needed (its keys) stay out: TPC-H Q21's semi join entries shrank from 112 bytes.
void HashJoinTranslator::layoutEntries() {
  if (laidOut_) return;
  laidOut_ = true;
  auto& j = static_cast<const plan::HashJoin&>(op_);
  for (auto& k : j.keys) keyFields_.push_back(table_.addField(k.build->type.withNullable(false)));
  payload_ = readFrom(*this, j.child(0)->produced());
  for (auto* iu : payload_) payloadFields_.push_back(table_.addField(iu->type));
  if (j.kind == plan::JoinKind::FullOuter || j.kind == plan::JoinKind::RightSemi || j.kind == plan::JoinKind::RightAnti ||
      j.kind == plan::JoinKind::RightOuter)
    matchedField_ = table_.addField(SqlType::int16(false));
}

llvm::Value* HashJoinTranslator::matchedFlag(llvm::Value* entry) { return table_.fieldAddress(entry, *matchedField_); }

// Probes on several threads may mark one entry at once: the flag is read and written as a relaxed
// atomic (a plain move on x86-64 and ARM), every writer storing the same 1.
llvm::Value* HashJoinTranslator::loadMatched(llvm::Value* entry) {
  auto* load = cg_.b.CreateLoad(cg_.i16(), matchedFlag(entry));
  load->setAtomic(llvm::AtomicOrdering::Monotonic);
  load->setAlignment(llvm::Align(2));
  return load;
}

// Only an entry not marked yet is written: the threads probing it then share its cache line
// for reading, where a store per match moved the line between their cores on every row (an outer
// join's build entry is matched by many probe rows on every thread: TPC-H Q13's customers).
void HashJoinTranslator::markMatched(llvm::Value* entry) {
  cg_.If(cg_.b.CreateICmpEQ(loadMatched(entry), cg_.b.getInt16(0)), [&] {
    auto* store = cg_.b.CreateStore(cg_.b.getInt16(1), matchedFlag(entry));
    store->setAtomic(llvm::AtomicOrdering::Monotonic);
    store->setAlignment(llvm::Align(2));
  });
}

llvm::Value* HashJoinTranslator::keyedEntry(llvm::Value* entry) {
  if (!matchedField_) return cg_.cTrue();  // NULL keys are never inserted
  return cg_.b.CreateICmpNE(loadMatched(entry), cg_.b.getInt16(2));
}

void HashJoinTranslator::setOuterColumns(bool buildSide, bool present) {
  auto& j = static_cast<const plan::HashJoin&>(op_);
  for (auto& c : j.outerColumns) {
    bool ofBuild = std::find(payload_.begin(), payload_.end(), c.inner) != payload_.end();
    if (ofBuild != buildSide) continue;
    SqlValue v;
    if (present) {
      v = q_.values.at(c.inner);
      if (!v.null) v.null = cg_.cFalse();
    } else {
      v.type = c.inner->type;
      v.v = llvm::Constant::getNullValue(cg_.payloadType(v.type));
      if (v.type.isTwoWords()) v.hi = cg_.c64(0);
      v.null = cg_.cTrue();
    }
    v.type.nullable = true;
    q_.values[c.outer] = v;
  }
}

void HashJoinTranslator::produce() {
  layoutEntries();
  table_.create(op_.child(0)->estimatedRows);
  children[0]->produce();
  filterAggregateBelow();
  children[1]->produce();
  if (!matchedField_) return;
  // FULL and RightOuter: the build rows no probe row matched, with NULL probe columns. RightSemi:
  // the matched build rows; RightAnti: the others.
  auto& b = cg_.b;
  auto kind = static_cast<const plan::HashJoin&>(op_).kind;
  table_.forEachEntry(op_.child(0)->estimatedRows, [&](llvm::Value* entry) {
    llvm::Value* matched = b.CreateICmpEQ(b.CreateLoad(cg_.i16(), matchedFlag(entry)), cg_.b.getInt16(1));
    cg_.If(kind == plan::JoinKind::RightSemi ? matched : b.CreateNot(matched), [&] {
      loadPayload(entry);
      setOuterColumns(true, true);
      setOuterColumns(false, false);
      emitFrom(entry);
    });
  });
}

void HashJoinTranslator::consume(Translator& from) {
  if (&from == children[0].get())
    build();
  else
    probe();
}

HashJoinTranslator::Keys HashJoinTranslator::keys(bool buildSide) {
  auto& j = static_cast<const plan::HashJoin&>(op_);
  std::vector<SqlValue> values;
  for (auto& key : j.keys) values.push_back(q_.expr.compile(buildSide ? *key.build : *key.probe));
  return table_.hashKeys(std::move(values));
}

llvm::Value* HashJoinTranslator::holdsKeys(const std::vector<SqlValue>& values) {
  auto& b = cg_.b;
  Keys keys = table_.hashKeys(values);
  auto* holds = cg_.local(cg_.i1(), "holds_keys");
  b.CreateStore(cg_.cFalse(), holds);
  auto lookup = [&] {
    llvm::Value* found = table_.findCandidate(keys.hash, [&](llvm::Value* entry) {
      auto* same = cg_.local(cg_.i1(), "same_keys");
      b.CreateStore(cg_.cFalse(), same);
      cg_.If(keyedEntry(entry), [&] { b.CreateStore(keysEqual(entry, keys), same); });
      return b.CreateLoad(cg_.i1(), same);
    });
    b.CreateStore(b.CreateIsNotNull(found), holds);
  };
  if (keys.anyNull)
    cg_.If(b.CreateNot(keys.anyNull), lookup);
  else
    lookup();
  return b.CreateLoad(cg_.i1(), holds);
}

// Rows leave an Inner or RightOuter join from one build entry each (a match, or an unmatched
// entry after the probe); when every group key is a build column or a probe key (equal to the
// entry's key), all rows of an entry belong to one group.
bool HashJoinTranslator::entryFixes(const std::vector<const plan::Expr*>& groupKeys) {
  layoutEntries();
  auto& j = static_cast<const plan::HashJoin&>(op_);
  if (j.kind != plan::JoinKind::Inner && j.kind != plan::JoinKind::RightOuter) return false;
  for (const plan::Expr* g : groupKeys) {
    if (g->kind != plan::ExprKind::Column) return false;
    bool ofBuild = std::find(payload_.begin(), payload_.end(), g->iu) != payload_.end();
    bool probeKey = j.kind == plan::JoinKind::Inner &&
                    std::any_of(j.keys.begin(), j.keys.end(), [&](auto& k) {
                      return k.probe->kind == plan::ExprKind::Column && k.probe->iu == g->iu;
                    });
    if (!ofBuild && !probeKey) return false;
  }
  return true;
}

void HashJoinTranslator::reserveGroupField(uint32_t slots) {
  layoutEntries();
  if (groupField_) return;
  groupField_ = table_.addField(SqlType::int64(false));  // a pointer, null until set
  for (uint32_t k = 1; k < slots; ++k) table_.addField(SqlType::int64(false));  // (8 bytes apart: RowLayout::add)
  groupSlots_ = slots;
}

llvm::Value* HashJoinTranslator::groupField() const {
  return currentEntry_ && groupField_ ? table_.fieldAddress(currentEntry_, *groupField_) : nullptr;
}

// Probing a table bigger than the caches straight from a scan: the bucket a row some rows ahead
// will read is loaded meanwhile, so the misses of consecutive rows overlap.
void HashJoinTranslator::prefetchAhead() {
  auto& j = static_cast<const plan::HashJoin&>(op_);
  if (!q_.lookahead || j.keys.empty() || op_.child(0)->estimatedRows < QueryTranslator::kPrefetchMinEntries) return;
  std::vector<SqlValue> ahead;
  for (auto& k : j.keys) {
    if (k.probe->kind != plan::ExprKind::Column) return;
    auto v = q_.lookahead(k.probe->iu, QueryTranslator::kPrefetchDistance);
    if (!v) return;
    ahead.push_back(*v);
  }
  table_.prefetch(table_.hashKeys(std::move(ahead)).hash);
}

void HashJoinTranslator::emitFrom(llvm::Value* entry) {
  currentEntry_ = entry;
  emit();
  currentEntry_ = nullptr;
}

std::vector<const plan::Expr*> HashJoinTranslator::filterKeys(const Translator& probe, double probeRows) const {
  auto& j = static_cast<const plan::HashJoin&>(op_);
  using K = plan::JoinKind;
  if (children.size() != 2 || children[1].get() != &probe || j.keys.empty() || j.keys.size() > 2) return {};
  // Every kind whose probe rows without a partner add nothing: for Inner and Semi the join's
  // estimate counts the probe rows that match; the Right kinds count build rows (probeMatchShare).
  double share = 0;
  if (j.kind == K::Inner || j.kind == K::Semi) share = op_.estimatedRows / probeRows;
  else if (j.kind == K::RightSemi || j.kind == K::RightAnti || j.kind == K::RightOuter) share = j.probeMatchShare;
  else return {};
  if (share < 0 || !worthFiltering(share)) return {};
  std::vector<const plan::Expr*> keys;
  for (auto& k : j.keys) {
    if (!k.probe->type.isInteger() || !k.build->type.isInteger()) return {};
    keys.push_back(k.probe.get());
  }
  return keys;
}

// The scan tests its rows by the table's key filter (2-4 bytes an entry, KeyFilter): beyond the
// caches it costs the scan's loop a miss per row, and the rows it keeps are probed again: worth
// it only where nearly all rows go (TPC-H Q9's orders, 20% kept by a directory of 319,404
// entries: 37 -> 45 ms, before the filter).
bool HashJoinTranslator::worthFiltering(double share) const {
  if (!(share <= kSelectiveShare)) return false;
  const double entries = op_.child(0)->estimatedRows;
  return entries < kKeyFilterCachedEntries || share <= kSelectiveShareBeyondCaches;
}

// A join that drops probe rows without a match, over an aggregate grouped by its probe keys (Map
// and Filter between pass the groups through): the hash table is built before the aggregate's
// input runs, so that input skips rows whose group it does not hold. TPC-H Q17 and Q20 compute a
// correlated aggregate of lineitem this way only for the outer query's parts.
void HashJoinTranslator::filterAggregateBelow() {
  auto& j = static_cast<const plan::HashJoin&>(op_);
  using K = plan::JoinKind;
  if (j.keys.empty() || !(j.kind == K::Inner || j.kind == K::RightOuter || j.kind == K::Semi ||
                          j.kind == K::RightSemi || j.kind == K::RightAnti))
    return;
  Translator* t = children[1].get();
  while (t->op().kind == plan::OpKind::Map || t->op().kind == plan::OpKind::Filter) t = t->children[0].get();
  if (t->op().kind != plan::OpKind::Aggregate) return;
  auto* agg = static_cast<AggregateTranslator*>(t);
  auto& groups = static_cast<const plan::Aggregate&>(t->op()).groups;
  std::vector<size_t> which;
  for (auto& key : j.keys) {
    if (key.probe->kind != plan::ExprKind::Column) return;
    auto g = std::find_if(groups.begin(), groups.end(), [&](auto& grp) { return grp.iu == key.probe->iu; });
    if (g == groups.end() || !g->iu->type.sameAs(key.build->type)) return;
    which.push_back(static_cast<size_t>(g - groups.begin()));
  }
  agg->skipGroupsWithout(this, std::move(which));
}

void HashJoinTranslator::build() {
  auto& b = cg_.b;
  q_.sinkInto(PipelineSink::JoinBuild, table_.slot());
  auto [keys, anyNull, h] = this->keys(true);
  auto insert = [&] {
    llvm::Value* entry = table_.insert(h);
    for (size_t i = 0; i < keys.size(); ++i) table_.store(entry, keyFields_[i], keys[i]);
    for (size_t i = 0; i < payload_.size(); ++i) table_.store(entry, payloadFields_[i], q_.values.at(payload_[i]));
    if (matchedField_)
      b.CreateStore(anyNull ? b.CreateSelect(anyNull, b.getInt16(2), b.getInt16(0)) : b.getInt16(0), matchedFlag(entry));
  };
  // A NULL key never equals anything: such rows cannot join (but a FULL join outputs them, and a
  // NULL-aware mark join notes that there was one).
  auto& j = static_cast<const plan::HashJoin&>(op_);
  if (anyNull && j.nullAwareKey)
    cg_.If(b.CreateNot(anyNull), insert, [&] { cg_.call("hyrax_rt_ht_note_null", {table_.table()}); });
  else if (anyNull && !matchedField_)
    cg_.If(b.CreateNot(anyNull), insert);
  else
    insert();
}

llvm::Value* HashJoinTranslator::keysEqual(llvm::Value* entry, const Keys& probeKeys) {
  Keys nonNull = probeKeys;
  for (auto& v : nonNull.values) v.null = nullptr;  // the caller has ruled NULL keys out
  return table_.keysEqual(entry, keyFields_, nonNull);
}

void HashJoinTranslator::loadPayload(llvm::Value* entry) {
  for (size_t i = 0; i < payload_.size(); ++i) q_.values[payload_[i]] = table_.load(entry, payloadFields_[i]);
}

void HashJoinTranslator::probe() {
  auto& j = static_cast<const plan::HashJoin&>(op_);
  auto& b = cg_.b;
  prefetchAhead();
  Keys keys = this->keys(false);
  // Chains of equal keys (or a cross product's one chain) can be long: each candidate is a point
  // where the query may be cancelled.
  auto residual = [&]() -> SqlValue {
    if (j.residual) return q_.expr.compile(*j.residual);
    SqlValue t;
    t.type = SqlType::boolean(false);
    t.v = cg_.cTrue();
    return t;
  };
  // Runs `lookup` for probe rows whose keys are all non-NULL, `noKeys` for the others (a NULL key
  // equals nothing).
  auto withKeys = [&](const std::function<void()>& lookup, const std::function<void()>& noKeys) {
    if (keys.anyNull)
      cg_.If(b.CreateNot(keys.anyNull), lookup, noKeys);
    else
      lookup();
  };

  switch (j.kind) {
    case plan::JoinKind::Inner:
      withKeys([&] {
        table_.forEachCandidate(keys.hash, [&](llvm::Value* entry) {
          cg_.cancelPoint();
          cg_.If(keysEqual(entry, keys), [&] {
            loadPayload(entry);
            cg_.If(q_.expr.isTrue(residual()), [&] { emitFrom(entry); });
          });
        });
      }, {});
      return;

    case plan::JoinKind::LeftOuter:
    case plan::JoinKind::FullOuter: {
      llvm::AllocaInst* found = cg_.local(cg_.i1(), "found");
      b.CreateStore(cg_.cFalse(), found);
      auto emitWith = [&](llvm::Value* entry) {  // entry nullptr: the NULL-extended row
        setOuterColumns(true, entry != nullptr);
        setOuterColumns(false, true);
        emit();
      };
      withKeys([&] {
        table_.forEachCandidate(keys.hash, [&](llvm::Value* entry) {
          cg_.cancelPoint();
          cg_.If(keyedEntry(entry), [&] {
            cg_.If(keysEqual(entry, keys), [&] {
              loadPayload(entry);
              cg_.If(q_.expr.isTrue(residual()), [&] {
                if (j.singleMatch) cg_.raiseIf(b.CreateLoad(cg_.i1(), found), HYRAX_ERR_SUBQUERY_ROWS);
                b.CreateStore(cg_.cTrue(), found);
                if (matchedField_) markMatched(entry);
                emitWith(entry);
              });
            });
          });
        });
      }, {});
      cg_.If(b.CreateNot(b.CreateLoad(cg_.i1(), found)), [&] { emitWith(nullptr); });
      return;
    }

    case plan::JoinKind::RightOuter:
      // An inner join that marks the entries it matches; the others come out after the probe.
      withKeys([&] {
        table_.forEachCandidate(keys.hash, [&](llvm::Value* entry) {
          cg_.cancelPoint();
          cg_.If(keyedEntry(entry), [&] {
            cg_.If(keysEqual(entry, keys), [&] {
              loadPayload(entry);
              cg_.If(q_.expr.isTrue(residual()), [&] {
                markMatched(entry);
                setOuterColumns(false, true);
                emitFrom(entry);
              });
            });
          });
        });
      }, {});
      return;

    case plan::JoinKind::RightSemi:
    case plan::JoinKind::RightAnti:
      // Marks the entries this row matches; they come out after the probe.
      withKeys([&] {
        table_.forEachCandidate(keys.hash, [&](llvm::Value* entry) {
          cg_.cancelPoint();
          llvm::Value* open = b.CreateICmpEQ(loadMatched(entry), b.getInt16(0));  // not NULL-keyed, not yet marked
          cg_.If(open, [&] {
            cg_.If(keysEqual(entry, keys), [&] {
              loadPayload(entry);
              cg_.If(q_.expr.isTrue(residual()), [&] { markMatched(entry); });
            });
          });
        });
      }, {});
      return;

    case plan::JoinKind::Semi:
    case plan::JoinKind::Anti:
    case plan::JoinKind::Mark: {
      // The walk stops at the first build row for which the condition is TRUE; a Mark join
      // also notes whether it was NULL for some.
      llvm::AllocaInst* found = cg_.local(cg_.i1(), "found");
      llvm::AllocaInst* sawNull = cg_.local(cg_.i1(), "saw_null");
      b.CreateStore(cg_.cFalse(), found);
      // NULL-aware key (x IN (S), hashed): no match is NULL when S held a NULL; x NULL is NULL
      // when S has any row at all.
      llvm::Value* buildNull = nullptr;
      if (j.nullAwareKey) buildNull = b.CreateICmpNE(cg_.call("hyrax_rt_ht_saw_null", {table_.table()}), cg_.c32(0));
      b.CreateStore(buildNull ? buildNull : cg_.cFalse(), sawNull);
      auto probeNull = [&] {
        if (!j.nullAwareKey) return;
        b.CreateStore(b.CreateOr(buildNull, b.CreateICmpNE(table_.count(), cg_.c64(0))), sawNull);
      };
      withKeys([&] {
        llvm::Value* hit = table_.findCandidate(keys.hash, [&](llvm::Value* entry) {
          cg_.cancelPoint();
          llvm::AllocaInst* match = cg_.local(cg_.i1(), "match");
          b.CreateStore(cg_.cFalse(), match);
          cg_.If(keysEqual(entry, keys), [&] {
            loadPayload(entry);
            llvm::Value* counts = q_.expr.isTrue(residual());  // the row is in the subquery
            if (!j.markCondition) {
              b.CreateStore(counts, match);
              return;
            }
            cg_.If(counts, [&] {  // x IN (...): its comparison decides, NULL included
              SqlValue m = q_.expr.compile(*j.markCondition);
              b.CreateStore(q_.expr.isTrue(m), match);
              if (m.null) b.CreateStore(b.CreateOr(b.CreateLoad(cg_.i1(), sawNull), m.null), sawNull);
            });
          });
          return b.CreateLoad(cg_.i1(), match);
        });
        b.CreateStore(b.CreateIsNotNull(hit), found);
      }, probeNull);
      llvm::Value* matched = b.CreateLoad(cg_.i1(), found);
      if (j.kind == plan::JoinKind::Semi) {
        cg_.If(matched, [&] { emit(); });
      } else if (j.kind == plan::JoinKind::Anti) {
        cg_.If(b.CreateNot(matched), [&] { emit(); });
      } else {
        SqlValue m;
        m.type = j.mark->type;
        m.v = matched;
        if (j.mark->type.nullable) m.null = b.CreateAnd(b.CreateNot(matched), b.CreateLoad(cg_.i1(), sawNull));
        q_.values[j.mark] = m;
        emit();
      }
      return;
    }
  }
}

}  // namespace hyrax::codegen
