#include "common/cli.h"

#include <CLI/CLI.hpp>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <map>
#include <stdexcept>
#include <string_view>

namespace kext::cli {

namespace {

constexpr const char* kDeprecatedGroup = "Deprecated";
constexpr std::string_view kAliasOf = "deprecated alias of ";

// Go's time.ParseDuration for one number and one unit, which is all the duration flags need.
std::chrono::milliseconds parse_duration(const std::string& v, std::chrono::milliseconds lo,
                                         std::chrono::milliseconds hi) {
  int64_t n = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  const std::string_view unit(p, static_cast<size_t>(v.data() + v.size() - p));
  int64_t scale = 0;
  if (unit == "ms")
    scale = 1;
  else if (unit == "s")
    scale = 1000;
  else if (unit == "m")
    scale = 60'000;
  const std::chrono::milliseconds out(scale != 0 && n <= hi.count() ? n * scale : 0);
  if (ec != std::errc() || scale == 0 || n < 0 || out < lo || out > hi) {
    throw std::invalid_argument("expected a duration such as 15s or 500ms in " + std::to_string(lo.count()) +
                                "ms.." + std::to_string(hi.count() / 1000) + "s, got \"" + v + "\"");
  }
  return out;
}

std::string duration_text(std::chrono::milliseconds d) {
  if (d.count() % 60'000 == 0) return std::to_string(d.count() / 60'000) + "m";
  if (d.count() % 1000 == 0) return std::to_string(d.count() / 1000) + "s";
  return std::to_string(d.count()) + "ms";
}

// A boolean flag: no value unless given after '=' or as the next argument's boolean word.
bool is_flag(const CLI::Option& o) { return o.get_expected_max() == 0 || o.get_type_size() == 0; }

// The words Go's strconv.ParseBool reads as booleans, less "1"/"0"/"t"/"f", which could be a
// positional argument.
bool is_bool_word(const std::string& a) {
  for (const char* w : {"true", "True", "TRUE", "false", "False", "FALSE"}) {
    if (a == w) return true;
  }
  return false;
}

std::string long_name(const CLI::Option& o) {
  return o.get_lnames().empty() ? o.get_name() : "--" + o.get_lnames().front();
}

// Stray arguments and unknown flags, in the words of the rest of the errors.
std::string extras_message(const std::vector<std::string>& extras) {
  const std::string& first = extras.front();
  if (first.size() > 1 && first[0] == '-') return "unknown flag \"" + first + "\"";
  std::string m = "unexpected argument \"" + first + "\"";
  return m;
}

// Whether CLI11 could read `v` as a number of some type (decimal, 0x hex, a float).
bool is_number(const std::string& v) {
  if (v.empty() || std::isspace(static_cast<unsigned char>(v.front()))) return false;
  const char* end_of_v = v.c_str() + v.size();
  char* end = nullptr;
  std::strtold(v.c_str(), &end);
  if (end == end_of_v) return true;
  std::strtoll(v.c_str(), &end, 0);
  return end == end_of_v;
}

// CLI::Range answers "Value abc not in range 0 to 65535" for a value that is no number at all
// (CLI/Validators.hpp Range). Every range check of the App says "not a number: \"abc\"" first instead,
// whichever program and helper added it. A Range is known by its description, "INT in [0 - 65535]"
// (UINT, FLOAT for the other types).
void say_not_a_number(CLI::App& app) {
  for (CLI::Option* o : app.get_options()) {
    for (int i = 0;; ++i) {
      CLI::Validator* v = nullptr;
      try {
        v = o->get_validator(i);
      } catch (const CLI::OptionNotFound&) {
        break;
      }
      const std::string desc = v->get_description();
      if (!desc.starts_with("INT in [") && !desc.starts_with("UINT in [") &&
          !desc.starts_with("FLOAT in [")) {
        continue;
      }
      v->operation([range = *v](std::string& value) {
        if (!is_number(value)) return "not a number: \"" + value + "\"";
        return range(value);
      });
    }
  }
}

// A value option without a Range that CLI11 could not convert ("Could not convert: --seed = x",
// CLI/Error.hpp ConversionError): the options here take strings, numbers and booleans, and a string
// always converts, so an option that is no boolean flag was given a non-number. Other messages pass.
std::string conversion_message(const CLI::App& app, const std::string& message) {
  constexpr std::string_view kPrefix = "Could not convert: ";
  const size_t eq = message.find(" = ");
  if (!message.starts_with(kPrefix) || eq == std::string::npos) return message;
  const std::string name = message.substr(kPrefix.size(), eq - kPrefix.size());
  const CLI::Option* o = app.get_option_no_throw(name);
  if (!o || is_flag(*o)) return message;
  return name + ": not a number: \"" + message.substr(eq + 3) + "\"";
}

// --help as kube-scheduler prints it: "--port N   listen port (default 8888)", without CLI11's type,
// range and exclusion annotations (the ranges are in the errors).
class HelpFormatter : public CLI::Formatter {
 public:
  std::string make_option_opts(const CLI::Option* o) const override {
    if (is_flag(*o)) return "";
    std::string type = o->get_type_name();  // "N:INT in [0 - 65535]": the name, then each validator's
    for (const char* validator : {":INT", ":UINT", ":FLOAT"}) type = type.substr(0, type.find(validator));
    return " " + type;
  }
  std::string make_option_desc(const CLI::Option* o) const override {
    std::string d = o->get_description();
    const std::string def = o->get_default_str();
    if (!is_flag(*o) && !def.empty() && def != "[]") d += " (default " + def + ")";
    return d;
  }
};

}  // namespace

void configure(CLI::App& app) {
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast)->always_capture_default();
  auto formatter = std::make_shared<HelpFormatter>();
  formatter->column_width(40);
  app.formatter(formatter);
}

bool parse(CLI::App& app, int argc, char** argv) {
  // "-v=2" becomes "-v" "2", as pflag reads a one-letter flag (spf13/pflag flag.go parseSingleShortArg).
  std::vector<std::string> given;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.size() > 2 && a[0] == '-' && a[1] != '-' && a[2] == '=') {
      given.push_back(a.substr(0, 2));
      a.erase(0, 3);
    }
    given.push_back(std::move(a));
  }
  // CLI11 takes its arguments last first. A boolean flag followed by a boolean word takes it as its
  // value: "--enable-bind false" is "--enable-bind=false".
  std::vector<std::string> args;
  for (size_t i = given.size(); i-- > 0;) {
    if (i > 0 && is_bool_word(given[i]) && given[i - 1].starts_with("-") &&
        given[i - 1].find('=') == std::string::npos) {
      const CLI::Option* o = app.get_option_no_throw(given[i - 1]);
      if (o && is_flag(*o)) {
        args.push_back(given[i - 1] + "=" + given[i]);
        --i;
        continue;
      }
    }
    args.push_back(given[i]);
  }
  say_not_a_number(app);
  try {
    app.parse(std::move(args));
  } catch (const CLI::CallForHelp&) {
    return false;
  } catch (const CLI::ExtrasError& e) {
    const std::vector<std::string> extras = app.remaining();
    throw std::invalid_argument(extras.empty() ? std::string(e.what()) : extras_message(extras));
  } catch (const CLI::ConversionError& e) {
    throw std::invalid_argument(conversion_message(app, e.what()));
  } catch (const CLI::ParseError& e) {
    throw std::invalid_argument(e.what());
  }
  return true;
}

std::string help_text(const CLI::App& app) { return app.help(); }

CLI::Option* add_duration(CLI::App& app, const std::string& name, std::chrono::milliseconds& target,
                          std::chrono::milliseconds lo, std::chrono::milliseconds hi,
                          const std::string& description) {
  return add_parsed(
      app, name, [&target, lo, hi](const std::string& v) { target = parse_duration(v, lo, hi); },
      duration_text(target), description);
}

CLI::Option* add_seconds(CLI::App& app, const std::string& name, std::chrono::milliseconds& target,
                         int64_t lo, int64_t hi, const std::string& description) {
  return app
      .add_option_function<int64_t>(
          name, [&target](int64_t s) { target = std::chrono::seconds(s); }, description)
      ->check(CLI::Range(lo, hi))
      ->default_str(std::to_string(target.count() / 1000));
}

CLI::Option* add_parsed(CLI::App& app, const std::string& name, std::function<void(const std::string&)> set,
                        const std::string& shown_default, const std::string& description) {
  // Every occurrence is parsed (and checked) in order, so the last one counts, as with the others.
  CLI::Option* o = app.add_option_function<std::vector<std::string>>(
      name,
      [set = std::move(set), name](const std::vector<std::string>& values) {
        const std::string flag = name.substr(name.rfind(',') + 1);
        for (const std::string& v : values) {
          try {
            set(v);
          } catch (const std::invalid_argument& e) {
            const std::string message = e.what();
            if (message.starts_with(flag + ":")) throw CLI::ValidationError(message);
            throw CLI::ValidationError(flag, message);
          }
        }
      },
      description);
  repeatable(o);
  o->default_str(shown_default);
  return o;
}

CLI::Option* repeatable(CLI::Option* option) {
  // One value per occurrence: "--snapshot a b" is a flag and a stray "b", as with pflag.
  return option->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)->allow_extra_args(false);
}

CLI::Option* non_empty(CLI::Option* option) {
  return option->check(CLI::Validator(
      [](std::string& v) { return v.empty() ? std::string("must not be empty") : std::string(); }, "",
      "non-empty"));
}

void deprecate(CLI::Option* alias, CLI::Option* current) {
  alias->group(kDeprecatedGroup)->description(std::string(kAliasOf) + long_name(*current));
  alias->excludes(current);
}

std::vector<std::string> deprecation_notices(const CLI::App& app) {
  std::vector<std::string> out;
  for (const CLI::Option* o : app.get_options()) {
    if (o->get_group() != kDeprecatedGroup || o->count() == 0) continue;
    const std::string current = o->get_description().substr(kAliasOf.size());
    out.push_back("flag " + long_name(*o) + " is deprecated, use " + current + " instead (same meaning)");
  }
  return out;
}

std::vector<std::string> flag_names(const CLI::App& app) {
  std::vector<std::string> out;
  for (const CLI::Option* o : app.get_options()) {
    if (o == app.get_help_ptr() || o->get_lnames().empty()) continue;
    for (const std::string& n : o->get_snames()) out.push_back("-" + n);
    for (const std::string& n : o->get_lnames()) out.push_back("--" + n);
  }
  return out;
}

std::vector<std::string> flag_values(const CLI::App& app) {
  auto joined = [](const CLI::Option& o) {
    std::string value;
    for (const std::string& r : o.results()) value += (value.empty() ? "" : ",") + r;
    return value;
  };
  // A used deprecated alias gave its option the value: print that under the current name.
  std::map<std::string, std::string> by_alias;
  for (const CLI::Option* o : app.get_options()) {
    if (o->get_group() == kDeprecatedGroup && o->count() > 0) {
      by_alias[o->get_description().substr(kAliasOf.size())] = joined(*o);
    }
  }
  std::vector<std::string> out;
  for (const CLI::Option* o : app.get_options()) {
    if (o == app.get_help_ptr() || o->get_lnames().empty() || o->get_group() == kDeprecatedGroup) continue;
    const std::string name = long_name(*o);
    std::string value = o->get_default_str();
    if (o->count() > 0) {
      value = joined(*o);
    } else if (auto a = by_alias.find(name); a != by_alias.end()) {
      value = a->second;
    }
    if (value.empty() && is_flag(*o)) value = "false";  // a boolean flag not given
    out.push_back(name + "=\"" + value + "\"");
  }
  return out;
}

}  // namespace kext::cli
