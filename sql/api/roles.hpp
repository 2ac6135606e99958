#pragma once
// Roles (CREATE/ALTER/DROP ROLE and USER): a name, whether it may log in, and its password as a
// SCRAM-SHA-256 verifier (scram_verifier.hpp), never the password itself. The server asks here
// whom it lets in (find(), from its own threads: a mutex guards the map, held across fork()); the statements change it
// on the executor thread, inside the session's transaction (a ROLLBACK undoes them). hyrax checks
// no privileges yet: SUPERUSER and the like are accepted and not kept.
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "sql/api/database.hpp"

namespace hyrax {
class UndoLog;
namespace ast {
struct RoleStmt;
}
}  // namespace hyrax

namespace hyrax::sql {

struct Role {
  std::string name;
  bool login = false;
  std::string verifier;  // "SCRAM-SHA-256$..."; empty: no password (no password login)
};

class Roles {
 public:
  std::optional<Role> find(const std::string& name) const;  // any thread
  std::vector<Role> list() const;                            // by name

  // CREATE, ALTER or DROP ROLE: 42710 when a created role exists, 42704 when an altered or dropped
  // one does not (DROP IF EXISTS: a notice). Errors never show the password.
  QueryResult apply(UndoLog& undo, const ast::RoleStmt& stmt);

 private:
  void put(Role role);  // under the mutex
  void erase(const std::string& name);

  std::map<std::string, Role> roles_;
};

}  // namespace hyrax::sql
