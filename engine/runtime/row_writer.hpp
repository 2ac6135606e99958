#pragma once
// A write statement whose plan yields at most one row (INSERT of one VALUES row; UPDATE or DELETE
// of the row a unique index finds: most of a transaction's writes) hands that row to its table
// from generated code, with no result chunk between plan and table: the plan's sink lays the row
// out in value slots (value_slot.hpp) and calls
// hyrax_rt_write_row with the statement's writer. sql/api/table_writer.cpp implements them; the
// engine knows only this interface. Other writes collect their rows in result chunks first, so
// that no row is changed while the plan still reads the table.
#include <cstdint>

namespace hyrax {

class QueryContext;
struct ValueSlot;

class RowWriter {
 public:
  virtual ~RowWriter() = default;
  // Applies one row to the table, undo-logged in ctx.undo(), its constraints checked: throws
  // hyrax::Error after undoing what the row did not log. hyrax_rt_write_row turns the exception
  // into the query's error and a status: it never unwinds through generated code.
  virtual void write(QueryContext& ctx, const ValueSlot* row) = 0;
};

}  // namespace hyrax
