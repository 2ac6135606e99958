#pragma once
// The session's settings as a running query reads them (current_setting): the session installs
// its settings for each statement it runs (ThreadScope<const SessionValues>, on the executor and
// in a snapshot worker alike), so compiled code that is cached and run again reads the values of
// the moment it runs, never those of when it was compiled.
#include <optional>
#include <string>

namespace hyrax {

class SessionValues {
 public:
  virtual ~SessionValues() = default;
  // The setting's text, by its lower-case name; nullopt when there is none of that name.
  virtual std::optional<std::string> settingValue(const std::string& name) const = 0;
};

}  // namespace hyrax
