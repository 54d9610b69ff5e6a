// kube-extender's command line (extender/options.cc, common/cli.cc): booleans with =false, klog's -v=N,
// the renamed flags' deprecated aliases, the API sources that exclude each other, KUBECONFIG, errors
// that name the flag, and the docs table that must list every flag.
#include "extender/options.h"

#include <gtest/gtest.h>
#include <httplib.h>
#include <stdlib.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <functional>
#include <optional>
#include <set>

#include "common/cli.h"
#include "policy/config.h"
#include "policy/policy.h"
#include "tests/support/command_line.h"
#include "tests/support/doc_flags.h"
#include "tests/support/extender_process.h"
#include "tests/support/temp_dir.h"

namespace kext {
namespace options_test {
namespace {

// KUBECONFIG for one test (unset by default, so that the developer's own does not leak in).
class KubeconfigEnv {
 public:
  explicit KubeconfigEnv(const char* value = nullptr) {
    if (const char* old = std::getenv("KUBECONFIG")) saved_ = old;
    if (value) {
      setenv("KUBECONFIG", value, 1);
    } else {
      unsetenv("KUBECONFIG");
    }
  }
  ~KubeconfigEnv() {
    if (saved_) {
      setenv("KUBECONFIG", saved_->c_str(), 1);
    } else {
      unsetenv("KUBECONFIG");
    }
  }

 private:
  std::optional<std::string> saved_;
};

Options parse(std::vector<std::string> args) {
  return testing::parse_command_line("kube-extender", std::move(args), parse_options);
}

std::string error_of(std::vector<std::string> args) {
  return testing::command_line_error([&] { parse(std::move(args)); });
}

std::string joined(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += s + "\n";
  return out;
}

TEST(Options, BooleanFlagsTakeTheirValueAfterEqualsOrAsTheNextWord) {
  KubeconfigEnv env;
  using Get = std::function<bool(const Options&)>;
  const Get bind = [](const Options& o) { return o.api.bind; };
  const Get in_cluster = [](const Options& o) { return o.api.in_cluster; };
  const Get skip_verify = [](const Options& o) { return o.api.insecure_skip_tls_verify; };
  const Get leader = [](const Options& o) { return o.api.leader_elect; };
  struct Case {
    std::vector<std::string> args;
    Get get;
    bool want;
  };
  const std::string api = "https://k8s:6443";
  const Case cases[] = {
      {{"--api-server", api, "--enable-bind"}, bind, true},
      {{"--api-server", api, "--enable-bind=true"}, bind, true},
      {{"--api-server", api, "--enable-bind=false"}, bind, false},                   // was: bind on
      {{"--api-server", api, "--enable-bind", "--enable-bind=false"}, bind, false},  // the last one counts
      {{"--enable-bind=false"}, bind, false},  // and needs no API source then
      {{"--in-cluster"}, in_cluster, true},
      {{"--in-cluster=false"}, in_cluster, false},
      {{"--in-cluster=false", "--kubeconfig", "kc"}, in_cluster, false},  // no conflict either
      {{"--api-server", api, "--api-insecure-skip-tls-verify"}, skip_verify, true},
      {{"--api-server", api, "--api-insecure-skip-tls-verify=false"}, skip_verify, false},
      {{"--api-insecure-skip-tls-verify=false"}, skip_verify, false},  // without --api-server
      {{"--api-server", api, "--enable-bind", "--leader-elect=false"}, leader, false},
      {{"--api-server", api, "--enable-bind", "--leader-elect"}, leader, true},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(joined(c.args));
    Options o;
    ASSERT_NO_THROW(o = parse(c.args));
    EXPECT_EQ(c.get(o), c.want);
  }
  EXPECT_FALSE(parse({"--in-cluster=false"}).api.enabled());
  // Its value as the next argument too (pflag would refuse a stray "false"; operators write both).
  EXPECT_FALSE(parse({"--in-cluster", "false"}).api.in_cluster);
  EXPECT_FALSE(parse({"--api-server", api, "--enable-bind", "false"}).api.bind);
  EXPECT_TRUE(parse({"--api-server", api, "--enable-bind", "True"}).api.bind);
  EXPECT_FALSE(
      parse({"--api-server", api, "--api-insecure-skip-tls-verify", "FALSE"}).api.insecure_skip_tls_verify);
  // Only a boolean word: anything else after a boolean flag is still a stray argument.
  EXPECT_EQ(error_of({"--in-cluster", "no"}), "unexpected argument \"no\"");
  // And a non-boolean flag's value "false" stays its value.
  EXPECT_EQ(parse({"--path-prefix", "false"}).server.path_prefix, "false");
  EXPECT_NE(error_of({"--enable-bind=maybe"}).find("--enable-bind"), std::string::npos);
}

TEST(Options, VerbosityIsSpelledAsKlogSpellsIt) {
  KubeconfigEnv env;
  const std::pair<std::vector<std::string>, int> cases[] = {
      {{}, 0},           {{"-v=2"}, 2}, {{"--v=2"}, 2},        {{"-v", "3"}, 3},
      {{"--v", "4"}, 4}, {{"-v5"}, 5},  {{"-v=1", "-v=0"}, 0},
  };
  for (const auto& [args, want] : cases) {
    SCOPED_TRACE(joined(args));
    EXPECT_EQ(parse(args).server.verbosity, want);
  }
  for (const char* bad : {"-v=11", "-v=x", "--v=-1"}) {
    EXPECT_NE(error_of({bad}).find("--v"), std::string::npos) << bad;
  }
  // -v=1 and up: every flag's value for the start-up log, an alias's under the current name.
  Options o = parse({"-v=1", "--address", "127.0.0.1", "--snapshot", "a", "--snapshot", "b"});
  const std::string values = joined(o.flag_values);
  EXPECT_NE(values.find("--bind-address=\"127.0.0.1\"\n"), std::string::npos) << values;
  EXPECT_NE(values.find("--port=\"8888\"\n"), std::string::npos) << values;
  EXPECT_NE(values.find("--snapshot=\"a,b\"\n"), std::string::npos) << values;
  EXPECT_NE(values.find("--v=\"1\"\n"), std::string::npos) << values;
  EXPECT_EQ(values.find("--address="), std::string::npos) << values;
  EXPECT_NE(values.find("--enable-bind=\"false\"\n"), std::string::npos) << values;
  const std::string given = joined(parse({"-v=1", "--in-cluster", "--enable-bind"}).flag_values);
  EXPECT_NE(given.find("--enable-bind=\"true\"\n"), std::string::npos) << given;
  EXPECT_NE(given.find("--in-cluster=\"true\"\n"), std::string::npos) << given;
  EXPECT_TRUE(parse({}).flag_values.empty());
}

TEST(Options, RenamedFlagsKeepTheirOldNameAsADeprecatedAlias) {
  KubeconfigEnv env;
  struct Case {
    std::vector<std::string> args;
    std::string address, policy, notice;
  };
  const Case cases[] = {
      {{}, "0.0.0.0", "", ""},
      {{"--bind-address", "127.0.0.1"}, "127.0.0.1", "", ""},
      {{"--bind-address=::1"}, "::1", "", ""},
      {{"--address", "127.0.0.1"},
       "127.0.0.1",
       "",
       "flag --address is deprecated, use --bind-address instead (same meaning)"},
      {{"--config", "p.json"}, "0.0.0.0", "p.json", ""},
      {{"--policy", "p.json"},
       "0.0.0.0",
       "p.json",
       "flag --policy is deprecated, use --config instead (same meaning)"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(joined(c.args));
    Options o = parse(c.args);
    EXPECT_EQ(o.server.address, c.address);
    EXPECT_EQ(o.policy_file, c.policy);
    EXPECT_EQ(joined(o.notices), c.notice.empty() ? "" : c.notice + "\n");
  }
  EXPECT_EQ(error_of({"--address", "a", "--bind-address", "b"}), "--bind-address excludes --address");
  EXPECT_EQ(error_of({"--policy", "a", "--config", "b"}), "--config excludes --policy");
  EXPECT_EQ(error_of({"--bind-address", ""}), "--bind-address: must not be empty");
  EXPECT_NE(error_of({"--bind-address="}).find("--bind-address"), std::string::npos);
}

TEST(Options, AlternativeClusterStateSourcesAreRefusedNamingBoth) {
  KubeconfigEnv env;
  const std::pair<std::vector<std::string>, std::string> cases[] = {
      {{"--kubeconfig", "kc", "--in-cluster"}, "--in-cluster and --kubeconfig are alternative API sources"},
      {{"--kubeconfig", "kc", "--api-server", "https://h"},
       "--kubeconfig and --api-server are alternative API sources"},
      {{"--in-cluster", "--api-server", "https://h"},
       "--in-cluster and --api-server are alternative API sources"},
      {{"--snapshot", "s.json", "--in-cluster"},
       "--snapshot and --in-cluster are alternative cluster-state sources"},
      {{"--snapshot", "s.json", "--kubeconfig", "kc"},
       "--snapshot and --kubeconfig are alternative cluster-state sources"},
      {{"--enable-bind"}, "--enable-bind needs the Kubernetes API"},
      {{"--context", "c"}, "--context needs --kubeconfig"},
  };
  for (const auto& [args, want] : cases) {
    EXPECT_NE(error_of(args).find(want), std::string::npos) << joined(args) << error_of(args);
  }
}

TEST(Options, KubeconfigVariableIsReadAsKubectlReadsIt) {
  testing::TempDir dir("kubeconfig-env");
  const std::string first = (dir.path() / "first").string(), second = (dir.path() / "second").string();
  testing::spit(first, "");
  testing::spit(second, "");
  const std::string missing = (dir.path() / "missing").string();
  struct Case {
    std::string env;
    std::vector<std::string> args;
    std::string kubeconfig;  // "" = not from the variable
  };
  const Case cases[] = {
      {first, {}, first},
      {missing + ":" + second + ":" + first, {}, second},  // the first file of the list that exists
      {":" + first, {}, first},                            // empty entries are skipped
      {first, {"--context", "other", "--enable-bind"}, first},
      {first, {"--kubeconfig", second}, ""},  // a flag wins
      {first, {"--in-cluster"}, ""},
      {first, {"--api-server", "https://h"}, ""},
      {first, {"--snapshot", "s.json"}, ""},
      {"", {}, ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.env + " " + joined(c.args));
    KubeconfigEnv env(c.env.c_str());
    Options o = parse(c.args);
    if (c.kubeconfig.empty()) {
      EXPECT_EQ(o.api.kubeconfig_env, "");
      EXPECT_NE(o.api.kubeconfig, first);
    } else {
      EXPECT_EQ(o.api.kubeconfig, c.kubeconfig);
      EXPECT_EQ(o.api.kubeconfig_env, c.env);
      EXPECT_TRUE(o.api.enabled());
    }
  }
  KubeconfigEnv none(missing.c_str());
  EXPECT_NE(error_of({}).find("KUBECONFIG=\"" + missing + "\": none of its files exists"), std::string::npos);
}

TEST(Options, BadFlagsStopStartUpNamingTheFlag) {
  KubeconfigEnv env;
  const std::pair<std::vector<std::string>, std::string> cases[] = {
      {{"--bogus"}, "unknown flag \"--bogus\""},
      {{"--bogus=1"}, "unknown flag \"--bogus=1\""},
      {{"--port", "abc"}, "--port: not a number: \"abc\""},  // was: not in range 0 to 65535
      {{"--threads", "many"}, "--threads: not a number: \"many\""},
      {{"--metrics-port=x1"}, "--metrics-port: not a number: \"x1\""},
      {{"--idle-timeout-seconds", "1m"}, "--idle-timeout-seconds: not a number: \"1m\""},
      {{"--bind-assume-ttl-seconds=30s"}, "--bind-assume-ttl-seconds: not a number: \"30s\""},
      {{"--port=-1"}, "--port: Value -1 not in range"},  // a number: the range is the problem
      {{"--port=70000"}, "--port"},
      {{"--port"}, "--port"},
      {{"--threads", "0"}, "--threads"},
      {{"--max-body-bytes", "-5"}, "--max-body-bytes"},
      {{"--idle-timeout-seconds", "0"}, "--idle-timeout-seconds"},
      {{"--leader-elect-lease-duration", "15x"}, "--leader-elect-lease-duration: expected a duration"},
      {{"--leader-elect-resource-name", ""}, "--leader-elect-resource-name: must not be empty"},
      {{"stray"}, "unexpected argument \"stray\""},
      {{"--snapshot", "a.json", "b.json"}, "unexpected argument \"b.json\""},  // one value per --snapshot
  };
  for (const auto& [args, want] : cases) {
    EXPECT_NE(error_of(args).find(want), std::string::npos) << joined(args) << ": " << error_of(args);
  }
}

// --kubernetes-version takes what a configuration's kubernetesVersion takes (policy/version_choice.h).
TEST(Options, KubernetesVersionIsCheckedAsTheFileChecksIt) {
  KubeconfigEnv env;
  EXPECT_FALSE(parse({}).kubernetes_version);
  EXPECT_EQ(parse({"--kubernetes-version", "v1.30.2"}).kubernetes_version, KubeVersion{30});
  EXPECT_EQ(parse({"--kubernetes-version=1.26"}).kubernetes_version, KubeVersion{26});
  EXPECT_NE(
      error_of({"--kubernetes-version", "1.40"})
          .find("--kubernetes-version: \"1.40\": 1.40 is not reproduced by this extender (supported: 1.26 to "
                "1.36)"),
      std::string::npos)
      << error_of({"--kubernetes-version", "1.40"});
  EXPECT_NE(error_of({"--kubernetes-version", "v1"})
                .find("--kubernetes-version: \"v1\" is not a Kubernetes version"),
            std::string::npos);
  EXPECT_NE(error_of({"--kubernetes-version="}).find("--kubernetes-version"), std::string::npos);
  EXPECT_NE(usage_text().find("--kubernetes-version VERSION"), std::string::npos);
}

// "not a number" comes from the shared parse (common/cli.cc), for a numeric flag of any tool: with a
// range or without one (extender-sim's --seed said "Could not convert: --seed = x").
TEST(Options, EveryNumericFlagSaysNotANumber) {
  auto error = [](std::vector<std::string> args) {
    CLI::App app("test", "test");
    cli::configure(app);
    uint64_t seed = 1;
    double rate = 0;
    int port = 0;
    bool check = false;
    app.add_option("--seed", seed);
    app.add_option("--rate", rate);
    app.add_option("--port", port)->check(CLI::Range(0, 65535));
    app.add_flag("--check", check);
    args.insert(args.begin(), "test");
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    try {
      cli::parse(app, static_cast<int>(argv.size()), argv.data());
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(error({"--seed", "x"}), "--seed: not a number: \"x\"");
  EXPECT_EQ(error({"--rate=fast"}), "--rate: not a number: \"fast\"");
  EXPECT_EQ(error({"--port", "http"}), "--port: not a number: \"http\"");
  EXPECT_NE(error({"--port", "70000"}).find("not in range"), std::string::npos);
  EXPECT_EQ(error({"--seed", "7", "--rate", "0.5", "--port", "80"}), "");
  EXPECT_EQ(error({"--check=maybe"}).find("not a number"), std::string::npos);  // a boolean: not a number
}

TEST(Options, ValuesDefaultsAndRepeats) {
  KubeconfigEnv env;
  Options o = parse({"--port=0", "--port", "9000", "--snapshot", "a", "--snapshot=b", "--metrics-port", "0",
                     "--idle-timeout-seconds=7", "--leader-elect-retry-period", "500ms"});
  EXPECT_EQ(o.server.port, 9000);  // the last one counts, as with pflag
  EXPECT_EQ(o.snapshots, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(o.server.metrics_port, -1);  // 0 = off
  EXPECT_EQ(o.server.limits.idle_timeout, std::chrono::seconds(7));
  EXPECT_EQ(o.api.election.retry_period, std::chrono::milliseconds(500));
  EXPECT_EQ(parse({"--metrics-port=9100"}).server.metrics_port, 9100);
  EXPECT_TRUE(parse({"--help"}).help);
  EXPECT_TRUE(parse({"-h"}).help);
  const Options defaults;
  const std::string help = usage_text();
  EXPECT_NE(help.find("--port N"), std::string::npos) << help;
  EXPECT_NE(help.find("(default " + std::to_string(defaults.server.port) + ")"), std::string::npos) << help;
  EXPECT_NE(help.find("--leader-elect-lease-duration D"), std::string::npos) << help;
  EXPECT_NE(help.find("deprecated alias of --bind-address"), std::string::npos) << help;
}

// The real binary: the deprecation notice and, from -v=1, the flags' values and one line per request
// on stderr; a bad flag exits 2.
TEST(Options, TheBinaryReportsDeprecatedFlagsAndLogsMoreWithVerbosity) {
  testing::TempDir dir("policy-flag");
  const std::string policy = (dir.path() / "policy.json").string();
  testing::spit(policy, std::string(default_policy_json()));
  auto run = [&](std::vector<std::string> args) {
    args.push_back("--shutdown-delay-seconds=0");
    testing::ExtenderProcess p(args);
    EXPECT_GT(p.port(), 0) << p.log();
    httplib::Client c("127.0.0.1", p.port());
    auto r = c.Post("/filter", R"({"Pod":{"metadata":{"name":"p","uid":"u"}},"NodeNames":["n1"]})",
                    "application/json");
    EXPECT_TRUE(r && r->status == 200);
    kill(p.pid(), SIGTERM);
    EXPECT_EQ(p.wait_exit(std::chrono::seconds(10)), 0);
    return p.log();
  };
  const std::string quiet = run({"--policy", policy});
  EXPECT_NE(quiet.find("kube-extender: flag --policy is deprecated, use --config instead"), std::string::npos)
      << quiet;
  EXPECT_EQ(quiet.find("FLAG:"), std::string::npos) << quiet;
  EXPECT_EQ(quiet.find("\"path\":\"/filter\""), std::string::npos) << quiet;
  const std::string verbose = run({"--config=" + policy, "-v=2"});
  EXPECT_EQ(verbose.find("deprecated"), std::string::npos) << verbose;
  EXPECT_NE(verbose.find("FLAG: --config=\"" + policy + "\"\n"), std::string::npos) << verbose;
  EXPECT_NE(verbose.find("FLAG: --v=\"2\"\n"), std::string::npos) << verbose;
  EXPECT_NE(verbose.find("\"path\":\"/filter\""), std::string::npos) << verbose;  // the request's line
  EXPECT_NE(verbose.find("\"durationSeconds\":"), std::string::npos) << verbose;

  testing::ExtenderProcess bad({"--enable-bind=maybe"});
  EXPECT_EQ(bad.wait_exit(std::chrono::seconds(10)), 2);
  EXPECT_NE(bad.log().find("--enable-bind"), std::string::npos) << bad.log();
}

// --write-config prints what runs, as an ExtenderConfiguration, and exits 0: a YAML file's, a legacy
// Policy's modern equivalent, the embedded default's.
TEST(Options, WriteConfigPrintsTheEffectiveConfigurationAndExits) {
  testing::TempDir dir("write-config");
  const std::string yaml = (dir.path() / "config.yaml").string();
  testing::spit(yaml,
                "apiVersion: kube-extender.io/v1alpha1\nkind: ExtenderConfiguration\n"
                "plugins: {score: {enabled: [{name: ImageLocality, weight: 7}]}}\n");
  const std::string legacy = (dir.path() / "policy.json").string();
  testing::spit(legacy, std::string(default_policy_json()));
  auto written = [](const std::string& args) {
    const std::string cmd = std::string(KEXT_BINARY) + " " + args + " --write-config 2>/dev/null";
    FILE* f = popen(cmd.c_str(), "r");
    std::string out;
    char buf[4096];
    for (size_t n; f && (n = fread(buf, 1, sizeof buf, f)) > 0;) out.append(buf, n);
    const int status = f ? pclose(f) : -1;
    EXPECT_EQ(status, 0) << cmd;
    return out;
  };
  const std::string from_yaml = written("--config " + yaml);
  ASSERT_FALSE(from_yaml.empty());
  // What it prints loads again to itself, and differs from the default by the file's one change.
  EXPECT_EQ(load_scheduling_file(from_yaml).effective_config + "\n", from_yaml);
  EXPECT_NE(from_yaml.find("\"ImageLocality\""), std::string::npos);
  EXPECT_NE(from_yaml.find("\"weight\": 7"), std::string::npos) << from_yaml;
  const std::string embedded = written("");
  EXPECT_EQ(embedded, load_scheduling_file(default_config_json()).effective_config + "\n");
  EXPECT_NE(embedded, from_yaml);
  // The default legacy Policy is the embedded default said the old way.
  EXPECT_EQ(written("--policy " + legacy), embedded);
}

// What an operator gets without asking: no shutdown delay outside a cluster (the manifests pass one),
// --version, --scheduler-name.
TEST(Options, FirstHourDefaultsAndFlags) {
  KubeconfigEnv env;
  EXPECT_EQ(Options().shutdown_delay_seconds, 0);
  EXPECT_EQ(parse({}).shutdown_delay_seconds, 0);
  EXPECT_FALSE(parse({}).version);
  EXPECT_TRUE(parse({"--version"}).version);
  EXPECT_TRUE(parse({"--version", "--enable-bind"}).version);  // whatever else is given
  EXPECT_EQ(parse({"--scheduler-name", "gpu"}).scheduler_name, "gpu");
  EXPECT_NE(error_of({"--scheduler-name="}).find("--scheduler-name"), std::string::npos);
}

// Runs the binary to its exit: stdout and the exit status (stderr appended when `with_stderr`).
std::pair<std::string, int> run_to_exit(const std::string& args, bool with_stderr = false) {
  const std::string cmd = std::string(KEXT_BINARY) + " " + args + (with_stderr ? " 2>&1" : " 2>/dev/null");
  FILE* f = popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  for (size_t n; f && (n = fread(buf, 1, sizeof buf, f)) > 0;) out.append(buf, n);
  const int status = f ? pclose(f) : -1;
  return {out, WIFEXITED(status) ? WEXITSTATUS(status) : -1};
}

TEST(Options, VersionPrintsTheVersionAndExits) {
  EXPECT_EQ(run_to_exit("--version"), std::make_pair(std::string("kube-extender " KEXT_VERSION "\n"), 0));
}

// A bad --config file, or one --write-config cannot print, is reported against the flag.
TEST(Options, ConfigErrorsNameTheFlag) {
  testing::TempDir dir("config-errors");
  const std::string bad = (dir.path() / "bad.yaml").string();
  testing::spit(bad, "apiVersion: kube-extender.io/v1alpha1\nkind: ExtenderConfiguration\nplugin: {}\n");
  const auto [out, status] = run_to_exit("--config " + bad, true);
  EXPECT_EQ(status, 1) << out;
  EXPECT_NE(out.find("--config " + bad + ": plugin: unknown field"), std::string::npos) << out;
  // Two NodeResourcesFit strategies: a legacy Policy that no ExtenderConfiguration says.
  const std::string legacy = (dir.path() / "legacy.json").string();
  testing::spit(legacy, R"({"kind":"Policy","apiVersion":"v1","priorities":[
    {"name":"LeastRequestedPriority","weight":1},{"name":"MostRequestedPriority","weight":1}]})");
  const auto [written, write_status] = run_to_exit("--config " + legacy + " --write-config", true);
  EXPECT_EQ(write_status, 1) << written;
  EXPECT_NE(written.find("--write-config: --config " + legacy + ": "), std::string::npos) << written;
  const auto [named, named_status] = run_to_exit("--config " + bad + " --scheduler-name x", true);
  EXPECT_EQ(named_status, 1);
  EXPECT_NE(named.find("--config " + bad + ": "), std::string::npos) << named;
}

// examples/kube-scheduler-config.yaml: --write-config prints its profile as an ExtenderConfiguration;
// started without cluster state, the log says what will not work, once in general and once against
// the extenders entry.
TEST(Options, KubeSchedulerConfigurationStartsWithWarnings) {
  const std::string example = std::string(KEXT_SOURCE_DIR) + "/examples/kube-scheduler-config.yaml";
  const auto [written, status] = run_to_exit("--config " + example + " --write-config");
  EXPECT_EQ(status, 0);
  EXPECT_NE(written.find("\"kind\": \"ExtenderConfiguration\""), std::string::npos) << written;
  EXPECT_NE(written.find("LeastAllocated"), std::string::npos) << written;

  auto started = [&](std::vector<std::string> args) {
    testing::ExtenderProcess p(args);
    EXPECT_GT(p.port(), 0) << p.log();
    kill(p.pid(), SIGTERM);
    EXPECT_EQ(p.wait_exit(std::chrono::seconds(10)), 0);
    return p.log();
  };
  const std::string log = started({"--config", example});
  EXPECT_NE(log.find("WARNING: --config " + example +
                     ": extenders[0].nodeCacheCapable: true, but this "
                     "extender has no cluster state"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("WARNING: no cluster state (no --in-cluster, --kubeconfig, --api-server or --snapshot): "
                     "nodeCacheCapable requests (NodeNames) answer every node \"not found\""),
            std::string::npos)
      << log;
  // With a snapshot, nothing to warn about.
  testing::TempDir dir("ksc-snapshot");
  const std::string snapshot = (dir.path() / "s.json").string();
  testing::spit(snapshot, R"({"kind":"List","items":[]})");
  const std::string quiet = started({"--config", example, "--snapshot", snapshot});
  EXPECT_EQ(quiet.find("WARNING"), std::string::npos) << quiet;
}

// The flags table of docs/configuration.md is the operators' reference: each flag has a row.
TEST(Options, TheDocsDocumentEveryFlag) {
  const std::vector<std::string> names = flag_names();
  EXPECT_GT(names.size(), 40u);
  testing::expect_documents_exactly(names, "docs/configuration.md", "## Flags", "## ");
}

}  // namespace
}  // namespace options_test
}  // namespace kext
