#pragma once
// Stored procedures and functions: CREATE FUNCTION / CREATE PROCEDURE ... LANGUAGE plpgsql.
//
// A body compiles once, at CREATE (and again after the schema changed): every SQL statement,
// condition, assignment and RAISE argument list becomes a plan of its own, and all of them are
// compiled together into one LLVM module. Variables and parameters are the plans' parameter
// slots, shared by every plan of a call, so a SELECT ... INTO writes the slot a later statement
// reads. The body's control flow (IF, loops, EXIT, RETURN, EXCEPTION blocks) becomes one
// generated function in the same module that calls the plans directly, asking the call only for
// what needs C++ (a write's rows, FOR-query rows, RAISE, CALL, RETURN, and whether a block's
// handler catches an error, after undoing the block's writes).
// Calling a procedure therefore costs no parsing, planning or interpreting of its statements.
#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/runtime/routine_caller.hpp"
#include "sql/api/database.hpp"
#include "sql/parser/ast.hpp"

namespace hyrax {
class Catalog;
class UndoLog;
}  // namespace hyrax

namespace hyrax::sql {

struct Procedure;  // procedure.cpp

// The procedures and functions of a database, by name (a namespace of their own, as in
// PostgreSQL; one routine per name). Creating and dropping them is transactional.
class Routines {
 public:
  Routines();
  ~Routines();

  QueryResult create(Catalog& catalog, UndoLog& undo, std::unique_ptr<ast::CreateFunctionStmt> stmt, PhaseTimes& times);
  QueryResult drop(Catalog& catalog, UndoLog& undo, const ast::DropTableStmt& stmt);  // DROP FUNCTION / PROCEDURE

  // CALL p(args) or SELECT f(args): arguments are constant expressions. A function's value is a
  // one-row result; a RAISE EXCEPTION (or any error) is thrown, and the caller's statement
  // savepoint undoes everything the call did.
  QueryResult call(Catalog& catalog, UndoLog& undo, const ast::CallStmt& stmt, const std::atomic<bool>* cancel,
                   PhaseTimes& times);
  // The same with argument values already at hand (the embedding API and the bench).
  QueryResult call(Catalog& catalog, UndoLog& undo, const std::string& name, const std::vector<Value>& args,
                   const std::atomic<bool>* cancel);
  // A routine by handle (a call site's: a function in a query, a CALL in a body): its name is
  // looked up only when the catalog's version moved since the handle last resolved. Null when
  // no routine has that name.
  std::shared_ptr<Procedure> resolve(Catalog& catalog, RoutineHandle& handle);
  QueryResult run(Catalog& catalog, UndoLog& undo, const std::shared_ptr<Procedure>& p, const std::vector<Value>& args,
                  const std::atomic<bool>* cancel);

  bool exists(const std::string& name) const { return routines_.count(name) > 0; }
  // A CALL of a function or SELECT of a procedure (42809), or a wrong number of arguments (42883).
  static void checkCall(const ast::CallStmt& stmt, const ast::CreateFunctionStmt& def);
  std::vector<std::string> names() const;  // sorted
  // The definition of a routine, or null.
  std::shared_ptr<const ast::CreateFunctionStmt> definition(const std::string& name) const;

 private:
  std::shared_ptr<Procedure> find(const std::string& name, SourcePos pos) const;
  // The routine `name` compiled for the catalog's current version (compiled again if the schema
  // changed since), or null.
  std::shared_ptr<Procedure> current(Catalog& catalog, const std::string& name);
  std::map<std::string, std::shared_ptr<Procedure>> routines_;
};

// One session's stored functions as generated code calls them (SELECT f(x) FROM t): installed
// for the session's statements with a RoutineCallerScope.
class SessionRoutines : public RoutineCaller {
 public:
  SessionRoutines(Routines& routines, Catalog& catalog, UndoLog& undo, const std::atomic<bool>* cancel)
      : routines_(routines), catalog_(catalog), undo_(undo), cancel_(cancel) {}
  void call(QueryContext& ctx, RoutineHandle& routine, const ValueSlot* args, uint32_t count, ValueSlot* out) override;

 private:
  Routines& routines_;
  Catalog& catalog_;
  UndoLog& undo_;
  const std::atomic<bool>* cancel_;
};

}  // namespace hyrax::sql
