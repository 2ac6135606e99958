#pragma once
// The one error type above generated code: an SQLSTATE, a message, and where in the statement
// text it happened (line:column, 1-based; 0 when the error has no source position).
#include <cstdint>
#include <stdexcept>
#include <iterator>
#include <string>
#include <vector>

namespace hyrax {

// SQLSTATE codes used by hyrax (PostgreSQL's spelling, so clients recognise them).
namespace sqlstate {
inline constexpr const char* SyntaxError = "42601";
inline constexpr const char* UndefinedTable = "42P01";
inline constexpr const char* InvalidSchemaName = "3F000";
inline constexpr const char* UndefinedColumn = "42703";
inline constexpr const char* AmbiguousColumn = "42702";
inline constexpr const char* AmbiguousFunction = "42725";
inline constexpr const char* UndefinedFunction = "42883";
inline constexpr const char* DuplicateTable = "42P07";
inline constexpr const char* DuplicateColumn = "42701";
inline constexpr const char* DatatypeMismatch = "42804";
inline constexpr const char* GroupingError = "42803";
inline constexpr const char* InvalidColumnReference = "42P10";
inline constexpr const char* TooComplex = "54001";
inline constexpr const char* ProgramLimitExceeded = "54000";
inline constexpr const char* DivisionByZero = "22012";
inline constexpr const char* NumericOutOfRange = "22003";
inline constexpr const char* StringTooLong = "22001";
inline constexpr const char* CharacterNotInRepertoire = "22021";  // invalid UTF-8
inline constexpr const char* InvalidText = "22P02";
inline constexpr const char* BadCopyFormat = "22P04";
inline constexpr const char* UndefinedFile = "58P01";
inline constexpr const char* IoError = "58030";
inline constexpr const char* InvalidDatetime = "22007";
inline constexpr const char* DatetimeOutOfRange = "22008";
inline constexpr const char* InvalidEscape = "22025";
inline constexpr const char* NotNullViolation = "23502";
inline constexpr const char* UniqueViolation = "23505";
inline constexpr const char* ForeignKeyViolation = "23503";
inline constexpr const char* CheckViolation = "23514";
inline constexpr const char* InFailedTransaction = "25P02";
inline constexpr const char* ReadOnlyTransaction = "25006";
inline constexpr const char* ActiveTransaction = "25001";
inline constexpr const char* NoActiveTransaction = "25P01";
inline constexpr const char* InvalidSavepoint = "3B001";  // no savepoint of that name
inline constexpr const char* ObjectNotInPrerequisiteState = "55000";
inline constexpr const char* LockNotAvailable = "55P03";
inline constexpr const char* DependentObjects = "2BP01";
inline constexpr const char* InvalidForeignKey = "42830";
inline constexpr const char* DuplicateObject = "42710";
inline constexpr const char* RaiseException = "P0001";
inline constexpr const char* QueryCanceled = "57014";
inline constexpr const char* FeatureNotSupported = "0A000";
inline constexpr const char* InternalError = "XX000";
inline constexpr const char* UndefinedObject = "42704";
inline constexpr const char* DuplicateAlias = "42712";
inline constexpr const char* CannotCoerce = "42846";
inline constexpr const char* InvalidRowCount = "2201W";
inline constexpr const char* InvalidNtileArgument = "22014";
inline constexpr const char* InvalidNthValueArgument = "22016";
inline constexpr const char* InvalidOffsetCount = "2201X";
inline constexpr const char* OutOfMemory = "53200";
inline constexpr const char* InvalidParameter = "22023";
inline constexpr const char* InvalidFunctionDefinition = "42P13";
inline constexpr const char* DuplicateFunction = "42723";
inline constexpr const char* FunctionNoReturn = "2F005";
inline constexpr const char* TooManyRows = "P0003";
inline constexpr const char* CardinalityViolation = "21000";
inline constexpr const char* SubstringError = "22011";
inline constexpr const char* InvalidArgumentForPower = "2201F";
inline constexpr const char* InvalidArgumentForLog = "2201E";
inline constexpr const char* SequenceGeneratorLimitExceeded = "2200H";
inline constexpr const char* WrongObjectType = "42809";
inline constexpr const char* ProtocolViolation = "08P01";
inline constexpr const char* IndeterminateDatatype = "42P18";
inline constexpr const char* DuplicatePreparedStatement = "42P05";
inline constexpr const char* UndefinedPreparedStatement = "26000";
inline constexpr const char* InvalidCursorName = "34000";     // no such portal
inline constexpr const char* DuplicateCursor = "42P03";       // a named portal bound twice
inline constexpr const char* InvalidBinaryRepresentation = "22P03";
inline constexpr const char* InvalidPassword = "28P01";
inline constexpr const char* InvalidAuthorization = "28000";
}  // namespace sqlstate

struct SourcePos {
  uint32_t line = 0;    // 1-based; 0 = unknown
  uint32_t column = 0;  // 1-based
  bool known() const { return line != 0; }
};

// A message a statement raised without failing (PostgreSQL's NoticeResponse): WARNING "there is
// no transaction in progress", a procedure's RAISE NOTICE ...
struct Notice {
  std::string severity;  // WARNING, NOTICE, INFO, LOG, DEBUG
  std::string message;
  std::string sqlstate = {};  // empty: 01000 for a WARNING, 00000 for the others
};

class Error : public std::runtime_error {
 public:
  Error(std::string sqlstate, std::string message, SourcePos pos = {})
      : std::runtime_error(message), sqlstate_(std::move(sqlstate)), message_(std::move(message)), pos_(pos) {}

  const std::string& sqlstate() const { return sqlstate_; }
  const std::string& message() const { return message_; }
  SourcePos pos() const { return pos_; }
  // PostgreSQL's DETAIL line (e.g. "Key (id)=(1) already exists."); empty when there is none.
  const std::string& detail() const { return detail_; }
  Error& withDetail(std::string d) {
    detail_ = std::move(d);
    return *this;
  }
  void setPosIfUnknown(SourcePos p) {
    if (!pos_.known()) pos_ = p;
  }
  // The notices the statement raised before it failed (a routine's RAISE NOTICE ...): the client
  // gets them before the error, as PostgreSQL sends them. Those raised earlier go first.
  const std::vector<Notice>& notices() const { return notices_; }
  Error& withNoticesBefore(std::vector<Notice> earlier) {
    if (earlier.empty()) return *this;
    earlier.insert(earlier.end(), std::make_move_iterator(notices_.begin()), std::make_move_iterator(notices_.end()));
    notices_ = std::move(earlier);
    return *this;
  }
  std::vector<Notice> takeNotices() { return std::move(notices_); }

 private:
  std::string sqlstate_;
  std::string message_;
  SourcePos pos_;
  std::string detail_;
  std::vector<Notice> notices_;
};

}  // namespace hyrax
