// Roles (roles.hpp).
#include "sql/api/roles.hpp"

#include <pthread.h>

#include "engine/txn/undo_log.hpp"
#include "sql/api/scram_verifier.hpp"
#include "sql/parser/ast.hpp"

namespace hyrax::sql {

namespace {

// What PASSWORD sets: a SCRAM verifier given as such is kept as it is (a dump's ALTER ROLE, as
// PostgreSQL does); '' clears the password like NULL (PostgreSQL: it is no valid password).
std::string verifierOf(const ast::RoleStmt& r, QueryResult& result) {
  if (!r.password) return "";
  if (r.password->empty()) {
    result.notices.push_back({"NOTICE", "empty string is not a valid password, clearing password"});
    return "";
  }
  if (scram::parseVerifier(*r.password)) return *r.password;
  return scram::makeVerifier(*r.password);
}

}  // namespace

namespace {

// One mutex for every database's roles (logins and role DDL are rare), held across fork() by
// pthread_atfork: the server's threads look roles up while the executor forks snapshots, and a
// child that inherited the mutex locked would hang the first query of pg_roles it served.
std::mutex& rolesMutex() {
  static std::mutex* m = [] {
    auto* created = new std::mutex;  // never destroyed: atfork handlers outlive static destruction
    pthread_atfork([] { rolesMutex().lock(); }, [] { rolesMutex().unlock(); }, [] { rolesMutex().unlock(); });
    return created;
  }();
  return *m;
}

}  // namespace

std::optional<Role> Roles::find(const std::string& name) const {
  std::lock_guard lock(rolesMutex());
  auto it = roles_.find(name);
  if (it == roles_.end()) return std::nullopt;
  return it->second;
}

std::vector<Role> Roles::list() const {
  std::lock_guard lock(rolesMutex());
  std::vector<Role> out;
  for (const auto& [name, role] : roles_) out.push_back(role);
  return out;
}

void Roles::put(Role role) {
  std::lock_guard lock(rolesMutex());
  std::string name = role.name;
  roles_[name] = std::move(role);
}

void Roles::erase(const std::string& name) {
  std::lock_guard lock(rolesMutex());
  roles_.erase(name);
}

QueryResult Roles::apply(UndoLog& undo, const ast::RoleStmt& r) {
  using Op = ast::RoleStmt::Op;
  auto missing = [&](size_t i) {
    return Error(sqlstate::UndefinedObject, "role \"" + r.names[i] + "\" does not exist", r.namePos[i]);
  };
  switch (r.op) {
    case Op::Create: {
      if (find(r.names[0])) throw Error(sqlstate::DuplicateObject, "role \"" + r.names[0] + "\" already exists", r.namePos[0]);
      QueryResult result({}, {}, "CREATE ROLE");
      Role role{r.names[0], r.login.value_or(false), r.setsPassword ? verifierOf(r, result) : ""};
      put(std::move(role));
      undo.logAction([this, name = r.names[0]] { erase(name); });
      return result;
    }
    case Op::Alter: {
      std::optional<Role> old = find(r.names[0]);
      if (!old) throw missing(0);
      QueryResult result({}, {}, "ALTER ROLE");
      Role role = *old;
      if (r.login) role.login = *r.login;
      if (r.setsPassword) role.verifier = verifierOf(r, result);
      put(std::move(role));
      undo.logAction([this, old = *old] { put(old); });
      return result;
    }
    case Op::Drop: {
      QueryResult result({}, {}, "DROP ROLE");
      for (size_t i = 0; i < r.names.size(); ++i)  // all checked first: a failed DROP drops nothing
        if (!find(r.names[i]) && !r.ifExists) throw missing(i);
      for (const std::string& name : r.names) {
        std::optional<Role> old = find(name);
        if (!old) {
          result.notices.push_back({"NOTICE", "role \"" + name + "\" does not exist, skipping"});
          continue;
        }
        erase(name);
        undo.logAction([this, old = *old] { put(old); });
      }
      return result;
    }
  }
  throw Error(sqlstate::InternalError, "unknown role statement");
}

}  // namespace hyrax::sql
