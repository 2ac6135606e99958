#pragma once
// The settings a startup packet gives (application_name, DateStyle, options=-c name=value, ...),
// as PostgreSQL 15 takes them (its process_startup_options), where hyrax can:
// - the `options` parameter holds command-line switches, split at blanks (a backslash keeps the
//   next character): -c name=value and --name=value are settings (a '-' in the name is '_');
//   other switches of PostgreSQL's are 0A000 (hyrax runs none), anything else 42601, as
//   PostgreSQL's "invalid command-line argument". They come before the packet's own settings,
//   which win over them.
// - a name hyrax has a setting of: its value checked as SET checks it; a value it refuses ends the
//   login with FATAL (22023 invalid value, 55P02 read-only), as PostgreSQL's does. Except
//   client_encoding: any encoding PostgreSQL knows is accepted and the session stays UTF8, which
//   ParameterStatus tells the client (libpq, psql and the drivers then read and send UTF-8);
//   interactive psql sends its locale's encoding, SQL_ASCII under the C locale, and must get in.
// - a name PostgreSQL 15 has a setting of but hyrax not (work_mem, geqo, lock_timeout, ...), or a
//   custom one (myapp.x): accepted, and a WARNING (0A000) says it was ignored. No client sends
//   one unless told to (psql, libpq and psycopg send application_name, client_encoding, options
//   and PGDATESTYLE/PGTZ/PGGEQO's datestyle, timezone, geqo; pgjdbc client_encoding, DateStyle,
//   TimeZone, extra_float_digits, application_name, search_path), and refusing would lock out a
//   user whose PGOPTIONS names one.
// - any other name: FATAL 42704 "unrecognized configuration parameter", as PostgreSQL's.
#include <string>
#include <vector>

#include "engine/util/error.hpp"
#include "server/authenticator.hpp"
#include "sql/api/database.hpp"

namespace hyrax::server {

struct StartupSetting {
  std::string name, value;
};

// The startup packet's settings in the order they apply: the options' switches first, then the
// packet's own parameters that are no connection parameters (user, database, replication, _pq_.*).
// FatalError for options PostgreSQL refuses or hyrax cannot follow.
std::vector<StartupSetting> startupSettings(const StartupParameters& params);

// Gives each setting to the session, as the rules above say: FatalError where the login is
// refused, else the warnings to send the client.
std::vector<Notice> applyStartupSettings(Connection& connection, const std::vector<StartupSetting>& settings);

}  // namespace hyrax::server
