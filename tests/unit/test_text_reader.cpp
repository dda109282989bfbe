// The token reader under the text formats of decomposition files: tokens, line ends, comments,
// line numbers, overlong tokens, and the parsing helpers' messages. No MPI.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "decomp/text_reader.hpp"

namespace esmio::decomp {
namespace {

class TextFile {
 public:
  explicit TextFile(const std::string &text) {
    const char *tmp = std::getenv("TMPDIR");
    std::string tmpl = std::string(tmp ? tmp : "/tmp") + "/esmio_text_reader_XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    const int fd = mkstemp(buf.data());
    if (fd >= 0) close(fd);
    path_ = buf.data();
    std::ofstream(path_, std::ios::binary) << text;
  }
  ~TextFile() { std::remove(path_.c_str()); }
  const std::string &path() const { return path_; }

 private:
  std::string path_;
};

// The tokens of text as "word", "|" (line end) and "$" (end of file), each word with its line.
std::string tokens(const std::string &text, char comment) {
  TextFile f(text);
  TextReader in;
  EXPECT_TRUE(in.open(f.path(), comment).is_ok());
  std::string out;
  for (;;) {
    const TextReader::Kind k = in.next();
    if (k == TextReader::kEof) return out + "$";
    if (k == TextReader::kEol) {
      out += "|";
      continue;
    }
    out += std::string(in.word()) + "@" + std::to_string(in.line()) + " ";
  }
}

TEST(TextReader, WordsLineEndsAndLineNumbers) {
  EXPECT_EQ(tokens("", 0), "$");
  EXPECT_EQ(tokens("a b\n\n c\t d \r\n", 0), "a@1 b@1 ||c@3 d@3 |$");
  EXPECT_EQ(tokens("a", 0), "a@1 $");
}

TEST(TextReader, CommentsRunToTheLineEnd) {
  EXPECT_EQ(tokens("a # b c\nd #", '#'), "a@1 |d@2 $");
  // Without a comment character, '#' is part of a word.
  EXPECT_EQ(tokens("a #b\n", 0), "a@1 #b@1 |$");
}

TEST(TextReader, IntegersAndOverlongTokens) {
  TextFile f("12 -1 1x " + std::string(45, '1') + " 99999999999999999999\n");
  TextReader in;
  ASSERT_TRUE(in.open(f.path(), 0).is_ok());
  int64_t v = 0;
  ASSERT_EQ(in.next(), TextReader::kWord);
  EXPECT_TRUE(in.integer(&v));
  EXPECT_EQ(v, 12);
  ASSERT_EQ(in.next(), TextReader::kWord);
  EXPECT_TRUE(in.integer(&v));
  EXPECT_EQ(v, -1);
  ASSERT_EQ(in.next(), TextReader::kWord);
  EXPECT_FALSE(in.integer(&v));
  EXPECT_EQ(in.quoted(), "'1x'");
  ASSERT_EQ(in.next(), TextReader::kWord);  // cut to its first characters: never a number
  EXPECT_FALSE(in.integer(&v));
  EXPECT_EQ(in.quoted(), "'" + std::string(24, '1') + "...'");
  ASSERT_EQ(in.next(), TextReader::kWord);  // does not fit 64 bits
  EXPECT_FALSE(in.integer(&v));
  EXPECT_EQ(in.next(), TextReader::kEol);
  EXPECT_EQ(in.next(), TextReader::kEof);
}

TEST(TextReader, PushBackReturnsTheSameToken) {
  TextFile f("a\nb");
  TextReader in;
  ASSERT_TRUE(in.open(f.path(), 0).is_ok());
  EXPECT_EQ(in.next_skipping_eol(), TextReader::kWord);
  in.push_back();
  EXPECT_EQ(in.next(), TextReader::kWord);
  EXPECT_EQ(in.word(), "a");
  EXPECT_EQ(in.next_skipping_eol(), TextReader::kWord);
  EXPECT_EQ(in.word(), "b");
  EXPECT_EQ(in.line(), 2);
}

TEST(TextReader, MissingFileIsEio) {
  TextReader in;
  const Status st = in.open("/nonexistent/esmio/map.dat", 0);
  EXPECT_EQ(st.code(), ESMIO_EIO);
  EXPECT_NE(st.message().find("/nonexistent/esmio/map.dat: cannot open"), std::string::npos)
      << st.message();
}

// The parsing helpers name the file, the line and what was expected or found.
TEST(TextParser, MessagesNameFileLineAndCause) {
  TextFile f("ndims 2\ndims 4 x\nnprocs 0\n");
  TextReader in;
  ASSERT_TRUE(in.open(f.path(), '#').is_ok());
  TextParser p(&in);
  int64_t ndims = 0, nprocs = 0, gsize = 0;
  std::vector<int64_t> dims;
  ASSERT_TRUE(p.keyword("ndims", true).is_ok());
  ASSERT_TRUE(p.ndims(&ndims, true).is_ok());
  EXPECT_EQ(ndims, 2);
  ASSERT_TRUE(p.keyword("dims", true).is_ok());
  Status st = p.dims(ndims, true, false, &dims, &gsize);
  EXPECT_EQ(st.code(), ESMIO_EDECOMP);
  EXPECT_EQ(st.message(), f.path() + ":2: expected a dimension length, found 'x'");
  ASSERT_TRUE(p.keyword("nprocs", true).is_ok());
  st = p.nprocs(&nprocs, true);
  EXPECT_EQ(st.message(), f.path() + ":3: number of processes 0 is not within 1..2^31-1");
  st = p.keyword("end", true);
  EXPECT_EQ(st.message(), f.path() + ":4: file ends early: expected 'end'");
}

TEST(TextParser, LineEndsEarlyOnAFixedLine) {
  TextFile f("version 2001 npes\n3\n");
  TextReader in;
  ASSERT_TRUE(in.open(f.path(), 0).is_ok());
  TextParser p(&in);
  ASSERT_TRUE(p.keyword("version", false).is_ok());
  int64_t v = 0;
  ASSERT_TRUE(p.integer(&v, "the version", false).is_ok());
  ASSERT_TRUE(p.keyword("npes", false).is_ok());
  const Status st = p.nprocs(&v, false);
  EXPECT_EQ(st.code(), ESMIO_EDECOMP);
  EXPECT_EQ(st.message(), f.path() + ":1: line ends early: expected the number of processes");
}

}  // namespace
}  // namespace esmio::decomp
