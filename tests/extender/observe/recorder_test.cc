// The --record-dir format and its size bound.
#include "extender/observe/recorder.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "common/record_format.h"
#include "load/exchanges.h"
#include "tests/support/temp_dir.h"

namespace kext::testing {
namespace recorder_test {
namespace {

namespace fs = std::filesystem;

TEST(RecordFormat, AnyBodySurvivesByteForByte) {
  RecordEntry e;
  e.seq = 7;
  e.time = 1767225600.25;
  e.verb = "filter";
  e.content_type = "application/json";
  e.content_length = "42";
  e.body = std::string("{\"a\":\"q\\\"\n\t\x01\xff\xfe\"}") + std::string(1, '\0') + "tail";
  e.status = 400;
  e.reply = "{\"Error\":\"bad \\u0041\"}";
  const std::string line = encode_record_line(e);
  EXPECT_EQ(line.back(), '\n');
  EXPECT_EQ(line.find('\n'), line.size() - 1);  // one record, one line
  RecordEntry d;
  std::string error;
  ASSERT_TRUE(decode_record_line(line, &d, &error)) << error;
  EXPECT_EQ(d.seq, 7u);
  EXPECT_DOUBLE_EQ(d.time, 1767225600.25);
  EXPECT_EQ(d.verb, "filter");
  EXPECT_EQ(d.content_type, "application/json");
  EXPECT_EQ(d.content_length, "42");
  EXPECT_EQ(d.body, e.body);
  EXPECT_EQ(d.status, 400);
  EXPECT_EQ(d.reply, e.reply);
}

TEST(RecordFormat, MalformedLinesAreRejectedNotFatal) {
  RecordEntry d;
  std::string error;
  for (const char* bad : {"", "{", "[]", R"({"verb":"filter"})", R"({"verb":1,"body":""})",
                          R"({"verb":"filter","body":"","status":"200"})"}) {
    EXPECT_FALSE(decode_record_line(bad, &d, &error)) << bad;
    EXPECT_FALSE(error.empty());
  }
}

uint64_t recording_bytes(const fs::path& dir, size_t* files) {
  uint64_t total = 0;
  *files = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    total += e.file_size();
    ++*files;
  }
  return total;
}

TEST(Recorder, RotatesAndDeletesTheOldestWithinTheBound) {
  TempDir dir("rotate");
  const std::string body(300, 'x');
  {
    Recorder rec(RecorderConfig{dir.str(), 4096, 1024});
    for (int i = 0; i < 100; ++i) {
      RecordEntry e;
      e.seq = rec.next_seq();
      e.verb = "filter";
      e.body = body;
      rec.record_line(encode_record_line(e));
    }
    EXPECT_EQ(rec.dropped(), 0u);
  }
  size_t files = 0;
  EXPECT_LE(recording_bytes(dir.path(), &files), 4096u);
  EXPECT_GE(files, 3u);
  EXPECT_FALSE(fs::exists(dir.path() / record_file_name(1)));  // the oldest went first
  auto exchanges = load::read_exchanges(dir.str());
  ASSERT_FALSE(exchanges.empty());
  EXPECT_EQ(exchanges.back().record.seq, 100u);  // the newest stayed
  for (size_t i = 1; i < exchanges.size(); ++i)
    EXPECT_EQ(exchanges[i].record.seq, exchanges[i - 1].record.seq + 1);
}

TEST(Recorder, ARestartContinuesTheNumberingAndTheBound) {
  TempDir dir("restart");
  for (int run = 0; run < 2; ++run) {
    Recorder rec(RecorderConfig{dir.str(), 1 << 20, 0});
    RecordEntry e;
    e.verb = "prioritize";
    e.body = "{}";
    e.seq = rec.next_seq();
    rec.record_line(encode_record_line(e));
  }
  EXPECT_TRUE(fs::exists(dir.path() / record_file_name(1)));
  EXPECT_TRUE(fs::exists(dir.path() / record_file_name(2)));
  EXPECT_EQ(load::read_exchanges(dir.str()).size(), 2u);
}

TEST(Recorder, ARecordLargerThanTheBoundIsDropped) {
  TempDir dir("drop");
  Recorder rec(RecorderConfig{dir.str(), 4096, 0});
  RecordEntry e;
  e.verb = "filter";
  e.body = std::string(5000, 'y');
  rec.record_line(encode_record_line(e));
  EXPECT_EQ(rec.dropped(), 1u);
}

TEST(Recorder, AnUncreatableDirectoryIsAStartUpError) {
  TempDir dir("uncreatable");
  spit(dir.path() / "file", "x");
  EXPECT_THROW(Recorder(RecorderConfig{(dir.path() / "file" / "sub").string(), 4096, 0}), std::runtime_error);
}

}  // namespace
}  // namespace recorder_test
}  // namespace kext::testing
