// ALTER TABLE (SQL-92's forms, and PostgreSQL's SET/DROP NOT NULL, RENAME and IF [NOT] EXISTS;
// ast.hpp: AlterTableStmt). Column type changes are refused as not supported yet.
#include "sql/parser/parser_internal.hpp"

namespace hyrax::sqlparse {

StatementPtr Parser::alterTable(SourcePos pos) {
  auto a = std::make_unique<AlterTableStmt>(pos);
  if (accept("if")) {
    expect("exists");
    a->ifExists = true;
  }
  accept("only");  // PostgreSQL's "no inheritance": there is none here
  a->namePos = cur().pos;
  a->name = identifier();
  if (is("rename")) {
    AlterTableAction act;
    act.pos = cur().pos;
    ++i_;
    if (accept("to")) {
      act.kind = AlterTableAction::Kind::RenameTable;
    } else {
      if (is("constraint"))
        throw Error(sqlstate::FeatureNotSupported, "ALTER TABLE ... RENAME CONSTRAINT is not supported yet", cur().pos);
      accept("column");
      act.kind = AlterTableAction::Kind::RenameColumn;
      act.namePos = cur().pos;
      act.name = identifier();
      expect("to");
    }
    act.newNamePos = cur().pos;
    act.newName = identifier();
    a->actions.push_back(std::move(act));
    return a;
  }
  do {
    AlterTableAction act;
    act.pos = cur().pos;
    auto ifExists = [&](bool notExists) {
      if (!accept("if")) return false;
      if (notExists) expect("not");
      expect("exists");
      return true;
    };
    if (accept("add")) {
      if (is("constraint") || is("primary") || is("unique") || is("check") || is("foreign")) {
        act.kind = AlterTableAction::Kind::AddConstraint;
        act.constraints.push_back(constraint(nullptr));
      } else {
        accept("column");
        act.kind = AlterTableAction::Kind::AddColumn;
        act.ifExists = ifExists(true);
        act.columns.push_back(columnDefinition(act.constraints));
      }
    } else if (accept("drop")) {
      act.kind = accept("constraint") ? AlterTableAction::Kind::DropConstraint
                                      : (accept("column"), AlterTableAction::Kind::DropColumn);
      act.ifExists = ifExists(false);
      act.namePos = cur().pos;
      act.name = identifier();
      act.cascade = accept("cascade");  // [RESTRICT | CASCADE]
      if (!act.cascade) accept("restrict");
    } else if (accept("alter")) {
      accept("column");
      act.namePos = cur().pos;
      act.name = identifier();
      if (is("type") || (is("set") && ahead(1).is("data")))
        throw Error(sqlstate::FeatureNotSupported, "ALTER TABLE ... ALTER COLUMN ... TYPE is not supported yet", cur().pos);
      if (accept("set")) {
        if (accept("default")) {
          act.kind = AlterTableAction::Kind::SetDefault;
          act.defaultValue = expr();
        } else {
          expect("not");
          expect("null");
          act.kind = AlterTableAction::Kind::SetNotNull;
        }
      } else {
        expect("drop");
        if (accept("default")) {
          act.kind = AlterTableAction::Kind::DropDefault;
        } else {
          expect("not");
          expect("null");
          act.kind = AlterTableAction::Kind::DropNotNull;
        }
      }
    } else {
      syntaxError();
    }
    a->actions.push_back(std::move(act));
  } while (accept(","));
  return a;
}

}  // namespace hyrax::sqlparse
