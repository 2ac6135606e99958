#include "sql/api/database.hpp"
#include "sql/api/compiled_statement.hpp"
#include "sql/api/procedure.hpp"
#include "sql/api/roles.hpp"
#include "sql/api/session_settings.hpp"
#include "sql/api/snapshot.hpp"

#include "codegen/translate/query_compiler.hpp"
#include "engine/catalog/catalog.hpp"
#include "engine/runtime/thread_scope.hpp"
#include "engine/txn/serial_executor.hpp"
#include "sql/parser/parser.hpp"

namespace hyrax {

namespace {
// A process's first codegen sets up what every later one reuses (LLVM's lazily bound symbols and
// lazily made statics, the host CPU's name and features): `SELECT 1` took 3.1 ms of codegen in a
// fresh process against 0.1 after. A snapshot's workers are forks of a process that may never have
// compiled (the executor, when every query goes to snapshots and writes need no codegen), so each
// worker paid it on its first query: 3-5 ms of codegen on a fresh snapshot where a parent that had
// compiled once gave 0.5 (TPC-H's nation, a write between queries). Done once, on the executor,
// before the first fork. A failure only leaves it undone.
void warmCodegen(Catalog& catalog) {
  try {
    codegen::ExecutionPolicy policy;
    ThreadScope<const codegen::ExecutionPolicy> scope(&policy);
    PhaseTimes times;
    sql::compileStatement(catalog, *parseStatement("SELECT 1"), {}, times);
  } catch (const std::exception&) {
  }
}
}  // namespace

Database::Database()
    : catalog_(std::make_unique<Catalog>()), routines_(std::make_unique<sql::Routines>()), roles_(std::make_unique<sql::Roles>()),
      executor_(std::make_unique<SerialExecutor>()),
      snapshots_(std::make_unique<sql::SnapshotPool>(
          [this](const sql::SnapshotRequest& r) { return Connection::serveSnapshotRequest(*this, r); },
          [this] { warmCodegen(*catalog_); })) {
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
