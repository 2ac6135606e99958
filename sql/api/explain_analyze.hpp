#pragma once
// What EXPLAIN ANALYZE prints below the plan: rows, each phase's time, the compile tiers and when
// the run switched between them, the threads, each pipeline's run, and where the query ran.
#include <cstdint>
#include <string>
#include <vector>

#include "codegen/translate/query_compiler.hpp"
#include "engine/runtime/query_context.hpp"
#include "sql/api/database.hpp"

namespace hyrax::sql {

std::string analyzeSummary(uint64_t rows, const PhaseTimes& times, const codegen::CompileStats& stats, const RunProfile& run);

// One line per pipeline: its time, what it read and where its rows went, its threads and morsels,
// and how the threads' sinks were merged.
std::string pipelineLines(const std::vector<PipelineRun>& pipelines);

}  // namespace hyrax::sql
