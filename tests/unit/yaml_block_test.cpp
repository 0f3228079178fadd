// Typed reads of YAML scalars as PyYAML (the Cerebras stack's reader) resolves them.
#include <gtest/gtest.h>

#include "common/errors.hpp"
#include "input/yaml_block.hpp"

namespace {

csx::io::Block block_of(const std::string& yaml) {
  return csx::io::Block("f.yaml", "model", YAML::Load(yaml));
}

}  // namespace

TEST(YamlBlock, Yaml11Integers) {
  // YAML 1.1's int forms (yaml.org/type/int.html), each worked out by hand: 010 is octal 8,
  // 0x1F is 31, 0b1010 is 10, 1_024 is 1024, 1:30 is 1*60+30 = 90, -0x10 is -16.
  const auto b = block_of(
      "a: 010\nb: 0x1F\nc: 0b1010\nd: 1_024\ne: 1:30\nf: -0x10\ng: 10_000\nh: 0\n"
      "i: '010'\nj: 2048\nk: 2048.0\n");
  EXPECT_EQ(b.get_int("a"), 8);
  EXPECT_EQ(b.get_int("b"), 31);
  EXPECT_EQ(b.get_int("c"), 10);
  EXPECT_EQ(b.get_int("d"), 1024);
  EXPECT_EQ(b.get_int("e"), 90);
  EXPECT_EQ(b.get_int("f", -100), -16);
  EXPECT_EQ(b.get_int("g"), 10000);
  EXPECT_EQ(b.get_int("h", 0), 0);
  EXPECT_EQ(b.get_int("i"), 10);  // quoted: a string, read as the decimal it spells
  EXPECT_EQ(b.get_int("j"), 2048);
  EXPECT_EQ(b.get_int("k"), 2048);
}

TEST(YamlBlock, Yaml11IntegerErrors) {
  const auto b = block_of("a: 0x8000000000000000\nb: -0x10\nc: 0x_\nd: 08\ne: 0x100\n");
  EXPECT_THROW((void)b.get_int("a"), csx::InputError);  // 2^63: past 64 bits
  try {
    (void)b.get_int("b");
    FAIL();
  } catch (const csx::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("-0x10 (= -16): must be at least 1"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW((void)b.get_int("c"), csx::InputError);
  EXPECT_EQ(b.get_int("d"), 8);  // not octal (8 is no octal digit): the decimal it spells
  EXPECT_THROW((void)b.get_int("e", 1, 255), csx::InputError);  // 256 > 255
}

TEST(YamlBlock, BooleansAsPyYamlAndPydanticReadThem) {
  const auto b = block_of("a: yes\nb: Off\nc: 1\nd: 0\ne: 2\n");
  EXPECT_TRUE(b.get_bool("a", false));
  EXPECT_FALSE(b.get_bool("b", true));
  EXPECT_TRUE(b.get_bool("c", false));
  EXPECT_FALSE(b.get_bool("d", true));
  EXPECT_THROW((void)b.get_bool("e", false), csx::InputError);
  EXPECT_TRUE(b.get_bool("absent", true));
}
