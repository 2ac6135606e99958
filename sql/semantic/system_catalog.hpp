#pragma once
// pg_catalog and information_schema: PostgreSQL's system tables and the standard's views, made
// from hyrax's Catalog when a statement that reads one is bound (a table the plan owns, as
// read_json's: plan::QueryPlan::ownedTables), so there is no second copy of the schema to keep
// in step. Only the columns clients read are there, with PostgreSQL's names; OIDs are BIGINT
// (PostgreSQL's are unsigned 32-bit), "name" and "char" columns TEXT, arrays absent.
#include <memory>
#include <string>
#include <vector>

#include "engine/types/sql_type.hpp"

namespace hyrax {
class Catalog;
class Index;
class Table;
}  // namespace hyrax

namespace hyrax::sql {

// Fixed OIDs, as PostgreSQL numbers them.
inline constexpr int64_t kPgCatalogNamespaceOid = 11, kPublicNamespaceOid = 2200;
inline constexpr int64_t kInformationSchemaNamespaceOid = 13000;  // initdb's choice in PostgreSQL; fixed here
inline constexpr int64_t kBootstrapRoleOid = 10, kDatabaseOid = 5;
inline constexpr int64_t kVoidTypeOid = 2278;  // a routine's result type when it returns nothing
inline constexpr const char* kDatabaseName = "hyrax";
inline constexpr const char* kRoleName = "hyrax";  // the built-in superuser, the shell's role

// The table `schema.name` ("pg_catalog" or "information_schema"), made now; null when that schema
// has no table of that name.
// Its Table is named schema.name.
std::unique_ptr<Table> makeSystemTable(Catalog& catalog, const std::string& schema, const std::string& name);
bool isSystemSchema(const std::string& schema);
// A system view's query (pg_settings: the settings' names and descriptions from
// pg_catalog.hyrax_settings, their values by current_setting() when the query runs, so a cached
// statement sees a later SET); null when `name` is none. `schema` may be empty (unqualified).
const char* systemViewSql(const std::string& schema, const std::string& name);

// The built-in types as pg_type lists them: OID, typname, the SQL spelling format_type gives
// without a typmod (also information_schema's data_type and x::regtype::text), other names
// x::regtype reads, typlen, typcategory and the array type's OID.
struct PgType {
  TypeId id;
  int64_t oid;
  const char* typname;
  const char* sqlName;
  std::vector<const char*> aliases;
  int64_t length;
  const char* category;
  int64_t arrayOid;
};
const std::vector<PgType>& pgTypes();
// The array types pg_catalog's columns and array expressions have (SqlType::arrayOid), with
// their elements' OIDs; and the element types that are no hyrax type of their own (oid, name,
// "char", aclitem: BIGINT and TEXT here), listed in pg_type for typelem.
struct PgArrayType {
  int64_t oid;
  const char* typname;
  int64_t element;
};
const std::vector<PgArrayType>& pgArrayTypes();
const PgType& pgType(TypeId id);  // "unknown" (705) for the type of an untyped NULL

// PostgreSQL's type OID and typmod for a hyrax type (INTEGER 23, VARCHAR(n) 1043 with n + 4, ...).
int64_t pgTypeOid(const SqlType& t);
int32_t pgTypeMod(const SqlType& t);

// The index a table's PRIMARY KEY made (its columns, unique).
bool isPrimaryKeyIndex(const Table& t, const Index& i);

}  // namespace hyrax::sql
