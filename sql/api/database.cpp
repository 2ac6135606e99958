#include "sql/api/database.hpp"
#include "sql/api/procedure.hpp"

#include "engine/catalog/catalog.hpp"
#include "engine/txn/serial_executor.hpp"

namespace hyrax {

Database::Database()
    : catalog_(std::make_unique<Catalog>()), routines_(std::make_unique<sql::Routines>()),
      executor_(std::make_unique<SerialExecutor>()) {}
Database::~Database() = default;
Catalog& Database::catalog() { return *catalog_; }
SerialExecutor& Database::executor() { return *executor_; }
sql::Routines& Database::routines() { return *routines_; }
void Database::setLockTimeout(std::chrono::milliseconds timeout) { executor_->setLockTimeout(timeout); }

}  // namespace hyrax
