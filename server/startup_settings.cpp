#include "server/startup_settings.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <iterator>
#include <string_view>

#include "engine/types/text_format.hpp"
#include "server/wire.hpp"

namespace hyrax::server {

namespace {

// PostgreSQL 15's settings (`SELECT lower(name) FROM pg_settings` on 15.18, and the ones it hides
// there: is_superuser, session_authorization, role, seed, default_with_oids,
// ssl_renegotiation_limit), sorted.
constexpr std::string_view kPostgresSettings[] = {
    "allow_in_place_tablespaces", "allow_system_table_mods", "application_name", "archive_cleanup_command",
    "archive_command", "archive_library", "archive_mode", "archive_timeout", "array_nulls",
    "authentication_timeout", "autovacuum", "autovacuum_analyze_scale_factor", "autovacuum_analyze_threshold",
    "autovacuum_freeze_max_age", "autovacuum_max_workers", "autovacuum_multixact_freeze_max_age",
    "autovacuum_naptime", "autovacuum_vacuum_cost_delay", "autovacuum_vacuum_cost_limit",
    "autovacuum_vacuum_insert_scale_factor", "autovacuum_vacuum_insert_threshold",
    "autovacuum_vacuum_scale_factor", "autovacuum_vacuum_threshold", "autovacuum_work_mem",
    "backend_flush_after", "backslash_quote", "backtrace_functions", "bgwriter_delay", "bgwriter_flush_after",
    "bgwriter_lru_maxpages", "bgwriter_lru_multiplier", "block_size", "bonjour", "bonjour_name", "bytea_output",
    "check_function_bodies", "checkpoint_completion_target", "checkpoint_flush_after", "checkpoint_timeout",
    "checkpoint_warning", "client_connection_check_interval", "client_encoding", "client_min_messages",
    "cluster_name", "commit_delay", "commit_siblings", "compute_query_id", "config_file",
    "constraint_exclusion", "cpu_index_tuple_cost", "cpu_operator_cost", "cpu_tuple_cost",
    "cursor_tuple_fraction", "data_checksums", "data_directory", "data_directory_mode", "data_sync_retry",
    "datestyle", "db_user_namespace", "deadlock_timeout", "debug_assertions", "debug_discard_caches",
    "debug_pretty_print", "debug_print_parse", "debug_print_plan", "debug_print_rewritten",
    "default_statistics_target", "default_table_access_method", "default_tablespace",
    "default_text_search_config", "default_toast_compression", "default_transaction_deferrable",
    "default_transaction_isolation", "default_transaction_read_only", "default_with_oids",
    "dynamic_library_path", "dynamic_shared_memory_type", "effective_cache_size", "effective_io_concurrency",
    "enable_async_append", "enable_bitmapscan", "enable_gathermerge", "enable_hashagg", "enable_hashjoin",
    "enable_incremental_sort", "enable_indexonlyscan", "enable_indexscan", "enable_material", "enable_memoize",
    "enable_mergejoin", "enable_nestloop", "enable_parallel_append", "enable_parallel_hash",
    "enable_partition_pruning", "enable_partitionwise_aggregate", "enable_partitionwise_join", "enable_seqscan",
    "enable_sort", "enable_tidscan", "escape_string_warning", "event_source", "exit_on_error",
    "extension_destdir", "external_pid_file", "extra_float_digits", "force_parallel_mode",
    "from_collapse_limit", "fsync", "full_page_writes", "geqo", "geqo_effort", "geqo_generations",
    "geqo_pool_size", "geqo_seed", "geqo_selection_bias", "geqo_threshold", "gin_fuzzy_search_limit",
    "gin_pending_list_limit", "hash_mem_multiplier", "hba_file", "hot_standby", "hot_standby_feedback",
    "huge_page_size", "huge_pages", "ident_file", "idle_in_transaction_session_timeout", "idle_session_timeout",
    "ignore_checksum_failure", "ignore_invalid_pages", "ignore_system_indexes", "in_hot_standby",
    "integer_datetimes", "intervalstyle", "is_superuser", "jit", "jit_above_cost", "jit_debugging_support",
    "jit_dump_bitcode", "jit_expressions", "jit_inline_above_cost", "jit_optimize_above_cost",
    "jit_profiling_support", "jit_provider", "jit_tuple_deforming", "join_collapse_limit", "krb_caseins_users",
    "krb_server_keyfile", "lc_collate", "lc_ctype", "lc_messages", "lc_monetary", "lc_numeric", "lc_time",
    "listen_addresses", "lo_compat_privileges", "local_preload_libraries", "lock_timeout",
    "log_autovacuum_min_duration", "log_checkpoints", "log_connections", "log_destination", "log_directory",
    "log_disconnections", "log_duration", "log_error_verbosity", "log_executor_stats", "log_file_mode",
    "log_filename", "log_hostname", "log_line_prefix", "log_lock_waits", "log_min_duration_sample",
    "log_min_duration_statement", "log_min_error_statement", "log_min_messages", "log_parameter_max_length",
    "log_parameter_max_length_on_error", "log_parser_stats", "log_planner_stats", "log_recovery_conflict_waits",
    "log_replication_commands", "log_rotation_age", "log_rotation_size", "log_startup_progress_interval",
    "log_statement", "log_statement_sample_rate", "log_statement_stats", "log_temp_files", "log_timezone",
    "log_transaction_sample_rate", "log_truncate_on_rotation", "logging_collector", "logical_decoding_work_mem",
    "maintenance_io_concurrency", "maintenance_work_mem", "max_connections", "max_files_per_process",
    "max_function_args", "max_identifier_length", "max_index_keys", "max_locks_per_transaction",
    "max_logical_replication_workers", "max_parallel_maintenance_workers", "max_parallel_workers",
    "max_parallel_workers_per_gather", "max_pred_locks_per_page", "max_pred_locks_per_relation",
    "max_pred_locks_per_transaction", "max_prepared_transactions", "max_replication_slots",
    "max_slot_wal_keep_size", "max_stack_depth", "max_standby_archive_delay", "max_standby_streaming_delay",
    "max_sync_workers_per_subscription", "max_wal_senders", "max_wal_size", "max_worker_processes",
    "min_dynamic_shared_memory", "min_parallel_index_scan_size", "min_parallel_table_scan_size", "min_wal_size",
    "old_snapshot_threshold", "parallel_leader_participation", "parallel_setup_cost", "parallel_tuple_cost",
    "password_encryption", "plan_cache_mode", "port", "post_auth_delay", "pre_auth_delay", "primary_conninfo",
    "primary_slot_name", "promote_trigger_file", "quote_all_identifiers", "random_page_cost",
    "recovery_end_command", "recovery_init_sync_method", "recovery_min_apply_delay", "recovery_prefetch",
    "recovery_target", "recovery_target_action", "recovery_target_inclusive", "recovery_target_lsn",
    "recovery_target_name", "recovery_target_time", "recovery_target_timeline", "recovery_target_xid",
    "recursive_worktable_factor", "remove_temp_files_after_crash", "restart_after_crash", "restore_command",
    "restrict_nonsystem_relation_kind", "role", "row_security", "search_path", "seed", "segment_size",
    "seq_page_cost", "server_encoding", "server_version", "server_version_num", "session_authorization",
    "session_preload_libraries", "session_replication_role", "shared_buffers", "shared_memory_size",
    "shared_memory_size_in_huge_pages", "shared_memory_type", "shared_preload_libraries", "ssl", "ssl_ca_file",
    "ssl_cert_file", "ssl_ciphers", "ssl_crl_dir", "ssl_crl_file", "ssl_dh_params_file", "ssl_ecdh_curve",
    "ssl_key_file", "ssl_library", "ssl_max_protocol_version", "ssl_min_protocol_version",
    "ssl_passphrase_command", "ssl_passphrase_command_supports_reload", "ssl_prefer_server_ciphers",
    "ssl_renegotiation_limit", "standard_conforming_strings", "statement_timeout", "stats_fetch_consistency",
    "superuser_reserved_connections", "synchronize_seqscans", "synchronous_commit", "synchronous_standby_names",
    "syslog_facility", "syslog_ident", "syslog_sequence_numbers", "syslog_split_messages",
    "tcp_keepalives_count", "tcp_keepalives_idle", "tcp_keepalives_interval", "tcp_user_timeout",
    "temp_buffers", "temp_file_limit", "temp_tablespaces", "timezone", "timezone_abbreviations", "trace_notify",
    "trace_recovery_messages", "trace_sort", "track_activities", "track_activity_query_size",
    "track_commit_timestamp", "track_counts", "track_functions", "track_io_timing", "track_wal_io_timing",
    "transaction_deferrable", "transaction_isolation", "transaction_read_only", "transform_null_equals",
    "unix_socket_directories", "unix_socket_group", "unix_socket_permissions", "update_process_title",
    "vacuum_cost_delay", "vacuum_cost_limit", "vacuum_cost_page_dirty", "vacuum_cost_page_hit",
    "vacuum_cost_page_miss", "vacuum_defer_cleanup_age", "vacuum_failsafe_age", "vacuum_freeze_min_age",
    "vacuum_freeze_table_age", "vacuum_multixact_failsafe_age", "vacuum_multixact_freeze_min_age",
    "vacuum_multixact_freeze_table_age", "wal_block_size", "wal_buffers", "wal_compression",
    "wal_consistency_checking", "wal_decode_buffer_size", "wal_init_zero", "wal_keep_size", "wal_level",
    "wal_log_hints", "wal_receiver_create_temp_slot", "wal_receiver_status_interval", "wal_receiver_timeout",
    "wal_recycle", "wal_retrieve_retry_interval", "wal_segment_size", "wal_sender_timeout",
    "wal_skip_threshold", "wal_sync_method", "wal_writer_delay", "wal_writer_flush_after", "work_mem",
    "xmlbinary", "xmloption", "zero_damaged_pages"
};

// The encoding names PostgreSQL's client_encoding takes, as it compares them: letters and digits
// only, lower case (its pg_char_to_encoding; each checked against PostgreSQL 15), sorted.
constexpr std::string_view kPostgresEncodings[] = {
    "abc", "alt", "big5", "euccn", "eucjis2004", "eucjp", "euckr", "euctw", "gb18030", "gbk", "iso88591",
    "iso885910", "iso885913", "iso885914", "iso885915", "iso885916", "iso88592", "iso88593", "iso88594",
    "iso88595", "iso88596", "iso88597", "iso88598", "iso88599", "johab", "koi8", "koi8r", "koi8u", "latin1",
    "latin10", "latin2", "latin3", "latin4", "latin5", "latin6", "latin7", "latin8", "latin9", "mskanji",
    "muleinternal", "shiftjis", "shiftjis2004", "sjis", "sqlascii", "tcvn", "tcvn5712", "uhc", "unicode",
    "utf8", "vscii", "win", "win1250", "win1251", "win1252", "win1253", "win1254", "win1255", "win1256",
    "win1257", "win1258", "win866", "win874", "win932", "win936", "win949", "win950", "windows1250",
    "windows1251", "windows1252", "windows1253", "windows1254", "windows1255", "windows1256", "windows1257",
    "windows1258", "windows866", "windows874", "windows932", "windows936", "windows949", "windows950"
};

static_assert(std::is_sorted(std::begin(kPostgresSettings), std::end(kPostgresSettings)));
static_assert(std::is_sorted(std::begin(kPostgresEncodings), std::end(kPostgresEncodings)));

// The switches PostgreSQL's backend takes in `options` (its process_postgres_switches' getopt
// letters): all but -c hyrax refuses with 0A000, any other letter is no switch at all.
constexpr const char* kPostgresSwitches = "BbcCDdEeFfhijklNnOPprSsTtvW-";

bool contains(const std::string_view* begin, const std::string_view* end, std::string_view name) {
  return std::binary_search(begin, end, name);
}

std::string encodingKey(const std::string& value) {
  std::string key;
  for (char c : value)
    if (std::isalnum(static_cast<unsigned char>(c))) key += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return key;
}

// PostgreSQL's custom setting names (a placeholder any extension may claim): two or more simple
// identifiers separated by dots.
bool isCustomName(const std::string& name) {
  size_t start = 0;
  for (;;) {
    size_t dot = name.find('.', start);
    std::string_view part = std::string_view(name).substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (part.empty() || std::isdigit(static_cast<unsigned char>(part[0])) || part[0] == '$') return false;
    for (char c : part)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '$' && !(c & 0x80)) return false;
    if (dot == std::string::npos) return start > 0;
    start = dot + 1;
  }
}

// `options` split as PostgreSQL's pg_split_opts does: at blanks, a backslash keeping the next
// character (`-c application_name=a\ b`).
std::vector<std::string> splitOptions(const std::string& options) {
  std::vector<std::string> words;
  size_t i = 0;
  for (;;) {
    while (i < options.size() && std::isspace(static_cast<unsigned char>(options[i]))) ++i;
    if (i == options.size()) return words;
    std::string word;
    for (; i < options.size() && !std::isspace(static_cast<unsigned char>(options[i])); ++i) {
      if (options[i] == '\\' && i + 1 < options.size()) ++i;
      word += options[i];
    }
    words.push_back(std::move(word));
  }
}

[[noreturn]] void invalidArgument(const std::string& word) {
  throw FatalError(sqlstate::SyntaxError, "invalid command-line argument for server process: " + word);
}

Notice ignored(const std::string& name) {
  return {"WARNING", "hyrax has no setting \"" + name + "\": the startup packet's value is ignored",
          sqlstate::FeatureNotSupported};
}

// The startup packet's parameters that are no settings.
bool isConnectionParameter(const std::string& name) {
  return name == "user" || name == "database" || name == "options" || name == "replication" || name.rfind("_pq_.", 0) == 0;
}

}  // namespace

std::vector<StartupSetting> startupSettings(const StartupParameters& params) {
  std::vector<StartupSetting> settings;
  std::vector<std::string> words = splitOptions(params.get("options"));
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string& word = words[i];
    if (word.size() < 2 || word[0] != '-' || word == "--") invalidArgument(word);
    const char letter = word[1];
    if (!std::strchr(kPostgresSwitches, letter)) invalidArgument(word);
    if (letter != 'c' && letter != '-')
      throw FatalError(sqlstate::FeatureNotSupported, "the server switch -" + std::string(1, letter) +
                                                          " in options is not supported (hyrax takes -c name=value and --name=value)");
    std::string setting = word.substr(2);
    if (setting.empty()) {  // -c name=value: the setting is the next word
      if (i + 1 == words.size()) invalidArgument(word);
      setting = words[++i];
    }
    size_t eq = setting.find('=');
    if (eq == std::string::npos)
      throw FatalError(sqlstate::SyntaxError, (letter == 'c' ? "-c " : "--") + setting + " requires a value");
    std::string name = setting.substr(0, eq);
    std::replace(name.begin(), name.end(), '-', '_');
    settings.push_back({std::move(name), setting.substr(eq + 1)});
  }
  for (const auto& [name, value] : params.values)
    if (!isConnectionParameter(name)) settings.push_back({name, value});
  return settings;
}

std::vector<Notice> applyStartupSettings(Connection& connection, const std::vector<StartupSetting>& settings) {
  std::vector<Notice> warnings;
  for (const StartupSetting& s : settings) {
    const std::string name = text::lowerAscii(s.name);
    try {
      if (connection.setStartupSetting(name, s.value)) continue;
    } catch (const Error& e) {
      if (name == "client_encoding" && contains(std::begin(kPostgresEncodings), std::end(kPostgresEncodings), encodingKey(s.value))) {
        // SQL_ASCII passes bytes as they are, as hyrax sends them: nothing to say.
        if (encodingKey(s.value) != "sqlascii")
          warnings.push_back({"WARNING", "hyrax sends and reads text in UTF8 only: client_encoding \"" + s.value +
                                             "\" is ignored", sqlstate::FeatureNotSupported});
        continue;
      }
      FatalError refused(e.sqlstate(), e.message());
      refused.withDetail(e.detail());
      throw refused;
    }
    if (name.find('.') != std::string::npos) {
      if (!isCustomName(name)) {
        FatalError refused("42602", "invalid configuration parameter name \"" + s.name + "\"");
        refused.withDetail("Custom parameter names must be two or more simple identifiers separated by dots.");
        throw refused;
      }
      warnings.push_back(ignored(s.name));
    } else if (contains(std::begin(kPostgresSettings), std::end(kPostgresSettings), name)) {
      warnings.push_back(ignored(s.name));
    } else {
      throw FatalError(sqlstate::UndefinedObject, "unrecognized configuration parameter \"" + s.name + "\"");
    }
  }
  return warnings;
}

}  // namespace hyrax::server
