#pragma once
// A table's integrity constraints as the catalog keeps them. PRIMARY KEY and UNIQUE are enforced
// through the index of the same name (engine/index); CHECK keeps its expression's text, which
// sql/ binds against the table's columns wherever rows are written; a FOREIGN KEY points at the
// referenced table, which keeps a back-reference so a DELETE or UPDATE there can find it.
#include <cstdint>
#include <string>
#include <vector>

namespace hyrax {

class Table;

struct CheckConstraint {
  std::string name;
  std::string sql;  // the expression, as written
};

struct ForeignKey {
  std::string name;
  Table* referencing = nullptr;
  std::vector<uint32_t> columns;  // in the referencing table
  Table* referenced = nullptr;
  std::vector<uint32_t> referencedColumns;  // a PRIMARY KEY or UNIQUE of the referenced table
  // ON DELETE: what happens to referencing rows when their referenced row goes (NO ACTION and
  // RESTRICT: the DELETE fails; CASCADE: they go too; SET NULL / SET DEFAULT: their key changes).
  enum class OnDelete : uint8_t { NoAction, Cascade, SetNull, SetDefault } onDelete = OnDelete::NoAction;
};

}  // namespace hyrax
