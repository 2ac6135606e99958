#pragma once
// Internal to the binder: the state of binding one SELECT (its scope, its aggregation) and the
// expression binder that works in it.
#include <array>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "codegen/plan/clone.hpp"
#include "codegen/plan/operator.hpp"
#include "sql/parser/ast.hpp"

namespace hyrax {
class Catalog;
class Table;
}

namespace hyrax::sql {

// The tables (and derived tables) a SELECT's FROM makes visible.
struct ScopeEntry {
  std::string alias;
  std::vector<std::pair<std::string, const plan::IU*>> columns;
  // Names only `alias.name` reaches: a JOIN ... USING's columns, whose merged column (in an entry
  // of its own, without alias) is what the bare name and SELECT * mean.
  std::set<std::string> qualifiedOnly;
};

// Where an expression stands decides what it may contain.
enum class Clause { Where, On, GroupBy, Select, Having, OrderBy, AggregateArg, Values, Limit, Check, Returning };
const char* clauseName(Clause c);  // "WHERE", "GROUP BY" ... for error messages
// The comparison an AST operator symbol ("=", "<>", "<" ...) stands for; nullopt for others.
std::optional<plan::CmpOp> comparisonOperator(const std::string& symbol);

class SelectBinder {
 public:
  // `outer`: the SELECT a subquery stands in, whose names it may use (correlation).
  SelectBinder(Catalog& catalog, plan::QueryPlan& plan, SelectBinder* outer = nullptr)
      : catalog_(catalog), plan_(plan), outer_(outer), parent_(outer) {}

  // Binds the whole SELECT; returns its operator tree, output IUs and names.
  plan::OperatorPtr bind(const ast::Select& s, std::vector<const plan::IU*>& output, std::vector<std::string>& names);

  // An aggregate inside a subquery whose argument reads only this SELECT's columns is this
  // SELECT's (SQL: an aggregate belongs to the innermost query whose columns it reads). Found
  // while binding the subquery, after this SELECT already chose whether it aggregates: its node
  // is noted here and binding starts over (`RetryBinding`), now aggregating, and the subquery
  // reads the aggregate's value as an outer column.
  struct RetryBinding {
    const SelectBinder* owner;
  };

  // Expressions (expression_binder.cpp).
  plan::ExprPtr bindExpr(const ast::Expr& e, Clause clause);

  // UPDATE and DELETE (dml_binder.cpp): scans `table` as `alias`, every column (their IUs into
  // `columns`) and the row number (`rowNumber`), filtered by `where`; the columns stay in scope.
  plan::OperatorPtr bindTarget(Table& table, const std::string& alias, const ast::Expr* where,
                               const plan::IU*& rowNumber, std::vector<const plan::IU*>& columns);
  // An expression whose subqueries join onto `input` (SET values).
  plan::ExprPtr bindOver(plan::OperatorPtr& input, const ast::Expr& e, Clause clause);
  // Makes names visible (CHECK constraints see the new row's columns).
  void addScope(ScopeEntry entry) { scope_.push_back(std::move(entry)); }
  // RETURNING's items over `input` (bindTarget's scan; subqueries join onto it): `*` and `t.*`
  // are every column in scope, the others named as a select list's (dml_binder.cpp).
  plan::OperatorPtr bindReturningList(plan::OperatorPtr input, const std::vector<ast::SelectItem>& items,
                                      std::vector<const plan::IU*>& output, std::vector<std::string>& names);

 private:
  plan::OperatorPtr bindFrom(const ast::Select& s);
  // UNION / INTERSECT / EXCEPT with their ORDER BY and LIMIT (set_operation_binder.cpp).
  plan::OperatorPtr bindSetOperation(const ast::Select& s, std::vector<const plan::IU*>& output,
                                     std::vector<std::string>& names);
  // VALUES (...), (...) (set_operation_binder.cpp): each column of the rows' common type.
  plan::OperatorPtr bindValues(const ast::Select& s, std::vector<const plan::IU*>& output,
                               std::vector<std::string>& names);
  // ORDER BY output columns (by name or position) and LIMIT of a set operation or VALUES.
  plan::OperatorPtr orderOutputs(plan::OperatorPtr op, const ast::Select& s, const std::vector<const plan::IU*>& out,
                                 const std::vector<std::string>& names, const char* what);
  plan::OperatorPtr bindTableRef(const ast::TableRef& ref);
  plan::OperatorPtr bindScan(Table& table, const ast::TableRef& ref, const std::string& name);
  // A table function in FROM (table_functions.cpp): read_json('file') loads the file into a
  // table the plan owns.
  Table& bindTableFunction(const ast::TableRef& ref);
  // pg_catalog's or information_schema's table `name` (system_catalog.hpp), made for this plan
  // once; null when the schema has none of that name.
  Table* systemTable(const std::string& schema, const std::string& name);
  // JOIN ... USING / NATURAL JOIN (join_using.cpp): the names (usingNames: USING's, or those both
  // sides have), and the equalities of those columns of the left scope entries [leftScope,
  // rightScope) and the right ones [rightScope, end).
  plan::ExprPtr usingCondition(const ast::TableRef& ref, const std::vector<std::string>& names, size_t leftScope,
                               size_t rightScope);
  // After the join (its outer columns in scope): the merged columns in a scope entry of their
  // own before the join's, the sides' own ones reachable only qualified; FULL JOIN's merged
  // columns are COALESCE(left, right), computed in a Map above `join`.
  plan::OperatorPtr mergeUsingColumns(const ast::TableRef& ref, const std::vector<std::string>& names,
                                      plan::OperatorPtr join, size_t leftScope, size_t rightScope);
  std::vector<std::string> usingNames(const ast::TableRef& ref, size_t leftScope, size_t rightScope) const;
  // A derived table (subquery in FROM or a WITH query) under `alias`, its columns renamed.
  // `outer`: the SELECT the derived table's own SELECT may read columns of (none for views).
  plan::OperatorPtr bindDerived(const ast::Select& query, SelectBinder* parent, const std::string& alias,
                                const std::vector<std::string>& columnAliases, SourcePos pos,
                                SelectBinder* outer = nullptr);
  // The scope entry of a derived table or WITH query: its output `ius` under `alias`, named by
  // `columnAliases` where given, else `names` (42P10 for more aliases than columns).
  void addDerivedScope(const std::string& alias, const std::vector<std::string>& columnAliases,
                       const std::vector<std::string>& names, const std::vector<const plan::IU*>& ius, SourcePos pos);
  // This SELECT's WITH list (common_table_binder.cpp): every query of it bound into
  // plan::QueryPlan::commonTables, in order, read or not (an unread one is dropped unrun).
  void bindCommonTables(const std::vector<ast::CommonTableExpr>& with);
  // A reference to `owner`'s WITH query `cte`: a plan::CteScan of it.
  plan::OperatorPtr bindCommonTableRef(SelectBinder& owner, const ast::CommonTableExpr& cte, const ast::TableRef& ref);
  plan::OperatorPtr addFilter(plan::OperatorPtr op, const ast::Expr& cond, Clause clause, const char* name);
  // Rewrites f(DISTINCT x) into an aggregation over a duplicate-free inner one.
  void splitDistinctAggregates(plan::OperatorPtr& root, plan::Aggregate& agg);
  // Aggregates over DISTINCT values of several expressions: those of each but the first are
  // computed apart and joined on the group (distinct_aggregates.cpp).
  void splitDistinctArguments(plan::OperatorPtr& root, plan::Aggregate& agg);
  // Splits every aggregation in the tree that still has f(DISTINCT x).
  void splitCopiedDistinctAggregates(plan::OperatorPtr& root);
  // An ORDER BY item that names an output column or its position; nullptr for other expressions.
  // `clause` names it in errors (ORDER BY, DISTINCT ON).
  const plan::IU* orderByOutput(const ast::Expr& e, const std::vector<const plan::IU*>& out,
                                const std::vector<std::string>& names, const char* clause = "ORDER BY");
  // SELECT DISTINCT ON's Sort over `op` (binder.cpp), ordered as ORDER BY's `orderBy` keys say.
  plan::OperatorPtr distinctOnSort(plan::OperatorPtr op, std::vector<plan::SortKey> orderBy,
                                   const std::vector<const plan::IU*>& distinctOn, const std::vector<SourcePos>& positions);
  plan::OperatorPtr addLimit(plan::OperatorPtr op, const ast::Select& s);  // LIMIT / OFFSET if any
  // LIMIT/OFFSET: a constant, or a BIGINT expression of parameters run when the query runs.
  void bindCount(const ast::Expr& e, const char* what, uint64_t& constant, plan::ExprPtr& atRunTime);

  plan::ExprPtr bindPlain(const ast::Expr& e, Clause clause);
  plan::ExprPtr bindColumn(const ast::Expr& e);
  // The IU a column name means here, else in the enclosing SELECTs; nullptr when none has it
  // (`innermost`: the unqualified search starts here, so a missing table is reported here).
  const plan::IU* findColumn(const ast::Expr& e, bool innermost) const;
  bool inScope(const plan::IU* iu) const;  // a column of this SELECT's FROM (not an outer one)
  // Subqueries in expressions (subquery_binder.cpp): each becomes a join onto *input_, the
  // operator the current clause reads, and the expression reads the join's result.
  // `columns`: a scalar subquery of several columns (a row), each column's value appended there.
  plan::ExprPtr bindSubquery(const ast::Expr& e, Clause clause, std::vector<plan::ExprPtr>* columns = nullptr);
  plan::OperatorPtr bindNested(const ast::Select& s, std::vector<const plan::IU*>& out);
  void computedInside(plan::OperatorPtr& sub, std::vector<const plan::IU*>& out);
  // A subquery in an outer join's ON reading both inputs (`reads`: the IUs it and `x`, the IN
  // operand, read): the nullable input gets a copy of the preserved one's values it reads, which
  // the subquery and `x` read instead; the ON matches them (onConditions_).
  void readBothSides(plan::Operator& sub, const std::vector<plan::ExprPtr*>& operands, const plan::IURefs& reads);
  // The FULL JOIN of such an ON (subquery_binder.cpp): the LEFT JOIN (every matched pair and each
  // unmatched left row), and UNION ALL the right rows that match no left row, from the copy
  // (an anti join with the right values of a copy of the join's matches). `pCols`, `nCols`: the
  // sides' columns in scope; returns the plan and the IUs that stand for them above it.
  plan::OperatorPtr fullJoinReadingBoth(std::unique_ptr<plan::Join> join, const std::vector<const plan::IU*>& pCols,
                                        const std::vector<const plan::IU*>& nCols,
                                        std::vector<const plan::IU*>& outputs, SourcePos pos);
  // Arrays (array_binder.cpp): ARRAY[...], a[i], x op ANY/ALL (array), the array functions
  // (nullptr: not one); ARRAY(subquery) is bindSubquery's, through these two: the subquery's plan
  // under array_agg (the order its ORDER BY asks, which must be its column's), and the value the
  // expression reads ({} for no rows).
  plan::ExprPtr bindArray(const ast::Expr& e, Clause clause);
  plan::ExprPtr bindSubscript(const ast::Expr& e, Clause clause);
  plan::ExprPtr bindQuantifiedArray(const ast::Expr& e, Clause clause);
  plan::ExprPtr bindArrayFunction(const ast::Expr& e, Clause clause);
  struct ArrayOrder {
    bool sort = false, descending = false, nullsFirst = false;
  };
  // unnest(array) and generate_series(start, stop) in FROM: a plan::Expand over one empty row
  // (its arguments may read an outer query's columns, not this FROM's: 0A000).
  plan::OperatorPtr bindSetFunction(const ast::TableRef& ref);
  // Set-returning calls in the select list, unnest(a) and information_schema._pg_expandarray(a)
  // (its fields (...).x and (...).n; as a whole item, two columns "item.x" and "item.n" that
  // (alias.item).x reads): one plan::Expand under the select list; the same call written several
  // times is that one (PostgreSQL runs them in lockstep); different ones are 0A000.
  void expandSelectList(const ast::Select& s, plan::OperatorPtr& op);
  plan::ExprPtr bindSetReturningCall(const ast::Expr& e);  // nullptr: not one
  plan::ExprPtr bindFieldSelect(const ast::Expr& e, Clause clause);
  ArrayOrder arrayOfSubquery(plan::OperatorPtr& sub, std::vector<const plan::IU*>& out, SourcePos pos);
  plan::ExprPtr arrayResult(plan::ExprPtr value, const ArrayOrder& order, SourcePos pos);
  // row_number() OVER (PARTITION BY ... ORDER BY ...) in a select list without aggregation
  // (window_binder.cpp): a Sort by the partition and order keys under the select list, whose
  // rank in its partition is the row's number less one. Other window functions are 0A000.
  plan::ExprPtr bindWindow(const ast::Expr& e, Clause clause);
  plan::ExprPtr bindLiteral(const ast::Expr& e);
  plan::ExprPtr bindFunction(const ast::Expr& e, Clause clause);
  plan::ExprPtr bindAggregate(const ast::Expr& e, Clause clause);
  void orderAggregateInput(const ast::Expr& e, size_t first);  // agg(... ORDER BY keys at args[first...])
  // (a, b) op (c, d): = is every pair equal, <> some pair unequal, < <= > >= compare the pairs
  // left to right (SQL's row comparisons, NULLs as in PostgreSQL).
  plan::ExprPtr bindRowComparison(const ast::Expr& e, Clause clause);
  plan::ExprPtr bindOverlaps(const ast::Expr& e, Clause clause);  // (s1, e1) OVERLAPS (s2, e2)
  plan::ExprPtr bindRowComparison(const ast::Expr& left, const ast::Expr& right, const std::string& op, Clause clause,
                                  SourcePos pos);
  // For an aggregate call of a subquery: the SELECT further out whose aggregate it is (outer
  // columns only), noting it there; the enclosing SELECT that noted it already; else nullptr.
  SelectBinder* outerAggregateOwner(const ast::Expr& e);
  // Whether `e` has an aggregate call that is this SELECT's (not one an outer SELECT owns). Asks
  // outerAggregateOwner of each call, so a call of outer columns only is known as the outer
  // SELECT's (RetryBinding) before this SELECT decides that it aggregates.
  bool containsOwnAggregate(const ast::Expr& e);
  plan::OperatorPtr bindOnce(const ast::Select& s, std::vector<const plan::IU*>& output, std::vector<std::string>& names);
  // SUBSTRING, UPPER, TRIM, COALESCE ... (scalar_functions.cpp); nullptr for other names.
  plan::ExprPtr bindScalarFunction(const ast::Expr& e, Clause clause);
  // The bound arguments of the call `e` when its name is one of names[0..count) (scalar_functions.cpp);
  // nullopt for another name; 42601 for f(*) and f(DISTINCT ...).
  std::optional<std::vector<plan::ExprPtr>> bindArgsIfNamed(const ast::Expr& e, Clause clause, const char* const* names,
                                                            size_t count);
  plan::ExprPtr bindDateTimeFunction(const ast::Expr& e, Clause clause);  // datetime_functions.cpp
  plan::ExprPtr bindSequenceFunction(const ast::Expr& e, Clause clause);
  // pg_catalog's functions for clients (catalog_functions.cpp); nullptr: not one.
  plan::ExprPtr bindCatalogFunction(const ast::Expr& e, Clause clause);
  plan::ExprPtr bindRegObject(const std::string& kind, plan::ExprPtr x, bool asText, SourcePos pos);
  std::vector<std::pair<std::vector<std::string>, int64_t>> regObjects(const std::string& kind) const;  // sequence_functions.cpp; nullptr: not one
  // date +/- INTERVAL 'n' DAY|MONTH|YEAR (scalar_functions.cpp).
  // After GROUP BY: an expression equal to a grouping expression reads the group's IU.
  std::optional<plan::ExprPtr> matchGroup(const ast::Expr& e);

  Catalog& catalog_;
  plan::QueryPlan& plan_;
  SelectBinder* outer_ = nullptr;   // for correlated names: the SELECT a subquery stands in
  SelectBinder* parent_ = nullptr;  // for WITH names: the enclosing SELECT (also of derived tables)
  const std::vector<ast::CommonTableExpr>* with_ = nullptr;  // this SELECT's WITH list
  std::set<const ast::CommonTableExpr*> expanding_;       // of with_, those being bound now
  struct BoundCommonTable {
    uint32_t id;                     // plan::CommonTable::id
    std::vector<std::string> names;  // its columns' names
  };
  std::map<const ast::CommonTableExpr*, BoundCommonTable> boundCtes_;  // of with_, those bound
  // `owner`'s WITH query `cte`, bound unless it is already (errors at `pos` for nesting depth).
  const BoundCommonTable& bindCommonTable(SelectBinder& owner, const ast::CommonTableExpr& cte, SourcePos pos);
  int depth_ = 0;                                          // derived tables and views around this one
  plan::OperatorPtr* input_ = nullptr;  // where a clause's subqueries join in; null: not allowed
  // While binding an outer join's ON (input_ null): its two inputs, one of which a subquery joins.
  std::array<plan::OperatorPtr*, 2> outerJoinInputs_{};
  bool fullJoin_ = false;  // that join is a FULL JOIN
  // FULL JOIN whose ON has a subquery reading both inputs: a copy of the nullable input as it
  // was before the first such subquery changed it (its rows that match nothing come from there).
  plan::OperatorPtr fullRightCopy_;
  plan::IUMap fullRightCopyOf_;
  // Conditions the ON must hold besides its own, from subqueries that read both inputs (each
  // matches the preserved side's values with their copies on the other side).
  std::vector<plan::ExprPtr> onConditions_;
  std::vector<ScopeEntry> scope_;
  plan::Aggregate* aggregate_ = nullptr;  // set while binding above the aggregation
  // Each GROUP BY's expression with its group: GROUP BY 1 or an alias names the select item's own
  // expression, which is then that group whatever it is, as is an expression written the same
  // way (a subquery cannot be probed by binding it).
  std::vector<std::pair<const ast::Expr*, const plan::IU*>> groupSources_;
  bool probing_ = false;                  // binding only to compare with GROUP BY expressions
  // Not reset when binding starts over: aggregate calls of subqueries that are this SELECT's.
  std::set<const ast::Expr*> outerAggregates_;
  bool binding_ = false;  // in bind(), which starts over on a RetryBinding for this SELECT
  // The select list's set-returning call (expandSelectList) and its Expand's value and ordinality.
  const ast::Expr* selectSrf_ = nullptr;
  const plan::IU* selectSrfValue_ = nullptr;
  const plan::IU* selectSrfOrdinal_ = nullptr;
};

// unnest(a) or [information_schema.]_pg_expandarray(a), also under (...).field; else nullptr.
const ast::Expr* setReturningCall(const ast::Expr& e);

bool isAggregateName(const std::string& name);
bool isAggregateCall(const ast::Expr& e);  // an aggregate's name, no OVER
// (a1, a2 ...) op (b1, b2 ...) of bound values (as many on each side): = every pair equal, <>
// some pair unequal, < <= > >= the pairs left to right (SQL's row comparisons).
plan::ExprPtr compareRows(plan::CmpOp op, std::vector<plan::ExprPtr> a, std::vector<plan::ExprPtr> b, SourcePos pos);
bool containsAggregate(const ast::Expr& e);

}  // namespace hyrax::sql
