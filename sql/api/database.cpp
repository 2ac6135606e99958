#include "sql/api/database.hpp"
#include "sql/api/procedure.hpp"
#include "sql/api/roles.hpp"
#include "sql/api/session_settings.hpp"
#include "sql/api/snapshot.hpp"

#include "codegen/translate/query_compiler.hpp"
#include "engine/catalog/catalog.hpp"
#include "engine/txn/serial_executor.hpp"

namespace hyrax {

Database::Database()
    : catalog_(std::make_unique<Catalog>()), routines_(std::make_unique<sql::Routines>()), roles_(std::make_unique<sql::Roles>()),
      executor_(std::make_unique<SerialExecutor>()),
      snapshots_(std::make_unique<sql::SnapshotPool>(
          [this](const sql::SnapshotRequest& r) { return Connection::serveSnapshotRequest(*this, r); })) {
  // The binder sees stored functions through the catalog (engine/ knows nothing of sql/).
  catalog_->findRoutine = [this](const std::string& name, RoutineSignature& out) {
    auto def = routines_->definition(name);
    if (!def) return false;
    out.params.clear();
    out.paramNames.clear();
    for (auto& p : def->params) {
      out.params.push_back(p.type);
      out.paramNames.push_back(p.name);
    }
    out.result = def->returns;
    out.procedure = def->procedure;
    return true;
  };
  catalog_->routineNames = [this] { return routines_->names(); };
  catalog_->settingDescriptions = [] { return SessionSettings::descriptions(); };
  catalog_->roleList = [this] {
    std::vector<RoleDescription> out;
    for (const sql::Role& r : roles_->list()) out.push_back({r.name, r.login, !r.verifier.empty()});
    return out;
  };
}
// Its sessions' compiled queries are gone by now, and with them what the background would still
// compile for them; the one compiling is waited for, so that no compile runs while the process
// exits (codegen::waitForBackgroundCompiles says why).
Database::~Database() { codegen::waitForBackgroundCompiles(); }
Catalog& Database::catalog() { return *catalog_; }
SerialExecutor& Database::executor() { return *executor_; }
sql::Routines& Database::routines() { return *routines_; }
sql::Roles& Database::roles() { return *roles_; }
sql::SnapshotPool& Database::snapshots() { return *snapshots_; }
void Database::setLockTimeout(std::chrono::milliseconds timeout) { executor_->setLockTimeout(timeout); }

}  // namespace hyrax
