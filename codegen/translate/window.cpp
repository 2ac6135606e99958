// Window functions (plan::Sort::windows): after the sort, one serial pass over the sorted rows
// writes each call's value into a field of every row, which the Sort's output pipeline then reads
// like any column. The runtime first gives each row the bounds of its partition and of its peers
// (RowBuffer::windowFrames), so a value by position is arithmetic on them, a value of another row
// (lag, lead, first_value ...) is that row's field, and an aggregate over a frame keeps a running
// state from row to row (aggregateStep): frames only move forward, so each row adds the rows its
// frame gained and, for count, sum and avg of exact numbers, takes away the rows it lost. Frames
// to the partition's end are added up by a second pass that walks the rows backwards
// (suffixAggregatePass); min and max over a frame whose start moves keep a deque of the rows that
// may yet be a frame's extreme (slidingExtremeStep). What stays O(n k): floating-point sums over
// a frame of k rows whose start moves and whose end is not the partition's (ROWS 3 PRECEDING ...).
#include "codegen/translate/operator_translators.hpp"

namespace hyrax::codegen {

using plan::AggFunc;
using plan::WindowFunc;

uint32_t SortTranslator::fieldOf(const plan::Expr& column) const {
  if (column.kind != plan::ExprKind::Column) throw Error(sqlstate::InternalError, "codegen: window arguments must be columns");
  for (size_t i = 0; i < columns_.size(); ++i)
    if (columns_[i] == column.iu) return fields_[i];
  throw Error(sqlstate::InternalError, "codegen: a window argument is not an input column");
}

void SortTranslator::windowPass(llvm::Function* samePartition, llvm::Function* samePeers, uint32_t boundsField,
                                const std::vector<uint32_t>& valueFields) {
  auto& s = static_cast<const plan::Sort&>(op_);
  auto& b = cg_.b;
  llvm::Value* buf = cg_.loadPtr(cg_.stateSlot(slot_));
  cg_.call("hyrax_rt_buf_window_frames",
           {buf, samePartition, samePeers, cg_.c64(static_cast<int64_t>(layout_.offset(boundsField)))});

  // A frame from a moving start to the partition's end: added up walking backwards.
  auto suffix = [](const plan::WindowCall& w) {
    return w.func == WindowFunc::Aggregate && w.end.kind == plan::WindowBound::Kind::UnboundedFollowing &&
           w.start.kind != plan::WindowBound::Kind::UnboundedPreceding;
  };
  std::vector<WindowState> states(s.windows.size());
  for (size_t k = 0; k < s.windows.size(); ++k) {
    const plan::WindowCall& w = s.windows[k];
    if (w.func != WindowFunc::Aggregate) continue;
    WindowState& st = states[k];
    st.from = cg_.local(cg_.i64(), "window_from");
    st.added = cg_.local(cg_.i64(), "window_added");
    st.count = cg_.local(cg_.i64(), "window_count");
    st.value = cg_.local(llvm::ArrayType::get(cg_.i64(), 2), "window_value");
    if (w.aggregate == AggFunc::Sum || w.aggregate == AggFunc::Avg) {
      const SqlType& in = w.args[0]->type;
      st.type = in.isInteger() ? SqlType::int64(false)
                : in.id == TypeId::Decimal ? SqlType::decimal(18, in.scale, false)
                                           : SqlType::float64(false);
    } else if (!w.args.empty()) {
      st.type = w.args[0]->type.withNullable(false);
    }
    if ((w.aggregate == AggFunc::Min || w.aggregate == AggFunc::Max) && !suffix(w) &&
        w.start.kind != plan::WindowBound::Kind::UnboundedPreceding) {
      st.deque = cg_.checkNotNull(cg_.call("hyrax_rt_buf_create", {cg_.queryContext(), cg_.c32(8)}));
      st.head = cg_.local(cg_.i64(), "window_head");
      st.tail = cg_.local(cg_.i64(), "window_tail");
    }
  }
  // dense_rank's counter: the peer groups of the partition so far (only where one is asked for).
  const bool denseRank = std::any_of(s.windows.begin(), s.windows.end(),
                                     [](const plan::WindowCall& w) { return w.func == WindowFunc::DenseRank; });
  auto* dense = denseRank ? cg_.local(cg_.i64(), "dense_rank") : nullptr;

  cg_.ForRange(cg_.c64(0), cg_.call("hyrax_rt_buf_count", {buf}), [&](llvm::Value* i) {
    llvm::Value* row = cg_.call("hyrax_rt_buf_row", {buf, i});
    const RowBounds r = rowBounds(row, i, boundsField);
    llvm::Value* partStart = r.partStart;
    llvm::Value* partEnd = r.partEnd;
    llvm::Value* peerStart = r.peerStart;
    llvm::Value* peerEnd = r.peerEnd;
    llvm::Value* first = b.CreateICmpEQ(i, partStart);
    if (dense)
      b.CreateStore(b.CreateSelect(first, cg_.c64(1),
                                   b.CreateSelect(b.CreateICmpEQ(i, peerStart),
                                                  b.CreateAdd(b.CreateLoad(cg_.i64(), dense), cg_.c64(1)),
                                                  b.CreateLoad(cg_.i64(), dense))),
                    dense);
    auto rowAt = [&](llvm::Value* j) { return cg_.call("hyrax_rt_buf_row", {buf, j}); };
    auto asDouble = [&](llvm::Value* x) { return b.CreateSIToFP(x, cg_.f64()); };

    for (size_t k = 0; k < s.windows.size(); ++k) {
      const plan::WindowCall& w = s.windows[k];
      if (suffix(w)) continue;
      const uint32_t out = valueFields[k];
      // The frame [frameStart, frameEnd) within the partition (empty when they cross).
      llvm::Value* frameStart = framePosition(w, w.start, false, r);
      llvm::Value* frameEnd = framePosition(w, w.end, true, r, frameStart);
      auto storeResult = [&](llvm::Value* x) {  // a value by position (never NULL)
        SqlValue v;
        v.type = w.iu->type;
        v.v = x;
        layout_.store(cg_, row, out, v);
      };
      // The value of column `arg` in row j, or (when `j` is null) NULL.
      auto copyFrom = [&](llvm::Value* j, const plan::Expr& arg) {
        SqlValue v = layout_.load(cg_, rowAt(j), fieldOf(arg));
        layout_.store(cg_, row, out, v);
      };
      auto storeNull = [&](const plan::Expr& arg) {
        SqlValue v = layout_.load(cg_, row, fieldOf(arg));
        v.null = cg_.cTrue();
        layout_.store(cg_, row, out, v);
      };
      switch (w.func) {
        case WindowFunc::RowNumber: storeResult(b.CreateAdd(b.CreateSub(i, partStart), cg_.c64(1))); break;
        case WindowFunc::Rank: storeResult(b.CreateAdd(b.CreateSub(peerStart, partStart), cg_.c64(1))); break;
        case WindowFunc::DenseRank: storeResult(b.CreateLoad(cg_.i64(), dense)); break;
        case WindowFunc::PercentRank: {  // (rank - 1) / (rows - 1), 0 for a partition of one row
          llvm::Value* others = b.CreateSub(b.CreateSub(partEnd, partStart), cg_.c64(1));
          llvm::Value* r = b.CreateFDiv(asDouble(b.CreateSub(peerStart, partStart)), asDouble(others));
          storeResult(b.CreateSelect(b.CreateICmpEQ(others, cg_.c64(0)), llvm::ConstantFP::get(cg_.f64(), 0.0), r));
          break;
        }
        case WindowFunc::CumeDist:  // rows up to the last peer / rows
          storeResult(b.CreateFDiv(asDouble(b.CreateSub(peerEnd, partStart)), asDouble(b.CreateSub(partEnd, partStart))));
          break;
        case WindowFunc::Ntile: {
          // PostgreSQL's buckets: rows / n each, the first rows % n of them one more.
          SqlValue n = layout_.load(cg_, row, fieldOf(*w.args[0]));
          auto compute = [&] {
            llvm::Value* buckets = n.v;
            cg_.raiseIf(b.CreateICmpSLE(buckets, cg_.c64(0)), HYRAX_ERR_NTILE_COUNT);
            llvm::Value* rows = b.CreateSub(partEnd, partStart);
            llvm::Value* pos = b.CreateSub(i, partStart);
            llvm::Value* per = b.CreateSDiv(rows, buckets);
            llvm::Value* extra = b.CreateSRem(rows, buckets);
            llvm::Value* bigRows = b.CreateMul(extra, b.CreateAdd(per, cg_.c64(1)));
            llvm::Value* inBig = b.CreateICmpSLT(pos, bigRows);
            // (per is not 0 where a row lies past the bigger buckets)
            llvm::Value* safePer = b.CreateSelect(b.CreateICmpEQ(per, cg_.c64(0)), cg_.c64(1), per);
            llvm::Value* bucket = b.CreateSelect(inBig, b.CreateSDiv(pos, b.CreateAdd(per, cg_.c64(1))),
                                                 b.CreateAdd(extra, b.CreateSDiv(b.CreateSub(pos, bigRows), safePer)));
            SqlValue v;
            v.type = w.iu->type;
            v.v = b.CreateTrunc(b.CreateAdd(bucket, cg_.c64(1)), cg_.i32());
            v.null = cg_.b.getFalse();
            layout_.store(cg_, row, out, v);
          };
          if (n.null) cg_.If(n.null, [&] {
              SqlValue v;
              v.type = w.iu->type;
              v.v = cg_.c32(0);
              v.null = cg_.cTrue();
              layout_.store(cg_, row, out, v);
            }, compute);
          else compute();
          break;
        }
        case WindowFunc::Lag:
        case WindowFunc::Lead: {
          SqlValue offset = layout_.load(cg_, row, fieldOf(*w.args[1]));
          auto compute = [&] {
            llvm::Value* j = w.func == WindowFunc::Lag ? b.CreateSub(i, offset.v) : b.CreateAdd(i, offset.v);
            llvm::Value* inside = b.CreateAnd(b.CreateICmpSGE(j, partStart), b.CreateICmpSLT(j, partEnd));
            cg_.If(inside, [&] { copyFrom(j, *w.args[0]); }, [&] { copyFrom(i, *w.args[2]); });
          };
          if (offset.null) cg_.If(offset.null, [&] { storeNull(*w.args[0]); }, compute);
          else compute();
          break;
        }
        case WindowFunc::FirstValue:
        case WindowFunc::LastValue: {  // NULL for an empty frame
          llvm::Value* j = w.func == WindowFunc::FirstValue ? frameStart : b.CreateSub(frameEnd, cg_.c64(1));
          cg_.If(b.CreateICmpSLT(frameStart, frameEnd), [&] { copyFrom(j, *w.args[0]); }, [&] { storeNull(*w.args[0]); });
          break;
        }
        case WindowFunc::NthValue: {
          SqlValue n = layout_.load(cg_, row, fieldOf(*w.args[1]));
          auto compute = [&] {
            cg_.raiseIf(b.CreateICmpSLE(n.v, cg_.c64(0)), HYRAX_ERR_NTH_VALUE);
            llvm::Value* j = b.CreateAdd(frameStart, b.CreateSub(n.v, cg_.c64(1)));
            cg_.If(b.CreateICmpSLT(j, frameEnd), [&] { copyFrom(j, *w.args[0]); }, [&] { storeNull(*w.args[0]); });
          };
          if (n.null) cg_.If(n.null, [&] { storeNull(*w.args[0]); }, compute);
          else compute();
          break;
        }
        case WindowFunc::Aggregate: aggregateStep(w, states[k], row, out, first, frameStart, frameEnd); break;
      }
    }
  });
  for (size_t k = 0; k < s.windows.size(); ++k)
    if (suffix(s.windows[k])) suffixAggregatePass(s.windows[k], states[k], boundsField, valueFields[k]);
}

SortTranslator::RowBounds SortTranslator::rowBounds(llvm::Value* row, llvm::Value* i, uint32_t boundsField) {
  auto bound = [&](int n) {
    return cg_.b.CreateLoad(cg_.i64(), cg_.gep(row, layout_.offset(boundsField) + 8 * n));
  };
  return RowBounds{i, bound(0), bound(1), bound(2), bound(3)};
}

// Where a frame's start (end == false) or end (exclusive) lies for the row, within its partition;
// an end not before `atLeast` (the frame's start: a frame whose bounds cross is empty). Every kind
// of bound moves forward (or stays) from row to row of a partition.
llvm::Value* SortTranslator::framePosition(const plan::WindowCall& w, const plan::WindowBound& bound, bool end,
                                           const RowBounds& r, llvm::Value* atLeast) {
  auto& b = cg_.b;
  auto smax = [&](llvm::Value* x, llvm::Value* y) { return b.CreateSelect(b.CreateICmpSGT(x, y), x, y); };
  auto smin = [&](llvm::Value* x, llvm::Value* y) { return b.CreateSelect(b.CreateICmpSLT(x, y), x, y); };
  llvm::Value* at = end ? b.CreateAdd(r.i, cg_.c64(1)) : r.i;  // the current row's place on that side
  llvm::Value* place = r.partStart;
  using Kind = plan::WindowBound::Kind;
  switch (bound.kind) {
    case Kind::UnboundedPreceding: place = r.partStart; break;
    case Kind::UnboundedFollowing: place = r.partEnd; break;
    case Kind::CurrentRow: place = w.rows ? at : (end ? r.peerEnd : r.peerStart); break;
    case Kind::Preceding: place = smin(r.partEnd, smax(r.partStart, b.CreateSub(at, cg_.c64(bound.offset)))); break;
    case Kind::Following: place = smin(r.partEnd, smax(r.partStart, b.CreateAdd(at, cg_.c64(bound.offset)))); break;
  }
  return atLeast ? smax(atLeast, place) : place;
}

// An aggregate's value for the row. Its state holds the rows [from, added) of the frame before;
// since frames only move forward, it takes the rows from `added` to the frame's end, and where the
// frame's start moved, either takes away the rows it left (count, sum and avg of integers and
// DECIMALs, whose sums subtract exactly) or starts afresh at the new start (min, max and floating
// point sums: k rows for each row whose frame's start moved). A new partition starts afresh.
void SortTranslator::aggregateStep(const plan::WindowCall& w, const WindowState& st, llvm::Value* row, uint32_t out,
                                   llvm::Value* first, llvm::Value* frameStart, llvm::Value* frameEnd) {
  auto& b = cg_.b;
  if (st.deque) {
    slidingExtremeStep(w, st, row, out, first, frameStart, frameEnd);
    return;
  }
  if (w.start.kind == plan::WindowBound::Kind::UnboundedPreceding) {
    cg_.If(first, [&] { resetWindowState(st, frameStart); });
  } else {
    const bool subtracts = w.aggregate == AggFunc::CountStar || w.aggregate == AggFunc::Count ||
                           ((w.aggregate == AggFunc::Sum || w.aggregate == AggFunc::Avg) && !st.type.isFloat());
    llvm::Value* from = b.CreateLoad(cg_.i64(), st.from);
    // afresh: a new partition, or a frame after the rows held (empty frames leave gaps)
    llvm::Value* afresh = b.CreateOr(first, b.CreateICmpSGT(frameStart, b.CreateLoad(cg_.i64(), st.added)));
    if (!subtracts) afresh = b.CreateOr(afresh, b.CreateICmpNE(frameStart, from));
    auto restart = [&] {
      resetWindowState(st, frameStart);
      cg_.checkCancel();  // up to k rows for every row: Ctrl-C and statement_timeout must reach it
    };
    if (subtracts) cg_.If(afresh, restart, [&] { addToWindowState(w, st, from, frameStart, true); });
    else cg_.If(afresh, restart);
    b.CreateStore(frameStart, st.from);
  }
  addToWindowState(w, st, b.CreateLoad(cg_.i64(), st.added), frameEnd, false);
  b.CreateStore(frameEnd, st.added);
  storeWindowAggregate(w, st, row, out);
}

// min or max over a frame whose start moves, in O(1) a row on average (the sliding-window
// extreme): the deque holds, in row order, the frame's rows that no later row of it beats (for max:
// each value above all values after it), so its front is the frame's extreme. A row the frame
// gains first takes the rows it beats off the back (ties too: the later row stays longer), a start
// that moved takes the rows it left off the front. Each row enters and leaves once. NULLs never
// enter; an empty deque is a NULL result (the state's count is the deque's length).
void SortTranslator::slidingExtremeStep(const plan::WindowCall& w, const WindowState& st, llvm::Value* row,
                                        uint32_t out, llvm::Value* first, llvm::Value* frameStart,
                                        llvm::Value* frameEnd) {
  auto& b = cg_.b;
  llvm::Value* buf = cg_.loadPtr(cg_.stateSlot(slot_));
  auto load = [&](llvm::AllocaInst* at) { return b.CreateLoad(cg_.i64(), at); };
  auto slot = [&](llvm::Value* k) { return cg_.call("hyrax_rt_buf_row", {st.deque, k}); };
  auto rowOf = [&](llvm::Value* k) { return b.CreateLoad(cg_.i64(), slot(k)); };  // the row number in deque place k
  auto valueAt = [&](llvm::Value* j) { return layout_.load(cg_, cg_.call("hyrax_rt_buf_row", {buf, j}), fieldOf(*w.args[0])); };
  auto valueOf = [&](llvm::Value* j) {  // of a row in the deque: never NULL
    SqlValue v = valueAt(j);
    v.null = nullptr;
    return v;
  };
  // A new partition, or a frame after the rows held (empty frames leave gaps): an empty deque.
  cg_.If(b.CreateOr(first, b.CreateICmpSGT(frameStart, load(st.added))), [&] {
    b.CreateStore(frameStart, st.added);
    b.CreateStore(cg_.c64(0), st.head);
    b.CreateStore(cg_.c64(0), st.tail);
  });
  const plan::CmpOp beaten = w.aggregate == AggFunc::Max ? plan::CmpOp::Le : plan::CmpOp::Ge;
  cg_.ForRange(load(st.added), frameEnd, [&](llvm::Value* j) {
    SqlValue x = valueAt(j);
    auto enter = [&] {
      SqlValue in = x;
      in.null = nullptr;
      auto* more = cg_.local(b.getInt1Ty(), "window_beaten");
      cg_.While(
          [&] {  // the back is a row that `in` beats
            b.CreateStore(b.getFalse(), more);
            llvm::Value* tail = load(st.tail);
            cg_.If(b.CreateICmpSGT(tail, load(st.head)), [&] {
              b.CreateStore(q_.expr.compare(beaten, valueOf(rowOf(b.CreateSub(tail, cg_.c64(1)))), in), more);
            });
            return b.CreateLoad(b.getInt1Ty(), more);
          },
          [&] { b.CreateStore(b.CreateSub(load(st.tail), cg_.c64(1)), st.tail); });
      llvm::Value* tail = load(st.tail);
      cg_.If(b.CreateICmpULT(tail, cg_.call("hyrax_rt_buf_count", {st.deque})),
             [&] { b.CreateStore(j, slot(tail)); },
             [&] { b.CreateStore(j, cg_.checkNotNull(cg_.call("hyrax_rt_buf_append", {cg_.queryContext(), st.deque}))); });
      b.CreateStore(b.CreateAdd(tail, cg_.c64(1)), st.tail);
    };
    if (x.null) cg_.If(b.CreateNot(x.null), enter);
    else enter();
  });
  b.CreateStore(frameEnd, st.added);
  auto* left = cg_.local(b.getInt1Ty(), "window_left");
  cg_.While(
      [&] {  // the front is a row before the frame's start
        b.CreateStore(b.getFalse(), left);
        llvm::Value* head = load(st.head);
        cg_.If(b.CreateICmpSLT(head, load(st.tail)),
               [&] { b.CreateStore(b.CreateICmpSLT(rowOf(head), frameStart), left); });
        return b.CreateLoad(b.getInt1Ty(), left);
      },
      [&] { b.CreateStore(b.CreateAdd(load(st.head), cg_.c64(1)), st.head); });
  llvm::Value* head = load(st.head);
  llvm::Value* held = b.CreateSub(load(st.tail), head);
  b.CreateStore(held, st.count);
  cg_.If(b.CreateICmpSGT(held, cg_.c64(0)), [&] { cg_.storeValue(st.value, valueOf(rowOf(head))); });
  storeWindowAggregate(w, st, row, out);
}

// Frames from a moving start to the partition's end (ROWS CURRENT ROW AND UNBOUNDED FOLLOWING,
// RANGE CURRENT ROW ..., n PRECEDING ...): walking the rows backwards, such a frame only grows, so
// each row adds the rows from its frame's start to where the state's rows begin. O(n) for every
// aggregate (floating-point sums add in the other order than a forward pass would).
void SortTranslator::suffixAggregatePass(const plan::WindowCall& w, const WindowState& st, uint32_t boundsField,
                                         uint32_t out) {
  auto& b = cg_.b;
  llvm::Value* buf = cg_.loadPtr(cg_.stateSlot(slot_));
  llvm::Value* rows = cg_.call("hyrax_rt_buf_count", {buf});
  cg_.ForRange(cg_.c64(0), rows, [&](llvm::Value* j) {
    llvm::Value* i = b.CreateSub(b.CreateSub(rows, cg_.c64(1)), j);
    llvm::Value* row = cg_.call("hyrax_rt_buf_row", {buf, i});
    const RowBounds r = rowBounds(row, i, boundsField);
    cg_.If(b.CreateICmpEQ(i, b.CreateSub(r.partEnd, cg_.c64(1))), [&] { resetWindowState(st, r.partEnd); });
    llvm::Value* frameStart = framePosition(w, w.start, false, r);
    llvm::Value* from = b.CreateLoad(cg_.i64(), st.from);
    addToWindowState(w, st, frameStart, from, false);  // nothing when the start did not move
    b.CreateStore(b.CreateSelect(b.CreateICmpSLT(frameStart, from), frameStart, from), st.from);
    storeWindowAggregate(w, st, row, out);
  });
}

void SortTranslator::resetWindowState(const WindowState& st, llvm::Value* from) {
  auto& b = cg_.b;
  b.CreateStore(from, st.from);
  b.CreateStore(from, st.added);
  b.CreateStore(cg_.c64(0), st.count);
  b.CreateStore(llvm::Constant::getNullValue(st.value->getAllocatedType()), st.value);
}

// Adds the rows [from, to) to the state, or (remove) takes them away: count and sum only, each row
// once added.
void SortTranslator::addToWindowState(const plan::WindowCall& w, const WindowState& st, llvm::Value* from,
                                      llvm::Value* to, bool remove) {
  auto& b = cg_.b;
  llvm::Value* buf = cg_.loadPtr(cg_.stateSlot(slot_));
  llvm::Value* step = cg_.c64(remove ? -1 : 1);
  cg_.ForRange(from, to, [&](llvm::Value* j) {
    llvm::Value* count = b.CreateLoad(cg_.i64(), st.count);
    if (w.aggregate == AggFunc::CountStar) {
      b.CreateStore(b.CreateAdd(count, step), st.count);
      return;
    }
    SqlValue x = layout_.load(cg_, cg_.call("hyrax_rt_buf_row", {buf, j}), fieldOf(*w.args[0]));
    auto add = [&] {
      b.CreateStore(b.CreateAdd(count, step), st.count);
      if (w.aggregate == AggFunc::Count) return;
      SqlValue in = x;
      in.null = nullptr;
      llvm::Value* none = b.CreateICmpEQ(count, cg_.c64(0));
      if (w.aggregate == AggFunc::Sum || w.aggregate == AggFunc::Avg) {
        SqlValue cur = cg_.loadValue(st.value, st.type);
        if (st.type.isFloat()) {
          cur.v = b.CreateFAdd(b.CreateSelect(none, llvm::ConstantFP::get(cg_.f64(), 0.0), cur.v), q_.expr.cast(in, st.type).v);
        } else {
          // (taking rows away can overflow too: the rows left may add up to more than all did)
          llvm::Value* pair = b.CreateBinaryIntrinsic(
              remove ? llvm::Intrinsic::ssub_with_overflow : llvm::Intrinsic::sadd_with_overflow,
              b.CreateSelect(none, cg_.c64(0), cur.v), b.CreateSExt(in.v, cg_.i64()));
          cg_.raiseIf(b.CreateExtractValue(pair, 1), HYRAX_ERR_OVERFLOW);
          cur.v = b.CreateExtractValue(pair, 0);
        }
        cg_.storeValue(st.value, cur);
        return;
      }
      // min, max: the first value, then a better one (the state holds nothing to compare before)
      cg_.If(none, [&] { cg_.storeValue(st.value, in); }, [&] {
        SqlValue cur = cg_.loadValue(st.value, st.type);
        llvm::Value* better = q_.expr.compare(w.aggregate == AggFunc::Min ? plan::CmpOp::Lt : plan::CmpOp::Gt, in, cur);
        cg_.If(better, [&] { cg_.storeValue(st.value, in); });
      });
    };
    if (x.null) cg_.If(b.CreateNot(x.null), add);
    else add();
  });
}

// The state's value read out as the aggregation's output is: NULL where no value was counted.
void SortTranslator::storeWindowAggregate(const plan::WindowCall& w, const WindowState& st, llvm::Value* row,
                                          uint32_t out) {
  auto& b = cg_.b;
  llvm::Value* count = b.CreateLoad(cg_.i64(), st.count);
  SqlValue v;
  v.type = w.iu->type;
  if (w.aggregate == AggFunc::CountStar || w.aggregate == AggFunc::Count) {
    v.v = count;
    layout_.store(cg_, row, out, v);
    return;
  }
  llvm::Value* empty = b.CreateICmpEQ(count, cg_.c64(0));
  SqlValue cur = cg_.loadValue(st.value, st.type);
  v.v = cur.v;
  v.hi = cur.hi;
  v.null = empty;
  if (w.aggregate == AggFunc::Avg) v.v = averageOf(cg_, cur.v, st.type, count, empty, w.iu->type);
  layout_.store(cg_, row, out, v);
}

}  // namespace hyrax::codegen
