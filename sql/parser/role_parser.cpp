// CREATE/ALTER/DROP ROLE and USER (PostgreSQL's grammar; ast.hpp: RoleStmt).
#include "sql/parser/parser_internal.hpp"

namespace hyrax::sqlparse {

StatementPtr Parser::role(SourcePos pos, RoleStmt::Op op) {
  const bool user = accept("user");
  if (!user) expect("role");
  auto r = std::make_unique<RoleStmt>(pos, op);
  if (op == RoleStmt::Op::Drop) {
    if (accept("if")) {
      expect("exists");
      r->ifExists = true;
    }
    do {
      r->namePos.push_back(cur().pos);
      r->names.push_back(identifier());
    } while (accept(","));
    return r;
  }
  r->namePos.push_back(cur().pos);
  r->names.push_back(identifier());
  if (op == RoleStmt::Op::Create && user) r->login = true;
  accept("with");
  // Options PostgreSQL has that hyrax takes without effect: no privileges are checked yet.
  static const char* const kIgnored[] = {"superuser", "nosuperuser", "createdb", "nocreatedb", "createrole",
                                         "nocreaterole", "inherit", "noinherit", "replication", "noreplication",
                                         "bypassrls", "nobypassrls"};
  for (;;) {
    if (accept("login")) {
      r->login = true;
    } else if (accept("nologin")) {
      r->login = false;
    } else if (is("password") || (is("encrypted") && ahead(1).is("password"))) {
      accept("encrypted");
      expect("password");
      r->setsPassword = true;
      if (accept("null")) r->password.reset();
      else r->password = stringLiteral();
    } else if (accept("connection")) {
      expect("limit");
      if (!accept("-")) accept("+");
      unsignedNumber();
    } else if (accept("valid")) {
      expect("until");
      stringLiteral();
    } else {
      bool ignored = false;
      for (const char* w : kIgnored)
        if ((ignored = accept(w))) break;
      if (!ignored) break;
    }
  }
  return r;
}

}  // namespace hyrax::sqlparse
